// SPDX-License-Identifier: Apache-2.0
// A manufactured solution of -Lap u + c u = f on the grid of an image, with the
// boundary conventions of itk::PSCRPoissonSolver, for the tests of the filter
// and of the command-line tool (test/gpurTestData.cxx). It depends on ITK only.
//
// u is a product of one function per axis of the physical coordinate t along
// that axis, on [0, L]:
//   Dirichlet axis: voxel i at t = (i + 1) h, L = (n + 1) h (u = 0 one spacing
//     outside the image);  g(t) = sin(pi s) exp(s), s = t / L;
//   Neumann axis:   voxel i at t = (i + 1/2) h, L = n h (u' = 0 half a spacing
//     outside);            g(t) = exp(cos(pi s)).
// Neither is an eigenfunction of the discrete Laplacian, so the discretisation
// error is a genuine O(h^2). f = sum_d (-g_d'') prod_{e != d} g_e + c u exactly.
// With Neumann on every axis and c = 0, the integral of f is 0 but its discrete
// sum is only O(h^2) small, and u is defined up to a constant.
#ifndef itkPSCRManufacturedSolution_h
#define itkPSCRManufacturedSolution_h

#include "itkImage.h"
#include "itkImageRegionIteratorWithIndex.h"

#include <array>
#include <cmath>

namespace itk
{
namespace PSCRTesting
{

/** g and g'' of the axis factor at voxel index i of n with spacing h. */
inline void
AxisFactor(bool neumann, double i, double n, double h, double & g, double & g2)
{
  const double pi = std::acos(-1.0);
  const double length = neumann ? n * h : (n + 1) * h;
  const double s = (neumann ? i + 0.5 : i + 1) * h / length;
  if (neumann)
  {
    g = std::exp(std::cos(pi * s));
    g2 = pi * pi / (length * length) * (std::sin(pi * s) * std::sin(pi * s) - std::cos(pi * s)) * g;
  }
  else
  {
    g = std::sin(pi * s) * std::exp(s);
    g2 = ((1 - pi * pi) * std::sin(pi * s) + 2 * pi * std::cos(pi * s)) * std::exp(s) / (length * length);
  }
}

/**
 * Fills solution (u) and rhs (f = -Lap u + shift u) on solution's grid (its
 * largest region, allocated, and its spacing; rhs must have the same region).
 * neumann[d]: the boundary condition of axis d.
 */
template<typename TImage>
void
FillManufactured(TImage * solution,
                 TImage * rhs,
                 const std::array<bool, TImage::ImageDimension> & neumann,
                 double shift)
{
  constexpr unsigned D = TImage::ImageDimension;
  const auto region = solution->GetLargestPossibleRegion();
  const auto spacing = solution->GetSpacing();
  ImageRegionIteratorWithIndex<TImage> u(solution, region);
  ImageRegionIteratorWithIndex<TImage> f(rhs, region);
  for (; !u.IsAtEnd(); ++u, ++f)
  {
    std::array<double, D> g{}, g2{};
    for (unsigned d = 0; d < D; ++d)
    {
      AxisFactor(neumann[d],
                 static_cast<double>(u.GetIndex()[d] - region.GetIndex()[d]),
                 static_cast<double>(region.GetSize(d)),
                 spacing[d],
                 g[d],
                 g2[d]);
    }
    double product = 1, laplacian = 0;
    for (unsigned d = 0; d < D; ++d)
    {
      product *= g[d];
      double term = g2[d];
      for (unsigned e = 0; e < D; ++e)
        term *= e == d ? 1.0 : g[e];
      laplacian += term;
    }
    u.Set(static_cast<typename TImage::PixelType>(product));
    f.Set(static_cast<typename TImage::PixelType>(-laplacian + shift * product));
  }
}

} // namespace PSCRTesting
} // namespace itk

#endif
