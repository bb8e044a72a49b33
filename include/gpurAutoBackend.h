// SPDX-License-Identifier: Apache-2.0
// What Backend::Auto runs when the only OpenCL device is a CPU driver: the
// faster of the CPU reference and that driver, as measured on this machine.
//
// Why measure: a CPU OpenCL driver (PoCL) runs on the same cores as the CPU
// reference, and which of the two is faster depends on the engine, the size,
// the precision and on what else the machine is doing. On a 2-core machine
// PoCL ranged from 1.1x faster than the CPU reference (TV 2D 2048^2, idle) to
// 3.8x slower (TV 2D 512^2, busy). A GPU needs no measurement: Auto takes it.
//
// How: the engine supplies an AutoProbe, its own step on the leading part of
// the run's input. The chooser sets the probe up on both backends (not
// timed), runs one warm-up step on each (program build, first touch), then
// `rounds` timed rounds per backend, interleaved (CPU, OpenCL, CPU, ...) so
// that a change of load hits both alike; a round doubles its step count until
// it lasts `roundSeconds`, and a backend's speed is its timed steps' voxel
// updates over their total time (the sustained speed, not the best moment:
// PoCL's speed on one problem varied up to 6x between runs on the test
// machine). The faster backend wins; a tie goes to the CPU reference. With the
// defaults a measurement costs about 0.2-0.4 s.
//
// The result is cached per process by (family, precision, dimension, probe
// size class (a factor of 4 in voxels), CPU threads, device) for
// maxAgeSeconds (300 s):
// repeated calls (the lambda search of statistical TV, dask chunks, a Slicer
// session) measure once, and a long-lived process measures again after a
// while, so that it follows the machine's load. Measurements are serialised
// (two at once would slow each other down).
#ifndef gpurAutoBackend_h
#define gpurAutoBackend_h

#include "gpurExecution.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gpur
{

/** How the chooser measures and how long it trusts a measurement. */
struct AutoTiming
{
  double roundSeconds = 0.025;  ///< a timed round doubles its steps until it lasts this long
  unsigned rounds = 3;          ///< timed rounds per backend, interleaved; all their steps count
  unsigned maxSteps = 1u << 16; ///< most steps in one round (a clock that does not advance)
  double maxAgeSeconds = 300.0; ///< a cached measurement is reused for this long
  /** Seconds on a monotonic clock; empty: std::chrono::steady_clock. Tests inject a fake one. */
  std::function<double()> clock;
};

/**
 * Auto's choice among the devices of the default selection, with the cache
 * of its measurements. ResolveBackend uses the process's chooser (Process());
 * tests make their own with a fake clock and fake probes and devices.
 */
class AutoBackendChooser
{
public:
  /** A chooser with an empty cache that measures with `timing` (tests pass a fake clock). */
  explicit AutoBackendChooser(AutoTiming timing = AutoTiming());

  /**
   * Steps 4-6 of ResolveBackend's rule for the devices of the default
   * selection (not yet filtered for fp64): the CPU reference when none suits
   * the data, OpenCL on them when one is a GPU or accelerator or the mode is
   * OpenCL, else the faster backend as measured with `probe` on the first
   * device (cached), or the CPU reference without a probe. Mode CPU returns
   * the CPU reference. An OpenCL failure during the probe (a build error, a
   * device error) makes Auto run the CPU reference and says so in the
   * reason; a CPU failure is thrown.
   */
  ResolvedBackend
  Choose(const std::vector<DeviceInfo> & devices, bool isDouble, const AutoProbe & probe, AutoMode mode);

  /** Measurements taken so far (cache misses), for tests. */
  unsigned
  Measurements() const;

  /** Forgets every measurement. */
  void
  Clear();

  /** The chooser of ResolveBackend, with the default timing. */
  static AutoBackendChooser &
  Process();

private:
  struct Entry
  {
    double cpu = 0.0, opencl = 0.0; ///< voxels per second; opencl 0 when it failed
    std::string failure;            ///< the OpenCL error, when it failed
    std::string probe;              ///< the problem measured, e.g. "TV 2D float32 on 512x512 voxels, CPU 2 threads"
    double when = 0.0;              ///< clock() at the end of the measurement
    double seconds = 0.0;           ///< what the measurement took
  };

  double
  Now() const;
  Entry
  Measure(const AutoProbe & probe, const DeviceInfo & device);

  AutoTiming m_Timing;
  mutable std::mutex m_Mutex;
  std::map<std::string, Entry> m_Cache;
  unsigned m_Measurements = 0;
};

/**
 * The leading part of a grid with at most maxVoxels voxels (at least one
 * x-row): whole z-slices of a 3D grid, else whole rows (y) of its first
 * slice. It is a prefix of the x-fastest array, so an engine's probe runs on
 * the first values of the run's own input without copying it.
 */
Grid
LeadingPart(const Grid & grid, std::size_t maxVoxels);

/**
 * Voxels of an iterative engine's probe (TV, weighted TV, TV-GD): a few
 * milliseconds a step on a CPU (about 50 Mvox/s on 2 cores).
 */
constexpr std::size_t kAutoProbeVoxels = std::size_t(1) << 20;

} // namespace gpur

#endif
