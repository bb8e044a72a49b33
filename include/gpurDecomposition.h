// SPDX-License-Identifier: Apache-2.0
// The stepper of a run for any field layout: the CPU reference, one OpenCL
// device (in memory or streamed through host memory), or z-slabs over several
// devices. Decomposition is opt-in: only layouts that declare local steps
// (FieldLayout::decomposable) are split.
#ifndef gpurDecomposition_h
#define gpurDecomposition_h

#include "gpurExecution.h"
#include "gpurSlabStepper.h"
#include "gpurStreamStepper.h"

namespace gpur
{

/** How a family makes its steppers. */
template<typename Real, typename Step, typename Sums>
struct StepperFactories
{
  /** The CPU reference on a grid with its inputs. */
  std::function<std::unique_ptr<FieldStepper<Real, Step, Sums>>(const std::vector<const Real *> & inputs,
                                                                const Grid &,
                                                                const ParallelForFunction &)>
    cpu;
  /** The family's kernels on a device. */
  DeviceProgramFactory<Real, Step, Sums> device;
};

/**
 * The stepper of a run on the resolved backend: CPU, one device, or z-slabs
 * over backend.devices (3D grids thick enough for slabs of
 * layout.Halo(stepsPerRound) slices) that exchange halos every stepsPerRound
 * steps. A device whose part does not fit in its memory budget
 * (execution.deviceMemoryLimit) streams it through host memory in rounds of
 * stepsPerRound steps. Trims backend.devices to the devices used.
 */
template<typename Real, typename Step, typename Sums>
std::unique_ptr<FieldStepper<Real, Step, Sums>>
MakeDecomposedStepper(const FieldLayout & layout,
                      const std::vector<const Real *> & inputs,
                      const Grid & grid,
                      ResolvedBackend & backend,
                      const ExecutionOptions & execution,
                      unsigned stepsPerRound,
                      const StepperFactories<Real, Step, Sums> & factories)
{
  layout.Validate();
  if (backend.backend != Backend::OpenCL)
    return factories.cpu(inputs, grid, ResolveParallelFor(execution.parallelFor));
  const std::size_t slabs =
    layout.decomposable ? SlabCount(grid, backend.devices.size(), layout.Halo(stepsPerRound)) : 1;
  backend.devices.resize(slabs);
  const std::uint64_t limit = execution.deviceMemoryLimit;
  if (slabs < 2)
    return MakeDeviceStepper(layout, inputs, grid, backend.device, limit, stepsPerRound, factories.device);
  const auto devices = backend.devices;
  return std::make_unique<SlabStepper<Real, Step, Sums>>(
    layout,
    inputs,
    grid,
    slabs,
    stepsPerRound,
    [&](std::size_t s, const std::vector<const Real *> & part, const Grid & sub)
    { return MakeDeviceStepper(layout, part, sub, devices[s], limit, stepsPerRound, factories.device); });
}

} // namespace gpur

#endif
