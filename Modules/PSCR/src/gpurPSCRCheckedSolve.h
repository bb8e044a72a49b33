// SPDX-License-Identifier: Apache-2.0
// A checked PSCR solve, the same on both backends (internal; see "Accuracy"
// in gpurPSCRSolver.h): the solve in the scalar type and its refinement, and
// for float data, when that falls short, the solve in double rounded to float.
// The backends provide the steps (an Exec):
//   double Prepare()                                  keeps f for the residuals (projected for singular
//                                                     operators) and returns |e^T f| / (|e| |f|)
//   RefinementOutcome Solve(const RefinementSettings &)      u from f in the scalar type, refined
//   RefinementOutcome SolveWide(const RefinementSettings &)  the same in double, u rounded (float data only)
//   RefinementOutcome Check(const RefinementSettings &)      the residual of u as it is
#ifndef gpurPSCRCheckedSolve_h
#define gpurPSCRCheckedSolve_h

#include "gpurError.h"
#include "gpurPSCRResidual.h"

#include <atomic>
#include <cstdio>
#include <string>

namespace gpur
{
namespace pscr
{

/** The settings of a PSCRSolver that a checked solve needs. */
struct CheckedSolveSettings
{
  unsigned maxSteps = 0;
  double tolerance = 0;
  PSCRPrecision precision = PSCRPrecision::Automatic;
};

/**
 * The automatic residual target as a multiple of the rounding floor. Float
 * data: 8, so that every float result lands within 10x its floor (float
 * solves of definite operators land at 1-6x, so they need no refinement).
 * Double data: 32; unrefined double solves of definite operators land at
 * 2-17x their floor (measured on 2D and 3D Dirichlet and Neumann problems up
 * to 2047^2 with spacings up to 3:1; the residual's own evaluation in double
 * rounds at the floor's level), and a refinement step for them would double
 * the solve time to gain at most 1.2 digits.
 */
inline double
AutomaticTargetFactor(bool floatData)
{
  return floatData ? 8 : 32;
}

inline std::string
Scientific(double v)
{
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", v);
  return text;
}

/** The NumericalError of a solve that missed its target, with what to change. */
template<typename Scalar>
[[noreturn]] void
ThrowShortOfTarget(const RefinementOutcome & out, bool inDouble, const CheckedSolveSettings & s)
{
  const bool narrow = !std::is_same<Scalar, WideScalar<Scalar>>::value;
  const std::string type = narrow ? (inDouble ? "float data solved in double" : "float") : "double";
  std::string what = "PSCR solve (" + type + ") ";
  if (!std::isfinite(out.relativeResidual))
  {
    what += "produced non-finite values: a shifted subproblem of the reduction is singular in this precision";
  }
  else
  {
    what += "reached a relative residual ||f - A u|| / ||f|| of " + Scientific(out.relativeResidual) + " after " +
            std::to_string(out.steps) + " refinement steps, above its target " + Scientific(out.target) +
            (s.tolerance > 0 ? " (PSCROptions::residualTolerance)"
                             : " (" + Scientific(AutomaticTargetFactor(narrow)) + " x the rounding floor)");
  }
  what += "; the rounding floor of the result is " + Scientific(out.floor) + ". ";
  if (s.tolerance > 0 && s.tolerance < out.floor)
    what += "The tolerance is below what the result's precision can represent: raise residualTolerance above the floor";
  else if (narrow && s.precision == PSCRPrecision::Scalar)
    what += "Float arithmetic cannot solve this operator accurately: use PSCRPrecision::Automatic or Double, or "
            "double data";
  else
    what += "The operator, or a shifted subproblem of its reduction, is too close to singular for PSCR: move the "
            "shift c away from the operator's eigenvalues (c + lambda_x + lambda_y (+ lambda_z) = 0), or allow "
            "more refinement steps";
  throw NumericalError(what);
}

template<typename Scalar, typename Exec>
PSCRSolveReport
CheckedSolve(Exec & exec, const CheckedSolveSettings & s, std::atomic<bool> & inDouble)
{
  constexpr bool narrow = !std::is_same<Scalar, WideScalar<Scalar>>::value;
  PSCRSolveReport report;
  report.incompatibility = exec.Prepare();
  RefinementSettings settings;
  settings.maxSteps = s.maxSteps;
  settings.tolerance = s.tolerance;
  settings.targetFactor = AutomaticTargetFactor(narrow);
  // Double data: the residual is evaluated in the floor's own precision.
  settings.evaluationNoise = !narrow;
  auto finish = [&](const RefinementOutcome & out, unsigned steps, bool wide)
  {
    report.relativeResidual = out.relativeResidual;
    report.residualTarget = out.target;
    report.roundingFloor = out.floor;
    report.refinementSteps = steps;
    report.computedInDouble = wide;
    return report;
  };
  unsigned steps = 0;
  if (!narrow || !(s.precision == PSCRPrecision::Double || inDouble.load()))
  {
    RefinementOutcome out = exec.Solve(settings);
    if (out.reached)
      return finish(out, out.steps, false);
    // A tolerance below the floor cannot be met by any result in this type,
    // however it is computed: no solve in double for it.
    const bool belowFloor = s.tolerance > 0 && s.tolerance < out.floor;
    if (!narrow || s.precision == PSCRPrecision::Scalar || belowFloor)
      ThrowShortOfTarget<Scalar>(out, false, s);
    steps = out.steps;
  }
  if constexpr (narrow)
  {
    // In double, refine until u's error is well below the float floor, so
    // that rounding u to float is what remains.
    RefinementSettings wide = settings;
    wide.targetFactor = 0.25;
    wide.floorCap = 0.25;
    wide.tolerance = 0.25 * s.tolerance;
    steps += exec.SolveWide(wide).steps;
    settings.maxSteps = 0;
    RefinementOutcome out = exec.Check(settings);
    out.steps = steps; // the report and the message count every step taken
    if (!out.reached)
      ThrowShortOfTarget<Scalar>(out, true, s);
    if (s.precision == PSCRPrecision::Automatic)
      inDouble = true; // the operator needs double: later solves go there directly
    return finish(out, steps, true);
  }
  return report; // not reached: double data return or throw above
}

} // namespace pscr
} // namespace gpur

#endif
