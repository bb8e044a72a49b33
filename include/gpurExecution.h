// SPDX-License-Identifier: Apache-2.0
// Backend choice shared by every engine: CPU reference or OpenCL.
#ifndef gpurExecution_h
#define gpurExecution_h

#include "gpurDevice.h"
#include "gpurParallel.h"
#include "gpurProgress.h"

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace gpur
{

/** Which implementation runs. Auto: OpenCL when a suitable device exists, else CPU. */
enum class Backend
{
  Auto,
  CPU,
  OpenCL
};

/** "Auto", "CPU" or "OpenCL". */
const char *
ToString(Backend backend);
/** Writes ToString(backend). */
std::ostream &
operator<<(std::ostream & os, Backend backend);
/** Parses "auto", "cpu" or "opencl" (case-insensitive); throws InvalidArgument otherwise. */
Backend
ParseBackend(const std::string & text);

/** How an engine should run. */
struct ExecutionOptions
{
  /** Which implementation runs. */
  Backend backend = Backend::Auto;
  std::string device; ///< device selection string, see SelectDevices(); "" = default device
  /** Parallel loop of the CPU backend; empty: the process's thread pool over all cores (MakeThreadParallelFor). */
  ParallelForFunction parallelFor;
  /**
   * Bytes of memory an engine may use on each OpenCL device; 0: what the
   * device reports. Engines that support it (TV) stream a volume that does not
   * fit through host memory in z-regions instead of failing.
   */
  std::uint64_t deviceMemoryLimit = 0;
};

/** Options for a backend and a device selection, with the default CPU loop. */
inline ExecutionOptions
MakeExecution(Backend backend, const std::string & device = std::string())
{
  ExecutionOptions e;
  e.backend = backend;
  e.device = device;
  return e;
}

/** The backend that will run, and on which device (OpenCL only). */
struct ResolvedBackend
{
  /** CPU or OpenCL, never Auto. */
  Backend backend = Backend::CPU;
  DeviceInfo device; ///< the first device
  /** Every selected device (e.g. device "all"); engines that can split the work use them all. */
  std::vector<DeviceInfo> devices;
  /** "CPU", "OpenCL: <device name>" or "OpenCL: N devices (<names>)". */
  std::string
  Describe() const;
};

/**
 * Decides the backend. Auto chooses OpenCL on the selected devices when one
 * exists and, for double precision, supports fp64 (devices without it are left
 * out); otherwise the CPU
 * reference (documented fallback, so double images always work under Auto).
 * An explicit OpenCL request throws InvalidArgument when no device is there or
 * the device lacks fp64 for double data. A device string that matches nothing
 * always throws.
 */
ResolvedBackend
ResolveBackend(const ExecutionOptions & options, bool isDouble);

} // namespace gpur

#endif
