#include "gpurProgress.h"

#include "gpurError.h"

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

void
ReportProgress(const ProgressCallback & callback, const Progress & progress)
{
  if (callback && !callback(progress))
  {
    throw Aborted();
  }
}

} // namespace gpur
