// SPDX-License-Identifier: Apache-2.0
// Products with the sensing's spectrum K (R2C half spectra, REAL2 = (re, im))
// [Fiandrotti2018, §4.2]: C' x = IFFT(K . FFT(x)), C'^T r = IFFT(conj(K) . FFT(r)),
// (rho C'^T C' + sigma I)^-1 = IFFT(FFT(.) / (rho |K|^2 + sigma)).
// gpurSparseVectorsCPU.cxx is the CPU twin. Grid-stride loops over h values.
// Requires gpur_common.cl; the host defines REAL2.

inline REAL2 sparse_cmul(REAL2 a, REAL2 b)
{
  return (REAL2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

inline REAL2 sparse_conj(REAL2 a)
{
  return (REAL2)(a.x, -a.y);
}

// s = K s, or conj(K) s.
__kernel void sparse_multiply_k(__global REAL2 * s, __global const REAL2 * k, int conjugate, long h)
{
  for (long i = get_global_id(0); i < h; i += get_global_size(0))
    s[i] = sparse_cmul(conjugate ? sparse_conj(k[i]) : k[i], s[i]);
}

// s = s / (rho |K|^2 + sigma).
__kernel void sparse_divide_shifted(__global REAL2 * s, __global const REAL2 * k, REAL rho, REAL sigma, long h)
{
  for (long i = get_global_id(0); i < h; i += get_global_size(0))
  {
    const REAL2 ki = k[i];
    s[i] = s[i] / (rho * (ki.x * ki.x + ki.y * ki.y) + sigma);
  }
}

// CPADMM's x-update: a = (rho conj(K) a + sigma c) / (rho |K|^2 + sigma), then c = K a.
__kernel void sparse_admm_spectra(__global REAL2 * a,
                                  __global REAL2 * c,
                                  __global const REAL2 * k,
                                  REAL rho,
                                  REAL sigma,
                                  long h)
{
  for (long i = get_global_id(0); i < h; i += get_global_size(0))
  {
    const REAL2 ki = k[i];
    const REAL2 x = (rho * sparse_cmul(sparse_conj(ki), a[i]) + sigma * c[i]) / (rho * (ki.x * ki.x + ki.y * ki.y) + sigma);
    a[i] = x;
    c[i] = sparse_cmul(ki, x);
  }
}
