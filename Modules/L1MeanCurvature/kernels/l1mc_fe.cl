// SPDX-License-Identifier: Apache-2.0
// The finite-element discretisation of [Myllykoski2015a, §3] on the pixel
// grid's triangulation, on the device: the twin of src/gpurL1MCMesh.h (same
// operations in the same order, so that the OpenCL backend agrees with the
// CPU reference to rounding), the per-work-group sums in double, and the
// kernel that finishes them on the device. Requires gpur_common.cl,
// gpur_reduce.cl and l1mc_newton.cl; the local size is a power of two (L1MC_GROUP).
//
// Fields: vertex fields are one plane of nx ny values (v = y nx + x); a
// triangle field is 4 planes Lx, Ly, Ux, Uy (l1mc_plane apart) indexed by the lower-left vertex
// of the square (see gpurL1MCMesh.h). One work-item per vertex / square.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

GPUR_DEFINE_GROUP_REDUCTION_OF(dsum, double, GPUR_ADD)

// The stride between the four planes of a triangle field on the device: nx ny rounded up to 16 entries (aligned
// vector loads) plus 80. Image sizes are often powers of two, and planes exactly 2^k bytes apart put entry v of
// every plane in the same cache set: CG's update streams 16 planes and ran 5x slower that way on PoCL at 512^2
// (set conflicts; measured with and without the padding). The host allocates with the same stride
// (TrianglePlane in gpurL1MCStepperOpenCL.cxx).
inline int l1mc_plane(int nx, int ny)
{
  return (nx * ny + 15) / 16 * 16 + 80;
}

// The gradient of a vertex field on the two triangles of square v: g = (Lx, Ly, Ux, Uy).
inline void l1mc_gradients(__global const REAL * u, int nx, int v, REAL ihx, REAL ihy, REAL * g)
{
  l1mc_square_gradients(u[v], u[v + 1], u[v + nx], u[v + nx + 1], ihx, ihy, g);
}

// (G^T M_Q q)_v / |T| at vertex (x, y) for the triangle field q (planes of `plane` values).
inline REAL l1mc_transposed_gradient(__global const REAL * q, int plane, int nx, int ny, int x, int y, REAL ihx,
                                     REAL ihy)
{
  __global const REAL * lx = q;
  __global const REAL * ly = q + plane;
  __global const REAL * ux = q + 2 * plane;
  __global const REAL * uy = q + 3 * plane;
  const int v = y * nx + x;
  const int right = x + 1 < nx, left = x > 0, up = y + 1 < ny, down = y > 0;
  REAL s = 0;
  if (right && up)
    s += -lx[v] * ihx - uy[v] * ihy;
  if (left && up)
    s += lx[v - 1] * ihx - ly[v - 1] * ihy;
  if (left && down)
    s += ly[v - nx - 1] * ihy + ux[v - nx - 1] * ihx;
  if (right && down)
    s += -ux[v - nx] * ihx + uy[v - nx] * ihy;
  return s;
}

// The same for the field a - w b (Sub #4's p1 - lambda1 / r1), each entry rounded to REAL as the CPU stores it.
inline REAL l1mc_transposed_gradient_of_difference(__global const REAL * a, __global const REAL * b, REAL w, int plane,
                                                   int nx, int ny, int x, int y, REAL ihx, REAL ihy)
{
  const int v = y * nx + x;
  const int right = x + 1 < nx, left = x > 0, up = y + 1 < ny, down = y > 0;
#define L1MC_Q(c, i) (a[(c) * plane + (i)] - w * b[(c) * plane + (i)])
  REAL s = 0;
  if (right && up)
    s += -L1MC_Q(0, v) * ihx - L1MC_Q(3, v) * ihy;
  if (left && up)
    s += L1MC_Q(0, v - 1) * ihx - L1MC_Q(1, v - 1) * ihy;
  if (left && down)
    s += L1MC_Q(1, v - nx - 1) * ihy + L1MC_Q(2, v - nx - 1) * ihx;
  if (right && down)
    s += -L1MC_Q(2, v - nx) * ihx + L1MC_Q(3, v - nx) * ihy;
#undef L1MC_Q
  return s;
}

// (x, y) = (v % nx, v / nx) without integer division, which a CPU driver runs per work-item and does not
// vectorise (the pointwise kernels 1.5-2x slower on PoCL): y from the float quotient, which is off by at most one
// for fewer than 2^21 rows (float's 24 bits), then corrected.
inline int2 l1mc_vertex(int v, int nx)
{
  int y = (int)((float)v * ((float)1 / (float)nx));
  y -= y * nx > v ? 1 : 0;
  y += (y + 1) * nx <= v ? 1 : 0;
  return (int2)(v - y * nx, y);
}

inline int l1mc_interior(int x, int y, int nx, int ny)
{
  return x > 0 && y > 0 && x + 1 < nx && y + 1 < ny;
}

// div_h q at an interior vertex [Myllykoski2015a, eqs. (3.11)-(3.13)]: -(G^T M_Q q)_v / m_v.
inline REAL l1mc_divergence(__global const REAL * q, int plane, int nx, int ny, int x, int y, REAL ihx, REAL ihy)
{
  return (REAL)(-0.5) * l1mc_transposed_gradient(q, plane, nx, ny, x, y, ihx, ihy);
}

// The lumped mass |Omega_v| / 3 (gpurL1MCMesh.h: Mesh::LumpedMass).
inline double l1mc_lumped_mass(int x, int y, int nx, int ny, double hx, double hy)
{
  const int xEnd = x == 0 || x + 1 == nx, yEnd = y == 0 || y + 1 == ny;
  if (xEnd && yEnd)
    return hx * hy * (((x == 0) == (y == 0)) ? 1.0 / 3.0 : 1.0 / 6.0);
  return hx * hy * ((xEnd || yEnd) ? 0.5 : 1.0);
}

// grad u / sqrt(1 + |grad u|^2) on the two triangles of square v, in double.
inline void l1mc_normalised_gradients(__global const REAL * u, int nx, int v, double ihx, double ihy, double * n)
{
  const double u00 = u[v], u10 = u[v + 1], u01 = u[v + nx], u11 = u[v + nx + 1];
  const double g0 = (u10 - u00) * ihx, g1 = (u11 - u10) * ihy, g2 = (u11 - u01) * ihx, g3 = (u01 - u00) * ihy;
  const double s0 = 1.0 / sqrt(1.0 + g0 * g0 + g1 * g1), s1 = 1.0 / sqrt(1.0 + g2 * g2 + g3 * g3);
  n[0] = g0 * s0;
  n[1] = g1 * s0;
  n[2] = g2 * s1;
  n[3] = g3 * s1;
}

// div_h(grad u / sqrt(1 + |grad u|^2)) at an interior vertex from the normalised gradients of its square and of
// the squares to the west, south-west and south (gpurL1MCMesh.h: CurvatureFrom).
inline double l1mc_curvature_from(const double * here, const double * west, const double * southWest,
                                  const double * south, double ihx, double ihy)
{
  const double s = -here[0] * ihx - here[3] * ihy + west[0] * ihx - west[1] * ihy + southWest[1] * ihy +
                   southWest[2] * ihx - south[2] * ihx + south[3] * ihy;
  return -0.5 * s;
}

// Writes the work-group's sums of value[k], k < width, to partials[k * groups + group]:
// one tree for all components in `scratch` (width x local size values), so log2(local size) barriers in all
// instead of that many per component (16 sequential reductions made l1mc_measure the second-costliest kernel of
// an iteration on PoCL).
inline void l1mc_partials(const double * value, int width, __global double * partials, __local double * scratch)
{
  const int lid = get_local_id(0), n = get_local_size(0);
  for (int k = 0; k < width; ++k)
    scratch[k * n + lid] = value[k];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = n / 2; s > 0; s >>= 1)
  {
    if (lid < s)
      for (int k = 0; k < width; ++k)
        scratch[k * n + lid] += scratch[k * n + lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int k = lid; k < width; k += n)
    partials[k * get_num_groups(0) + get_group_id(0)] = scratch[k * n];
}

// One work-group: scalars[offset + k] = sum over the groups of partials[k * groups + g], k < width; and, when
// counterSlot >= 0, scalars[counterSlot] = counter[0] (the Newton failures of Sub #1, the work list's length), so
// that one read brings back every scalar.
__kernel void l1mc_finish(__global const double * partials, int groups, int width, __global double * scalars,
                          int offset, __global const int * counter, int counterSlot, __local double * scratch)
{
  for (int k = 0; k < width; ++k)
  {
    double acc = 0.0;
    for (int g = get_local_id(0); g < groups; g += get_local_size(0))
      acc += partials[k * groups + g];
    const double r = gpur_group_dsum(acc, scratch);
    if (get_local_id(0) == 0)
      scalars[offset + k] = r;
  }
  if (get_local_id(0) == 0 && counterSlot >= 0)
    scalars[counterSlot] = (double)counter[0];
}
