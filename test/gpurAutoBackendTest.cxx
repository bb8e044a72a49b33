// SPDX-License-Identifier: Apache-2.0
// The rule of Backend::Auto (gpurAutoBackend.h, ResolveBackend): fake probes
// on a fake clock give deterministic speeds, so the choice, the cache, the
// short cuts (GPU, fp64, $ITKGPUR_AUTO, a named device) and the reasons are
// checked exactly. CTest runs it with POCL_DEVICES="pthread pthread".
#include "gpurAutoBackend.h"
#include "gpurAutoTesting.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurExecution.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using gpur::testing::ScopedEnvironment;

namespace
{

/** A clock that advances only when a fake probe "runs", by steps x seconds per step. */
struct FakeMachine
{
  double now = 1000.0;
  double cpuSecondsPerStep = 0.0;
  double openclSecondsPerStep = 0.0;
  bool openclFails = false;
  unsigned prepared = 0;
  std::vector<std::pair<char, unsigned>> runs; ///< ('C' or 'O', steps) in order

  gpur::AutoTiming
  Timing()
  {
    gpur::AutoTiming t;
    t.clock = [this] { return now; };
    return t;
  }

  gpur::AutoProbe
  Probe(const std::string & family, const gpur::Grid & grid)
  {
    gpur::AutoProbe probe;
    probe.family = family;
    probe.precision = "float32";
    probe.grid = grid;
    probe.prepare = [this](const gpur::ResolvedBackend & candidate) -> gpur::ProbeSteps
    {
      ++prepared;
      const bool opencl = candidate.backend == gpur::Backend::OpenCL;
      if (opencl && openclFails)
        throw gpur::OpenCLError("clBuildProgram failed (fake)", -11);
      EXPECT_EQ(candidate.devices.size(), opencl ? 1u : 0u);
      return [this, opencl](unsigned steps)
      {
        runs.emplace_back(opencl ? 'O' : 'C', steps);
        now += steps * (opencl ? openclSecondsPerStep : cpuSecondsPerStep);
      };
    };
    return probe;
  }
};

gpur::DeviceInfo
FakeDevice(gpur::DeviceType type, unsigned index = 0, bool fp64 = true)
{
  gpur::DeviceInfo d;
  d.index = index;
  d.type = type;
  d.name = "fake " + d.TypeName() + std::to_string(index);
  d.platformName = "Fake Platform";
  d.fp64 = fp64;
  return d;
}

const gpur::Grid k512 = gpur::MakeGrid2D(512, 512);

bool
Contains(const std::string & text, const std::string & part)
{
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(AutoRule, TheFasterMeasuredBackendRunsAndTheReasonNamesBothSpeeds)
{
  FakeMachine m;
  m.cpuSecondsPerStep = 512.0 * 512.0 / 52.5e6; // 52.5 Mvox/s
  m.openclSecondsPerStep = 512.0 * 512.0 / 13.9e6;
  gpur::AutoBackendChooser chooser(m.Timing());
  const gpur::DeviceInfo pocl = FakeDevice(gpur::DeviceType::CPU);
  gpur::ResolvedBackend r = chooser.Choose({ pocl }, false, m.Probe("TV", k512), gpur::AutoMode::Measure);
  EXPECT_EQ(r.backend, gpur::Backend::CPU);
  EXPECT_NEAR(r.cpuVoxelsPerSecond, 52.5e6, 1.0);
  EXPECT_NEAR(r.openclVoxelsPerSecond, 13.9e6, 1.0);
  EXPECT_TRUE(r.Measured());
  EXPECT_TRUE(
    Contains(r.reason, "Auto: measured 52.5 Mvox/s on the CPU reference vs 13.9 Mvox/s on OpenCL (fake cpu0)"))
    << r.reason;
  EXPECT_TRUE(Contains(r.reason, "TV 2D float32 on 512x512 voxels")) << r.reason;
  EXPECT_EQ(r.DescribeWithReason(), "CPU (" + r.reason + ")");

  FakeMachine fast;
  fast.cpuSecondsPerStep = 64.0 * 64.0 * 64.0 / 40e6;
  fast.openclSecondsPerStep = 64.0 * 64.0 * 64.0 / 120e6;
  gpur::AutoBackendChooser other(fast.Timing());
  r = other.Choose({ pocl }, false, fast.Probe("TV", gpur::MakeGrid3D(64, 64, 64)), gpur::AutoMode::Measure);
  EXPECT_EQ(r.backend, gpur::Backend::OpenCL);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.device.name, "fake cpu0");
  EXPECT_TRUE(Contains(r.reason, "measured 120.0 Mvox/s on OpenCL (fake cpu0) vs 40.0 Mvox/s on the CPU reference"))
    << r.reason;
  EXPECT_TRUE(Contains(r.reason, "TV 3D float32 on 64x64x64 voxels")) << r.reason;

  FakeMachine tie;
  tie.cpuSecondsPerStep = tie.openclSecondsPerStep = 0.004;
  gpur::AutoBackendChooser tied(tie.Timing());
  EXPECT_EQ(tied.Choose({ pocl }, false, tie.Probe("TV", k512), gpur::AutoMode::Measure).backend, gpur::Backend::CPU)
    << "a tie goes to the CPU reference";
}

TEST(AutoRule, RoundsAreInterleavedDoubledUntilLongEnoughAndAllTimedStepsCount)
{
  FakeMachine m;
  m.cpuSecondsPerStep = 0.004;   // 4 steps last 16 ms < 20 ms: a round needs 8 (32 ms)
  m.openclSecondsPerStep = 0.03; // one step is already long enough
  gpur::AutoTiming timing = m.Timing();
  timing.rounds = 2;
  timing.roundSeconds = 0.02;
  gpur::AutoBackendChooser chooser(timing);
  gpur::AutoProbe probe = m.Probe("TV", k512);
  // A CPU that slows down 3x after its first round: the speed is the sustained one, not the best round's.
  const auto prepare = probe.prepare;
  probe.prepare = [&m, prepare](const gpur::ResolvedBackend & candidate) -> gpur::ProbeSteps
  {
    gpur::ProbeSteps steps = prepare(candidate);
    if (candidate.backend == gpur::Backend::OpenCL)
      return steps;
    return [&m, steps](unsigned n)
    {
      steps(n);
      if (m.runs.size() > 6) // after the CPU's first round (warm-ups, 4 tries, OpenCL's round)
        m.now += 2 * n * m.cpuSecondsPerStep;
    };
  };
  const gpur::ResolvedBackend r =
    chooser.Choose({ FakeDevice(gpur::DeviceType::CPU) }, false, probe, gpur::AutoMode::Measure);
  const std::vector<std::pair<char, unsigned>> expected{
    { 'C', 1 }, { 'O', 1 },                         // set-up and warm-up, untimed
    { 'C', 1 }, { 'C', 2 }, { 'C', 4 }, { 'C', 8 }, // round 1 on the CPU: doubled until >= 20 ms
    { 'O', 1 },                                     // round 1 on OpenCL
    { 'C', 8 }, { 'O', 1 }                          // round 2, from the counts that sufficed
  };
  EXPECT_EQ(m.runs, expected);
  EXPECT_EQ(m.prepared, 2u) << "one set-up per backend";
  // CPU: 15 steps at 4 ms, then 8 at 12 ms; OpenCL: 2 steps at 30 ms.
  const double voxels = 512.0 * 512.0;
  EXPECT_NEAR(r.cpuVoxelsPerSecond, 23 * voxels / (15 * 0.004 + 8 * 0.012), 1e-3 * r.cpuVoxelsPerSecond);
  EXPECT_NEAR(r.openclVoxelsPerSecond, voxels / 0.03, 1e-6 * r.openclVoxelsPerSecond);
}

TEST(AutoRule, MeasuresOncePerKeyAndAgainAfterMaxAge)
{
  FakeMachine m;
  m.cpuSecondsPerStep = 0.01;
  m.openclSecondsPerStep = 0.02;
  gpur::AutoTiming timing = m.Timing();
  timing.maxAgeSeconds = 300.0;
  gpur::AutoBackendChooser chooser(timing);
  const gpur::DeviceInfo pocl = FakeDevice(gpur::DeviceType::CPU);
  const auto choose = [&](const std::string & family, const gpur::Grid & grid, const gpur::DeviceInfo & device)
  { return chooser.Choose({ device }, false, m.Probe(family, grid), gpur::AutoMode::Measure); };

  const gpur::ResolvedBackend first = choose("TV", k512, pocl);
  EXPECT_EQ(chooser.Measurements(), 1u);
  const unsigned runs = static_cast<unsigned>(m.runs.size());
  const gpur::ResolvedBackend again = choose("TV", gpur::MakeGrid2D(600, 500), pocl); // same size class (4^9)
  EXPECT_EQ(chooser.Measurements(), 1u) << "cached";
  EXPECT_EQ(m.runs.size(), runs) << "a cached choice runs no probe";
  EXPECT_EQ(again.backend, first.backend);
  EXPECT_EQ(again.cpuVoxelsPerSecond, first.cpuVoxelsPerSecond);
  EXPECT_TRUE(Contains(again.reason, "measured 0.00 s ago")) << again.reason;
  EXPECT_TRUE(Contains(first.reason, "measured in ")) << first.reason;

  choose("TV-GD", k512, pocl);                              // another family
  choose("TV", gpur::MakeGrid2D(2048, 2048), pocl);         // another size class
  choose("TV", gpur::MakeGrid3D(64, 64, 64), pocl);         // another dimension (same voxel count)
  choose("TV", k512, FakeDevice(gpur::DeviceType::CPU, 1)); // another device
  EXPECT_EQ(chooser.Measurements(), 5u);
  gpur::AutoProbe float64 = m.Probe("TV", k512);
  float64.precision = "float64";
  chooser.Choose({ pocl }, true, float64, gpur::AutoMode::Measure);
  EXPECT_EQ(chooser.Measurements(), 6u) << "another precision";
  gpur::AutoProbe oneThread = m.Probe("TV", k512);
  oneThread.threads = 1; // ITK's work units, Python's num_threads: the CPU reference's speed depends on them
  const gpur::ResolvedBackend single = chooser.Choose({ pocl }, false, oneThread, gpur::AutoMode::Measure);
  EXPECT_EQ(chooser.Measurements(), 7u) << "another thread count";
  EXPECT_TRUE(Contains(single.reason, "TV 2D float32 on 512x512 voxels, CPU 1 thread,")) << single.reason;

  chooser.Clear();
  choose("TV", k512, pocl);
  EXPECT_EQ(chooser.Measurements(), 8u) << "Clear forgets";
  const double measured = m.now;
  m.now = measured + 299.0;
  const gpur::ResolvedBackend fresh = choose("TV", k512, pocl);
  EXPECT_EQ(chooser.Measurements(), 8u) << "still fresh: " << fresh.reason;
  EXPECT_TRUE(Contains(fresh.reason, "measured 299.00 s ago")) << fresh.reason;
  m.now = measured + 301.0;
  choose("TV", k512, pocl);
  EXPECT_EQ(chooser.Measurements(), 9u) << "measured again after maxAgeSeconds, to follow the machine's load";
}

TEST(AutoRule, AGpuOrAcceleratorRunsWithoutMeasuring)
{
  FakeMachine m;
  gpur::AutoBackendChooser chooser(m.Timing());
  gpur::ResolvedBackend r =
    chooser.Choose({ FakeDevice(gpur::DeviceType::GPU) }, true, m.Probe("TV", k512), gpur::AutoMode::Measure);
  EXPECT_EQ(r.backend, gpur::Backend::OpenCL);
  EXPECT_EQ(r.device.name, "fake gpu0");
  EXPECT_EQ(r.reason, "Auto: a GPU");
  EXPECT_FALSE(r.Measured());
  r =
    chooser.Choose({ FakeDevice(gpur::DeviceType::Accelerator) }, false, m.Probe("TV", k512), gpur::AutoMode::Measure);
  EXPECT_EQ(r.backend, gpur::Backend::OpenCL);
  EXPECT_EQ(r.reason, "Auto: an accelerator");
  EXPECT_EQ(m.prepared, 0u);
  EXPECT_EQ(chooser.Measurements(), 0u);
}

TEST(AutoRule, DoubleDataOnADeviceWithoutFp64RunsOnTheCPU)
{
  FakeMachine m;
  gpur::AutoBackendChooser chooser(m.Timing());
  const gpur::ResolvedBackend r =
    chooser.Choose({ FakeDevice(gpur::DeviceType::GPU, 0, false) }, true, m.Probe("TV", k512), gpur::AutoMode::Measure);
  EXPECT_EQ(r.backend, gpur::Backend::CPU);
  EXPECT_TRUE(Contains(r.reason, "has no fp64 for double data")) << r.reason;
  EXPECT_EQ(
    chooser.Choose({ FakeDevice(gpur::DeviceType::GPU, 0, false) }, false, m.Probe("TV", k512), gpur::AutoMode::Measure)
      .backend,
    gpur::Backend::OpenCL)
    << "float data need no fp64";
  EXPECT_EQ(m.prepared, 0u);
}

TEST(AutoRule, ModesSkipTheMeasurement)
{
  FakeMachine m;
  gpur::AutoBackendChooser chooser(m.Timing());
  const gpur::DeviceInfo pocl = FakeDevice(gpur::DeviceType::CPU);
  gpur::ResolvedBackend r = chooser.Choose({ pocl }, false, m.Probe("TV", k512), gpur::AutoMode::CPU);
  EXPECT_EQ(r.backend, gpur::Backend::CPU);
  EXPECT_EQ(r.reason, "Auto: ITKGPUR_AUTO=cpu");
  r = chooser.Choose({ FakeDevice(gpur::DeviceType::GPU) }, false, m.Probe("TV", k512), gpur::AutoMode::CPU);
  EXPECT_EQ(r.backend, gpur::Backend::CPU) << "cpu means the CPU reference, GPU or not";
  r = chooser.Choose({ pocl }, false, m.Probe("TV", k512), gpur::AutoMode::OpenCL);
  EXPECT_EQ(r.backend, gpur::Backend::OpenCL);
  EXPECT_EQ(r.reason, "Auto: ITKGPUR_AUTO=opencl");
  EXPECT_EQ(m.prepared, 0u);

  EXPECT_EQ(gpur::ParseAutoMode(""), gpur::AutoMode::Measure);
  EXPECT_EQ(gpur::ParseAutoMode("Measure"), gpur::AutoMode::Measure);
  EXPECT_EQ(gpur::ParseAutoMode("CPU"), gpur::AutoMode::CPU);
  EXPECT_EQ(gpur::ParseAutoMode("opencl"), gpur::AutoMode::OpenCL);
  try
  {
    gpur::ParseAutoMode("gpu");
    FAIL() << "expected InvalidArgument";
  }
  catch (const gpur::InvalidArgument & e)
  {
    EXPECT_TRUE(Contains(e.what(), "ITKGPUR_AUTO='gpu'")) << e.what();
    EXPECT_TRUE(Contains(e.what(), "measure, cpu, opencl")) << e.what();
  }
}

TEST(AutoRule, WithoutAProbeTheCPUReferenceRuns)
{
  gpur::AutoBackendChooser chooser;
  const gpur::ResolvedBackend r =
    chooser.Choose({ FakeDevice(gpur::DeviceType::CPU) }, false, gpur::AutoProbe(), gpur::AutoMode::Measure);
  EXPECT_EQ(r.backend, gpur::Backend::CPU);
  EXPECT_TRUE(Contains(r.reason, "no speed probe")) << r.reason;
}

TEST(AutoRule, AnOpenCLFailureInTheProbeRunsTheCPUAndSaysWhy)
{
  FakeMachine m;
  m.cpuSecondsPerStep = 0.01;
  m.openclFails = true;
  gpur::AutoBackendChooser chooser(m.Timing());
  const gpur::ResolvedBackend r =
    chooser.Choose({ FakeDevice(gpur::DeviceType::CPU) }, false, m.Probe("TV", k512), gpur::AutoMode::Measure);
  EXPECT_EQ(r.backend, gpur::Backend::CPU);
  EXPECT_TRUE(Contains(r.reason, "failed in the speed probe")) << r.reason;
  EXPECT_TRUE(Contains(r.reason, "clBuildProgram failed (fake)")) << r.reason;
  EXPECT_GT(r.cpuVoxelsPerSecond, 0.0);
  EXPECT_EQ(r.openclVoxelsPerSecond, 0.0);

  gpur::AutoProbe broken = m.Probe("TV", k512);
  broken.prepare = [](const gpur::ResolvedBackend &) -> gpur::ProbeSteps { throw gpur::Error("CPU broke"); };
  EXPECT_THROW(chooser.Choose({ FakeDevice(gpur::DeviceType::CPU, 1) }, false, broken, gpur::AutoMode::Measure),
               gpur::Error)
    << "a CPU failure is the run's failure too";
}

TEST(AutoRule, LeadingPartIsAPrefixOfTheArray)
{
  gpur::Grid g = gpur::LeadingPart(gpur::MakeGrid3D(256, 256, 256), 1u << 20);
  EXPECT_EQ(g.size, (std::array<std::size_t, 3>{ 256, 256, 16 }));
  EXPECT_EQ(g.dimension, 3u);
  g = gpur::LeadingPart(gpur::MakeGrid2D(4096, 4096, 0.5, 0.7), 1u << 20);
  EXPECT_EQ(g.size, (std::array<std::size_t, 3>{ 4096, 256, 1 }));
  EXPECT_EQ(g.spacing[1], 0.7);
  g = gpur::LeadingPart(gpur::MakeGrid3D(2048, 2048, 4), 1u << 20);
  EXPECT_EQ(g.size, (std::array<std::size_t, 3>{ 2048, 512, 1 }));
  g = gpur::LeadingPart(gpur::MakeGrid2D(100, 100), 1u << 20);
  EXPECT_EQ(g.size, (std::array<std::size_t, 3>{ 100, 100, 1 })) << "small problems are probed whole";
}

// ResolveBackend on this machine's devices (two PoCL CPU devices): the steps
// of the rule before the measurement, and the measurement with probes whose
// speeds differ by orders of magnitude (a step that sleeps against one that
// does nothing), so the choice is certain on any load.
TEST(AutoRule, ResolveBackendOnThisMachine)
{
  ASSERT_GE(gpur::ListDevices().size(), 2u) << "CTest sets POCL_DEVICES='pthread pthread'";
  ASSERT_EQ(gpur::ListDevices().front().type, gpur::DeviceType::CPU);
  const ScopedEnvironment noAuto(gpur::AutoEnvironmentVariable(), nullptr);
  const ScopedEnvironment noDevice(gpur::DeviceEnvironmentVariable(), nullptr);
  gpur::ExecutionOptions o;
  o.backend = gpur::Backend::CPU;
  EXPECT_EQ(gpur::ResolveBackend(o, false).reason, "backend CPU requested");
  o.backend = gpur::Backend::OpenCL;
  gpur::ResolvedBackend r = gpur::ResolveBackend(o, false);
  EXPECT_EQ(r.backend, gpur::Backend::OpenCL);
  EXPECT_EQ(r.reason, "backend OpenCL requested");

  o.backend = gpur::Backend::Auto;
  r = gpur::ResolveBackend(o, false);
  EXPECT_EQ(r.backend, gpur::Backend::CPU) << "no probe: the CPU reference";
  EXPECT_TRUE(Contains(r.reason, "no speed probe")) << r.reason;
  o.device = "default";
  EXPECT_EQ(gpur::ResolveBackend(o, false).backend, gpur::Backend::CPU) << "'default' names no device";

  // A named CPU OpenCL device is asked for: OpenCL there, no measurement.
  for (const char * named : { "1", "cpu", "pthread", "all" })
  {
    o.device = named;
    r = gpur::ResolveBackend(o, false);
    EXPECT_EQ(r.backend, gpur::Backend::OpenCL) << named;
    EXPECT_EQ(r.reason, "Auto: device '" + std::string(named) + "' selected") << named;
  }
  EXPECT_EQ(r.devices.size(), gpur::ListDevices().size());
  o.device = "";
  {
    const ScopedEnvironment device(gpur::DeviceEnvironmentVariable(), "1");
    r = gpur::ResolveBackend(o, false);
    EXPECT_EQ(r.backend, gpur::Backend::OpenCL);
    EXPECT_EQ(r.device.index, 1u);
    EXPECT_EQ(r.reason, "Auto: device '1' selected by ITKGPUR_DEVICE");
  }
  {
    const ScopedEnvironment mode(gpur::AutoEnvironmentVariable(), "opencl");
    EXPECT_EQ(gpur::ResolveBackend(o, false).backend, gpur::Backend::OpenCL);
  }
  {
    const ScopedEnvironment mode(gpur::AutoEnvironmentVariable(), "cpu");
    EXPECT_EQ(gpur::ResolveBackend(o, false).backend, gpur::Backend::CPU);
  }
  {
    const ScopedEnvironment mode(gpur::AutoEnvironmentVariable(), "fastest");
    EXPECT_THROW(gpur::ResolveBackend(o, false), gpur::InvalidArgument);
  }

  // The process's chooser, with probes of certain outcome.
  const auto probe = [](const std::string & family, bool openclSlow)
  {
    gpur::AutoProbe p;
    p.family = family;
    p.precision = "float32";
    p.grid = gpur::MakeGrid2D(64, 64);
    p.prepare = [openclSlow](const gpur::ResolvedBackend & candidate) -> gpur::ProbeSteps
    {
      const bool slow = (candidate.backend == gpur::Backend::OpenCL) == openclSlow;
      return [slow](unsigned steps)
      {
        if (slow)
          std::this_thread::sleep_for(std::chrono::milliseconds(5 * steps));
      };
    };
    return p;
  };
  const unsigned before = gpur::AutoBackendChooser::Process().Measurements();
  r = gpur::ResolveBackend(o, false, probe("test: OpenCL slow", true));
  EXPECT_EQ(r.backend, gpur::Backend::CPU);
  EXPECT_TRUE(r.Measured());
  EXPECT_GT(r.cpuVoxelsPerSecond, 100 * r.openclVoxelsPerSecond);
  r = gpur::ResolveBackend(o, false, probe("test: CPU slow", false));
  EXPECT_EQ(r.backend, gpur::Backend::OpenCL);
  EXPECT_EQ(r.device.index, gpur::SelectDevices("").front().index);
  EXPECT_GT(r.openclVoxelsPerSecond, 100 * r.cpuVoxelsPerSecond);
  EXPECT_TRUE(Contains(r.reason, "Auto: measured")) << r.reason;
  EXPECT_EQ(gpur::AutoBackendChooser::Process().Measurements(), before + 2);
  r = gpur::ResolveBackend(o, false, probe("test: CPU slow", false));
  EXPECT_EQ(gpur::AutoBackendChooser::Process().Measurements(), before + 2) << "cached per process";
  EXPECT_EQ(r.backend, gpur::Backend::OpenCL);
}
