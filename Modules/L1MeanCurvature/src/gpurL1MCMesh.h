// SPDX-License-Identifier: Apache-2.0
// The finite-element discretisation of [Myllykoski2015a, §3] on the uniform
// triangulation of the pixel grid, written once for the CPU reference (the
// OpenCL kernels in kernels/l1mc_fe.cl run the same arithmetic in the same
// order, so that both backends agree to rounding).
//
// Pixels are the mesh vertices, v = y nx + x. Square (i, j), 0 <= i < nx - 1,
// 0 <= j < ny - 1, is cut along its SW-NE diagonal into
//   lower L = {(i,j), (i+1,j), (i+1,j+1)}: grad u = ((u[i+1,j] - u[i,j]) / hx, (u[i+1,j+1] - u[i+1,j]) / hy)
//   upper U = {(i,j), (i+1,j+1), (i,j+1)}: grad u = ((u[i+1,j+1] - u[i,j+1]) / hx, (u[i,j+1] - u[i,j]) / hy)
// both of area |T| = hx hy / 2. A triangle field (Q_h: p1, p2, p3, lambda1,
// lambda2) is 4 planes of nx ny values, Lx, Ly, Ux, Uy, indexed by the
// square's lower-left vertex (the "sparse" numbering of [Myllykoski2015b,
// §3.2]: coalesced on a GPU and free of branches); entries with i = nx - 1 or
// j = ny - 1 stay 0.
//
// (G^T M_Q q)_v = sum_{T containing v} |T| q_T . grad w_v|_T, the transpose of
// the gradient in the weighted inner products; the discrete divergence
// [Myllykoski2015a, eqs. (3.11)-(3.13)] is div_h q = -(G^T M_Q q)_v / m_v at
// the interior vertices, with the lumped mass m_v = |Omega_v| / 3.
#ifndef gpurL1MCMesh_h
#define gpurL1MCMesh_h

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace gpur
{
namespace l1mc
{

/** The mesh: sizes and steps. */
struct Mesh
{
  std::size_t nx = 0, ny = 0;
  double hx = 0.0, hy = 0.0;

  std::size_t
  Count() const
  {
    return nx * ny;
  }
  /** |T| = hx hy / 2. */
  double
  TriangleArea() const
  {
    return 0.5 * hx * hy;
  }
  bool
  Interior(std::size_t x, std::size_t y) const
  {
    return x > 0 && y > 0 && x + 1 < nx && y + 1 < ny;
  }
  /**
   * m_v = |Omega_v| / 3: hx hy inside, hx hy / 2 on an edge, and at the corners
   * hx hy / 3 (SW and NE, two triangles) or hx hy / 6 (SE and NW, one).
   */
  double
  LumpedMass(std::size_t x, std::size_t y) const
  {
    const bool xEnd = x == 0 || x + 1 == nx, yEnd = y == 0 || y + 1 == ny;
    if (xEnd && yEnd)
    {
      const bool twoTriangles = (x == 0) == (y == 0); // SW or NE
      return hx * hy * (twoTriangles ? 1.0 / 3.0 : 1.0 / 6.0);
    }
    return hx * hy * (xEnd || yEnd ? 0.5 : 1.0);
  }
};

/** The gradient of a vertex field on the two triangles of square (i, j) (i < nx - 1, j < ny - 1). */
template<typename Real>
inline void
TriangleGradients(const Real * u, std::size_t nx, std::size_t v, Real ihx, Real ihy, Real g[4])
{
  const Real u00 = u[v], u10 = u[v + 1], u01 = u[v + nx], u11 = u[v + nx + 1];
  g[0] = (u10 - u00) * ihx;
  g[1] = (u11 - u10) * ihy;
  g[2] = (u11 - u01) * ihx;
  g[3] = (u01 - u00) * ihy;
}

/**
 * (G^T M_Q q)_v / |T| at vertex (x, y): the sum over the (up to six) triangles
 * around it of q_T . grad w_v|_T. q holds the 4 planes, each of `plane` values.
 */
template<typename Real>
inline Real
TransposedGradient(const Real * q,
                   std::size_t plane,
                   const Mesh & mesh,
                   std::size_t x,
                   std::size_t y,
                   Real ihx,
                   Real ihy)
{
  const Real *lx = q, *ly = q + plane, *ux = q + 2 * plane, *uy = q + 3 * plane;
  const std::size_t nx = mesh.nx, v = y * nx + x;
  const bool right = x + 1 < mesh.nx, left = x > 0, up = y + 1 < mesh.ny, down = y > 0;
  Real s = 0;
  if (right && up) // square (x, y): v is (i, j) of L and U
    s += -lx[v] * ihx - uy[v] * ihy;
  if (left && up) // square (x - 1, y): v is (i + 1, j) of L
    s += lx[v - 1] * ihx - ly[v - 1] * ihy;
  if (left && down) // square (x - 1, y - 1): v is (i + 1, j + 1) of L and U
    s += ly[v - nx - 1] * ihy + ux[v - nx - 1] * ihx;
  if (right && down) // square (x, y - 1): v is (i, j + 1) of U
    s += -ux[v - nx] * ihx + uy[v - nx] * ihy;
  return s;
}

/** grad u / sqrt(1 + |grad u|^2) on the two triangles of square (v = its lower-left vertex), in double. */
template<typename Real>
inline void
NormalisedGradients(const Real * u, std::size_t nx, std::size_t v, double ihx, double ihy, double n[4])
{
  const double u00 = u[v], u10 = u[v + 1], u01 = u[v + nx], u11 = u[v + nx + 1];
  const double g[4] = { (u10 - u00) * ihx, (u11 - u10) * ihy, (u11 - u01) * ihx, (u01 - u00) * ihy };
  for (unsigned t = 0; t < 2; ++t)
  {
    const double s = 1.0 / std::sqrt(1.0 + g[2 * t] * g[2 * t] + g[2 * t + 1] * g[2 * t + 1]);
    n[2 * t] = g[2 * t] * s;
    n[2 * t + 1] = g[2 * t + 1] * s;
  }
}

/**
 * div_h of the normalised gradients around an interior vertex
 * (NormalisedGradients of its square, here, and of the squares to the west,
 * south-west and south): TransposedGradient's stencil, in double.
 */
inline double
CurvatureFrom(const double here[4],
              const double west[4],
              const double southWest[4],
              const double south[4],
              double ihx,
              double ihy)
{
  const double s = -here[0] * ihx - here[3] * ihy + west[0] * ihx - west[1] * ihy + southWest[1] * ihy +
                   southWest[2] * ihx - south[2] * ihx + south[3] * ihy;
  return -0.5 * s;
}

/**
 * The discrete mean curvature div_h(grad u / sqrt(1 + |grad u|^2)) at the
 * interior vertex (x, y), the integrand of the regulariser of J_h
 * [Myllykoski2015a, §3]: TransposedGradient's stencil on the six triangles
 * around the vertex, in double.
 */
template<typename Real>
inline double
CurvatureOf(const Real * u, const Mesh & mesh, std::size_t x, std::size_t y)
{
  const std::size_t nx = mesh.nx, v = y * nx + x;
  const double ihx = 1.0 / mesh.hx, ihy = 1.0 / mesh.hy;
  double here[4], west[4], southWest[4], south[4];
  NormalisedGradients(u, nx, v, ihx, ihy, here);
  NormalisedGradients(u, nx, v - 1, ihx, ihy, west);
  NormalisedGradients(u, nx, v - nx - 1, ihx, ihy, southWest);
  NormalisedGradients(u, nx, v - nx, ihx, ihy, south);
  return CurvatureFrom(here, west, southWest, south, ihx, ihy);
}

/**
 * CurvatureOf at the vertices of a row, left to right: square v's normalised
 * gradients are the west ones of vertex v + 1, and square v - nx's its
 * south-west ones, so each square is normalised once (4 square roots per
 * vertex instead of 8); the same values and the same sum, bit for bit.
 */
class RowCurvature
{
public:
  /** CurvatureOf(u, mesh, x, y) at the interior vertex (x, y); x must grow by one from call to call in a row. */
  template<typename Real>
  double
  At(const Real * u, const Mesh & mesh, std::size_t x, std::size_t y)
  {
    const std::size_t nx = mesh.nx, v = y * nx + x;
    const double ihx = 1.0 / mesh.hx, ihy = 1.0 / mesh.hy;
    if (!(m_Row == y && m_X + 1 == x))
    {
      NormalisedGradients(u, nx, v - 1, ihx, ihy, m_West);
      NormalisedGradients(u, nx, v - nx - 1, ihx, ihy, m_SouthWest);
    }
    double here[4], south[4];
    NormalisedGradients(u, nx, v, ihx, ihy, here);
    NormalisedGradients(u, nx, v - nx, ihx, ihy, south);
    const double k = CurvatureFrom(here, m_West, m_SouthWest, south, ihx, ihy);
    std::copy(here, here + 4, m_West);
    std::copy(south, south + 4, m_SouthWest);
    m_Row = y;
    m_X = x;
    return k;
  }

private:
  double m_West[4] = {}, m_SouthWest[4] = {};
  std::size_t m_Row = std::size_t(-1), m_X = 0;
};

} // namespace l1mc
} // namespace gpur

#endif
