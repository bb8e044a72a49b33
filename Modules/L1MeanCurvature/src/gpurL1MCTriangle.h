// SPDX-License-Identifier: Apache-2.0
// Sub #1 of the L1-mean-curvature augmented Lagrangian on one triangle, for
// the CPU reference: the very functions of kernels/l1mc_newton.cl and
// kernels/l1mc_triangle.cl (Newton on
// [Myllykoski2015a, eq. (3.20)], Algorithm 2 on eq. (3.25), the choice (4.1)),
// compiled as C++ once per precision, so the CPU and OpenCL backends share one
// source. The settings below are what both backends pass to them.
#ifndef gpurL1MCTriangle_h
#define gpurL1MCTriangle_h

#include <cmath>
#include <type_traits>

namespace gpur
{

// The loop of l1mc_lanes_steps unrolled, so that the batch's loop over lanes around it (gpurL1MCTriangleBatch.cxx)
// is innermost, which is the loop GCC vectorises.
#if defined(__clang__)
#define L1MC_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define L1MC_UNROLL _Pragma("GCC unroll 8")
#endif

/** The .cl functions on float (l1mc_float) and on double (l1mc_double). */
namespace l1mc_float
{
using std::ceil;
using std::fabs;
using std::fmax;
using std::fmin;
using std::log2;
using std::sqrt;
#define REAL float
#include "../kernels/l1mc_newton.cl"
#include "../kernels/l1mc_triangle.cl"
#undef REAL
} // namespace l1mc_float
namespace l1mc_double
{
using std::ceil;
using std::fabs;
using std::fmax;
using std::fmin;
using std::log2;
using std::sqrt;
#define REAL double
#include "../kernels/l1mc_newton.cl"
#include "../kernels/l1mc_triangle.cl"
#undef REAL
} // namespace l1mc_double
/** Newton steps per pass on lanes (L1MC_LANE_STEPS of l1mc_newton.cl, where the figures behind it are). */
constexpr int kL1MCLaneNewtonSteps = L1MC_LANE_STEPS;
#undef L1MC_HUGE
#undef L1MC_COLLINEARITY_TOLERANCE
#undef L1MC_BISECTION_CAP
#undef L1MC_MASK
#undef L1MC_ANY
#undef L1MC_UNROLL
#undef L1MC_LANE_STEPS

/**
 * The parameters of Sub #1 that the paper leaves open or derives from h
 * [Myllykoski2015a, §4.1, Algorithm 2]; both backends pass them to the .cl
 * functions as arguments.
 */
template<typename Real>
struct L1MCTriangleSettings
{
  /**
   * Newton stops when a step is below newtonTolerance * sqrt(2 (1 + |x|^2)),
   * between 1 and sqrt(2) times newtonTolerance * (1 + |x|) (compared
   * squared, so without a square root per step; l1mc_newton_converged). Newton
   * converges quadratically, so a tight tolerance costs about one step more
   * than a loose one; it sits a few orders above the rounding of the step
   * (float: ~1e-7 |x| times the Hessian's condition, which reaches ~1e2 on
   * images: 1e-5; double: 1e-10).
   */
  Real newtonTolerance = std::is_same<Real, float>::value ? Real(1e-5) : Real(1e-10);
  /**
   * At most this many Newton steps. From the previous p1 Newton needs 2-5;
   * a lane that has not converged after 10 is almost always cycling between
   * basins, and on a GPU every lane of a failing warp pays the cap.
   */
  int newtonIterations = 10;
  /** eta of Algorithm 2, ceil(log4(sqrt(2) / h)) (L1MCTriangleEta). */
  int eta = 5;
  /** The coarse accuracy of Algorithm 2, 1/10 [Myllykoski2015a, Algorithm 2]. */
  Real coarseTolerance = Real(0.1);
  /**
   * The requested accuracy sigma of Algorithm 2's refinement (the paper gives
   * none): an error d in the radius costs Psi'' d^2 / 2 in the objective, and
   * Psi'' <= r1 + r2 + |b2| stays below ~1 for the parameters of
   * [Myllykoski2015a, §5], so 1e-8 (double) puts the objective at rounding;
   * float cannot resolve radii finer than ~1e-5 anyway.
   */
  Real fineTolerance = std::is_same<Real, float>::value ? Real(1e-5) : Real(1e-8);
};

/**
 * eta = ceil(log4(sqrt(2) / h)) of [Myllykoski2015a, Algorithm 2] (the
 * rounding is lost in the typeset text; rounding up makes the bounded
 * intervals [4^{k-1}, 4^k] cover every gradient length sqrt(2) / h that an
 * image in [0, 1] can have, the paper's rationale). At least 1.
 */
inline int
L1MCTriangleEta(double h)
{
  const double eta = std::ceil(std::log(std::sqrt(2.0) / h) / std::log(4.0) - 1e-12);
  return eta < 1.0 ? 1 : static_cast<int>(eta);
}

/** The new p1 of one triangle and whether Newton's candidate was accepted. */
template<typename Real>
struct L1MCTriangleResult
{
  Real x = 0;
  Real y = 0;
  bool newtonAccepted = false;
};

namespace l1mc_detail
{
inline l1mc_float::L1MCVec
Vec(float x, float y)
{
  return l1mc_float::l1mc_vec(x, y);
}
inline l1mc_double::L1MCVec
Vec(double x, double y)
{
  return l1mc_double::l1mc_vec(x, y);
}
// The .cl functions by overloading on the vector type.
using l1mc_double::l1mc_fallback;
using l1mc_double::l1mc_lanes_outcome;
using l1mc_double::l1mc_lanes_steps;
using l1mc_double::l1mc_phi;
using l1mc_double::l1mc_psi;
using l1mc_double::l1mc_solve;
using l1mc_float::l1mc_fallback;
using l1mc_float::l1mc_lanes_outcome;
using l1mc_float::l1mc_lanes_steps;
using l1mc_float::l1mc_phi;
using l1mc_float::l1mc_psi;
using l1mc_float::l1mc_solve;
} // namespace l1mc_detail

/**
 * Sub #1 on one triangle [Myllykoski2015a, §4.1]: p1 minimising Phi of eq.
 * (3.20) for b1 = r1 grad u + lambda1 and b2 = r2 p3 - lambda2, starting from
 * the previous p1 (Newton, else Algorithm 2, then the choice (4.1)).
 */
template<typename Real>
inline L1MCTriangleResult<Real>
SolveL1MCTriangle(Real b1x,
                  Real b1y,
                  Real b2x,
                  Real b2y,
                  Real previousX,
                  Real previousY,
                  Real r1,
                  Real r2,
                  const L1MCTriangleSettings<Real> & settings)
{
  using l1mc_detail::Vec;
  const auto n = l1mc_detail::l1mc_solve(Vec(b1x, b1y),
                                         Vec(b2x, b2y),
                                         Vec(previousX, previousY),
                                         r1,
                                         r2,
                                         settings.newtonTolerance,
                                         settings.newtonIterations,
                                         settings.eta,
                                         settings.coarseTolerance,
                                         settings.fineTolerance);
  L1MCTriangleResult<Real> result;
  result.x = n.p.x;
  result.y = n.p.y;
  result.newtonAccepted = n.accepted != 0;
  return result;
}

/** Phi(y) of [Myllykoski2015a, eq. (3.20)], the objective of Sub #1 on a triangle. */
template<typename Real>
inline Real
L1MCTrianglePhi(Real yx, Real yy, Real b1x, Real b1y, Real b2x, Real b2y, Real r1, Real r2)
{
  using l1mc_detail::Vec;
  return l1mc_detail::l1mc_phi(Vec(yx, yy), Vec(b1x, b1y), Vec(b2x, b2y), r1, r2);
}

/** Psi(s) of [Myllykoski2015a, eq. (3.25)]: min over s >= 0 of Psi equals min of Phi. */
template<typename Real>
inline Real
L1MCTrianglePsi(Real s, Real b1x, Real b1y, Real b2x, Real b2y, Real r1, Real r2)
{
  using l1mc_detail::Vec;
  return l1mc_detail::l1mc_psi(s, Vec(b1x, b1y), Vec(b2x, b2y), r1, r2);
}

} // namespace gpur

#endif
