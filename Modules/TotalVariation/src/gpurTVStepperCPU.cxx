// SPDX-License-Identifier: Apache-2.0
// CPU reference of the TV engine: the same discretisation and update formulas
// as kernels/tv_rof.cl, multithreaded over image rows.
#include "gpurFiniteDifference.h"
#include "gpurTVStepper.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpur
{
namespace
{

template<typename Real>
class TVStepperCPU : public TVStepper<Real>
{
public:
  TVStepperCPU(const FieldLayout & layout,
               const std::vector<const Real *> & inputs,
               const Grid & grid,
               ParallelForFunction parallelFor)
    : TVStepper<Real>(layout, grid)
    , m_Inputs(inputs)
    , m_F(inputs[kTVF])
    , m_W(inputs[kTVWeight])
    , m_Geometry(grid)
    , m_Rows(grid.size[1] * grid.size[2])
    , m_ParallelFor(std::move(parallelFor))
    , m_State(layout, grid)
    , m_U(m_State.Data(kTVU))
    , m_Bar(m_State.Data(kTVBar))
    , m_Px(m_State.Data(kTVP, 0))
    , m_Py(m_State.Data(kTVP, 1))
    , m_Pz(layout.fields[kTVP].components > 2 ? m_State.Data(kTVP, 2) : nullptr)
  {
  }

  void
  Initialize() override
  {
    m_State.Initialize(this->Layout(), m_Inputs);
  }

  void
  Advance(const TVStep & step) override
  {
    AdvanceTV(*this, step);
  }

  void
  Dual(const TVStep & step)
  {
    const Real * v = step.dualUsesBar ? m_Bar : m_U;
    const Real sigma = static_cast<Real>(step.sigma);
    ForEachVoxel(
      [&](std::size_t x, std::size_t y, std::size_t z, std::size_t i)
      {
        const auto g = ForwardGradient(v, m_Geometry, x, y, z, i);
        const Real qx = m_Px[i] + sigma * g[0];
        const Real qy = m_Py[i] + sigma * g[1];
        const Real qz = m_Pz == nullptr ? Real(0) : m_Pz[i] + sigma * g[2];
        const Real n = std::max(Real(1), std::sqrt(qx * qx + qy * qy + qz * qz));
        m_Px[i] = qx / n;
        m_Py[i] = qy / n;
        if (m_Pz != nullptr)
          m_Pz[i] = qz / n;
      });
  }

  void
  Primal(const TVStep & step)
  {
    const TVPrimalCoefficients<Real> plain(step);
    const Real theta = static_cast<Real>(step.theta);
    const bool writeBar = m_Bar != nullptr;
    ForEachVoxel(
      [&](std::size_t x, std::size_t y, std::size_t z, std::size_t i)
      {
        const Real d = BackwardDivergence(m_Px, m_Py, m_Pz, m_Geometry, x, y, z, i);
        const auto k = m_W ? TVPrimalCoefficients<Real>::Weighted(plain, step, m_W[i]) : plain;
        const Real old = m_U[i];
        const Real next = old + k.b * (m_F[i] - old) + k.c * d;
        m_U[i] = next;
        if (writeBar)
          m_Bar[i] = next + theta * (next - old);
      });
  }

  TVEnergySums
  Measure(std::size_t firstSlice, std::size_t slices) override
  {
    const std::size_t firstRow = firstSlice * m_Geometry.ny;
    const auto sums = ParallelSum(m_ParallelFor,
                                  slices * m_Geometry.ny,
                                  4,
                                  [&](std::size_t r0, std::size_t r1, double * acc)
                                  {
                                    for (std::size_t r = firstRow + r0; r < firstRow + r1; ++r)
                                    {
                                      const std::size_t y = r % m_Geometry.ny, z = r / m_Geometry.ny;
                                      for (std::size_t x = 0, i = r * m_Geometry.nx; x < m_Geometry.nx; ++x, ++i)
                                      {
                                        const auto g = ForwardGradient(m_U, m_Geometry, x, y, z, i);
                                        const Real d = BackwardDivergence(m_Px, m_Py, m_Pz, m_Geometry, x, y, z, i);
                                        const double e = static_cast<double>(m_U[i]) - m_F[i];
                                        const double w = m_W ? static_cast<double>(m_W[i]) : 1.0;
                                        acc[0] += e * e / w;
                                        acc[1] +=
                                          std::sqrt(double(g[0]) * g[0] + double(g[1]) * g[1] + double(g[2]) * g[2]);
                                        acc[2] += static_cast<double>(m_F[i]) * d;
                                        acc[3] += w * d * d;
                                      }
                                    }
                                  });
    TVEnergySums s;
    s.fidelity = sums[0];
    s.tv = sums[1];
    s.fDivP = sums[2];
    s.divPSquared = sums[3];
    return s;
  }

  void
  Load(const HostFields<const Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    m_State.Load(this->Layout(), this->GetGrid(), host, firstSlice, slices);
  }

  void
  Store(const HostFields<Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    m_State.Store(this->Layout(), this->GetGrid(), host, firstSlice, slices);
  }

private:
  template<typename F>
  void
  ForEachVoxel(F && body)
  {
    m_ParallelFor(m_Rows,
                  [&](std::size_t r0, std::size_t r1)
                  {
                    for (std::size_t r = r0; r < r1; ++r)
                    {
                      const std::size_t y = r % m_Geometry.ny, z = r / m_Geometry.ny;
                      for (std::size_t x = 0, i = r * m_Geometry.nx; x < m_Geometry.nx; ++x, ++i)
                      {
                        body(x, y, z, i);
                      }
                    }
                  });
  }

  const std::vector<const Real *> m_Inputs;
  const Real * m_F;
  const Real * m_W; ///< data-term weight, or null
  const StencilGeometry<Real> m_Geometry;
  const std::size_t m_Rows;
  ParallelForFunction m_ParallelFor;
  HostFieldStorage<Real> m_State;
  Real *m_U, *m_Bar, *m_Px, *m_Py, *m_Pz; ///< in m_State; ubar and p_z may be null
};

} // namespace

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStepperCPU(const FieldLayout & layout,
                 const std::vector<const Real *> & inputs,
                 const Grid & grid,
                 const ParallelForFunction & parallelFor)
{
  return std::make_unique<TVStepperCPU<Real>>(layout, inputs, grid, parallelFor);
}

template std::unique_ptr<TVStepper<float>>
MakeTVStepperCPU(const FieldLayout &, const std::vector<const float *> &, const Grid &, const ParallelForFunction &);
template std::unique_ptr<TVStepper<double>>
MakeTVStepperCPU(const FieldLayout &, const std::vector<const double *> &, const Grid &, const ParallelForFunction &);

} // namespace gpur
