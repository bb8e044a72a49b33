// SPDX-License-Identifier: Apache-2.0
// TV denoising throughput: iterations per second of the default algorithm
// (AcceleratedChambollePock, float) on the CPU reference and on each OpenCL
// device, with the effective bandwidth (the fewest bytes an iteration must
// move, gpur::TVMinimalBytesPerVoxel, per iteration time) beside the copy
// bandwidth measured in the same run, and the bound they give: copy
// bandwidth / TVMinimalBytesPerVoxel in Mvox*it/s, and the fraction of it
// reached; then, per case, what Backend::Auto chooses on this machine and the
// two speeds it measured. With
// --half, each OpenCL device runs again with half-precision duals, and a
// line per case gives their objective excess over float duals. Prints a
// table and writes JSON.
//
//   tv_bench [--sizes 2d,3d,2d:N,3d:N] [--iterations N] [--devices SELECTION] [--json out.json] [--quick] [--half]
#include "gpurAutoBackend.h"
#include "gpurBench.h"
#include "gpurCommandLine.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurGrid.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"

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
  bool half = false; // also half-precision duals on each OpenCL device
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
  std::string dualStorage = "float32";
  std::size_t voxels = 0;
  unsigned dimension = 0, iterations = 0;
  double secondsPerIteration = 0, copyGbps = 0;
  double minimalBytesPerVoxel = 0; ///< gpur::TVMinimalBytesPerVoxel of the run: what every byte figure counts
  bool differenced = true;         ///< false: --quick fell back to t(2N) / 2N (gpur::bench::OnUntimed)

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
  BytesPerIteration() const
  {
    return minimalBytesPerVoxel * double(voxels);
  }
  /** The effective bandwidth: the fewest bytes an iteration must move, per iteration time. */
  double
  Gbps() const
  {
    return BytesPerIteration() * IterationsPerSecond() / 1e9;
  }
  /** The speed at which the fewest bytes an iteration must move take the copy bandwidth. */
  double
  BoundMvoxPerSecond() const
  {
    return copyGbps * 1e9 / minimalBytesPerVoxel / 1e6;
  }
  /** Of the bound, which is the effective bandwidth over the copy bandwidth too. */
  double
  BoundFraction() const
  {
    return MvoxPerSecond() / BoundMvoxPerSecond();
  }
};

/**
 * Half-precision duals against float duals on one device for a case, at the
 * default gap tolerance: iterations and convergence of each, and the relative
 * objective excess (P_half - P_float) / P_float at the float run's iteration
 * count.
 */
struct HalfAccuracy
{
  std::string case_, target;
  double tolerance = 0;
  unsigned floatIterations = 0, halfIterations = 0;
  bool floatConverged = false, halfConverged = false;
  double floatGap = 0, halfGap = 0, objectiveExcess = 0;
};

/** What Backend::Auto chose for a case and the speeds its probe measured (0: not measured). */
struct AutoChoice
{
  std::string case_, backend, reason;
  double cpuMvoxPerSecond = 0, openclMvoxPerSecond = 0;
};

/** gpur::TVMinimalBytesPerVoxel of the benchmarked method (float, no weights). */
std::size_t
MinimalBytes(unsigned dimension, bool half)
{
  return gpur::TVMinimalBytesPerVoxel(
    gpur::TVAlgorithm::AcceleratedChambollePock, dimension, false, sizeof(float), half);
}

/** The edge length of a --sizes case: 2d, 3d (the defaults), 2d:N or 3d:N (N >= 2). */
std::size_t
EdgeLength(const std::string & size, bool quick)
{
  const std::string kind = size.substr(0, 2);
  if ((kind == "2d" || kind == "3d") && size.size() == 2)
    return kind == "2d" ? (quick ? 512 : 2048) : (quick ? 64 : 256);
  if ((kind == "2d" || kind == "3d") && size.size() > 3 && size[2] == ':' &&
      size.find_first_not_of("0123456789", 3) == std::string::npos && size.size() <= 9)
  {
    const std::size_t n = std::stoul(size.substr(3));
    if (n >= 2)
      return n;
  }
  throw gpur::cli::UsageError("--sizes: unknown case '" + size + "' (allowed: 2d, 3d, 2d:N, 3d:N with N >= 2)");
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
  parser.AddString(
    "--sizes", "LIST", "Comma-separated cases: 2d (2048^2), 3d (256^3), or 2d:N (N^2), 3d:N (N^3).", sizes);
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
  parser.AddSwitch("--half",
                   "Also run each OpenCL device with half-precision duals, and compare their objective with "
                   "float duals at the default gap tolerance.",
                   o.half);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  o.sizes = gpur::bench::SplitCommas(sizes);
  for (const auto & s : o.sizes)
    EdgeLength(s, o.quick); // throws UsageError for an unknown case
  return true;
}

/** The benchmark problems: a noisy Shepp-Logan phantom (sigma 0.1), as in the tests. */
std::vector<Case>
MakeCases(const Options & o)
{
  std::vector<Case> cases;
  for (const auto & s : o.sizes)
  {
    const std::size_t n = EdgeLength(s, o.quick);
    const bool twoD = s.compare(0, 2, "2d") == 0;
    Case c;
    c.grid = twoD ? gpur::MakeGrid2D(n, n) : gpur::MakeGrid3D(n, n, n);
    c.name = (twoD ? "2D " : "3D ") + std::to_string(n) + (twoD ? "^2" : "^3");
    // About 1 s (2D) and 4 s (3D) of iterations on a 2-core CPU; Measure() doubles them on faster machines.
    c.defaultIterations = twoD ? 20 : 10;
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

bool
IsDevice(const Target & t)
{
  return !t.devices.empty();
}

/** Wall time of one DenoiseTV call running exactly `iterations` (no gap checks). */
double
SolveSeconds(const Case & c, const Target & t, unsigned iterations, bool half, std::vector<float> & u)
{
  gpur::TVParameters parameters;
  parameters.halfPrecisionDual = half;
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
Measure(const Case & c, const Target & t, const Options & o, bool half)
{
  std::vector<float> u(c.f.size());
  const gpur::bench::IterationTiming timing =
    gpur::bench::TimeIterations([&](unsigned iterations) { return SolveSeconds(c, t, iterations, half, u); },
                                c.defaultIterations,
                                o.iterations,
                                o.quick ? 0.05 : 0.5,
                                c.name + " on " + t.name + (half ? " (half p)" : ""),
                                o.quick ? gpur::bench::OnUntimed::TotalTime : gpur::bench::OnUntimed::Throw);
  Row r;
  r.case_ = c.name;
  r.target = t.name;
  r.dualStorage = half ? "float16" : "float32";
  r.minimalBytesPerVoxel = double(gpur::TVMinimalBytesPerVoxel(
    gpur::TVAlgorithm::AcceleratedChambollePock, c.grid.dimension, false, sizeof(float), half));
  r.voxels = c.grid.Count();
  r.dimension = c.grid.dimension;
  r.iterations = timing.iterations;
  r.secondsPerIteration = timing.secondsPerIteration;
  r.differenced = timing.differenced;
  r.copyGbps = t.copy.gbps;
  return r;
}

/** A run of the default method at the default tolerance (gapTolerance 0: exactly maxIterations). */
gpur::TVReport
SolveReport(const Case & c, const Target & t, bool half, double tolerance, unsigned maxIterations)
{
  gpur::TVParameters parameters;
  parameters.halfPrecisionDual = half;
  parameters.gapTolerance = tolerance;
  parameters.maxIterations = maxIterations;
  std::vector<float> u(c.f.size());
  return gpur::DenoiseTV(c.f.data(), u.data(), c.grid, parameters, t.execution);
}

HalfAccuracy
CompareHalf(const Case & c, const Target & t)
{
  HalfAccuracy a;
  a.case_ = c.name;
  a.target = t.name;
  a.tolerance = gpur::TVParameters().gapTolerance;
  const unsigned budget = gpur::TVParameters().maxIterations;
  const gpur::TVReport full = SolveReport(c, t, false, a.tolerance, budget);
  const gpur::TVReport half = SolveReport(c, t, true, a.tolerance, budget);
  a.floatIterations = full.iterations;
  a.halfIterations = half.iterations;
  a.floatConverged = full.converged;
  a.halfConverged = half.converged;
  a.floatGap = full.relativeGap;
  a.halfGap = half.relativeGap;
  const gpur::TVReport same = SolveReport(c, t, true, 0.0, full.iterations);
  a.objectiveExcess = (same.primal - full.primal) / full.primal;
  return a;
}

void
PrintHalfAccuracy(const std::vector<HalfAccuracy> & rows)
{
  for (const HalfAccuracy & a : rows)
    std::cout << "half p on " << a.target << ", " << a.case_ << ", tolerance " << a.tolerance << ": float "
              << a.floatIterations << " iterations (gap " << a.floatGap << (a.floatConverged ? ", converged" : "")
              << "), half " << a.halfIterations << " (gap " << a.halfGap << (a.halfConverged ? ", converged" : "")
              << "); objective excess at " << a.floatIterations << " iterations " << a.objectiveExcess << "\n";
}

/**
 * What Auto runs for a case on this machine: a one-iteration DenoiseTV with
 * Backend::Auto, measured afresh (the process's cache cleared first). Its
 * speeds are those of its own short probe, next to the table's timing.
 */
AutoChoice
ChooseAuto(const Case & c)
{
  gpur::AutoBackendChooser::Process().Clear();
  gpur::TVParameters parameters;
  parameters.maxIterations = 1;
  parameters.gapCheckInterval = 0;
  parameters.gapTolerance = 0.0;
  std::vector<float> u(c.f.size());
  const gpur::TVReport report =
    gpur::DenoiseTV(c.f.data(), u.data(), c.grid, parameters, gpur::MakeExecution(gpur::Backend::Auto));
  AutoChoice a;
  a.case_ = c.name;
  a.backend = report.backend.Describe();
  a.reason = report.backend.reason;
  a.cpuMvoxPerSecond = report.backend.cpuVoxelsPerSecond / 1e6;
  a.openclMvoxPerSecond = report.backend.openclVoxelsPerSecond / 1e6;
  return a;
}

void
PrintAutoChoices(const std::vector<AutoChoice> & choices)
{
  for (const AutoChoice & a : choices)
  {
    std::cout << "auto chose " << a.backend << " for " << a.case_;
    if (a.cpuMvoxPerSecond > 0 && a.openclMvoxPerSecond > 0)
      std::cout << ": cpu " << Format(a.cpuMvoxPerSecond, 1) << " Mvox/s, opencl " << Format(a.openclMvoxPerSecond, 1)
                << " Mvox/s";
    std::cout << " (" << a.reason << ")\n";
  }
}

void
PrintTable(const std::vector<Row> & rows)
{
  std::vector<std::vector<std::string>> table{ { "case",
                                                 "backend/device",
                                                 "p",
                                                 "iterations",
                                                 "s/iter",
                                                 "it/s",
                                                 "Mvox/s",
                                                 "eff. GB/s",
                                                 "copy GB/s",
                                                 "bound Mvox/s",
                                                 "of bound" } };
  for (const auto & r : rows)
    table.push_back({ r.case_,
                      r.target,
                      r.dualStorage,
                      std::to_string(r.iterations),
                      Format(r.secondsPerIteration, 3, true) + (r.differenced ? "" : " *"),
                      Format(r.IterationsPerSecond(), 2),
                      Format(r.MvoxPerSecond(), 1),
                      Format(r.Gbps(), 2),
                      Format(r.copyGbps, 2),
                      Format(r.BoundMvoxPerSecond(), 1),
                      Format(r.BoundFraction(), 3) });
  gpur::bench::PrintTable(std::cout, table, 2);
  for (const auto & r : rows)
    if (!r.differenced)
    {
      std::cout << "* t(2N) / 2N with set-up included: 2N iterations timed no slower than N (--quick on a busy "
                   "machine)\n";
      break;
    }
}

/** Writes the JSON report to `out` (an OutputFile's stream, opened at start-up: a bad path fails before the runs). */
void
WriteJson(std::ostream & out,
          const Options & o,
          const std::vector<Target> & targets,
          const std::vector<Row> & rows,
          const std::vector<AutoChoice> & choices,
          const std::vector<HalfAccuracy> & halves)
{
  out << std::setprecision(6);
  out << "{\n  \"benchmark\": \"tv_bench\",\n  \"algorithm\": "
      << JsonString(gpur::ToString(gpur::TVAlgorithm::AcceleratedChambollePock)) << ",\n  \"real\": \"float\",\n"
      << "  \"quick\": " << (o.quick ? "true" : "false") << ",\n"
      << "  \"timing\": \"seconds per iteration = (t(2N) - t(N)) / N of DenoiseTV wall times, gap checks off; "
         "differenced false: --quick found 2N no slower than N and reports t(2N) / 2N\",\n"
      << "  \"minimalModel\": {\n    \"description\": \"gpur::TVMinimalBytesPerVoxel: u and each p component read and "
         "written once, f read once per iteration; bytesPerIteration, GBps (the effective bandwidth) and "
         "bandwidthFraction count these bytes; boundMvoxPerSecond = copy bandwidth / minimalBytesPerVoxel, and "
         "boundFraction = bandwidthFraction\",\n"
      << "    \"bytesPerVoxel\": { \"2\": " << MinimalBytes(2, false) << ", \"3\": " << MinimalBytes(3, false)
      << " },\n    \"bytesPerVoxelHalfDual\": { \"2\": " << MinimalBytes(2, true)
      << ", \"3\": " << MinimalBytes(3, true) << " }\n  },\n";
  gpur::bench::WriteTargetsJson(out, targets);
  out << ",\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row & r = rows[i];
    out << (i ? "," : "") << "\n    { \"case\": " << JsonString(r.case_) << ", \"backend\": " << JsonString(r.target)
        << ", \"dimension\": " << r.dimension << ", \"voxels\": " << r.voxels << ", \"iterations\": " << r.iterations
        << ", \"secondsPerIteration\": " << r.secondsPerIteration
        << ", \"differenced\": " << (r.differenced ? "true" : "false")
        << ", \"iterationsPerSecond\": " << r.IterationsPerSecond() << ", \"mvoxPerSecond\": " << r.MvoxPerSecond()
        << ", \"bytesPerIteration\": " << r.BytesPerIteration() << ", \"GBps\": " << r.Gbps()
        << ", \"copyGBps\": " << r.copyGbps << ", \"bandwidthFraction\": " << r.BoundFraction()
        << ", \"dualStorage\": " << JsonString(r.dualStorage)
        << ", \"minimalBytesPerVoxel\": " << r.minimalBytesPerVoxel
        << ", \"boundMvoxPerSecond\": " << r.BoundMvoxPerSecond() << ", \"boundFraction\": " << r.BoundFraction()
        << " }";
  }
  out << "\n  ],\n  \"auto\": [";
  for (std::size_t i = 0; i < choices.size(); ++i)
  {
    const AutoChoice & a = choices[i];
    out << (i ? "," : "") << "\n    { \"case\": " << JsonString(a.case_) << ", \"chose\": " << JsonString(a.backend)
        << ", \"reason\": " << JsonString(a.reason) << ", \"cpuMvoxPerSecond\": " << a.cpuMvoxPerSecond
        << ", \"openclMvoxPerSecond\": " << a.openclMvoxPerSecond << " }";
  }
  out << "\n  ],\n  \"halfDual\": [";
  for (std::size_t i = 0; i < halves.size(); ++i)
  {
    const HalfAccuracy & h = halves[i];
    out << (i ? "," : "") << "\n    { \"case\": " << JsonString(h.case_) << ", \"backend\": " << JsonString(h.target)
        << ", \"tolerance\": " << h.tolerance << ", \"floatIterations\": " << h.floatIterations
        << ", \"floatConverged\": " << (h.floatConverged ? "true" : "false") << ", \"floatGap\": " << h.floatGap
        << ", \"halfIterations\": " << h.halfIterations
        << ", \"halfConverged\": " << (h.halfConverged ? "true" : "false") << ", \"halfGap\": " << h.halfGap
        << ", \"objectiveExcess\": " << h.objectiveExcess << " }";
  }
  out << "\n  ]\n}\n";
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
    gpur::bench::OutputFile json(o.json); // opened now: a bad path fails before the runs
    for (const auto & d : gpur::ListDevices())
      std::cout << "device " << d.Describe() << "\n";
    std::cout << "minimal bytes per voxel per iteration (gpur::TVMinimalBytesPerVoxel): 2D " << MinimalBytes(2, false)
              << ", 3D " << MinimalBytes(3, false) << "; half p: 2D " << MinimalBytes(2, true) << ", 3D "
              << MinimalBytes(3, true) << "\n";

    const std::vector<Case> cases = MakeCases(o);
    const std::vector<Target> targets = MakeTargets(o);
    std::vector<Row> rows;
    for (const auto & c : cases)
      for (const auto & t : targets)
      {
        std::cerr << "tv_bench: " << c.name << " on " << t.name << "...\n";
        rows.push_back(Measure(c, t, o, false));
        if (o.half && IsDevice(t))
        {
          std::cerr << "tv_bench: " << c.name << " on " << t.name << " with half-precision duals...\n";
          rows.push_back(Measure(c, t, o, true));
        }
      }
    std::vector<HalfAccuracy> halves;
    for (const auto & c : cases)
      for (const auto & t : targets)
        if (o.half && IsDevice(t))
        {
          std::cerr << "tv_bench: " << c.name << " on " << t.name << ": half against float duals to the tolerance...\n";
          halves.push_back(CompareHalf(c, t));
        }
    std::vector<AutoChoice> choices;
    for (const auto & c : cases)
      choices.push_back(ChooseAuto(c));
    std::cout << "\n";
    PrintTable(rows);
    std::cout << "\n";
    PrintAutoChoices(choices);
    PrintHalfAccuracy(halves);
    WriteJson(json.Stream(), o, targets, rows, choices, halves);
    json.Commit();
    std::cout << "\nwrote " << o.json << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "tv_bench: " << e.what() << "\n";
    return 1;
  }
}
