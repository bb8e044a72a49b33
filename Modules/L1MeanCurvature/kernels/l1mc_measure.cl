// SPDX-License-Identifier: Apache-2.0
// The multiplier updates (step 5 of [Myllykoski2015a, Algorithm 1]) and the
// sums of the new state in one pass (each work-item updates and then reads
// only its own run of `span` vertices and their squares: 1 on GPUs, 32 on CPU
// drivers, where the work-group's tree reduction is the costly part): the terms of L_rh [Myllykoski2015a,
// eq. (3.15)] and J_h, the norms of R1-R3 (eq. (5.5)) and Sub #4's residual.
// The twin of Multipliers() and Measure() in src/gpurL1MCStepperCPU.cxx; the
// components are the first 16 slots of gpurL1MCStepperOpenCL.cxx.

// (K + c M) u at vertex (x, y) (gpurL1MCSub4.h), in double: the P1 Neumann stiffness A_y (x) M_x + M_y (x) A_x
// and the lumped mass (exact, or hx hy / 4 at the corners when separable).
inline double l1mc_sub4_operator(__global const REAL * u, int nx, int ny, int x, int y, double hx, double hy,
                                 double c, int separable)
{
  const int v = y * nx + x;
  const double uv = u[v];
  double ax = 0.0, ay = 0.0;
  if (x > 0)
    ax += uv - (double)u[v - 1];
  if (x + 1 < nx)
    ax += uv - (double)u[v + 1];
  if (y > 0)
    ay += uv - (double)u[v - nx];
  if (y + 1 < ny)
    ay += uv - (double)u[v + nx];
  const double mx = (x == 0 || x + 1 == nx) ? 0.5 * hx : hx, my = (y == 0 || y + 1 == ny) ? 0.5 * hy : hy;
  const int corner = (x == 0 || x + 1 == nx) && (y == 0 || y + 1 == ny);
  const double m = (corner && separable) ? 0.25 * hx * hy : l1mc_lumped_mass(x, y, nx, ny, hx, hy);
  return mx * ay / hy + my * ax / hx + c * m * uv;
}

__kernel void l1mc_measure(__global const REAL * f, __global const REAL * u, __global const REAL * p1,
                           __global const REAL * p2, __global const REAL * p3, __global REAL * l1, __global REAL * l2,
                           __global const REAL * psi, __global REAL * l3, __global const REAL * rhs, int nx, int ny,
                           REAL ihx, REAL ihy, double hx, double hy, double r1, double r2, double r3, double c,
                           int separable, int update, int span, __global double * partials,
                           __local double * scratch) // 16 x local size
{
  const int plane = l1mc_plane(nx, ny);
  double acc[16];
  for (int k = 0; k < 16; ++k)
    acc[k] = 0.0;
  const int begin = span * (int)get_global_id(0), end = min(begin + span, nx * ny);
  // The curvature along the run: square v's normalised gradients are the west ones of vertex v + 1 and square
  // v - nx's its south-west ones (gpurL1MCMesh.h: RowCurvature), so each square is normalised once.
  double west[4], southWest[4];
  int carried = 0;
  const int2 start = l1mc_vertex(begin, nx);
  int x = start.x - 1, y = start.y; // stepped along the run, without a division per vertex
  for (int v = begin; v < end; ++v)
  {
    if (++x == nx)
    {
      x = 0;
      ++y;
    }
    const int square = x + 1 < nx && y + 1 < ny;
    const int interior = l1mc_interior(x, y, nx, ny);
    REAL g[4];
    if (square)
    {
      l1mc_gradients(u, nx, v, ihx, ihy, g);
      if (update)
      {
        for (int k = 0; k < 4; ++k)
        {
          const int i = k * plane + v;
          l1[i] += (REAL)r1 * (g[k] - p1[i]);
          l2[i] += (REAL)r2 * (p2[i] - p3[i]);
        }
      }
    }
    const REAL divReal = interior ? l1mc_divergence(p3, plane, nx, ny, x, y, ihx, ihy) : (REAL)0;
    if (interior && update)
      l3[v] += (REAL)r3 * (divReal - psi[v]);
    const double m = l1mc_lumped_mass(x, y, nx, ny, hx, hy);
    const double du = (double)f[v] - (double)u[v];
    acc[1] += 0.5 * m * du * du;
    if (interior)
    {
      const double ps = psi[v], div = divReal, d = div - ps;
      acc[0] += m * fabs(ps);
      acc[3] += m * (0.5 * r3 * d * d + (double)l3[v] * d);
      acc[11] += m * d * d;
      acc[12] += m * div * div;
      acc[13] += m * ps * ps;
      double here[4], south[4];
      if (!carried)
      {
        l1mc_normalised_gradients(u, nx, v - 1, (double)ihx, (double)ihy, west);
        l1mc_normalised_gradients(u, nx, v - nx - 1, (double)ihx, (double)ihy, southWest);
      }
      l1mc_normalised_gradients(u, nx, v, (double)ihx, (double)ihy, here);
      l1mc_normalised_gradients(u, nx, v - nx, (double)ihx, (double)ihy, south);
      acc[4] += m * fabs(l1mc_curvature_from(here, west, southWest, south, (double)ihx, (double)ihy));
      for (int k = 0; k < 4; ++k)
      {
        west[k] = here[k];
        southWest[k] = south[k];
      }
      carried = 1;
    }
    else
      carried = 0;
    if (square)
    {
      const double area = 0.5 * hx * hy;
      for (int k = 0; k < 4; ++k)
      {
        const int i = k * plane + v;
        const double a = (double)g[k] - (double)p1[i], b = (double)p2[i] - (double)p3[i];
        acc[2] += area * (0.5 * r1 * a * a + (double)l1[i] * a + 0.5 * r2 * b * b + (double)l2[i] * b);
        acc[5] += a * a;
        acc[6] += (double)g[k] * (double)g[k];
        acc[7] += (double)p1[i] * (double)p1[i];
        acc[8] += b * b;
        acc[9] += (double)p2[i] * (double)p2[i];
        acc[10] += (double)p3[i] * (double)p3[i];
      }
    }
    const double res = (double)rhs[v] - l1mc_sub4_operator(u, nx, ny, x, y, hx, hy, c, separable);
    acc[14] += res * res;
    acc[15] += (double)rhs[v] * (double)rhs[v];
  }
  l1mc_partials(acc, 16, partials, scratch);
}
