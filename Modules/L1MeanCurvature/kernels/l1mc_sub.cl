// SPDX-License-Identifier: Apache-2.0
// Subproblems #1, #3 and #4 (its right-hand side and the exact-corner
// correction) and the starting point of [Myllykoski2015a, Algorithm 1] on the
// device; the twins of src/gpurL1MCStepperCPU.cxx. One work-item per vertex
// or square; requires l1mc_newton.cl, l1mc_triangle.cl and l1mc_fe.cl.

// Sub #1, first half [Myllykoski2015a, §4.1]: Newton on both triangles of square v. Accepted triangles get
// their p1 and p2; the others keep p1^n and are appended to the work list (atomic counter) with Newton's
// last iterate, for l1mc_sub1_fallback. Warps then do not wait for the rare bisection
// [Myllykoski2015b, §3.1].
__kernel void l1mc_sub1_newton(__global const REAL * u, __global REAL * p1, __global REAL * p2,
                               __global const REAL * p3, __global const REAL * l1, __global const REAL * l2, int nx,
                               int ny, REAL ihx, REAL ihy, REAL r1, REAL r2, REAL tolerance, int maxIterations,
                               __global int * listCount, __global int * listTriangle, __global REAL * listPoint)
{
  const int v = get_global_id(0);
  const int plane = l1mc_plane(nx, ny);
  if (v >= nx * ny || v % nx + 1 >= nx || v / nx + 1 >= ny)
    return;
  REAL g[4];
  l1mc_gradients(u, nx, v, ihx, ihy, g);
  for (int t = 0; t < 2; ++t)
  {
    const int ix = (2 * t) * plane + v, iy = (2 * t + 1) * plane + v;
    const L1MCVec b1 = l1mc_vec(r1 * g[2 * t] + l1[ix], r1 * g[2 * t + 1] + l1[iy]);
    const L1MCVec b2 = l1mc_vec(r2 * p3[ix] - l2[ix], r2 * p3[iy] - l2[iy]);
    const L1MCNewton n = l1mc_newton_step(b1, b2, l1mc_vec(p1[ix], p1[iy]), r1, r2, tolerance, maxIterations);
    if (n.accepted)
    {
      const REAL s = (REAL)1 / sqrt((REAL)1 + n.p.x * n.p.x + n.p.y * n.p.y);
      p1[ix] = n.p.x;
      p1[iy] = n.p.y;
      p2[ix] = n.p.x * s;
      p2[iy] = n.p.y * s;
    }
    else
    {
      const int k = atomic_inc(listCount);
      listTriangle[k] = 2 * v + t;
      listPoint[2 * k] = n.p.x;
      listPoint[2 * k + 1] = n.p.y;
    }
  }
}

// Sub #1, second half: Algorithm 2 and the choice (4.1) [Myllykoski2015a] for the listed triangles. A fixed
// launch whose work-items stride over the list, whose length they read on the device (no host round trip).
__kernel void l1mc_sub1_fallback(__global const REAL * u, __global REAL * p1, __global REAL * p2,
                                 __global const REAL * p3, __global const REAL * l1, __global const REAL * l2, int nx,
                                 int ny, REAL ihx, REAL ihy, REAL r1, REAL r2, int eta, REAL coarse, REAL fine,
                                 __global const int * listCount, __global const int * listTriangle,
                                 __global const REAL * listPoint)
{
  const int count = listCount[0];
  const int plane = l1mc_plane(nx, ny);
  for (int k = get_global_id(0); k < count; k += get_global_size(0))
  {
    const int v = listTriangle[k] / 2, t = listTriangle[k] % 2;
    REAL g[4];
    l1mc_gradients(u, nx, v, ihx, ihy, g);
    const int ix = (2 * t) * plane + v, iy = (2 * t + 1) * plane + v;
    const L1MCVec b1 = l1mc_vec(r1 * g[2 * t] + l1[ix], r1 * g[2 * t + 1] + l1[iy]);
    const L1MCVec b2 = l1mc_vec(r2 * p3[ix] - l2[ix], r2 * p3[iy] - l2[iy]);
    const L1MCVec p = l1mc_fallback(b1, b2, l1mc_vec(listPoint[2 * k], listPoint[2 * k + 1]),
                                    l1mc_vec(p1[ix], p1[iy]), r1, r2, eta, coarse, fine);
    const REAL s = (REAL)1 / sqrt((REAL)1 + p.x * p.x + p.y * p.y);
    p1[ix] = p.x;
    p1[iy] = p.y;
    p2[ix] = p.x * s;
    p2[iy] = p.y * s;
  }
}

// Sub #3 [Myllykoski2015a, eqs. (3.27)-(3.28)]: psi = sgn(X) max(0, |X| - eps) / r3 at the interior vertices.
__kernel void l1mc_sub3(__global const REAL * p3, __global const REAL * l3, __global REAL * psi, int nx, int ny,
                        REAL ihx, REAL ihy, REAL r3, REAL epsilon)
{
  const int v = get_global_id(0);
  const int2 xy = l1mc_vertex(v, nx);
  const int x = xy.x, y = xy.y;
  if (v >= nx * ny || !l1mc_interior(x, y, nx, ny))
    return;
  const REAL X = r3 * l1mc_divergence(p3, l1mc_plane(nx, ny), nx, ny, x, y, ihx, ihy) + l3[v];
  const REAL shrunk = fmax((REAL)0, fabs(X) - epsilon) / r3;
  psi[v] = X < (REAL)0 ? -shrunk : shrunk;
}

// Sub #4's right-hand side c M f + G^T M_Q (p1 - lambda1 / r1) (gpurL1MCSub4.h); separable != 0: the corner
// masses are hx hy / 4.
__kernel void l1mc_sub4_rhs(__global const REAL * f, __global const REAL * p1, __global const REAL * l1,
                            __global REAL * rhs, int nx, int ny, REAL ihx, REAL ihy, double hx, double hy, REAL c,
                            REAL ir1, REAL area, int separable)
{
  const int v = get_global_id(0);
  if (v >= nx * ny)
    return;
  const int x = v % nx, y = v / nx;
  const int corner = (x == 0 || x + 1 == nx) && (y == 0 || y + 1 == ny);
  const double m = (corner && separable) ? 0.25 * hx * hy : l1mc_lumped_mass(x, y, nx, ny, hx, hy);
  rhs[v] = c * (REAL)m * f[v] +
           area * l1mc_transposed_gradient_of_difference(p1, l1, ir1, l1mc_plane(nx, ny), nx, ny, x, y, ihx, ihy);
}

// The exact corners (gpurL1MCSub4.h): u = y - Z (Cinv E^T y), Z's four columns corner-major. The weights
// Cinv E^T y once per work-group, in local memory: computed per work-item from y, which the stores to u might
// alias, they kept a CPU driver from vectorising the kernel (1.4 ms at 512^2 on PoCL, against 0.6 ms for its
// memory traffic).
__kernel void l1mc_sub4_corners(__global const REAL * y, __global REAL * u, __global const REAL * Z,
                                __constant double * cinv, int count, int c0, int c1, int c2, int c3)
{
  __local REAL w[4];
  if (get_local_id(0) == 0)
  {
    const double yc[4] = { y[c0], y[c1], y[c2], y[c3] };
    for (int r = 0; r < 4; ++r)
    {
      double s = 0.0;
      for (int k = 0; k < 4; ++k)
        s += cinv[4 * r + k] * yc[k];
      w[r] = (REAL)s;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int i = get_global_id(0);
  if (i >= count)
    return;
  u[i] = y[i] - (Z[i] * w[0] + Z[count + i] * w[1] + Z[2 * count + i] * w[2] + Z[3 * count + i] * w[3]);
}

// The starting point (4.2) of [Myllykoski2015a]: q1 = grad f, q2 = q3 = q1 / sqrt(1 + |q1|^2) (u = f is copied
// by the host; psi = div_h q3 by l1mc_divergence_field).
__kernel void l1mc_init_data(__global const REAL * f, __global REAL * p1, __global REAL * p2, __global REAL * p3,
                             int nx, int ny, REAL ihx, REAL ihy)
{
  const int v = get_global_id(0);
  const int plane = l1mc_plane(nx, ny);
  if (v >= nx * ny || v % nx + 1 >= nx || v / nx + 1 >= ny)
    return;
  REAL g[4];
  l1mc_gradients(f, nx, v, ihx, ihy, g);
  for (int t = 0; t < 2; ++t)
  {
    const REAL gx = g[2 * t], gy = g[2 * t + 1];
    const REAL s = (REAL)1 / sqrt((REAL)1 + gx * gx + gy * gy);
    const int ix = (2 * t) * plane + v, iy = (2 * t + 1) * plane + v;
    p1[ix] = gx;
    p1[iy] = gy;
    p2[ix] = gx * s;
    p2[iy] = gy * s;
    p3[ix] = gx * s;
    p3[iy] = gy * s;
  }
}

// out = div_h q at the interior vertices (the boundary entries are left as they are: 0).
__kernel void l1mc_divergence_field(__global const REAL * q, __global REAL * out, int nx, int ny, REAL ihx, REAL ihy)
{
  const int v = get_global_id(0);
  const int2 xy = l1mc_vertex(v, nx);
  const int x = xy.x, y = xy.y;
  if (v >= nx * ny || !l1mc_interior(x, y, nx, ny))
    return;
  out[v] = l1mc_divergence(q, l1mc_plane(nx, ny), nx, ny, x, y, ihx, ihy);
}
