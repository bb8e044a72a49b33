// SPDX-License-Identifier: Apache-2.0
// Statistical TV for CT ([Huang2023], see gpurStatisticalTV.h): speed and quality benchmark. Prints two
// tables and writes JSON.
//
// 1. Throughput: S-PDU (DenoiseStatisticalTV, PDU with variance weights) and
//    TV-GD (DenoiseTVGD) on cubes of --sizes voxels, on the CPU reference, each
//    OpenCL device and all devices together (z-slabs; S-PDU only, TV-GD runs on
//    one device): voxel updates per second, the bandwidth that implies (see
//    FloatsPerVoxel) as a fraction of the copy bandwidth measured in the same
//    run on the same target, and the strong-scaling efficiency
//    t(1 device) / (n t(n devices)). Sizes that do not fit a target (see
//    ResidentFloatsPerVoxel) are listed as skipped. The input is a noisy
//    Shepp-Logan phantom with a smooth variance map: the cost of an iteration
//    does not depend on the values, and simulating a CT scan of 512^3 would take
//    longer than the benchmark.
// 2. Quality at equal run time on the simulated CT phantom (gpur::MakeCTPhantom:
//    truth, noisy FBP volume, analytic variance): plain ROF (accelerated
//    Chambolle-Pock), PDU, S-PDU and TV-GD, each given the run time of N S-PDU
//    iterations (MeasureBudget), with parameters chosen on a second noise
//    realisation (RunQualityPhantom); PSNR and SSIM against the truth.
//
//   statistical_tv_bench [--sizes 64,128,256,512] [--devices SELECTION] [--no-cpu] [--iterations N]
//                        [--tables throughput,quality] [--quality-size N] [--quality-target cpu|SELECTION]
//                        [--budget-iterations N] [--phantoms machined,shepp-logan] [--json FILE] [--quick]
#include "gpurBench.h"
#include "gpurCTPhantom.h"
#include "gpurCommandLine.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurGrid.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurStatisticalTV.h"
#include "gpurStopwatch.h"
#include "gpurTVGradientDescent.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace
{

using gpur::bench::Format;
using gpur::bench::JsonString;
using gpur::bench::Target;

constexpr double kGiB = double(1u << 30);

struct Options
{
  std::string sizes; // empty: 64,128,256,512 (--quick: 32)
  unsigned iterations = 0;
  std::string devices;
  bool noCPU = false;
  std::string tables = "throughput,quality";
  unsigned qualitySize = 0;      // 0: 64 (--quick: 32)
  std::string qualityTarget;     // empty: the default OpenCL device if any, else the CPU reference
  unsigned budgetIterations = 0; // 0: 100 (--quick: 10)
  std::string phantoms = "machined,shepp-logan";
  double weightExponent = 1.0;
  double photons = 1.0e3; // the tests' noise level; at 1e4 the FBP's own error hides most of the noise
  std::string json = "statistical_tv_bench.json";
  bool quick = false;

  bool
  Table(const std::string & name) const
  {
    const auto list = gpur::bench::SplitCommas(tables);
    return std::find(list.begin(), list.end(), name) != list.end();
  }
  double
  MinSeconds() const
  {
    return quick ? 0.02 : 0.5;
  }
  /** --quick smoke runs report t(2N) / 2N rather than fail when noise makes 2N no slower than N. */
  gpur::bench::OnUntimed
  Untimed() const
  {
    return quick ? gpur::bench::OnUntimed::TotalTime : gpur::bench::OnUntimed::Throw;
  }
  std::uint64_t
  CopyBytes() const
  {
    return quick ? gpur::bench::kQuickCopyBytes : gpur::bench::kCopyBytes;
  }
};

enum class Method
{
  ROF,  ///< DenoiseTV, accelerated Chambolle-Pock, unweighted
  PDU,  ///< DenoiseTV, PDU [Huang2023, Algorithm 1], unweighted
  SPDU, ///< DenoiseStatisticalTV: PDU with w = var^gamma / mean(var^gamma)
  TVGD  ///< DenoiseTVGD, plain TV, step in RMS units
};

const char *
Name(Method m)
{
  switch (m)
  {
    case Method::ROF:
      return "ROF (accel. CP)";
    case Method::PDU:
      return "PDU";
    case Method::SPDU:
      return "S-PDU";
    case Method::TVGD:
      return "TV-GD";
  }
  return "";
}

/**
 * Floats each voxel moves per iteration of a 3D volume if every array is read
 * or written once per kernel (stencil neighbours come from cache), so the
 * bandwidth derived from it is a lower bound:
 *   PDU    primal (tv_primal) reads f, u, px, py, pz, writes u       6
 *          dual   (tv_dual)   reads u, reads + writes px, py, pz      7  -> 13
 *   S-PDU  PDU + the weight w in the primal                             -> 14
 *   ROF    CP: dual reads ubar, reads + writes p (7); primal reads f,
 *          u, p, writes u, ubar (7)                                     -> 14
 *   TV-GD  gradient reads u, writes du (2); update reads u, du, writes u
 *          (3); the global norm is a reduction of per-group partials    -> 5
 */
unsigned
FloatsPerVoxel(Method m)
{
  switch (m)
  {
    case Method::ROF:
      return 14;
    case Method::PDU:
      return 13;
    case Method::SPDU:
      return 14;
    case Method::TVGD:
      return 5;
  }
  return 0;
}

/** Volumes a method keeps on its device: PDU f, u, px, py, pz (+ w for S-PDU); TV-GD f, u, du. */
unsigned
ResidentFloatsPerVoxel(Method m)
{
  switch (m)
  {
    case Method::ROF:
      return 6;
    case Method::PDU:
      return 5;
    case Method::SPDU:
      return 6;
    case Method::TVGD:
      return 3;
  }
  return 0;
}

/** Host volumes besides a CPU engine's own: the benchmark's f, variance and u, and S-PDU's weights. */
constexpr unsigned kHostFloatsPerVoxel = 4;

/** A denoising problem: noisy volume f and its per-voxel noise variance. */
struct Problem
{
  gpur::Grid grid;
  std::vector<float> f, variance;
};

/** The primal-dual methods' parameters: `iterations` exactly (no gap checks), S-PDU's weight exponent. */
gpur::StatisticalTVParameters
PrimalDualParameters(Method method, double lambda, unsigned iterations, const Options & o)
{
  gpur::StatisticalTVParameters s;
  s.tv.lambda = lambda;
  s.tv.algorithm = method == Method::ROF ? gpur::TVAlgorithm::AcceleratedChambollePock : gpur::TVAlgorithm::PDU;
  s.tv.maxIterations = iterations;
  s.tv.gapTolerance = 0.0;
  s.tv.gapCheckInterval = 0;
  s.weightExponent = o.weightExponent;
  return s;
}

/**
 * Runs `method` for exactly `iterations` from the start (no gap checks, no
 * target) into u and returns the wall time of the call, including S-PDU's
 * weights. parameter: lambda, or lambda_rms for TV-GD.
 */
double
Run(Method method,
    const Problem & p,
    double parameter,
    unsigned iterations,
    const gpur::ExecutionOptions & execution,
    const Options & o,
    std::vector<float> & u,
    std::size_t * devicesUsed = nullptr,
    std::size_t * streamRegions = nullptr)
{
  const gpur::Stopwatch watch;
  unsigned done = 0;
  std::size_t devices = 0, regions = 0;
  if (method == Method::TVGD)
  {
    gpur::TVGDParameters gd;
    gd.lambda = parameter;
    gd.stepUnit = gpur::TVGDStepUnit::RMS;
    gd.iterations = iterations;
    const gpur::TVGDReport report = gpur::DenoiseTVGD(p.f.data(), u.data(), p.grid, gd, execution);
    done = report.iterations;
    devices = report.backend.devices.size();
  }
  else
  {
    const gpur::StatisticalTVParameters s = PrimalDualParameters(method, parameter, iterations, o);
    const gpur::TVReport report =
      method == Method::SPDU
        ? gpur::DenoiseStatisticalTV(p.f.data(), p.variance.data(), u.data(), p.grid, s, execution).tv
        : gpur::DenoiseTV(p.f.data(), u.data(), p.grid, s.tv, execution);
    done = report.iterations;
    devices = report.backend.devices.size();
    regions = report.streamRegions;
  }
  const double seconds = watch.Seconds();
  if (done != iterations)
    throw gpur::Error(std::string(Name(method)) + " ran " + std::to_string(done) + " iterations instead of " +
                      std::to_string(iterations));
  if (devicesUsed)
    *devicesUsed = std::max<std::size_t>(1, devices);
  if (streamRegions)
    *streamRegions = regions;
  return seconds;
}

// --- Throughput --------------------------------------------------------------

struct ThroughputRow
{
  std::size_t edge = 0, voxels = 0;
  Method method = Method::SPDU;
  std::string target;
  std::size_t targetDevices = 0; ///< devices of the target (0: CPU)
  std::size_t devicesUsed = 0;   ///< devices the engine used (slabs)
  std::size_t streamRegions = 0; ///< z-regions per device when streamed through host memory
  std::string skipped;           ///< why it did not run; empty when measured
  unsigned iterations = 0;
  double secondsPerIteration = 0, copyGbps = 0;
  bool differenced = true; ///< false: --quick fell back to t(2N) / 2N (gpur::bench::OnUntimed)

  double
  VoxelUpdatesPerSecond() const
  {
    return voxels / secondsPerIteration;
  }
  double
  Gbps() const
  {
    return double(FloatsPerVoxel(method)) * sizeof(float) * voxels / secondsPerIteration / 1e9;
  }
};

struct ScalingRow
{
  std::size_t edge = 0;
  Method method = Method::SPDU;
  std::size_t devices = 0;
  double oneDevice = 0, nDevices = 0; ///< seconds per iteration

  double
  Efficiency() const
  {
    return oneDevice / (devices * nDevices);
  }
};

std::uint64_t
PhysicalMemory()
{
  return std::uint64_t(sysconf(_SC_PHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGE_SIZE));
}

std::string
GiB(double bytes)
{
  return Format(bytes / kGiB, 1) + " GiB";
}

/**
 * Empty when the method fits on the target, else why not. The model: on each
 * device the resident volumes (ResidentFloatsPerVoxel) of its z-slab
 * (ceil(nz / n) slices plus exchangeInterval + 1 halo slices on both sides with
 * several devices); in host memory (at most 80 % of it) the host arrays
 * (kHostFloatsPerVoxel) plus the engine's volumes on the CPU reference and on
 * CPU-type OpenCL devices (PoCL), whose buffers are host memory too.
 */
std::string
DoesNotFit(Method m, const gpur::Grid & grid, const Target & t)
{
  if (m == Method::TVGD && t.devices.size() > 1)
    return "TV-GD runs on one device";
  const double slice = double(grid.size[0]) * grid.size[1] * sizeof(float);
  const double volume = slice * grid.size[2];
  double hostNeed = (kHostFloatsPerVoxel + (t.devices.empty() ? ResidentFloatsPerVoxel(m) : 0)) * volume;
  const std::size_t n = t.devices.size();
  const std::size_t halo = gpur::TVParameters().exchangeInterval + 1;
  const std::size_t slices = n <= 1 ? grid.size[2] : std::min(grid.size[2], (grid.size[2] + n - 1) / n + 2 * halo);
  for (const auto & d : t.devices)
  {
    double need = ResidentFloatsPerVoxel(m) * slice * slices;
    if (t.execution.deviceMemoryLimit > 0) // streamed: two padded regions within the limit
      need = std::min(need, double(t.execution.deviceMemoryLimit));
    if (need > double(d.globalMemory))
      return "needs " + GiB(need) + ", device [" + std::to_string(d.index) + "] has " + GiB(double(d.globalMemory));
    if (slice * slices > double(d.maxAllocation))
      return "a volume exceeds device [" + std::to_string(d.index) + "]'s largest buffer";
    if (d.type == gpur::DeviceType::CPU)
      hostNeed += need;
  }
  const double hostHas = 0.8 * double(PhysicalMemory());
  if (hostNeed > hostHas)
    return "needs " + GiB(hostNeed) + " of host memory, 80 % of it is " + GiB(hostHas);
  return "";
}

/**
 * The targets, and for S-PDU also each single device with a memory limit of
 * half the state, which makes the engine stream the volume through host memory
 * in z-regions: the price of volumes larger than device memory.
 */
std::vector<Target>
StreamedVariants(Method m, const gpur::Grid & grid, const std::vector<Target> & targets)
{
  std::vector<Target> all = targets;
  if (m != Method::SPDU)
    return all;
  for (const auto & t : targets)
    if (t.devices.size() == 1)
    {
      Target streamed = t;
      streamed.name += " streamed";
      streamed.execution.deviceMemoryLimit =
        std::uint64_t(ResidentFloatsPerVoxel(m)) * grid.Count() * sizeof(float) / 2;
      all.push_back(streamed);
    }
  return all;
}

/** Why the half-state limit cannot stream the grid (too few slices for two padded regions), or "". */
std::string
CannotStream(const gpur::Grid & grid, const Target & t)
{
  const std::size_t halo = gpur::TVParameters().exchangeInterval + 1;
  const std::uint64_t slice = std::uint64_t(ResidentFloatsPerVoxel(Method::SPDU)) * grid.size[0] * grid.size[1] * 4;
  if (t.execution.deviceMemoryLimit < 2 * 4 * halo * slice)
    return "half the state is less than two regions of " + std::to_string(4 * halo) + " padded slices";
  return "";
}

/** Noisy Shepp-Logan (sigma 0.05) with a CT-like variance: sigma^2 in the centre of a slice, 5x at its corners. */
Problem
MakeThroughputProblem(const gpur::Grid & grid)
{
  const std::size_t edge = grid.size[0];
  Problem p;
  p.grid = grid;
  p.f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(p.grid), 0.05, 1);
  p.variance.resize(p.f.size());
  const double c = 0.5 * (edge - 1.0);
  for (std::size_t z = 0, i = 0; z < edge; ++z)
    for (std::size_t y = 0; y < edge; ++y)
      for (std::size_t x = 0; x < edge; ++x, ++i)
      {
        const double r2 = ((x - c) * (x - c) + (y - c) * (y - c)) / (2 * c * c); // 0 centre, 1 corner
        p.variance[i] = float(0.0025 * (1.0 + 4.0 * r2));
      }
  return p;
}

std::vector<std::size_t>
ParseSizes(const Options & o)
{
  std::vector<std::size_t> sizes;
  for (const auto & s : gpur::bench::SplitCommas(o.sizes.empty() ? (o.quick ? "32" : "64,128,256,512") : o.sizes))
    sizes.push_back(gpur::cli::ParseUnsigned("--sizes", s, 16, 4096));
  return sizes;
}

std::vector<ThroughputRow>
RunThroughput(const Options & o, const std::vector<Target> & targets)
{
  std::vector<ThroughputRow> rows;
  for (const std::size_t edge : ParseSizes(o))
  {
    const gpur::Grid grid = gpur::MakeGrid3D(edge, edge, edge);
    Problem p; // made for the first run that fits
    std::vector<float> u;
    for (const Method m : { Method::SPDU, Method::TVGD })
      for (const auto & t : StreamedVariants(m, grid, targets))
      {
        ThroughputRow r;
        r.edge = edge;
        r.voxels = grid.Count();
        r.method = m;
        r.target = t.name;
        r.targetDevices = t.devices.size();
        r.copyGbps = t.copy.gbps;
        r.skipped = DoesNotFit(m, grid, t);
        if (r.skipped.empty() && t.execution.deviceMemoryLimit > 0)
          r.skipped = CannotStream(grid, t);
        if (r.skipped.empty())
        {
          if (p.f.empty())
          {
            std::cerr << "statistical_tv_bench: making the " << edge << "^3 input...\n";
            p = MakeThroughputProblem(grid);
            u.resize(p.f.size());
          }
          std::cerr << "statistical_tv_bench: " << Name(m) << " " << edge << "^3 on " << t.name << "...\n";
          // lambda does not change the cost; 8 is the default, 0.004 the TV-GD
          // step (RMS units; lambda = 2 of [Huang2023, Algorithm 2] on 64^3).
          const double parameter = m == Method::TVGD ? 0.004 : 8.0;
          const gpur::bench::IterationTiming timing = gpur::bench::TimeIterations(
            [&](unsigned n) { return Run(m, p, parameter, n, t.execution, o, u, &r.devicesUsed, &r.streamRegions); },
            4,
            o.iterations,
            o.MinSeconds(),
            std::string(Name(m)) + " " + std::to_string(edge) + "^3 on " + t.name,
            o.Untimed());
          r.iterations = timing.iterations;
          r.secondsPerIteration = timing.secondsPerIteration;
          r.differenced = timing.differenced;
        }
        rows.push_back(r);
      }
  }
  return rows;
}

/** Per size and method: the first single-device row against the multi-device row. */
std::vector<ScalingRow>
Scaling(const std::vector<ThroughputRow> & rows)
{
  std::vector<ScalingRow> scaling;
  for (const auto & multi : rows)
  {
    if (multi.targetDevices < 2 || !multi.skipped.empty())
      continue;
    const auto one = std::find_if(rows.begin(),
                                  rows.end(),
                                  [&](const ThroughputRow & r) {
                                    return r.edge == multi.edge && r.method == multi.method && r.targetDevices == 1 &&
                                           r.skipped.empty();
                                  });
    if (one == rows.end())
      continue;
    ScalingRow s;
    s.edge = multi.edge;
    s.method = multi.method;
    s.devices = multi.devicesUsed;
    s.oneDevice = one->secondsPerIteration;
    s.nDevices = multi.secondsPerIteration;
    scaling.push_back(s);
  }
  return scaling;
}

void
PrintThroughput(const std::vector<ThroughputRow> & rows, const std::vector<ScalingRow> & scaling)
{
  std::vector<std::vector<std::string>> table{ { "size",
                                                 "method",
                                                 "backend/device",
                                                 "regions",
                                                 "iterations",
                                                 "s/iter",
                                                 "Mvox-upd/s",
                                                 "GB/s",
                                                 "copy GB/s",
                                                 "fraction" } };
  for (const auto & r : rows)
  {
    std::vector<std::string> line{ std::to_string(r.edge) + "^3", Name(r.method), r.target };
    if (r.skipped.empty())
      line.insert(line.end(),
                  { r.streamRegions ? std::to_string(r.streamRegions) : std::string("-"),
                    std::to_string(r.iterations),
                    Format(r.secondsPerIteration, 3, true),
                    Format(r.VoxelUpdatesPerSecond() / 1e6, 1),
                    Format(r.Gbps(), 2),
                    Format(r.copyGbps, 2),
                    Format(r.Gbps() / r.copyGbps, 3) });
    else
      line.push_back("skipped: " + r.skipped);
    table.push_back(line);
  }
  gpur::bench::PrintTable(std::cout, table, 3);
  if (scaling.empty())
    return;
  std::cout << "\nstrong scaling: efficiency = t(1 device) / (n x t(n devices)), seconds per iteration\n";
  std::vector<std::vector<std::string>> s{ { "size", "method", "n", "t(1)", "t(n)", "speed-up", "efficiency" } };
  for (const auto & r : scaling)
    s.push_back({ std::to_string(r.edge) + "^3",
                  Name(r.method),
                  std::to_string(r.devices),
                  Format(r.oneDevice, 3, true),
                  Format(r.nDevices, 3, true),
                  Format(r.oneDevice / r.nDevices, 2),
                  Format(r.Efficiency(), 3) });
  gpur::bench::PrintTable(std::cout, s, 2);
}

// --- Quality at equal run time ------------------------------------------------

struct QualityRow
{
  std::string phantom, method, parameter, tuning;
  unsigned iterations = 0;
  double seconds = 0, psnr = 0, ssim = 0;
};

struct QualityConfig
{
  std::size_t edge = 0;
  std::string target;
  unsigned budgetIterations = 0;
  double budgetSeconds = 0;
  std::map<Method, gpur::bench::IterationTiming> timing;
  std::map<Method, unsigned> iterations; ///< what fits in the budget
};

/**
 * The quality runs' target (its copy bandwidth is not needed): --quality-target
 * "cpu", a device selection, or by default the default device if any.
 */
Target
QualityTarget(const Options & o)
{
  if (o.qualityTarget == "cpu" || (o.qualityTarget.empty() && !gpur::HaveOpenCLDevice()))
    return gpur::bench::CPUTarget(0);
  return gpur::bench::DeviceTarget({ gpur::SelectDevices(o.qualityTarget).front() }, 0);
}

/**
 * Maximises score(start * 2^(e/4)) over quarter-octave exponents e, assuming
 * one maximum: walks in octaves from e = 0 while the score rises, then refines
 * to half and quarter octaves (--quick: octaves only). Returns {x, score}.
 */
std::pair<double, double>
MaximiseOnLogScale(const std::function<double(double)> & score, double start, bool quick)
{
  std::map<int, double> cache;
  auto at = [&](int e)
  {
    const auto it = cache.find(e);
    if (it != cache.end())
      return it->second;
    return cache[e] = score(start * std::exp2(e / 4.0));
  };
  constexpr int kMaxOctaves = 12; // a lambda 4096x the start means: no smoothing helps
  int best = 0;
  for (int step = 4; step >= (quick ? 4 : 1); step /= 2)
  {
    for (const int direction : { 1, -1 })
      while (std::abs(best + direction * step) <= 4 * kMaxOctaves && at(best + direction * step) > at(best))
        best += direction * step;
  }
  return { start * std::exp2(best / 4.0), at(best) };
}

double
PSNR(const std::vector<float> & u, const gpur::CTSimulation & ct)
{
  const double peak = *std::max_element(ct.truth.begin(), ct.truth.end());
  return gpur::PeakSignalToNoiseRatio(u.data(), ct.truth.data(), u.size(), peak);
}

double
SSIM(const std::vector<float> & u, const gpur::CTSimulation & ct)
{
  gpur::SSIMParameters s;
  s.dataRange = *std::max_element(ct.truth.begin(), ct.truth.end());
  return gpur::MeanStructuralSimilarity(ct.grid, u.data(), ct.truth.data(), s);
}

Problem
AsProblem(const gpur::CTSimulation & ct)
{
  return { ct.grid, ct.noisy, ct.variance };
}

/**
 * The budget: the time of budgetIterations S-PDU iterations on the quality
 * target, modelled as fixed + N x per-iteration time (both measured as in the
 * throughput table). Every other method gets the iterations that fit in it:
 * floor((budget - its fixed time) / its per-iteration time).
 */
QualityConfig
MeasureBudget(const Options & o, const Target & target, const Problem & p)
{
  QualityConfig q;
  q.edge = p.grid.size[0];
  q.target = target.name;
  q.budgetIterations = o.budgetIterations ? o.budgetIterations : (o.quick ? 10 : 100);
  std::vector<float> u(p.f.size());
  for (const Method m : { Method::ROF, Method::PDU, Method::SPDU, Method::TVGD })
  {
    std::cerr << "statistical_tv_bench: timing " << Name(m) << " for the quality budget...\n";
    const double parameter = m == Method::TVGD ? 0.004 : 8.0;
    q.timing[m] =
      gpur::bench::TimeIterations([&](unsigned n) { return Run(m, p, parameter, n, target.execution, o, u); },
                                  8,
                                  0,
                                  o.MinSeconds(),
                                  std::string(Name(m)) + " on " + target.name,
                                  o.Untimed());
  }
  const auto & spdu = q.timing[Method::SPDU];
  q.budgetSeconds = spdu.fixedSeconds + q.budgetIterations * spdu.secondsPerIteration;
  for (const auto & [m, t] : q.timing)
    q.iterations[m] = m == Method::SPDU
                        ? q.budgetIterations
                        : unsigned(std::clamp(std::floor((q.budgetSeconds - t.fixedSeconds) / t.secondsPerIteration),
                                              1.0,
                                              double(gpur::bench::kMaxIterations)));
  return q;
}

/**
 * TV-GD has no data term: u drifts from f by lambda_rms per iteration and the
 * error to the truth falls, then rises (semi-convergence). So its parameters
 * are the step lambda_rms and the iteration to stop at (at most the budget):
 * the best PSNR over the path, checked every `chunk` iterations (TV-GD
 * continues exactly from u, see ContinueTVGD). Returns {PSNR, best iterations}.
 */
std::pair<double, unsigned>
BestTVGDStop(const gpur::CTSimulation & ct,
             double lambdaRms,
             unsigned maxIterations,
             unsigned chunk,
             const gpur::ExecutionOptions & execution)
{
  gpur::TVGDParameters gd;
  gd.lambda = lambdaRms;
  gd.stepUnit = gpur::TVGDStepUnit::RMS;
  std::vector<float> u = ct.noisy;
  std::pair<double, unsigned> best{ PSNR(u, ct), 0 };
  for (unsigned done = 0; done < maxIterations;)
  {
    gd.iterations = std::min(chunk, maxIterations - done);
    const gpur::TVGDReport r = gpur::ContinueTVGD(ct.noisy.data(), u.data(), ct.grid, gd, execution);
    done += r.iterations;
    best = std::max(best, std::make_pair(PSNR(u, ct), done));
    if (r.stationary)
      break;
  }
  return best;
}

/**
 * One phantom. Parameters are chosen on a second noise realisation (scan seed
 * 2, same truth), at the iteration counts of the budget:
 *   ROF, PDU, S-PDU: lambda of the best PSNR (MaximiseOnLogScale from 1/sigma,
 *                    sigma^2 the mean variance);
 *   S-PDU (discrepancy): lambda of the discrepancy principle (automatic lambda,
 *                    sum (u - f)^2 / var = N; needs no truth);
 *   TV-GD:           lambda_rms and stopping iteration of the best PSNR
 *                    (BestTVGDStop; lambda_rms searched from 4 sigma / iterations).
 * Then every method runs once on the test realisation (scan seed 1) with its
 * parameters; PSNR and SSIM (3D Gaussian window, data range = the truth's
 * maximum) against the truth.
 */
std::vector<QualityRow>
RunQualityPhantom(const Options & o,
                  const std::string & phantom,
                  const gpur::CTSimulation & test,
                  const gpur::CTSimulation & tune,
                  const Target & target,
                  const QualityConfig & q)
{
  const gpur::ExecutionOptions & execution = target.execution;
  const double sigma =
    std::sqrt(std::accumulate(tune.variance.begin(), tune.variance.end(), 0.0) / double(tune.variance.size()));
  std::vector<float> u(test.noisy.size());
  const Problem testProblem = AsProblem(test), tuneProblem = AsProblem(tune);

  std::vector<QualityRow> rows;
  QualityRow noisy;
  noisy.phantom = phantom;
  noisy.method = "noisy input (FBP)";
  noisy.parameter = noisy.tuning = "-";
  noisy.psnr = PSNR(test.noisy, test);
  noisy.ssim = SSIM(test.noisy, test);
  rows.push_back(noisy);
  QualityRow ceiling = noisy;
  ceiling.method = "noise-free FBP";
  ceiling.psnr = PSNR(test.noiseFree, test);
  ceiling.ssim = SSIM(test.noiseFree, test);
  rows.push_back(ceiling);

  // The run on the test realisation.
  auto evaluate = [&](Method m, double parameter, const std::string & text, unsigned iterations)
  {
    QualityRow r;
    r.phantom = phantom;
    r.method = Name(m);
    r.parameter = text;
    r.iterations = iterations;
    r.seconds = Run(m, testProblem, parameter, iterations, execution, o, u);
    r.psnr = PSNR(u, test);
    r.ssim = SSIM(u, test);
    return r;
  };

  for (const Method m : { Method::ROF, Method::PDU, Method::SPDU })
  {
    std::cerr << "statistical_tv_bench: " << phantom << ": tuning " << Name(m) << "...\n";
    const unsigned iterations = q.iterations.at(m);
    const double lambda = MaximiseOnLogScale(
                            [&](double l)
                            {
                              Run(m, tuneProblem, l, iterations, execution, o, u);
                              return PSNR(u, tune);
                            },
                            1.0 / sigma,
                            o.quick)
                            .first;
    QualityRow r = evaluate(m, lambda, "lambda " + Format(lambda, 2), iterations);
    r.tuning = "best PSNR, seed 2";
    rows.push_back(r);
  }

  {
    std::cerr << "statistical_tv_bench: " << phantom << ": S-PDU discrepancy lambda...\n";
    // The search needs converged solves (default gap tolerance); the result then runs the budget's iterations.
    gpur::StatisticalTVParameters s;
    s.tv.algorithm = gpur::TVAlgorithm::PDU;
    s.tv.maxIterations = 5000;
    s.weightExponent = o.weightExponent;
    s.automaticLambda = true;
    const gpur::StatisticalTVReport report =
      gpur::DenoiseStatisticalTV(tune.noisy.data(), tune.variance.data(), u.data(), tune.grid, s, execution);
    QualityRow r =
      evaluate(Method::SPDU, report.lambda, "lambda " + Format(report.lambda, 2), q.iterations.at(Method::SPDU));
    r.tuning = "discrepancy, seed 2";
    rows.push_back(r);
  }

  {
    std::cerr << "statistical_tv_bench: " << phantom << ": tuning TV-GD...\n";
    const unsigned maxIterations = q.iterations.at(Method::TVGD);
    const unsigned chunk = std::max(1u, maxIterations / (o.quick ? 8 : 32));
    std::map<double, unsigned> stops;
    const double lambdaRms = MaximiseOnLogScale(
                               [&](double l)
                               {
                                 const auto [psnr, stop] = BestTVGDStop(tune, l, maxIterations, chunk, execution);
                                 stops[l] = stop;
                                 return psnr;
                               },
                               4.0 * sigma / maxIterations,
                               o.quick)
                               .first;
    const unsigned stop = std::max(1u, stops.at(lambdaRms));
    QualityRow r = evaluate(Method::TVGD, lambdaRms, "lambda_rms " + Format(lambdaRms, 5), stop);
    r.tuning = "best PSNR and stop, seed 2";
    rows.push_back(r);
  }
  return rows;
}

gpur::CTPhantomShape
ParsePhantom(const std::string & name)
{
  if (name == "machined")
    return gpur::CTPhantomShape::MachinedPart;
  if (name == "shepp-logan")
    return gpur::CTPhantomShape::SheppLogan;
  throw gpur::cli::UsageError("--phantoms: unknown phantom '" + name + "' (allowed: machined, shepp-logan)");
}

std::vector<QualityRow>
RunQuality(const Options & o, QualityConfig & q)
{
  const std::size_t edge = o.qualitySize ? o.qualitySize : (o.quick ? 32 : 64);
  const gpur::Grid grid = gpur::MakeGrid3D(edge, edge, edge);
  const Target target = QualityTarget(o);
  std::vector<QualityRow> rows;
  for (const auto & name : gpur::bench::SplitCommas(o.phantoms))
  {
    std::cerr << "statistical_tv_bench: simulating the " << name << " CT phantom, " << edge << "^3...\n";
    gpur::CTScanParameters scan;
    scan.photonsPerRay = o.photons;
    scan.computeNoiseFree = true; // the FBP's own error bounds what any denoiser can reach
    scan.seed = 1;
    const gpur::CTSimulation test = gpur::MakeCTPhantom(grid, ParsePhantom(name), scan);
    scan.seed = 2;
    scan.computeNoiseFree = false;
    const gpur::CTSimulation tune = gpur::MakeCTPhantom(grid, ParsePhantom(name), scan);
    if (q.timing.empty()) // the cost per iteration does not depend on the phantom
      q = MeasureBudget(o, target, AsProblem(test));
    const auto phantomRows = RunQualityPhantom(o, name, test, tune, target, q);
    rows.insert(rows.end(), phantomRows.begin(), phantomRows.end());
  }
  return rows;
}

void
PrintQuality(const QualityConfig & q, const std::vector<QualityRow> & rows)
{
  std::cout << "\nquality at equal run time: CT phantom " << q.edge << "^3 on " << q.target << ", budget "
            << Format(q.budgetSeconds, 3) << " s = " << q.budgetIterations << " S-PDU iterations\n";
  std::vector<std::vector<std::string>> table{
    { "phantom", "method", "parameter", "chosen by", "iterations", "seconds", "PSNR dB", "SSIM" }
  };
  for (const auto & r : rows)
    table.push_back({ r.phantom,
                      r.method,
                      r.parameter,
                      r.tuning,
                      r.iterations ? std::to_string(r.iterations) : "-",
                      r.iterations ? Format(r.seconds, 3) : "-",
                      Format(r.psnr, 2),
                      Format(r.ssim, 4) });
  gpur::bench::PrintTable(std::cout, table, 4);
}

// --- Output ------------------------------------------------------------------

void
WriteJson(std::ostream & out,
          const Options & o,
          const std::vector<Target> & targets,
          const std::vector<ThroughputRow> & throughput,
          const std::vector<ScalingRow> & scaling,
          const QualityConfig & q,
          const std::vector<QualityRow> & quality)
{
  out << std::setprecision(6);
  out << "{\n  \"benchmark\": \"statistical_tv_bench\",\n  \"real\": \"float\",\n"
      << "  \"quick\": " << (o.quick ? "true" : "false") << ",\n  \"weightExponent\": " << o.weightExponent << ",\n"
      << "  \"timing\": \"seconds per iteration = (t(2N) - t(N)) / N of wall times of whole engine calls, gap checks "
         "off\",\n"
      << "  \"model\": { \"description\": \"floats per voxel per iteration, each array read or written once per "
         "kernel (see FloatsPerVoxel in statistical_tv_bench.cxx)\", \"bytesPerFloat\": "
      << sizeof(float) << ", \"floatsPerVoxelPerIteration\": {";
  const Method methods[] = { Method::ROF, Method::PDU, Method::SPDU, Method::TVGD };
  for (std::size_t i = 0; i < 4; ++i)
    out << (i ? ", " : " ") << JsonString(Name(methods[i])) << ": " << FloatsPerVoxel(methods[i]);
  out << " } },\n";
  gpur::bench::WriteTargetsJson(out, targets);
  out << ",\n  \"throughput\": [";
  for (std::size_t i = 0; i < throughput.size(); ++i)
  {
    const ThroughputRow & r = throughput[i];
    out << (i ? "," : "") << "\n    { \"size\": " << r.edge << ", \"method\": " << JsonString(Name(r.method))
        << ", \"backend\": " << JsonString(r.target) << ", \"voxels\": " << r.voxels;
    if (r.skipped.empty())
      out << ", \"devicesUsed\": " << r.devicesUsed << ", \"streamRegions\": " << r.streamRegions
          << ", \"iterations\": " << r.iterations << ", \"secondsPerIteration\": " << r.secondsPerIteration
          << ", \"differenced\": " << (r.differenced ? "true" : "false")
          << ", \"voxelUpdatesPerSecond\": " << r.VoxelUpdatesPerSecond() << ", \"GBps\": " << r.Gbps()
          << ", \"copyGBps\": " << r.copyGbps << ", \"bandwidthFraction\": " << r.Gbps() / r.copyGbps << " }";
    else
      out << ", \"skipped\": " << JsonString(r.skipped) << " }";
  }
  out << "\n  ],\n  \"scaling\": [";
  for (std::size_t i = 0; i < scaling.size(); ++i)
  {
    const ScalingRow & s = scaling[i];
    out << (i ? "," : "") << "\n    { \"size\": " << s.edge << ", \"method\": " << JsonString(Name(s.method))
        << ", \"devices\": " << s.devices << ", \"secondsPerIterationOneDevice\": " << s.oneDevice
        << ", \"secondsPerIterationNDevices\": " << s.nDevices << ", \"efficiency\": " << s.Efficiency() << " }";
  }
  out << "\n  ],\n  \"quality\": {";
  if (!quality.empty())
  {
    out << "\n    \"size\": " << q.edge << ", \"backend\": " << JsonString(q.target)
        << ", \"photonsPerRay\": " << o.photons << ", \"budgetSeconds\": " << q.budgetSeconds
        << ", \"budgetSPDUIterations\": " << q.budgetIterations << ",\n    \"timing\": [";
    std::size_t i = 0;
    for (const auto & [m, t] : q.timing)
      out << (i++ ? "," : "") << "\n      { \"method\": " << JsonString(Name(m))
          << ", \"secondsPerIteration\": " << t.secondsPerIteration << ", \"fixedSeconds\": " << t.fixedSeconds
          << ", \"iterationsInBudget\": " << q.iterations.at(m) << " }";
    out << "\n    ],\n    \"results\": [";
    for (std::size_t k = 0; k < quality.size(); ++k)
    {
      const QualityRow & r = quality[k];
      out << (k ? "," : "") << "\n      { \"phantom\": " << JsonString(r.phantom)
          << ", \"method\": " << JsonString(r.method) << ", \"parameter\": " << JsonString(r.parameter)
          << ", \"chosenBy\": " << JsonString(r.tuning) << ", \"iterations\": " << r.iterations
          << ", \"seconds\": " << r.seconds << ", \"psnr\": " << r.psnr << ", \"ssim\": " << r.ssim << " }";
    }
    out << "\n    ]\n  ";
  }
  out << "}\n}\n";
}

/** Returns false when --help was printed. */
bool
ParseOptions(int argc, char * argv[], Options & o)
{
  gpur::cli::Parser parser("statistical_tv_bench",
                           "",
                           "Statistical TV for CT: S-PDU and TV-GD throughput on the CPU reference, each OpenCL "
                           "device and all devices together (with the copy bandwidth measured in the same run and "
                           "the strong-scaling efficiency), and PSNR/SSIM of ROF, PDU, S-PDU and TV-GD on the CT "
                           "phantom at equal run time. Prints both tables and writes JSON.");
  parser.AddString("--sizes", "LIST", "Cube edges of the throughput table.", o.sizes).defaultValue =
    "64,128,256,512; --quick: 32";
  parser
    .AddUnsigned("--iterations",
                 "N",
                 "Fixed iteration count N of the throughput table (timed as t(2N) - t(N)).",
                 o.iterations,
                 1,
                 gpur::bench::kMaxIterations)
    .defaultValue = "doubled until t(2N) - t(N) >= 0.5 s";
  parser.AddString(
    "--devices", "SELECTION", "OpenCL devices (see itkgpurestoration-devices); default all; none.", o.devices);
  parser.AddSwitch("--no-cpu", "Leave the CPU reference out of the throughput table.", o.noCPU);
  parser.AddString("--tables", "LIST", "Which tables: throughput, quality.", o.tables);
  parser.AddUnsigned("--quality-size", "N", "Cube edge of the CT phantom.", o.qualitySize, 32, 1024).defaultValue =
    "64; --quick: 32";
  parser
    .AddString(
      "--quality-target", "TARGET", "Where the quality runs: cpu or an OpenCL device selection.", o.qualityTarget)
    .defaultValue = "the default device, else cpu";
  parser
    .AddUnsigned("--budget-iterations",
                 "N",
                 "The run-time budget of the quality table is the time of N S-PDU iterations.",
                 o.budgetIterations,
                 1,
                 gpur::bench::kMaxIterations)
    .defaultValue = "100; --quick: 10";
  parser.AddString("--phantoms", "LIST", "CT phantoms: machined, shepp-logan.", o.phantoms);
  parser.AddDouble("--weight-exponent",
                   "G",
                   "S-PDU weights w = var^G / mean(var^G); 1 is the model of Huang 2023.",
                   o.weightExponent,
                   gpur::cli::ParseNonNegativeDouble);
  parser.AddDouble("--photons",
                   "I0",
                   "Photons per detector bin and view of the simulated scan.",
                   o.photons,
                   gpur::cli::ParsePositiveDouble);
  parser.AddString("--json", "FILE", "Where to write the JSON results.", o.json);
  parser.AddSwitch("--quick", "Tiny sizes (32^3) and budgets for smoke tests.", o.quick);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  for (const auto & t : gpur::bench::SplitCommas(o.tables))
    if (t != "throughput" && t != "quality")
      throw gpur::cli::UsageError("--tables: unknown table '" + t + "' (allowed: throughput, quality)");
  for (const auto & p : gpur::bench::SplitCommas(o.phantoms))
    ParsePhantom(p);
  ParseSizes(o);
  return true;
}

/** The CPU reference (unless --no-cpu), each OpenCL device, and all of them together when there are several. */
std::vector<Target>
MakeTargets(const Options & o)
{
  std::vector<Target> targets;
  if (!o.noCPU)
    targets.push_back(gpur::bench::CPUTarget(o.CopyBytes()));
  const std::vector<gpur::DeviceInfo> devices = gpur::bench::BenchDevices(o.devices);
  for (const auto & d : devices)
    targets.push_back(gpur::bench::DeviceTarget({ d }, o.CopyBytes()));
  if (devices.size() > 1)
    targets.push_back(gpur::bench::DeviceTarget(devices, o.CopyBytes()));
  return targets;
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

    std::vector<Target> targets;
    std::vector<ThroughputRow> throughput;
    std::vector<ScalingRow> scaling;
    if (o.Table("throughput"))
    {
      targets = MakeTargets(o);
      throughput = RunThroughput(o, targets);
      scaling = Scaling(throughput);
    }
    QualityConfig q;
    std::vector<QualityRow> quality;
    if (o.Table("quality"))
      quality = RunQuality(o, q);

    if (!throughput.empty())
    {
      std::cout << "\nthroughput: model floats per voxel per iteration: S-PDU " << FloatsPerVoxel(Method::SPDU)
                << ", TV-GD " << FloatsPerVoxel(Method::TVGD) << " (x " << sizeof(float)
                << " bytes); fraction = GB/s / copy GB/s of the same target\n";
      PrintThroughput(throughput, scaling);
    }
    if (!quality.empty())
      PrintQuality(q, quality);
    WriteJson(json.Stream(), o, targets, throughput, scaling, q, quality);
    json.Commit();
    std::cout << "\nwrote " << o.json << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "statistical_tv_bench: " << e.what() << "\n";
    return 1;
  }
}
