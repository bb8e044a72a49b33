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
  TVStepperCPU(const Real * f, const Real * weight, const Grid & grid, bool usesBar, ParallelForFunction parallelFor)
    : m_F(f)
    , m_W(weight)
    , m_Geometry(grid)
    , m_Grid(grid)
    , m_Count(grid.Count())
    , m_Rows(grid.size[1] * grid.size[2])
    , m_ParallelFor(std::move(parallelFor))
    , m_U(m_Count)
    , m_Bar(usesBar ? m_Count : 0)
    , m_Px(m_Count)
    , m_Py(m_Count)
    , m_Pz(grid.size[2] > 1 ? m_Count : 0)
  {
  }

  void
  Initialize() override
  {
    std::copy(m_F, m_F + m_Count, m_U.begin());
    if (!m_Bar.empty())
      std::copy(m_F, m_F + m_Count, m_Bar.begin());
    std::fill(m_Px.begin(), m_Px.end(), Real(0));
    std::fill(m_Py.begin(), m_Py.end(), Real(0));
    std::fill(m_Pz.begin(), m_Pz.end(), Real(0));
  }

  void
  Dual(const TVStep & step) override
  {
    const Real * v = step.dualUsesBar ? m_Bar.data() : m_U.data();
    const Real sigma = static_cast<Real>(step.sigma);
    ForEachVoxel(
      [&](std::size_t x, std::size_t y, std::size_t z, std::size_t i)
      {
        const auto g = ForwardGradient(v, m_Geometry, x, y, z, i);
        const Real qx = m_Px[i] + sigma * g[0];
        const Real qy = m_Py[i] + sigma * g[1];
        const Real qz = m_Pz.empty() ? Real(0) : m_Pz[i] + sigma * g[2];
        const Real n = std::max(Real(1), std::sqrt(qx * qx + qy * qy + qz * qz));
        m_Px[i] = qx / n;
        m_Py[i] = qy / n;
        if (!m_Pz.empty())
          m_Pz[i] = qz / n;
      });
  }

  void
  Primal(const TVStep & step) override
  {
    const TVPrimalCoefficients<Real> plain(step);
    const Real theta = static_cast<Real>(step.theta);
    const bool writeBar = !m_Bar.empty();
    ForEachVoxel(
      [&](std::size_t x, std::size_t y, std::size_t z, std::size_t i)
      {
        const Real d = BackwardDivergence(m_Px.data(), m_Py.data(), m_Pz.data(), m_Geometry, x, y, z, i);
        const auto k = m_W ? TVPrimalCoefficients<Real>::Weighted(plain, step, m_W[i]) : plain;
        const Real old = m_U[i];
        const Real next = old + k.b * (m_F[i] - old) + k.c * d;
        m_U[i] = next;
        if (writeBar)
          m_Bar[i] = next + theta * (next - old);
      });
  }

  TVEnergySums
  Energies(std::size_t firstSlice, std::size_t slices) override
  {
    const std::size_t firstRow = firstSlice * m_Geometry.ny;
    const auto sums =
      ParallelSum(m_ParallelFor,
                  slices * m_Geometry.ny,
                  4,
                  [&](std::size_t r0, std::size_t r1, double * acc)
                  {
                    for (std::size_t r = firstRow + r0; r < firstRow + r1; ++r)
                    {
                      const std::size_t y = r % m_Geometry.ny, z = r / m_Geometry.ny;
                      for (std::size_t x = 0, i = r * m_Geometry.nx; x < m_Geometry.nx; ++x, ++i)
                      {
                        const auto g = ForwardGradient(m_U.data(), m_Geometry, x, y, z, i);
                        const Real d =
                          BackwardDivergence(m_Px.data(), m_Py.data(), m_Pz.data(), m_Geometry, x, y, z, i);
                        const double e = static_cast<double>(m_U[i]) - m_F[i];
                        const double w = m_W ? static_cast<double>(m_W[i]) : 1.0;
                        acc[0] += e * e / w;
                        acc[1] += std::sqrt(double(g[0]) * g[0] + double(g[1]) * g[1] + double(g[2]) * g[2]);
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
  Load(const HostTVState<const Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    ForEachStatePart(m_Grid,
                     !m_Bar.empty(),
                     host,
                     firstSlice,
                     slices,
                     [this](const Real * host, TVStatePart part, std::size_t offset, std::size_t n)
                     { std::copy(host, host + n, Part(part).begin() + offset); });
  }

  void
  Store(const HostTVState<Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    ForEachStatePart(m_Grid,
                     !m_Bar.empty(),
                     host,
                     firstSlice,
                     slices,
                     [this](Real * host, TVStatePart part, std::size_t offset, std::size_t n)
                     { std::copy_n(Part(part).begin() + offset, n, host); });
    ZeroAbsentPz(host, m_Grid, firstSlice, slices);
  }

private:
  std::vector<Real> &
  Part(TVStatePart part)
  {
    std::vector<Real> * parts[] = { &m_U, &m_Bar, &m_Px, &m_Py, &m_Pz }; // in TVStatePart order
    return *parts[static_cast<unsigned>(part)];
  }

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

  const Real * m_F;
  const Real * m_W; ///< data-term weight, or null
  const StencilGeometry<Real> m_Geometry;
  const Grid m_Grid;
  const std::size_t m_Count, m_Rows;
  ParallelForFunction m_ParallelFor;
  std::vector<Real> m_U, m_Bar, m_Px, m_Py, m_Pz;
};

} // namespace

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStepperCPU(const Real * f,
                 const Real * weight,
                 const Grid & grid,
                 bool usesBar,
                 const ParallelForFunction & parallelFor)
{
  return std::unique_ptr<TVStepper<Real>>(new TVStepperCPU<Real>(f, weight, grid, usesBar, parallelFor));
}

template std::unique_ptr<TVStepper<float>>
MakeTVStepperCPU(const float *, const float *, const Grid &, bool, const ParallelForFunction &);
template std::unique_ptr<TVStepper<double>>
MakeTVStepperCPU(const double *, const double *, const Grid &, bool, const ParallelForFunction &);

} // namespace gpur
