// SPDX-License-Identifier: Apache-2.0
#include "gpurSeparableProblems.h"

#include "gpurError.h"

#include <cmath>
#include <string>

namespace gpur
{

namespace
{

void
RequireMesh(const std::vector<double> & nodes, std::size_t minimum, const char * what)
{
  if (nodes.size() < minimum)
  {
    throw InvalidArgument(std::string(what) + ": the mesh has " + std::to_string(nodes.size()) + " nodes; at least " +
                          std::to_string(minimum) + " are needed for one unknown");
  }
  for (std::size_t l = 0; l < nodes.size(); ++l)
  {
    if (!std::isfinite(nodes[l]))
    {
      throw InvalidArgument(std::string(what) + ": mesh node " + std::to_string(l) + " is not finite");
    }
    if (l > 0 && !(nodes[l] > nodes[l - 1]))
    {
      throw InvalidArgument(std::string(what) + ": mesh nodes must increase strictly, but node " + std::to_string(l) +
                            " (" + std::to_string(nodes[l]) + ") <= node " + std::to_string(l - 1) + " (" +
                            std::to_string(nodes[l - 1]) + ")");
    }
  }
}

// Element-by-element assembly of linear elements on all nodes (natural ends).
template<typename T>
AxisFactors<T>
AssembleP1(const std::vector<double> & nodes, MassMatrix mass)
{
  const std::size_t count = nodes.size();
  AxisFactors<T> f;
  f.A.diagonal.assign(count, T(0));
  f.M.diagonal.assign(count, T(0));
  f.A.offDiagonal.assign(count - 1, T(0));
  f.M.offDiagonal.assign(count - 1, T(0));
  for (std::size_t e = 0; e + 1 < count; ++e)
  {
    const double h = nodes[e + 1] - nodes[e];
    f.A.diagonal[e] += T(1 / h);
    f.A.diagonal[e + 1] += T(1 / h);
    f.A.offDiagonal[e] = T(-1 / h);
    if (mass == MassMatrix::Lumped)
    {
      f.M.diagonal[e] += T(h / 2);
      f.M.diagonal[e + 1] += T(h / 2);
    }
    else
    {
      f.M.diagonal[e] += T(h / 3);
      f.M.diagonal[e + 1] += T(h / 3);
      f.M.offDiagonal[e] = T(h / 6);
    }
  }
  return f;
}

template<typename T>
SymmetricTridiagonal<T>
Slice(const SymmetricTridiagonal<T> & m, std::size_t first, std::size_t count)
{
  SymmetricTridiagonal<T> out;
  out.diagonal.assign(m.diagonal.begin() + first, m.diagonal.begin() + first + count);
  out.offDiagonal.assign(m.offDiagonal.begin() + first, m.offDiagonal.begin() + first + count - 1);
  return out;
}

} // namespace

const char *
ToString(BoundaryCondition condition)
{
  return condition == BoundaryCondition::Neumann ? "Neumann" : "Dirichlet";
}

AxisFactors<double>
MakeSecondDifferenceAxis(std::size_t n, double spacing, BoundaryCondition left, BoundaryCondition right)
{
  if (n == 0)
  {
    throw InvalidArgument("second-difference axis: 0 unknowns; at least 1 is needed");
  }
  if (!(spacing > 0) || !std::isfinite(spacing))
  {
    throw InvalidArgument("second-difference axis: spacing " + std::to_string(spacing) + " must be finite and > 0");
  }
  const double w = 1 / (spacing * spacing);
  AxisFactors<double> f;
  f.A.diagonal.assign(n, 2 * w);
  f.A.offDiagonal.assign(n - 1, -w);
  if (left == BoundaryCondition::Neumann)
  {
    f.A.diagonal.front() -= w;
  }
  if (right == BoundaryCondition::Neumann)
  {
    f.A.diagonal.back() -= w;
  }
  f.M = MakeIdentityTridiagonal<double>(n);
  return f;
}

SeparableOperator<double>
MakePoissonOperator(const Grid & grid, const std::vector<BoundaryCondition> & conditions, double shift)
{
  if (conditions.size() != grid.dimension)
  {
    throw InvalidArgument("Poisson operator: " + std::to_string(conditions.size()) + " boundary conditions for a " +
                          std::to_string(grid.dimension) + "D grid; give one per axis");
  }
  SeparableOperator<double> op;
  for (unsigned d = 0; d < grid.dimension; ++d)
  {
    op.axes.push_back(MakeSecondDifferenceAxis(grid.size[d], grid.spacing[d], conditions[d], conditions[d]));
  }
  op.shift = shift;
  return op;
}

AxisFactors<double>
MakeP1Axis(const std::vector<double> & nodes, BoundaryCondition left, BoundaryCondition right, MassMatrix mass)
{
  const std::size_t dropped =
    (left == BoundaryCondition::Dirichlet ? 1 : 0) + (right == BoundaryCondition::Dirichlet ? 1 : 0);
  RequireMesh(nodes, dropped + 1, "P1 axis");
  const AxisFactors<double> all = AssembleP1<double>(nodes, mass);
  const std::size_t first = left == BoundaryCondition::Dirichlet ? 1 : 0;
  const std::size_t count = nodes.size() - dropped;
  return AxisFactors<double>{ Slice(all.A, first, count), Slice(all.M, first, count) };
}

AxisFactors<std::complex<double>>
MakeHelmholtzABCAxis(const std::vector<double> & nodes, double omega)
{
  RequireMesh(nodes, 2, "Helmholtz ABC axis");
  if (!(omega > 0) || !std::isfinite(omega))
  {
    throw InvalidArgument("Helmholtz ABC axis: omega " + std::to_string(omega) + " must be finite and > 0");
  }
  using C = std::complex<double>;
  AxisFactors<C> f = AssembleP1<C>(nodes, MassMatrix::Consistent);
  for (std::size_t end : { std::size_t(0), nodes.size() - 1 })
  {
    f.A.diagonal[end] += C(0, -omega / 2);
    f.M.diagonal[end] += C(0, 1 / (2 * omega));
  }
  return f;
}

std::vector<double>
MakeUniformNodes(std::size_t count, double a, double b)
{
  if (count < 2 || !(b > a) || !std::isfinite(a) || !std::isfinite(b))
  {
    throw InvalidArgument("uniform nodes: need count >= 2 (got " + std::to_string(count) + ") and finite a < b (got " +
                          std::to_string(a) + ", " + std::to_string(b) + ")");
  }
  std::vector<double> nodes(count);
  for (std::size_t l = 0; l < count; ++l)
  {
    nodes[l] = a + (b - a) * static_cast<double>(l) / static_cast<double>(count - 1);
  }
  return nodes;
}

} // namespace gpur
