// TV on one device for volumes larger than its memory: the state lives in host
// memory and z-regions stream through the device (internal; digest §5.8).
#ifndef gpurTVStreamStepper_h
#define gpurTVStreamStepper_h

#include "gpurTVDeviceKernels.h"

#include <cstdint>
#include <memory>

namespace gpur
{

/** How a grid streams through a device: `regions` z-regions, each at most `paddedSlices` thick with its halos. */
struct TVStreamPlan
{
  std::size_t regions = 1;
  std::size_t paddedSlices = 0;
};

/**
 * The memory a TV run may use on a device: `limit` bytes when not 0 (capped
 * by the device's memory), else 90 % of the device's memory (the rest is left
 * to the driver and to other filters).
 */
std::uint64_t
TVDeviceMemoryBudget(const DeviceInfo & device, std::uint64_t limit);

/** Bytes the in-memory stepper needs for a grid (state and energy partials). */
std::uint64_t
TVDeviceBytes(const Grid & grid, const TVStateLayout & layout, std::size_t realSize, const DeviceInfo & device);

/**
 * The fewest regions whose two region buffers (double buffering) fit in
 * `budget` bytes, each region at least `halo` slices thick and padded by halo
 * slices on both sides. Throws InvalidArgument, naming the least budget that
 * works, when none does.
 */
TVStreamPlan
PlanTVStream(const Grid & grid,
             const TVStateLayout & layout,
             std::size_t realSize,
             const DeviceInfo & device,
             std::uint64_t budget,
             std::size_t halo);

/**
 * A stepper that keeps u, ubar and p in host memory and advances them in
 * passes: each pass sends every z-region, padded by exchangeInterval + 1
 * slices of its neighbours, to the device, runs the iterations recorded since
 * the last pass (at most exchangeInterval) and brings the region's interior
 * back, so the result equals the in-memory stepper's (the halo argument of the
 * slabs). Two region buffers and two queues overlap the transfers of one region
 * with the kernels of the next; events order them, the host waits only when it
 * needs the state (Store, Load, Energies) and before it queues a pass while
 * the previous one is unfinished (progress and abort follow the device).
 */
template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStreamStepper(const Real * f,
                    const Real * weight,
                    const Grid & grid,
                    bool usesBar,
                    const DeviceInfo & device,
                    const TVStreamPlan & plan,
                    unsigned exchangeInterval);

/**
 * The stepper of one device: in device memory when the grid fits the budget
 * (TVDeviceMemoryBudget of memoryLimit), else streamed (3D grids only).
 */
template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVDeviceStepper(const Real * f,
                    const Real * weight,
                    const Grid & grid,
                    bool usesBar,
                    const DeviceInfo & device,
                    std::uint64_t memoryLimit,
                    unsigned exchangeInterval);

} // namespace gpur

#endif
