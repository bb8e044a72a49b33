// SPDX-License-Identifier: Apache-2.0
// The run loop of every iterative engine, written once: steps, the stopping
// rule's verdict, progress and abort after every accepted step, rollback of
// rejected steps (adaptive methods), and the error path and timing of a run.
// A family supplies what one step does (StepLoop::step) and how far along the
// run is (StepLoop::progress); its schedule and stopping rule stay its own.
#ifndef gpurIterativeDriver_h
#define gpurIterativeDriver_h

#include "gpurProgress.h"

#include <functional>

namespace gpur
{

/** What became of a step. */
enum class StepVerdict
{
  Accepted, ///< taken; the run goes on
  Finished, ///< taken, and the stopping rule is met: the run ends after its progress
  Halted,   ///< not taken: the run ends where it is (e.g. a stationary point), without progress
  Rejected  ///< taken and rejected (e.g. an error estimate too large): the state returns to before it
};

/** The loop of one run. */
struct StepLoop
{
  /** Takes the next step; `accepted` steps were accepted before it. */
  std::function<StepVerdict(unsigned accepted)> step;
  /** Where the run stands after `accepted` steps (iterations, outer/inner iterations, simulated time). */
  std::function<Progress(unsigned accepted)> progress;
  /** The run ends after this many accepted steps (the schedule's length). */
  unsigned maximumSteps = 0;
  /**
   * For methods that reject steps: snapshot() keeps the state before each
   * step, restore() returns to it after a Rejected verdict. Both empty for
   * methods that never reject (a Rejected verdict is then an error).
   */
  std::function<void()> snapshot;
  std::function<void()> restore; ///< see snapshot
  /** Rejections in a row after which the run fails (the method cannot make progress). */
  unsigned maximumRejections = 64;
};

/** What a loop did. */
struct LoopOutcome
{
  unsigned steps = 0;      ///< accepted steps
  unsigned rejections = 0; ///< rejected steps in all
  bool finished = false;   ///< the stopping rule ended the run (Finished)
  bool halted = false;     ///< a step ended it without being taken (Halted)
};

/**
 * Runs the loop: step, then, for an accepted step, the progress callback
 * (ReportProgress: a false answer throws gpur::Aborted) until the stopping
 * rule, a halt or maximumSteps. Throws gpur::Error when more than
 * maximumRejections steps in a row are rejected.
 */
LoopOutcome
RunSteps(const StepLoop & loop, const ProgressCallback & callback);

/**
 * Runs an engine's body with the error path of every engine: OpenCL errors
 * become gpur::OpenCLError / gpur::BuildError with their named codes (the
 * engine's own errors and gpur::Aborted pass through). Returns the wall time
 * in seconds (the reports' `seconds`).
 */
double
TimedRun(const std::function<void()> & body);

} // namespace gpur

#endif
