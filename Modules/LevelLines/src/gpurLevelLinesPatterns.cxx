// SPDX-License-Identifier: Apache-2.0
// The segment patterns p_{l,d} of level-line denoising [Perrot2013, §IV-B]
// and the table the backends read.
#include "gpurLevelLines.h"
#include "gpurLevelLinesEngine.h"

#include <algorithm>
#include <cmath>

namespace gpur
{

namespace
{

/** sin and cos of direction d's angle, d * 360 / D degrees counter-clockwise from +j. */
std::array<double, 2>
SinCos(unsigned direction)
{
  const double theta = 2.0 * 3.14159265358979323846 * double(direction) / double(kLevelLinesDirections);
  return { { std::sin(theta), std::cos(theta) } };
}

/** True when the direction's major axis is j (|cos| >= |sin|, 45 degrees included). */
bool
XMajor(double s, double c)
{
  return std::abs(c) >= std::abs(s) - 1e-12;
}

} // namespace

std::vector<std::array<int, 2>>
LevelLinesPattern(unsigned direction, unsigned segmentLength)
{
  if (direction >= kLevelLinesDirections)
  {
    throw InvalidArgument("LevelLinesPattern: direction " + std::to_string(direction) + " is not in 0.." +
                          std::to_string(kLevelLinesDirections - 1));
  }
  // [Perrot2013] prints the rows d = 0..7 of P_5 only. A DDA rule along the
  // major axis reproduces all 40 printed offsets and rotates by 90 degrees
  // every 8 directions ((di, dj) -> (-dj, di)): the pixel k steps along the
  // major axis, the minor offset is k times the slope rounded (no .5 ties for l <= 12).
  const std::array<double, 2> sc = SinCos(direction);
  const double s = sc[0], c = sc[1];
  const auto sign = [](double v) { return v > 0.0 ? 1 : (v < 0.0 ? -1 : 0); };
  std::vector<std::array<int, 2>> pattern;
  for (unsigned step = 1; step <= segmentLength; ++step)
  {
    const double k = double(step);
    if (XMajor(s, c))
    {
      const int di = std::abs(s) < 1e-12 ? 0 : -int(std::lround(k * std::abs(s) / std::abs(c))) * sign(s);
      pattern.push_back({ { di, int(step) * sign(c) } });
    }
    else
    {
      const int dj = std::abs(c) < 1e-12 ? 0 : int(std::lround(k * std::abs(c) / std::abs(s))) * sign(c);
      pattern.push_back({ { -int(step) * sign(s), dj } });
    }
  }
  return pattern;
}

namespace levellines
{

Setup
MakeSetup(const LevelLinesParameters & parameters, float floor)
{
  Setup setup;
  setup.parameters = parameters;
  setup.l = int(parameters.segmentLength);
  setup.m = parameters.thick ? 3 * setup.l : setup.l;
  setup.segments = std::max(1, int(parameters.maximumLength) / setup.l);
  setup.halo = setup.l + (parameters.thick ? 1 : 0);
  setup.floor = floor;
  std::vector<int> ends;
  for (unsigned d = 0; d < kLevelLinesDirections; ++d)
  {
    const std::vector<std::array<int, 2>> thin = LevelLinesPattern(d, parameters.segmentLength);
    const std::array<double, 2> sc = SinCos(d);
    const bool xMajor = XMajor(sc[0], sc[1]);
    for (const std::array<int, 2> & p : thin)
    {
      setup.table.insert(setup.table.end(), { p[0], p[1] });
      if (parameters.thick)
      {
        // Thickening [Perrot2013, §VI]: the two neighbours across the major axis.
        if (xMajor)
          setup.table.insert(setup.table.end(), { p[0] - 1, p[1], p[0] + 1, p[1] });
        else
          setup.table.insert(setup.table.end(), { p[0], p[1] - 1, p[0], p[1] + 1 });
      }
    }
    ends.insert(ends.end(), { thin.back()[0], thin.back()[1] });
  }
  setup.table.insert(setup.table.end(), ends.begin(), ends.end());
  // The tests' thresholds as bounds on a variance ratio (ll_pooled_below): a
  // line of k segments holds c + k m pixels (c = 1 with the centre), its test
  // merges m more. Index 0 is unused; k reaches 2K with both arms.
  const int c = parameters.includeCenter ? 1 : 0;
  setup.bounds.assign(std::size_t(2 * setup.segments + 1), 1.0f);
  for (int k = 1; k <= 2 * setup.segments; ++k)
    setup.bounds[std::size_t(k)] = float(std::exp(parameters.lengtheningThreshold / double(c + (k + 1) * setup.m)));
  setup.edgeBound = float(std::exp(parameters.edgeThreshold / double(8 * setup.l + 1)));
  return setup;
}

} // namespace levellines

} // namespace gpur
