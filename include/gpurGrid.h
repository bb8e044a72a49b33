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
  unsigned dimension = 3;
  std::array<std::size_t, 3> size{ { 1, 1, 1 } };
  std::array<double, 3> spacing{ { 1.0, 1.0, 1.0 } };

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

  std::string
  ToString() const;
};

/** Convenience constructors. */
Grid
MakeGrid2D(std::size_t nx, std::size_t ny, double hx = 1.0, double hy = 1.0);
Grid
MakeGrid3D(std::size_t nx, std::size_t ny, std::size_t nz, double hx = 1.0, double hy = 1.0, double hz = 1.0);

} // namespace gpur

#endif
