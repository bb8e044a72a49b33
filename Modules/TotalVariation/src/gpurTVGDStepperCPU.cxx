// SPDX-License-Identifier: Apache-2.0
// CPU reference of the TV-GD engine: the formulas of kernels/tv_gd.cl
// (gpurTVGDStencil.h), multithreaded over image rows; partial sums in double
// over a fixed chunking, so results do not depend on the number of threads.
#include "gpurTVGDStepper.h"

#include <algorithm>
#include <vector>

namespace gpur
{
namespace
{

template<typename Real>
class TVGDStepperCPU : public TVGDStepper<Real>
{
public:
  TVGDStepperCPU(const Real * f,
                 const Grid & grid,
                 const TVGDStencilConstants & constants,
                 ParallelForFunction parallelFor)
    : m_F(f)
    , m_Geometry(grid)
    , m_Slice(grid.size[0] * grid.size[1])
    , m_InverseDelta2(static_cast<Real>(constants.inverseDeltaSquared))
    , m_Epsilon(static_cast<Real>(constants.epsilon))
    , m_ParallelFor(std::move(parallelFor))
    , m_U(grid.Count())
    , m_Du(grid.Count(), Real(0))
  {
  }

  void
  Initialize() override
  {
    std::copy(m_F, m_F + m_U.size(), m_U.begin());
  }

  double
  Gradient(std::size_t firstSlice, std::size_t slices) override
  {
    return SumOverRows(firstSlice,
                       slices,
                       [this](std::size_t x, std::size_t y, std::size_t z, std::size_t i)
                       {
                         const Real g = TVGDGradientAt(m_U.data(), m_Geometry, m_InverseDelta2, m_Epsilon, x, y, z, i);
                         m_Du[i] = g;
                         return static_cast<double>(g) * g;
                       });
  }

  double
  Update(double scale, std::size_t firstSlice, std::size_t slices, bool withResidual) override
  {
    const Real s = static_cast<Real>(scale);
    return SumOverRows(firstSlice,
                       slices,
                       [this, s, withResidual](std::size_t, std::size_t, std::size_t, std::size_t i)
                       {
                         const Real v = m_U[i] - s * m_Du[i];
                         m_U[i] = v;
                         if (!withResidual)
                           return 0.0;
                         const Real e = v - m_F[i];
                         return static_cast<double>(e) * e;
                       });
  }

  double
  Residual(std::size_t firstSlice, std::size_t slices) override
  {
    return SumOverRows(firstSlice,
                       slices,
                       [this](std::size_t, std::size_t, std::size_t, std::size_t i)
                       {
                         const Real e = m_U[i] - m_F[i];
                         return static_cast<double>(e) * e;
                       });
  }

  void
  Load(const Real * u, std::size_t firstSlice, std::size_t slices) override
  {
    const std::size_t offset = firstSlice * m_Slice;
    std::copy_n(u + offset, slices * m_Slice, m_U.begin() + offset);
  }

  void
  Store(Real * u, std::size_t firstSlice, std::size_t slices) const override
  {
    const std::size_t offset = firstSlice * m_Slice;
    std::copy_n(m_U.begin() + offset, slices * m_Slice, u + offset);
  }

private:
  /** Runs body(x, y, z, i) on every voxel of the slices and returns the double sum of its results. */
  template<typename Body>
  double
  SumOverRows(std::size_t firstSlice, std::size_t slices, Body body)
  {
    const std::size_t ny = m_Geometry.ny, nx = m_Geometry.nx, firstRow = firstSlice * ny;
    return ParallelSum(m_ParallelFor,
                       slices * ny,
                       1,
                       [&](std::size_t r0, std::size_t r1, double * acc)
                       {
                         for (std::size_t r = firstRow + r0; r < firstRow + r1; ++r)
                         {
                           const std::size_t y = r % ny, z = r / ny;
                           for (std::size_t x = 0, i = r * nx; x < nx; ++x, ++i)
                           {
                             acc[0] += body(x, y, z, i);
                           }
                         }
                       })[0];
  }

  const Real * m_F;
  const StencilGeometry<Real> m_Geometry;
  const std::size_t m_Slice;
  const Real m_InverseDelta2, m_Epsilon;
  ParallelForFunction m_ParallelFor;
  std::vector<Real> m_U, m_Du;
};

} // namespace

template<typename Real>
std::unique_ptr<TVGDStepper<Real>>
MakeTVGDStepperCPU(const Real * f,
                   const Grid & grid,
                   const TVGDStencilConstants & constants,
                   const ParallelForFunction & parallelFor)
{
  return std::unique_ptr<TVGDStepper<Real>>(new TVGDStepperCPU<Real>(f, grid, constants, parallelFor));
}

template std::unique_ptr<TVGDStepper<float>>
MakeTVGDStepperCPU(const float *, const Grid &, const TVGDStencilConstants &, const ParallelForFunction &);
template std::unique_ptr<TVGDStepper<double>>
MakeTVGDStepperCPU(const double *, const Grid &, const TVGDStencilConstants &, const ParallelForFunction &);

} // namespace gpur
