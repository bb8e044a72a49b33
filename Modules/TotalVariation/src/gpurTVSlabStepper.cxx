#include "gpurTVSlabStepper.h"

#include "gpurError.h"

#include <algorithm>
#include <vector>

namespace gpur
{

std::size_t
TVSlabCount(const Grid & grid, std::size_t wanted, std::size_t halo)
{
  return std::max<std::size_t>(1, std::min(wanted, grid.size[2] / std::max<std::size_t>(halo, 1)));
}

namespace
{

template<typename Real>
class TVSlabStepper : public TVStepper<Real>
{
public:
  TVSlabStepper(const Real * f,
                const Real * weight,
                const Grid & grid,
                std::size_t slabs,
                unsigned exchangeInterval,
                const TVSlabFactory<Real> & factory)
    : m_Grid(grid)
    , m_Slice(grid.size[0] * grid.size[1])
    , m_Interval(exchangeInterval)
    , m_Halo(exchangeInterval + 1)
  {
    const std::size_t nz = grid.size[2];
    if (slabs < 2 || nz / slabs < m_Halo)
    {
      throw InvalidArgument("slab decomposition: " + std::to_string(nz) + " slices cannot make " +
                            std::to_string(slabs) + " slabs of at least " + std::to_string(m_Halo) + " slices");
    }
    for (std::size_t s = 0; s < slabs; ++s)
    {
      Slab slab;
      static_cast<TVZPart &>(slab) = SplitZ(nz, slabs, s, m_Halo);
      Grid sub = grid;
      sub.size[2] = slab.p1 - slab.p0;
      const std::size_t offset = slab.p0 * m_Slice;
      slab.stepper = factory(s, f + offset, weight ? weight + offset : nullptr, sub);
      m_Slabs.push_back(std::move(slab));
    }
    // Per cut: 2 halo widths of u, ubar and 3 p components (a whole-slice band, both sides).
    m_BandStride = 2 * m_Halo * m_Slice;
    m_Bands.assign(slabs - 1, std::vector<Real>(5 * m_BandStride));
  }

  void
  Initialize() override
  {
    for (auto & slab : m_Slabs)
      slab.stepper->Initialize();
    m_Done = 0;
  }

  void
  Dual(const TVStep & step) override
  {
    for (auto & slab : m_Slabs)
      slab.stepper->Dual(step); // enqueued: the devices run concurrently
  }

  void
  Primal(const TVStep & step) override
  {
    for (auto & slab : m_Slabs)
      slab.stepper->Primal(step);
  }

  void
  EndIteration() override
  {
    for (auto & slab : m_Slabs)
      slab.stepper->EndIteration();
    if (++m_Done % m_Interval == 0)
      ExchangeHalos();
  }

  TVEnergySums
  Energies(std::size_t firstSlice, std::size_t slices) override
  {
    TVEnergySums total;
    ForEachInterior(firstSlice,
                    slices,
                    [&](Slab & slab, std::size_t g0, std::size_t g1)
                    { total += slab.stepper->Energies(g0 - slab.p0, g1 - g0); });
    return total;
  }

  void
  Load(const HostTVState<const Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    // Halos too, so that a loaded state is complete on every slab.
    for (auto & slab : m_Slabs)
    {
      const std::size_t g0 = std::max(firstSlice, slab.p0), g1 = std::min(firstSlice + slices, slab.p1);
      if (g0 < g1)
        slab.stepper->Load(Shifted(host, g0, slab), g0 - slab.p0, g1 - g0);
    }
  }

  void
  Store(const HostTVState<Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    ForEachInterior(firstSlice,
                    slices,
                    [&](Slab & slab, std::size_t g0, std::size_t g1)
                    { slab.stepper->Store(Shifted(host, g0, slab), g0 - slab.p0, g1 - g0); });
  }

  std::size_t
  StreamRegions() const override
  {
    std::size_t regions = 0;
    for (const auto & slab : m_Slabs)
      regions = std::max(regions, slab.stepper->StreamRegions());
    return regions;
  }

private:
  /** Global interior slices [z0, z1) and the padded ones [p0, p1) its stepper holds. */
  struct Slab : TVZPart
  {
    std::unique_ptr<TVStepper<Real>> stepper;
  };

  /** Calls body(slab, g0, g1) for each non-empty [g0, g1) = interior of the slab ∩ [first, first + slices). */
  template<typename Body>
  void
  ForEachInterior(std::size_t firstSlice, std::size_t slices, Body body)
  {
    for (auto & slab : m_Slabs)
    {
      const std::size_t g0 = std::max(firstSlice, slab.z0), g1 = std::min(firstSlice + slices, slab.z1);
      if (g0 < g1)
        body(slab, g0, g1);
    }
  }

  /** A whole-grid host copy as seen by a slab, from global slice g0 (>= host.firstSlice) on. */
  template<typename HostReal>
  HostTVState<HostReal>
  Shifted(const HostTVState<HostReal> & host, std::size_t g0, const Slab & slab) const
  {
    const std::size_t shift = (g0 - host.firstSlice) * m_Slice;
    HostTVState<HostReal> local;
    local.view.u = host.view.u ? host.view.u + shift : nullptr;
    local.view.bar = host.view.bar ? host.view.bar + shift : nullptr;
    local.view.p = host.view.p ? host.view.p + shift : nullptr;
    local.firstSlice = g0 - slab.p0;
    local.componentStride = host.componentStride ? host.componentStride : m_Grid.Count();
    return local;
  }

  /** The band of cut c (global slices [c - halo, c + halo)) as a host state of a slab. */
  HostTVState<Real>
  Band(std::size_t cut, const Slab & slab)
  {
    HostTVState<Real> band;
    Real * data = m_Bands[cut].data();
    band.view.u = data;
    band.view.bar = data + m_BandStride;
    band.view.p = data + 2 * m_BandStride;
    band.componentStride = m_BandStride;
    band.firstSlice = m_Slabs[cut + 1].z0 - m_Halo - slab.p0;
    return band;
  }

  void
  ExchangeHalos()
  {
    // Each side of a cut writes its interior edge into the band, then reads the other side's.
    for (std::size_t c = 0; c + 1 < m_Slabs.size(); ++c)
    {
      Slab &below = m_Slabs[c], &above = m_Slabs[c + 1];
      const std::size_t cut = above.z0;
      below.stepper->Store(Band(c, below), cut - m_Halo - below.p0, m_Halo);
      above.stepper->Store(Band(c, above), cut - above.p0, m_Halo);
    }
    for (std::size_t c = 0; c + 1 < m_Slabs.size(); ++c)
    {
      Slab &below = m_Slabs[c], &above = m_Slabs[c + 1];
      const std::size_t cut = above.z0;
      below.stepper->Load(AsConst(Band(c, below)), cut - below.p0, m_Halo);
      above.stepper->Load(AsConst(Band(c, above)), cut - m_Halo - above.p0, m_Halo);
    }
  }

  const Grid m_Grid;
  const std::size_t m_Slice;
  const unsigned m_Interval;
  const std::size_t m_Halo;
  std::vector<Slab> m_Slabs;
  std::size_t m_BandStride = 0;
  std::vector<std::vector<Real>> m_Bands;
  unsigned m_Done = 0;
};

} // namespace

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVSlabStepper(const Real * f,
                  const Real * weight,
                  const Grid & grid,
                  std::size_t slabs,
                  unsigned exchangeInterval,
                  const TVSlabFactory<Real> & factory)
{
  return std::unique_ptr<TVStepper<Real>>(new TVSlabStepper<Real>(f, weight, grid, slabs, exchangeInterval, factory));
}

template std::unique_ptr<TVStepper<float>>
MakeTVSlabStepper(const float *, const float *, const Grid &, std::size_t, unsigned, const TVSlabFactory<float> &);
template std::unique_ptr<TVStepper<double>>
MakeTVSlabStepper(const double *, const double *, const Grid &, std::size_t, unsigned, const TVSlabFactory<double> &);

} // namespace gpur
