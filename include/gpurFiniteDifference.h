// SPDX-License-Identifier: Apache-2.0
// CPU versions of the core's finite-difference stencils (kernels/gpur_stencils.cl).
// Both implement the same discretisation:
//   gradient:   forward differences divided by the spacing, 0 on the last index (Neumann);
//   divergence: backward differences, the exact negative adjoint of that gradient,
//               i.e. p[-1] := 0 and p[n-1] := 0 along each axis.
#ifndef gpurFiniteDifference_h
#define gpurFiniteDifference_h

#include "gpurGrid.h"

#include <array>
#include <cstddef>

namespace gpur
{

/** Strides and inverse spacings of a grid, precomputed for the stencils. */
template<typename Real>
struct StencilGeometry
{
  /** The strides and inverse spacings of `grid`. */
  explicit StencilGeometry(const Grid & grid)
    : nx(grid.size[0])
    , ny(grid.size[1])
    , nz(grid.size[2])
    , sy(grid.size[0])
    , sz(grid.size[0] * grid.size[1])
    , ihx(static_cast<Real>(1.0 / grid.spacing[0]))
    , ihy(static_cast<Real>(1.0 / grid.spacing[1]))
    , ihz(static_cast<Real>(1.0 / grid.spacing[2]))
  {
  }
  std::size_t nx; ///< size along x
  std::size_t ny; ///< size along y
  std::size_t nz; ///< size along z
  std::size_t sy; ///< stride of y (nx)
  std::size_t sz; ///< stride of z (nx * ny)
  Real ihx;       ///< 1 / hx
  Real ihy;       ///< 1 / hy
  Real ihz;       ///< 1 / hz
};

/** Forward-difference gradient at (x, y, z), linear index i. */
template<typename Real>
inline std::array<Real, 3>
ForwardGradient(const Real * u,
                const StencilGeometry<Real> & g,
                std::size_t x,
                std::size_t y,
                std::size_t z,
                std::size_t i)
{
  const Real c = u[i];
  return { { x + 1 < g.nx ? (u[i + 1] - c) * g.ihx : Real(0),
             y + 1 < g.ny ? (u[i + g.sy] - c) * g.ihy : Real(0),
             z + 1 < g.nz ? (u[i + g.sz] - c) * g.ihz : Real(0) } };
}

/** Backward-difference gradient at (x, y, z), linear index i: (u(n) - u(n - e_d)) / h_d, 0 on the first index. */
template<typename Real>
inline std::array<Real, 3>
BackwardGradient(const Real * u,
                 const StencilGeometry<Real> & g,
                 std::size_t x,
                 std::size_t y,
                 std::size_t z,
                 std::size_t i)
{
  const Real c = u[i];
  return { { x > 0 ? (c - u[i - 1]) * g.ihx : Real(0),
             y > 0 ? (c - u[i - g.sy]) * g.ihy : Real(0),
             z > 0 ? (c - u[i - g.sz]) * g.ihz : Real(0) } };
}

/** Backward-difference divergence of (px, py, pz) at (x, y, z); pz is unused when nz == 1. */
template<typename Real>
inline Real
BackwardDivergence(const Real * px,
                   const Real * py,
                   const Real * pz,
                   const StencilGeometry<Real> & g,
                   std::size_t x,
                   std::size_t y,
                   std::size_t z,
                   std::size_t i)
{
  // Component along one axis: (p[i] if not last) - (p[i-1] if not first).
  Real d = ((x + 1 < g.nx ? px[i] : Real(0)) - (x > 0 ? px[i - 1] : Real(0))) * g.ihx;
  d += ((y + 1 < g.ny ? py[i] : Real(0)) - (y > 0 ? py[i - g.sy] : Real(0))) * g.ihy;
  if (g.nz > 1)
  {
    d += ((z + 1 < g.nz ? pz[i] : Real(0)) - (z > 0 ? pz[i - g.sz] : Real(0))) * g.ihz;
  }
  return d;
}

} // namespace gpur

#endif
