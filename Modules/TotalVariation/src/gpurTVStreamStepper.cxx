#include "gpurTVStreamStepper.h"

#include "gpurError.h"

#include <algorithm>
#include <deque>
#include <vector>

namespace gpur
{

namespace
{

/** Bytes for a message, rounded up: KiB below 16 MiB (test-sized limits), else MiB. */
std::string
MiB(std::uint64_t bytes)
{
  const bool small = bytes < (16u << 20);
  const std::uint64_t unit = small ? 1u << 10 : 1u << 20;
  return std::to_string((bytes + unit - 1) / unit) + (small ? " KiB" : " MiB");
}

/** Device bytes per z-slice of a state: the volumes and the energy partials. */
std::uint64_t
BytesPerSlice(const Grid & grid, const TVStateLayout & layout, std::size_t realSize, const DeviceInfo & device)
{
  Grid slice = grid;
  slice.size[2] = 1;
  const std::uint64_t voxels = grid.size[0] * grid.size[1];
  return (layout.Volumes() * voxels + kTVEnergyPartials * WorkGroups(MakeImageRange(slice, device))) * realSize;
}

} // namespace

std::uint64_t
TVDeviceMemoryBudget(const DeviceInfo & device, std::uint64_t limit)
{
  const std::uint64_t usable = device.globalMemory / 10 * 9;
  return limit > 0 ? std::min(limit, device.globalMemory) : usable;
}

std::uint64_t
TVDeviceBytes(const Grid & grid, const TVStateLayout & layout, std::size_t realSize, const DeviceInfo & device)
{
  return grid.size[2] * BytesPerSlice(grid, layout, realSize, device);
}

TVStreamPlan
PlanTVStream(const Grid & grid,
             const TVStateLayout & layout,
             std::size_t realSize,
             const DeviceInfo & device,
             std::uint64_t budget,
             std::size_t halo)
{
  const std::uint64_t perSlice = BytesPerSlice(grid, layout, realSize, device);
  const std::uint64_t sliceBytes = grid.size[0] * grid.size[1] * realSize;
  const std::size_t nz = grid.size[2];
  // Regions of 2 halos (at least one halo after an even split) padded by a halo on each side, twice.
  const std::uint64_t leastBudget = 2 * 4 * halo * perSlice;
  const std::size_t padded =
    static_cast<std::size_t>(std::min<std::uint64_t>(budget / (2 * perSlice), device.maxAllocation / sliceBytes));
  TVStreamPlan plan;
  if (padded >= 4 * halo && nz >= 2 * halo)
  {
    const std::size_t interior = padded - 2 * halo;
    plan.regions = (nz + interior - 1) / interior;
    plan.paddedSlices = std::min(nz, (nz + plan.regions - 1) / plan.regions + 2 * halo);
    if (nz / plan.regions >= halo)
      return plan;
  }
  throw InvalidArgument("TV denoising of " + grid.ToString() +
                        " streamed through host memory needs regions of at least " + std::to_string(halo) +
                        " slices (the exchange interval + 1), " +
                        (nz < 2 * halo ? "so at least " + std::to_string(2 * halo) + " slices in z"
                                       : "so at least " + MiB(leastBudget) + " of device memory") +
                        "; it has " + std::to_string(nz) + " slices and a budget of " + MiB(budget) + " on '" +
                        device.name + "' (raise the device memory limit or lower the exchange interval)");
}

namespace
{

template<typename Real>
class TVStreamStepper : public TVStepper<Real>
{
public:
  TVStreamStepper(const Real * f,
                  const Real * weight,
                  const Grid & grid,
                  bool usesBar,
                  const DeviceInfo & device,
                  const TVStreamPlan & plan,
                  unsigned exchangeInterval)
    : m_Context(DeviceContext::Get(device))
    , m_F(f)
    , m_W(weight)
    , m_Grid(grid)
    , m_Slice(grid.size[0] * grid.size[1])
    , m_Interval(exchangeInterval)
    , m_Kernels(*m_Context)
  {
    const std::size_t nz = grid.size[2], halo = exchangeInterval + 1;
    for (std::size_t r = 0; r < plan.regions; ++r)
    {
      Region region;
      static_cast<TVZPart &>(region) = SplitZ(nz, plan.regions, r, halo);
      region.grid = grid;
      region.grid.size[2] = region.p1 - region.p0;
      region.range = MakeImageRange(region.grid, device);
      m_Regions.push_back(region);
    }
    Grid slot = grid;
    slot.size[2] = plan.paddedSlices;
    const TVStateLayout layout = MakeTVStateLayout(grid, weight != nullptr, usesBar);
    for (auto & s : m_Slots)
      s = TVDeviceState<Real>(*m_Context, slot.Count(), WorkGroups(MakeImageRange(slot, device)), layout);
    m_U.resize(grid.Count());
    if (usesBar)
      m_Bar.resize(grid.Count());
    m_P.resize(3 * grid.Count());
  }

  ~TVStreamStepper() override
  {
    // The queues may still read or write the host arrays this object owns.
    try
    {
      Queue(0).finish();
      Queue(1).finish();
    }
    catch (...)
    {
    }
  }

  void
  Initialize() override
  {
    WaitAll();
    std::copy(m_F, m_F + m_Grid.Count(), m_U.begin());
    std::copy(m_F, m_F + m_Bar.size(), m_Bar.begin());
    std::fill(m_P.begin(), m_P.end(), Real(0));
    Reset();
  }

  void
  Dual(const TVStep & step) override
  {
    m_Ops.push_back({ true, step });
  }

  void
  Primal(const TVStep & step) override
  {
    m_Ops.push_back({ false, step });
  }

  void
  EndIteration() override
  {
    if (++m_PendingIterations == m_Interval)
      Pass(false, 0, 0);
  }

  TVEnergySums
  Energies(std::size_t firstSlice, std::size_t slices) override
  {
    const std::pair<std::size_t, std::size_t> range(firstSlice, firstSlice + slices);
    if (m_Ops.empty() && m_EnergiesValid && m_EnergyRange == range)
      return m_Energies;
    Pass(true, range.first, range.second);
    WaitAll();
    m_Energies = TVEnergySums();
    for (const auto & partials : m_Partials)
      m_Energies += TVDeviceKernels<Real>::Sum(partials.data(), partials.size() / kTVEnergyPartials);
    m_EnergiesValid = true;
    m_EnergyRange = range;
    return m_Energies;
  }

  void
  Load(const HostTVState<const Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    Flush();
    ForEachStatePart(m_Grid,
                     HasBar(),
                     host,
                     firstSlice,
                     slices,
                     [this](const Real * from, TVStatePart part, std::size_t offset, std::size_t n)
                     { std::copy(from, from + n, HostPart(part) + offset); });
    m_EnergiesValid = false;
  }

  void
  Store(const HostTVState<Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    Flush();
    ForEachStatePart(m_Grid,
                     HasBar(),
                     host,
                     firstSlice,
                     slices,
                     [this](Real * to, TVStatePart part, std::size_t offset, std::size_t n)
                     { std::copy(HostPart(part) + offset, HostPart(part) + offset + n, to); });
  }

  std::size_t
  StreamRegions() const override
  {
    return m_Regions.size();
  }

private:
  /** Interior slices [z0, z1) and the padded ones [p0, p1) sent to the device. */
  struct Region : TVZPart
  {
    Grid grid; ///< the padded region
    ImageRange range;
  };
  struct Op
  {
    bool dual;
    TVStep step;
  };

  const cl::CommandQueue &
  Queue(unsigned i) const
  {
    return m_Context->Queue(i); // 0: kernels, 1: transfers
  }
  bool
  HasBar() const
  {
    return !m_Bar.empty();
  }
  Real *
  HostPart(TVStatePart part)
  {
    const std::size_t n = m_Grid.Count();
    switch (part)
    {
      case TVStatePart::U:
        return m_U.data();
      case TVStatePart::Bar:
        return m_Bar.data();
      default:
        return m_P.data() + (static_cast<unsigned>(part) - static_cast<unsigned>(TVStatePart::Px)) * n;
    }
  }
  HostTVState<Real>
  HostState()
  {
    HostTVState<Real> s;
    s.view.u = m_U.data();
    s.view.bar = HasBar() ? m_Bar.data() : nullptr;
    s.view.p = m_P.data();
    return s;
  }

  void
  Reset()
  {
    m_Ops.clear();
    m_PendingIterations = 0;
    m_EnergiesValid = false;
  }

  /** Runs the recorded iterations and waits until the host state holds their result. */
  void
  Flush()
  {
    if (!m_Ops.empty())
      Pass(false, 0, 0);
    WaitAll();
  }

  void
  WaitAll()
  {
    for (auto & done : m_InFlight)
      done.wait();
    m_InFlight.clear();
  }

  /**
   * Enqueues one pass: the recorded iterations on every region (when there
   * are any) and, with energies, the energy sums of the interiors within
   * [e0, e1) (then only the regions that hold such slices, when there are no
   * iterations). Transfer queue order: up(0), up(1), down(0), up(2), down(1)...
   * so a region's halo is read before its neighbour's new interior is written
   * back, and a buffer is refilled only after its region came back.
   */
  void
  Pass(bool energies, std::size_t e0, std::size_t e1)
  {
    const bool advance = !m_Ops.empty();
    std::vector<std::size_t> regions;
    for (std::size_t r = 0; r < m_Regions.size(); ++r)
      if (advance || (energies && Overlaps(m_Regions[r], e0, e1)))
        regions.push_back(r);
    // The previous pass must be done before this one is queued: the host (progress,
    // abort) stays within one pass of the device. It costs nothing measurable: this
    // pass's first upload waits on the transfer queue for the previous pass's last
    // download anyway.
    while (!m_InFlight.empty())
    {
      m_InFlight.front().wait();
      m_InFlight.pop_front();
    }
    if (energies)
      m_Partials.assign(regions.size(), std::vector<Real>());
    const cl::CommandQueue &compute = Queue(0), &transfer = Queue(1);
    std::vector<cl::Event> computed(regions.size());
    const HostTVState<Real> host = HostState();
    auto bringBack = [&](std::size_t i)
    {
      const Region & region = m_Regions[regions[i]];
      const TVDeviceState<Real> & slot = m_Slots[i % 2];
      const std::vector<cl::Event> after{ computed[i] };
      transfer.enqueueBarrierWithWaitList(&after);
      if (advance)
        ForEachStatePart(m_Grid,
                         HasBar(),
                         host,
                         region.z0,
                         region.z1 - region.z0,
                         [&](Real * to, TVStatePart part, std::size_t offset, std::size_t n)
                         { slot.Part(part).Download(transfer, to, n, offset - region.p0 * m_Slice, false); });
      if (energies)
      {
        m_Partials[i].resize(kTVEnergyPartials * WorkGroups(region.range));
        slot.partials.Download(transfer, m_Partials[i].data(), m_Partials[i].size(), 0, false);
      }
    };
    for (std::size_t i = 0; i < regions.size(); ++i)
    {
      const Region & region = m_Regions[regions[i]];
      const TVDeviceState<Real> & slot = m_Slots[i % 2];
      const std::size_t offset = region.p0 * m_Slice, n = region.grid.Count();
      slot.f.Upload(transfer, m_F + offset, n, 0, false);
      if (m_W != nullptr)
        slot.w.Upload(transfer, m_W + offset, n, 0, false);
      ForEachStatePart(m_Grid,
                       HasBar(),
                       AsConst(host),
                       region.p0,
                       region.p1 - region.p0,
                       [&](const Real * from, TVStatePart part, std::size_t at, std::size_t count)
                       { slot.Part(part).Upload(transfer, from, count, at - offset, false); });
      cl::Event uploaded;
      transfer.enqueueMarkerWithWaitList(nullptr, &uploaded);
      const std::vector<cl::Event> after{ uploaded };
      compute.enqueueBarrierWithWaitList(&after);
      for (const Op & op : m_Ops)
      {
        if (op.dual)
          m_Kernels.Dual(compute, slot, region.grid, region.range, op.step);
        else
          m_Kernels.Primal(compute, slot, region.grid, region.range, op.step);
      }
      if (energies)
      {
        const std::size_t z0 = std::max(e0, region.z0), z1 = std::max(z0, std::min(e1, region.z1));
        m_Kernels.Energies(compute, slot, region.grid, region.range, z0 - region.p0, z1 - region.p0);
      }
      compute.enqueueMarkerWithWaitList(nullptr, &computed[i]);
      compute.flush();
      if (i > 0)
        bringBack(i - 1);
      transfer.flush();
    }
    if (!regions.empty())
      bringBack(regions.size() - 1);
    cl::Event done;
    transfer.enqueueMarkerWithWaitList(nullptr, &done);
    transfer.flush();
    m_InFlight.push_back(done);
    Reset();
  }

  static bool
  Overlaps(const Region & region, std::size_t e0, std::size_t e1)
  {
    return std::max(e0, region.z0) < std::min(e1, region.z1);
  }

  std::shared_ptr<DeviceContext> m_Context;
  const Real * m_F;
  const Real * m_W;
  const Grid m_Grid;
  const std::size_t m_Slice;
  const unsigned m_Interval;
  TVDeviceKernels<Real> m_Kernels;
  std::vector<Region> m_Regions;
  TVDeviceState<Real> m_Slots[2];
  std::vector<Real> m_U, m_Bar, m_P; ///< the state; p holds its 3 components one after the other
  std::vector<Op> m_Ops;             ///< the iterations since the last pass
  unsigned m_PendingIterations = 0;
  std::deque<cl::Event> m_InFlight; ///< the passes not known to be done
  std::vector<std::vector<Real>> m_Partials;
  TVEnergySums m_Energies;
  bool m_EnergiesValid = false;
  std::pair<std::size_t, std::size_t> m_EnergyRange;
};

} // namespace

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStreamStepper(const Real * f,
                    const Real * weight,
                    const Grid & grid,
                    bool usesBar,
                    const DeviceInfo & device,
                    const TVStreamPlan & plan,
                    unsigned exchangeInterval)
{
  return std::unique_ptr<TVStepper<Real>>(
    new TVStreamStepper<Real>(f, weight, grid, usesBar, device, plan, exchangeInterval));
}

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVDeviceStepper(const Real * f,
                    const Real * weight,
                    const Grid & grid,
                    bool usesBar,
                    const DeviceInfo & device,
                    std::uint64_t memoryLimit,
                    unsigned exchangeInterval)
{
  const TVStateLayout layout = MakeTVStateLayout(grid, weight != nullptr, usesBar);
  const std::uint64_t budget = TVDeviceMemoryBudget(device, memoryLimit);
  const std::uint64_t needed = TVDeviceBytes(grid, layout, sizeof(Real), device);
  const bool fits = needed <= budget && grid.Count() * sizeof(Real) <= device.maxAllocation;
  if (fits || grid.size[2] == 1)
  {
    if (!fits && memoryLimit > 0 && needed > memoryLimit)
    {
      throw InvalidArgument("TV denoising of " + grid.ToString() + " needs " + MiB(needed) +
                            " of device memory but the limit is " + MiB(memoryLimit) +
                            "; only 3D volumes are streamed through host memory (raise the limit)");
    }
    return MakeTVStepperOpenCL(f, weight, grid, usesBar, device); // it reports a grid too large for the device
  }
  const TVStreamPlan plan = PlanTVStream(grid, layout, sizeof(Real), device, budget, exchangeInterval + 1);
  return MakeTVStreamStepper(f, weight, grid, usesBar, device, plan, exchangeInterval);
}

#define GPUR_INSTANTIATE_TV_STREAM(Real)                                                                               \
  template std::unique_ptr<TVStepper<Real>> MakeTVStreamStepper(                                                       \
    const Real *, const Real *, const Grid &, bool, const DeviceInfo &, const TVStreamPlan &, unsigned);               \
  template std::unique_ptr<TVStepper<Real>> MakeTVDeviceStepper(                                                       \
    const Real *, const Real *, const Grid &, bool, const DeviceInfo &, std::uint64_t, unsigned);
GPUR_INSTANTIATE_TV_STREAM(float)
GPUR_INSTANTIATE_TV_STREAM(double)
#undef GPUR_INSTANTIATE_TV_STREAM

} // namespace gpur
