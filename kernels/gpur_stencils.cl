// SPDX-License-Identifier: Apache-2.0
// Finite-difference stencils shared by all modules (CPU twin: gpurFiniteDifference.h).
//   gradient:   forward differences / spacing, 0 at the last index (Neumann);
//   divergence: backward differences, the exact negative adjoint of the gradient
//               (p[-1] := 0 and p[n-1] := 0 along each axis).
// ih = (1/hx, 1/hy, 1/hz). A 2D image has nz == 1 and no z component.
// Requires gpur_common.cl.

inline REAL3 gpur_grad_fwd(__global const REAL * u, int x, int y, int z, int nx, int ny, int nz, REAL3 ih)
{
  const long i = gpur_index(x, y, z, nx, ny);
  const REAL c = u[i];
  REAL3 g;
  g.x = (x + 1 < nx) ? (u[i + 1] - c) * ih.x : (REAL)0;
  g.y = (y + 1 < ny) ? (u[i + nx] - c) * ih.y : (REAL)0;
  g.z = (z + 1 < nz) ? (u[i + (long)nx * ny] - c) * ih.z : (REAL)0;
  return g;
}

inline REAL gpur_div_bwd(__global const REAL * px,
                         __global const REAL * py,
                         __global const REAL * pz,
                         int x, int y, int z, int nx, int ny, int nz, REAL3 ih)
{
  const long i = gpur_index(x, y, z, nx, ny);
  REAL d = ((x + 1 < nx ? px[i] : (REAL)0) - (x > 0 ? px[i - 1] : (REAL)0)) * ih.x;
  d += ((y + 1 < ny ? py[i] : (REAL)0) - (y > 0 ? py[i - nx] : (REAL)0)) * ih.y;
  if (nz > 1)
  {
    const long sz = (long)nx * ny;
    d += ((z + 1 < nz ? pz[i] : (REAL)0) - (z > 0 ? pz[i - sz] : (REAL)0)) * ih.z;
  }
  return d;
}

// Test kernels of the stencils (used by the core's adjointness test and by modules' checks).
__kernel void gpur_gradient(__global const REAL * u,
                            __global REAL * gx, __global REAL * gy, __global REAL * gz,
                            int nx, int ny, int nz, REAL3 ih)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long i = gpur_index(x, y, z, nx, ny);
  const REAL3 g = gpur_grad_fwd(u, x, y, z, nx, ny, nz, ih);
  gx[i] = g.x;
  gy[i] = g.y;
  if (nz > 1)
    gz[i] = g.z;
}

__kernel void gpur_divergence(__global const REAL * px, __global const REAL * py, __global const REAL * pz,
                              __global REAL * d, int nx, int ny, int nz, REAL3 ih)
{
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  d[gpur_index(x, y, z, nx, ny)] = gpur_div_bwd(px, py, pz, x, y, z, nx, ny, nz, ih);
}
