// SPDX-License-Identifier: Apache-2.0
// TV denoising throughput: iterations per second of the default algorithm
// (AcceleratedChambollePock, float) on the CPU reference and on each OpenCL
// device, and the memory bandwidth that implies as a fraction of the copy
// bandwidth measured in the same run. Prints a table and writes JSON.
//
//   tv_bench [--sizes 2d,3d] [--iterations N] [--devices SELECTION] [--json out.json] [--quick]
#include "gpurBench.h"
#include "gpurCommandLine.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurGrid.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

namespace
{

using gpur::bench::Format;
using gpur::bench::JsonString;
using gpur::bench::Target;

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
                     gpur::bench::kMaxIterations);
  parser.AddString(
    "--devices", "SELECTION", "OpenCL devices (see itkgpurestoration-devices); default all; none.", o.devices);
  parser.AddString("--json", "FILE", "Where to write the JSON results.", o.json);
  parser.AddSwitch("--quick", "Small sizes (512^2, 64^3) for smoke tests.", o.quick);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  o.sizes = gpur::bench::SplitCommas(sizes);
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

std::vector<Target>
MakeTargets(const Options & o)
{
  std::vector<Target> targets{ gpur::bench::CPUTarget() };
  for (const auto & d : gpur::bench::BenchDevices(o.devices))
    targets.push_back(gpur::bench::DeviceTarget({ d }));
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

/** Per-iteration time of DenoiseTV by t(2N) - t(N) (see gpur::bench::TimeIterations). */
Row
Measure(const Case & c, const Target & t, unsigned fixedIterations, double minSeconds)
{
  std::vector<float> u(c.f.size());
  const gpur::bench::IterationTiming timing =
    gpur::bench::TimeIterations([&](unsigned iterations) { return SolveSeconds(c, t, iterations, u); },
                                c.defaultIterations,
                                fixedIterations,
                                minSeconds,
                                c.name + " on " + t.name);
  Row r;
  r.case_ = c.name;
  r.target = t.name;
  r.voxels = c.grid.Count();
  r.dimension = c.grid.dimension;
  r.iterations = timing.iterations;
  r.secondsPerIteration = timing.secondsPerIteration;
  r.bytesPerIteration = double(FloatsPerVoxelPerIteration(r.dimension)) * sizeof(float) * r.voxels;
  r.copyGbps = t.copy.gbps;
  return r;
}

void
PrintTable(const std::vector<Row> & rows)
{
  std::vector<std::vector<std::string>> table{
    { "case", "backend/device", "iterations", "s/iter", "it/s", "Mvox/s", "GB/s", "copy GB/s", "fraction" }
  };
  for (const auto & r : rows)
    table.push_back({ r.case_,
                      r.target,
                      std::to_string(r.iterations),
                      Format(r.secondsPerIteration, 3, true),
                      Format(r.IterationsPerSecond(), 2),
                      Format(r.MvoxPerSecond(), 1),
                      Format(r.Gbps(), 2),
                      Format(r.copyGbps, 2),
                      Format(r.Fraction(), 3) });
  gpur::bench::PrintTable(std::cout, table, 2);
}

/** Writes the JSON report to `out`, opened at start-up so that a bad path fails before the runs. */
void
WriteJson(std::ofstream & out, const Options & o, const std::vector<Target> & targets, const std::vector<Row> & rows)
{
  out << std::setprecision(6);
  out << "{\n  \"benchmark\": \"tv_bench\",\n  \"algorithm\": "
      << JsonString(gpur::ToString(gpur::TVAlgorithm::AcceleratedChambollePock)) << ",\n  \"real\": \"float\",\n"
      << "  \"quick\": " << (o.quick ? "true" : "false") << ",\n"
      << "  \"timing\": \"seconds per iteration = (t(2N) - t(N)) / N of DenoiseTV wall times, gap checks off\",\n"
      << "  \"model\": {\n    \"description\": \"floats per voxel per iteration, each array read or written once per "
         "kernel: dual reads ubar and reads+writes each p component, primal reads f, u and each p component and "
         "writes u and ubar\",\n"
      << "    \"bytesPerFloat\": " << sizeof(float)
      << ",\n    \"floatsPerVoxelPerIteration\": { \"2\": " << FloatsPerVoxelPerIteration(2)
      << ", \"3\": " << FloatsPerVoxelPerIteration(3) << " }\n  },\n";
  gpur::bench::WriteTargetsJson(out, targets);
  out << ",\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row & r = rows[i];
    out << (i ? "," : "") << "\n    { \"case\": " << JsonString(r.case_) << ", \"backend\": " << JsonString(r.target)
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
