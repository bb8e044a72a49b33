// SPDX-License-Identifier: Apache-2.0
#include "gpurLaunch.h"

#include <algorithm>

namespace gpur
{

ImageRange
MakeImageRange(const Grid & grid, const DeviceInfo & device)
{
  std::size_t lx = 16, ly = 16;
  while (lx * ly > device.maxWorkGroupSize && ly > 1)
  {
    ly /= 2;
  }
  while (lx * ly > device.maxWorkGroupSize && lx > 1)
  {
    lx /= 2;
  }
  auto roundUp = [](std::size_t n, std::size_t m) { return (n + m - 1) / m * m; };
  return { cl::NDRange(roundUp(grid.size[0], lx), roundUp(grid.size[1], ly), grid.size[2]), cl::NDRange(lx, ly, 1) };
}

} // namespace gpur
