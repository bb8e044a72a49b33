// SPDX-License-Identifier: Apache-2.0
// The geometry of an image as the engines see it: a dense x-fastest array.
#ifndef gpurGrid_h
#define gpurGrid_h

#include <array>
#include <cstddef>
#include <string>

namespace gpur
{

/**
 * Size and spacing of a 2D or 3D image stored x fastest:
 * index = (z * ny + y) * nx + x. A 2D image has nz = 1 and dimension 2.
 */
struct Grid
{
  unsigned dimension = 3;                             ///< 2 or 3
  std::array<std::size_t, 3> size{ { 1, 1, 1 } };     ///< nx, ny, nz (nz = 1 in 2D)
  std::array<double, 3> spacing{ { 1.0, 1.0, 1.0 } }; ///< voxel spacing hx, hy, hz (physical units)

  /** Number of voxels, nx * ny * nz. */
  std::size_t
  Count() const
  {
    return size[0] * size[1] * size[2];
  }

  /** Upper bound of ||grad||^2 for the forward-difference gradient: 4 * sum 1/h_i^2. */
  double
  GradientNormSquaredBound() const;

  /** Throws InvalidArgument naming the problem unless the grid is usable by a denoiser. */
  void
  Validate() const;

  /** The size and spacing as text, e.g. "64x64x32 spacing (1, 1, 2)". */
  std::string
  ToString() const;
};

/** A 2D grid of nx x ny voxels with spacing hx, hy. */
Grid
MakeGrid2D(std::size_t nx, std::size_t ny, double hx = 1.0, double hy = 1.0);
/** A 3D grid of nx x ny x nz voxels with spacing hx, hy, hz. */
Grid
MakeGrid3D(std::size_t nx, std::size_t ny, std::size_t nz, double hx = 1.0, double hy = 1.0, double hz = 1.0);

} // namespace gpur

#endif
