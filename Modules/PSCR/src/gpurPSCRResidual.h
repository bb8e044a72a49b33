// SPDX-License-Identifier: Apache-2.0
// How a PSCR solve checks itself (internal; see "Accuracy" in
// gpurPSCRSolver.h): the residual r = f - A u evaluated in double, the
// rounding floor it is compared with, and the refinement loop that drives
// both backends.
//
// The rounding floor is the residual that the exact solution u* already has
// once it is rounded to the type the caller receives: A (fl(u*) - u*). With
// round-to-nearest, the error of each entry is uniform in +-ulp(u_j) / 2, so
// E ||A (fl(u*) - u*)||^2 = sum_j ||A e_j||^2 ulp(u_j)^2 / 12 (independent
// errors), evaluated at the computed u. The column norms ||A e_j|| of a
// separable operator come from per-axis tables (ColumnGram): with
// A = sum_t (x)_d F_{t,d}, F_{t,d} = S_d on axis t and M_d elsewhere
// (S_d = A_d, plus c M_d on the slowest axis),
//   ||A e_j||^2 = sum_{t,t'} prod_d <F_{t,d} e_{j_d}, F_{t',d} e_{j_d}>.
// Measured against the residual of a float-rounded reference solution, the
// estimate agrees to 3 digits on 2D and 3D Poisson and Helmholtz problems.
#ifndef gpurPSCRResidual_h
#define gpurPSCRResidual_h

#include "gpurPSCRPlan.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace gpur
{
namespace pscr
{

/** The double-precision scalar of the same kind: double or std::complex<double>. */
template<typename Scalar>
using WideScalar = std::conditional_t<IsComplex<Scalar>::value, std::complex<double>, double>;

/** Sums of one residual check, in double: ||r||^2, ||f||^2 and the floor's sum_j ||A e_j||^2 ulp(u_j)^2 / 12. */
struct ResidualSums
{
  double residual2 = 0;
  double rhs2 = 0;
  double floor2 = 0;
};

/** Inner products of column j of S_d and M_d of one axis: <S e_j, S e_j>, <M e_j, M e_j>, <S e_j, M e_j>. */
struct ColumnGram
{
  double ss = 0;
  double mm = 1;
  std::complex<double> sm = 0;
};

/** The tables of every axis (x first), the shift folded into the slowest axis. */
template<typename Scalar>
std::vector<std::vector<ColumnGram>>
MakeColumnGram(const std::vector<AxisFactors<Scalar>> & axes, Scalar shift);

/**
 * ||A e_j||^2 from the entries of the axes' indices of j (an absent z axis:
 * ColumnGram()): the three terms' squared norms plus twice the real parts of
 * their inner products, Re(a conj(b)) written out (as pscr_column_norm2 does).
 */
inline double
ColumnNorm2(const ColumnGram & x, const ColumnGram & y, const ColumnGram & z)
{
  auto re = [](const std::complex<double> & a, const std::complex<double> & b)
  { return a.real() * b.real() + a.imag() * b.imag(); };
  const double diagonal = x.ss * y.mm * z.mm + x.mm * y.ss * z.mm + x.mm * y.mm * z.ss;
  const double cross = re(x.sm, y.sm) * z.mm + re(x.sm, z.sm) * y.mm + re(y.sm, z.sm) * x.mm;
  return diagonal + 2 * cross;
}

/**
 * ulp(v)^2 / 12 for a value v rounded to the precision of T: the variance of
 * its rounding error (both parts of a complex).
 */
template<typename T, typename V>
double
RoundingVariance(const V & v)
{
  using Real = RealType<T>;
  // ulp(x) = 2^(e + 1 - digits) for 2^e <= |x| < 2^(e + 1): 2^e is |x| with
  // its mantissa bits cleared (no frexp/ldexp calls: this runs once per
  // unknown in every check). Zero and subnormal x give 0, whose share of a
  // sum over all unknowns is below its rounding.
  auto part = [](double x)
  {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof(bits));
    bits &= 0x7ff0000000000000ULL;
    double power = 0;
    std::memcpy(&power, &bits, sizeof(power));
    const double ulp = power * (2.0 / double(std::uint64_t(1) << std::numeric_limits<Real>::digits));
    return ulp * ulp / 12;
  };
  if constexpr (IsComplex<V>::value)
    return part(v.real()) + part(v.imag());
  else
    return part(static_cast<double>(v));
}

/**
 * r = rhs - A u on the CPU for the plan's operator, evaluated in double and
 * stored in Scalar (not stored when r is null: a check that needs no
 * correction), and the sums; the floor is for u rounded to Final (the type
 * the caller receives).
 */
template<typename Scalar, typename Final>
ResidualSums
ResidualOnCPU(const PSCRPlan<Scalar> & plan,
              const std::vector<std::vector<ColumnGram>> & gram,
              const Scalar * rhs,
              const Scalar * u,
              Scalar * r,
              const ParallelForFunction & loop);

/** How far a solve refines, and against what. */
struct RefinementSettings
{
  /** Most refinement steps. */
  unsigned maxSteps = 0;
  /** The relative residual to reach; 0: targetFactor x the rounding floor. */
  double tolerance = 0;
  /** The automatic target as a multiple of the floor (AutomaticTargetFactor in gpurPSCRCheckedSolve.h). */
  double targetFactor = 8;
  /** With a tolerance: the target is at most floorCap x the floor (the double solve of float data). */
  double floorCap = HUGE_VAL;
  /**
   * True when the residual is evaluated in the precision of the floor (double
   * data): its own rounding, about as large as the floor, then counts too.
   */
  bool evaluationNoise = false;
};

/** What a refinement loop reached (relative to ||f||). */
struct RefinementOutcome
{
  double relativeResidual = 0;
  double target = 0;
  double floor = 0;
  unsigned steps = 0;
  bool reached = false;
};

/**
 * One solve's checks and refinement steps, the same on both backends: the
 * solution is in place; residual() evaluates r = f - A u and returns the
 * sums; correct() solves A d = r and adds d to u. Refinement stops at the
 * target, after maxSteps, or as soon as it cannot get there: a first
 * residual of 100 % or more (the solve did not even get the size of u right,
 * so a correction computed the same way cannot help either), or a step that
 * did not halve the residual.
 */
template<typename Residual, typename Correct>
RefinementOutcome
Refine(const RefinementSettings & settings, Residual && residual, Correct && correct)
{
  RefinementOutcome out;
  double previous = 0;
  for (unsigned step = 0;; ++step)
  {
    const ResidualSums s = residual();
    out.steps = step;
    const double scale = s.rhs2 > 0 ? 1 / std::sqrt(s.rhs2) : 0;
    out.floor = std::sqrt(s.floor2 * (settings.evaluationNoise ? 2 : 1)) * scale;
    out.target = settings.tolerance > 0 ? std::min(settings.tolerance, settings.floorCap * out.floor)
                                        : settings.targetFactor * out.floor;
    out.relativeResidual = s.rhs2 > 0 ? std::sqrt(s.residual2) * scale : (s.residual2 > 0 ? HUGE_VAL : 0.0);
    if (!std::isfinite(s.residual2) || !std::isfinite(s.floor2))
    {
      out.relativeResidual = std::numeric_limits<double>::quiet_NaN();
      return out;
    }
    out.reached = out.relativeResidual <= out.target;
    if (out.reached || step == settings.maxSteps)
      return out;
    if (step == 0 ? out.relativeResidual >= 1 : out.relativeResidual > 0.5 * previous)
      return out;
    previous = out.relativeResidual;
    correct();
  }
}

} // namespace pscr
} // namespace gpur

#endif
