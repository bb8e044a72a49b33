// TV denoising throughput: iterations per second of the default algorithm
// (AcceleratedChambollePock, float) on the CPU reference and on each OpenCL
// device, and the memory bandwidth that implies as a fraction of the copy
// bandwidth measured in the same run. Prints a table and writes JSON.
//
//   tv_bench [--sizes 2d,3d] [--iterations N] [--devices SELECTION] [--json out.json] [--quick]
#include "gpurBuffer.h"
#include "gpurCommandLine.h"
#include "gpurContext.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurGrid.h"
#include "gpurParallel.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace
{

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kCopyBytes = 256u << 20; // large enough to defeat every cache
constexpr int kCopyRepeats = 5;                  // best of, after one untimed copy
constexpr unsigned kWarmupIterations = 2;
constexpr unsigned kMaxIterations = 1u << 16;

struct Options
{
  std::vector<std::string> sizes{ "2d", "3d" };
  unsigned iterations = 0; // 0: start from the case default and double (see Measure)
  std::string devices;     // empty: every OpenCL device
  std::string json = "tv_bench.json";
  bool quick = false;
};

struct Case
{
  std::string name;
  gpur::Grid grid;
  unsigned defaultIterations;
  std::vector<float> f; // noisy phantom
};

/** Copy bandwidth of one backend: 2 x bytes (read + write) per copy. */
struct Bandwidth
{
  std::uint64_t bytes = 0; // size of one copy
  double gbps = 0;         // best of: profiling events for a device, wall time on the host
  double wallGbps = 0;
  std::string method;
};

/** Where a run happens: the CPU reference or one OpenCL device. */
struct Target
{
  std::string name;
  gpur::ExecutionOptions execution;
  Bandwidth copy;
};

struct Row
{
  std::string case_, target;
  std::size_t voxels = 0;
  unsigned dimension = 0, iterations = 0;
  double secondsPerIteration = 0, bytesPerIteration = 0, copyGbps = 0;

  double
  IterationsPerSecond() const
  {
    return 1.0 / secondsPerIteration;
  }
  double
  MvoxPerSecond() const
  {
    return voxels * IterationsPerSecond() / 1e6;
  }
  double
  Gbps() const
  {
    return bytesPerIteration * IterationsPerSecond() / 1e9;
  }
  double
  Fraction() const
  {
    return Gbps() / copyGbps;
  }
};

/**
 * Floats each voxel must move per iteration of (Accelerated)ChambollePock if
 * every array is read or written exactly once per kernel (stencil neighbours
 * come from cache), d = number of p components = dimension:
 *   dual   (tv_dual):   read ubar, read + write each p component   = 1 + 2d
 *   primal (tv_primal): read f, u and each p component, write u, ubar = 4 + d
 * i.e. 11 floats (44 bytes) in 2D and 14 floats (56 bytes) in 3D. This is a
 * lower bound on the traffic, so the achieved bandwidth is a lower bound too.
 */
unsigned
FloatsPerVoxelPerIteration(unsigned dimension)
{
  const unsigned dual = 1 + 2 * dimension;
  const unsigned primal = 4 + dimension;
  return dual + primal;
}

double
Seconds(Clock::time_point start)
{
  return std::chrono::duration<double>(Clock::now() - start).count();
}

unsigned
HardwareThreads()
{
  return std::max(1u, std::thread::hardware_concurrency()); // what MakeThreadParallelFor() uses
}

std::vector<std::string>
SplitCommas(const std::string & text)
{
  std::vector<std::string> items;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');)
    if (!item.empty())
      items.push_back(item);
  return items;
}

/** Returns false when --help was printed. */
bool
ParseOptions(int argc, char * argv[], Options & o)
{
  gpur::cli::Parser parser("tv_bench",
                           "",
                           "TV denoising throughput on the CPU reference and each OpenCL device, next to the copy "
                           "bandwidth measured in the same run. Prints a table and writes JSON.");
  std::string sizes = "2d,3d";
  parser.AddString("--sizes", "LIST", "Comma-separated cases: 2d (2048^2), 3d (256^3).", sizes);
  parser.AddUnsigned("--iterations",
                     "N",
                     "Fixed iteration count N (timed as t(2N) - t(N)); default: doubled until 0.5 s.",
                     o.iterations,
                     1,
                     kMaxIterations);
  parser.AddString(
    "--devices", "SELECTION", "OpenCL devices (see itkgpurestoration-devices); default all; none.", o.devices);
  parser.AddString("--json", "FILE", "Where to write the JSON results.", o.json);
  parser.AddSwitch("--quick", "Small sizes (512^2, 64^3) for smoke tests.", o.quick);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  o.sizes = SplitCommas(sizes);
  for (const auto & s : o.sizes)
    if (s != "2d" && s != "3d")
      throw gpur::cli::UsageError("--sizes: unknown size '" + s + "' (allowed: 2d, 3d)");
  return true;
}

/** The benchmark problems: a noisy Shepp-Logan phantom (sigma 0.1), as in the tests. */
std::vector<Case>
MakeCases(const Options & o)
{
  std::vector<Case> cases;
  for (const auto & s : o.sizes)
  {
    const std::size_t n = s == "2d" ? (o.quick ? 512 : 2048) : (o.quick ? 64 : 256);
    Case c;
    c.grid = s == "2d" ? gpur::MakeGrid2D(n, n) : gpur::MakeGrid3D(n, n, n);
    c.name = (s == "2d" ? "2D " : "3D ") + std::to_string(n) + (s == "2d" ? "^2" : "^3");
    // About 1 s (2D) and 4 s (3D) of iterations on a 2-core CPU; Measure() doubles them on faster machines.
    c.defaultIterations = s == "2d" ? 20 : 10;
    c.f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(c.grid), 0.1, 1);
    cases.push_back(std::move(c));
  }
  return cases;
}

/**
 * Host memcpy, best of kCopyRepeats with one thread and with all threads: on
 * some machines one thread already saturates memory and several only contend
 * (seen on this project's 2-core VM), on others only several threads do.
 */
Bandwidth
HostCopyBandwidth()
{
  std::vector<char> source(kCopyBytes, 1), destination(kCopyBytes, 0); // touched: no page faults when timed
  const unsigned threads = HardwareThreads();
  Bandwidth b;
  b.bytes = kCopyBytes;
  for (const unsigned workers : { 1u, threads })
  {
    const gpur::ParallelForFunction parallelFor = gpur::MakeThreadParallelFor(workers);
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r <= kCopyRepeats; ++r)
    {
      const auto start = Clock::now();
      parallelFor(source.size(),
                  [&](std::size_t begin, std::size_t end)
                  { std::memcpy(destination.data() + begin, source.data() + begin, end - begin); });
      if (r > 0)
        best = std::min(best, Seconds(start));
    }
    const double gbps = 2.0 * kCopyBytes / best / 1e9;
    if (gbps > b.gbps)
    {
      b.gbps = b.wallGbps = gbps;
      b.method = "memcpy on " + std::to_string(workers) + " thread(s), wall time";
    }
    if (threads == 1)
      break;
  }
  return b;
}

/** clEnqueueCopyBuffer between two device buffers, best of kCopyRepeats by profiling events and by wall time. */
Bandwidth
DeviceCopyBandwidth(const gpur::DeviceInfo & device)
{
  return gpur::TranslateCLErrors(
    [&]
    {
      auto & context = *gpur::DeviceContext::Get(device);
      const cl::CommandQueue & queue = context.Queue(0);
      const std::uint64_t bytes = std::min({ kCopyBytes, device.maxAllocation, device.globalMemory / 4 });
      const std::size_t count = static_cast<std::size_t>(bytes / sizeof(float));
      gpur::DeviceBuffer<float> source(context, count), destination(context, count);
      source.Fill(queue, 1.0f); // drivers allocate lazily: materialise both before timing
      destination.Fill(queue, 0.0f);
      queue.finish();
      double bestEvent = std::numeric_limits<double>::infinity(), bestWall = bestEvent;
      for (int r = 0; r <= kCopyRepeats; ++r)
      {
        cl::Event event;
        const auto start = Clock::now();
        destination.CopyFrom(queue, source, &event);
        queue.finish();
        if (r > 0)
        {
          bestWall = std::min(bestWall, Seconds(start));
          bestEvent = std::min(bestEvent, gpur::EventSeconds(event));
        }
      }
      Bandwidth b;
      b.bytes = count * sizeof(float);
      b.gbps = 2.0 * b.bytes / bestEvent / 1e9;
      b.wallGbps = 2.0 * b.bytes / bestWall / 1e9;
      b.method = "clEnqueueCopyBuffer, profiling events";
      return b;
    });
}

std::vector<Target>
MakeTargets(const Options & o)
{
  std::vector<Target> targets;
  Target cpu;
  cpu.name = "CPU reference (" + std::to_string(HardwareThreads()) + " threads)";
  cpu.execution.backend = gpur::Backend::CPU;
  cpu.execution.parallelFor = gpur::MakeThreadParallelFor();
  cpu.copy = HostCopyBandwidth();
  targets.push_back(cpu);

  const std::vector<gpur::DeviceInfo> devices =
    o.devices.empty() ? gpur::ListDevices()
                      : (o.devices == "none" ? std::vector<gpur::DeviceInfo>() : gpur::SelectDevices(o.devices));
  for (const auto & d : devices)
  {
    Target t;
    t.name = "[" + std::to_string(d.index) + "] " + d.name;
    t.execution.backend = gpur::Backend::OpenCL;
    t.execution.device = std::to_string(d.index);
    t.copy = DeviceCopyBandwidth(d);
    targets.push_back(t);
  }
  return targets;
}

/** Wall time of one DenoiseTV call running exactly `iterations` (no gap checks). */
double
SolveSeconds(const Case & c, const Target & t, unsigned iterations, std::vector<float> & u)
{
  gpur::TVParameters parameters;
  parameters.maxIterations = iterations;
  parameters.gapCheckInterval = 0;
  parameters.gapTolerance = 0.0;
  const gpur::TVReport report = gpur::DenoiseTV(c.f.data(), u.data(), c.grid, parameters, t.execution);
  if (report.iterations != iterations)
    throw gpur::Error("DenoiseTV ran " + std::to_string(report.iterations) + " iterations instead of " +
                      std::to_string(iterations));
  return report.seconds;
}

/**
 * Per-iteration time. TVReport::seconds includes allocation, upload, the final
 * energy pass and download, which cost the same for N and 2N iterations, so
 * t(2N) - t(N) is the time of N iterations alone. Without --iterations, N
 * doubles until that difference reaches minSeconds, so that fast devices are
 * timed over enough work to hide noise and launch jitter.
 */
Row
Measure(const Case & c, const Target & t, unsigned fixedIterations, double minSeconds)
{
  std::vector<float> u(c.f.size());
  SolveSeconds(c, t, kWarmupIterations, u); // program build, first allocations, thread start-up
  unsigned n = fixedIterations > 0 ? fixedIterations : c.defaultIterations;
  double tN = SolveSeconds(c, t, n, u);
  double t2N = SolveSeconds(c, t, 2 * n, u);
  while (fixedIterations == 0 && t2N - tN < minSeconds && 2 * n <= kMaxIterations)
  {
    n *= 2;
    tN = t2N;
    t2N = SolveSeconds(c, t, 2 * n, u);
  }
  if (!(t2N > tN))
    throw gpur::Error(c.name + " on " + t.name + ": " + std::to_string(2 * n) + " iterations were not slower than " +
                      std::to_string(n) + "; use more --iterations");
  Row r;
  r.case_ = c.name;
  r.target = t.name;
  r.voxels = c.grid.Count();
  r.dimension = c.grid.dimension;
  r.iterations = n;
  r.secondsPerIteration = (t2N - tN) / n;
  r.bytesPerIteration = double(FloatsPerVoxelPerIteration(r.dimension)) * sizeof(float) * r.voxels;
  r.copyGbps = t.copy.gbps;
  return r;
}

std::string
Format(double value, int digits, bool scientific = false)
{
  std::ostringstream s;
  s << (scientific ? std::scientific : std::fixed) << std::setprecision(digits) << value;
  return s.str();
}

void
PrintTable(const std::vector<Row> & rows)
{
  std::size_t caseWidth = 4, targetWidth = 15;
  for (const auto & r : rows)
  {
    caseWidth = std::max(caseWidth, r.case_.size());
    targetWidth = std::max(targetWidth, r.target.size());
  }
  auto line = [&](const std::vector<std::string> & cells)
  {
    std::cout << std::left << std::setw(int(caseWidth)) << cells[0] << "  " << std::setw(int(targetWidth)) << cells[1]
              << std::right;
    for (std::size_t i = 2; i < cells.size(); ++i)
      std::cout << std::setw(11) << cells[i];
    std::cout << "\n";
  };
  line({ "case", "backend/device", "iterations", "s/iter", "it/s", "Mvox/s", "GB/s", "copy GB/s", "fraction" });
  for (const auto & r : rows)
    line({ r.case_,
           r.target,
           std::to_string(r.iterations),
           Format(r.secondsPerIteration, 3, true),
           Format(r.IterationsPerSecond(), 2),
           Format(r.MvoxPerSecond(), 1),
           Format(r.Gbps(), 2),
           Format(r.copyGbps, 2),
           Format(r.Fraction(), 3) });
}

std::string
Json(const std::string & text)
{
  std::ostringstream s;
  s << '"';
  for (const unsigned char ch : text)
  {
    if (ch == '"' || ch == '\\')
      s << '\\' << ch;
    else if (ch < 0x20)
      s << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(ch) << std::dec << std::setfill(' ');
    else
      s << ch;
  }
  s << '"';
  return s.str();
}

/** Writes the JSON report to `out`, opened at start-up so that a bad path fails before the runs. */
void
WriteJson(std::ofstream & out, const Options & o, const std::vector<Target> & targets, const std::vector<Row> & rows)
{
  out << std::setprecision(6);
  out << "{\n  \"benchmark\": \"tv_bench\",\n  \"algorithm\": "
      << Json(gpur::ToString(gpur::TVAlgorithm::AcceleratedChambollePock)) << ",\n  \"real\": \"float\",\n"
      << "  \"quick\": " << (o.quick ? "true" : "false") << ",\n"
      << "  \"timing\": \"seconds per iteration = (t(2N) - t(N)) / N of DenoiseTV wall times, gap checks off\",\n"
      << "  \"model\": {\n    \"description\": \"floats per voxel per iteration, each array read or written once per "
         "kernel: dual reads ubar and reads+writes each p component, primal reads f, u and each p component and "
         "writes u and ubar\",\n"
      << "    \"bytesPerFloat\": " << sizeof(float)
      << ",\n    \"floatsPerVoxelPerIteration\": { \"2\": " << FloatsPerVoxelPerIteration(2)
      << ", \"3\": " << FloatsPerVoxelPerIteration(3) << " }\n  },\n";
  out << "  \"devices\": [";
  const auto & devices = gpur::ListDevices();
  for (std::size_t i = 0; i < devices.size(); ++i)
    out << (i ? "," : "") << "\n    " << Json(devices[i].Describe());
  out << "\n  ],\n  \"backends\": [";
  for (std::size_t i = 0; i < targets.size(); ++i)
  {
    const Bandwidth & b = targets[i].copy;
    out << (i ? "," : "") << "\n    { \"name\": " << Json(targets[i].name) << ", \"copyMethod\": " << Json(b.method)
        << ", \"copyBytes\": " << b.bytes << ", \"copyGBps\": " << b.gbps << ", \"copyWallGBps\": " << b.wallGbps
        << " }";
  }
  out << "\n  ],\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row & r = rows[i];
    out << (i ? "," : "") << "\n    { \"case\": " << Json(r.case_) << ", \"backend\": " << Json(r.target)
        << ", \"dimension\": " << r.dimension << ", \"voxels\": " << r.voxels << ", \"iterations\": " << r.iterations
        << ", \"secondsPerIteration\": " << r.secondsPerIteration
        << ", \"iterationsPerSecond\": " << r.IterationsPerSecond() << ", \"mvoxPerSecond\": " << r.MvoxPerSecond()
        << ", \"bytesPerIteration\": " << r.bytesPerIteration << ", \"GBps\": " << r.Gbps()
        << ", \"copyGBps\": " << r.copyGbps << ", \"bandwidthFraction\": " << r.Fraction() << " }";
  }
  out << "\n  ]\n}\n";
  out.close();
  if (!out)
    throw gpur::Error("error while writing " + o.json);
}

} // namespace

int
main(int argc, char * argv[])
{
  try
  {
    Options o;
    if (!ParseOptions(argc, argv, o))
      return 0;
    std::ofstream json(o.json);
    if (!json)
      throw gpur::Error("cannot write " + o.json);
    for (const auto & d : gpur::ListDevices())
      std::cout << "device " << d.Describe() << "\n";
    std::cout << "model: floats per voxel per iteration: 2D " << FloatsPerVoxelPerIteration(2) << ", 3D "
              << FloatsPerVoxelPerIteration(3) << " (x " << sizeof(float) << " bytes)\n";

    const std::vector<Case> cases = MakeCases(o);
    const std::vector<Target> targets = MakeTargets(o);
    const double minSeconds = o.quick ? 0.05 : 0.5;
    std::vector<Row> rows;
    for (const auto & c : cases)
      for (const auto & t : targets)
      {
        std::cerr << "tv_bench: " << c.name << " on " << t.name << "...\n";
        rows.push_back(Measure(c, t, o.iterations, minSeconds));
      }
    std::cout << "\n";
    PrintTable(rows);
    WriteJson(json, o, targets, rows);
    std::cout << "\nwrote " << o.json << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "tv_bench: " << e.what() << "\n";
    return 1;
  }
}
