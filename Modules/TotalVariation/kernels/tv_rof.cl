// SPDX-License-Identifier: Apache-2.0
// ROF total-variation denoising, primal-dual (CPU twin: src/gpurTVStepperCPU.cxx).
// Built after the core's gpur_common.cl, gpur_reduce.cl and gpur_stencils.cl.
// One work-item per voxel; p has components px, py (and pz in 3D: nz > 1;
// in 2D the host passes px for pz and it is never touched).
//
// Modes are build options, one cached program per combination, so the hot
// kernels carry no branch on them (src/gpurTVDeviceKernels.cxx):
//   TV_WEIGHTED    a data-term weight w is read (else the host passes f for w);
//   TV_WRITE_BAR   tv_primal writes ubar (the Chambolle-Pock methods);
//   TV_RELAXATION  tv_primal's weighted coefficients are PDU's relaxation, not the CP prox.

// p <- proj_{|p|<=1}(p + sigma grad v)
__kernel void tv_dual(__global const REAL * v,
                      __global REAL * px, __global REAL * py, __global REAL * pz,
                      int nx, int ny, int nz, REAL3 ih, REAL sigma)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  const REAL3 g = gpur_grad_fwd(v, x, y, z, nx, ny, nz, ih);
  const REAL qx = px[i] + sigma * g.x;
  const REAL qy = py[i] + sigma * g.y;
  const REAL qz = nz > 1 ? pz[i] + sigma * g.z : (REAL)0;
  const REAL n = fmax((REAL)1, sqrt(qx * qx + qy * qy + qz * qz));
  px[i] = qx / n;
  py[i] = qy / n;
  if (nz > 1)
    pz[i] = qz / n;
}

// u_new = u + b (f - u) + c div p (= (1 - b) u + b f + c div p, exact where u = f);
// ubar = u_new + theta (u_new - u) with TV_WRITE_BAR.
// With a data-term weight w (statistical TV: (lambda/2) sum (u-f)^2 / w), b, c
// depend on the voxel: the prox (CP) gives b = tau lambda/(w + tau lambda),
// c = tau w/(w + tau lambda); the PDU relaxation keeps b and has
// c = tau w / lambda ([Huang2023, eq. (3.11)]).
__kernel void tv_primal(__global const REAL * f, __global REAL * u, __global REAL * ubar,
                        __global const REAL * px, __global const REAL * py, __global const REAL * pz,
                        __global const REAL * w,
                        int nx, int ny, int nz, REAL3 ih,
                        REAL b, REAL c, REAL theta, REAL tau, REAL lambda)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  const REAL d = gpur_div_bwd(px, py, pz, x, y, z, nx, ny, nz, ih);
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
  const REAL old = u[i];
  const REAL next = old + b * (f[i] - old) + c * d;
  u[i] = next;
#ifdef TV_WRITE_BAR
  ubar[i] = next + theta * (next - old);
#endif
}

// Per-work-group partial sums of (u-f)^2 / w, |grad u|, f div p, w (div p)^2
// (w = 1 unless TV_WEIGHTED) over z-slices [z0, z1), written to
// partials[4 * group + k]; the host adds them in double.
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
