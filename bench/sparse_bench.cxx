// SPDX-License-Identifier: Apache-2.0
// Sparse recovery benchmark (issue 15, item 6), the measurements of
// [Fiandrotti2018, Figs. 3-5] with FFT-based operators: for n = 2^10 ... 2^24
// unknowns, a k-sparse Gaussian signal (k/n = 0.05) seen through m = n/2 rows
// of a Gaussian circulant (MakeGaussianCirculantSensing), no noise, recovered
// by CPISTA, FISTA and CPADMM on the CPU reference and on each OpenCL device:
// the set-up time (planning and spectra, the paper's "inversion"), iterations
// and seconds to a relative error <= 1e-4 against the known signal, seconds
// per iteration (with it divided by n log2 n, so that the O(n log n) scaling
// reads down a column), and the bytes held (linear in n). Beside them the
// paper's baseline, ISTA with the dense m x n matrix (PISTA [Fiandrotti2018,
// §5]), and FISTA with it, where the matrix fits (--dense-max-log2), and the
// copy bandwidth measured in the same run. bench/sparse_compare.py runs PyLops
// [Ravasi2020], numpy FISTA and dense numpy ISTA/FISTA on the same problems
// (--save-problems writes them). Prints tables and writes JSON.
//
//   sparse_bench [--min-log2 10] [--max-log2 15] [--solvers cpista,fista,cpadmm] [--reals float]
//                [--devices SELECTION] [--sparsity 0.05] [--ratio 0.5] [--target 1e-4]
//                [--relative-alpha 1e-5] [--max-iterations 20000] [--solve-budget 15]
//                [--dense-max-log2 14] [--dense-budget 20] [--rho R] [--relative-sigma S] [--dual-step T]
//                [--seed S] [--save-problems DIR] [--no-cpu] [--check] [--json FILE] [--quick]
#include "gpurBench.h"
#include "gpurCommandLine.h"
#include "gpurError.h"
#include "gpurParallel.h"
#include "gpurSparseRecovery.h"
#include "gpurStopwatch.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace
{

using gpur::bench::Cell;
using gpur::bench::Format;
using gpur::bench::JsonNumber;
using gpur::bench::JsonString;
using gpur::bench::Target;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/**
 * The LASSO weight, as a fraction of alpha_max = ||A^T y||_inf. Without
 * noise the LASSO minimiser is biased by about alpha per nonzero (it solves
 * A_S^T A_S x_S = A_S^T y - alpha sign(x_S) on its support S), which at these
 * sizes is a relative error of about 5 x relativeAlpha: 1e-5 puts the
 * minimiser at 5e-5 from the signal, under the 1e-4 target, while the
 * engine's default 1e-3 would leave every solver at 5e-3 (numpy float64 runs
 * at n = 2^12, k/n = 0.05 and 0.10).
 */
constexpr double kRelativeAlpha = 1e-5;

/**
 * CPADMM's penalties, as multiples of relativeAlpha. The fewest iterations to
 * the target lie along rho = 10 relativeSigma, at rho = 100 relativeAlpha
 * (within 16 % of the best of a grid of rho and relativeSigma over four and
 * five decades at relativeAlpha = 1e-5, the best at 1e-4 and 1e-3; k/n = 0.05
 * and 0.10, n = 2^12 and 2^15; numpy float64 runs of the iteration, see
 * docs/benchmarks.md). The engine applies the same rule when rho and
 * relativeSigma are 0 (its defaults); the benchmark resolves them itself so
 * that its output and JSON name the values used. The earlier fixed rho 0.1,
 * relativeSigma 0.01 take 23 to 39 times the iterations at 1e-5 (3300 to 8300
 * instead of 150 to 240).
 */
constexpr double kRhoPerAlpha = 100, kRelativeSigmaPerAlpha = 10;

struct Options
{
  unsigned minLog2 = 10, maxLog2 = 15; // --quick: 10, 10
  std::string solvers = "cpista,fista,cpadmm";
  std::string reals = "float";
  std::string devices;
  double sparsity = 0.05, ratio = 0.5, target = 1e-4, relativeAlpha = kRelativeAlpha;
  unsigned maxIterations = 20000;
  double solveBudget = 15;    // seconds a solve to the target may take
  unsigned denseMaxLog2 = 14; // the dense m x n matrix: 2^27 floats (512 MiB) at 2^14
  double denseBudget = 20;    // seconds: beyond, the dense ISTA's time is projected from its seconds per iteration
  double rho = 0, relativeSigma = 0; // 0: kRhoPerAlpha and kRelativeSigmaPerAlpha x relativeAlpha
  double dualStep = 0;               // 0: the engine's default
  unsigned seed = 15;
  std::string saveProblems;
  bool noCPUReference = false;
  bool check = false;
  std::string json = "sparse_bench.json";
  bool quick = false;
};

/** One problem: the sensing, the k-sparse signal and its zero-filled measurements, in double. */
struct Problem
{
  std::size_t n = 0, k = 0;
  gpur::CirculantSensing sensing;
  std::vector<double> truth, y;
};

/** One solve: a solver on a target, or the dense ISTA baseline. */
struct Row
{
  std::string solver, real, target;
  std::size_t n = 0;
  double setupSeconds = kNaN;
  unsigned iterations = 0;
  bool reached = false;        // the target relative error was reached
  bool projected = false;      // seconds = setup + iterations x secondsPerIteration, not run (dense ISTA only)
  double seconds = kNaN;       // to the target (wall time of the solve, set-up included)
  double relativeError = kNaN; // where the solve stopped
  double secondsPerIteration = kNaN;
  std::size_t bytes = 0;
  double copyGbps = kNaN;
  std::string skipped; // why it did not run; empty: it ran

  /** Seconds per iteration over n log2 n, in nanoseconds: constant down a column when the iteration is O(n log n). */
  double
  NanosecondsPerNLogN() const
  {
    return 1e9 * secondsPerIteration / (double(n) * std::log2(double(n)));
  }
  /** An iteration's time in units of one read and one write of every byte held at the copy bandwidth. */
  double
  StatePasses() const
  {
    return secondsPerIteration / (2.0 * double(bytes) / (copyGbps * 1e9));
  }
};

/** Returns false when --help was printed. */
bool
ParseOptions(int argc, char * argv[], Options & o)
{
  gpur::cli::Parser parser(
    "sparse_bench",
    "",
    "Sparse recovery with partial circulant sensing: seconds and iterations to a relative error of 1e-4, seconds "
    "per iteration and bytes held against n, for CPISTA, FISTA and CPADMM on the CPU reference and each OpenCL "
    "device, beside ISTA with the dense matrix. Prints tables and writes JSON.");
  parser.AddUnsigned("--min-log2", "P", "Smallest n = 2^P (default 10).", o.minLog2, 4, 26);
  parser.AddUnsigned(
    "--max-log2", "P", "Largest n = 2^P (default 15, about 5 minutes on 2 CPU cores; 24 on a GPU).", o.maxLog2, 4, 26);
  parser.AddString("--solvers", "LIST", "Solvers: cpista, fista, cpadmm (default all three).", o.solvers);
  parser.AddString("--reals", "LIST", "Precisions: float, double (default float, as [Fiandrotti2018]).", o.reals);
  parser.AddString(
    "--devices", "SELECTION", "OpenCL devices (see itkgpurestoration-devices); default all; none.", o.devices);
  parser.AddDouble("--sparsity", "F", "Nonzeros k = F n (default 0.05).", o.sparsity, gpur::cli::ParsePositiveDouble);
  parser.AddDouble("--ratio",
                   "F",
                   "Measurements m = F n (default 0.5, as [Fiandrotti2018]).",
                   o.ratio,
                   gpur::cli::ParsePositiveDouble);
  parser.AddDouble("--target",
                   "E",
                   "Stop at the relative error ||x - x0|| / ||x0|| <= E (default 1e-4).",
                   o.target,
                   gpur::cli::ParsePositiveDouble);
  parser.AddDouble("--relative-alpha",
                   "A",
                   "LASSO weight alpha / ||A^T y||_inf (default 1e-5: the minimiser's bias is about 5 A, under the "
                   "target).",
                   o.relativeAlpha,
                   gpur::cli::ParsePositiveDouble);
  parser.AddUnsigned(
    "--max-iterations", "N", "Iteration budget of a solve (default 20000).", o.maxIterations, 1, 10000000);
  parser.AddDouble("--solve-budget",
                   "S",
                   "Seconds a solve to the target may take (default 15; not with --quick); a solve cut short "
                   "says so, with the error it reached.",
                   o.solveBudget,
                   gpur::cli::ParsePositiveDouble);
  parser.AddUnsigned("--dense-max-log2",
                     "P",
                     "Largest n of the dense ISTA baseline (default 14: m x n floats = 512 MiB; 0: none).",
                     o.denseMaxLog2,
                     0,
                     16);
  parser.AddDouble("--dense-budget",
                   "S",
                   "Seconds the dense ISTA / FISTA may run to the target (default 20); beyond, its time is projected "
                   "from its seconds per iteration and CPISTA's / FISTA's iterations (the same iteration), marked "
                   "so.",
                   o.denseBudget,
                   gpur::cli::ParseNonNegativeDouble);
  parser.AddDouble(
    "--rho", "R", "CPADMM rho (default 100 x --relative-alpha).", o.rho, gpur::cli::ParseNonNegativeDouble);
  parser.AddDouble("--relative-sigma",
                   "S",
                   "CPADMM sigma / ||A||^2 (default 10 x --relative-alpha).",
                   o.relativeSigma,
                   gpur::cli::ParseNonNegativeDouble);
  parser.AddDouble(
    "--dual-step", "T", "CPADMM dual step (default: the engine's).", o.dualStep, gpur::cli::ParseNonNegativeDouble);
  parser.AddUnsigned("--seed", "S", "Seed of the sensing and the signal (default 15).", o.seed);
  parser.AddString("--save-problems",
                   "DIR",
                   "Write every problem as raw little-endian files, DIR/sparse_<n>_{generator,truth,y}.f64 and "
                   "DIR/sparse_<n>_mask.u8, for bench/sparse_compare.py.",
                   o.saveProblems);
  parser.AddSwitch(
    "--no-cpu", "Leave out the CPU reference and the dense baselines (OpenCL devices only).", o.noCPUReference);
  parser.AddSwitch("--check",
                   "Exit with status 1 unless FISTA and CPADMM reach the target everywhere, and the backends and "
                   "the dense baselines agree on the iteration counts within 5 % (for tests).",
                   o.check);
  parser.AddString("--json", "FILE", "Where to write the JSON results.", o.json);
  parser.AddSwitch("--quick", "n = 2^10 only, short timings, at most 10000 iterations, for smoke tests.", o.quick);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  if (o.minLog2 > o.maxLog2)
    throw gpur::cli::UsageError("--min-log2 " + std::to_string(o.minLog2) + " is above --max-log2 " +
                                std::to_string(o.maxLog2));
  if (o.sparsity >= 1 || o.ratio > 1 || o.target >= 1 || o.relativeAlpha >= 1)
    throw gpur::cli::UsageError("--sparsity, --target and --relative-alpha must be below 1, --ratio at most 1");
  for (const std::string & s : gpur::bench::SplitCommas(o.solvers))
    gpur::cli::ParseChoice("--solvers", s, { "cpista", "fista", "cpadmm" });
  for (const std::string & real : gpur::bench::SplitCommas(o.reals))
    gpur::cli::ParseChoice("--reals", real, { "float", "double" });
  if (o.quick)
  {
    o.minLog2 = o.maxLog2 = 10;
    o.maxIterations = std::min(o.maxIterations, 10000u);
    o.denseBudget = std::min(o.denseBudget, 5.0);
  }
  return true;
}

/**
 * The benchmark's problem of size n: the engine's Gaussian partial circulant
 * sensing, and k = sparsity x n nonzeros at uniformly drawn positions with
 * N(0, 1) values [Fiandrotti2018, §6]. The signal's generator is the standard
 * library's (mt19937_64), so other platforms may draw another signal;
 * --save-problems writes it for the peers.
 */
Problem
MakeProblem(std::size_t n, const Options & o)
{
  Problem p;
  p.n = n;
  p.k = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(o.sparsity * double(n))));
  p.sensing = gpur::MakeGaussianCirculantSensing({ n }, o.ratio, o.seed);
  std::mt19937_64 random(o.seed + n);
  std::normal_distribution<double> normal;
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i)
    order[i] = i;
  p.truth.assign(n, 0.0);
  for (std::size_t i = 0; i < p.k; ++i) // partial Fisher-Yates: the first k of a random permutation
  {
    std::swap(order[i], order[i + random() % (n - i)]);
    p.truth[order[i]] = normal(random);
  }
  p.y.resize(n);
  gpur::MeasureCirculant(p.sensing, p.truth.data(), p.y.data(), gpur::MakeExecution(gpur::Backend::CPU));
  return p;
}

void
SaveProblem(const Problem & p, const std::string & directory)
{
  const std::string stem = directory + "/sparse_" + std::to_string(p.n) + "_";
  gpur::bench::WriteBinaryFile(stem + "generator.f64", p.sensing.generator);
  gpur::bench::WriteBinaryFile(stem + "mask.u8", p.sensing.mask);
  gpur::bench::WriteBinaryFile(stem + "truth.f64", p.truth);
  gpur::bench::WriteBinaryFile(stem + "y.f64", p.y);
}

gpur::SparseRecoveryParameters
Parameters(gpur::SparseSolver solver, const Options & o)
{
  gpur::SparseRecoveryParameters parameters;
  parameters.solver = solver;
  parameters.relativeAlpha = o.relativeAlpha;
  parameters.rho = o.rho > 0 ? o.rho : kRhoPerAlpha * o.relativeAlpha;
  parameters.relativeSigma = o.relativeSigma > 0 ? o.relativeSigma : kRelativeSigmaPerAlpha * o.relativeAlpha;
  if (o.dualStep > 0)
    parameters.dualStep = o.dualStep;
  // The benchmark stops on the error against the known signal alone: the
  // engine's own rule (relative change, then the duality gap) must not end a
  // run first, so both tolerances are out of reach.
  parameters.tolerance = 1e-30;
  parameters.gapTolerance = 1e-30;
  return parameters;
}

/**
 * The best (smallest) of three t(2N) - t(N) measurements (TimeIterations; one with --quick):
 * on a shared machine other processes only ever add time, so the minimum is
 * the closest to the code's own speed.
 */
double
BestSecondsPerIteration(const gpur::bench::RunSeconds & run,
                        unsigned start,
                        const Options & o,
                        const std::string & what)
{
  double best = std::numeric_limits<double>::infinity();
  for (int repeat = 0; repeat < (o.quick ? 1 : 3); ++repeat)
    best =
      std::min(best,
               gpur::bench::TimeIterations(run,
                                           start,
                                           0,
                                           o.quick ? 0.05 : 0.25,
                                           what,
                                           o.quick ? gpur::bench::OnUntimed::TotalTime : gpur::bench::OnUntimed::Throw)
                 .secondsPerIteration);
  return best;
}

/**
 * One solver on one target: first seconds per iteration by t(2N) - t(N) of
 * the solve time less its set-up (runs without the truth; the first of them
 * builds the OpenCL programs and VkFFT's kernels for this n, which PoCL then
 * caches), then a solve to the target error within --solve-budget seconds
 * (the error is measured, with the objective and the gap, every
 * checkInterval = 10 iterations, so the counts are multiples of 10), whose
 * set-up is then the planning and the spectra alone.
 */
template<typename Real>
Row
RunSolver(const Problem & p, gpur::SparseSolver solver, const Target & t, const Options & o)
{
  Row r;
  r.solver = gpur::ToString(solver);
  r.real = sizeof(Real) == sizeof(float) ? "float" : "double";
  r.target = t.name;
  r.n = p.n;
  r.copyGbps = t.copy.gbps;
  const std::vector<Real> y(p.y.begin(), p.y.end()), truth(p.truth.begin(), p.truth.end());
  std::vector<Real> x(p.n);
  gpur::SparseRecoveryParameters parameters = Parameters(solver, o);
  try
  {
    r.secondsPerIteration = BestSecondsPerIteration(
      [&](unsigned iterations)
      {
        parameters.maximumIterations = iterations;
        const gpur::SparseRecoveryReport report =
          gpur::RecoverSparse(p.sensing, y.data(), x.data(), parameters, t.execution);
        r.bytes = report.bytes; // a user's solve: without the truth, which a run to the target holds too
        r.setupSeconds = report.setupSeconds;
        return report.seconds - report.setupSeconds; // the planning's jitter would swamp a few iterations
      },
      4,
      o,
      r.solver + " on " + t.name);
  }
  catch (const gpur::InvalidArgument & e) // double on a device without fp64
  {
    r.skipped = e.what();
    return r;
  }
  parameters.maximumIterations = o.maxIterations;
  gpur::SparseRecoveryTruth<Real> known;
  known.truth = truth.data();
  known.targetRelativeError = o.target;
  // The time budget: the run is abandoned (gpur::Aborted) once it is spent,
  // with the error last measured (every checkInterval iterations).
  const gpur::Stopwatch watch;
  gpur::SparseIterationInfo measured;
  const auto withinBudget = [&](const gpur::SparseIterationInfo & info)
  {
    if (!std::isnan(info.relativeError))
      measured = info;
    return o.quick || watch.Seconds() < o.solveBudget;
  };
  try
  {
    const gpur::SparseRecoveryReport report =
      gpur::RecoverSparse(p.sensing, y.data(), x.data(), parameters, t.execution, {}, withinBudget, known);
    r.setupSeconds = report.setupSeconds;
    r.iterations = report.iterations;
    r.reached = report.stop == gpur::SparseStop::TruthReached;
    r.seconds = report.seconds;
    r.relativeError = report.relativeError;
  }
  catch (const gpur::Aborted &)
  {
    r.seconds = watch.Seconds();
    r.iterations = measured.iteration;
    r.relativeError = measured.relativeError;
  }
  return r;
}

/**
 * A = P C as a dense m x n matrix, row-major (the rows of C in Omega), for the
 * baseline of [Fiandrotti2018, §5] (PISTA): plain loops over the rows, on all
 * threads, A x as one dot product per row, A^T r column strip by column strip
 * so that each thread streams its strip of A once.
 */
template<typename Real>
class DenseSensing
{
public:
  DenseSensing(const gpur::CirculantSensing & sensing, gpur::ParallelForFunction parallelFor)
    : m_N(sensing.Count())
    , m_ParallelFor(std::move(parallelFor))
  {
    for (std::size_t i = 0; i < m_N; ++i)
      if (sensing.mask[i])
        m_Rows.push_back(i);
    m_A.resize(m_Rows.size() * m_N);
    gpur::RunParallel(m_ParallelFor,
                      m_Rows.size(),
                      [&](std::size_t begin, std::size_t end)
                      {
                        for (std::size_t r = begin; r < end; ++r) // C_ij = v_(j - i) mod n
                          for (std::size_t j = 0; j < m_N; ++j)
                            m_A[r * m_N + j] = Real(sensing.generator[(j + m_N - m_Rows[r]) % m_N]);
                      });
  }

  std::size_t
  Rows() const
  {
    return m_Rows.size();
  }
  /** The measured rows' indices (Omega, increasing). */
  const std::vector<std::size_t> &
  RowIndices() const
  {
    return m_Rows;
  }
  std::size_t
  Bytes() const
  {
    return m_A.size() * sizeof(Real) + m_Rows.size() * sizeof(std::size_t);
  }

  /** ax = A x (Rows() values). */
  void
  Apply(const Real * x, Real * ax) const
  {
    gpur::RunParallel(m_ParallelFor,
                      m_Rows.size(),
                      [&](std::size_t begin, std::size_t end)
                      {
                        constexpr std::size_t lanes = 8; // independent sums: the compiler vectorises them
                        for (std::size_t r = begin; r < end; ++r)
                        {
                          const Real * a = &m_A[r * m_N];
                          Real sum[lanes] = {};
                          std::size_t j = 0;
                          for (; j + lanes <= m_N; j += lanes)
                            for (std::size_t l = 0; l < lanes; ++l)
                              sum[l] += a[j + l] * x[j + l];
                          for (; j < m_N; ++j)
                            sum[0] += a[j] * x[j];
                          Real total = 0;
                          for (std::size_t l = 0; l < lanes; ++l)
                            total += sum[l];
                          ax[r] = total;
                        }
                      });
  }

  /** x = A^T r (r: Rows() values, x: n values). */
  void
  ApplyTranspose(const Real * r, Real * x) const
  {
    constexpr std::size_t strip = 1024; // columns per task: the strip of x stays in the first-level cache
    gpur::RunParallel(m_ParallelFor,
                      (m_N + strip - 1) / strip,
                      [&](std::size_t begin, std::size_t end)
                      {
                        for (std::size_t s = begin; s < end; ++s)
                        {
                          const std::size_t j0 = s * strip, j1 = std::min(m_N, j0 + strip);
                          std::fill(x + j0, x + j1, Real(0));
                          for (std::size_t row = 0; row < m_Rows.size(); ++row)
                          {
                            const Real * a = &m_A[row * m_N];
                            const Real w = r[row];
                            for (std::size_t j = j0; j < j1; ++j)
                              x[j] += a[j] * w;
                          }
                        }
                      });
  }

private:
  std::size_t m_N;
  gpur::ParallelForFunction m_ParallelFor;
  std::vector<std::size_t> m_Rows;
  std::vector<Real> m_A;
};

double
RelativeDifference(const std::vector<double> & a, const std::vector<double> & b)
{
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += b[i] * b[i];
  }
  return std::sqrt(d / s);
}

/**
 * Throws unless the dense matrix and the engine's FFT operator agree on A x
 * and A^T r for a random x and r (so that the two sides of the comparison
 * solve the same problem).
 */
template<typename Real>
void
CheckDense(const DenseSensing<Real> & dense, const gpur::CirculantOperator<Real> & fft, std::size_t n)
{
  std::mt19937_64 random(n);
  std::normal_distribution<double> normal;
  std::vector<Real> x(n), fx(n), dx(dense.Rows()), r(n, Real(0)), fr(n), dr(n), packed(dense.Rows());
  for (Real & v : x)
    v = Real(normal(random));
  for (std::size_t i = 0; i < dense.Rows(); ++i)
    r[dense.RowIndices()[i]] = packed[i] = Real(normal(random));
  fft.Apply(x.data(), fx.data());
  dense.Apply(x.data(), dx.data());
  fft.ApplyTranspose(r.data(), fr.data());
  dense.ApplyTranspose(packed.data(), dr.data());
  std::vector<double> a, b;
  for (std::size_t i = 0; i < dense.Rows(); ++i)
  {
    a.push_back(dx[i]);
    b.push_back(fx[dense.RowIndices()[i]]);
  }
  const double tolerance = sizeof(Real) == sizeof(float) ? 1e-4 : 1e-10;
  const double forward = RelativeDifference(a, b);
  const double transpose =
    RelativeDifference(std::vector<double>(dr.begin(), dr.end()), std::vector<double>(fr.begin(), fr.end()));
  if (!(forward <= tolerance && transpose <= tolerance))
    throw gpur::Error("dense and FFT operators disagree at n = " + std::to_string(n) + ": A x by " +
                      Format(forward, 2, true) + ", A^T r by " + Format(transpose, 2, true));
}

double
SoftThreshold(double value, double threshold)
{
  return value > threshold ? value - threshold : value < -threshold ? value + threshold : 0.0;
}

/**
 * ISTA with the dense matrix, the iteration of CPISTA [Fiandrotti2018,
 * Algorithm 1] (PISTA), or with FISTA's momentum [Beck2009] when
 * `accelerated`, with the engine's alpha and step, so that it takes the FFT
 * solver's iterations (`reference`, the CPU row of CPISTA or FISTA at this n):
 * seconds per iteration by t(2N) - t(N), then a run to the target when those
 * iterations fit in --dense-budget, else the projected time (set-up +
 * iterations x seconds per iteration), marked so.
 */
template<typename Real>
Row
RunDense(const Problem & p,
         const DenseSensing<Real> & dense,
         double setupSeconds,
         double normSquaredBound,
         bool accelerated,
         const Target & cpu,
         const Row * reference,
         const Options & o)
{
  Row r;
  r.solver = accelerated ? "dense FISTA" : "dense ISTA";
  r.real = sizeof(Real) == sizeof(float) ? "float" : "double";
  r.target = cpu.name;
  r.n = p.n;
  r.copyGbps = cpu.copy.gbps;
  r.setupSeconds = setupSeconds;
  const std::size_t m = dense.Rows();
  std::vector<Real> y(m), x(p.n), previous(p.n), z(p.n), gradient(p.n), residual(m);
  for (std::size_t i = 0; i < m; ++i)
    y[i] = Real(p.y[dense.RowIndices()[i]]);
  dense.ApplyTranspose(y.data(), gradient.data());
  double alphaMax = 0;
  for (const Real g : gradient)
    alphaMax = std::max(alphaMax, std::abs(double(g)));
  const double step = 1.0 / normSquaredBound, threshold = o.relativeAlpha * alphaMax * step;
  double truthNorm = 0;
  for (const double v : p.truth)
    truthNorm += v * v;
  truthNorm = std::sqrt(truthNorm);
  r.bytes = dense.Bytes() + ((accelerated ? 5 : 3) * p.n + 2 * m) * sizeof(Real);

  // Runs `iterations` from x = 0 (or until the target when `toTarget`); returns the seconds.
  const auto run = [&](unsigned iterations, bool toTarget)
  {
    const gpur::Stopwatch watch;
    std::fill(x.begin(), x.end(), Real(0));
    std::fill(z.begin(), z.end(), Real(0));
    double t = 1;
    for (unsigned k = 1; k <= iterations; ++k)
    {
      dense.Apply(z.data(), residual.data()); // z = x for ISTA
      for (std::size_t i = 0; i < m; ++i)
        residual[i] = y[i] - residual[i];
      dense.ApplyTranspose(residual.data(), gradient.data());
      const double tNext = (1 + std::sqrt(1 + 4 * t * t)) / 2, momentum = accelerated ? (t - 1) / tNext : 0.0;
      t = tNext;
      double error = 0;
      previous.swap(x);
      for (std::size_t j = 0; j < p.n; ++j)
      {
        x[j] = Real(SoftThreshold(double(z[j]) + step * double(gradient[j]), threshold));
        z[j] = Real(double(x[j]) + momentum * (double(x[j]) - double(previous[j])));
        error += (double(x[j]) - p.truth[j]) * (double(x[j]) - p.truth[j]);
      }
      r.iterations = k;
      r.relativeError = std::sqrt(error) / truthNorm;
      if (toTarget && r.relativeError <= o.target)
        break;
    }
    return watch.Seconds();
  };
  r.secondsPerIteration =
    BestSecondsPerIteration([&](unsigned iterations) { return run(iterations, false); }, 1, o, r.solver);
  // Where the FFT solver did not reach the target, neither does the same
  // iteration here: its seconds per iteration are the figure.
  const bool known = reference && reference->reached;
  r.iterations = 0;
  r.relativeError = kNaN;
  if (known && reference->iterations * r.secondsPerIteration <= o.denseBudget)
  {
    r.seconds = r.setupSeconds + run(unsigned(reference->iterations * 1.1) + 10, true);
    r.reached = r.relativeError <= o.target;
  }
  else if (known)
  {
    r.projected = true;
    r.iterations = reference->iterations;
    r.seconds = r.setupSeconds + r.iterations * r.secondsPerIteration;
  }
  return r;
}

/** "2^14" */
std::string
PowerOfTwo(std::size_t n)
{
  return "2^" + std::to_string(int(std::lround(std::log2(double(n)))));
}

/** Seconds to the target, "(proj.)" when projected, "> S" when not reached. */
std::string
TimeCell(const Row & r)
{
  if (!r.skipped.empty())
    return "skipped";
  if (r.reached)
    return Format(r.seconds, r.seconds < 10 ? 3 : 1);
  if (r.projected)
    return Format(r.seconds, r.seconds < 10 ? 3 : 1) + " (proj.)";
  return std::isnan(r.seconds) ? "-" : "> " + Format(r.seconds, 1);
}

/** Rows by real, solver, target, then n: the scaling reads down the ms/it and ns/(n log2 n) columns. */
void
PrintRows(std::vector<Row> rows, const Options & o)
{
  std::stable_sort(rows.begin(),
                   rows.end(),
                   [](const Row & a, const Row & b)
                   { return std::tie(a.real, a.solver, a.target, a.n) < std::tie(b.real, b.solver, b.target, b.n); });
  std::vector<std::vector<std::string>> table{ { "real",
                                                 "solver",
                                                 "backend/device",
                                                 "n",
                                                 "setup s",
                                                 "iter",
                                                 "s to " + Format(o.target, 0, true),
                                                 "error",
                                                 "ms/it",
                                                 "ns/(n log2 n)",
                                                 "MB held",
                                                 "B/unknown",
                                                 "state passes" } };
  for (const Row & r : rows)
  {
    if (!r.skipped.empty())
    {
      table.push_back({ r.real, r.solver, r.target, PowerOfTwo(r.n), "skipped: " + r.skipped });
      continue;
    }
    table.push_back({ r.real,
                      r.solver,
                      r.target,
                      PowerOfTwo(r.n),
                      Format(r.setupSeconds, 4),
                      r.iterations ? std::to_string(r.iterations) + (r.reached || r.projected ? "" : "+") : "-",
                      TimeCell(r),
                      Cell(r.relativeError, 1, true),
                      Format(1e3 * r.secondsPerIteration, 3),
                      Format(r.NanosecondsPerNLogN(), 3),
                      Format(r.bytes / 1e6, 2),
                      Format(double(r.bytes) / double(r.n), 1),
                      Cell(r.StatePasses(), 1) });
  }
  gpur::bench::PrintTable(std::cout, table, 3);
}

/** Seconds to the target against n, one column per solver and target. */
void
PrintSummary(const std::vector<Row> & rows, const std::string & real)
{
  std::vector<std::string> columns;
  std::vector<std::size_t> sizes;
  for (const Row & r : rows)
    if (r.real == real)
    {
      const std::string column = r.solver + " " + r.target;
      if (std::find(columns.begin(), columns.end(), column) == columns.end())
        columns.push_back(column);
      if (std::find(sizes.begin(), sizes.end(), r.n) == sizes.end())
        sizes.push_back(r.n);
    }
  std::vector<std::vector<std::string>> table{ { "n" } };
  for (std::size_t c = 0; c < columns.size(); ++c)
    table[0].push_back("[" + std::to_string(c + 1) + "]");
  for (const std::size_t n : sizes)
  {
    std::vector<std::string> line{ PowerOfTwo(n) };
    for (const std::string & column : columns)
    {
      const auto r =
        std::find_if(rows.begin(),
                     rows.end(),
                     [&](const Row & x) { return x.real == real && x.n == n && x.solver + " " + x.target == column; });
      line.push_back(r == rows.end() ? "" : TimeCell(*r));
    }
    table.push_back(line);
  }
  gpur::bench::PrintTable(std::cout, table, 1);
  for (std::size_t c = 0; c < columns.size(); ++c)
    std::cout << "  [" << c + 1 << "] " << columns[c] << "\n";
}

void
WriteJson(std::ostream & out, const Options & o, const std::vector<Target> & targets, const std::vector<Row> & rows)
{
  const gpur::SparseRecoveryParameters engine = Parameters(gpur::SparseSolver::CPADMM, o);
  out << "{\n  \"benchmark\": \"sparse_bench\",\n  \"quick\": " << (o.quick ? "true" : "false")
      << ",\n  \"problem\": { \"sensing\": \"MakeGaussianCirculantSensing({n}, ratio, seed)\", \"ratio\": " << o.ratio
      << ", \"sparsity\": " << o.sparsity << ", \"seed\": " << o.seed
      << ", \"signal\": \"k = round(sparsity n) nonzeros, N(0, 1), uniform positions (mt19937_64(seed + n))\""
      << ", \"noise\": 0 },\n  \"relativeAlpha\": " << o.relativeAlpha << ",\n  \"targetRelativeError\": " << o.target
      << ",\n  \"cpadmm\": { \"rho\": " << engine.rho << ", \"relativeSigma\": " << engine.relativeSigma
      << ", \"dualStep\": " << engine.dualStep << " }"
      << ",\n  \"timing\": \"secondsPerIteration: (t(2N) - t(N)) / N of runs without the truth; seconds: wall time of "
         "the solve to the target (RecoverSparse with SparseRecoveryTruth), set-up included; dense ISTA / FISTA: "
         "plain loops, projected = setup + CPISTA's / FISTA's iterations x secondsPerIteration\""
      << ",\n  \"statePasses\": \"secondsPerIteration / (read + write of the bytes held at the copy bandwidth)\",\n";
  gpur::bench::WriteTargetsJson(out, targets);
  out << ",\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row & r = rows[i];
    out << (i ? "," : "") << "\n    { \"n\": " << r.n << ", \"solver\": " << JsonString(r.solver)
        << ", \"real\": " << JsonString(r.real) << ", \"backend\": " << JsonString(r.target)
        << ", \"setupSeconds\": " << JsonNumber(r.setupSeconds) << ", \"iterations\": " << r.iterations
        << ", \"reached\": " << (r.reached ? "true" : "false")
        << ", \"projected\": " << (r.projected ? "true" : "false") << ", \"seconds\": " << JsonNumber(r.seconds)
        << ", \"relativeError\": " << JsonNumber(r.relativeError)
        << ", \"secondsPerIteration\": " << JsonNumber(r.secondsPerIteration)
        << ", \"nanosecondsPerNLog2N\": " << JsonNumber(r.NanosecondsPerNLogN()) << ", \"bytes\": " << r.bytes
        << ", \"statePasses\": " << JsonNumber(r.StatePasses())
        << ", \"skipped\": " << (r.skipped.empty() ? "null" : JsonString(r.skipped)) << " }";
  }
  out << "\n  ]\n}\n";
}

/** The name of the dense baseline running a solver's iteration ("" for CPADMM). */
std::string
DenseOf(const std::string & solver)
{
  return solver == "CPISTA" ? "dense ISTA" : solver == "FISTA" ? "dense FISTA" : "";
}

/** The failures --check reports (empty: none). */
std::vector<std::string>
Check(const std::vector<Row> & rows, const Options & o)
{
  std::vector<std::string> failures;
  for (const Row & r : rows)
  {
    const std::string what = r.solver + " " + r.real + " on " + r.target + " at n = " + std::to_string(r.n);
    if (!r.skipped.empty())
      continue;
    if ((r.solver == "FISTA" || r.solver == "CPADMM") && !r.reached)
      failures.push_back(what + " did not reach " + Format(o.target, 0, true));
    // The same iteration on every backend, and dense ISTA / FISTA = CPISTA / FISTA: the same count within 5 %
    // and one check interval (rounding differs, and FISTA's path near the threshold amplifies it over thousands
    // of iterations: 3928 to 4041 iterations for one problem at n = 512 in float64).
    for (const Row & other : rows)
    {
      const bool same = other.n == r.n && other.real == r.real && other.skipped.empty() && other.reached && r.reached;
      const bool pair = (other.solver == r.solver && other.target != r.target) ||
                        (r.solver == DenseOf(other.solver) && other.target == r.target);
      if (same && pair && std::abs(double(other.iterations) - double(r.iterations)) > 0.05 * r.iterations + 10)
        failures.push_back(what + " took " + std::to_string(r.iterations) + " iterations, " + other.solver + " on " +
                           other.target + " " + std::to_string(other.iterations));
    }
  }
  return failures;
}

template<typename Real>
void
RunPrecision(const Problem & p, const std::vector<Target> & targets, const Options & o, std::vector<Row> & rows)
{
  const std::string real = sizeof(Real) == sizeof(float) ? "float" : "double";
  for (const std::string & name : gpur::bench::SplitCommas(o.solvers))
  {
    const gpur::SparseSolver solver = gpur::ParseSparseSolver(name);
    for (const Target & t : targets)
    {
      std::cerr << "sparse_bench: n = " << p.n << " " << real << " " << name << " on " << t.name << "...\n";
      rows.push_back(RunSolver<Real>(p, solver, t, o));
    }
  }
  const Target & cpu = targets.front();
  if (!cpu.devices.empty() || o.denseMaxLog2 == 0 || p.n > (std::size_t(1) << o.denseMaxLog2))
    return;
  const gpur::Stopwatch setup;
  const DenseSensing<Real> dense(p.sensing, cpu.execution.parallelFor);
  const double setupSeconds = setup.Seconds();
  const gpur::CirculantOperator<Real> fft(p.sensing, cpu.execution);
  CheckDense(dense, fft, p.n);
  for (const bool accelerated : { false, true })
  {
    const std::string solver = accelerated ? "FISTA" : "CPISTA";
    const auto same = std::find_if(
      rows.begin(),
      rows.end(),
      [&](const Row & r) { return r.n == p.n && r.real == real && r.solver == solver && r.target == cpu.name; });
    const Row reference = same != rows.end() ? *same : Row(); // a copy: rows grows below
    std::cerr << "sparse_bench: n = " << p.n << " " << real << " dense " << (accelerated ? "FISTA" : "ISTA") << " on "
              << cpu.name << "...\n";
    rows.push_back(RunDense<Real>(
      p, dense, setupSeconds, fft.NormSquaredBound(), accelerated, cpu, same != rows.end() ? &reference : nullptr, o));
  }
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
    const std::uint64_t copyBytes = o.quick ? gpur::bench::kQuickCopyBytes : gpur::bench::kCopyBytes;
    std::vector<Target> targets;
    if (!o.noCPUReference)
      targets.push_back(gpur::bench::CPUTarget(copyBytes));
    for (const auto & d : gpur::bench::BenchDevices(o.devices))
      targets.push_back(gpur::bench::DeviceTarget({ d }, copyBytes));
    if (targets.empty())
      throw gpur::Error("nothing to run: --no-cpu and no OpenCL device");
    for (const Target & t : targets)
      std::cout << "copy bandwidth of " << t.name << ": " << Format(t.copy.gbps, 2) << " GB/s (" << t.copy.method
                << ")\n";
    const gpur::SparseRecoveryParameters engine = Parameters(gpur::SparseSolver::CPADMM, o);
    std::cout << "problem: k = " << o.sparsity << " n Gaussian nonzeros, m = " << o.ratio
              << " n Gaussian circulant rows, no noise; alpha = " << o.relativeAlpha
              << " ||A^T y||_inf; target relative error " << Format(o.target, 0, true) << "; CPADMM rho " << engine.rho
              << ", relativeSigma " << engine.relativeSigma << ", dualStep " << engine.dualStep << "\n";

    std::vector<Row> rows;
    for (unsigned log2n = o.minLog2; log2n <= o.maxLog2; ++log2n)
    {
      const Problem p = MakeProblem(std::size_t(1) << log2n, o);
      if (!o.saveProblems.empty())
        SaveProblem(p, o.saveProblems);
      for (const std::string & real : gpur::bench::SplitCommas(o.reals))
      {
        if (real == "float")
          RunPrecision<float>(p, targets, o, rows);
        else
          RunPrecision<double>(p, targets, o, rows);
      }
    }
    std::cout << "\nPer solver and backend against n (iter with '+': the target was not reached within the "
                 "budget; error: where the solve stopped):\n";
    PrintRows(rows, o);
    for (const std::string & real : gpur::bench::SplitCommas(o.reals))
    {
      std::cout << "\nSeconds to a relative error of " << Format(o.target, 0, true) << ", " << real
                << " (set-up included; '> S': not reached in S seconds):\n";
      PrintSummary(rows, real);
    }
    WriteJson(json.Stream(), o, targets, rows);
    json.Commit();
    std::cout << "\nwrote " << o.json << "\n";
    if (o.check)
    {
      const std::vector<std::string> failures = Check(rows, o);
      for (const std::string & f : failures)
        std::cerr << "sparse_bench: check failed: " << f << "\n";
      if (!failures.empty())
        return 1;
    }
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "sparse_bench: " << e.what() << "\n";
    return 1;
  }
}
