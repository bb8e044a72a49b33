// SPDX-License-Identifier: Apache-2.0
#include "gpurAutoBackend.h"

#include "gpurError.h"
#include "gpurOpenCL.h" // TranslateCLErrors

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <thread>

namespace gpur
{

namespace
{

std::string
Mvox(double voxelsPerSecond)
{
  std::ostringstream s;
  s << std::fixed << std::setprecision(voxelsPerSecond >= 1e7 ? 1 : 2) << voxelsPerSecond / 1e6 << " Mvox/s";
  return s.str();
}

/** Threads of the CPU reference: probe.threads, or every core. */
unsigned
Threads(const AutoProbe & probe)
{
  return probe.threads > 0 ? probe.threads : std::max(1u, std::thread::hardware_concurrency());
}

/** "TV 2D float32 on 512x512 voxels, CPU 2 threads": the probe problem. */
std::string
ProbeName(const AutoProbe & probe)
{
  std::ostringstream s;
  s << probe.family << " " << probe.grid.dimension << "D " << probe.precision << " on " << probe.grid.size[0] << "x"
    << probe.grid.size[1];
  if (probe.grid.dimension == 3)
    s << "x" << probe.grid.size[2];
  s << " voxels, CPU " << Threads(probe) << (Threads(probe) == 1 ? " thread" : " threads");
  return s.str();
}

/** Voxel counts within a factor of 4 share a cache entry: floor(log4(count)). */
unsigned
SizeClass(std::size_t voxels)
{
  unsigned c = 0;
  while (voxels >= 4)
  {
    voxels /= 4;
    ++c;
  }
  return c;
}

std::string
CacheKey(const AutoProbe & probe, const DeviceInfo & device)
{
  std::ostringstream s;
  s << probe.family << "|" << probe.precision << "|" << probe.grid.dimension << "D|4^" << SizeClass(probe.grid.Count())
    << "|" << Threads(probe) << " threads|" << device.index << ":" << device.platformName << " " << device.name;
  return s.str();
}

ResolvedBackend
OnCPU(const std::string & reason)
{
  ResolvedBackend r;
  r.reason = reason;
  return r;
}

ResolvedBackend
OnDevices(const std::vector<DeviceInfo> & devices, const std::string & reason)
{
  ResolvedBackend r;
  r.backend = Backend::OpenCL;
  r.devices = devices;
  r.device = devices.front();
  r.reason = reason;
  return r;
}

/**
 * Times rounds of a probe's steps on one backend (see gpurAutoBackend.h). The
 * speed is every timed step's voxels over their total time: the sustained
 * throughput, which predicts a long run, rather than the best moment (a CPU
 * driver's speed can vary several-fold from one moment to the next).
 */
class RoundTimer
{
public:
  RoundTimer(ProbeSteps steps, double voxelsPerStep)
    : m_Steps(std::move(steps))
    , m_Voxels(voxelsPerStep)
  {
  }

  /** One round: doubles the steps until they last timing.roundSeconds (the shorter tries count too). */
  void
  Round(const AutoTiming & timing, const std::function<double()> & clock)
  {
    for (;;)
    {
      const double start = clock();
      m_Steps(m_Count);
      const double seconds = clock() - start;
      m_Seconds += seconds;
      m_Work += m_Voxels * m_Count;
      if (seconds >= timing.roundSeconds || m_Count >= timing.maxSteps)
        return;
      m_Count = std::min(2 * m_Count, timing.maxSteps);
    }
  }

  void
  WarmUp()
  {
    m_Steps(1);
  }

  /** Voxel updates per second over every timed step. */
  double
  Speed() const
  {
    return m_Work / std::max(m_Seconds, 1e-9);
  }

private:
  ProbeSteps m_Steps;
  double m_Voxels;
  unsigned m_Count = 1;
  double m_Work = 0.0, m_Seconds = 0.0;
};

} // namespace

Grid
LeadingPart(const Grid & grid, std::size_t maxVoxels)
{
  Grid part = grid;
  const std::size_t row = grid.size[0], slice = grid.size[0] * grid.size[1];
  const std::size_t minimum = std::min<std::size_t>(2, grid.Count());
  if (grid.Count() <= maxVoxels)
    return part;
  if (grid.dimension == 3 && slice <= maxVoxels)
  {
    part.size[2] = std::max<std::size_t>(1, maxVoxels / slice);
    return part;
  }
  part.size[2] = 1;
  part.size[1] = std::min(grid.size[1], std::max<std::size_t>(maxVoxels / row, row < minimum ? minimum : 1));
  return part;
}

AutoBackendChooser::AutoBackendChooser(AutoTiming timing)
  : m_Timing(std::move(timing))
{
}

AutoBackendChooser &
AutoBackendChooser::Process()
{
  static AutoBackendChooser chooser;
  return chooser;
}

double
AutoBackendChooser::Now() const
{
  if (m_Timing.clock)
    return m_Timing.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

unsigned
AutoBackendChooser::Measurements() const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_Measurements;
}

void
AutoBackendChooser::Clear()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_Cache.clear();
}

AutoBackendChooser::Entry
AutoBackendChooser::Measure(const AutoProbe & probe, const DeviceInfo & device)
{
  const std::function<double()> clock = [this] { return Now(); };
  const double voxels = static_cast<double>(probe.grid.Count());
  ResolvedBackend cpuCandidate = OnCPU("speed probe");
  RoundTimer cpu(probe.prepare(cpuCandidate), voxels);
  cpu.WarmUp();
  const double start = Now();
  Entry entry;
  std::unique_ptr<RoundTimer> opencl;
  try
  {
    TranslateCLErrors(
      [&]
      {
        opencl = std::make_unique<RoundTimer>(probe.prepare(OnDevices({ device }, "speed probe")), voxels);
        opencl->WarmUp();
      });
  }
  catch (const Error & e)
  {
    entry.failure = e.what();
  }
  for (unsigned r = 0; r < std::max(1u, m_Timing.rounds); ++r)
  {
    cpu.Round(m_Timing, clock);
    if (opencl != nullptr && entry.failure.empty())
    {
      try
      {
        TranslateCLErrors([&] { opencl->Round(m_Timing, clock); });
      }
      catch (const Error & e)
      {
        entry.failure = e.what();
      }
    }
  }
  entry.cpu = cpu.Speed();
  entry.opencl = entry.failure.empty() && opencl != nullptr ? opencl->Speed() : 0.0;
  entry.probe = ProbeName(probe);
  entry.when = Now();
  entry.seconds = entry.when - start;
  return entry;
}

ResolvedBackend
AutoBackendChooser::Choose(const std::vector<DeviceInfo> & devices,
                           bool isDouble,
                           const AutoProbe & probe,
                           AutoMode mode)
{
  if (mode == AutoMode::CPU)
    return OnCPU(std::string("Auto: ") + AutoEnvironmentVariable() + "=cpu");
  std::vector<DeviceInfo> usable;
  for (const DeviceInfo & d : devices)
    if (!isDouble || d.fp64)
      usable.push_back(d);
  if (usable.empty())
    return OnCPU("Auto: the default OpenCL device (" + (devices.empty() ? std::string("none") : devices.front().name) +
                 ") has no fp64 for double data");
  if (mode == AutoMode::OpenCL)
    return OnDevices(usable, std::string("Auto: ") + AutoEnvironmentVariable() + "=opencl");
  for (const DeviceInfo & d : usable)
    if (d.type == DeviceType::GPU || d.type == DeviceType::Accelerator)
      return OnDevices(usable, "Auto: a" + std::string(d.type == DeviceType::GPU ? " GPU" : "n accelerator"));
  const DeviceInfo & device = usable.front();
  if (!probe)
    return OnCPU("Auto: the only OpenCL device is a CPU driver (" + device.name +
                 ") and this computation has no speed probe to compare it with the CPU reference, which runs");

  Entry entry;
  std::ostringstream when;
  when << std::fixed << std::setprecision(2);
  {
    // Held during a measurement: two at once would slow each other down.
    std::lock_guard<std::mutex> lock(m_Mutex);
    const std::string key = CacheKey(probe, device);
    const auto found = m_Cache.find(key);
    const double now = Now();
    if (found != m_Cache.end() && now - found->second.when <= m_Timing.maxAgeSeconds)
    {
      entry = found->second;
      when << "measured " << now - entry.when << " s ago";
    }
    else
    {
      entry = Measure(probe, device);
      ++m_Measurements;
      m_Cache[key] = entry;
      when << "measured in " << entry.seconds << " s";
    }
  }
  if (!entry.failure.empty())
  {
    ResolvedBackend r = OnCPU("Auto: OpenCL on " + device.name + " failed in the speed probe (" + entry.failure + ")");
    r.cpuVoxelsPerSecond = entry.cpu;
    return r;
  }
  const bool opencl = entry.opencl > entry.cpu;
  std::ostringstream reason;
  reason << "Auto: measured " << Mvox(opencl ? entry.opencl : entry.cpu) << " on "
         << (opencl ? "OpenCL (" + device.name + ")" : std::string("the CPU reference")) << " vs "
         << Mvox(opencl ? entry.cpu : entry.opencl) << " on "
         << (opencl ? std::string("the CPU reference") : "OpenCL (" + device.name + ")") << ", " << entry.probe << ", "
         << when.str();
  ResolvedBackend r = opencl ? OnDevices({ device }, reason.str()) : OnCPU(reason.str());
  r.cpuVoxelsPerSecond = entry.cpu;
  r.openclVoxelsPerSecond = entry.opencl;
  return r;
}

} // namespace gpur
