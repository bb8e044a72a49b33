// SPDX-License-Identifier: Apache-2.0
// Sub #2 [Myllykoski2015a, eq. (3.26)] on the device: its right-hand side, shared with CG (l1mc_cg.cl), and the
// direct solve of src/gpurL1MCSub2.h around PSCRSolver::EnqueueSolve: b into r, D b on the interior vertices,
// the Helmholtz solve (host-enqueued), p3 = (b + r3 G t) / r2, and the residual check. The twins of
// SubProblem2Direct in src/gpurL1MCStepperCPU.cxx (same operations in the same order). Requires l1mc_fe.cl.

// b = r2 p2 + lambda2 - grad0(r3 psi - lambda3) on the two triangles of square v (psi, lambda3: 0 on the boundary).
inline void l1mc_sub2_b(__global const REAL * p2, __global const REAL * l2, __global const REAL * psi,
                        __global const REAL * l3, int plane, int nx, int v, REAL ihx, REAL ihy, REAL r2, REAL r3,
                        REAL * b)
{
  const REAL w00 = r3 * psi[v] - l3[v], w10 = r3 * psi[v + 1] - l3[v + 1];
  const REAL w01 = r3 * psi[v + nx] - l3[v + nx], w11 = r3 * psi[v + nx + 1] - l3[v + nx + 1];
  const REAL gw[4] = { (w10 - w00) * ihx, (w11 - w10) * ihy, (w11 - w01) * ihx, (w01 - w00) * ihy };
  for (int c = 0; c < 4; ++c)
    b[c] = r2 * p2[c * plane + v] + l2[c * plane + v] - gw[c];
}

// b into `b` (4 planes) on every square.
__kernel void l1mc_sub2_rhs(__global const REAL * p2, __global const REAL * l2, __global const REAL * psi,
                            __global const REAL * l3, __global REAL * b, int nx, int ny, REAL ihx, REAL ihy, REAL r2,
                            REAL r3)
{
  const int v = get_global_id(0);
  if (v >= nx * ny || v % nx + 1 >= nx || v / nx + 1 >= ny)
    return;
  const int plane = l1mc_plane(nx, ny);
  REAL value[4];
  l1mc_sub2_b(p2, l2, psi, l3, plane, nx, v, ihx, ihy, r2, r3, value);
  for (int c = 0; c < 4; ++c)
    b[c * plane + v] = value[c];
}

// The solver's right-hand side, scale * D b, at the interior vertices, packed ((y - 1)(nx - 2) + x - 1).
__kernel void l1mc_sub2_direct_rhs(__global const REAL * b, __global REAL * t, int nx, int ny, REAL ihx, REAL ihy,
                                   REAL scale)
{
  const int v = get_global_id(0);
  const int2 xy = l1mc_vertex(v, nx);
  const int x = xy.x, y = xy.y;
  if (v >= nx * ny || !l1mc_interior(x, y, nx, ny))
    return;
  t[(y - 1) * (nx - 2) + x - 1] = scale * l1mc_divergence(b, l1mc_plane(nx, ny), nx, ny, x, y, ihx, ihy);
}

// t at vertex (x, y) from the packed interior field, 0 on the boundary.
inline REAL l1mc_sub2_interior(__global const REAL * t, int nx, int ny, int x, int y)
{
  return l1mc_interior(x, y, nx, ny) ? t[(y - 1) * (nx - 2) + x - 1] : (REAL)0;
}

// p3 = (b + r3 grad0 t) / r2 on the two triangles of square v.
__kernel void l1mc_sub2_direct_p3(__global const REAL * b, __global const REAL * t, __global REAL * p3, int nx,
                                  int ny, REAL ihx, REAL ihy, REAL r2, REAL r3)
{
  const int v = get_global_id(0);
  if (v >= nx * ny || v % nx + 1 >= nx || v / nx + 1 >= ny)
    return;
  const int x = v % nx, y = v / nx, plane = l1mc_plane(nx, ny);
  const REAL t00 = l1mc_sub2_interior(t, nx, ny, x, y), t10 = l1mc_sub2_interior(t, nx, ny, x + 1, y);
  const REAL t01 = l1mc_sub2_interior(t, nx, ny, x, y + 1), t11 = l1mc_sub2_interior(t, nx, ny, x + 1, y + 1);
  const REAL g[4] = { (t10 - t00) * ihx, (t11 - t10) * ihy, (t11 - t01) * ihx, (t01 - t00) * ihy };
  for (int c = 0; c < 4; ++c)
    p3[c * plane + v] = (b[c * plane + v] + r3 * g[c]) / r2;
}

// The check: per item ||b||^2 (items) and ||b - A p3||^2 (items + nx ny), A p3 = r2 p3 - r3 grad0(div_h p3)
// (div_h p3 in `div`, 0 on the boundary).
__kernel void l1mc_sub2_check(__global const REAL * b, __global const REAL * p3, __global const REAL * div, int nx,
                              int ny, REAL ihx, REAL ihy, REAL r2, REAL r3, __global double * items)
{
  const int v = get_global_id(0);
  if (v >= nx * ny)
    return;
  double bb = 0.0, rr = 0.0;
  if (v % nx + 1 < nx && v / nx + 1 < ny)
  {
    const int plane = l1mc_plane(nx, ny);
    REAL g[4];
    l1mc_gradients(div, nx, v, ihx, ihy, g);
    for (int c = 0; c < 4; ++c)
    {
      const int i = c * plane + v;
      const REAL a = r2 * p3[i] - r3 * g[c];
      const double r = (double)b[i] - (double)a;
      bb += (double)b[i] * (double)b[i];
      rr += r * r;
    }
  }
  items[v] = bb;
  items[nx * ny + v] = rr;
}
