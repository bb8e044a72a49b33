// SPDX-License-Identifier: Apache-2.0
// Sub #2 of [Myllykoski2015a, eq. (3.26)] solved directly (L1MCSub2Solver::Direct):
//
//   (r2 I - r3 G D) p3 = b,   b = r2 p2 + lambda2 - G (r3 psi - lambda3),
//
// with G = grad0 (the gradient on the triangles of a vertex field that is 0
// on the boundary) and D = div_h at the interior vertices. On the pixel
// grid's triangulation every interior lumped mass is hx hy and every triangle
// |T| = hx hy / 2, so D = -G^T / 2, and the push-through identity
// (r2 I + c G G^T)^-1 = (I - c G (r2 I + c G^T G)^-1 G^T) / r2, c = r3 / 2, gives
//
//   p3 = (b + r3 G t) / r2,   (r2 I + r3 L) t = D b,
//
// where L = -D G = K / (hx hy) is the five-point Laplacian on the interior
// vertices with zero boundary values (K, the P1 stiffness, has no coupling
// along the diagonal edges of right triangles). That is the finite-difference
// operator -Lap_h + r2 / r3 of gpur::MakeSecondDifferenceAxis (Dirichlet ends)
// applied to t with the right-hand side D b / r3: uniform Dirichlet axes,
// which PSCRSolver diagonalises with fast sine transforms. (Built from the
// spacings, not from mesh nodes: node differences carry rounding of about n
// ulps, which would hide the uniformity the fast path detects to 8 ulps.) The
// same discrete system as CG, solved to rounding in two FFT passes per axis.
#ifndef gpurL1MCSub2_h
#define gpurL1MCSub2_h

#include "gpurL1MCStepper.h"
#include "gpurPSCRSolver.h"

#include <memory>

namespace gpur
{
namespace l1mc
{

/**
 * The solver of (r2 I + r3 L) t = D b above on the (nx - 2)(ny - 2) interior
 * vertices (x fastest, index (y - 1)(nx - 2) + x - 1), on `backend`, with its
 * right-hand side scaled by Sub2RhsScale.
 */
template<typename Real>
std::unique_ptr<PSCRSolver<Real>>
MakeSub2Solver(const Constants & constants, const ResolvedBackend & backend, const ExecutionOptions & execution);

/** 1 / r3: the factor of D b in the solver's right-hand side. */
inline double
Sub2RhsScale(const Constants & constants)
{
  return 1.0 / constants.r3;
}

/** The options of the PSCR solvers of Sub #2 and Sub #4 on `backend`. */
PSCROptions
SubproblemSolverOptions(const ResolvedBackend & backend, const ExecutionOptions & execution);

} // namespace l1mc
} // namespace gpur

#endif
