// SPDX-License-Identifier: Apache-2.0
// Backend choice shared by every engine: CPU reference or OpenCL. What Auto
// means, and how it measures, is in gpurAutoBackend.h.
#ifndef gpurExecution_h
#define gpurExecution_h

#include "gpurDevice.h"
#include "gpurGrid.h"
#include "gpurParallel.h"
#include "gpurProgress.h"

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace gpur
{

/**
 * Which implementation runs. Auto: a GPU (or accelerator) OpenCL device when
 * the selection has one, else the faster of the CPU reference and a CPU
 * OpenCL driver as measured on this machine (the rule: ResolveBackend).
 */
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

/** What Auto does when no device is named, from $ITKGPUR_AUTO. */
enum class AutoMode
{
  Measure, ///< the rule of ResolveBackend (default; also an empty or unset variable)
  CPU,     ///< always the CPU reference, without measuring
  OpenCL   ///< OpenCL on the default device when it suits the data, without measuring
};

/** "ITKGPUR_AUTO". */
const char *
AutoEnvironmentVariable();

/** Parses "measure", "cpu" or "opencl" (case-insensitive; "" is measure); throws InvalidArgument naming the variable.
 */
AutoMode
ParseAutoMode(const std::string & text);

/** The mode $ITKGPUR_AUTO asks for (read at every call); throws InvalidArgument for an unknown value. */
AutoMode
AutoModeFromEnvironment();

/** How an engine should run. */
struct ExecutionOptions
{
  /** Which implementation runs. */
  Backend backend = Backend::Auto;
  std::string device; ///< device selection string, see SelectDevices(); "" = default device
  /** Parallel loop of the CPU backend; empty: the process's thread pool over all cores (MakeThreadParallelFor). */
  ParallelForFunction parallelFor;
  /**
   * The threads parallelFor runs on, when the caller knows them (ITK's work
   * units, Python's num_threads); 0: every core. Only Auto reads it: the CPU
   * reference's speed, and so its measurement, depends on it.
   */
  unsigned threads = 0;
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

/** The backend that will run, on which device (OpenCL only), and why. */
struct ResolvedBackend
{
  /** CPU or OpenCL, never Auto. */
  Backend backend = Backend::CPU;
  DeviceInfo device; ///< the first device
  /** Every selected device (e.g. device "all"); engines that can split the work use them all. */
  std::vector<DeviceInfo> devices;
  /**
   * Why this backend runs, one phrase: "backend CPU requested", "Auto: a GPU",
   * "Auto: measured ... Mvox/s on the CPU reference vs ... on OpenCL (...)", ...
   */
  std::string reason;
  /**
   * Auto's measurement, when it decided by one (else 0): voxel updates per
   * second of the engine's own work (AutoProbe) on the CPU reference, so
   * Mvox/s = value / 1e6.
   */
  double cpuVoxelsPerSecond = 0.0;
  /** The same on the OpenCL device (0 when not measured, or when OpenCL failed in the probe). */
  double openclVoxelsPerSecond = 0.0;

  /** "CPU", "OpenCL: <device name>" or "OpenCL: N devices (<names>)". */
  std::string
  Describe() const;
  /** Describe() followed by the reason in parentheses: what the tools' summary lines print. */
  std::string
  DescribeWithReason() const;
  /** True when Auto chose between the backends by measuring them. */
  bool
  Measured() const
  {
    return cpuVoxelsPerSecond > 0.0 && openclVoxelsPerSecond > 0.0;
  }
};

/** n steps of an engine's own work on one backend; returns when they are done (not only enqueued). */
using ProbeSteps = std::function<void(unsigned steps)>;

/**
 * An engine's speed probe for Auto: its own step on a problem of the run's
 * kind, so that Auto can time it on the CPU reference and on a CPU OpenCL
 * device (see gpurAutoBackend.h for how it is timed and cached). Engines
 * build it from the run's own input: the leading z-slices (or rows) of the
 * problem, up to a size that takes a few milliseconds a step.
 */
struct AutoProbe
{
  /** What is measured, in the cache key and the reason: "TV", "weighted TV", "TV-GD", "PSCR". */
  std::string family;
  /** The arithmetic: "float32", "float64", "complex64", "complex128". */
  std::string precision;
  /** The probe problem: its dimension and size; grid.Count() voxels are updated per step. */
  Grid grid;
  /** Threads of the CPU reference's loop (ExecutionOptions::threads, set by ResolveBackend; 0: every core). */
  unsigned threads = 0;
  /**
   * Sets up the work on `candidate` (the CPU reference, or OpenCL on
   * candidate.device alone) and returns its steps. Called once per backend
   * and measurement; setup is not timed, the first step is a warm-up.
   */
  std::function<ProbeSteps(const ResolvedBackend & candidate)> prepare;

  /** True when the engine supplied a probe (prepare is set). */
  explicit operator bool() const { return static_cast<bool>(prepare); }
};

/**
 * Decides the backend and says why (ResolvedBackend::reason).
 *
 * CPU runs the reference. OpenCL runs on the selected devices and throws
 * InvalidArgument when none is there or, for double data (isDouble), one lacks
 * fp64. A device string that matches nothing always throws.
 *
 * Auto, in this order:
 *  1. no OpenCL device: the CPU reference;
 *  2. a device named by the call (options.device other than "" or "default")
 *     or by $ITKGPUR_DEVICE: OpenCL on it (the CPU reference for double data
 *     when it lacks fp64). Naming a device asks for that device, also a CPU
 *     OpenCL device ("cpu", an index): a measurement would overrule an
 *     explicit choice, and Backend::CPU is how to ask for the reference;
 *  3. $ITKGPUR_AUTO=cpu: the CPU reference, without measuring;
 *  4. the default device (SelectDevices("")) without fp64 for double data:
 *     the CPU reference, so double images always work under Auto;
 *  5. $ITKGPUR_AUTO=opencl (earlier versions' Auto), or a GPU or accelerator:
 *     OpenCL on the default device, without measuring;
 *  6. otherwise, a CPU OpenCL driver such as PoCL, which competes with the
 *     CPU reference for the same cores: the faster of the two as `probe`
 *     measures them on this machine, cached per process (gpurAutoBackend.h);
 *     without a probe, the CPU reference.
 * $ITKGPUR_AUTO (measure, the default; cpu; opencl) makes runs reproducible
 * where the measurement might go either way; another value throws.
 */
ResolvedBackend
ResolveBackend(const ExecutionOptions & options, bool isDouble, const AutoProbe & probe = AutoProbe());

} // namespace gpur

#endif
