// SPDX-License-Identifier: Apache-2.0
// Process-wide OpenCL state of one device: context, queues and program cache
// (device side: includes the OpenCL C++ bindings through gpurOpenCL.h).
#ifndef gpurContext_h
#define gpurContext_h

#include "gpurDevice.h"
#include "gpurKernelSource.h"
#include "gpurOpenCL.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gpur
{

/**
 * Context, command queues and compiled programs of one device, shared by all
 * filters of the process. Obtain it with DeviceContext::Get(); it lives until
 * the process ends. Thread-safe: programs are built once per (sources, options)
 * and cached; kernels are created per user because cl_kernel arguments are not
 * thread-safe.
 */
class DeviceContext
{
public:
  /** The shared context of a device (created on first use). */
  static std::shared_ptr<DeviceContext>
  Get(const DeviceInfo & device);

  /** The device this context is for. */
  const DeviceInfo &
  Info() const
  {
    return m_Info;
  }
  /** The OpenCL context (of this one device). */
  const cl::Context &
  Context() const
  {
    return m_Context;
  }
  /** The OpenCL device. */
  const cl::Device &
  Device() const
  {
    return m_Device;
  }
  /**
   * In-order queue number i (0 or 1) with profiling enabled. Two queues per
   * device let transfers overlap with compute (queue 0: compute, queue 1: copies).
   */
  const cl::CommandQueue &
  Queue(unsigned i = 0) const;

  /**
   * Program built from the sources concatenated in order, with the options.
   * Built once per process; later calls return the cached program.
   * Throws BuildError with the full build log when compilation fails. Engines
   * build their programs through gpur::BuildProgram (gpurProgram.h), which
   * assembles the sources and options and calls this.
   */
  cl::Program
  Program(const std::vector<KernelSource> & sources, const std::string & options = std::string());

  /** Number of program builds done by this context (for tests of the cache). */
  unsigned
  BuildCount() const;

  /**
   * Throws InvalidArgument unless `bytes` in total, with the largest single
   * buffer `largestBuffer`, fit on the device. `what` names the job.
   */
  void
  CheckMemory(std::uint64_t bytes, std::uint64_t largestBuffer, const std::string & what) const;

  /** Throws InvalidArgument unless the device has fp64 (for `what`). */
  void
  RequireDouble(const std::string & what) const;

  /** A new context with its queues; use Get(), which shares one per device (public for std::make_shared). */
  explicit DeviceContext(const DeviceInfo & device);

private:
  DeviceInfo m_Info;
  cl::Device m_Device;
  cl::Context m_Context;
  std::vector<cl::CommandQueue> m_Queues;
  mutable std::mutex m_Mutex;
  std::map<std::string, cl::Program> m_Programs;
  unsigned m_BuildCount = 0;
};

/** Throws InvalidArgument (naming `what` and the device) unless the device supports doubles. */
void
RequireDouble(const DeviceInfo & device, const std::string & what);

/** Seconds between the start and end of a profiled event. */
double
EventSeconds(const cl::Event & event);

} // namespace gpur

#endif
