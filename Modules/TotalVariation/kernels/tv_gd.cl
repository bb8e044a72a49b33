// SPDX-License-Identifier: Apache-2.0
// Normalised TV gradient descent, TV-GD and AW-TV (CPU twin: src/gpurTVGDStencil.h
// and src/gpurTVGDStepperCPU.cxx). Built after the core's gpur_common.cl and
// gpur_reduce.cl. One work-item per voxel of a range of z-slices [z0, z1);
// ih = (1/hx, 1/hy, 1/hz). Each kernel writes one partial sum per work-group
// (partials[group]); the host adds them in double. No early return: every
// work-item takes part in the group reduction.
//
// The partial sums are accumulated in ACC: double when the host defines
// TVGD_ACC_DOUBLE (devices with fp64, also for float images), else REAL. The
// squares of float values are exact in double, so the norms then agree with
// the CPU's double sums to ~1e-15 and both backends (and any split of the
// volume into slabs) take the same float step; float group sums would differ
// in the 8th digit, and TV-GD amplifies a 1-ulp change of the step.
#if defined(TVGD_ACC_DOUBLE) || defined(GPUR_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double ACC;
#else
typedef REAL ACC;
#endif

// Work-group sum of v in ACC (the core's gpur_group_sum for REAL, same tree).
inline ACC tvgd_group_sum(ACC v, __local ACC * scratch)
{
  const int lid = get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2));
  const int n = get_local_size(0) * get_local_size(1) * get_local_size(2);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = n / 2; s > 0; s >>= 1)
  {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const ACC r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

// (u(n) - u(n - e_d)) / h_d, 0 on the first index of axis d.
inline REAL3 tvgd_grad_bwd(__global const REAL * u, int x, int y, int z, long i, int nx, long sz, REAL3 ih)
{
  const REAL c = u[i];
  REAL3 d;
  d.x = x > 0 ? (c - u[i - 1]) * ih.x : (REAL)0;
  d.y = y > 0 ? (c - u[i - nx]) * ih.y : (REAL)0;
  d.z = z > 0 ? (c - u[i - sz]) * ih.z : (REAL)0;
  return d;
}

// exp(-x) for x >= 0 from basic arithmetic only, bit-identical to the CPU's
// TVGDExpNeg (see src/gpurTVGDStencil.h): Taylor series of exp(-r), r = x - floor(x),
// times (e^-1)^floor(x) by binary powering.
inline REAL tvgd_exp_neg(REAL x)
{
  const int degree = sizeof(REAL) == 8 ? 17 : 11;
  if (!(x < (REAL)1024))
    return (REAL)0;
  const REAL k = floor(x);
  const REAL r = x - k;
  REAL s = 1, e1 = 1;
  for (int n = degree; n >= 1; --n)
  {
    s = (REAL)1 - r / (REAL)n * s;
    e1 = (REAL)1 - (REAL)1 / (REAL)n * e1;
  }
  REAL result = s;
  for (uint m = (uint)k; m != 0; m >>= 1)
  {
    if (m & 1u)
      result *= e1;
    e1 *= e1;
  }
  return result;
}

// phi_d = w_d d_d / (sqrt(sum w_d d_d^2) + eps), w_d = exp(-d_d^2 / delta^2) (1 when iDelta2 == 0).
inline REAL3 tvgd_flux(REAL3 d, REAL iDelta2, REAL eps)
{
  REAL wx = 1, wy = 1, wz = 1;
  if (iDelta2 > (REAL)0)
  {
    wx = tvgd_exp_neg(d.x * d.x * iDelta2);
    wy = tvgd_exp_neg(d.y * d.y * iDelta2);
    wz = tvgd_exp_neg(d.z * d.z * iDelta2);
  }
  const REAL ax = wx * d.x, ay = wy * d.y, az = wz * d.z;
  const REAL den = sqrt(ax * d.x + ay * d.y + az * d.z) + eps;
  REAL3 phi;
  phi.x = ax / den;
  phi.y = ay / den;
  phi.z = az / den;
  return phi;
}

inline long tvgd_group(void)
{
  return get_group_id(0) + get_num_groups(0) * (get_group_id(1) + (long)get_num_groups(1) * get_group_id(2));
}

inline void tvgd_write_partial(ACC v, __global ACC * partials, __local ACC * scratch)
{
  const ACC s = tvgd_group_sum(v, scratch);
  if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0)
    partials[tvgd_group()] = s;
}

// du(n) = sum_d (phi_d(n) - phi_d(n + e_d)) / h_d (the GradientTV kernel of
// [Huang2023, §4.3]: its eq. (3.8) with d_x in the second term, where the paper
// prints d_z, as TIGRE's gradientTV computes it [Biguri2019]) fused with the
// partial sums of du^2 (ReduceNorm).
__kernel void tvgd_gradient(__global const REAL * u, __global REAL * du,
                            int nx, int ny, int nz, int z0, int z1, REAL3 ih, REAL iDelta2, REAL eps,
                            __global ACC * partials, __local ACC * scratch)
{
  const int x = get_global_id(0), y = get_global_id(1), z = z0 + (int)get_global_id(2);
  ACC s = 0;
  if (x < nx && y < ny && z < z1)
  {
    const long sz = (long)nx * ny;
    const long i = gpur_index(x, y, z, nx, ny);
    const REAL3 phi = tvgd_flux(tvgd_grad_bwd(u, x, y, z, i, nx, sz, ih), iDelta2, eps);
    REAL ax = phi.x, ay = phi.y, az = phi.z;
    if (x + 1 < nx)
      ax -= tvgd_flux(tvgd_grad_bwd(u, x + 1, y, z, i + 1, nx, sz, ih), iDelta2, eps).x;
    if (y + 1 < ny)
      ay -= tvgd_flux(tvgd_grad_bwd(u, x, y + 1, z, i + nx, nx, sz, ih), iDelta2, eps).y;
    if (z + 1 < nz)
      az -= tvgd_flux(tvgd_grad_bwd(u, x, y, z + 1, i + sz, nx, sz, ih), iDelta2, eps).z;
    const REAL g = ax * ih.x + ay * ih.y + az * ih.z;
    du[i] = g;
    s = (ACC)g * (ACC)g;
  }
  tvgd_write_partial(s, partials, scratch);
}

// u -= scale du (UpdateImg: the fused divide, multiply, subtract of
// [Huang2023, §5.2.3, Table 5.3]);
// with withResidual, partial sums of (u - f)^2 after the update (withResidual is
// the same for every work-item, so the barriers of the group sum stay uniform).
__kernel void tvgd_update(__global const REAL * f, __global REAL * u, __global const REAL * du,
                          int nx, int ny, int z0, int z1, REAL scale, int withResidual,
                          __global ACC * partials, __local ACC * scratch)
{
  const int x = get_global_id(0), y = get_global_id(1), z = z0 + (int)get_global_id(2);
  ACC s = 0;
  if (x < nx && y < ny && z < z1)
  {
    const long i = gpur_index(x, y, z, nx, ny);
    const REAL v = u[i] - scale * du[i];
    u[i] = v;
    if (withResidual)
    {
      const REAL e = v - f[i];
      s = (ACC)e * (ACC)e;
    }
  }
  if (withResidual)
    tvgd_write_partial(s, partials, scratch);
}

// Partial sums of (u - f)^2.
__kernel void tvgd_residual(__global const REAL * f, __global const REAL * u,
                            int nx, int ny, int z0, int z1,
                            __global ACC * partials, __local ACC * scratch)
{
  const int x = get_global_id(0), y = get_global_id(1), z = z0 + (int)get_global_id(2);
  ACC s = 0;
  if (x < nx && y < ny && z < z1)
  {
    const long i = gpur_index(x, y, z, nx, ny);
    const REAL e = u[i] - f[i];
    s = (ACC)e * (ACC)e;
  }
  tvgd_write_partial(s, partials, scratch);
}
