// SPDX-License-Identifier: Apache-2.0
// What the driver of the level-line engine (gpurLevelLines.cxx) hands to its
// backends: the constants of a run, the frames, and the counts they return.
#ifndef gpurLevelLinesEngine_h
#define gpurLevelLinesEngine_h

#include "gpurExecution.h"
#include "gpurLevelLines.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace gpur
{
namespace levellines
{

/** The constants of a run, the same for every frame. */
struct Setup
{
  LevelLinesParameters parameters;
  int l = 5;          ///< segment length
  int m = 5;          ///< pixels of a pattern: l, or 3l when thick
  int segments = 5;   ///< segments per arm K = n / l (>= 1)
  int halo = 5;       ///< the farthest pattern pixel from its start, Chebyshev: l (+1 thick)
  float floor = 0.0f; ///< the variance floor in image units squared
  /**
   * bounds[k] = exp(T_max / N), N the pixels of a line of k segments plus m:
   * the pooled lengthening test without logarithms (ll_pooled_below); 2K + 1 values.
   */
  std::vector<float> bounds;
  float edgeBound = 1.0f; ///< exp(T2_max / (8l + 1)): the hybrid edge test without logarithms
  /** D * m pattern offsets (di, dj), direction after direction, then the D thin end offsets p_{l,d}[l-1]. */
  std::vector<int> table;
};

/** The setup of `parameters` with the absolute variance floor. */
Setup
MakeSetup(const LevelLinesParameters & parameters, float floor);

/** The frames of a run: nz frames of nx x ny, x fastest; the maps may be null. */
struct Frames
{
  const float * f = nullptr;
  float * u = nullptr;
  std::uint8_t * direction = nullptr;
  std::uint16_t * length = nullptr;
  std::uint8_t * pixelClass = nullptr;
  std::size_t nx = 0, ny = 0, nz = 0;
};

/** What a run counted, summed over its frames. */
struct Counts
{
  std::array<std::uint64_t, 4> stops{ { 0, 0, 0, 0 } }; ///< indexed by LL_STOP_*
  std::uint64_t lengthSum = 0;                          ///< pixels averaged, over all output pixels
  std::array<std::uint64_t, 3> classes{ { 0, 0, 0 } };  ///< hybrid classes

  /** Adds another part's counts. */
  void
  Add(const Counts & other)
  {
    for (std::size_t r = 0; r < stops.size(); ++r)
      stops[r] += other.stops[r];
    for (std::size_t c = 0; c < classes.size(); ++c)
      classes[c] += other.classes[c];
    lengthSum += other.lengthSum;
  }
};

/** Progress after `done` of `frames` frames (throws Aborted when the callback says stop). */
void
ReportFrames(const ProgressCallback & progress, std::size_t done, std::size_t frames);

/** The CPU reference: every frame, on the parallel loop; returns the counts. */
Counts
FilterCPU(const Setup & setup,
          const Frames & frames,
          const ParallelForFunction & parallelFor,
          const ProgressCallback & progress);

/** The OpenCL backend on one device, its programs built once; Run may be called several times. */
class OpenCLFilter
{
public:
  virtual ~OpenCLFilter() = default;
  /** Filters the frames; adds the kernels' device seconds to *kernelSeconds. */
  virtual Counts
  Run(const Frames & frames, const ProgressCallback & progress, double * kernelSeconds) = 0;
};

/** The OpenCL filter for the setup on backend.device (execution.deviceMemoryLimit bounds the frames per batch). */
std::unique_ptr<OpenCLFilter>
MakeOpenCLFilter(const Setup & setup, const ResolvedBackend & backend, const ExecutionOptions & execution);

} // namespace levellines
} // namespace gpur

#endif
