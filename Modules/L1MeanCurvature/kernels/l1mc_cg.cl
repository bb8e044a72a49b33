// SPDX-License-Identifier: Apache-2.0
// Sub #2 [Myllykoski2015a, eq. (3.26)] on the device by conjugate gradients (L1MCSub2Solver::ConjugateGradient;
// l1mc_sub2.cl has the direct solve and the right-hand side b) for
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
// The dot products: the streaming kernels write one value per vertex index
// into `items` and have no barrier (a work-group reduction inside them made
// them 2-4x slower on PoCL, which runs a group's items as a loop it splits at
// each barrier); l1mc_cg_sum adds them up in a few work-groups, and the
// reductions finish in one work-group (l1mc_cg_alpha, l1mc_cg_beta,
// l1mc_cg_start).

inline int l1mc_square(int v, int nx, int ny)
{
  return v < nx * ny && v % nx + 1 < nx && v / nx + 1 < ny;
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
  out[v] = l1mc_divergence(q, l1mc_plane(nx, ny), nx, ny, x, y, ihx, ihy);
}

// The start, in one pass: b = r2 p2 + lambda2 - grad(r3 psi - lambda3), r = b - A p3 (div_h p3 in `div`), d = r;
// per item ||b||^2 (items) and ||r||^2 (items + nx ny).
__kernel void l1mc_cg_residual(__global const REAL * p2, __global const REAL * l2, __global const REAL * psi,
                               __global const REAL * l3, __global const REAL * p3, __global const REAL * div,
                               __global REAL * r, __global REAL * d, int nx, int ny, REAL ihx, REAL ihy, REAL r2,
                               REAL r3, __global double * items)
{
  const int v = get_global_id(0);
  if (v >= nx * ny)
    return;
  const int plane = l1mc_plane(nx, ny);
  double bb = 0.0, rr = 0.0;
  if (l1mc_square(v, nx, ny))
  {
    REAL b[4], g[4];
    l1mc_sub2_b(p2, l2, psi, l3, plane, nx, v, ihx, ihy, r2, r3, b);
    l1mc_gradients(div, nx, v, ihx, ihy, g);
    for (int c = 0; c < 4; ++c)
    {
      const int i = c * plane + v;
      const REAL res = b[c] - (r2 * p3[i] - r3 * g[c]);
      r[i] = res;
      d[i] = res;
      bb += (double)b[c] * (double)b[c];
      rr += (double)res * (double)res;
    }
  }
  items[v] = bb;
  items[nx * ny + v] = rr;
}

// Work-group partials of the per-item values: partials[component * groups + group] = the group's sum of
// items[component * count + i]; nothing once CG has stopped (guarded != 0). Launched on a few groups: PoCL pays
// about 1.5 us per work-group for the tree. Each work-item sums a contiguous run (blocked != 0, for CPU drivers,
// which run a group's items one after another: strided, each would jump through memory) or strides by the
// global size (GPUs: coalesced).
__kernel void l1mc_cg_sum(__global const double * items, int count, int component, __global const double * s,
                          int base, int guarded, int blocked, __global double * partials, __local double * scratch)
{
  const bool active = !guarded || s[base + L1MC_CG_DONE] == 0.0; // no return before a barrier
  const int workItems = get_global_size(0), id = get_global_id(0);
  const int run = (count + workItems - 1) / workItems;
  const int start = blocked ? id * run : id, stop = blocked ? min(count, start + run) : count;
  const int stride = blocked ? 1 : workItems;
  __global const double * x = items + component * count;
  double acc = 0.0;
  for (int i = start; active && i < stop; i += stride)
    acc += x[i];
  const double sum = gpur_group_dsum(acc, scratch);
  if (active && get_local_id(0) == 0)
    partials[component * get_num_groups(0) + get_group_id(0)] = sum;
}

// In one work-group: the sum of partials[0 .. groups) (0 when not active), in every work-item.
inline double l1mc_cg_total(__global const double * partials, int groups, bool active, __local double * scratch)
{
  double acc = 0.0;
  for (int g = get_local_id(0); active && g < groups; g += get_local_size(0))
    acc += partials[g];
  return gpur_group_dsum(acc, scratch);
}

// One work-group: ||b||^2 and ||r||^2 from the partials; the stopping state of a fresh CG run.
__kernel void l1mc_cg_start(__global const double * partials, int groups, __global double * s, int base,
                            double tolerance, int budget, __local double * scratch)
{
  const double acc[2] = { l1mc_cg_total(partials, groups, true, scratch),
                           l1mc_cg_total(partials + groups, groups, true, scratch) };
  if (get_local_id(0) == 0)
  {
    s[base + L1MC_CG_BB] = acc[0];
    s[base + L1MC_CG_RR] = acc[1];
    s[base + L1MC_CG_TARGET] = tolerance * tolerance * acc[0];
    s[base + L1MC_CG_ITER] = 0.0;
    s[base + L1MC_CG_DONE] = (acc[1] > tolerance * tolerance * acc[0] && budget > 0) ? 0.0 : 1.0;
  }
}

// Ad = r2 d - r3 grad0(div_h d) (div_h d in `div`); d . Ad per item into `items`.
__kernel void l1mc_cg_apply(__global const REAL * d, __global const REAL * div, __global REAL * ad, int nx, int ny,
                            REAL ihx, REAL ihy, REAL r2, REAL r3, __global const double * s, int base,
                            __global double * items)
{
  const int v = get_global_id(0);
  if (s[base + L1MC_CG_DONE] != 0.0 || v >= nx * ny)
    return;
  const int plane = l1mc_plane(nx, ny);
  double dad = 0.0;
  if (l1mc_square(v, nx, ny))
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
  items[v] = dad;
}

// One work-group: alpha = rr / dAd, or stop when dAd <= 0 (as the CPU does).
__kernel void l1mc_cg_alpha(__global const double * partials, int groups, __global double * s, int base,
                            __local double * scratch)
{
  const bool active = s[base + L1MC_CG_DONE] == 0.0; // read before any write; no return before a barrier
  const double acc = l1mc_cg_total(partials, groups, active, scratch);
  if (active && get_local_id(0) == 0)
  {
    s[base + L1MC_CG_DAD] = acc;
    if (acc > 0.0)
      s[base + L1MC_CG_ALPHA] = s[base + L1MC_CG_RR] / acc;
    else
      s[base + L1MC_CG_DONE] = 1.0;
  }
}

// p3 += alpha d, r -= alpha Ad; ||r||^2 per item into `items`.
__kernel void l1mc_cg_update(__global REAL * p3, __global REAL * r, __global const REAL * d,
                             __global const REAL * ad, int nx, int ny, __global const double * s, int base,
                             __global double * items)
{
  const int v = get_global_id(0);
  if (s[base + L1MC_CG_DONE] != 0.0 || v >= nx * ny)
    return;
  const REAL alpha = (REAL)s[base + L1MC_CG_ALPHA];
  const int plane = l1mc_plane(nx, ny);
  double rr = 0.0;
  if (l1mc_square(v, nx, ny))
  {
    for (int c = 0; c < 4; ++c)
    {
      const int i = c * plane + v;
      p3[i] += alpha * d[i];
      r[i] -= alpha * ad[i];
      rr += (double)r[i] * (double)r[i];
    }
  }
  items[v] = rr;
}

// One work-group: beta = rr_new / rr, one step more, stop at the target or the budget.
__kernel void l1mc_cg_beta(__global const double * partials, int groups, __global double * s, int base, int budget,
                           __local double * scratch)
{
  const bool active = s[base + L1MC_CG_DONE] == 0.0; // read before any write; no return before a barrier
  const double acc = l1mc_cg_total(partials, groups, active, scratch);
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
  const int plane = l1mc_plane(nx, ny);
  if (l1mc_square(v, nx, ny))
    for (int c = 0; c < 4; ++c)
      d[c * plane + v] = r[c * plane + v] + beta * d[c * plane + v];
}
