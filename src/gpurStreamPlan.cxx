// SPDX-License-Identifier: Apache-2.0
#include "gpurStreamPlan.h"

#include "gpurDeviceProgram.h"
#include "gpurError.h"

#include <algorithm>

namespace gpur
{

std::string
MemorySize(std::uint64_t bytes)
{
  const bool small = bytes < (16u << 20);
  const std::uint64_t unit = small ? 1u << 10 : 1u << 20;
  return std::to_string((bytes + unit - 1) / unit) + (small ? " KiB" : " MiB");
}

std::uint64_t
DeviceMemoryBudget(const DeviceInfo & device, std::uint64_t limit)
{
  const std::uint64_t usable = device.globalMemory / 10 * 9;
  return limit > 0 ? std::min(limit, device.globalMemory) : usable;
}

std::uint64_t
DeviceBytesPerSlice(const Grid & grid, const FieldLayout & layout, unsigned partialsPerGroup, const DeviceInfo & device)
{
  Grid slice = grid;
  slice.size[2] = 1;
  const std::uint64_t voxels = grid.size[0] * grid.size[1];
  return (layout.Volumes() * voxels + partialsPerGroup * WorkGroups(MakeImageRange(slice, device))) *
         layout.elementSize;
}

StreamPlan
PlanStream(const Grid & grid,
           const FieldLayout & layout,
           unsigned partialsPerGroup,
           const DeviceInfo & device,
           std::uint64_t budget,
           std::size_t halo)
{
  const std::uint64_t perSlice = DeviceBytesPerSlice(grid, layout, partialsPerGroup, device);
  const std::uint64_t sliceBytes = grid.size[0] * grid.size[1] * layout.elementSize;
  const std::size_t nz = grid.size[2];
  // Regions of 2 halos (at least one halo after an even split) padded by a halo on each side, twice.
  const std::uint64_t leastBudget = 2 * 4 * halo * perSlice;
  const std::size_t padded =
    static_cast<std::size_t>(std::min<std::uint64_t>(budget / (2 * perSlice), device.maxAllocation / sliceBytes));
  StreamPlan plan;
  if (padded >= 4 * halo && nz >= 2 * halo)
  {
    const std::size_t interior = padded - 2 * halo;
    plan.regions = (nz + interior - 1) / interior;
    plan.paddedSlices = std::min(nz, (nz + plan.regions - 1) / plan.regions + 2 * halo);
    if (nz / plan.regions >= halo)
      return plan;
  }
  throw InvalidArgument(layout.method + " of " + grid.ToString() +
                        " streamed through host memory needs regions of at least " + std::to_string(halo) +
                        " slices (the halo of the exchange interval), " +
                        (nz < 2 * halo ? "so at least " + std::to_string(2 * halo) + " slices in z"
                                       : "so at least " + MemorySize(leastBudget) + " of device memory") +
                        "; it has " + std::to_string(nz) + " slices and a budget of " + MemorySize(budget) + " on '" +
                        device.name + "' (raise the device memory limit or lower the exchange interval)");
}

} // namespace gpur
