// SPDX-License-Identifier: Apache-2.0
// The OpenCL backend of the Runge-Kutta-Merson integrator
// (gpurRungeKuttaMerson.h): the state and the five stage vectors stay in one
// device's memory; per stage the host enqueues the argument's combination,
// the family's Constrain and its right-hand-side kernel; the error estimate
// is reduced on the device to one maximum per work-group, of which the host
// reads the few hundred values it needs to accept or reject the step.
#ifndef gpurRungeKuttaMersonDevice_h
#define gpurRungeKuttaMersonDevice_h

#include "gpurBuffer.h"
#include "gpurRungeKuttaMerson.h"

#include <memory>

namespace gpur
{

/**
 * A space discretisation on an OpenCL device: its kernels, built on the
 * device's context, enqueued on the queue it is given (in order: nothing
 * waits between them).
 */
template<typename Real>
class DeviceMethodOfLinesSystem
{
public:
  virtual ~DeviceMethodOfLinesSystem() = default;
  /** The number of unknowns. */
  virtual std::size_t
  Size() const = 0;
  /** Enqueues f = f(t, u) (u is Constrain'ed at t). */
  virtual void
  Evaluate(const cl::CommandQueue & queue, double t, const DeviceBuffer<Real> & u, const DeviceBuffer<Real> & f) = 0;
  /** Enqueues what MethodOfLinesSystem::Constrain does (default: nothing). */
  virtual void
  Constrain(const cl::CommandQueue & /*queue*/, double /*t*/, const DeviceBuffer<Real> & /*u*/)
  {
  }
};

/** The OpenCL backend of `system` on `context`'s device (its first queue), double refused without fp64. */
template<typename Real>
std::unique_ptr<MersonStages<Real>>
MakeDeviceMersonStages(DeviceContext & context, std::shared_ptr<DeviceMethodOfLinesSystem<Real>> system);

} // namespace gpur

#endif
