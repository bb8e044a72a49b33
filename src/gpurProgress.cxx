// SPDX-License-Identifier: Apache-2.0
#include "gpurProgress.h"

#include "gpurError.h"

#include <algorithm>
#include <sstream>

namespace gpur
{

Progress
IterationProgress(unsigned done, unsigned maximum)
{
  Progress p;
  p.done = done;
  p.maximum = maximum;
  p.fraction = maximum > 0 ? static_cast<double>(done) / maximum : 1.0;
  p.message = "iteration " + std::to_string(done) + " of " + std::to_string(maximum);
  return p;
}

Progress
TimeProgress(double t, double t0, double t1)
{
  Progress p;
  p.fraction = t1 > t0 ? std::min(1.0, std::max(0.0, (t - t0) / (t1 - t0))) : 1.0;
  std::ostringstream message;
  message << "t = " << t << " of " << t1;
  p.message = message.str();
  return p;
}

Progress
NestedProgress(const std::string & outerName, unsigned outer, unsigned outerMaximum, const Progress & inner)
{
  Progress p = inner;
  const double done = outer > 0 ? outer - 1 : 0;
  p.fraction = outerMaximum > 0 ? std::min(1.0, (done + inner.fraction) / outerMaximum) : inner.fraction;
  p.message =
    outerName + " " + std::to_string(outer) + " of at most " + std::to_string(outerMaximum) + ": " + inner.message;
  return p;
}

ProgressCallback
NestedCallback(const ProgressCallback & callback,
               const std::string & outerName,
               std::function<unsigned()> outer,
               unsigned outerMaximum)
{
  if (!callback)
    return callback;
  return [=](const Progress & inner) { return callback(NestedProgress(outerName, outer(), outerMaximum, inner)); };
}

void
ReportProgress(const ProgressCallback & callback, const Progress & progress)
{
  if (callback && !callback(progress))
  {
    throw Aborted();
  }
}

} // namespace gpur
