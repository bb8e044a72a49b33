// SPDX-License-Identifier: Apache-2.0
// The PSCR reduction and back substitution of one reduced axis on a batch of
// problems ([Myllykoski2018, eqs. (2.16)-(2.19)] on the sets J_i = multiples of
// q^i, so any size; 3D via eq. (2.6); the kernels of [Myllykoski2018, §3.2]
// without the partial-sum tree). The host (gpurPSCROpenCL.cxx) enqueues, for
// axis d with P problems of n rows of S inner values each (x fastest), per level:
//   reduction:          pscr_gather -> inner solves of Z -> pscr_block_ends -> pscr_reduce_couple (2 passes)
//   back substitution:  pscr_back_couple -> pscr_gather -> inner solves of Z -> pscr_back_update
// The inner solves are the same steps one axis down, with the P x jobs problems
// of Z, or the tridiagonal kernels along x. Every kernel runs on the range
// (S rounded up, blocks or jobs, P): dimension 0 walks the contiguous inner
// index, so neighbouring work-items touch neighbouring addresses.
//
// Arrays: X[p][row][s]; Z[p][job][s]; V[p][block][end][s] (end 0: the block's
// first row, 1: its last); shifts[p] the problem's shift; innerShifts[p][job]
// the shift of each partial solve (shift + lambda_{B,l}). The factors of every
// axis sit in one array F (axis e at F + factorOffset_e, 4 n_e entries: diag
// A, off A, diag M, off M). Requires gpur_common.cl and pscr_scalar.cl.

// A block of a level, packed by the host (PSCRBlock of gpurPSCRPlan.h).
typedef struct
{
  int first;     // first row
  int size;      // m, its rows and eigenpairs
  int rhsFirst;  // its right-hand-side rows: rhsFirst + t rhsStride, t < rhsCount
  int rhsStride;
  int rhsCount;
  int values;    // offset of its m eigenvalues
  int vectors;   // offset of its (2 + rhsCount) x m eigenvector entries
  int job;       // its first partial solve in the level
} pscr_block;

// The coupling entries (A_rs, M_rs) of the reduced axis between rows o and o + 1.
typedef struct
{
  __global const SCALAR * A; // off-diagonal of A of the reduced axis
  __global const SCALAR * M; // off-diagonal of M
} pscr_coupling;

// Entries (i, i + o) of M and A of an inner axis of size n with factors f
// (o in {-1, 0, 1}); false outside the axis. f == 0 marks an absent axis
// (the y axis under a 2D operator): M = 1, A = 0.
GPUR_INLINE bool pscr_entries(__global const SCALAR * f, int n, int i, int o, SCALAR * m, SCALAR * a)
{
  if (n == 1 && o == 0 && f == 0)
  {
    *m = pscr_scalar(1);
    *a = 0;
    return true;
  }
  if (i + o < 0 || i + o >= n)
    return false;
  const int k = o < 0 ? i - 1 : i;
  *m = f[(o == 0 ? 2 : 3) * n + k];
  *a = f[(o == 0 ? 0 : 1) * n + k];
  return true;
}

// (M_x v)[x] and (A_x v)[x] of the row `row`, summed in the order of the CPU's stencil (x - 1, x, x + 1), without
// branches on x: an entry outside the axis, and the value it would multiply, read as 0, which adds exactly nothing
// (CPU drivers vectorise across work-items only then).
GPUR_INLINE void pscr_x_stencil(__global const SCALAR * row, __global const SCALAR * fx, int nx, int x, SCALAR * mu,
                                SCALAR * au)
{
  const SCALAR zero = 0;
  const SCALAR ml = x > 0 ? fx[3 * nx + x - 1] : zero, al = x > 0 ? fx[nx + x - 1] : zero;
  const SCALAR mr = x + 1 < nx ? fx[3 * nx + x] : zero, ar = x + 1 < nx ? fx[nx + x] : zero;
  const SCALAR vl = x > 0 ? row[x - 1] : zero, vr = x + 1 < nx ? row[x + 1] : zero;
  SCALAR m = 0, a = 0;
  m += pscr_mul(ml, vl);
  a += pscr_mul(al, vl);
  m += pscr_mul(fx[2 * nx + x], row[x]);
  a += pscr_mul(fx[x], row[x]);
  m += pscr_mul(mr, vr);
  a += pscr_mul(ar, vr);
  *mu = m;
  *au = a;
}

// (alpha M_inner + beta K_inner) v at inner index s, with M_inner = M_y (x) M_x
// and K_inner = A_y (x) M_x + M_y (x) A_x (the y factors absent under a 2D
// operator): the coupling blocks T-hat, T-check, K-hat, K-check of
// [Myllykoski2018, eqs. (2.16), (2.19)] (3D: inner operator of eq. (2.6)).
// Grouped by the x entries as on the CPU (ForEachStencilValue,
// gpurSeparableStencil.h): each row oy adds P (M_x v) + Q (A_x v),
// P = alpha my + beta ay, Q = beta my.
GPUR_INLINE SCALAR pscr_apply_coupling(SCALAR alpha,
                                       SCALAR beta,
                                       __global const SCALAR * v,
                                       long s,
                                       __global const SCALAR * fx,
                                       int nx,
                                       __global const SCALAR * fy,
                                       int ny)
{
  SCALAR mu, au;
  if (fy == 0)
  {
    // A 2D operator: the one inner row, my = 1 and ay = 0, so P = alpha and Q = beta, which the general sum
    // below gives exactly; straight-line code, which CPU drivers vectorise across work-items.
    pscr_x_stencil(v, fx, nx, (int)s, &mu, &au);
    return pscr_mul(alpha, mu) + pscr_mul(beta, au);
  }
  // 32-bit index arithmetic: the host checks that a block row fits.
  const int si = (int)s, x = si % nx, y = si / nx;
  const SCALAR one = pscr_scalar(1), zero = 0; // the absent z axis: M = 1, A = 0
  SCALAR acc = 0;
  for (int oy = -1; oy <= 1; ++oy)
  {
    SCALAR my, ay;
    if (!pscr_entries(fy, ny, y, oy, &my, &ay))
      continue;
    const SCALAR p = pscr_mul(pscr_mul(alpha, one), my) + pscr_mul(beta, pscr_mul(zero, my) + pscr_mul(one, ay));
    const SCALAR q = pscr_mul(pscr_mul(beta, one), my);
    pscr_x_stencil(v + (long)(y + oy) * nx, fx, nx, x, &mu, &au);
    acc += pscr_mul(p, mu) + pscr_mul(q, au);
  }
  return acc;
}

// The coupling block between rows r and r2 = r +- 1 of the reduced axis for a
// problem with shift `shift`, applied to v: (A_rr2 + shift M_rr2) M_inner + M_rr2 K_inner.
GPUR_INLINE SCALAR pscr_couple(__global const SCALAR * fd,
                               int n,
                               int r,
                               int r2,
                               SCALAR shift,
                               __global const SCALAR * v,
                               long s,
                               __global const SCALAR * fx,
                               int nx,
                               __global const SCALAR * fy,
                               int ny)
{
  const int o = min(r, r2);
  const SCALAR mrs = fd[3 * n + o];
  return pscr_apply_coupling(fd[n + o] + pscr_mul(shift, mrs), mrs, v, s, fx, nx, fy, ny);
}

// The inner axes of the reduced axis: x, and y when the reduced axis is z.
#define PSCR_INNER_ARGS                                                                                           \
  __global const SCALAR *F, int factorsD, int n, int factorsX, int nx, int factorsY, int ny
#define PSCR_FD (F + factorsD)
#define PSCR_FX (F + factorsX)
#define PSCR_FY (factorsY < 0 ? (__global const SCALAR *)0 : F + factorsY)

// The right-hand sides of the partial solves ([Myllykoski2018, eqs. (2.17) and
// (2.19)]): Z[p][j] = sum_t w_l[rhs row t] X[p][rhs row t], plus in the back
// substitution w_l[first] V[p][b][0] + w_l[last] V[p][b][1] (the known
// neighbours, -C u, from pscr_back_couple); and each solve's shift.
__kernel void pscr_gather(__global const SCALAR * X,
                          int n,
                          long S,
                          __global SCALAR * Z,
                          int jobs,
                          __global const pscr_block * blocks,
                          __global const int * jobBlock,
                          int blockCount,
                          __global const SCALAR * values,
                          __global const SCALAR * vectors,
                          __global const SCALAR * shifts,
                          __global SCALAR * innerShifts,
                          __global const SCALAR * V,
                          int withCouplings)
{
  const long s = get_global_id(0);
  const int j = get_global_id(1);
  const long p = get_global_id(2);
  if (s >= S)
    return;
  const int b = jobBlock[j];
  const pscr_block B = blocks[b];
  const int l = j - B.job;
  __global const SCALAR * w = vectors + B.vectors;
  __global const SCALAR * Xp = X + p * n * S + s;
  SCALAR z = 0;
  for (int t = 0; t < B.rhsCount; ++t)
    z += pscr_mul(w[(2 + t) * B.size + l], Xp[(long)(B.rhsFirst + t * B.rhsStride) * S]);
  if (withCouplings)
  {
    __global const SCALAR * Vb = V + (p * blockCount + b) * 2 * S + s;
    if (B.first > 0)
      z += pscr_mul(w[l], Vb[0]);
    if (B.first + B.size < n)
      z += pscr_mul(w[B.size + l], Vb[S]);
  }
  Z[(p * jobs + j) * S + s] = z;
  if (s == 0)
    innerShifts[p * jobs + j] = shifts[p] + values[B.values + l];
}

// Reduction: the partial solutions at the block ends, v_first = sum_l w_l[first] z_l
// and v_last = sum_l w_l[last] z_l (the sums of [Myllykoski2018, eq. (2.16)]).
__kernel void pscr_block_ends(__global const SCALAR * Z,
                              long S,
                              int jobs,
                              __global const pscr_block * blocks,
                              int blockCount,
                              __global const SCALAR * vectors,
                              __global SCALAR * V)
{
  const long s = get_global_id(0);
  const int b = get_global_id(1);
  const long p = get_global_id(2);
  if (s >= S)
    return;
  const pscr_block B = blocks[b];
  __global const SCALAR * w = vectors + B.vectors;
  __global const SCALAR * Zb = Z + (p * jobs + B.job) * S + s;
  SCALAR first = 0, last = 0;
  for (int l = 0; l < B.size; ++l)
  {
    const SCALAR zl = Zb[l * S];
    first += pscr_mul(w[l], zl);
    last += pscr_mul(w[B.size + l], zl);
  }
  __global SCALAR * Vb = V + (p * blockCount + b) * 2 * S + s;
  Vb[0] = first;
  Vb[S] = last;
}

// Reduction: f^{(i+1)} on J_i ([Myllykoski2018, eq. (2.16)]). A row of J_i can
// end one block and start the next, so the two updates run as two launches:
// pass 0 subtracts C_{r,r-1} v_last from the row after each block, pass 1
// C_{r,r+1} v_first from the row before it.
__kernel void pscr_reduce_couple(__global SCALAR * X,
                                 long S,
                                 __global const pscr_block * blocks,
                                 int blockCount,
                                 __global const SCALAR * V,
                                 __global const SCALAR * shifts,
                                 int pass,
                                 PSCR_INNER_ARGS)
{
  const long s = get_global_id(0);
  const int b = get_global_id(1);
  const long p = get_global_id(2);
  if (s >= S)
    return;
  const pscr_block B = blocks[b];
  const int r = pass == 0 ? B.first + B.size : B.first - 1;
  if (r < 0 || r >= n)
    return;
  const int r2 = pass == 0 ? r - 1 : r + 1;
  __global const SCALAR * v = V + ((p * blockCount + b) * 2 + (pass == 0 ? 1 : 0)) * S;
  X[(p * n + r) * S + s] -= pscr_couple(PSCR_FD, n, r, r2, shifts[p], v, s, PSCR_FX, nx, PSCR_FY, ny);
}

// Back substitution: -C u at the known neighbour rows of each block (zero
// where the block touches the end of the axis).
__kernel void pscr_back_couple(__global const SCALAR * X,
                               long S,
                               __global const pscr_block * blocks,
                               int blockCount,
                               __global SCALAR * V,
                               __global const SCALAR * shifts,
                               PSCR_INNER_ARGS)
{
  const long s = get_global_id(0);
  const int b = get_global_id(1);
  const long p = get_global_id(2);
  if (s >= S)
    return;
  const pscr_block B = blocks[b];
  const int last = B.first + B.size - 1;
  __global const SCALAR * Xp = X + p * n * S;
  __global SCALAR * Vb = V + (p * blockCount + b) * 2 * S + s;
  const SCALAR shift = shifts[p];
  Vb[0] = B.first > 0 ? -pscr_couple(PSCR_FD, n, B.first, B.first - 1, shift, Xp + (long)(B.first - 1) * S, s,
                                     PSCR_FX, nx, PSCR_FY, ny)
                      : 0;
  Vb[S] = last + 1 < n
            ? -pscr_couple(PSCR_FD, n, last, last + 1, shift, Xp + (long)(last + 1) * S, s, PSCR_FX, nx, PSCR_FY, ny)
            : 0;
}

// Back substitution: u on the right-hand-side rows, sum_l w_l[row] z_l
// ([Myllykoski2018, eq. (2.18)]).
__kernel void pscr_back_update(__global SCALAR * X,
                               int n,
                               long S,
                               __global const SCALAR * Z,
                               int jobs,
                               __global const pscr_block * blocks,
                               __global const SCALAR * vectors)
{
  const long s = get_global_id(0);
  const int b = get_global_id(1);
  const long p = get_global_id(2);
  if (s >= S)
    return;
  const pscr_block B = blocks[b];
  __global const SCALAR * Zb = Z + (p * jobs + B.job) * S + s;
  // The rows' sums side by side, so that Z is read once (q - 1 <= 3 rows: BuildPSCRPlan allows q = 2 or 4; a
  // block with fewer sums its last row again, not stored); each sum over the block's eigenpairs in the wide
  // scalar, as on the CPU.
  __global const SCALAR * w0 = vectors + B.vectors + 2 * B.size;
  __global const SCALAR * w1 = w0 + min(1, B.rhsCount - 1) * B.size;
  __global const SCALAR * w2 = w0 + min(2, B.rhsCount - 1) * B.size;
  WIDE u[3] = { 0, 0, 0 };
  for (int l = 0; l < B.size; ++l)
  {
    const WIDE zl = pscr_widen(Zb[l * S]);
    u[0] += pscr_w_mul(pscr_widen(w0[l]), zl);
    u[1] += pscr_w_mul(pscr_widen(w1[l]), zl);
    u[2] += pscr_w_mul(pscr_widen(w2[l]), zl);
  }
  for (int t = 0; t < B.rhsCount; ++t)
    X[(p * n + B.rhsFirst + t * B.rhsStride) * S + s] = pscr_narrow(u[t]);
}

// Singular operators: the tensor-product vector e = e_z (x) e_y (x) e_x at
// index i of an nx x ny x nz array (e concatenates e_x, e_y and, when
// threeD, e_z), formed as ForEachTensor does in gpurPSCRSolver.cxx.
inline SCALAR pscr_tensor(__global const SCALAR * e, long i, int nx, int ny, int threeD)
{
  const int x = i % nx;
  const long yz = i / nx;
  const int y = yz % ny, z = yz / ny;
  const SCALAR ez = threeD ? e[nx + ny + z] : pscr_scalar(1);
  return pscr_mul(pscr_mul(ez, e[nx + y]), e[x]);
}

// Per work-group partial sums of Re(e^T x), Im(e^T x) and |x|^2 (the host adds
// them in double): the compatibility check and the null-space projections.
// The local size must be a power of two.
__kernel void pscr_null_dot(__global const SCALAR * x,
                            __global const SCALAR * e,
                            int nx,
                            int ny,
                            int nz,
                            int threeD,
                            __global REAL * partials,
                            __local REAL * scratch)
{
  const long count = (long)nx * ny * nz;
  REAL re = 0, reC = 0, im = 0, imC = 0, sq = 0, sqC = 0;
  for (long i = get_global_id(0); i < count; i += get_global_size(0))
  {
    const SCALAR v = x[i];
    const SCALAR ev = pscr_mul(pscr_tensor(e, i, nx, ny, threeD), v);
    gpur_kahan_add(&re, &reC, pscr_real(ev));
    gpur_kahan_add(&im, &imC, pscr_imag(ev));
    gpur_kahan_add(&sq, &sqC, pscr_norm(v));
  }
  re = gpur_group_sum(re, scratch);
  im = gpur_group_sum(im, scratch);
  sq = gpur_group_sum(sq, scratch);
  if (get_local_id(0) == 0)
  {
    partials[3 * get_group_id(0)] = re;
    partials[3 * get_group_id(0) + 1] = im;
    partials[3 * get_group_id(0) + 2] = sq;
  }
}

// x -= c e (e a tensor-product vector as above).
__kernel void
pscr_null_axpy(__global SCALAR * x, __global const SCALAR * e, int nx, int ny, int nz, int threeD, SCALAR c)
{
  const long i = get_global_id(0);
  if (i < (long)nx * ny * nz)
    x[i] -= pscr_mul(c, pscr_tensor(e, i, nx, ny, threeD));
}
