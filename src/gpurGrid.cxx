// SPDX-License-Identifier: Apache-2.0
#include "gpurGrid.h"

#include "gpurError.h"

#include <cmath>
#include <sstream>

namespace gpur
{

double
Grid::GradientNormSquaredBound() const
{
  double s = 0.0;
  for (unsigned d = 0; d < dimension; ++d)
  {
    s += 1.0 / (spacing[d] * spacing[d]);
  }
  return 4.0 * s;
}

void
Grid::Validate() const
{
  if (dimension != 2 && dimension != 3)
  {
    throw InvalidArgument("image dimension " + std::to_string(dimension) + " is not supported (allowed: 2 or 3)");
  }
  if (dimension == 2 && size[2] != 1)
  {
    throw InvalidArgument("a 2D grid must have size[2] == 1");
  }
  for (unsigned d = 0; d < dimension; ++d)
  {
    if (size[d] == 0)
    {
      throw InvalidArgument("the image is empty (size " + ToString() + "); at least 2 voxels are needed");
    }
    if (!(spacing[d] > 0.0) || !std::isfinite(spacing[d]))
    {
      throw InvalidArgument("spacing along axis " + std::to_string(d) + " is " + std::to_string(spacing[d]) +
                            "; it must be finite and > 0");
    }
    if (size[d] > 2147483647u)
    {
      throw InvalidArgument("size along an axis must be below 2^31");
    }
  }
  if (Count() < 2)
  {
    throw InvalidArgument("the image has a single voxel (size " + ToString() + "); at least 2 voxels are needed");
  }
}

std::string
Grid::ToString() const
{
  std::ostringstream s;
  s << size[0] << "x" << size[1];
  if (dimension == 3)
  {
    s << "x" << size[2];
  }
  s << " spacing (" << spacing[0] << ", " << spacing[1];
  if (dimension == 3)
  {
    s << ", " << spacing[2];
  }
  s << ")";
  return s.str();
}

Grid
MakeGrid2D(std::size_t nx, std::size_t ny, double hx, double hy)
{
  Grid g;
  g.dimension = 2;
  g.size = { { nx, ny, 1 } };
  g.spacing = { { hx, hy, 1.0 } };
  return g;
}

Grid
MakeGrid3D(std::size_t nx, std::size_t ny, std::size_t nz, double hx, double hy, double hz)
{
  Grid g;
  g.dimension = 3;
  g.size = { { nx, ny, nz } };
  g.spacing = { { hx, hy, hz } };
  return g;
}

} // namespace gpur
