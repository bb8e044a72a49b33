// SPDX-License-Identifier: Apache-2.0
// Test images and a one-call run of the level-line engine for its tests.
#ifndef gpurLevelLinesTesting_h
#define gpurLevelLinesTesting_h

#include "gpurLevelLines.h"

#include <cstddef>
#include <random>
#include <vector>

namespace gpur
{
namespace lltest
{

/** The result of one run: the output, the maps and the report. */
struct Result
{
  std::vector<float> u;
  std::vector<std::uint8_t> direction, pixelClass;
  std::vector<std::uint16_t> length;
  LevelLinesReport report;
};

/** Runs the engine on f with every map requested. */
inline Result
Filter(const std::vector<float> & f,
       const Grid & grid,
       const LevelLinesParameters & parameters,
       Backend backend = Backend::CPU,
       const ProgressCallback & progress = ProgressCallback())
{
  Result r;
  const std::size_t n = grid.Count();
  r.u.assign(n, 0.0f);
  r.direction.assign(n, 0);
  r.pixelClass.assign(n, 0);
  r.length.assign(n, 0);
  LevelLinesMaps maps;
  maps.direction = r.direction.data();
  maps.length = r.length.data();
  maps.pixelClass = r.pixelClass.data();
  r.report = DenoiseLevelLines(f.data(), r.u.data(), grid, parameters, MakeExecution(backend), progress, maps);
  return r;
}

/** values + Gaussian noise of standard deviation sigma (no clipping). */
inline std::vector<float>
AddNoise(const std::vector<float> & values, double sigma, unsigned seed)
{
  std::mt19937 random(seed);
  std::normal_distribution<double> normal(0.0, sigma);
  std::vector<float> noisy(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    noisy[i] = float(double(values[i]) + normal(random));
  return noisy;
}

/** A synthetic nx x ny image of value(i, j) (row i, column j). */
template<typename Function>
std::vector<float>
Image(std::size_t nx, std::size_t ny, Function value)
{
  std::vector<float> image(nx * ny);
  for (std::size_t i = 0; i < ny; ++i)
    for (std::size_t j = 0; j < nx; ++j)
      image[i * nx + j] = float(value(double(i), double(j)));
  return image;
}

/**
 * The step/corner test image: 64 background, 192 in the quadrant below row
 * ny/2 and right of column nx/2 (an L-shaped straight edge with a corner).
 */
inline std::vector<float>
StepCorner(std::size_t nx, std::size_t ny)
{
  return Image(nx, ny, [&](double i, double j) { return (i >= double(ny / 2) && j >= double(nx / 2)) ? 192.0 : 64.0; });
}

} // namespace lltest
} // namespace gpur

#endif
