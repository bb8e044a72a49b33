// SPDX-License-Identifier: Apache-2.0
// The fused elementwise steps of the sparse-recovery solvers on real arrays
// (gpurSparseVectors.h documents each; gpurSparseVectorsCPU.cxx is the CPU
// twin). Every kernel is a grid-stride loop over n values whose body has no
// data-dependent branch (loads are unconditional, choices are selects), so
// that CPU drivers such as PoCL vectorise it across work-items. The kernels
// that measure reduce their sums per work-group (gpur_reduce.cl) into
// `partials`, which the host adds in double, only when `measure` is set, so an
// iteration without a check never waits for the host.
// Requires gpur_common.cl and gpur_reduce.cl.

// The soft threshold of u at t, u - clamp(u, -t, t), or max(u - t, 0) when nonnegative (sparse::Shrink).
inline REAL sparse_shrink(REAL u, REAL t, int nonnegative)
{
  return nonnegative ? fmax(u - t, (REAL)0) : u - clamp(u, -t, t);
}

// out = P (in - w y): the zero-filled residual (w = 1) or the masked array (w = 0).
__kernel void sparse_masked_difference(__global const REAL * in,
                                       __global const REAL * y,
                                       REAL w,
                                       __global const uchar * mask,
                                       __global REAL * out,
                                       long n)
{
  for (long i = get_global_id(0); i < n; i += get_global_size(0))
  {
    const REAL v = in[i] - w * y[i];
    out[i] = mask[i] ? v : (REAL)0;
  }
}

// Writes the work-group sums of a and b to partials[2 group], partials[2 group + 1].
inline void sparse_store_pair(REAL a, REAL b, __global REAL * partials, __local REAL * scratch)
{
  const REAL sa = gpur_group_sum(a, scratch);
  const REAL sb = gpur_group_sum(b, scratch);
  if (get_local_id(0) == 0)
  {
    partials[2 * get_group_id(0)] = sa;
    partials[2 * get_group_id(0) + 1] = sb;
  }
}

// CPISTA/FISTA [Fiandrotti2018, Algorithm 1; Beck2009, eqs. (4.1)-(4.3)]: x_new = prox(w - step g),
// w = x_new + beta (x_new - x), x = x_new; w and x are the same array for CPISTA (beta = 0).
// With measure: the sums of (x_new - x)^2 and x_new^2.
__kernel void sparse_prox_step(__global REAL * w,
                               __global const REAL * g,
                               __global REAL * x,
                               REAL step,
                               REAL threshold,
                               REAL beta,
                               int nonnegative,
                               int measure,
                               long n,
                               __global REAL * partials,
                               __local REAL * scratch)
{
  REAL d2 = 0, cd = 0, x2 = 0, cx = 0;
  for (long i = get_global_id(0); i < n; i += get_global_size(0))
  {
    const REAL next = sparse_shrink(w[i] - step * g[i], threshold, nonnegative);
    const REAL d = next - x[i];
    w[i] = next + beta * d;
    x[i] = next;
    gpur_kahan_add(&d2, &cd, d * d);
    gpur_kahan_add(&x2, &cx, next * next);
  }
  if (measure)
    sparse_store_pair(d2, x2, partials, scratch);
}

// CPADMM after x and cx = C' x [Fiandrotti2018, Algorithm 3]: v = d (rho cx - rho mu + y) with d = 1/(1 + rho)
// on Omega and 1/rho elsewhere, z_new = prox(x + nu), mu += tau (v - cx), nu += tau (x - z_new); then
// a = v + mu and c = z_new - nu (the next iteration's inputs) and z = z_new. With measure: the sums of
// (z_new - z)^2 and z_new^2.
__kernel void sparse_admm_update(__global const REAL * x,
                                 __global const REAL * cx,
                                 __global const REAL * y,
                                 __global const uchar * mask,
                                 __global REAL * mu,
                                 __global REAL * nu,
                                 __global REAL * z,
                                 __global REAL * a,
                                 __global REAL * c,
                                 REAL rho,
                                 REAL threshold,
                                 REAL tau,
                                 REAL dIn,
                                 REAL dOut,
                                 int nonnegative,
                                 int measure,
                                 long n,
                                 __global REAL * partials,
                                 __local REAL * scratch)
{
  REAL d2 = 0, cd = 0, z2 = 0, cz = 0;
  for (long i = get_global_id(0); i < n; i += get_global_size(0))
  {
    const REAL xi = x[i], cxi = cx[i], mui = mu[i], nui = nu[i];
    const REAL v = (mask[i] ? dIn : dOut) * (rho * cxi - rho * mui + y[i]);
    const REAL zNew = sparse_shrink(xi + nui, threshold, nonnegative);
    const REAL muNew = mui + tau * (v - cxi);
    const REAL nuNew = nui + tau * (xi - zNew);
    const REAL d = zNew - z[i];
    mu[i] = muNew;
    nu[i] = nuNew;
    a[i] = v + muNew;
    c[i] = zNew - nuNew;
    z[i] = zNew;
    gpur_kahan_add(&d2, &cd, d * d);
    gpur_kahan_add(&z2, &cz, zNew * zNew);
  }
  if (measure)
    sparse_store_pair(d2, z2, partials, scratch);
}

// The reductions of a check (sparse::Measures), per work-group, 5 values each: sum r^2, sum |x|, sum y r,
// max |g| (max -g when nonnegative, at least 0), sum (x - truth)^2 (0 without a truth).
__kernel void sparse_measure(__global const REAL * x,
                             __global const REAL * r,
                             __global const REAL * g,
                             __global const REAL * y,
                             __global const REAL * truth,
                             int hasTruth,
                             int nonnegative,
                             long n,
                             __global REAL * partials,
                             __local REAL * scratch)
{
  REAL r2 = 0, cr = 0, l1 = 0, cl = 0, yr = 0, cy = 0, e2 = 0, ce = 0, gmax = 0;
  for (long i = get_global_id(0); i < n; i += get_global_size(0))
  {
    const REAL xi = x[i], ri = r[i];
    gpur_kahan_add(&r2, &cr, ri * ri);
    gpur_kahan_add(&l1, &cl, fabs(xi));
    gpur_kahan_add(&yr, &cy, y[i] * ri);
    const REAL gi = g[i];
    gmax = fmax(gmax, nonnegative ? -gi : fabs(gi));
    const REAL e = hasTruth ? xi - truth[i] : (REAL)0; // truth is a valid array (x) without a truth
    gpur_kahan_add(&e2, &ce, e * e);
  }
  const REAL s0 = gpur_group_sum(r2, scratch);
  const REAL s1 = gpur_group_sum(l1, scratch);
  const REAL s2 = gpur_group_sum(yr, scratch);
  const REAL s3 = gpur_group_max(gmax, scratch);
  const REAL s4 = gpur_group_sum(e2, scratch);
  if (get_local_id(0) == 0)
  {
    __global REAL * p = partials + 5 * get_group_id(0);
    p[0] = s0;
    p[1] = s1;
    p[2] = s2;
    p[3] = s3;
    p[4] = s4;
  }
}

// The work-group maxima of |v|.
__kernel void sparse_max_abs(__global const REAL * v, long n, __global REAL * partials, __local REAL * scratch)
{
  REAL m = 0;
  for (long i = get_global_id(0); i < n; i += get_global_size(0))
    m = fmax(m, fabs(v[i]));
  const REAL r = gpur_group_max(m, scratch);
  if (get_local_id(0) == 0)
    partials[get_group_id(0)] = r;
}
