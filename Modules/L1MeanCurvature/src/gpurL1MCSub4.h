// SPDX-License-Identifier: Apache-2.0
// Sub #4 of [Myllykoski2015a, eqs. (3.29)-(3.30)]: u from
//
//   (K + c M_L) u = c M_L f + G^T M_Q (p1 - lambda1 / r1),   c = 1 / r1,
//
// the linear-element stiffness K and the lumped mass M_L on the pixel grid's
// triangulation, divided by r1. K = A_y (x) M_x + M_y (x) A_x exactly (the
// diagonal edges of right triangles carry no stiffness coupling), with the
// P1 Neumann factors of gpur::MakeP1Axis, so PSCR (Modules/PSCR) solves it
// with the shift c. The lumped mass |Omega_v| / 3 is M_y (x) M_x except at the
// four corners (hx hy / 3 at SW and NE where two triangles meet, hx hy / 6 at
// SE and NW where one does, against hx hy / 4): the exact matrix is the
// separable one plus c E D E^T, with E the four corner columns of the
// identity and D = diag(m_exact - hx hy / 4). L1MCCornerMass::Exact solves it
// by the Sherman-Morrison-Woodbury formula,
//
//   A^-1 b = y - Z (D^-1 / c + E^T Z)^-1 E^T y,   y = A_sep^-1 b,  Z = A_sep^-1 E,
//
// with Z (four PSCR solves) and the 4 x 4 capacitance inverse computed once
// per run; per iteration it costs one pass over four vectors. Separable
// replaces the corner masses by hx hy / 4 in the operator and in c M_L f (a
// plain PSCR solve).
#ifndef gpurL1MCSub4_h
#define gpurL1MCSub4_h

#include "gpurL1MCStepper.h"
#include "gpurPSCRSolver.h"
#include "gpurSeparableOperator.h"

#include <array>
#include <vector>

namespace gpur
{
namespace l1mc
{

template<typename Real>
class Sub4
{
public:
  /** Builds the PSCR plan on `backend` (CPU or OpenCL) and, for the exact corners, Z and the capacitance. */
  Sub4(const Constants & constants, const ResolvedBackend & backend, const ExecutionOptions & execution);

  /** The mass that multiplies f and u in Sub #4 at vertex (x, y): exact, or separable at the corners. */
  double
  Mass(std::size_t x, std::size_t y) const;
  /** True for L1MCCornerMass::Exact. */
  bool
  Exact() const
  {
    return m_Exact;
  }
  /** Indices of the corners SW, SE, NW, NE. */
  const std::array<std::size_t, 4> &
  Corners() const
  {
    return m_Corners;
  }
  /** The columns of Z = A_sep^-1 E (4 Count() values, corner-major); empty for Separable. */
  const std::vector<Real> &
  Z() const
  {
    return m_Z;
  }
  /** The capacitance inverse (row-major 4 x 4), so that w = Cinv E^T y and u = y - Z w. */
  const std::array<double, 16> &
  CapacitanceInverse() const
  {
    return m_Cinv;
  }
  /** The PSCR solver of the separable part. */
  const PSCRSolver<Real> &
  Solver() const
  {
    return m_Solver;
  }
  /** Solves on the host: u from rhs (Count() values each, not aliased); returns the relative residual of the system
   * solved. */
  double
  Solve(const Real * rhs, Real * u, const ParallelForFunction & parallelFor) const;
  /** ||b - A u|| / ||b|| of the system solved (exact or separable corners), in double. */
  double
  Residual(const Real * rhs, const Real * u, const ParallelForFunction & parallelFor) const;

private:
  Mesh m_Mesh;
  double m_Shift;
  bool m_Exact;
  SeparableOperator<Real> m_Operator;
  PSCRSolver<Real> m_Solver;
  std::array<std::size_t, 4> m_Corners;
  std::array<double, 4> m_CornerDelta{}; ///< c (m_exact - m_separable) at the corners
  std::vector<Real> m_Z;
  std::array<double, 16> m_Cinv{};
};

} // namespace l1mc
} // namespace gpur

#endif
