// SPDX-License-Identifier: Apache-2.0
// ROF total-variation denoising, primal-dual (CPU twin: src/gpurTVStepperCPU.cxx).
// Built after the core's gpur_common.cl, gpur_reduce.cl and gpur_stencils.cl.
// One work-item per voxel; p has components px, py (and pz with TV_3D; in 2D
// the host passes px for pz and it is never touched).
//
// Modes are build options, one cached program per combination, so the hot
// kernels carry no branch on them (src/gpurTVDeviceKernels.cxx):
//   TV_3D          grids of more than one z-slice (p has a z component);
//   TV_WEIGHTED    a data-term weight w is read (else the host passes f for w);
//   TV_RELAXATION  the weighted coefficients are PDU's relaxation, not the CP prox;
//   TV_HALF_P      the iterated dual is stored in IEEE half (vload_half /
//                  vstore_half, core OpenCL); arithmetic stays in REAL;
//   TV_LOCAL_TILE  tv_step forms ubar in a local-memory tile (GPUs; see there).
//
// An iteration is one pass, tv_step (see there); tv_dual and tv_primal are the
// two halves of it that start and finish a run of passes (the host's
// TVDeviceKernels::Advance and Settle), tv_energies measures a settled state.

#ifdef TV_HALF_P
#define TV_PTYPE half
#define TV_LOAD_P(p, i) ((REAL)vload_half((i), (p)))
#define TV_STORE_P(v, p, i) vstore_half((float)(v), (i), (p))
#else
#define TV_PTYPE REAL
#define TV_LOAD_P(p, i) ((p)[i])
#define TV_STORE_P(v, p, i) ((p)[i] = (v))
#endif

// The backward divergence of gpur_stencils.cl (gpur_div_bwd, term for term) on
// the stored dual, with the dimension fixed at build time.
inline REAL tv_div(__global const TV_PTYPE * px,
                   __global const TV_PTYPE * py,
                   __global const TV_PTYPE * pz,
                   long i, int x, int y, int z, int nx, int ny, int nz, REAL3 ih)
{
  REAL d = ((x + 1 < nx ? TV_LOAD_P(px, i) : (REAL)0) - (x > 0 ? TV_LOAD_P(px, i - 1) : (REAL)0)) * ih.x;
  d += ((y + 1 < ny ? TV_LOAD_P(py, i) : (REAL)0) - (y > 0 ? TV_LOAD_P(py, i - nx) : (REAL)0)) * ih.y;
#ifdef TV_3D
  const long sz = (long)nx * ny;
  d += ((z + 1 < nz ? TV_LOAD_P(pz, i) : (REAL)0) - (z > 0 ? TV_LOAD_P(pz, i - sz) : (REAL)0)) * ih.z;
#endif
  return d;
}

// u_new = u + b (f - u) + c div p (= (1 - b) u + b f + c div p, exact where u = f).
// With a data-term weight w (statistical TV: (lambda/2) sum (u-f)^2 / w), b, c
// depend on the voxel: the prox (CP) gives b = tau lambda/(w + tau lambda),
// c = tau w/(w + tau lambda); the PDU relaxation keeps b and has
// c = tau w / lambda ([Huang2023, eq. (3.11)]).
inline REAL tv_primal_at(__global const REAL * f, __global const REAL * w, __global const REAL * u,
                         __global const TV_PTYPE * px, __global const TV_PTYPE * py, __global const TV_PTYPE * pz,
                         long i, int x, int y, int z, int nx, int ny, int nz, REAL3 ih,
                         REAL b, REAL c, REAL tau, REAL lambda, REAL * old)
{
  const REAL d = tv_div(px, py, pz, i, x, y, z, nx, ny, nz, ih);
#ifdef TV_WEIGHTED
  const REAL wi = w[i];
#ifdef TV_RELAXATION
  c = tau * wi / lambda;
#else
  const REAL t = tau * lambda, den = wi + t;
  b = t / den;
  c = tau * wi / den;
#endif
#endif
  *old = u[i];
  return *old + b * (f[i] - *old) + c * d;
}

// p <- proj_{|p|<=1}(q), q = p + sigma grad v, into the dual's storage at i.
inline void tv_project_store(REAL qx, REAL qy, REAL qz,
                             __global TV_PTYPE * px, __global TV_PTYPE * py, __global TV_PTYPE * pz, long i)
{
#ifdef TV_3D
  const REAL n = fmax((REAL)1, sqrt(qx * qx + qy * qy + qz * qz));
  TV_STORE_P(qz / n, pz, i);
#else
  const REAL n = fmax((REAL)1, sqrt(qx * qx + qy * qy));
#endif
  TV_STORE_P(qx / n, px, i);
  TV_STORE_P(qy / n, py, i);
}

// The dual half-step from a settled state: p_out = proj(p_in + sigma grad v),
// v = ubar (read with its forward neighbours), p_in in REAL (the settled
// dual), p_out in the iterated storage (out of place: a different buffer).
__kernel void tv_dual(__global const REAL * v,
                      __global const REAL * pxi, __global const REAL * pyi, __global const REAL * pzi,
                      __global TV_PTYPE * pxo, __global TV_PTYPE * pyo, __global TV_PTYPE * pzo,
                      int nx, int ny, int nz, REAL3 ih, REAL sigma)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  const REAL3 g = gpur_grad_fwd(v, x, y, z, nx, ny, nz, ih);
#ifdef TV_3D
  const REAL qz = pzi[i] + sigma * g.z;
#else
  const REAL qz = (REAL)0;
#endif
  tv_project_store(pxi[i] + sigma * g.x, pyi[i] + sigma * g.y, qz, pxo, pyo, pzo, i);
}

// The primal half-step that settles a state (in place: u is read only at its
// own voxel): u_new from u and the iterated dual, and, for the Chambolle-Pock
// methods (TV_WRITE_BAR), ubar = u_new + theta (u_new - u).
__kernel void tv_primal(__global const REAL * f, __global REAL * u, __global REAL * ubar,
                        __global const TV_PTYPE * px, __global const TV_PTYPE * py, __global const TV_PTYPE * pz,
                        __global const REAL * w,
                        int nx, int ny, int nz, REAL3 ih,
                        REAL b, REAL c, REAL theta, REAL tau, REAL lambda)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  REAL old;
  const REAL next = tv_primal_at(f, w, u, px, py, pz, i, x, y, z, nx, ny, nz, ih, b, c, tau, lambda, &old);
  u[i] = next;
#ifdef TV_WRITE_BAR
  ubar[i] = next + theta * (next - old);
#endif
}

// The iterated dual into REAL (settling a TV_HALF_P state, and back).
__kernel void tv_widen_p(__global const TV_PTYPE * pxi, __global const TV_PTYPE * pyi, __global const TV_PTYPE * pzi,
                         __global REAL * pxo, __global REAL * pyo, __global REAL * pzo, int nx, int ny, int nz)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  pxo[i] = TV_LOAD_P(pxi, i);
  pyo[i] = TV_LOAD_P(pyi, i);
#ifdef TV_3D
  pzo[i] = TV_LOAD_P(pzi, i);
#endif
}
__kernel void tv_narrow_p(__global const REAL * pxi, __global const REAL * pyi, __global const REAL * pzi,
                          __global TV_PTYPE * pxo, __global TV_PTYPE * pyo, __global TV_PTYPE * pzo,
                          int nx, int ny, int nz)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  TV_STORE_P(pxi[i], pxo, i);
  TV_STORE_P(pyi[i], pyo, i);
#ifdef TV_3D
  TV_STORE_P(pzi[i], pzo, i);
#endif
}

// ubar at one voxel: u_new (primal step A) and its extrapolation; u_new is
// written to uo when `own` (the work-item's own voxel; halo voxels are the
// neighbouring work-group's to write).
inline REAL tv_bar_at(__global const REAL * f, __global const REAL * w, __global const REAL * ui, __global REAL * uo,
                      __global const TV_PTYPE * px, __global const TV_PTYPE * py, __global const TV_PTYPE * pz,
                      int x, int y, int z, int nx, int ny, int nz, REAL3 ih,
                      REAL b, REAL c, REAL theta, REAL tau, REAL lambda, bool own)
{
  const long i = gpur_index(x, y, z, nx, ny);
  REAL old;
  const REAL next = tv_primal_at(f, w, ui, px, py, pz, i, x, y, z, nx, ny, nz, ih, b, c, tau, lambda, &old);
  if (own)
    uo[i] = next;
  return next + theta * (next - old);
}

// One fused iteration: the primal step A (b, c, theta, tau, lambda) on u_in
// and p_in, then the dual step B (sigma) at the extrapolated ubar:
//   u_out = u_in + b (f - u_in) + c div p_in,  ubar = u_out + theta (u_out - u_in),
//   p_out = proj(p_in + sigma grad ubar).
// Chambolle-Pock ([Chambolle2011, Alg. 1-2]) runs dual then primal; its
// iteration k's primal step and iteration k+1's dual step are this pass (A is
// the pending step of the host's TVDeviceKernels). PDU ([Zhu2008],
// [Huang2023]) runs primal then dual at u_new: A and B are the same iteration,
// theta = 0. ubar never goes to memory: the gradient needs it at the voxel and
// its forward neighbours, which are formed on chip:
//  - TV_LOCAL_TILE (GPUs): in a local tile of (local size + 1) per axis in x
//    and y, the +x column and +y row recomputed by the edge work-items; in 3D
//    each work-item recomputes ubar at z + 1 in a register;
//  - otherwise (CPU drivers such as PoCL, which run a work-group as loops over
//    its work-items and vectorise them only without barriers and divergent
//    branches): each work-item recomputes ubar at its forward neighbours in
//    registers, branch-free (clamped neighbours, then a select).
// Either way, per voxel the pass reads f, u_in, p_in (and w) and writes u_out,
// p_out once from memory, the neighbours coming from caches: 3 + 2d values (+1
// weighted), the minimum for a state (u, p) (TVMinimalBytesPerVoxel). In and
// out buffers differ: neighbouring work-groups read p_in and u_in around their
// tiles while this one writes.
__kernel void tv_step(__global const REAL * restrict f, __global const REAL * restrict w,
                      __global const REAL * restrict ui, __global REAL * restrict uo,
                      __global const TV_PTYPE * restrict pxi, __global const TV_PTYPE * restrict pyi,
                      __global const TV_PTYPE * restrict pzi,
                      __global TV_PTYPE * restrict pxo, __global TV_PTYPE * restrict pyo, __global TV_PTYPE * restrict pzo,
                      int nx, int ny, int nz, REAL3 ih,
                      REAL b, REAL c, REAL theta, REAL tau, REAL lambda, REAL sigma,
                      __local REAL * tile)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  const bool inside = x < nx && y < ny && z < nz;
#ifdef TV_LOCAL_TILE
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int tx = (int)get_local_size(0), ty = (int)get_local_size(1), stride = tx + 1;
  REAL barz = (REAL)0;
  if (inside)
  {
    tile[ly * stride + lx] =
      tv_bar_at(f, w, ui, uo, pxi, pyi, pzi, x, y, z, nx, ny, nz, ih, b, c, theta, tau, lambda, true);
    if (lx == tx - 1 && x + 1 < nx)
      tile[ly * stride + lx + 1] =
        tv_bar_at(f, w, ui, uo, pxi, pyi, pzi, x + 1, y, z, nx, ny, nz, ih, b, c, theta, tau, lambda, false);
    if (ly == ty - 1 && y + 1 < ny)
      tile[(ly + 1) * stride + lx] =
        tv_bar_at(f, w, ui, uo, pxi, pyi, pzi, x, y + 1, z, nx, ny, nz, ih, b, c, theta, tau, lambda, false);
#ifdef TV_3D
    if (z + 1 < nz)
      barz = tv_bar_at(f, w, ui, uo, pxi, pyi, pzi, x, y, z + 1, nx, ny, nz, ih, b, c, theta, tau, lambda, false);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!inside)
    return;
  const REAL v = tile[ly * stride + lx];
  const REAL bx = tile[ly * stride + lx + 1], by = tile[(ly + 1) * stride + lx];
#else
  if (!inside)
    return;
  const REAL v = tv_bar_at(f, w, ui, uo, pxi, pyi, pzi, x, y, z, nx, ny, nz, ih, b, c, theta, tau, lambda, true);
  const REAL bx =
    tv_bar_at(f, w, ui, uo, pxi, pyi, pzi, min(x + 1, nx - 1), y, z, nx, ny, nz, ih, b, c, theta, tau, lambda, false);
  const REAL by =
    tv_bar_at(f, w, ui, uo, pxi, pyi, pzi, x, min(y + 1, ny - 1), z, nx, ny, nz, ih, b, c, theta, tau, lambda, false);
#ifdef TV_3D
  const REAL barz =
    tv_bar_at(f, w, ui, uo, pxi, pyi, pzi, x, y, min(z + 1, nz - 1), nx, ny, nz, ih, b, c, theta, tau, lambda, false);
#endif
#endif
  const long i = gpur_index(x, y, z, nx, ny);
  const REAL gx = x + 1 < nx ? (bx - v) * ih.x : (REAL)0;
  const REAL gy = y + 1 < ny ? (by - v) * ih.y : (REAL)0;
#ifdef TV_3D
  const REAL qz = TV_LOAD_P(pzi, i) + sigma * (z + 1 < nz ? (barz - v) * ih.z : (REAL)0);
#else
  const REAL qz = (REAL)0;
#endif
  tv_project_store(TV_LOAD_P(pxi, i) + sigma * gx, TV_LOAD_P(pyi, i) + sigma * gy, qz, pxo, pyo, pzo, i);
}

// Per-work-group partial sums of (u-f)^2 / w, |grad u|, f div p, w (div p)^2
// (w = 1 unless TV_WEIGHTED) over z-slices [z0, z1) of a settled state (p in
// REAL), written to partials[4 * group + k]; the host adds them in double.
// No early return: every work-item takes part in the group reductions.
__kernel void tv_energies(__global const REAL * f, __global const REAL * u,
                          __global const REAL * px, __global const REAL * py, __global const REAL * pz,
                          __global const REAL * w,
                          int nx, int ny, int nz, int z0, int z1, REAL3 ih,
                          __global REAL * partials, __local REAL * scratch)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  REAL e0 = 0, e1 = 0, e2 = 0, e3 = 0;
  if (x < nx && y < ny && z >= z0 && z < z1)
  {
    const long i = gpur_index(x, y, z, nx, ny);
    const REAL3 g = gpur_grad_fwd(u, x, y, z, nx, ny, nz, ih);
    const REAL d = gpur_div_bwd(px, py, pz, x, y, z, nx, ny, nz, ih);
    const REAL r = u[i] - f[i];
#ifdef TV_WEIGHTED
    const REAL wi = w[i];
#else
    const REAL wi = (REAL)1;
#endif
    e0 = r * r / wi;
    e1 = sqrt(g.x * g.x + g.y * g.y + g.z * g.z);
    e2 = f[i] * d;
    e3 = wi * d * d;
  }
  const long group = get_group_id(0) + get_num_groups(0) * (get_group_id(1) + (long)get_num_groups(1) * get_group_id(2));
  e0 = gpur_group_sum(e0, scratch);
  e1 = gpur_group_sum(e1, scratch);
  e2 = gpur_group_sum(e2, scratch);
  e3 = gpur_group_sum(e3, scratch);
  if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0)
  {
    partials[4 * group + 0] = e0;
    partials[4 * group + 1] = e1;
    partials[4 * group + 2] = e2;
    partials[4 * group + 3] = e3;
  }
}
