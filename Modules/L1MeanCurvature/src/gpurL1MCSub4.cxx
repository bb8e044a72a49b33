// SPDX-License-Identifier: Apache-2.0
#include "gpurL1MCSub4.h"

#include "gpurError.h"
#include "gpurL1MCSub2.h"
#include "gpurSeparableProblems.h"

#include <cmath>
#include <string>

namespace gpur
{
namespace l1mc
{
namespace
{

SeparableOperator<double>
MakeOperator(const Mesh & mesh, double shift)
{
  SeparableOperator<double> op;
  const double hs[2] = { mesh.hx, mesh.hy };
  const std::size_t ns[2] = { mesh.nx, mesh.ny };
  for (unsigned d = 0; d < 2; ++d)
  {
    op.axes.push_back(MakeP1Axis(MakeUniformNodes(ns[d], 0.0, double(ns[d] - 1) * hs[d]),
                                 BoundaryCondition::Neumann,
                                 BoundaryCondition::Neumann,
                                 MassMatrix::Lumped));
  }
  op.shift = shift;
  return op;
}

/** Inverts the 4 x 4 matrix a (row-major) by Gauss-Jordan elimination with partial pivoting. */
std::array<double, 16>
Invert4(std::array<double, 16> a)
{
  std::array<double, 16> inv{};
  for (unsigned i = 0; i < 4; ++i)
    inv[5 * i] = 1.0;
  for (unsigned col = 0; col < 4; ++col)
  {
    unsigned pivot = col;
    for (unsigned r = col + 1; r < 4; ++r)
      if (std::abs(a[4 * r + col]) > std::abs(a[4 * pivot + col]))
        pivot = r;
    if (!(std::abs(a[4 * pivot + col]) > 0.0))
      throw NumericalError("L1-mean-curvature: the corner correction of Sub #4 is singular");
    for (unsigned k = 0; k < 4; ++k)
    {
      std::swap(a[4 * col + k], a[4 * pivot + k]);
      std::swap(inv[4 * col + k], inv[4 * pivot + k]);
    }
    const double d = a[4 * col + col];
    for (unsigned k = 0; k < 4; ++k)
    {
      a[4 * col + k] /= d;
      inv[4 * col + k] /= d;
    }
    for (unsigned r = 0; r < 4; ++r)
    {
      if (r == col)
        continue;
      const double m = a[4 * r + col];
      for (unsigned k = 0; k < 4; ++k)
      {
        a[4 * r + k] -= m * a[4 * col + k];
        inv[4 * r + k] -= m * inv[4 * col + k];
      }
    }
  }
  return inv;
}

} // namespace

template<typename Real>
Sub4<Real>::Sub4(const Constants & constants, const ResolvedBackend & backend, const ExecutionOptions & execution)
  : m_Mesh(constants.mesh)
  , m_Shift(1.0 / constants.r1)
  , m_Exact(constants.cornerMass == L1MCCornerMass::Exact)
  , m_Operator(CastOperator<Real>(MakeOperator(constants.mesh, 1.0 / constants.r1)))
  , m_Solver(m_Operator, SubproblemSolverOptions(backend, execution))
{
  const std::size_t nx = m_Mesh.nx, ny = m_Mesh.ny;
  m_Corners = { 0, nx - 1, (ny - 1) * nx, ny * nx - 1 };
  const std::size_t cx[4] = { 0, nx - 1, 0, nx - 1 }, cy[4] = { 0, 0, ny - 1, ny - 1 };
  for (unsigned k = 0; k < 4; ++k)
    m_CornerDelta[k] = m_Shift * (m_Mesh.LumpedMass(cx[k], cy[k]) - 0.25 * m_Mesh.hx * m_Mesh.hy);
  if (!m_Exact)
    return;
  const std::size_t n = m_Mesh.Count();
  m_Z.assign(4 * n, Real(0));
  std::vector<Real> e(n, Real(0));
  for (unsigned k = 0; k < 4; ++k)
  {
    e[m_Corners[k]] = Real(1);
    m_Solver.Solve(e.data(), m_Z.data() + k * n);
    e[m_Corners[k]] = Real(0);
  }
  std::array<double, 16> capacitance{};
  for (unsigned r = 0; r < 4; ++r)
  {
    for (unsigned k = 0; k < 4; ++k)
      capacitance[4 * r + k] = double(m_Z[k * n + m_Corners[r]]);
    capacitance[5 * r] += 1.0 / m_CornerDelta[r];
  }
  m_Cinv = Invert4(capacitance);
}

template<typename Real>
double
Sub4<Real>::Mass(std::size_t x, std::size_t y) const
{
  const bool corner = (x == 0 || x + 1 == m_Mesh.nx) && (y == 0 || y + 1 == m_Mesh.ny);
  if (corner && !m_Exact)
    return 0.25 * m_Mesh.hx * m_Mesh.hy;
  return m_Mesh.LumpedMass(x, y);
}

template<typename Real>
double
Sub4<Real>::Solve(const Real * rhs, Real * u, const ParallelForFunction & parallelFor) const
{
  // Unchecked: the residual below is of the whole system (the corners included), so PSCR's own check of the
  // separable part would repeat that work.
  m_Solver.SolveUnchecked(rhs, u);
  if (m_Exact)
  {
    double w[4];
    for (unsigned r = 0; r < 4; ++r)
    {
      w[r] = 0.0;
      for (unsigned k = 0; k < 4; ++k)
        w[r] += m_Cinv[4 * r + k] * double(u[m_Corners[k]]);
    }
    const std::size_t n = m_Mesh.Count();
    const Real w0 = Real(w[0]), w1 = Real(w[1]), w2 = Real(w[2]), w3 = Real(w[3]);
    const Real *z0 = m_Z.data(), *z1 = z0 + n, *z2 = z1 + n, *z3 = z2 + n;
    RunParallel(parallelFor,
                n,
                [&](std::size_t begin, std::size_t end)
                {
                  for (std::size_t i = begin; i < end; ++i)
                    u[i] -= z0[i] * w0 + z1[i] * w1 + z2[i] * w2 + z3[i] * w3;
                });
  }
  return Residual(rhs, u, parallelFor);
}

template<typename Real>
double
Sub4<Real>::Residual(const Real * rhs, const Real * u, const ParallelForFunction & parallelFor) const
{
  const std::size_t n = m_Mesh.Count();
  std::vector<Real> au(n);
  ApplySeparableOperator(m_Operator, u, au.data(), parallelFor);
  if (m_Exact)
    for (unsigned k = 0; k < 4; ++k)
      au[m_Corners[k]] += Real(m_CornerDelta[k] * double(u[m_Corners[k]]));
  const std::vector<double> sums = ParallelSum(parallelFor,
                                               n,
                                               2,
                                               [&](std::size_t begin, std::size_t end, double * acc)
                                               {
                                                 for (std::size_t i = begin; i < end; ++i)
                                                 {
                                                   const double r = double(rhs[i]) - double(au[i]);
                                                   acc[0] += r * r;
                                                   acc[1] += double(rhs[i]) * double(rhs[i]);
                                                 }
                                               });
  return sums[1] > 0.0 ? std::sqrt(sums[0] / sums[1]) : std::sqrt(sums[0]);
}

template class Sub4<float>;
template class Sub4<double>;

} // namespace l1mc
} // namespace gpur
