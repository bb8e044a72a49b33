// SPDX-License-Identifier: Apache-2.0
// Driver of the level-line engine (gpurLevelLines.h): input checks, the
// noise level and variance floor, the backend, and the report.
#include "gpurLevelLines.h"

#include "gpurAutoBackend.h"
#include "gpurLevelLinesEngine.h"
#include "gpurNoiseEstimation.h"
#include "gpurStopwatch.h"
#include "gpurValidate.h"

#include <algorithm>
#include <sstream>

namespace gpur
{
namespace levellines
{

void
ReportFrames(const ProgressCallback & progress, std::size_t done, std::size_t frames)
{
  Progress p;
  p.fraction = double(done) / double(frames);
  p.done = unsigned(done);
  p.maximum = unsigned(frames);
  p.message = "frame " + std::to_string(done) + " of " + std::to_string(frames);
  ReportProgress(progress, p);
}

} // namespace levellines

namespace
{

/** Throws InvalidArgument unless the grid is a 2D image or a stack of 2D frames of at least 2 x 2 pixels. */
void
ValidateGrid(const Grid & grid)
{
  if (grid.dimension != 2 && grid.dimension != 3)
  {
    throw InvalidArgument("level lines: the grid must be 2D (an image) or 3D (a stack of frames); its dimension is " +
                          std::to_string(grid.dimension));
  }
  if (grid.size[0] < 2 || grid.size[1] < 2)
  {
    throw InvalidArgument("level lines: each frame must be at least 2 x 2 pixels; the grid is " + grid.ToString());
  }
  grid.Validate();
}

/** The median of the frames' noise estimates [Immerkaer1996] (a 2D estimate per frame). */
double
EstimateSigma(const float * f, const Grid & grid, const ParallelForFunction & parallelFor)
{
  if (grid.size[0] < 3 || grid.size[1] < 3)
  {
    throw InvalidArgument("level lines: the noise level cannot be estimated on frames of fewer than 3 x 3 pixels "
                          "(the grid is " +
                          grid.ToString() + "); give noiseSigma");
  }
  const Grid frame = MakeGrid2D(grid.size[0], grid.size[1]);
  std::vector<double> estimates;
  for (std::size_t z = 0; z < grid.size[2]; ++z)
    estimates.push_back(EstimateNoiseSigma(f + z * frame.Count(), frame, NoiseEstimationOptions(), parallelFor));
  std::sort(estimates.begin(), estimates.end());
  const std::size_t half = estimates.size() / 2;
  return estimates.size() % 2 == 1 ? estimates[half] : 0.5 * (estimates[half - 1] + estimates[half]);
}

AutoProbe
MakeAutoProbe(const float * f, const Grid & grid, const levellines::Setup & setup, const ExecutionOptions & execution)
{
  AutoProbe probe;
  probe.family = "level lines";
  probe.precision = "float32";
  // The leading rows of the first frame (a few milliseconds a run on a CPU).
  Grid part = LeadingPart(MakeGrid2D(grid.size[0], grid.size[1]), kAutoProbeVoxels / 4);
  part.size[1] = std::min(grid.size[1], std::max<std::size_t>(part.size[1], 2));
  probe.grid = part;
  probe.prepare = [f, setup, execution, part](const ResolvedBackend & candidate)
  {
    auto u = std::make_shared<std::vector<float>>(part.Count());
    levellines::Frames frames;
    frames.f = f;
    frames.u = u->data();
    frames.nx = part.size[0];
    frames.ny = part.size[1];
    frames.nz = 1;
    std::shared_ptr<levellines::OpenCLFilter> opencl;
    if (candidate.backend == Backend::OpenCL)
      opencl = levellines::MakeOpenCLFilter(setup, candidate, execution);
    const ParallelForFunction parallelFor = ResolveParallelFor(execution.parallelFor);
    return [opencl, frames, u, setup, parallelFor](unsigned steps)
    {
      double seconds = 0.0;
      for (unsigned i = 0; i < steps; ++i)
      {
        if (opencl)
          opencl->Run(frames, ProgressCallback(), &seconds);
        else
          levellines::FilterCPU(setup, frames, parallelFor, ProgressCallback());
      }
    };
  };
  return probe;
}

double
Share(std::uint64_t part, std::uint64_t whole)
{
  return whole > 0 ? double(part) / double(whole) : 0.0;
}

} // namespace

LevelLinesReport
DenoiseLevelLines(const float * f,
                  float * u,
                  const Grid & grid,
                  const LevelLinesParameters & parameters,
                  const ExecutionOptions & execution,
                  const ProgressCallback & progress,
                  const LevelLinesMaps & maps)
{
  const Stopwatch clock;
  if (f == nullptr || u == nullptr)
    throw InvalidArgument("level lines: the input or output array is null");
  ValidateGrid(grid);
  parameters.Validate();
  const std::size_t n = grid.Count();
  RequireFinite(f, n, "the input image");
  if (f < u + n && u < f + n)
    throw InvalidArgument("level lines: the output array overlaps the input; give a separate output");

  LevelLinesReport report;
  report.frames = grid.size[2];
  const ParallelForFunction parallelFor = ResolveParallelFor(execution.parallelFor);
  report.sigmaEstimated = !(parameters.noiseSigma > 0.0);
  report.noiseSigma = report.sigmaEstimated ? EstimateSigma(f, grid, parallelFor) : parameters.noiseSigma;
  float floor = float(parameters.varianceFloor * report.noiseSigma * report.noiseSigma);
  if (!(report.noiseSigma > 0.0))
  {
    const auto range = std::minmax_element(f, f + n);
    const double span = double(*range.second) - double(*range.first);
    if (!(span > 0.0))
    {
      // Every level line of a constant image is the image: the result is the input.
      std::copy(f, f + n, u);
      report.warnings.push_back("the image is constant: the result is the input");
      report.backend.reason = "constant image: nothing to filter";
      report.meanLength = 1.0;
      report.seconds = clock.Seconds();
      return report;
    }
    // A noise-free image: a floor far below any grey-level difference, so
    // that only exactly constant segments are merged.
    floor = float(1e-12 * span * span);
    report.warnings.push_back("the noise level estimated from the image is 0 (a noise-free image?): lines are "
                              "lengthened only along exactly constant grey levels; give noiseSigma to smooth");
  }

  const levellines::Setup setup = levellines::MakeSetup(parameters, floor);
  report.backend = ResolveBackend(execution, false, MakeAutoProbe(f, grid, setup, execution));

  std::vector<float> result(n);
  std::vector<std::uint8_t> direction(maps.direction ? n : 0), pixelClass(maps.pixelClass ? n : 0);
  std::vector<std::uint16_t> length(maps.length ? n : 0);
  const bool hybrid = parameters.mode == LevelLinesMode::Hybrid;
  levellines::Frames frames;
  frames.f = f;
  frames.u = result.data();
  frames.direction = maps.direction ? direction.data() : nullptr;
  frames.length = maps.length ? length.data() : nullptr;
  frames.pixelClass = maps.pixelClass && hybrid ? pixelClass.data() : nullptr;
  frames.nx = grid.size[0];
  frames.ny = grid.size[1];
  frames.nz = grid.size[2];
  levellines::Counts counts;
  if (report.backend.backend == Backend::OpenCL)
  {
    counts =
      levellines::MakeOpenCLFilter(setup, report.backend, execution)->Run(frames, progress, &report.kernelSeconds);
  }
  else
  {
    const Stopwatch compute;
    counts = levellines::FilterCPU(setup, frames, parallelFor, progress);
    report.kernelSeconds = compute.Seconds();
  }

  std::uint64_t arms = 0;
  for (std::uint64_t c : counts.stops)
    arms += c;
  report.stoppedByTest = Share(counts.stops[0], arms);
  report.stoppedByTurnBack = Share(counts.stops[1], arms);
  report.stoppedByBorder = Share(counts.stops[2], arms);
  report.stoppedByLength = Share(counts.stops[3], arms);
  report.meanLength = double(counts.lengthSum) / double(n);
  if (hybrid)
  {
    for (std::size_t c = 0; c < 3; ++c)
      report.classShares[c] = Share(counts.classes[c], n);
  }
  std::copy(result.begin(), result.end(), u);
  if (maps.direction)
    std::copy(direction.begin(), direction.end(), maps.direction);
  if (maps.length)
    std::copy(length.begin(), length.end(), maps.length);
  if (maps.pixelClass && hybrid)
    std::copy(pixelClass.begin(), pixelClass.end(), maps.pixelClass);
  report.seconds = clock.Seconds();
  return report;
}

} // namespace gpur
