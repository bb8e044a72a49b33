// SPDX-License-Identifier: Apache-2.0
// Several devices as one stepper: z-slabs (the domain decomposition of
// [Huang2023, §4.2]) with two-sided halos, for any field layout that declares
// itself decomposable. The left-only buffers of [Huang2023, §4.2.1] are not
// enough: a step such as TV's gradient and divergence reads both neighbours.
#ifndef gpurSlabStepper_h
#define gpurSlabStepper_h

#include "gpurFieldStepper.h"

#include <functional>
#include <memory>
#include <vector>

namespace gpur
{

/**
 * Makes the stepper of one part of a grid (a slab, a streamed region, a chunk):
 * its index, the inputs of the padded part (the layout's input fields, null
 * where absent) and its grid.
 */
template<typename Real, typename Step, typename Sums>
using PartStepperFactory =
  std::function<std::unique_ptr<FieldStepper<Real, Step, Sums>>(std::size_t part,
                                                                const std::vector<const Real *> & inputs,
                                                                const Grid &)>;

/** The inputs of a part of the grid that starts at slice p0. */
template<typename Real>
std::vector<const Real *>
ShiftedInputs(const std::vector<const Real *> & inputs, const Grid & grid, std::size_t p0)
{
  std::vector<const Real *> shifted;
  for (const Real * in : inputs)
    shifted.push_back(in ? in + p0 * grid.size[0] * grid.size[1] : nullptr);
  return shifted;
}

/**
 * A stepper over `slabs` z-slabs of the grid, each made by the factory on its
 * interior padded by layout.Halo(exchangeInterval) slices of its neighbours
 * (clipped at the volume's faces). Every exchangeInterval steps the slabs swap
 * their halo slices of every state field through small host buffers. A step
 * moves information by stencilRadius slices, so the interiors stay exactly
 * those of a single stepper, bit for bit. Use SlabCount first: every interior
 * must hold at least a halo.
 */
template<typename Real, typename Step, typename Sums>
class SlabStepper : public FieldStepper<Real, Step, Sums>
{
public:
  using Base = FieldStepper<Real, Step, Sums>; ///< the stepper interface it implements

  /**
   * The slabs of `grid`, each made by `factory`; throws InvalidArgument when the layout is not
   * decomposable or the grid cannot make `slabs` slabs of at least a halo (see SlabCount).
   */
  SlabStepper(const FieldLayout & layout,
              const std::vector<const Real *> & inputs,
              const Grid & grid,
              std::size_t slabs,
              unsigned exchangeInterval,
              const PartStepperFactory<Real, Step, Sums> & factory)
    : Base(layout, grid)
    , m_Slice(grid.size[0] * grid.size[1])
    , m_Interval(exchangeInterval)
    , m_Halo(layout.Halo(exchangeInterval))
  {
    const std::size_t nz = grid.size[2];
    if (!layout.decomposable || slabs < 2 || nz / slabs < m_Halo)
    {
      throw InvalidArgument(layout.method + " in slabs: " + std::to_string(nz) + " slices cannot make " +
                            std::to_string(slabs) + " slabs of at least " + std::to_string(m_Halo) + " slices" +
                            (layout.decomposable ? "" : " (its steps are not local)"));
    }
    for (std::size_t s = 0; s < slabs; ++s)
    {
      Slab slab;
      static_cast<ZPart &>(slab) = SplitZ(nz, slabs, s, m_Halo);
      Grid sub = grid;
      sub.size[2] = slab.p1 - slab.p0;
      slab.stepper = factory(s, ShiftedInputs(inputs, grid, slab.p0), sub);
      m_Slabs.push_back(std::move(slab));
    }
    // Per cut: 2 halo widths of every state component (a whole-slice band, both sides).
    m_BandStride = 2 * m_Halo * m_Slice;
    std::size_t components = 0;
    for (const Field & f : layout.fields)
      components += f.role == FieldRole::State ? f.components : 0;
    m_Bands.assign(slabs - 1, std::vector<Real>(components * m_BandStride));
  }

  void
  Initialize() override
  {
    for (auto & slab : m_Slabs)
      slab.stepper->Initialize();
    m_Done = 0;
  }

  void
  Advance(const Step & step) override
  {
    for (auto & slab : m_Slabs)
      slab.stepper->Advance(step); // enqueued: the devices run concurrently
    if (++m_Done % m_Interval == 0)
      ExchangeHalos();
  }

  Sums
  Measure(std::size_t firstSlice, std::size_t slices) override
  {
    Sums total{};
    ForEachInterior(firstSlice,
                    slices,
                    [&](Slab & slab, std::size_t g0, std::size_t g1)
                    { total += slab.stepper->Measure(g0 - slab.p0, g1 - g0); });
    return total;
  }

  void
  Load(const HostFields<const Real> & host, std::size_t firstSlice, std::size_t slices) override
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
  Store(const HostFields<Real> & host, std::size_t firstSlice, std::size_t slices) override
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

  void
  Finish() override
  {
    for (auto & slab : m_Slabs)
      slab.stepper->Finish();
  }

private:
  /** Global interior slices [z0, z1) and the padded ones [p0, p1) its stepper holds. */
  struct Slab : ZPart
  {
    std::unique_ptr<Base> stepper;
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

  /** A host copy as seen by a slab, from global slice g0 (>= host.firstSlice) on. */
  template<typename HostReal>
  HostFields<HostReal>
  Shifted(const HostFields<HostReal> & host, std::size_t g0, const Slab & slab) const
  {
    const std::size_t shift = (g0 - host.firstSlice) * m_Slice;
    HostFields<HostReal> local;
    for (HostReal * d : host.data)
      local.data.push_back(d ? d + shift : nullptr);
    local.firstSlice = g0 - slab.p0;
    local.componentStride = host.componentStride ? host.componentStride : this->GetGrid().Count();
    return local;
  }

  /** The band of cut c (global slices [cut - halo, cut + halo)) as a host copy of a slab. */
  HostFields<Real>
  Band(std::size_t cut, const Slab & slab)
  {
    HostFields<Real> band;
    Real * data = m_Bands[cut].data();
    for (const Field & f : this->Layout().fields)
    {
      const bool held = f.role == FieldRole::State && f.Present();
      band.data.push_back(held ? data : nullptr);
      data += held ? f.components * m_BandStride : 0;
    }
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

  const std::size_t m_Slice;
  const unsigned m_Interval;
  const std::size_t m_Halo;
  std::vector<Slab> m_Slabs;
  std::size_t m_BandStride = 0;
  std::vector<std::vector<Real>> m_Bands;
  unsigned m_Done = 0;
};

} // namespace gpur

#endif
