// SPDX-License-Identifier: Apache-2.0
// The fast-transform path of PSCRSolver (internal; see "Fast transforms" in
// gpurPSCRSolver.h). An axis whose factors are those of the second
// difference on a uniform grid,
//
//   M = m I,  A = w tridiag(-1, 2, -1) with end rows 2w (Dirichlet) or w
//   (the reflecting Neumann condition of gpurSeparableProblems.h),
//
// has the eigenvectors of a fast trigonometric transform: the DST-I for
// Dirichlet at both ends, the DCT-II for Neumann at both ends, with the
// generalised eigenvalues lambda_k = 4 (w / m) sin^2(theta_k / 2), theta_k =
// pi (k + 1) / (n + 1) and pi k / n [Strang1999]. Transforming those axes turns the operator into independent
// problems over the remaining axes, one per transform mode k (a multi-index),
//
//   prod_t m_t (A_R + (c + sum_t lambda_{t,k_t}) M_R) u_k = f_k,
//
// the same shifted problems of one dimension less that PSCR's partial
// solutions are ([Myllykoski2018, eqs. (2.5)-(2.6)]): with no axis left a
// division, with one a tridiagonal solve, with two a 2D PSCR solve. (A
// Dirichlet-Neumann axis has the DST-VII's eigenvectors, which FFTW does
// not provide: it stays with PSCR, as do non-uniform and finite-element
// mass-matrix axes.)
#ifndef gpurPSCRFastTransforms_h
#define gpurPSCRFastTransforms_h

#include "gpurParallel.h"
#include "gpurSeparableOperator.h"
#include "gpurTrigTransform.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpur
{

/** What the fast path knows of one axis. */
struct TrigAxis
{
  /** The forward transform (DST1 or DCT2), or None: the axis stays with PSCR. */
  TrigTransformKind kind = TrigTransformKind::None;
  /** The diagonal m of M = m I. */
  double mass = 1;
  /** lambda_k of A v = lambda M v in the transform's mode order. */
  std::vector<double> eigenvalues;
};

/**
 * The axis' transform, when its factors are those above to within a few ulps
 * (relative to w), else kind None.
 */
TrigAxis
DetectTrigAxis(const AxisFactors<double> & axis);

/**
 * Points of the real FFT behind an axis' transform of n points: the odd
 * extension (DST-I, 2(n + 1)) or the even one (DCT-II, 2n).
 */
std::size_t
TrigTransformFFTPoints(TrigTransformKind kind, std::size_t n);

/**
 * The axis as the fast path takes it: DetectTrigAxis, but kind None when the
 * FFT length has a prime factor above kFastTransformLargestPrime (see
 * "Fast transforms" in gpurPSCRSolver.h).
 */
TrigAxis
FastTransformAxis(const AxisFactors<double> & axis);

/**
 * The largest prime factor of an FFT length the fast path accepts: FFTW's and
 * VkFFT's radix kernels cover 2 to 13; a larger factor falls to their generic
 * prime algorithms (Rader, Bluestein), measured 1.6-120x slower than PSCR on
 * the same axis (pscr_bench: n = 510, FFT 1022 = 2 7 73; n = 382, FFT 766 = 2 383).
 */
constexpr std::size_t kFastTransformLargestPrime = 13;

/**
 * The path's description, the same on every backend: e.g. "fast transforms
 * (x: DST-I, y: DST-I)", "fast transforms (z: DCT-II) + tridiagonal (y)" or
 * "fast transforms (z: DST-I) + PSCR (x, y)".
 */
std::string
FastTransformDescription(const std::vector<TrigAxis> & trig);

/**
 * Solves the shifted problem of the remaining axes in place on a contiguous
 * array (their values, x fastest): (A_R + shift M_R) x = x, or, for
 * `singularPath`, one solution of the singular one (its right-hand side is
 * compatible); one such function per thread.
 */
template<typename Scalar>
using RemainderSolve = std::function<void(Scalar shift, Scalar * x, bool singularPath)>;

/** Makes a RemainderSolve with its own workspace. */
template<typename Scalar>
using RemainderFactory = std::function<RemainderSolve<Scalar>()>;

/**
 * u <- A^-1 u for a real operator with at least one transform axis. The
 * transforms run in Scalar (FFTW in float or double), the divisions in double.
 */
template<typename Scalar>
class FastTransformSolver
{
public:
  /**
   * axes: the operator's axes (x first) and their TrigAxis; shift: c.
   * remainder: solves the problem of the axes whose kind is None (not called
   * when every axis is transformed). singularMode: the operator is singular
   * with the constant null vector on the transformed axes (Neumann, c = 0):
   * mode 0 of those axes is singular (zeroed when no axis remains).
   */
  FastTransformSolver(const std::vector<std::size_t> & shape,
                      const std::vector<TrigAxis> & trig,
                      double shift,
                      RemainderFactory<Scalar> remainder,
                      bool singularMode);

  /** u <- A^-1 u in place (a singular operator's u orthogonal to its null vector, see above). */
  void
  Solve(Scalar * u, const ParallelForFunction & loop) const;

  /** E.g. "fast transforms (x: DST-I, y: DST-I)" or "fast transforms (z: DCT-II) + PSCR (x, y)". */
  const std::string &
  Description() const
  {
    return m_Description;
  }

private:
  std::vector<std::size_t> m_Shape;
  std::vector<TrigAxis> m_Trig;
  double m_Shift = 0;
  RemainderFactory<Scalar> m_Remainder;
  bool m_SingularMode = false;
  std::unique_ptr<TrigTransformPlan<Scalar>> m_Forward, m_Inverse;
  /** 1 / (prod_t m_t * prod_t round-trip scale): folds the normalisation into the solve. */
  double m_Scale = 1;
  std::string m_Description;
};

extern template class FastTransformSolver<float>;
extern template class FastTransformSolver<double>;

} // namespace gpur

#endif
