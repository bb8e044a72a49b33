// SPDX-License-Identifier: Apache-2.0
// Sub #1 [Myllykoski2015a, §4.1] for CPU OpenCL drivers: Newton on L1MC_LANES consecutive squares per work-item
// as OpenCL vectors (the twin of the CPU reference's vectorised batch, src/gpurL1MCTriangleBatch.cxx), and the
// fallback on L1MC_LANES listed triangles per vector.
// PoCL runs l1mc_sub1_newton (l1mc_sub.cl) one triangle at a time: its loop runs a different number of steps per
// triangle, and its compiler packs each pair of x and y components into a 2-vector, which keeps it from
// vectorising across work-items. Here every lane takes the same instructions: `steps` Newton steps (a converged
// lane takes zero steps, as l1mc_newton stops) and the acceptance test.
//
// A program of its own: gpur_common.cl, then l1mc_newton.cl, l1mc_triangle.cl (its vector part: Algorithm 2 and
// the choice (4.1)) and this file, with L1MC_LANE_REAL (e.g. double8), L1MC_LANE_MASK (long8), L1MC_LANE_SCALAR
// (double, the element type of the buffers) and L1MC_LANES (8).

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

// `steps` Newton steps from `from` then the outcome (l1mc_newton.cl), the runs continued in passes.
inline L1MCLanes l1mc_lanes_newton(L1MCVec b1, L1MCVec b2, L1MCVec start, L1MCVec from, int steps, REAL r1, REAL r2,
                                   REAL tolerance)
{
  L1MCLaneRun run;
  run.x = from;
  run.converged = (L1MC_MASK)0;
  for (int done = 0; done < steps; done += L1MC_LANE_STEPS)
    run = l1mc_lanes_steps(run, min(L1MC_LANE_STEPS, steps - done), b1, b2, r1, r2, tolerance);
  return l1mc_lanes_outcome(run, start, b1, b2, r1, r2, tolerance);
}

// What l1mc_sub1_newton does for squares first .. first + L1MC_LANES - 1 of the flattened index v = y nx + x
// (rows 0 .. ny - 2; the last column is no square and is skipped). A settled lane (Newton accepted, or
// b1 = b2 = 0) gets its p1 and p2. The others keep p1^n and go, as 2 v + t with Newton's point, to one of the
// two ends of the work list (`capacity` entries): from the bottom where Newton failed (overflow, or a point that
// fails the acceptance test; counted in listCount[0], for l1mc_sub1_fallback_lanes), from the top where it has
// not converged in `steps` steps (listCount[1], for l1mc_sub1_continue_lanes). The triangle fields' planes are
// `plane` >= nx ny + 80 entries apart, so a vector read past the last square stays inside.
__kernel void l1mc_sub1_newton_lanes(__global const l1mc_scalar * u, __global l1mc_scalar * p1,
                                     __global l1mc_scalar * p2, __global const l1mc_scalar * p3,
                                     __global const l1mc_scalar * l1, __global const l1mc_scalar * l2, int nx, int ny,
                                     l1mc_scalar ihx, l1mc_scalar ihy, l1mc_scalar r1s, l1mc_scalar r2s, int plane,
                                     int capacity, l1mc_scalar tolerances, int steps, __global int * listCount,
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
    const L1MCLanes n = l1mc_lanes_newton(b1, b2, start, start, steps, r1, r2, tolerance);
    const REAL px = n.p.x, py = n.p.y;
    const L1MC_MASK settled = n.settled;
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
    L1MC_VSTORE(L1MC_CONVERT_INT(n.running), 0, running);
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
      const int k = running[j] ? capacity - 1 - atomic_inc(listCount + 1) : atomic_inc(listCount);
      listTriangle[k] = 2 * v + t;
      listPoint[2 * k] = lx[j];
      listPoint[2 * k + 1] = ly[j];
    }
  }
}

// The triangles of work-list entries first .. first + L1MC_LANES - 1 (entry k at index k, or at capacity - 1 - k
// from the top), the entries past `count` replaced by the first: b1, b2, p1^n and the listed Newton point as
// vectors, and each lane's offset in the triangle planes.
typedef struct
{
  L1MCVec b1;
  L1MCVec b2;
  L1MCVec previous;
  L1MCVec listed;
  int offset[L1MC_LANES];
} L1MCListed;

inline L1MCListed l1mc_lanes_listed(__global const l1mc_scalar * u, __global const l1mc_scalar * p1,
                                    __global const l1mc_scalar * p3, __global const l1mc_scalar * l1,
                                    __global const l1mc_scalar * l2, int nx, int plane, REAL ihx, REAL ihy, REAL r1,
                                    REAL r2, __global const int * listTriangle,
                                    __global const l1mc_scalar * listPoint, int first, int count, int top)
{
  l1mc_scalar u00[L1MC_LANES], u10[L1MC_LANES], u01[L1MC_LANES], u11[L1MC_LANES], upper[L1MC_LANES];
  l1mc_scalar lx[L1MC_LANES], ly[L1MC_LANES], p3x[L1MC_LANES], p3y[L1MC_LANES], l2x[L1MC_LANES], l2y[L1MC_LANES];
  l1mc_scalar sx[L1MC_LANES], sy[L1MC_LANES], px[L1MC_LANES], py[L1MC_LANES];
  L1MCListed r;
  for (int j = 0; j < L1MC_LANES; ++j)
  {
    const int entry = first + j < count ? first + j : first;
    const int k = top >= 0 ? top - entry : entry;
    const int triangle = listTriangle[k];
    const int v = triangle / 2, t = triangle % 2;
    const int i = (2 * t) * plane + v;
    r.offset[j] = i;
    u00[j] = u[v];
    u10[j] = u[v + 1];
    u01[j] = u[v + nx];
    u11[j] = u[v + nx + 1];
    upper[j] = (l1mc_scalar)t;
    lx[j] = l1[i];
    ly[j] = l1[i + plane];
    p3x[j] = p3[i];
    p3y[j] = p3[i + plane];
    l2x[j] = l2[i];
    l2y[j] = l2[i + plane];
    sx[j] = p1[i];
    sy[j] = p1[i + plane];
    px[j] = listPoint[2 * k];
    py[j] = listPoint[2 * k + 1];
  }
  REAL g[4];
  l1mc_square_gradients(L1MC_VLOAD(0, u00), L1MC_VLOAD(0, u10), L1MC_VLOAD(0, u01), L1MC_VLOAD(0, u11), ihx, ihy, g);
  const L1MC_MASK isUpper = L1MC_VLOAD(0, upper) > (REAL)0;
  r.b1 = l1mc_vec(r1 * (isUpper ? g[2] : g[0]) + L1MC_VLOAD(0, lx), r1 * (isUpper ? g[3] : g[1]) + L1MC_VLOAD(0, ly));
  r.b2 = l1mc_vec(r2 * L1MC_VLOAD(0, p3x) - L1MC_VLOAD(0, l2x), r2 * L1MC_VLOAD(0, p3y) - L1MC_VLOAD(0, l2y));
  r.previous = l1mc_vec(L1MC_VLOAD(0, sx), L1MC_VLOAD(0, sy));
  r.listed = l1mc_vec(L1MC_VLOAD(0, px), L1MC_VLOAD(0, py));
  return r;
}

// Stores p as p1 (and p2 = p1 / sqrt(1 + |p1|^2)) of the lanes whose entry is below `count`, where `store` is set.
inline void l1mc_lanes_store(__global l1mc_scalar * p1, __global l1mc_scalar * p2, int plane, const L1MCListed * t,
                             L1MCVec p, L1MC_MASK store, int first, int count)
{
  const REAL s = (REAL)1 / sqrt((REAL)1 + p.x * p.x + p.y * p.y);
  l1mc_scalar ox[L1MC_LANES], oy[L1MC_LANES], qx[L1MC_LANES], qy[L1MC_LANES];
  int keep[L1MC_LANES];
  L1MC_VSTORE(p.x, 0, ox);
  L1MC_VSTORE(p.y, 0, oy);
  L1MC_VSTORE(p.x * s, 0, qx);
  L1MC_VSTORE(p.y * s, 0, qy);
  L1MC_VSTORE(L1MC_CONVERT_INT(store), 0, keep);
  for (int j = 0; j < L1MC_LANES && first + j < count; ++j)
  {
    if (!keep[j])
      continue;
    const int i = t->offset[j];
    p1[i] = ox[j];
    p1[i + plane] = oy[j];
    p2[i] = qx[j];
    p2[i + plane] = qy[j];
  }
}

// Newton continued, on vectors, on the runs l1mc_sub1_newton_lanes cut short (the top of the work list,
// listCount[1] entries) for up to `remaining` steps, as l1mc_newton_step continues from Newton's point: the
// accepted ones get their p1 and p2, the others join the bottom of the list (listCount[0]) with Newton's last
// point for l1mc_sub1_fallback_lanes. A fixed launch whose work-items stride over the list.
__kernel void l1mc_sub1_continue_lanes(__global const l1mc_scalar * u, __global l1mc_scalar * p1,
                                       __global l1mc_scalar * p2, __global const l1mc_scalar * p3,
                                       __global const l1mc_scalar * l1, __global const l1mc_scalar * l2, int nx,
                                       int ny, l1mc_scalar ihx, l1mc_scalar ihy, l1mc_scalar r1s, l1mc_scalar r2s,
                                       int plane, int capacity, l1mc_scalar tolerances, int remaining,
                                       __global int * listCount, __global int * listTriangle,
                                       __global l1mc_scalar * listPoint)
{
  const int count = listCount[1];
  const REAL r1 = (REAL)r1s, r2 = (REAL)r2s, tolerance = (REAL)tolerances;
  for (int first = L1MC_LANES * (int)get_global_id(0); first < count; first += L1MC_LANES * (int)get_global_size(0))
  {
    const L1MCListed t = l1mc_lanes_listed(u, p1, p3, l1, l2, nx, plane, (REAL)ihx, (REAL)ihy, r1, r2, listTriangle,
                                           listPoint, first, count, capacity - 1);
    const L1MCLanes n =
      l1mc_lanes_newton(t.b1, t.b2, t.previous, t.listed, remaining, r1, r2, tolerance);
    l1mc_lanes_store(p1, p2, plane, &t, n.p, n.settled, first, count);
    l1mc_scalar ox[L1MC_LANES], oy[L1MC_LANES];
    int settled[L1MC_LANES];
    L1MC_VSTORE(n.p.x, 0, ox);
    L1MC_VSTORE(n.p.y, 0, oy);
    L1MC_VSTORE(L1MC_CONVERT_INT(n.settled), 0, settled);
    for (int j = 0; j < L1MC_LANES && first + j < count; ++j)
    {
      if (settled[j])
        continue;
      const int k = atomic_inc(listCount);
      listTriangle[k] = listTriangle[capacity - 1 - (first + j)];
      listPoint[2 * k] = ox[j];
      listPoint[2 * k + 1] = oy[j];
    }
  }
}

// What l1mc_sub1_fallback (l1mc_sub.cl) does, on vectors of L1MC_LANES entries of the bottom of the work list
// (listCount[0]): Algorithm 2 and the choice (4.1), the bisection's lanes masked where their count is reached.
// A fixed launch whose work-items stride over the list.
__kernel void l1mc_sub1_fallback_lanes(__global const l1mc_scalar * u, __global l1mc_scalar * p1,
                                       __global l1mc_scalar * p2, __global const l1mc_scalar * p3,
                                       __global const l1mc_scalar * l1, __global const l1mc_scalar * l2, int nx,
                                       int ny, l1mc_scalar ihx, l1mc_scalar ihy, l1mc_scalar r1s, l1mc_scalar r2s,
                                       int plane, int eta, l1mc_scalar coarse, l1mc_scalar fine,
                                       __global int * listCount, __global const int * listTriangle,
                                       __global const l1mc_scalar * listPoint)
{
  const int count = listCount[0];
  const REAL r1 = (REAL)r1s, r2 = (REAL)r2s;
  for (int first = L1MC_LANES * (int)get_global_id(0); first < count; first += L1MC_LANES * (int)get_global_size(0))
  {
    const L1MCListed t = l1mc_lanes_listed(u, p1, p3, l1, l2, nx, plane, (REAL)ihx, (REAL)ihy, r1, r2, listTriangle,
                                           listPoint, first, count, -1);
    const L1MCVec p = l1mc_fallback(t.b1, t.b2, t.listed, t.previous, r1, r2, eta, (REAL)coarse, (REAL)fine);
    l1mc_lanes_store(p1, p2, plane, &t, p, (L1MC_MASK)(-1), first, count);
  }
}
