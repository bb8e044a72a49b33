// SPDX-License-Identifier: Apache-2.0
// How much of a device a run may use, and how a grid too large for it streams
// through in z-regions.
#ifndef gpurStreamPlan_h
#define gpurStreamPlan_h

#include "gpurDevice.h"
#include "gpurFieldLayout.h"

#include <cstdint>
#include <string>

namespace gpur
{

/** How a grid streams through a device: `regions` z-regions, each at most `paddedSlices` thick with its halos. */
struct StreamPlan
{
  std::size_t regions = 1;      ///< z-regions the grid streams through (1: it fits whole)
  std::size_t paddedSlices = 0; ///< the thickest region with its halos, in slices
};

/**
 * The memory a run may use on a device: `limit` bytes when not 0 (capped by
 * the device's memory), else 90 % of the device's memory (the rest is left to
 * the driver and to other filters).
 */
std::uint64_t
DeviceMemoryBudget(const DeviceInfo & device, std::uint64_t limit);

/** Device bytes per z-slice of a layout: every present field and `partialsPerGroup` per work-group. */
std::uint64_t
DeviceBytesPerSlice(const Grid & grid,
                    const FieldLayout & layout,
                    unsigned partialsPerGroup,
                    const DeviceInfo & device);

/**
 * The fewest regions whose two region buffers (double buffering) fit in
 * `budget` bytes, each region at least `halo` slices thick and padded by halo
 * slices on both sides. Throws InvalidArgument, naming the least budget that
 * works, when none does.
 */
StreamPlan
PlanStream(const Grid & grid,
           const FieldLayout & layout,
           unsigned partialsPerGroup,
           const DeviceInfo & device,
           std::uint64_t budget,
           std::size_t halo);

/** Bytes for a message, rounded up: KiB below 16 MiB (test-sized limits), else MiB. */
std::string
MemorySize(std::uint64_t bytes);

} // namespace gpur

#endif
