// SPDX-License-Identifier: Apache-2.0
// One outer iteration of [Myllykoski2015a, Algorithm 1] behind an interface
// with a CPU reference (gpurL1MCStepperCPU.cxx) and an OpenCL backend
// (gpurL1MCStepperOpenCL.cxx), and the sums from which the driver
// (gpurL1MeanCurvature.cxx) forms L_rh, J_h and R1-R3.
#ifndef gpurL1MCStepper_h
#define gpurL1MCStepper_h

#include "gpurExecution.h"
#include "gpurL1MCMesh.h"
#include "gpurL1MeanCurvature.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace gpur
{
namespace l1mc
{

/** Everything a backend needs besides the data (normalised units). */
struct Constants
{
  Mesh mesh;
  double epsilon = 0.0, r1 = 0.0, r2 = 0.0, r3 = 0.0;
  /** eta of [Myllykoski2015a, Algorithm 2]: the bisection's intervals [4^{k-1}, 4^k], k = 1..eta. */
  int eta = 1;
  /** Sub #2: stop at ||b - A p3|| <= cgTolerance ||b||, or after cgMaxIterations steps. */
  double cgTolerance = 1e-10;
  unsigned cgMaxIterations = 100;
  L1MCCornerMass cornerMass = L1MCCornerMass::Exact;
  L1MCSub2Solver sub2Solver = L1MCSub2Solver::Direct;
  L1MCInitialization initialization = L1MCInitialization::Zero;
};

/**
 * The reductions of one state, in double; the driver combines them:
 *   L_rh = eps psiMass + fidelity + penaltyQ + penaltyV  [Myllykoski2015a, eq. (3.15)]
 *   J_h  = eps curvatureMass + fidelity.
 */
struct Sums
{
  double psiMass = 0.0;       ///< sum_interior m |psi|
  double fidelity = 0.0;      ///< 1/2 sum_all m (f - u)^2
  double penaltyQ = 0.0;      ///< sum_T |T| [r1/2 |grad u - p1|^2 + l1.(grad u - p1) + r2/2 |p2 - p3|^2 + l2.(p2 - p3)]
  double penaltyV = 0.0;      ///< sum_interior m [r3/2 (div p3 - psi)^2 + l3 (div p3 - psi)]
  double curvatureMass = 0.0; ///< sum_interior m |div_h(grad u / sqrt(1 + |grad u|^2))|
  /** Squared norms for R1-R3 (unweighted sums over triangles; m-weighted over vertices). */
  double gradMinusP1 = 0.0, grad = 0.0, p1 = 0.0;
  double p2MinusP3 = 0.0, p2 = 0.0, p3 = 0.0;     ///< see gradMinusP1
  double divMinusPsi = 0.0, div = 0.0, psi = 0.0; ///< see gradMinusP1
  /** Counters of the iteration that led to the state. */
  double newtonAccepted = 0.0; ///< triangles where Newton's candidate was accepted
  unsigned cgIterations = 0;   ///< Sub #2 steps
  double cgResidual = 0.0;     ///< Sub #2's final relative residual
  double sub4Residual = 0.0;   ///< Sub #4's relative residual (the exact system)
};

/**
 * The most CG steps Sub #2 may take in an outer iteration after one that took
 * `previous`: a little more than last time (warm-started, CG needs about as
 * many steps from one outer iteration to the next: 26-33 on the images of the
 * tests), at least 16, at most cgMaxIterations. Both backends apply the same
 * rule, so they take the same steps; on OpenCL the budget is the number of
 * steps enqueued without a host read (the steps after convergence return at
 * once), which a fixed cap of cgMaxIterations would make several times larger.
 */
inline unsigned
CGBudget(const Constants & constants, unsigned previous)
{
  const unsigned wanted = previous + previous / 4 + 8;
  return wanted < 16 ? 16u : (wanted > constants.cgMaxIterations ? constants.cgMaxIterations : wanted);
}

/**
 * Sub #3 at one interior vertex [Myllykoski2015a, eqs. (3.27)-(3.28)]: the
 * minimiser of eps |psi| + r3/2 (psi - X/r3)^2, psi = sgn(X) max(0, |X| - eps) / r3
 * (kernels/l1mc_sub.cl computes the same).
 */
template<typename Real>
inline Real
ShrinkPsi(Real X, Real epsilon, Real r3)
{
  const Real shrunk = std::max(Real(0), std::abs(X) - epsilon) / r3;
  return X < 0 ? -shrunk : shrunk;
}

/** Number of triangles: 2 (nx - 1)(ny - 1). */
inline double
TriangleCount(const Mesh & mesh)
{
  return 2.0 * double(mesh.nx - 1) * double(mesh.ny - 1);
}

/** A backend: the state of the iteration and its steps. */
template<typename Real>
class Stepper
{
public:
  virtual ~Stepper() = default;
  /** Sets the starting point (constants.initialization) and returns its sums. */
  virtual Sums
  Initialize() = 0;
  /** One outer iteration (Subs #1-#4, the multipliers) and the sums of the new state. */
  virtual Sums
  Iterate() = 0;
  /** Copies u (normalised units) to the host. */
  virtual void
  Store(Real * u) const = 0;
  /** Seconds per subproblem so far. */
  virtual L1MCTimings
  Timings() const = 0;
};

/** The CPU reference on f (Count() values, normalised). */
template<typename Real>
std::unique_ptr<Stepper<Real>>
MakeStepperCPU(const Real * f, const Constants & constants, const ExecutionOptions & execution);

/** The OpenCL backend on `backend.device`. */
template<typename Real>
std::unique_ptr<Stepper<Real>>
MakeStepperOpenCL(const Real * f,
                  const Constants & constants,
                  const ResolvedBackend & backend,
                  const ExecutionOptions & execution);

} // namespace l1mc
} // namespace gpur

#endif
