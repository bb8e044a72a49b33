// SPDX-License-Identifier: Apache-2.0
// The fast-transform path of the PSCR solver on OpenCL
// (gpurPSCRFastTransformsOpenCL.cxx): the DST-I and DCT-II/III of one axis
// [Strang1999] as a real FFT of the symmetrically extended lines (VkFFT, in
// place in FFTW's padded r2c layout, `pitch` reals a line), and the division
// by the operator's eigenvalues.
//
// The data u stay in one array with strides: the pack kernels read the
// lines of axis a (index j, stride sa; the other two axes' indices ib < nb,
// ic with strides sb, sc) and write line l = ib + ic * nb of the transform
// buffer w; the unpack kernels read w's lines back and write u with (other)
// strides. So the axes left to tridiagonal or PSCR solves can be laid out
// contiguously.
//
// `across` (uniform, chosen by the host per axis) orders the work-items:
// 0 runs dimension 0 along the transformed axis (m or k, then ib, ic), for
// the contiguous axis; 1 runs it across (ib, then m or k, ic), for a strided
// axis whose ib is the contiguous x: neighbouring work-items then read and
// write neighbouring values of u, and each line of w is written a few values
// at a time while its cache lines stay in cache.
//
// Real scalars only (the fast path is for real operators).
#ifndef PSCR_COMPLEX

// The offset in u of entry j of line (ib, ic) of the axis with strides s.
inline long pscr_fast_at(long j, long ib, long ic, long sa, long sb, long sc)
{
  return j * sa + ib * sb + ic * sc;
}

// The work-item's position M along the axis and its line (IB, IC), in the order `across` says.
// (get_global_id with constant dimensions: a compiler for CPUs then still
// sees dimension 0 step by one and vectorises.)
#define PSCR_FAST_INDEX(M, IB, IC)                                                                                     \
  const long g0 = get_global_id(0), g1 = get_global_id(1);                                                            \
  const int M = (int)(across ? g1 : g0);                                                                               \
  const long IB = across ? g0 : g1, IC = get_global_id(2)

// DST-I of n points as the real FFT of the odd extension of length N = 2 (n + 1):
// z = (0, x_0, ..., x_{n-1}, 0, -x_{n-1}, ..., -x_0); then y_k = -Im Z_{k+1}
// (FFTW's RODFT00, unnormalised).
__kernel void pscr_fast_pack_dst1(__global const REAL * u,
                                  int n,
                                  long sa,
                                  long sb,
                                  long sc,
                                  __global REAL * w,
                                  long pitch,
                                  long nb,
                                  int across)
{
  PSCR_FAST_INDEX(m, ib, ic);
  const int N = 2 * (n + 1);
  if (m >= N || ib >= nb)
    return;
  REAL v = 0;
  if (m >= 1 && m <= n)
    v = u[pscr_fast_at(m - 1, ib, ic, sa, sb, sc)];
  else if (m >= n + 2)
    v = -u[pscr_fast_at(N - 1 - m, ib, ic, sa, sb, sc)];
  w[(ib + ic * nb) * pitch + m] = v;
}

// DCT-II of n points as the real FFT of the even extension of length N = 2 n:
// z = (x_0, ..., x_{n-1}, x_{n-1}, ..., x_0); then y_k = Re(exp(-i pi k / (2n)) Z_k)
// (FFTW's REDFT10).
__kernel void pscr_fast_pack_dct2(__global const REAL * u,
                                  int n,
                                  long sa,
                                  long sb,
                                  long sc,
                                  __global REAL * w,
                                  long pitch,
                                  long nb,
                                  int across)
{
  PSCR_FAST_INDEX(m, ib, ic);
  if (m >= 2 * n || ib >= nb)
    return;
  const int j = m < n ? m : 2 * n - 1 - m;
  w[(ib + ic * nb) * pitch + m] = u[pscr_fast_at(j, ib, ic, sa, sb, sc)];
}

// DCT-III of n points (the DCT-II's inverse up to 2n) as the inverse real FFT
// of length 2n of the half spectrum Z_k = x_k exp(i pi k / (2n)), Z_n = 0: the
// inverse FFT (which divides by 2n) leaves y_j / (2n) at the line's first n
// reals. twiddle: cos and sin of pi k / (2n), k < n.
__kernel void pscr_fast_pack_dct3(__global const REAL * u,
                                  int n,
                                  long sa,
                                  long sb,
                                  long sc,
                                  __global REAL * w,
                                  long pitch,
                                  __global const REAL * twiddle,
                                  long nb,
                                  int across)
{
  PSCR_FAST_INDEX(k, ib, ic);
  if (k > n || ib >= nb)
    return;
  REAL re = 0, im = 0;
  if (k < n)
  {
    const REAL x = u[pscr_fast_at(k, ib, ic, sa, sb, sc)];
    re = x * twiddle[2 * k];
    im = x * twiddle[2 * k + 1];
  }
  __global REAL * line = w + (ib + ic * nb) * pitch;
  line[2 * k] = re;
  line[2 * k + 1] = im;
}

// After a DCT-II's FFT: y_k = Re Z_k cos(pi k / (2n)) + Im Z_k sin(pi k / (2n)), times scale, into u.
__kernel void pscr_fast_unpack_dct2(__global const REAL * w,
                                    long pitch,
                                    int n,
                                    __global REAL * u,
                                    long sa,
                                    long sb,
                                    long sc,
                                    REAL scale,
                                    __global const REAL * twiddle,
                                    long nb,
                                    int across)
{
  PSCR_FAST_INDEX(k, ib, ic);
  if (k >= n || ib >= nb)
    return;
  const __global REAL * z = w + (ib + ic * nb) * pitch + 2 * k;
  u[pscr_fast_at(k, ib, ic, sa, sb, sc)] = (z[0] * twiddle[2 * k] + z[1] * twiddle[2 * k + 1]) * scale;
}

// Value k of each line at w[line + first + step k], times scale, into u: after a
// DST-I's FFT y_k = -Im Z_{k+1} (step 2, first 3, scale negated); after the
// inverse FFT of a DCT-III the line's first n reals (step 1, first 0).
__kernel void pscr_fast_unpack_strided(__global const REAL * w,
                                       long pitch,
                                       int n,
                                       __global REAL * u,
                                       long sa,
                                       long sb,
                                       long sc,
                                       REAL scale,
                                       int step,
                                       int first,
                                       long nb,
                                       int across)
{
  PSCR_FAST_INDEX(k, ib, ic);
  if (k >= n || ib >= nb)
    return;
  u[pscr_fast_at(k, ib, ic, sa, sb, sc)] = w[(ib + ic * nb) * pitch + first + step * k] * scale;
}

// Every axis transformed: u_k <- u_k / (c + lambda_{x,kx} + lambda_{y,ky} (+ lambda_{z,kz})),
// in double where the device has it (WIDE), as on the CPU. lambda holds the
// axes' eigenvalues one after the other (a missing z: one 0 at lz); u is x
// fastest. nullMode: the singular operator's mode 0 (all k = 0) is set to 0.
__kernel void pscr_fast_divide(__global REAL * u,
                               int nx,
                               int ny,
                               __global const WIDE * lambda,
                               int lx,
                               int ly,
                               int lz,
                               WIDE shift,
                               int nullMode)
{
  const int x = get_global_id(0);
  const long y = get_global_id(1), z = get_global_id(2);
  if (x >= nx)
    return;
  const long i = (z * ny + y) * nx + x;
  const WIDE d = shift + lambda[lx + x] + lambda[ly + y] + lambda[lz + z];
  u[i] = (nullMode && i == 0) ? (REAL)0 : (REAL)((WIDE)u[i] / d);
}

#endif
