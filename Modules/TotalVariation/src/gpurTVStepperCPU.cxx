// SPDX-License-Identifier: Apache-2.0
// CPU reference of the TV engine: the same discretisation and update formulas
// as kernels/tv_rof.cl (the stencils of gpurFiniteDifference.h, term for term,
// so the iterates are those of the OpenCL kernels to rounding), multithreaded
// over image rows. The x loops have no per-voxel branches: the first and last
// columns are peeled, the boundary rows and planes read a row of zeros or
// take a compile-time variant, so they vectorise.
#include "gpurFiniteDifference.h"
#include "gpurTVStepper.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>
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
    , m_Zeros(grid.size[0], Real(0))
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
    if (!step.primalFirst && step.dualUsesBar && m_Bar != nullptr)
      FusedChambollePock(step);
    else if (step.primalFirst && !step.dualUsesBar)
      FusedPrimalFirst(step);
    else
      AdvanceTV(*this, step);
  }

  void
  Dual(const TVStep & step)
  {
    const Real * v = step.dualUsesBar ? m_Bar : m_U;
    const Real sigma = static_cast<Real>(step.sigma);
    m_ParallelFor(m_Rows,
                  [&](std::size_t r0, std::size_t r1)
                  {
                    for (std::size_t r = r0; r < r1; ++r)
                      DualRow(v, sigma, r);
                  });
  }

  void
  Primal(const TVStep & step)
  {
    const TVPrimalCoefficients<Real> plain(step);
    m_ParallelFor(m_Rows,
                  [&](std::size_t r0, std::size_t r1)
                  {
                    for (std::size_t r = r0; r < r1; ++r)
                      PrimalRow(step, plain, r);
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
  /**
   * One Chambolle-Pock iteration ([Chambolle2011, Alg. 1 and 2]: dual, then
   * primal and extrapolation) in one sweep over memory:
   * row r gets its dual update, then at once its primal update, which needs
   * the new p of rows r, r - 1 and r - nx ny only (done) and overwrites ubar
   * of row r, which no later dual reads (the dual of row r reads ubar of rows
   * r, r + 1 and r + nx ny). Between threads, the rows whose dual reads the
   * next chunk's ubar (the last row, in 3D the last plane, of each chunk) get
   * their dual update first, in a pass of their own; then every chunk sweeps
   * its rows. Each voxel's arithmetic is that of Dual() then Primal(), so the
   * iterates are the same bit for bit.
   * Memory traffic per voxel and iteration, neighbouring rows (2D) or planes
   * (3D) being reused from cache: reads ubar, p, u, f and writes p, u, ubar,
   * i.e. 9 floats (36 bytes) in 2D and 11 (44 bytes) in 3D, against 11 and 14
   * for the dual and primal passes one after the other. ubar cannot be left
   * out of memory: recomputing it needs the previous u, as many bytes.
   */
  void
  FusedChambollePock(const TVStep & step)
  {
    const Real sigma = static_cast<Real>(step.sigma);
    const TVPrimalCoefficients<Real> plain(step);
    const std::size_t reach = RowReach();
    const auto chunks = SplitRows(reach,
                                  [&](std::size_t, std::size_t r1)
                                  {
                                    for (std::size_t r = r1 - reach; r < r1; ++r)
                                      DualRow(m_Bar, sigma, r);
                                  });
    SweepChunks(chunks,
                [&](std::size_t r0, std::size_t r1)
                {
                  for (std::size_t r = r0; r + reach < r1; ++r)
                  {
                    DualRow(m_Bar, sigma, r);
                    PrimalRow(step, plain, r);
                  }
                  for (std::size_t r = r1 - reach; r < r1; ++r)
                    PrimalRow(step, plain, r);
                });
  }

  /**
   * One PDU iteration ([Zhu2008] with the steps of [Huang2023, eqs.
   * (3.6)-(3.7)]: primal from the old p, then dual from the new u) in one
   * sweep over memory, the primal update running `reach` rows ahead of the
   * dual one: row r + reach gets its primal update, which reads p of rows
   * r + reach, r + reach - 1 and r (3D: r + reach - nx ny = r), none of them
   * updated yet; then row r its dual update, which reads u of rows r, r + 1
   * and r + nx ny (all updated) and overwrites p of row r, which no later
   * primal update reads. Between threads, the first `reach` rows of each
   * chunk (whose primal update reads p of the previous chunk, and whose new u
   * the previous chunk's last dual updates read) get their primal update
   * first, in a pass of their own; then every chunk sweeps its rows. Each
   * voxel's arithmetic is that of Primal() then Dual(), so the iterates are
   * the same bit for bit.
   * Memory traffic per voxel and iteration, neighbouring rows (2D) or planes
   * (3D) being reused from cache: reads u, f, p (and w when weighted) and
   * writes u, p, i.e. 7 floats (28 bytes) in 2D and 9 (36 bytes) in 3D (one
   * more read with weights), against 10 and 13 for the two passes.
   */
  void
  FusedPrimalFirst(const TVStep & step)
  {
    const Real sigma = static_cast<Real>(step.sigma);
    const TVPrimalCoefficients<Real> plain(step);
    const std::size_t reach = RowReach();
    const auto chunks = SplitRows(reach,
                                  [&](std::size_t r0, std::size_t)
                                  {
                                    for (std::size_t r = r0; r < r0 + reach; ++r)
                                      PrimalRow(step, plain, r);
                                  });
    SweepChunks(chunks,
                [&](std::size_t r0, std::size_t r1)
                {
                  for (std::size_t r = r0; r + reach < r1; ++r)
                  {
                    PrimalRow(step, plain, r + reach);
                    DualRow(m_U, sigma, r);
                  }
                  for (std::size_t r = r1 - reach; r < r1; ++r)
                    DualRow(m_U, sigma, r);
                });
  }

  /**
   * The rows an iteration's dual update reaches ahead and its primal update
   * behind: one row in 2D, one plane (ny rows) in 3D.
   */
  std::size_t
  RowReach() const
  {
    return m_Pz != nullptr ? m_Geometry.ny : 1;
  }

  using RowChunks = std::vector<std::pair<std::size_t, std::size_t>>;

  /**
   * Splits the rows into the pool's chunks, each of whole blocks of `reach`
   * rows, runs edge(r0, r1) on every chunk [r0, r1) in parallel (the rows a
   * fused sweep must update before the neighbouring chunk's sweep), and
   * returns the chunks.
   */
  template<typename Edge>
  RowChunks
  SplitRows(std::size_t reach, const Edge & edge)
  {
    RowChunks chunks;
    std::mutex chunksMutex;
    m_ParallelFor(m_Rows / reach,
                  [&](std::size_t b0, std::size_t b1)
                  {
                    {
                      const std::lock_guard<std::mutex> lock(chunksMutex);
                      chunks.emplace_back(b0 * reach, b1 * reach);
                    }
                    edge(b0 * reach, b1 * reach);
                  });
    return chunks;
  }

  /** Runs sweep(r0, r1) on every chunk [r0, r1) in parallel. */
  template<typename Sweep>
  void
  SweepChunks(const RowChunks & chunks, const Sweep & sweep)
  {
    m_ParallelFor(chunks.size(),
                  [&](std::size_t c0, std::size_t c1)
                  {
                    for (std::size_t c = c0; c < c1; ++c)
                      sweep(chunks[c].first, chunks[c].second);
                  });
  }

  /** Dual update of row r (y = r mod ny, z = r div ny) from v = ubar or u. */
  void
  DualRow(const Real * v, Real sigma, std::size_t r) const
  {
    const auto & g = m_Geometry;
    const std::size_t y = r % g.ny, z = r / g.ny, i = r * g.nx;
    const bool gradY = y + 1 < g.ny, gradZ = z + 1 < g.nz;
    if (m_Pz == nullptr)
    {
      if (gradY)
        DualLine<false, true, false>(v + i, m_Px + i, m_Py + i, nullptr, sigma);
      else
        DualLine<false, false, false>(v + i, m_Px + i, m_Py + i, nullptr, sigma);
    }
    else if (gradZ)
    {
      if (gradY)
        DualLine<true, true, true>(v + i, m_Px + i, m_Py + i, m_Pz + i, sigma);
      else
        DualLine<true, false, true>(v + i, m_Px + i, m_Py + i, m_Pz + i, sigma);
    }
    else if (gradY)
      DualLine<true, true, false>(v + i, m_Px + i, m_Py + i, m_Pz + i, sigma);
    else
      DualLine<true, false, false>(v + i, m_Px + i, m_Py + i, m_Pz + i, sigma);
  }

  /** p <- proj(p + sigma grad v) along one row; the last column has no x difference. */
  template<bool HasZ, bool GradY, bool GradZ>
  void
  DualLine(const Real * v, Real * px, Real * py, Real * pz, Real sigma) const
  {
    const auto & g = m_Geometry;
    DualSpan<HasZ, true, GradY, GradZ>(g.nx - 1, v, px, py, pz, sigma);
    const std::size_t l = g.nx - 1;
    DualSpan<HasZ, false, GradY, GradZ>(1, v + l, px + l, py + l, HasZ ? pz + l : nullptr, sigma);
  }

  template<bool HasZ, bool GradX, bool GradY, bool GradZ>
  void
  DualSpan(std::size_t n,
           const Real * __restrict v,
           Real * __restrict px,
           Real * __restrict py,
           Real * __restrict pz,
           Real sigma) const
  {
    const std::size_t sy = m_Geometry.sy, sz = m_Geometry.sz;
    const Real ihx = m_Geometry.ihx, ihy = m_Geometry.ihy, ihz = m_Geometry.ihz;
    for (std::size_t x = 0; x < n; ++x)
    {
      const Real c = v[x];
      const Real gx = GradX ? (v[x + 1] - c) * ihx : Real(0);
      const Real gy = GradY ? (v[x + sy] - c) * ihy : Real(0);
      const Real qx = px[x] + sigma * gx;
      const Real qy = py[x] + sigma * gy;
      if constexpr (HasZ)
      {
        const Real gz = GradZ ? (v[x + sz] - c) * ihz : Real(0);
        const Real qz = pz[x] + sigma * gz;
        const Real m = std::max(Real(1), std::sqrt(qx * qx + qy * qy + qz * qz));
        px[x] = qx / m;
        py[x] = qy / m;
        pz[x] = qz / m;
      }
      else
      {
        // qz = 0 adds nothing to the norm.
        const Real m = std::max(Real(1), std::sqrt(qx * qx + qy * qy));
        px[x] = qx / m;
        py[x] = qy / m;
      }
    }
  }

  /** Primal update of row r (and ubar when the method has it). */
  void
  PrimalRow(const TVStep & step, const TVPrimalCoefficients<Real> & plain, std::size_t r) const
  {
    const bool bar = m_Bar != nullptr, weighted = m_W != nullptr;
    if (m_Pz == nullptr)
    {
      if (weighted)
        bar ? PrimalLine<false, true, true>(step, plain, r) : PrimalLine<false, true, false>(step, plain, r);
      else
        bar ? PrimalLine<false, false, true>(step, plain, r) : PrimalLine<false, false, false>(step, plain, r);
    }
    else if (weighted)
      bar ? PrimalLine<true, true, true>(step, plain, r) : PrimalLine<true, true, false>(step, plain, r);
    else
      bar ? PrimalLine<true, false, true>(step, plain, r) : PrimalLine<true, false, false>(step, plain, r);
  }

  /**
   * The backward divergence along a row as differences of two rows per axis:
   * p of this and of the previous row (plane), m_Zeros where the stencil has
   * no term (first or last row, plane or column), and px shifted by one.
   */
  template<bool HasZ, bool Weighted, bool WriteBar>
  void
  PrimalLine(const TVStep & step, const TVPrimalCoefficients<Real> & plain, std::size_t r) const
  {
    const auto & g = m_Geometry;
    const std::size_t y = r % g.ny, z = r / g.ny, i = r * g.nx, nx = g.nx;
    const Real * zero = m_Zeros.data();
    const Real * pyC = y + 1 < g.ny ? m_Py + i : zero;
    const Real * pyP = y > 0 ? m_Py + i - g.sy : zero;
    const Real * pzC = zero;
    const Real * pzP = zero;
    if constexpr (HasZ)
    {
      pzC = z + 1 < g.nz ? m_Pz + i : zero;
      pzP = z > 0 ? m_Pz + i - g.sz : zero;
    }
    const auto span = [&](std::size_t x0, std::size_t n, const Real * pxC, const Real * pxP)
    {
      PrimalSpan<HasZ, Weighted, WriteBar>(step,
                                           plain,
                                           n,
                                           pxC,
                                           pxP,
                                           pyC + x0,
                                           pyP + x0,
                                           pzC + x0,
                                           pzP + x0,
                                           m_F + i + x0,
                                           Weighted ? m_W + i + x0 : nullptr,
                                           m_U + i + x0,
                                           WriteBar ? m_Bar + i + x0 : nullptr);
    };
    const Real * px = m_Px + i;
    if (nx == 1)
    {
      span(0, 1, zero, zero);
      return;
    }
    span(0, 1, px, zero);
    span(1, nx - 2, px + 1, px);
    span(nx - 1, 1, zero, px + nx - 2);
  }

  template<bool HasZ, bool Weighted, bool WriteBar>
  void
  PrimalSpan(const TVStep & step,
             const TVPrimalCoefficients<Real> & plain,
             std::size_t n,
             const Real * __restrict pxC,
             const Real * __restrict pxP,
             const Real * __restrict pyC,
             const Real * __restrict pyP,
             const Real * __restrict pzC,
             const Real * __restrict pzP,
             const Real * __restrict f,
             const Real * __restrict w,
             Real * __restrict u,
             Real * __restrict ubar) const
  {
    const Real ihx = m_Geometry.ihx, ihy = m_Geometry.ihy, ihz = m_Geometry.ihz;
    const Real theta = static_cast<Real>(step.theta);
    for (std::size_t x = 0; x < n; ++x)
    {
      Real d = (pxC[x] - pxP[x]) * ihx;
      d += (pyC[x] - pyP[x]) * ihy;
      if constexpr (HasZ)
        d += (pzC[x] - pzP[x]) * ihz;
      const auto k = Weighted ? TVPrimalCoefficients<Real>::Weighted(plain, step, w[x]) : plain;
      const Real old = u[x];
      const Real next = old + k.b * (f[x] - old) + k.c * d;
      u[x] = next;
      if constexpr (WriteBar)
        ubar[x] = next + theta * (next - old);
    }
  }

  const std::vector<const Real *> m_Inputs;
  const Real * m_F;
  const Real * m_W; ///< data-term weight, or null
  const StencilGeometry<Real> m_Geometry;
  const std::size_t m_Rows;
  ParallelForFunction m_ParallelFor;
  HostFieldStorage<Real> m_State;
  Real *m_U, *m_Bar, *m_Px, *m_Py, *m_Pz; ///< in m_State; ubar and p_z may be null
  const std::vector<Real> m_Zeros;        ///< a row of zeros: the divergence's missing terms
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
