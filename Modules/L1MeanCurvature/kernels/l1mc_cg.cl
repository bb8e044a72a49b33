// SPDX-License-Identifier: Apache-2.0
// Sub #2 [Myllykoski2015a, eq. (3.26)] on the device: conjugate gradients for
// (r2 I - r3 grad0 div_h) p3 = r2 p2 + lambda2 - grad0(r3 psi - lambda3),
// warm-started from p3, with every scalar on the device: the host enqueues a
// fixed number of steps (the budget of gpurL1MCStepper.h, the same on the CPU)
// and each kernel returns at once when the device flag says CG has stopped,
// so no host read happens inside CG. The scalars live in `s` from `base`:
#define L1MC_CG_BB 0     // ||b||^2
#define L1MC_CG_RR 1     // ||r||^2
#define L1MC_CG_DAD 2    // d . A d
#define L1MC_CG_ALPHA 3  // rr / dAd
#define L1MC_CG_BETA 4   // rr_new / rr
#define L1MC_CG_DONE 5   // 1 once stopped
#define L1MC_CG_ITER 6   // steps taken
#define L1MC_CG_TARGET 7 // tolerance^2 ||b||^2
// The dot products use the work-group partials of l1mc_fe.cl; the reductions
// finish in one work-group (l1mc_cg_alpha, l1mc_cg_beta, l1mc_cg_start).

inline int l1mc_square(int v, int nx, int ny)
{
  return v < nx * ny && v % nx + 1 < nx && v / nx + 1 < ny;
}

// b into r: r2 p2 + lambda2 - grad(r3 psi - lambda3); partial ||b||^2 (component 0).
__kernel void l1mc_cg_rhs(__global const REAL * p2, __global const REAL * l2, __global const REAL * psi,
                          __global const REAL * l3, __global REAL * r, int nx, int ny, REAL ihx, REAL ihy, REAL r2,
                          REAL r3, __global double * partials, __local double * scratch)
{
  const int v = get_global_id(0);
  const int plane = nx * ny;
  double bb = 0.0;
  if (l1mc_square(v, nx, ny))
  {
    const REAL w00 = r3 * psi[v] - l3[v], w10 = r3 * psi[v + 1] - l3[v + 1];
    const REAL w01 = r3 * psi[v + nx] - l3[v + nx], w11 = r3 * psi[v + nx + 1] - l3[v + nx + 1];
    const REAL g[4] = { (w10 - w00) * ihx, (w11 - w10) * ihy, (w11 - w01) * ihx, (w01 - w00) * ihy };
    for (int c = 0; c < 4; ++c)
    {
      const REAL b = r2 * p2[c * plane + v] + l2[c * plane + v] - g[c];
      r[c * plane + v] = b;
      bb += (double)b * (double)b;
    }
  }
  l1mc_partial(bb, 0, partials, scratch);
}

// out = div_h q (interior vertices) unless CG has stopped.
__kernel void l1mc_cg_divergence(__global const REAL * q, __global REAL * out, int nx, int ny, REAL ihx, REAL ihy,
                                 __global const double * s, int base)
{
  if (s[base + L1MC_CG_DONE] != 0.0)
    return;
  const int v = get_global_id(0);
  const int x = v % nx, y = v / nx;
  if (v >= nx * ny || !l1mc_interior(x, y, nx, ny))
    return;
  out[v] = l1mc_divergence(q, nx * ny, nx, ny, x, y, ihx, ihy);
}

// Starting residual: Ad = A p3 (div p3 in `div`), r -= Ad, d = r; partial ||r||^2 (component 1).
__kernel void l1mc_cg_residual(__global const REAL * p3, __global const REAL * div, __global REAL * r,
                               __global REAL * d, int nx, int ny, REAL ihx, REAL ihy, REAL r2, REAL r3,
                               __global double * partials, __local double * scratch)
{
  const int v = get_global_id(0);
  const int plane = nx * ny;
  double rr = 0.0;
  if (l1mc_square(v, nx, ny))
  {
    REAL g[4];
    l1mc_gradients(div, nx, v, ihx, ihy, g);
    for (int c = 0; c < 4; ++c)
    {
      const int i = c * plane + v;
      const REAL res = r[i] - (r2 * p3[i] - r3 * g[c]);
      r[i] = res;
      d[i] = res;
      rr += (double)res * (double)res;
    }
  }
  l1mc_partial(rr, 1, partials, scratch);
}

// One work-group: ||b||^2 and ||r||^2 from the partials; the stopping state of a fresh CG run.
__kernel void l1mc_cg_start(__global const double * partials, int groups, __global double * s, int base,
                            double tolerance, int budget, __local double * scratch)
{
  double acc[2] = { 0.0, 0.0 };
  for (int k = 0; k < 2; ++k)
  {
    for (int g = get_local_id(0); g < groups; g += get_local_size(0))
      acc[k] += partials[k * groups + g];
    acc[k] = gpur_group_dsum(acc[k], scratch);
  }
  if (get_local_id(0) == 0)
  {
    s[base + L1MC_CG_BB] = acc[0];
    s[base + L1MC_CG_RR] = acc[1];
    s[base + L1MC_CG_TARGET] = tolerance * tolerance * acc[0];
    s[base + L1MC_CG_ITER] = 0.0;
    s[base + L1MC_CG_DONE] = (acc[1] > tolerance * tolerance * acc[0] && budget > 0) ? 0.0 : 1.0;
  }
}

// Ad = r2 d - r3 grad0(div_h d) (div_h d in `div`); partial d . Ad (component 0).
__kernel void l1mc_cg_apply(__global const REAL * d, __global const REAL * div, __global REAL * ad, int nx, int ny,
                            REAL ihx, REAL ihy, REAL r2, REAL r3, __global const double * s, int base,
                            __global double * partials, __local double * scratch)
{
  // No return before the barrier of l1mc_partial (a work-group must reach it whole).
  const bool active = s[base + L1MC_CG_DONE] == 0.0;
  const int v = get_global_id(0);
  const int plane = nx * ny;
  double dad = 0.0;
  if (active && l1mc_square(v, nx, ny))
  {
    REAL g[4];
    l1mc_gradients(div, nx, v, ihx, ihy, g);
    for (int c = 0; c < 4; ++c)
    {
      const int i = c * plane + v;
      const REAL a = r2 * d[i] - r3 * g[c];
      ad[i] = a;
      dad += (double)d[i] * (double)a;
    }
  }
  l1mc_partial(dad, 0, partials, scratch);
}

// One work-group: alpha = rr / dAd, or stop when dAd <= 0 (as the CPU does).
__kernel void l1mc_cg_alpha(__global const double * partials, int groups, __global double * s, int base,
                            __local double * scratch)
{
  const bool active = s[base + L1MC_CG_DONE] == 0.0; // read before any write; no return before a barrier
  double acc = 0.0;
  for (int g = get_local_id(0); active && g < groups; g += get_local_size(0))
    acc += partials[g];
  acc = gpur_group_dsum(acc, scratch);
  if (active && get_local_id(0) == 0)
  {
    s[base + L1MC_CG_DAD] = acc;
    if (acc > 0.0)
      s[base + L1MC_CG_ALPHA] = s[base + L1MC_CG_RR] / acc;
    else
      s[base + L1MC_CG_DONE] = 1.0;
  }
}

// p3 += alpha d, r -= alpha Ad; partial ||r||^2 (component 0).
__kernel void l1mc_cg_update(__global REAL * p3, __global REAL * r, __global const REAL * d,
                             __global const REAL * ad, int nx, int ny, __global const double * s, int base,
                             __global double * partials, __local double * scratch)
{
  const bool active = s[base + L1MC_CG_DONE] == 0.0; // no return before the barrier of l1mc_partial
  const REAL alpha = (REAL)s[base + L1MC_CG_ALPHA];
  const int v = get_global_id(0);
  const int plane = nx * ny;
  double rr = 0.0;
  if (active && l1mc_square(v, nx, ny))
  {
    for (int c = 0; c < 4; ++c)
    {
      const int i = c * plane + v;
      p3[i] += alpha * d[i];
      r[i] -= alpha * ad[i];
      rr += (double)r[i] * (double)r[i];
    }
  }
  l1mc_partial(rr, 0, partials, scratch);
}

// One work-group: beta = rr_new / rr, one step more, stop at the target or the budget.
__kernel void l1mc_cg_beta(__global const double * partials, int groups, __global double * s, int base, int budget,
                           __local double * scratch)
{
  const bool active = s[base + L1MC_CG_DONE] == 0.0; // read before any write; no return before a barrier
  double acc = 0.0;
  for (int g = get_local_id(0); active && g < groups; g += get_local_size(0))
    acc += partials[g];
  acc = gpur_group_dsum(acc, scratch);
  if (active && get_local_id(0) == 0)
  {
    s[base + L1MC_CG_BETA] = acc / s[base + L1MC_CG_RR];
    s[base + L1MC_CG_RR] = acc;
    s[base + L1MC_CG_ITER] += 1.0;
    // Once stopped, the direction update is skipped: the CPU makes it, but no step uses it.
    s[base + L1MC_CG_DONE] = (acc > s[base + L1MC_CG_TARGET] && s[base + L1MC_CG_ITER] < (double)budget) ? 0.0 : 1.0;
  }
}

// d = r + beta d unless CG has stopped.
__kernel void l1mc_cg_direction(__global const REAL * r, __global REAL * d, int nx, int ny,
                                __global const double * s, int base)
{
  if (s[base + L1MC_CG_DONE] != 0.0)
    return;
  const REAL beta = (REAL)s[base + L1MC_CG_BETA];
  const int v = get_global_id(0);
  const int plane = nx * ny;
  if (l1mc_square(v, nx, ny))
    for (int c = 0; c < 4; ++c)
      d[c * plane + v] = r[c * plane + v] + beta * d[c * plane + v];
}
