// SPDX-License-Identifier: Apache-2.0
// One device for grids larger than its memory, for any decomposable field
// layout: the state lives in host memory and padded z-regions stream through
// the device (the multiple-splits scheme of [Huang2023, §4.2.2, Algorithm 4],
// with two-sided halos).
#ifndef gpurStreamStepper_h
#define gpurStreamStepper_h

#include "gpurDeviceProgram.h"
#include "gpurStreamPlan.h"

#include <deque>
#include <utility>
#include <vector>

namespace gpur
{

/**
 * A stepper that keeps the state fields in host memory and advances them in
 * passes: each pass sends every z-region, padded by layout.Halo(exchangeInterval)
 * slices of its neighbours, to the device, runs the steps recorded since the
 * last pass (at most exchangeInterval) and brings the region's interior back,
 * so the result equals the in-memory stepper's (the halo argument of the
 * slabs). Two region buffers and two queues overlap the transfers of one region
 * with the kernels of the next; events order them, the host waits only when it
 * needs the state (Store, Load, Measure) and before it queues a pass while the
 * previous one is unfinished (progress and abort follow the device).
 */
template<typename Real, typename Step, typename Sums>
class StreamStepper : public FieldStepper<Real, Step, Sums>
{
public:
  using Base = FieldStepper<Real, Step, Sums>;

  /** The program must be built on the device's context (DeviceContext::Get(device)). */
  StreamStepper(const FieldLayout & layout,
                const std::vector<const Real *> & inputs,
                const Grid & grid,
                const DeviceInfo & device,
                const StreamPlan & plan,
                unsigned exchangeInterval,
                std::unique_ptr<DeviceProgram<Real, Step, Sums>> program)
    : Base(layout, grid)
    , m_Context(DeviceContext::Get(device))
    , m_Inputs(inputs)
    , m_Slice(grid.size[0] * grid.size[1])
    , m_Interval(exchangeInterval)
    , m_Program(std::move(program))
    , m_State(layout, grid)
  {
    const std::size_t nz = grid.size[2], halo = layout.Halo(exchangeInterval);
    for (std::size_t r = 0; r < plan.regions; ++r)
    {
      Region region;
      static_cast<ZPart &>(region) = SplitZ(nz, plan.regions, r, halo);
      region.grid = grid;
      region.grid.size[2] = region.p1 - region.p0;
      region.range = MakeImageRange(region.grid, device);
      m_Regions.push_back(region);
    }
    Grid slot = grid;
    slot.size[2] = plan.paddedSlices;
    for (auto & s : m_Slots)
      s = m_Program->Allocate(*m_Context, slot.Count(), WorkGroups(MakeImageRange(slot, device)));
  }

  ~StreamStepper() override
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
    m_State.Initialize(this->Layout(), m_Inputs);
    Reset();
  }

  void
  Advance(const Step & step) override
  {
    m_Steps.push_back(step);
    if (m_Steps.size() == m_Interval)
      Pass(false, 0, 0);
  }

  Sums
  Measure(std::size_t firstSlice, std::size_t slices) override
  {
    const std::pair<std::size_t, std::size_t> range(firstSlice, firstSlice + slices);
    if (m_Steps.empty() && m_SumsValid && m_SumsRange == range)
      return m_Sums;
    Pass(true, range.first, range.second);
    WaitAll();
    m_Sums = Sums{};
    for (const auto & partials : m_Partials)
      m_Sums += m_Program->Sum(partials.data(), partials.size() / m_Program->PartialsPerGroup());
    m_SumsValid = true;
    m_SumsRange = range;
    return m_Sums;
  }

  void
  Load(const HostFields<const Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    Flush();
    m_State.Load(this->Layout(), this->GetGrid(), host, firstSlice, slices);
    m_SumsValid = false;
  }

  void
  Store(const HostFields<Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    Flush();
    m_State.Store(this->Layout(), this->GetGrid(), host, firstSlice, slices);
  }

  std::size_t
  StreamRegions() const override
  {
    return m_Regions.size();
  }

  void
  Finish() override
  {
    Flush();
  }

private:
  /** Interior slices [z0, z1) and the padded ones [p0, p1) sent to the device. */
  struct Region : ZPart
  {
    Grid grid; ///< the padded region
    ImageRange range;
  };

  const cl::CommandQueue &
  Queue(unsigned i) const
  {
    return m_Context->Queue(i); // 0: kernels, 1: transfers
  }

  void
  Reset()
  {
    m_Steps.clear();
    m_SumsValid = false;
  }

  /** Runs the recorded steps and waits until the host state holds their result. */
  void
  Flush()
  {
    if (!m_Steps.empty())
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
   * Enqueues one pass: the recorded steps on every region (when there are
   * any) and, with sums, the measured sums of the interiors within [e0, e1)
   * (then only the regions that hold such slices, when there are no steps).
   * Transfer queue order: up(0), up(1), down(0), up(2), down(1)... so a
   * region's halo is read before its neighbour's new interior is written
   * back, and a buffer is refilled only after its region came back.
   */
  void
  Pass(bool sums, std::size_t e0, std::size_t e1)
  {
    const bool advance = !m_Steps.empty();
    std::vector<std::size_t> regions;
    for (std::size_t r = 0; r < m_Regions.size(); ++r)
      if (advance || (sums && Overlaps(m_Regions[r], e0, e1)))
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
    if (sums)
      m_Partials.assign(regions.size(), std::vector<Real>());
    const cl::CommandQueue &compute = Queue(0), &transfer = Queue(1);
    const FieldLayout & layout = this->Layout();
    const Grid & grid = this->GetGrid();
    std::vector<cl::Event> computed(regions.size());
    const HostFields<Real> host = m_State.View();
    auto bringBack = [&](std::size_t i)
    {
      const Region & region = m_Regions[regions[i]];
      const DeviceFields<Real> & slot = *m_Slots[i % 2];
      const std::vector<cl::Event> after{ computed[i] };
      transfer.enqueueBarrierWithWaitList(&after);
      if (advance)
        ForEachFieldPart(layout,
                         grid,
                         host,
                         region.z0,
                         region.z1 - region.z0,
                         [&](Real * to, unsigned k, unsigned c, std::size_t offset, std::size_t n)
                         { slot.Field(k, c).Download(transfer, to, n, offset - region.p0 * m_Slice, false); });
      if (sums)
      {
        m_Partials[i].resize(m_Program->PartialsPerGroup() * WorkGroups(region.range));
        slot.Partials().Download(transfer, m_Partials[i].data(), m_Partials[i].size(), 0, false);
      }
    };
    for (std::size_t i = 0; i < regions.size(); ++i)
    {
      const Region & region = m_Regions[regions[i]];
      const DeviceFields<Real> & slot = *m_Slots[i % 2];
      const std::size_t offset = region.p0 * m_Slice, n = region.grid.Count();
      UploadInputs(transfer, layout, slot, m_Inputs, offset, n, false);
      ForEachFieldPart(layout,
                       grid,
                       AsConst(host),
                       region.p0,
                       region.p1 - region.p0,
                       [&](const Real * from, unsigned k, unsigned c, std::size_t at, std::size_t count)
                       { slot.Field(k, c).Upload(transfer, from, count, at - offset, false); });
      cl::Event uploaded;
      transfer.enqueueMarkerWithWaitList(nullptr, &uploaded);
      const std::vector<cl::Event> after{ uploaded };
      compute.enqueueBarrierWithWaitList(&after);
      for (const Step & step : m_Steps)
        m_Program->Advance(compute, slot, region.grid, region.range, step);
      m_Program->Settle(compute, slot, region.grid, region.range);
      if (sums)
      {
        const std::size_t z0 = std::max(e0, region.z0), z1 = std::max(z0, std::min(e1, region.z1));
        m_Program->Measure(compute, slot, region.grid, region.range, z0 - region.p0, z1 - region.p0);
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
  const std::vector<const Real *> m_Inputs;
  const std::size_t m_Slice;
  const unsigned m_Interval;
  std::unique_ptr<DeviceProgram<Real, Step, Sums>> m_Program;
  std::vector<Region> m_Regions;
  std::unique_ptr<DeviceFields<Real>> m_Slots[2];
  HostFieldStorage<Real> m_State;
  std::vector<Step> m_Steps;        ///< the steps since the last pass
  std::deque<cl::Event> m_InFlight; ///< the passes not known to be done
  std::vector<std::vector<Real>> m_Partials;
  Sums m_Sums{};
  bool m_SumsValid = false;
  std::pair<std::size_t, std::size_t> m_SumsRange;
};

/**
 * The stepper of one device: in device memory when the grid fits the budget
 * (DeviceMemoryBudget of memoryLimit), else streamed (3D grids of a
 * decomposable layout only).
 */
template<typename Real, typename Step, typename Sums>
std::unique_ptr<FieldStepper<Real, Step, Sums>>
MakeDeviceStepper(const FieldLayout & layout,
                  const std::vector<const Real *> & inputs,
                  const Grid & grid,
                  const DeviceInfo & device,
                  std::uint64_t memoryLimit,
                  unsigned exchangeInterval,
                  const DeviceProgramFactory<Real, Step, Sums> & factory)
{
  auto program = factory(*DeviceContext::Get(device));
  const unsigned partialsPerGroup = program->PartialsPerGroup();
  const std::uint64_t budget = DeviceMemoryBudget(device, memoryLimit);
  const std::uint64_t needed = grid.size[2] * DeviceBytesPerSlice(grid, layout, partialsPerGroup, device);
  const bool fits = needed <= budget && grid.Count() * sizeof(Real) <= device.maxAllocation;
  if (fits || grid.size[2] == 1 || !layout.decomposable)
  {
    if (!fits && memoryLimit > 0 && needed > memoryLimit)
    {
      throw InvalidArgument(layout.method + " of " + grid.ToString() + " needs " + MemorySize(needed) +
                            " of device memory but the limit is " + MemorySize(memoryLimit) + "; only 3D volumes" +
                            (layout.decomposable ? "" : " of methods with local steps") +
                            " are streamed through host memory (raise the limit)");
    }
    // It reports a grid too large for the device.
    return std::make_unique<DeviceFieldStepper<Real, Step, Sums>>(layout, inputs, grid, device, std::move(program));
  }
  const StreamPlan plan = PlanStream(grid, layout, partialsPerGroup, device, budget, layout.Halo(exchangeInterval));
  return std::make_unique<StreamStepper<Real, Step, Sums>>(
    layout, inputs, grid, device, plan, exchangeInterval, std::move(program));
}

} // namespace gpur

#endif
