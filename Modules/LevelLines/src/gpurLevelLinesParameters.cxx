// SPDX-License-Identifier: Apache-2.0
// The parameters of level-line denoising (gpurLevelLines.h): names, parsing,
// validation, and the radius of an output pixel's neighbourhood.
#include "gpurLevelLines.h"

#include "gpurText.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gpur
{

const char *
ToString(LevelLinesMode mode)
{
  return mode == LevelLinesMode::Hybrid ? "Hybrid" : "PIPD";
}

const char *
ToString(LevelLinesTest test)
{
  return test == LevelLinesTest::SeparateVariances ? "SeparateVariances" : "Pooled";
}

const char *
ToString(LevelLinesTurnBack turnBack)
{
  return turnBack == LevelLinesTurnBack::Stop ? "Stop" : "Flip";
}

LevelLinesMode
ParseLevelLinesMode(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "pipd")
    return LevelLinesMode::PIPD;
  if (lower == "hybrid")
    return LevelLinesMode::Hybrid;
  throw InvalidArgument("unknown level-line mode '" + text + "'; use pipd or hybrid");
}

LevelLinesTest
ParseLevelLinesTest(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "pooled")
    return LevelLinesTest::Pooled;
  if (lower == "separate" || lower == "separatevariances")
    return LevelLinesTest::SeparateVariances;
  throw InvalidArgument("unknown level-line test '" + text + "'; use pooled or separate");
}

LevelLinesTurnBack
ParseLevelLinesTurnBack(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "flip")
    return LevelLinesTurnBack::Flip;
  if (lower == "stop")
    return LevelLinesTurnBack::Stop;
  throw InvalidArgument("unknown level-line turn-back rule '" + text + "'; use flip or stop");
}

namespace
{

[[noreturn]] void
Reject(const char * name, double value, const char * allowed)
{
  std::ostringstream message;
  message << "level lines: " << name << " is " << value << "; it must be " << allowed;
  throw InvalidArgument(message.str());
}

} // namespace

void
LevelLinesParameters::Validate() const
{
  if (segmentLength < 2 || segmentLength > 12)
    Reject("segmentLength", segmentLength, "2 to 12 pixels");
  if (maximumLength < segmentLength || maximumLength > 64)
    Reject("maximumLength", maximumLength, "at least segmentLength and at most 64 pixels");
  if (!std::isfinite(lengtheningThreshold) || !(lengtheningThreshold > 0.0))
    Reject("lengtheningThreshold (T_max)", lengtheningThreshold, "finite and > 0");
  if (!std::isfinite(edgeThreshold) || !(edgeThreshold > 0.0))
    Reject("edgeThreshold (T2_max)", edgeThreshold, "finite and > 0");
  if (!std::isfinite(varianceFloor) || !(varianceFloor > 0.0) || varianceFloor > 4.0)
    Reject("varianceFloor", varianceFloor, "in (0, 4] (a multiple of the noise variance)");
  if (!std::isfinite(noiseSigma) || noiseSigma < 0.0)
    Reject("noiseSigma", noiseSigma, "finite and >= 0 (0: estimated from the image)");
  if (mode != LevelLinesMode::PIPD && mode != LevelLinesMode::Hybrid)
    throw InvalidArgument("level lines: unknown mode; use PIPD or Hybrid");
  if (test != LevelLinesTest::Pooled && test != LevelLinesTest::SeparateVariances)
    throw InvalidArgument("level lines: unknown test; use Pooled or SeparateVariances");
  if (turnBack != LevelLinesTurnBack::Flip && turnBack != LevelLinesTurnBack::Stop)
    throw InvalidArgument("level lines: unknown turn-back rule; use Flip or Stop");
}

unsigned
LevelLinesRadius(const LevelLinesParameters & parameters)
{
  // An arm reads stage 1's result at the ends of its first K - 1 segments, at
  // most (K - 1) l pixels away, and stage 1 there reads a pattern l (+1 when
  // thick) further: K l (+1) <= n (+1), with K = n / l. The hybrid test reads
  // rays of l pixels.
  return std::max(parameters.maximumLength + (parameters.thick ? 1u : 0u), parameters.segmentLength);
}

} // namespace gpur
