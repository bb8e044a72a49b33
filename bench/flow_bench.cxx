// SPDX-License-Identifier: Apache-2.0
// Curvature flows of graphs benchmark (issue 16, item 5): time, GFLOP/s and
// Runge-Kutta-Merson steps (accepted/rejected) of gpur::GraphFlowRun on the
// grids of [Oberhuber2011, Tables 5-8], in float and double, on the CPU
// reference and on each OpenCL device, with the paper's figures beside
// (GeForce GTX 280 and a 4-core Core 2 Quad), and the bandwidth the
// right-hand-side kernels reach under the byte model below as a fraction of
// the copy bandwidth measured in the same run. ITK's CurvatureFlowImageFilter
// is timed on the "compare" case by bench/flow_compare.py (needs Python).
// Prints a table per case and writes JSON.
//
//   flow_bench [--tables 5,6,7,8] [--sizes 16,32,64,128] [--willmore-sizes 16]
//              [--evolution-size 128] [--mcf-time 0.5] [--willmore-time 1e-5]
//              [--compare-sizes 512,1024] [--compare-time 0.002] [--one-thread]
//              [--devices SELECTION] [--repeats N] [--save DIR] [--json FILE] [--quick]
//
// Tables 5-7: the manufactured solution (30) of [Oberhuber2011] (n = r = σ = 1,
// its forcing added, Dirichlet data from it) on [-4, 4]² to T = 0.1, ε = 1e-5;
// N² means N x N cells, (N + 1)² nodes. Table 8: the evolutions of the
// paper's Figs. 1 and 2, φ(x, 0) = sin(3π |x|) (35) on (-2, 2)² with Neumann
// boundaries, to t = 0.5 (MCF; Fig. 1) and a short stretch of the Willmore
// flow (the paper's t = 0.1 took 3.3 hours on its GPU; compare seconds per
// step). "compare": the same surface, MCF in float, at the sizes and time of
// --compare-*, the case flow_compare.py runs ITK's filter on.
//
// FLOPs, counted as [Oberhuber2011, §4.3] counts them (+, *, /, |.|, sqrt
// each one FLOP), per interior node:
//   - mean-curvature right-hand side, eqs. (36)-(50): 85 per evaluation;
//   - Willmore right-hand side: w by the same 85, then eqs. (40)-(53): 218,
//     303 per evaluation;
//   - the Merson combinations per node and step (kernels/gpur_merson.cl):
//     stage arguments 3 + 4 + 5 + 7 = 19, the error estimate 7 and its max 1,
//     the update 6 (accepted steps only): 33 per accepted, 27 per rejected step;
//   - a step evaluates the right-hand side 5 times: an accepted MCF step is
//     5 x 85 + 33 = 458 FLOPs per node, a Willmore one 5 x 303 + 33 = 1548.
// The forcing terms of the manufactured solution are not counted (the paper
// does not print its count for them; ours are computer-algebra expressions
// of several hundred operations), so Tables 5-7's GFLOP/s here are the
// scheme's alone, a lower bound of what the hardware does there.
//
// Bytes per node and right-hand-side evaluation if every array is read or
// written once (its stencil neighbours from cache): MCF reads u, writes f:
// 2 words; Willmore writes w from u (2 words), then reads u and w and writes
// f (3): 5 words. The right-hand side's time is its kernels' profiled events
// (OpenCL) or its loops' wall time (CPU reference): "RHS s" all evaluations
// (GraphFlowReport::rightHandSideSeconds), "RHS best ms" the shortest one
// (rightHandSideBestSeconds, over all runs), which the RHS GFLOP/s and GB/s
// and the fraction of the copy bandwidth (itself a best of several copies)
// use: on a machine shared with other work the best evaluation is what the
// kernel can do, the sum what a run got. Grids that fit in cache can exceed
// the copy bandwidth.
#include "gpurBench.h"
#include "gpurCommandLine.h"
#include "gpurError.h"
#include "gpurGraphFlow.h"
#include "gpurParallel.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace
{

using gpur::bench::Cell;
using gpur::bench::Format;
using gpur::bench::JsonNumber;
using gpur::bench::JsonString;
using gpur::bench::Target;

constexpr double kMcfRhsFlops = 85;              // [Oberhuber2011, §4.3]: eqs. (36)-(50) per node
constexpr double kWillmoreRhsFlops = 85 + 218;   // w, then eqs. (40)-(53)
constexpr double kMersonStageFlops = 19 + 7 + 1; // stage arguments, error estimate, its max
constexpr double kMersonUpdateFlops = 6;         // eq. (28), accepted steps only
constexpr double kMcfRhsWords = 2;
constexpr double kWillmoreRhsWords = 5;

/** One of the paper's timing rows: 1-core and 4-core CPU, GTX 280 (seconds, GFLOP/s); NaN: not in the paper. */
struct PaperRow
{
  double cpu1 = NAN, cpu1Gflops = NAN, cpu4 = NAN, cpu4Gflops = NAN, gpu = NAN, gpuGflops = NAN;
};

/** [Oberhuber2011, Tables 5-7] by N (N x N cells). */
const std::map<unsigned, PaperRow> &
PaperTable(int table)
{
  static const std::map<unsigned, PaperRow> t5{
    { 16, { 0.18, 0.86, 0.18, 0.86, 0.04, 3.9 } },  { 32, { 0.51, 0.9, 0.42, 1.08, 0.05, 9.2 } },
    { 64, { 2, 1.02, 1.53, 1.32, 0.1, 20.4 } },     { 128, { 12, 0.9, 5.01, 2.16, 0.32, 33.7 } },
    { 256, { 173, 0.96, 55.8, 2.97, 3.5, 47.4 } },  { 512, { 2537, 0.91, 746, 3.1, 49, 47.1 } },
    { 1024, { 40869, 0.9, 12771, 2.9, 754, 48.8 } }
  };
  static const std::map<unsigned, PaperRow> t6{
    { 16, { 0.13, 0.85, 0.12, 0.93, 0.05, 2.21 } },    { 32, { 0.53, 0.87, 0.35, 1.31, 0.06, 7.74 } },
    { 64, { 2.1, 0.86, 1.23, 1.46, 0.17, 10.5 } },     { 128, { 13, 0.83, 5.41, 1.99, 0.66, 16.3 } },
    { 256, { 200, 0.8, 64.5, 2.48, 9.0, 17.7 } },      { 512, { 3272, 0.76, 934, 2.66, 138, 17.4 } },
    { 1024, { 54187, 0.72, 16420, 2.37, 2213, 17.2 } }
  };
  // 256²: the printed GPU time 93031 s contradicts the row's speed-ups (21 and 5.5) and GFLOP/s, which all give
  // about 9400 s; a misplaced decimal point, so 9303.1 here.
  static const std::map<unsigned, PaperRow> t7{ { 16, { 0.28, 0.9, 0.12, 2, 0.19, 1.26 } },
                                                { 32, { 7.4, 0.87, 2.38, 2.7, 1.44, 4.6 } },
                                                { 64, { 492, 0.8, 136, 2.9, 38, 9.6 } },
                                                { 128, { 30494, 0.83, 8241, 3.1, 1494, 10.8 } },
                                                { 256, { 197424, 0.81, 51953, 3.1, 9303.1, 17 } } };
  static const std::map<unsigned, PaperRow> none;
  return table == 5 ? t5 : table == 6 ? t6 : table == 7 ? t7 : none;
}

/** [Oberhuber2011, Table 8] (128², seconds): MCF float, MCF double, Willmore double. */
PaperRow
PaperEvolution(gpur::GraphFlowType flow, bool isDouble)
{
  if (flow == gpur::GraphFlowType::Willmore)
    return { 152717, NAN, 44354, NAN, 11818, NAN };
  return isDouble ? PaperRow{ 23.2, NAN, 6.62, NAN, 2, NAN } : PaperRow{ 14.3, NAN, 4.08, NAN, 1, NAN };
}

struct Options
{
  std::vector<std::string> tables{ "5", "6", "7", "8" };
  std::vector<unsigned> sizes{ 16, 32, 64, 128 };
  std::vector<unsigned> willmoreSizes{ 16 };
  unsigned evolutionSize = 128;
  double mcfTime = 0.5;
  double willmoreTime = 1e-5;
  std::vector<unsigned> compareSizes{ 512, 1024 };
  double compareTime = 0.002;
  bool oneThread = false;
  std::string devices;
  unsigned repeats = 0; // 0: best of as many runs as fill 1 s (at most 5, at least 1)
  std::string json = "flow_bench.json";
  std::string save; // where the compare case's images go ("": nowhere)
  bool quick = false;
};

/** One benchmark case: a table of the paper, a flow, a precision and a grid. */
struct Case
{
  std::string table; // "5", "6", "7", "8" or "compare"
  gpur::GraphFlowType flow = gpur::GraphFlowType::MeanCurvature;
  bool isDouble = false;
  unsigned cells = 16; // N: N x N cells, (N + 1)² nodes
  gpur::Grid grid;
  gpur::GraphFlowParameters parameters;
  PaperRow paper;
  bool exact = false; // follows the manufactured solution (the error at T is reported)

  std::string
  Name() const
  {
    const std::string flowName = flow == gpur::GraphFlowType::Willmore ? "Willmore" : "MCF";
    return flowName + " " + (isDouble ? "double" : "float") + " " + std::to_string(cells) + "^2";
  }
};

struct Row
{
  Case c;
  std::string target;
  unsigned runs = 0;
  gpur::MersonReport steps;
  double seconds = 0, rhsSeconds = 0, rhsBest = 0, copyGbps = 0, maxError = NAN;
  std::vector<double> output; // the image at T (kept for --save)

  std::size_t
  Nodes() const
  {
    return c.grid.Count();
  }
  double
  Flops() const
  {
    const double interior = double(c.cells - 1) * double(c.cells - 1);
    const double rhs = c.flow == gpur::GraphFlowType::Willmore ? kWillmoreRhsFlops : kMcfRhsFlops;
    const double all = double(steps.accepted) + double(steps.rejected);
    return all * (5 * rhs * interior + kMersonStageFlops * double(Nodes())) +
           double(steps.accepted) * kMersonUpdateFlops * double(Nodes());
  }
  double
  Gflops() const
  {
    return Flops() / seconds / 1e9;
  }
  double
  MicrosecondsPerStep() const
  {
    return 1e6 * seconds / (double(steps.accepted) + double(steps.rejected));
  }
  /** Bytes of one evaluation of f under the model, over its best time. */
  double
  RhsGbps() const
  {
    const double words = c.flow == gpur::GraphFlowType::Willmore ? kWillmoreRhsWords : kMcfRhsWords;
    return words * (c.isDouble ? 8 : 4) * double(Nodes()) / rhsBest / 1e9;
  }
  /** The scheme's FLOPs of one evaluation of f over its best time. */
  double
  RhsGflops() const
  {
    const double rhs = c.flow == gpur::GraphFlowType::Willmore ? kWillmoreRhsFlops : kMcfRhsFlops;
    return rhs * double(c.cells - 1) * double(c.cells - 1) / rhsBest / 1e9;
  }
};

unsigned
ParseSize(const std::string & option, const std::string & text)
{
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
    throw gpur::cli::UsageError(option + ": '" + text + "' is not a number of cells (4 to 8192)");
  const unsigned n = unsigned(std::stoul(text));
  if (n < 4 || n > 8192)
    throw gpur::cli::UsageError(option + ": " + text + " is outside 4 to 8192");
  return n;
}

std::vector<unsigned>
ParseSizes(const std::string & option, const std::string & text)
{
  std::vector<unsigned> sizes;
  for (const auto & s : gpur::bench::SplitCommas(text))
    sizes.push_back(ParseSize(option, s));
  return sizes;
}

/** Returns false when --help was printed. */
bool
ParseOptions(int argc, char * argv[], Options & o)
{
  gpur::cli::Parser parser("flow_bench",
                           "",
                           "Curvature flows of graphs (mean-curvature and Willmore flow, Runge-Kutta-Merson): time, "
                           "GFLOP/s and steps on the grids of [Oberhuber2011, Tables 5-8], on the CPU reference and "
                           "each OpenCL device, with the paper's figures and the right-hand side's bandwidth as a "
                           "fraction of the copy bandwidth measured in the same run. Prints tables and writes JSON.");
  std::string tables = "5,6,7,8", sizes = "16,32,64,128", willmoreSizes = "16", compareSizes = "512,1024";
  parser.AddString("--tables",
                   "LIST",
                   "Comma-separated: 5 (MCF float), 6 (MCF double), 7 (Willmore double), 8 (the Fig. 1/2 "
                   "evolutions), compare (the case of flow_compare.py).",
                   tables);
  parser.AddString("--sizes", "LIST", "N of Tables 5 and 6 (N x N cells; the paper: 16 to 1024).", sizes);
  parser.AddString("--willmore-sizes", "LIST", "N of Table 7 (the paper: 16 to 256).", willmoreSizes);
  parser.AddUnsigned("--evolution-size", "N", "N of Table 8 (the paper: 128).", o.evolutionSize, 4, 8192);
  parser.AddDouble("--mcf-time", "T", "Table 8: the time MCF runs to (the paper's Fig. 1: 0.5).", o.mcfTime);
  parser.AddDouble(
    "--willmore-time", "T", "Table 8: the time Willmore flow runs to (the paper's Fig. 2: 0.1).", o.willmoreTime);
  parser.AddString("--compare-sizes", "LIST", "N of the compare case.", compareSizes);
  parser.AddDouble("--compare-time", "T", "The time of the compare case.", o.compareTime);
  parser.AddSwitch(
    "--one-thread", "Also run the CPU reference on one thread (the paper's 1-core column).", o.oneThread);
  parser.AddString(
    "--devices", "SELECTION", "OpenCL devices (see itkgpurestoration-devices); default all; none.", o.devices);
  parser.AddUnsigned(
    "--repeats", "N", "Timed runs per row, best taken (default: as many as fill 1 s, at most 5).", o.repeats, 0, 1000);
  parser.AddString("--save",
                   "DIR",
                   "Write the compare case's initial and final images (CPU reference) there as raw little-endian "
                   "float32, compare_<N>_initial.f32 and compare_<N>_final.f32, (N + 1)^2 values, x fastest.",
                   o.save);
  parser.AddString("--json", "FILE", "Where to write the JSON results.", o.json);
  parser.AddSwitch("--quick", "Small grids and short times for smoke tests.", o.quick);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  o.tables = gpur::bench::SplitCommas(tables);
  for (const auto & t : o.tables)
    if (t != "5" && t != "6" && t != "7" && t != "8" && t != "compare")
      throw gpur::cli::UsageError("--tables: '" + t + "' is none of 5, 6, 7, 8, compare");
  o.sizes = ParseSizes("--sizes", sizes);
  o.willmoreSizes = ParseSizes("--willmore-sizes", willmoreSizes);
  o.compareSizes = ParseSizes("--compare-sizes", compareSizes);
  for (const double t : { o.mcfTime, o.willmoreTime, o.compareTime })
    if (!(t > 0) || !std::isfinite(t))
      throw gpur::cli::UsageError("the times must be > 0 and finite");
  if (o.quick)
  {
    o.sizes = { 16, 32 };
    o.willmoreSizes = { 8 };
    o.evolutionSize = 32;
    o.mcfTime = 0.01;
    o.willmoreTime = 1e-5;
    o.compareSizes = { 64 };
    o.compareTime = 1e-3;
  }
  return true;
}

/** The manufactured-solution case of Tables 5-7 on [-4, 4]² to T = 0.1 [Oberhuber2011, §5]. */
Case
TableCase(const std::string & table, gpur::GraphFlowType flow, bool isDouble, unsigned cells)
{
  Case c;
  c.table = table;
  c.flow = flow;
  c.isDouble = isDouble;
  c.cells = cells;
  const double h = 8.0 / cells;
  c.grid = gpur::MakeGrid2D(cells + 1, cells + 1, h, h);
  c.parameters.flow = flow;
  c.parameters.finalTime = 0.1;
  c.parameters.tolerance = 1e-5;
  c.parameters.solution = gpur::GraphFlowSolution::Manufactured;
  c.parameters.origin = { { -4.0, -4.0 } };
  c.exact = true;
  const auto & paper = PaperTable(std::stoi(table));
  const auto found = paper.find(cells);
  if (found != paper.end())
    c.paper = found->second;
  return c;
}

/** The surface of [Oberhuber2011, Figs. 1-2], sin(3π |x|) (35) on (-2, 2)², Neumann, to `time`. */
Case
SurfaceCase(const std::string & table, gpur::GraphFlowType flow, bool isDouble, unsigned cells, double time)
{
  Case c;
  c.table = table;
  c.flow = flow;
  c.isDouble = isDouble;
  c.cells = cells;
  const double h = 4.0 / cells;
  c.grid = gpur::MakeGrid2D(cells + 1, cells + 1, h, h);
  c.parameters.flow = flow;
  c.parameters.finalTime = time;
  c.parameters.tolerance = 1e-5;
  c.parameters.boundary = gpur::GraphFlowBoundary::Neumann;
  c.parameters.origin = { { -2.0, -2.0 } };
  if (table == "8")
    c.paper = PaperEvolution(flow, isDouble);
  return c;
}

std::vector<Case>
MakeCases(const Options & o)
{
  using gpur::GraphFlowType;
  std::vector<Case> cases;
  for (const auto & t : o.tables)
  {
    if (t == "5" || t == "6")
      for (unsigned n : o.sizes)
        cases.push_back(TableCase(t, GraphFlowType::MeanCurvature, t == "6", n));
    else if (t == "7")
      for (unsigned n : o.willmoreSizes)
        cases.push_back(TableCase(t, GraphFlowType::Willmore, true, n));
    else if (t == "8")
    {
      cases.push_back(SurfaceCase(t, GraphFlowType::MeanCurvature, false, o.evolutionSize, o.mcfTime));
      cases.push_back(SurfaceCase(t, GraphFlowType::MeanCurvature, true, o.evolutionSize, o.mcfTime));
      cases.push_back(SurfaceCase(t, GraphFlowType::Willmore, true, o.evolutionSize, o.willmoreTime));
    }
    else
      for (unsigned n : o.compareSizes)
        cases.push_back(SurfaceCase(t, GraphFlowType::MeanCurvature, false, n, o.compareTime));
  }
  return cases;
}

std::vector<Target>
MakeTargets(const Options & o)
{
  const std::uint64_t copyBytes = o.quick ? gpur::bench::kQuickCopyBytes : gpur::bench::kCopyBytes;
  std::vector<Target> targets{ gpur::bench::CPUTarget(copyBytes) };
  if (o.oneThread)
  {
    Target one = targets.front();
    one.name = "CPU reference (1 thread)";
    one.execution.parallelFor = gpur::MakeThreadParallelFor(1);
    targets.push_back(one);
  }
  for (const auto & d : gpur::bench::BenchDevices(o.devices))
    targets.push_back(gpur::bench::DeviceTarget({ d }, copyBytes));
  return targets;
}

/** The case's initial image: the exact solution at 0, or sin(3π |x|). */
template<typename Real>
std::vector<Real>
InitialImage(const Case & c)
{
  const std::size_t n = c.cells + 1;
  std::vector<Real> u(n * n);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i)
    {
      const double x = c.parameters.origin[0] + double(i) * c.grid.spacing[0];
      const double y = c.parameters.origin[1] + double(j) * c.grid.spacing[1];
      u[i + n * j] = static_cast<Real>(c.exact ? gpur::GraphFlowExactSolution(c.parameters, 0.0, x, y)
                                               : std::sin(3 * M_PI * std::sqrt(x * x + y * y)));
    }
  return u;
}

/** max |u - exact solution at T| over the nodes. */
template<typename Real>
double
MaxError(const Case & c, const std::vector<Real> & u)
{
  const std::size_t n = c.cells + 1;
  double e = 0;
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i)
    {
      const double x = c.parameters.origin[0] + double(i) * c.grid.spacing[0];
      const double y = c.parameters.origin[1] + double(j) * c.grid.spacing[1];
      e = std::max(
        e, std::abs(double(u[i + n * j]) - gpur::GraphFlowExactSolution(c.parameters, c.parameters.finalTime, x, y)));
    }
  return e;
}

/**
 * The best wall time of `repeats` runs (or as many as fill 1 s, at most 5),
 * the right-hand side's time of that run, after an untimed warm-up on the
 * smallest grid that builds the program.
 */
template<typename Real>
Row
Measure(const Case & c, const Target & t, const Options & o)
{
  const std::vector<Real> initial = InitialImage<Real>(c);
  std::vector<Real> u(initial.size());
  {
    Case tiny = c;
    tiny.cells = 8;
    tiny.grid = gpur::MakeGrid2D(9, 9, c.grid.spacing[0] * c.cells / 8, c.grid.spacing[1] * c.cells / 8);
    tiny.parameters.finalTime = c.flow == gpur::GraphFlowType::Willmore ? 1e-4 : 1e-3;
    const std::vector<Real> small = InitialImage<Real>(tiny);
    std::vector<Real> out(small.size());
    gpur::GraphFlowRun(small.data(), out.data(), tiny.grid, tiny.parameters, t.execution);
  }
  Row r;
  r.c = c;
  r.target = t.name;
  r.copyGbps = t.copy.gbps;
  r.seconds = INFINITY;
  double spent = 0;
  while (o.repeats ? r.runs < o.repeats : (r.runs < 1 || (spent < 1.0 && r.runs < 5)))
  {
    const gpur::GraphFlowReport report =
      gpur::GraphFlowRun(initial.data(), u.data(), c.grid, c.parameters, t.execution);
    ++r.runs;
    spent += report.seconds;
    r.rhsBest = r.runs == 1 ? report.rightHandSideBestSeconds : std::min(r.rhsBest, report.rightHandSideBestSeconds);
    if (report.seconds < r.seconds)
    {
      r.seconds = report.seconds;
      r.rhsSeconds = report.rightHandSideSeconds;
      r.steps = report.steps;
    }
  }
  if (c.exact)
    r.maxError = MaxError(c, u);
  r.output.assign(u.begin(), u.end());
  return r;
}

/** values as raw float32 in `path` (the byte order of the machine, little-endian on every platform we build on). */
void
WriteFloats(const std::string & path, const std::vector<double> & values)
{
  gpur::bench::WriteBinaryFile(path, std::vector<float>(values.begin(), values.end()));
}

/** --save: the compare case's initial image and its CPU reference result. */
void
SaveCompareImages(const Options & o, const Row & r)
{
  const std::string stem = o.save + "/compare_" + std::to_string(r.c.cells) + "_";
  const std::vector<float> initial = InitialImage<float>(r.c);
  WriteFloats(stem + "initial.f32", std::vector<double>(initial.begin(), initial.end()));
  WriteFloats(stem + "final.f32", r.output);
}

std::string
TableTitle(const std::string & table)
{
  if (table == "5")
    return "Table 5: mean-curvature flow, float (manufactured solution (30), [-4,4]^2, T = 0.1)";
  if (table == "6")
    return "Table 6: mean-curvature flow, double (manufactured solution (30), [-4,4]^2, T = 0.1)";
  if (table == "7")
    return "Table 7: Willmore flow, double (manufactured solution (30), [-4,4]^2, T = 0.1)";
  if (table == "8")
    return "Table 8: the evolutions of Figs. 1-2 (sin(3 pi |x|) on (-2,2)^2, Neumann)";
  return "compare: MCF float of sin(3 pi |x|) on (-2,2)^2, Neumann (ITK's filter: bench/flow_compare.py)";
}

void
PrintTables(const std::vector<Row> & rows, const std::vector<std::string> & tables)
{
  for (const auto & table : tables)
  {
    std::vector<std::vector<std::string>> out{
      { "case",    "T",          "backend/device", "accepted",    "rejected", "s",         "us/step",
        "GFLOP/s", "RHS s",      "RHS best ms",    "RHS GFLOP/s", "RHS GB/s", "copy GB/s", "fraction",
        "max err", "paper 1c s", "1c GF/s",        "4c s",        "4c GF/s",  "GPU s",     "GPU GF/s" }
    };
    std::string previous;
    for (const Row & r : rows)
    {
      if (r.c.table != table)
        continue;
      const bool first = r.c.Name() != previous;
      previous = r.c.Name();
      const PaperRow p = first ? r.c.paper : PaperRow();
      out.push_back({ r.c.Name(),
                      Format(r.c.parameters.finalTime, 2, true),
                      r.target,
                      std::to_string(r.steps.accepted),
                      std::to_string(r.steps.rejected),
                      Format(r.seconds, 3),
                      Format(r.MicrosecondsPerStep(), 1),
                      Format(r.Gflops(), 2),
                      Format(r.rhsSeconds, 3),
                      Format(1e3 * r.rhsBest, 3),
                      Format(r.RhsGflops(), 2),
                      Format(r.RhsGbps(), 2),
                      Format(r.copyGbps, 2),
                      Format(r.RhsGbps() / r.copyGbps, 3),
                      Cell(r.maxError, 2, true),
                      Cell(p.cpu1, 2),
                      Cell(p.cpu1Gflops, 2),
                      Cell(p.cpu4, 2),
                      Cell(p.cpu4Gflops, 2),
                      Cell(p.gpu, 2),
                      Cell(p.gpuGflops, 2) });
    }
    if (out.size() == 1)
      continue;
    std::cout << "\n" << TableTitle(table) << "\n";
    gpur::bench::PrintTable(std::cout, out, 3);
  }
}

void
WriteJson(std::ostream & out, const Options & o, const std::vector<Target> & targets, const std::vector<Row> & rows)
{
  out << std::setprecision(6);
  out << "{\n  \"benchmark\": \"flow_bench\",\n  \"quick\": " << (o.quick ? "true" : "false") << ",\n"
      << "  \"timing\": \"best wall time of the runs (GraphFlowRun: upload, all steps, download); rhsSeconds: "
         "the right-hand side's kernels (profiled events) or CPU loops in that run; rhsBestSeconds: its shortest "
         "evaluation over all runs, which rhsGflops, rhsGBps and bandwidthFraction use\",\n"
      << "  \"model\": { \"flops\": \"[Oberhuber2011] counting per interior node: right-hand side 85 (MCF) or 303 "
         "(Willmore) per evaluation, 5 evaluations per step; Merson combinations 27 per node per step and 6 more "
         "per accepted step; forcing terms not counted\", \"mcfRhsFlops\": "
      << kMcfRhsFlops << ", \"willmoreRhsFlops\": " << kWillmoreRhsFlops
      << ", \"rhsBytes\": \"words per node and evaluation if each array is read or written once\", "
         "\"mcfRhsWords\": "
      << kMcfRhsWords << ", \"willmoreRhsWords\": " << kWillmoreRhsWords << " },\n";
  gpur::bench::WriteTargetsJson(out, targets);
  out << ",\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row & r = rows[i];
    const PaperRow & p = r.c.paper;
    out << (i ? "," : "") << "\n    { \"table\": " << JsonString(r.c.table) << ", \"case\": " << JsonString(r.c.Name())
        << ", \"flow\": " << JsonString(r.c.flow == gpur::GraphFlowType::Willmore ? "Willmore" : "MCF")
        << ", \"real\": " << JsonString(r.c.isDouble ? "double" : "float") << ", \"cells\": " << r.c.cells
        << ", \"nodes\": " << r.Nodes() << ", \"spacing\": " << r.c.grid.spacing[0]
        << ", \"finalTime\": " << r.c.parameters.finalTime << ", \"backend\": " << JsonString(r.target)
        << ", \"runs\": " << r.runs << ", \"accepted\": " << r.steps.accepted << ", \"rejected\": " << r.steps.rejected
        << ", \"seconds\": " << JsonNumber(r.seconds)
        << ", \"microsecondsPerStep\": " << JsonNumber(r.MicrosecondsPerStep())
        << ", \"flops\": " << JsonNumber(r.Flops()) << ", \"gflops\": " << JsonNumber(r.Gflops())
        << ", \"rhsSeconds\": " << JsonNumber(r.rhsSeconds) << ", \"rhsBestSeconds\": " << JsonNumber(r.rhsBest)
        << ", \"rhsGflops\": " << JsonNumber(r.RhsGflops()) << ", \"rhsGBps\": " << JsonNumber(r.RhsGbps())
        << ", \"copyGBps\": " << JsonNumber(r.copyGbps)
        << ", \"bandwidthFraction\": " << JsonNumber(r.RhsGbps() / r.copyGbps)
        << ", \"maxError\": " << JsonNumber(r.maxError) << ", \"paper\": { \"cpu1Seconds\": " << JsonNumber(p.cpu1)
        << ", \"cpu1Gflops\": " << JsonNumber(p.cpu1Gflops) << ", \"cpu4Seconds\": " << JsonNumber(p.cpu4)
        << ", \"cpu4Gflops\": " << JsonNumber(p.cpu4Gflops) << ", \"gpuSeconds\": " << JsonNumber(p.gpu)
        << ", \"gpuGflops\": " << JsonNumber(p.gpuGflops) << " } }";
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
    const std::vector<Case> cases = MakeCases(o);
    const std::vector<Target> targets = MakeTargets(o);
    std::vector<Row> rows;
    for (const auto & c : cases)
      for (const auto & t : targets)
      {
        if (c.isDouble && !t.devices.empty() && !t.devices.front().fp64)
          continue;
        std::cerr << "flow_bench: table " << c.table << ", " << c.Name() << " on " << t.name << "...\n";
        rows.push_back(c.isDouble ? Measure<double>(c, t, o) : Measure<float>(c, t, o));
        if (!o.save.empty() && c.table == "compare" && &t == &targets.front())
          SaveCompareImages(o, rows.back());
        rows.back().output.clear();
      }
    PrintTables(rows, o.tables);
    WriteJson(json.Stream(), o, targets, rows);
    json.Commit();
    std::cout << "\nwrote " << o.json << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "flow_bench: " << e.what() << "\n";
    return 1;
  }
}
