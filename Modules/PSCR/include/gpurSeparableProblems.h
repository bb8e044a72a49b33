// SPDX-License-Identifier: Apache-2.0
// Factor matrices of the standard separable problems, one axis at a time
// ([Myllykoski2015, §3.2.1-3.2.2]; [Myllykoski2018, §4]). Combine them in a
// SeparableOperator (x first).
//
// - Second differences (finite differences, M = I): -u'' ~ (-u_{i-1} + 2u_i - u_{i+1}) / h^2.
//   Dirichlet: the n unknowns are the interior nodes x_1..x_n of x_0..x_{n+1}
//   (u = 0 at x_0 and x_{n+1}). Neumann: the reflecting (cell-centred, image)
//   boundary, u_{-1} = u_0, so the end row is (u_0 - u_1) / h^2; with Neumann
//   at both ends A = D^T D for the forward difference D of the TV module.
// - Linear finite elements on a (possibly non-uniform) mesh x_0 < ... < x_N:
//   stiffness A_ij = integral of phi_i' phi_j' and mass M (lumped: diagonal
//   (h_l + h_{l+1}) / 2, [Myllykoski2015, eq. (3.7)]; consistent:
//   (h_l + h_{l+1}) / 3 and h / 6 off the diagonal). A Dirichlet end drops its
//   boundary node from the unknowns (u = 0 there), a Neumann end keeps it
//   (natural condition).
// - Helmholtz with the second-order absorbing boundary condition
//   ([Myllykoski2015, eqs. (3.14)-(3.18)]): linear elements, consistent mass,
//   every node unknown, and the end entries b = 1/h - i omega / 2,
//   d = h/3 + i / (2 omega); use the shift c = -omega^2. (Off-diagonal mass
//   h/6, the consistent linear-element mass of [Myllykoski2015, eq. (3.18)];
//   [Myllykoski2018, eq. (4.6)] prints 5h/6, which does not fit its own
//   diagonal h/3.)
#ifndef gpurSeparableProblems_h
#define gpurSeparableProblems_h

#include "gpurGrid.h"
#include "gpurSeparableOperator.h"

#include <complex>
#include <cstddef>
#include <vector>

namespace gpur
{

/** The condition at one end of an axis (see the top of this file). */
enum class BoundaryCondition
{
  Dirichlet,
  Neumann
};

/** The mass matrix of linear finite elements (see the top of this file). */
enum class MassMatrix
{
  Lumped,
  Consistent
};

/** "Dirichlet" or "Neumann". */
const char *
ToString(BoundaryCondition condition);

/** Second differences on n >= 1 unknowns with spacing h > 0 (physical units), M = I. */
AxisFactors<double>
MakeSecondDifferenceAxis(std::size_t n, double spacing, BoundaryCondition left, BoundaryCondition right);

/**
 * The finite-difference operator -Lap_h + shift on the grid of an image (the
 * operator of itk::PSCRPoissonSolver, Python's PoissonSolver and the PSCR
 * benchmark): MakeSecondDifferenceAxis on every axis, x first, with
 * conditions[d] at both ends of axis d. Throws InvalidArgument unless there is
 * one condition per axis of the grid.
 */
SeparableOperator<double>
MakePoissonOperator(const Grid & grid, const std::vector<BoundaryCondition> & conditions, double shift = 0.0);

/**
 * Linear finite elements on the strictly increasing mesh `nodes` (x_0..x_N,
 * boundary nodes included). The unknowns are the nodes that are not on a
 * Dirichlet end: N - 1, N or N + 1 of them (at least 1).
 */
AxisFactors<double>
MakeP1Axis(const std::vector<double> & nodes,
           BoundaryCondition left,
           BoundaryCondition right,
           MassMatrix mass = MassMatrix::Lumped);

/** Helmholtz factors with the 2nd-order absorbing boundary (every node of `nodes` unknown, omega > 0). */
AxisFactors<std::complex<double>>
MakeHelmholtzABCAxis(const std::vector<double> & nodes, double omega);

/** count >= 2 equally spaced nodes from a to b > a. */
std::vector<double>
MakeUniformNodes(std::size_t count, double a, double b);

} // namespace gpur

#endif
