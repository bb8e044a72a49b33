// SPDX-License-Identifier: Apache-2.0
// Progress of an engine run, for any way a run is measured: iterations,
// outer/inner iterations, or simulated time.
#ifndef gpurProgress_h
#define gpurProgress_h

#include <functional>
#include <string>

namespace gpur
{

/** Where a run stands: the fraction done and what a person reads. */
struct Progress
{
  /** Fraction of the whole run, in [0, 1] (a run may end early, below 1). */
  double fraction = 0.0;
  /**
   * Steps done and planned for runs counted in steps (iterations), else 0;
   * what bindings that report (done, maximum) pass on.
   */
  unsigned done = 0;
  unsigned maximum = 0; ///< steps planned (see done)
  /** E.g. "iteration 12 of 500", "outer iteration 3 of 10, inner 40", "t = 0.25 of 1". */
  std::string message;
};

/** Called as a run advances; return false to abort it (the engine throws gpur::Aborted). */
using ProgressCallback = std::function<bool(const Progress &)>;

/** The progress of a run counted in iterations: `done` of `maximum`. */
Progress
IterationProgress(unsigned done, unsigned maximum);

/** The progress of a run measured in simulated time: t of [t0, t1]. */
Progress
TimeProgress(double t, double t0, double t1);

/**
 * The progress of outer iteration `outer` (1-based) of at most `outerMaximum`
 * while its inner run stands at `inner`: the fraction counts the outer
 * iterations done plus the inner run's fraction of the current one; done and
 * maximum are the inner run's. The message reads "<outerName> 2 of at most 8:
 * <inner message>".
 */
Progress
NestedProgress(const std::string & outerName, unsigned outer, unsigned outerMaximum, const Progress & inner);

/** A callback for the inner runs of outer iteration outer() that reports NestedProgress to `callback` (null: null). */
ProgressCallback
NestedCallback(const ProgressCallback & callback,
               const std::string & outerName,
               std::function<unsigned()> outer,
               unsigned outerMaximum);

/**
 * Reports `progress` to the callback, if any, and throws gpur::Aborted when it
 * returns false: the one place where an engine's run stops on request.
 */
void
ReportProgress(const ProgressCallback & callback, const Progress & progress);

} // namespace gpur

#endif
