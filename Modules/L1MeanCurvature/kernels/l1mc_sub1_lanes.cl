// SPDX-License-Identifier: Apache-2.0
// Sub #1, Newton's half [Myllykoski2015a, §4.1], for CPU OpenCL drivers: L1MC_LANES consecutive squares per
// work-item as OpenCL vectors, the twin of the CPU reference's vectorised batch (src/gpurL1MCTriangleBatch.cxx).
// PoCL runs l1mc_sub1_newton (l1mc_sub.cl) one triangle at a time: its loop runs a different number of steps per
// triangle, and its compiler packs each pair of x and y components into a 2-vector, which keeps it from
// vectorising across work-items. Here every lane takes the same instructions: `steps` Newton steps (a converged
// lane takes zero steps, as l1mc_newton stops) and the acceptance test.
//
// A program of its own: gpur_common.cl, then l1mc_newton.cl and this file, with L1MC_LANE_REAL (e.g. double8),
// L1MC_LANE_MASK (long8), L1MC_LANE_SCALAR (double, the element type of the buffers) and L1MC_LANES (8).

#define L1MC_PASTE_(a, b) a##b
#define L1MC_PASTE(a, b) L1MC_PASTE_(a, b)
#define L1MC_VLOAD L1MC_PASTE(vload, L1MC_LANES)
#define L1MC_VSTORE L1MC_PASTE(vstore, L1MC_LANES)
#define L1MC_CONVERT_INT L1MC_PASTE(convert_int, L1MC_LANES)

typedef L1MC_LANE_SCALAR l1mc_scalar;

// The entries [first, first + L1MC_LANES) of a; those at or past `end` (the end of the buffer) read as 0.
inline REAL l1mc_lanes_load(__global const l1mc_scalar * a, int first, int end)
{
  if (first + L1MC_LANES <= end)
    return L1MC_VLOAD(0, a + first);
  l1mc_scalar part[L1MC_LANES];
  for (int j = 0; j < L1MC_LANES; ++j)
    part[j] = first + j < end ? a[first + j] : (l1mc_scalar)0;
  return L1MC_VLOAD(0, part);
}

// What l1mc_sub1_newton does for squares first .. first + L1MC_LANES - 1 of the flattened index v = y nx + x
// (rows 0 .. ny - 2; the last column is no square and is skipped). A settled lane (Newton accepted, or
// b1 = b2 = 0) gets its p1 and p2. The others keep p1^n and go to the work list of l1mc_sub1_fallback with
// Newton's point: as 2 v + t where Newton failed (overflow, or a point that fails the acceptance test), as
// -(2 v + t) - 1 where it has not converged in `steps` steps (the fallback continues Newton first). The triangle
// fields' planes are `plane` >= nx ny + 80 entries apart, so a vector read past the last square stays inside.
__kernel void l1mc_sub1_newton_lanes(__global const l1mc_scalar * u, __global l1mc_scalar * p1,
                                     __global l1mc_scalar * p2, __global const l1mc_scalar * p3,
                                     __global const l1mc_scalar * l1, __global const l1mc_scalar * l2, int nx, int ny,
                                     l1mc_scalar ihx, l1mc_scalar ihy, l1mc_scalar r1s, l1mc_scalar r2s, int plane,
                                     l1mc_scalar tolerances, int steps, __global int * listCount,
                                     __global int * listTriangle, __global l1mc_scalar * listPoint)
{
  const int first = L1MC_LANES * (int)get_global_id(0);
  const int squares = nx * (ny - 1);
  if (first >= squares)
    return;
  const int end = nx * ny;
  const REAL r1 = (REAL)r1s, r2 = (REAL)r2s, tolerance = (REAL)tolerances;
  REAL g[4];
  l1mc_square_gradients(l1mc_lanes_load(u, first, end), l1mc_lanes_load(u, first + 1, end),
                        l1mc_lanes_load(u, first + nx, end), l1mc_lanes_load(u, first + nx + 1, end), (REAL)ihx,
                        (REAL)ihy, g);
  // Whole vectors can be stored when every lane is a square of one row.
  const int whole = first + L1MC_LANES <= squares && first % nx + L1MC_LANES <= nx - 1;
  for (int t = 0; t < 2; ++t)
  {
    const int ix = (2 * t) * plane + first, iy = (2 * t + 1) * plane + first;
    const L1MCVec b1 = l1mc_vec(r1 * g[2 * t] + L1MC_VLOAD(0, l1 + ix), r1 * g[2 * t + 1] + L1MC_VLOAD(0, l1 + iy));
    const L1MCVec b2 =
      l1mc_vec(r2 * L1MC_VLOAD(0, p3 + ix) - L1MC_VLOAD(0, l2 + ix), r2 * L1MC_VLOAD(0, p3 + iy) - L1MC_VLOAD(0, l2 + iy));
    const L1MCVec start = l1mc_vec(L1MC_VLOAD(0, p1 + ix), L1MC_VLOAD(0, p1 + iy));
    L1MCVec x = start;
    L1MC_MASK converged = (L1MC_MASK)0;
    for (int k = 0; k < steps; ++k)
    {
      const L1MCVec step = l1mc_newton_direction(x, b1, b2, r1, r2);
      const L1MCVec taken = l1mc_vec(converged ? (REAL)0 : step.x, converged ? (REAL)0 : step.y);
      x = l1mc_vec(x.x + taken.x, x.y + taken.y);
      converged |= l1mc_newton_converged(taken, x, tolerance);
    }
    const L1MC_MASK finite = l1mc_finite(x);
    const L1MCNewton a = l1mc_newton_accept(x, start, b1, b2, r1, r2, tolerance);
    const L1MC_MASK zero = (b1.x == (REAL)0) & (b1.y == (REAL)0) & (b2.x == (REAL)0) & (b2.y == (REAL)0);
    const L1MC_MASK accepted = converged & finite & a.accepted;
    // eq. (4.1) without the bisection candidate, as l1mc_newton_step; Newton's point is p1^n where it overflowed.
    const L1MC_MASK keepStart = (accepted & (a.startValue < a.value)) | !finite;
    const REAL px = zero ? (REAL)0 : (keepStart ? start.x : x.x);
    const REAL py = zero ? (REAL)0 : (keepStart ? start.y : x.y);
    const L1MC_MASK settled = zero | accepted;
    const REAL s = (REAL)1 / sqrt((REAL)1 + px * px + py * py);
    if (whole && !any(!settled))
    {
      L1MC_VSTORE(px, 0, p1 + ix);
      L1MC_VSTORE(py, 0, p1 + iy);
      L1MC_VSTORE(px * s, 0, p2 + ix);
      L1MC_VSTORE(py * s, 0, p2 + iy);
      continue;
    }
    l1mc_scalar lx[L1MC_LANES], ly[L1MC_LANES], qx[L1MC_LANES], qy[L1MC_LANES];
    int done[L1MC_LANES], running[L1MC_LANES];
    L1MC_VSTORE(px, 0, lx);
    L1MC_VSTORE(py, 0, ly);
    L1MC_VSTORE(px * s, 0, qx);
    L1MC_VSTORE(py * s, 0, qy);
    L1MC_VSTORE(L1MC_CONVERT_INT(settled), 0, done);
    L1MC_VSTORE(L1MC_CONVERT_INT(finite & !converged), 0, running);
    for (int j = 0; j < L1MC_LANES; ++j)
    {
      const int v = first + j;
      if (v >= squares || v % nx == nx - 1)
        continue;
      if (done[j])
      {
        p1[ix + j] = lx[j];
        p1[iy + j] = ly[j];
        p2[ix + j] = qx[j];
        p2[iy + j] = qy[j];
        continue;
      }
      const int k = atomic_inc(listCount);
      listTriangle[k] = running[j] ? -(2 * v + t) - 1 : 2 * v + t;
      listPoint[2 * k] = lx[j];
      listPoint[2 * k + 1] = ly[j];
    }
  }
}
