// SPDX-License-Identifier: Apache-2.0
// A toy method of the decomposition tests (gpurFieldDecompositionTest.cxx):
// two state fields u and v and one input f. A step is
//   v <- v / 2 + L u,   then   u <- u - tau L v + mu (f - u),
// with L the 7-point Laplacian (replicated boundary). Each stage reads one
// neighbour per axis, so a step reaches two slices: a radius-2 layout, like
// the fourth-order stencils of curvature flows. The CPU twin is in the test.

inline REAL toy_at(__global const REAL * a, int x, int y, int z, int nx, int ny, int nz)
{
  x = clamp(x, 0, nx - 1);
  y = clamp(y, 0, ny - 1);
  z = clamp(z, 0, nz - 1);
  return a[gpur_index(x, y, z, nx, ny)];
}

inline REAL toy_laplacian(__global const REAL * a, int x, int y, int z, int nx, int ny, int nz)
{
  return toy_at(a, x - 1, y, z, nx, ny, nz) + toy_at(a, x + 1, y, z, nx, ny, nz) + toy_at(a, x, y - 1, z, nx, ny, nz) +
         toy_at(a, x, y + 1, z, nx, ny, nz) + toy_at(a, x, y, z - 1, nx, ny, nz) + toy_at(a, x, y, z + 1, nx, ny, nz) -
         (REAL)6 * toy_at(a, x, y, z, nx, ny, nz);
}

__kernel void toy_first(__global const REAL * u, __global REAL * v, int nx, int ny, int nz)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  v[i] = (REAL)0.5 * v[i] + toy_laplacian(u, x, y, z, nx, ny, nz);
}

__kernel void toy_second(__global const REAL * f, __global REAL * u, __global const REAL * v,
                         int nx, int ny, int nz, REAL tau, REAL mu)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  u[i] = u[i] - tau * toy_laplacian(v, x, y, z, nx, ny, nz) + mu * (f[i] - u[i]);
}

/** Per work-group sums of u and v^2 over z-slices [z0, z1). */
__kernel void toy_sums(__global const REAL * u, __global const REAL * v, int nx, int ny, int nz, int z0, int z1,
                       __global REAL * partials, __local REAL * scratch)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  REAL s0 = 0, s1 = 0;
  if (x < nx && y < ny && z >= z0 && z < z1)
  {
    const long i = gpur_index(x, y, z, nx, ny);
    s0 = u[i];
    s1 = v[i] * v[i];
  }
  const long group = get_group_id(0) + get_num_groups(0) * (get_group_id(1) + (long)get_num_groups(1) * get_group_id(2));
  s0 = gpur_group_sum(s0, scratch);
  s1 = gpur_group_sum(s1, scratch);
  if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0)
  {
    partials[2 * group + 0] = s0;
    partials[2 * group + 1] = s1;
  }
}
