// SPDX-License-Identifier: Apache-2.0
#include "gpurIterativeDriver.h"

#include "gpurError.h"
#include "gpurOpenCL.h"
#include "gpurStopwatch.h"

namespace gpur
{

LoopOutcome
RunSteps(const StepLoop & loop, const ProgressCallback & callback)
{
  LoopOutcome outcome;
  unsigned inARow = 0;
  while (outcome.steps < loop.maximumSteps)
  {
    if (loop.snapshot)
      loop.snapshot();
    const StepVerdict verdict = loop.step(outcome.steps);
    if (verdict == StepVerdict::Halted)
    {
      outcome.halted = true;
      break;
    }
    if (verdict == StepVerdict::Rejected)
    {
      if (!loop.restore)
        throw Error("a step was rejected by a method that cannot roll back");
      loop.restore();
      ++outcome.rejections;
      if (++inARow > loop.maximumRejections)
        throw Error("the step was rejected " + std::to_string(inARow) +
                    " times in a row: the method cannot make progress from this state");
      continue;
    }
    inARow = 0;
    ++outcome.steps;
    ReportProgress(callback,
                   loop.progress ? loop.progress(outcome.steps) : IterationProgress(outcome.steps, loop.maximumSteps));
    if (verdict == StepVerdict::Finished)
    {
      outcome.finished = true;
      break;
    }
  }
  return outcome;
}

double
TimedRun(const std::function<void()> & body)
{
  const Stopwatch stopwatch;
  TranslateCLErrors(body);
  return stopwatch.Seconds();
}

} // namespace gpur
