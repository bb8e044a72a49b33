// SPDX-License-Identifier: Apache-2.0
// PSCR Poisson benchmark (issue 5, item 8; after [Myllykoski2018, Tables 4.1
// and 4.3]): solve time against n for the uniform-grid Dirichlet Poisson
// problem -Laplace u = f on the unit square / cube (n unknowns per axis,
// h = 1 / (n + 1)), float and double, PSCR radix 4 and radix 2 on the CPU
// reference and on each OpenCL device, next to an FFTW DST-I solver on the
// same grid: the O(N log N) competitor, which handles only this case
// (constant coefficients, Dirichlet, equidistant grid) while PSCR takes any
// separable tridiagonal factors.
//
// As in [Myllykoski2018, §4.1, Tables 4.1-4.4], initialisation (PSCR: the plan,
// mostly block eigenproblems, and on OpenCL its upload and the kernels; FFTW:
// the planner), host <-> device transfer and the solve are timed separately;
// each is the best of a few runs on the same right-hand side. On OpenCL, f and
// u live in device buffers: transfer is the upload of f plus the download of u,
// solve the device solve until its queue is done, so the two add up to a solve
// on host arrays. A device solve is timed through EnqueueSolve, the unchecked,
// non-blocking call another engine chains its kernels with, which the solver
// allows for well-posed operators such as this Poisson problem (real, positive
// definite: PSCR lands within a small multiple of the rounding floor there);
// the host solve, and a device solve of any other operator, is the checked
// Solve (its residual evaluated in double and refined to its target). Each
// PSCR row also gives the time and the report of the checked solve of the same
// f: the refinement steps it took, its residual over its rounding floor and
// whether a float solve ran in double. Every solution's relative residual
// ||A u - f|| / ||f|| is computed in double with the engine's operator
// (ApplySeparableOperator), so all solvers are held to the same discrete
// problem. The copy bandwidth of each target (gpurBench) gives a reference:
// "copy passes" is the solve time over the time of reading f and writing u
// once at that bandwidth. A "fast transforms" row per target times the
// solver's automatic choice for this grid, its fast-transform path (the
// DST-I on every uniform axis: FFTW on the CPU, VkFFT on a device; graded axes,
// --nonuniform-axes, solved per mode; gpurPSCRSolver.h),
// which the PSCR rows leave out (PSCROptions::fastTransforms off). Prints a
// table and writes JSON.
//
//   pscr_bench [--sizes 2d:127,255,3d:31,63] [--reals float,double] [--radices 4,2] [--devices SELECTION]
//              [--fftw-plan measure|estimate|patient] [--no-fftw] [--nonuniform-axes K] [--json FILE] [--quick]
#include "gpurBench.h"
#include "gpurBuffer.h"
#include "gpurCommandLine.h"
#include "gpurContext.h"
#include "gpurError.h"
#include "gpurPSCRSolver.h"
#include "gpurParallel.h"
#include "gpurSeparableOperator.h"
#include "gpurSeparableProblems.h"
#include "gpurStopwatch.h"

#ifdef GPUR_HAVE_FFTW
#include <fftw3.h>
#endif

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

using gpur::bench::Cell;
using gpur::bench::Format;
using gpur::bench::JsonNumber;
using gpur::bench::JsonString;
using gpur::bench::Target;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/** A solve is timed at least this often (best of), and until MinSeconds() of runs, at most kMaxRuns. */
constexpr unsigned kMinRuns = 2;
constexpr unsigned kMaxRuns = 10;

struct Options
{
  std::string sizes; // empty: the sizes (--quick: tiny ones)
  std::string reals = "float,double";
  std::string radices = "4,2";
  std::string devices;  // empty: every OpenCL device
  std::string fftwPlan; // empty: measure (--quick: estimate)
  bool noFFTW = false;
  unsigned nonUniform = 0; // leading axes on a graded mesh
  std::string json = "pscr_bench.json";
  bool quick = false;

  double
  MinSeconds() const
  {
    return quick ? 0.0 : 1.0;
  }
  std::uint64_t
  CopyBytes() const
  {
    return quick ? gpur::bench::kQuickCopyBytes : gpur::bench::kCopyBytes;
  }
};

/** One grid: n^dimension unknowns. */
struct Case
{
  unsigned dimension = 2;
  std::size_t n = 0;
  unsigned nonUniform = 0; ///< leading axes (x, then y) on a graded mesh

  std::string
  Name() const
  {
    static const char * const graded[] = { "", " (x graded)", " (x, y graded)" };
    return std::to_string(dimension) + "D " + std::to_string(n) + "^" + std::to_string(dimension) + graded[nonUniform];
  }
  std::size_t
  Count() const
  {
    std::size_t count = 1;
    for (unsigned d = 0; d < dimension; ++d)
      count *= n;
    return count;
  }
  double
  Spacing() const
  {
    return 1.0 / double(n + 1);
  }
};

struct Row
{
  Case grid;
  std::string real, solver, target;
  unsigned radix = 0; // 0: not PSCR
  double initSeconds = kNaN, transferSeconds = kNaN, solveSeconds = kNaN;
  double checkedSeconds = kNaN; // PSCR: the checked Solve (the same as solveSeconds where that is what was timed)
  unsigned runs = 0;
  double residual = kNaN;
  // PSCR: how the solve was timed, and the report of one checked solve (gpur::PSCRSolveReport).
  std::string timedCall;
  unsigned refinementSteps = 0;
  double residualOverFloor = kNaN;
  bool computedInDouble = false;
  double fftwSolveSeconds = kNaN; // of the same case and precision, for the ratio
  double onePassSeconds = kNaN;   // reading f and writing u once at the target's copy bandwidth
  std::string skipped;            // why the target could not run the case (e.g. no fp64); empty: it ran
  std::string path;               // PSCRSolver rows: the method that ran (PSCRSolveReport::path)
};

/**
 * "2d:127,255,3d:31": a tag sets the dimension of the sizes after it. Sizes
 * must be >= 2 so that PSCR has an axis to reduce.
 */
std::vector<Case>
ParseSizes(const std::string & text, unsigned nonUniform)
{
  std::vector<Case> cases;
  unsigned dimension = 0;
  for (std::string item : gpur::bench::SplitCommas(text))
  {
    const std::size_t colon = item.find(':');
    if (colon != std::string::npos)
    {
      const std::string tag = item.substr(0, colon);
      if (tag != "2d" && tag != "3d")
        throw gpur::cli::UsageError("--sizes: unknown dimension '" + tag + "' (allowed: 2d, 3d)");
      dimension = tag == "2d" ? 2 : 3;
      item = item.substr(colon + 1);
    }
    if (dimension == 0)
      throw gpur::cli::UsageError("--sizes: start with 2d: or 3d:, e.g. 2d:127,255,3d:31");
    Case c;
    c.dimension = dimension;
    c.n = gpur::cli::ParseUnsigned("--sizes", item, 2, dimension == 2 ? 65535 : 2047);
    if (nonUniform >= dimension)
      throw gpur::cli::UsageError("--nonuniform-axes " + std::to_string(nonUniform) + ": a " +
                                  std::to_string(dimension) + "D grid needs a uniform axis (at most " +
                                  std::to_string(dimension - 1) + ")");
    c.nonUniform = nonUniform;
    cases.push_back(c);
  }
  if (cases.empty())
    throw gpur::cli::UsageError("--sizes: no size given");
  return cases;
}

/** Returns false when --help was printed. */
bool
ParseOptions(int argc, char * argv[], Options & o)
{
  gpur::cli::Parser parser("pscr_bench",
                           "",
                           "PSCR solve time against n for -Laplace u = f (Dirichlet, unit square/cube), float and "
                           "double, radix 4 and 2, and the solver's fast-transform path, next to an FFTW DST-I solver; "
                           "initialisation, transfer and solve "
                           "timed separately. Prints a table and writes JSON.");
  parser.AddString("--sizes",
                   "LIST",
                   "Grids, n unknowns per axis: 2d:N,...,3d:N,... (default 2d:127,255,511,1023,2047,4095,"
                   "3d:31,63,127,255).",
                   o.sizes);
  parser.AddString("--reals", "LIST", "Precisions: float, double.", o.reals);
  parser.AddString("--radices", "LIST", "PSCR radices: 4, 2.", o.radices);
  parser.AddString(
    "--devices", "SELECTION", "OpenCL devices (see itkgpurestoration-devices); default all; none.", o.devices);
  parser.AddChoice("--fftw-plan",
                   "FFTW planner effort (default measure; --quick: estimate).",
                   { "estimate", "measure", "patient" },
                   o.fftwPlan);
  parser.AddSwitch("--no-fftw", "Leave out the FFTW DST-I solver.", o.noFFTW);
  parser.AddUnsigned("--nonuniform-axes",
                     "K",
                     "Put the first K axes (x, then y) on a graded mesh (P1, lumped mass): the fast-transform path "
                     "then transforms the others and solves the rest per mode (its mixed solves); FFTW's DST-I "
                     "rows are left out (they solve the uniform grid only). Default 0.",
                     o.nonUniform,
                     0,
                     2);
  parser.AddString("--json", "FILE", "Where to write the JSON results.", o.json);
  parser.AddSwitch("--quick", "Tiny sizes (2d:31,63, 3d:15), one run each, for smoke tests.", o.quick);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  for (const auto & r : gpur::bench::SplitCommas(o.reals))
    if (r != "float" && r != "double")
      throw gpur::cli::UsageError("--reals: unknown precision '" + r + "' (allowed: float, double)");
  for (const auto & q : gpur::bench::SplitCommas(o.radices))
    if (q != "4" && q != "2")
      throw gpur::cli::UsageError("--radices: unknown radix '" + q + "' (allowed: 4, 2)");
  if (o.fftwPlan.empty())
    o.fftwPlan = o.quick ? "estimate" : "measure";
  return true;
}

/** Where PSCR runs: the CPU reference (also FFTW's threads) and each OpenCL device on its own. */
std::vector<Target>
MakeTargets(const Options & o)
{
  std::vector<Target> targets{ gpur::bench::CPUTarget(o.CopyBytes()) };
  for (const auto & d : gpur::bench::BenchDevices(o.devices))
    targets.push_back(gpur::bench::DeviceTarget({ d }, o.CopyBytes()));
  return targets;
}

gpur::PSCROptions
PSCROptionsFor(const Target & target, unsigned radix, bool fastTransforms = false)
{
  gpur::PSCROptions options;
  options.radix = radix;
  options.fastTransforms = fastTransforms; // the PSCR rows run PSCR on every axis
  options.execution = target.execution;    // an explicit backend: Auto would move the CPU rows to a device
  return options;
}

/** The Dirichlet second-difference operator of the case (M = I, shift 0), x first. */
gpur::SeparableOperator<double>
PoissonOperator(const Case & c)
{
  const double h = c.Spacing();
  const gpur::Grid grid =
    c.dimension == 2 ? gpur::MakeGrid2D(c.n, c.n, h, h) : gpur::MakeGrid3D(c.n, c.n, c.n, h, h, h);
  gpur::SeparableOperator<double> op = gpur::MakePoissonOperator(
    grid, std::vector<gpur::BoundaryCondition>(c.dimension, gpur::BoundaryCondition::Dirichlet));
  // Graded axes, the same n unknowns on [0, 1]: nodes -cos(pi s) rescaled, s
  // from 0.1 to 0.9, finer towards both ends (spacings 1 : 3.2).
  const double pi = std::acos(-1.0);
  auto graded = [pi](double t) { return -std::cos(pi * (0.1 + 0.8 * t)); };
  std::vector<double> nodes(c.n + 2);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    nodes[i] = (graded(double(i) / double(c.n + 1)) - graded(0)) / (graded(1) - graded(0));
  for (unsigned d = 0; d < c.nonUniform; ++d)
    op.axes[d] = gpur::MakeP1Axis(nodes, gpur::BoundaryCondition::Dirichlet, gpur::BoundaryCondition::Dirichlet);
  return op;
}

/** Best wall time of solve() over kMinRuns..kMaxRuns runs (until minSeconds in all; quick: one run). */
double
BestSolveSeconds(const std::function<void()> & solve, const Options & o, unsigned & runs)
{
  double best = std::numeric_limits<double>::infinity(), total = 0;
  const unsigned minRuns = o.quick ? 1 : kMinRuns;
  for (runs = 0; runs < kMaxRuns && (runs < minRuns || total < o.MinSeconds()); ++runs)
  {
    const gpur::Stopwatch watch;
    solve();
    const double seconds = watch.Seconds();
    best = std::min(best, seconds);
    total += seconds;
  }
  return best;
}

/** ||A u - f|| / ||f|| in double; f is the right-hand side as the solver saw it (rounded to Real). */
template<typename Real>
double
RelativeResidual(const gpur::SeparableOperator<double> & op,
                 const std::vector<Real> & f,
                 const std::vector<Real> & u,
                 const gpur::ParallelForFunction & parallelFor)
{
  const std::vector<double> ud(u.begin(), u.end());
  std::vector<double> Au(u.size());
  gpur::ApplySeparableOperator(op, ud.data(), Au.data(), parallelFor);
  const std::vector<double> sums = gpur::ParallelSum(parallelFor,
                                                     Au.size(),
                                                     2,
                                                     [&](std::size_t begin, std::size_t end, double * acc)
                                                     {
                                                       for (std::size_t i = begin; i < end; ++i)
                                                       {
                                                         const double r = Au[i] - double(f[i]);
                                                         acc[0] += r * r;
                                                         acc[1] += double(f[i]) * double(f[i]);
                                                       }
                                                     });
  return std::sqrt(sums[0] / sums[1]);
}

#ifdef GPUR_HAVE_FFTW

/** The FFTW calls of one precision (fftw_* for double, fftwf_* for float). */
template<typename Real>
struct FFTW;

template<>
struct FFTW<double>
{
  using Plan = fftw_plan;
  static Plan
  PlanDST(int rank, const int * sizes, double * data, unsigned flags)
  {
    const std::vector<fftw_r2r_kind> kinds(static_cast<std::size_t>(rank), FFTW_RODFT00);
    return fftw_plan_r2r(rank, sizes, data, data, kinds.data(), flags);
  }
  static void
  Execute(Plan plan)
  {
    fftw_execute(plan);
  }
  static void
  Destroy(Plan plan)
  {
    fftw_destroy_plan(plan);
  }
};

template<>
struct FFTW<float>
{
  using Plan = fftwf_plan;
  static Plan
  PlanDST(int rank, const int * sizes, float * data, unsigned flags)
  {
    const std::vector<fftw_r2r_kind> kinds(static_cast<std::size_t>(rank), FFTW_RODFT00);
    return fftwf_plan_r2r(rank, sizes, data, data, kinds.data(), flags);
  }
  static void
  Execute(Plan plan)
  {
    fftwf_execute(plan);
  }
  static void
  Destroy(Plan plan)
  {
    fftwf_destroy_plan(plan);
  }
};

unsigned
FFTWFlags(const std::string & effort)
{
  return effort == "estimate" ? FFTW_ESTIMATE : effort == "patient" ? FFTW_PATIENT : FFTW_MEASURE;
}

std::string
FFTWFlagName(const std::string & effort)
{
  return effort == "estimate" ? "FFTW_ESTIMATE" : effort == "patient" ? "FFTW_PATIENT" : "FFTW_MEASURE";
}

/**
 * Threads of FFTW's plans: the CPU reference's count when the threaded
 * libraries were found (so both solvers use the same cores), else 1. Called
 * once, before any plan.
 */
unsigned
InitializeFFTWThreads()
{
#ifdef GPUR_HAVE_FFTW_THREADS
  const unsigned threads = gpur::bench::HardwareThreads();
  if (fftw_init_threads() == 0 || fftwf_init_threads() == 0)
    throw gpur::Error("FFTW: fftw_init_threads failed");
  fftw_plan_with_nthreads(static_cast<int>(threads));
  fftwf_plan_with_nthreads(static_cast<int>(threads));
  return threads;
#else
  return 1;
#endif
}

/**
 * -Laplace u = f with u = 0 on the boundary of a uniform grid, by the
 * eigenvectors of the second difference: the DST-I diagonalises it, with
 * eigenvalues 4 / h^2 sin^2(pi k / (2 (n + 1))), k = 1..n, per axis. FFTW's
 * RODFT00 is the unnormalised DST-I (applied twice it is 2 (n + 1) times the
 * identity per axis), so a solve is u = DST(DST(f) / (lambda sum * norm)).
 * The plan is made in place on `u`, the output array (FFTW_MEASURE overwrites
 * it while planning), so the solve needs no alignment-matched copies.
 */
template<typename Real>
class DSTPoissonSolver
{
public:
  DSTPoissonSolver(const Case & c, Real * u, unsigned flags, gpur::ParallelForFunction parallelFor)
    : m_Count(c.Count())
    , m_RowLength(c.n)
    , m_U(u)
    , m_ParallelFor(std::move(parallelFor))
  {
    const std::vector<int> sizes(c.dimension, static_cast<int>(c.n)); // a cube: the axis order does not matter
    m_Plan = FFTW<Real>::PlanDST(static_cast<int>(c.dimension), sizes.data(), u, flags);
    if (!m_Plan)
      throw gpur::Error("FFTW could not plan the DST-I of " + c.Name());
    const double h = c.Spacing();
    const double pi = std::acos(-1.0);
    m_Eigenvalues.resize(c.n);
    for (std::size_t k = 0; k < c.n; ++k)
    {
      const double s = std::sin(pi * double(k + 1) / (2.0 * double(c.n + 1)));
      m_Eigenvalues[k] = 4.0 / (h * h) * s * s;
    }
    m_Dimension = c.dimension;
    m_Normalisation = std::pow(2.0 * double(c.n + 1), double(c.dimension));
  }
  ~DSTPoissonSolver() { FFTW<Real>::Destroy(m_Plan); }
  DSTPoissonSolver(const DSTPoissonSolver &) = delete;
  DSTPoissonSolver &
  operator=(const DSTPoissonSolver &) = delete;

  /** u (the array given at construction) = the solution for f. */
  void
  Solve(const Real * f) const
  {
    m_ParallelFor(m_Count, [&](std::size_t begin, std::size_t end) { std::copy(f + begin, f + end, m_U + begin); });
    FFTW<Real>::Execute(m_Plan);
    // Divide row by row: the eigenvalue sum of the slower axes is fixed within a row.
    const std::size_t n = m_RowLength;
    m_ParallelFor(m_Count / n,
                  [&](std::size_t begin, std::size_t end)
                  {
                    for (std::size_t row = begin; row < end; ++row)
                    {
                      const double outer = m_Eigenvalues[row % n] + (m_Dimension == 3 ? m_Eigenvalues[row / n] : 0.0);
                      Real * line = m_U + row * n;
                      for (std::size_t x = 0; x < n; ++x)
                        line[x] = static_cast<Real>(line[x] / ((outer + m_Eigenvalues[x]) * m_Normalisation));
                    }
                  });
    FFTW<Real>::Execute(m_Plan);
  }

private:
  std::size_t m_Count, m_RowLength;
  Real * m_U;
  gpur::ParallelForFunction m_ParallelFor;
  typename FFTW<Real>::Plan m_Plan;
  std::vector<double> m_Eigenvalues;
  unsigned m_Dimension = 2;
  double m_Normalisation = 1;
};

#endif // GPUR_HAVE_FFTW

/** Time of reading f and writing u once at the target's copy bandwidth (NaN when it was not measured). */
template<typename Real>
double
OnePassSeconds(const Case & c, const Target & t)
{
  return t.copy.gbps > 0 ? 2.0 * double(c.Count()) * sizeof(Real) / (t.copy.gbps * 1e9) : kNaN;
}

/** The report of a checked solve, into the row. */
void
Record(const gpur::PSCRSolveReport & report, Row & r)
{
  r.path = report.path;
  r.refinementSteps = report.refinementSteps;
  r.residualOverFloor = report.roundingFloor > 0 ? report.relativeResidual / report.roundingFloor : kNaN;
  r.computedInDouble = report.computedInDouble;
}

/**
 * An OpenCL solve split as in [Myllykoski2018, Tables 4.1-4.4]: the upload of f
 * plus the download of u (transfer) and the solve on device buffers until the
 * queue is done (through EnqueueSolve where the operator is well posed, else
 * the checked Solve); u holds the solution of the last timed solve afterwards.
 */
template<typename Real>
void
TimeDeviceSolve(const gpur::PSCRSolver<Real> & solver,
                const std::vector<Real> & f,
                std::vector<Real> & u,
                const Options & o,
                Row & r)
{
  gpur::DeviceContext & context = solver.Context();
  const cl::CommandQueue & queue = context.Queue(0); // the solver's compute queue: solves enqueue there
  gpur::DeviceBuffer<Real> fDevice(context, f.size()), uDevice(context, u.size());
  unsigned transferRuns = 0;
  const double upload = BestSolveSeconds([&] { fDevice.Upload(queue, f.data(), f.size()); }, o, transferRuns);
  gpur::PSCRSolveReport report;
  r.checkedSeconds = BestSolveSeconds([&] { report = solver.Solve(fDevice, uDevice); }, o, r.runs);
  Record(report, r);
  r.timedCall = "Solve";
  r.solveSeconds = r.checkedSeconds;
  if (solver.IsWellPosed())
  {
    r.timedCall = "EnqueueSolve";
    r.solveSeconds = BestSolveSeconds(
      [&]
      {
        solver.EnqueueSolve(fDevice, uDevice);
        queue.finish();
      },
      o,
      r.runs);
  }
  const double download = BestSolveSeconds([&] { uDevice.Download(queue, u.data(), u.size()); }, o, transferRuns);
  r.transferSeconds = upload + download;
}

/** The rows of one case in one precision: FFTW first (for the ratios), the fast transforms, then PSCR per target and
 * radix. */
template<typename Real>
void
RunCase(const Case & c,
        const Options & o,
        const std::vector<Target> & targets,
        const std::vector<unsigned> & radices,
        std::vector<Row> & rows)
{
  const std::string real = std::is_same<Real, float>::value ? "float" : "double";
  const gpur::SeparableOperator<double> op = PoissonOperator(c);
  const gpur::ParallelForFunction & hostLoop = targets[0].execution.parallelFor;
  // A random right-hand side: every eigencomponent present, so no part of the
  // solve is trivial.
  std::vector<Real> f(c.Count()), u(c.Count());
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (Real & value : f)
    value = static_cast<Real>(uniform(rng));

  double fftwSolve = kNaN;
#ifdef GPUR_HAVE_FFTW
  if (!o.noFFTW && c.nonUniform == 0)
  {
    std::cerr << "pscr_bench: " << c.Name() << " " << real << ", FFTW DST-I...\n";
    Row r;
    r.grid = c;
    r.real = real;
    r.solver = "FFTW DST-I";
    r.target = targets[0].name;
    const gpur::Stopwatch planWatch;
    const DSTPoissonSolver<Real> fftw(c, u.data(), FFTWFlags(o.fftwPlan), hostLoop);
    r.initSeconds = planWatch.Seconds();
    r.solveSeconds = BestSolveSeconds([&] { fftw.Solve(f.data()); }, o, r.runs);
    r.residual = RelativeResidual(op, f, u, hostLoop);
    r.onePassSeconds = OnePassSeconds<Real>(c, targets[0]);
    fftwSolve = r.fftwSolveSeconds = r.solveSeconds;
    rows.push_back(r);
  }
#endif

  const gpur::SeparableOperator<Real> opReal = gpur::CastOperator<Real>(op);
  // One PSCRSolver row: the checked Solve on the CPU; on a device the
  // device-resident Solve and EnqueueSolve (TimeDeviceSolve).
  auto solverRow = [&](const Target & t, const std::string & solver, unsigned radix, bool fastTransforms)
  {
    std::cerr << "pscr_bench: " << c.Name() << " " << real << ", " << solver << " on " << t.name << "...\n";
    Row r;
    r.grid = c;
    r.real = real;
    r.solver = solver;
    r.radix = fastTransforms ? 0 : radix;
    r.target = t.name;
    r.fftwSolveSeconds = fftwSolve;
    r.onePassSeconds = OnePassSeconds<Real>(c, t);
    try
    {
      const gpur::Stopwatch setupWatch;
      const gpur::PSCRSolver<Real> s(opReal, PSCROptionsFor(t, radix, fastTransforms));
      r.initSeconds = setupWatch.Seconds();
      if (t.devices.empty())
      {
        gpur::PSCRSolveReport report;
        r.solveSeconds = r.checkedSeconds = BestSolveSeconds([&] { report = s.Solve(f.data(), u.data()); }, o, r.runs);
        Record(report, r);
        r.timedCall = "Solve";
      }
      else
        gpur::TranslateCLErrors([&] { TimeDeviceSolve(s, f, u, o, r); });
      r.residual = RelativeResidual(op, f, u, hostLoop);
    }
    catch (const gpur::InvalidArgument & e) // the device cannot take it: no fp64, too little memory
    {
      r.initSeconds = r.transferSeconds = r.solveSeconds = r.checkedSeconds = r.residual = r.residualOverFloor =
        kNaN; // nothing partial is reported
      r.runs = 0;
      r.skipped = e.what();
    }
    rows.push_back(r);
  };
  // The solver's automatic choice on each target: its fast-transform path for
  // this Dirichlet grid (DST-I: FFTW on the CPU, VkFFT on a device).
  for (const Target & t : targets)
    solverRow(t, "fast transforms", 4, true);
  for (const Target & t : targets)
    for (const unsigned radix : radices)
      solverRow(t, "PSCR q=" + std::to_string(radix), radix, false);
}

/**
 * One untimed plan and solve per target and radix in one precision on a small
 * grid, so that thread start-up, first allocations and the OpenCL program
 * build (one per precision and device) do not land on the first timed case
 * (a first float plan took 0.04 s instead of 0.001 s on the CPU otherwise).
 * A target that cannot take the precision is skipped here and reported by RunCase.
 */
template<typename Real>
void
WarmUp(const std::vector<Target> & targets, const std::vector<unsigned> & radices)
{
  Case c;
  c.n = 31;
  const gpur::SeparableOperator<Real> op = gpur::CastOperator<Real>(PoissonOperator(c));
  std::vector<Real> f(c.Count(), Real(1)), u(c.Count());
  for (const Target & t : targets)
    for (const unsigned radix : radices)
    {
      try
      {
        gpur::PSCRSolver<Real>(op, PSCROptionsFor(t, radix)).Solve(f.data(), u.data());
      }
      catch (const gpur::InvalidArgument &)
      {
      }
    }
}

/** "-" for a quantity that does not apply (no transfer on the CPU, no FFTW build). */
void
PrintTable(const std::vector<Row> & rows)
{
  std::vector<std::vector<std::string>> table{ { "case",
                                                 "real",
                                                 "solver",
                                                 "backend/device",
                                                 "init s",
                                                 "transfer s",
                                                 "solve s",
                                                 "x FFTW",
                                                 "copy passes",
                                                 "residual",
                                                 "timed",
                                                 "checked s",
                                                 "steps",
                                                 "res/floor",
                                                 "in double" } };
  for (const Row & r : rows)
    if (!r.skipped.empty())
      table.push_back({ r.grid.Name(), r.real, r.solver, r.target, "skipped: " + r.skipped });
    else
      table.push_back({ r.grid.Name(),
                        r.real,
                        r.solver,
                        r.target,
                        Cell(r.initSeconds, 4),
                        Cell(r.transferSeconds, 4),
                        Cell(r.solveSeconds, 4),
                        Cell(r.solveSeconds / r.fftwSolveSeconds, 2),
                        Cell(r.solveSeconds / r.onePassSeconds, 1),
                        Cell(r.residual, 1, true),
                        !r.path.empty() ? r.timedCall : "-",
                        Cell(r.checkedSeconds, 4),
                        !r.path.empty() ? std::to_string(r.refinementSteps) : "-",
                        Cell(r.residualOverFloor, 2),
                        !r.path.empty() ? (r.computedInDouble ? "yes" : "no") : "-" });
  gpur::bench::PrintTable(std::cout, table, 4);
}

/** A JSON number, or null for NaN (not applicable). */
/** Writes the JSON report to `out` (an OutputFile's stream, opened at start-up: a bad path fails before the runs). */
void
WriteJson(std::ostream & out,
          const Options & o,
          const std::string & fftw,
          const std::vector<Target> & targets,
          const std::vector<Row> & rows)
{
  out
    << "{\n  \"benchmark\": \"pscr_bench\",\n  \"problem\": \"-Laplace u = f, Dirichlet, unit square/cube, n "
       "unknowns per axis, h = 1/(n+1), second differences, random f in [-1, 1]\",\n"
    << "  \"quick\": " << (o.quick ? "true" : "false") << ",\n"
    << "  \"timing\": \"init: plan construction (PSCR eigenproblems, on OpenCL with its upload and kernels; FFTW "
       "planner); transfer (OpenCL): upload of f + download of u; solve: on device buffers until the queue is done "
       "(OpenCL: EnqueueSolve, unchecked, for this well-posed operator, else the checked Solve), on host arrays "
       "(CPU: the checked Solve); each the best wall time of "
    << (o.quick ? 1 : kMinRuns) << " to " << kMaxRuns << " runs on the same f\",\n"
    << "  \"residual\": \"||A u - f|| / ||f|| in double, A = ApplySeparableOperator\",\n"
    << "  \"report\": \"PSCRSolver rows (PSCR q=, with fastTransforms off; fast transforms, the solver's "
       "automatic choice on the CPU): path, refinementSteps, residualOverFloor (relativeResidual / roundingFloor) and "
       "computedInDouble of the checked Solve of the same f (PSCRSolveReport), and its time checkedSolveSeconds "
       "(on device buffers for OpenCL)\",\n"
    << "  \"fftw\": " << JsonString(fftw) << ",\n";
  gpur::bench::WriteTargetsJson(out, targets);
  out << ",\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row & r = rows[i];
    const bool pscr = !r.path.empty() && r.skipped.empty(); // a PSCRSolver row that ran: it has a report
    out << (i ? "," : "") << "\n    { \"case\": " << JsonString(r.grid.Name())
        << ", \"dimension\": " << r.grid.dimension << ", \"n\": " << r.grid.n << ", \"unknowns\": " << r.grid.Count()
        << ", \"real\": " << JsonString(r.real) << ", \"solver\": " << JsonString(r.solver)
        << ", \"radix\": " << r.radix << ", \"path\": " << (pscr ? JsonString(r.path) : "null")
        << ", \"backend\": " << JsonString(r.target) << ", \"initSeconds\": " << JsonNumber(r.initSeconds)
        << ", \"transferSeconds\": " << JsonNumber(r.transferSeconds)
        << ", \"solveSeconds\": " << JsonNumber(r.solveSeconds) << ", \"runs\": " << r.runs
        << ", \"relativeResidual\": " << JsonNumber(r.residual)
        << ", \"timedCall\": " << (pscr ? JsonString(r.timedCall) : "null")
        << ", \"checkedSolveSeconds\": " << JsonNumber(r.checkedSeconds)
        << ", \"refinementSteps\": " << (pscr ? std::to_string(r.refinementSteps) : "null")
        << ", \"residualOverFloor\": " << JsonNumber(r.residualOverFloor)
        << ", \"computedInDouble\": " << (pscr ? (r.computedInDouble ? "true" : "false") : "null")
        << ", \"solveOverFFTW\": " << JsonNumber(r.solveSeconds / r.fftwSolveSeconds)
        << ", \"copyPasses\": " << JsonNumber(r.solveSeconds / r.onePassSeconds)
        << ", \"skipped\": " << (r.skipped.empty() ? "null" : JsonString(r.skipped)) << " }";
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
    const std::vector<Case> cases = ParseSizes(!o.sizes.empty() ? o.sizes
                                               : o.quick        ? "2d:31,63,3d:15"
                                                                : "2d:127,255,511,1023,2047,4095,3d:31,63,127,255",
                                               o.nonUniform);
    const std::vector<std::string> reals = gpur::bench::SplitCommas(o.reals);
    std::vector<unsigned> radices;
    for (const auto & q : gpur::bench::SplitCommas(o.radices))
      radices.push_back(q == "4" ? 4u : 2u);
    gpur::bench::OutputFile json(o.json); // opened now: a bad path fails before the runs

    std::string fftw = "not built (FFTW not found at configure time)";
#ifdef GPUR_HAVE_FFTW
    if (o.noFFTW)
      fftw = "left out (--no-fftw)";
    else
    {
      const unsigned threads = InitializeFFTWThreads();
      fftw = std::string(fftw_version) + ", RODFT00 r2r in place, " + FFTWFlagName(o.fftwPlan) + ", " +
             std::to_string(threads) + " thread(s); init = planner, solve = copy f + DST + divide + DST";
    }
#endif
    const std::vector<Target> targets = MakeTargets(o);
    std::cout << "FFTW: " << fftw << "\n";
    for (const Target & t : targets)
      std::cout << "copy bandwidth of " << t.name << ": " << Format(t.copy.gbps, 2) << " GB/s (" << t.copy.method
                << "); copy passes = solve time / (read f + write u at that rate)\n";

    for (const std::string & real : reals)
    {
      if (real == "float")
        WarmUp<float>(targets, radices);
      else
        WarmUp<double>(targets, radices);
    }
    std::vector<Row> rows;
    for (const Case & c : cases)
      for (const std::string & real : reals)
      {
        if (real == "float")
          RunCase<float>(c, o, targets, radices, rows);
        else
          RunCase<double>(c, o, targets, radices, rows);
      }
    std::cout << "\n";
    PrintTable(rows);
    WriteJson(json.Stream(), o, fftw, targets, rows);
    json.Commit();
    std::cout << "\nwrote " << o.json << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "pscr_bench: " << e.what() << "\n";
    return 1;
  }
}
