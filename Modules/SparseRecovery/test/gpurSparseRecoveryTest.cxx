// SPDX-License-Identifier: Apache-2.0
// The solvers on the CPU reference: CPISTA against a dense-matrix ISTA
// iterate by iterate, exact recovery of sparse signals at m = n/2, the LASSO
// optimality (KKT) conditions, the duality gap, scaling, progress, abort and
// bad input.
#include "gpurSparseTesting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace gpur
{
namespace
{

using namespace sparsetest;

/** A k-sparse problem: the sensing, the truth and its measurements y = A x. */
template<typename Real>
struct Problem
{
  CirculantSensing sensing;
  std::vector<Real> truth, y;
};

template<typename Real>
Problem<Real>
MakeProblem(const std::vector<std::size_t> & size, double ratio, std::size_t k, unsigned seed, bool nonnegative = false)
{
  Problem<Real> p;
  p.sensing = MakeGaussianCirculantSensing(size, ratio, seed);
  p.truth = SparseSignal<Real>(p.sensing.Count(), k, seed + 1000, nonnegative);
  p.y.resize(p.sensing.Count());
  MeasureCirculant(p.sensing, p.truth.data(), p.y.data(), MakeExecution(Backend::CPU));
  return p;
}

template<typename Real>
SparseRecoveryReport
Recover(const Problem<Real> & p,
        const SparseRecoveryParameters & parameters,
        std::vector<Real> & x,
        Backend backend = Backend::CPU)
{
  x.assign(p.sensing.Count(), Real(0));
  return RecoverSparse(p.sensing, p.y.data(), x.data(), parameters, MakeExecution(backend));
}

TEST(SparseRecovery, CPISTAEqualsDenseISTAIterateByIterate)
{
  const Problem<double> p = MakeProblem<double>({ 64 }, 0.5, 4, 21);
  const std::vector<double> a = DenseSensing(p.sensing);
  const std::size_t n = 64;
  SparseRecoveryParameters parameters;
  parameters.solver = SparseSolver::CPISTA;
  parameters.relativeAlpha = 0.05;
  parameters.checkInterval = 1;
  // The dense ISTA with the engine's resolved alpha and step: x <- soft(x - tau A^T (A x - y), alpha tau).
  std::vector<double> x(n, 0.0), xe;
  parameters.maximumIterations = 1;
  const SparseRecoveryReport first = Recover(p, parameters, xe);
  const double alpha = first.alpha, tau = first.step;
  EXPECT_DOUBLE_EQ(first.alphaMax,
                   [&]
                   {
                     const std::vector<double> aty = Multiply(a, p.y, true);
                     double m = 0.0;
                     for (double v : aty)
                       m = std::max(m, std::abs(v));
                     return m;
                   }());
  for (unsigned k = 1; k <= 25; ++k)
  {
    const std::vector<double> ax = Multiply(a, x);
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n; ++i)
      r[i] = ax[i] - p.y[i];
    const std::vector<double> g = Multiply(a, r, true);
    for (std::size_t i = 0; i < n; ++i)
    {
      const double u = x[i] - tau * g[i], t = alpha * tau;
      x[i] = u > t ? u - t : (u < -t ? u + t : 0.0);
    }
    parameters.maximumIterations = k;
    const SparseRecoveryReport report = Recover(p, parameters, xe);
    ASSERT_EQ(report.iterations, k);
    EXPECT_LT(RelativeDifference(xe, x), 1e-12) << "iteration " << k;
  }
}

template<typename Real>
void
CheckExactRecovery(SparseSolver solver,
                   double fraction,
                   double relativeAlpha,
                   unsigned trials,
                   double tolerance,
                   double rho = 0.0,
                   double relativeSigma = 0.0)
{
  const std::size_t n = 512, k = std::size_t(std::lround(fraction * n));
  for (unsigned trial = 0; trial < trials; ++trial)
  {
    const Problem<Real> p = MakeProblem<Real>({ n }, 0.5, k, 100 + trial);
    SparseRecoveryParameters parameters;
    parameters.solver = solver;
    parameters.relativeAlpha = relativeAlpha;
    parameters.rho = rho;
    parameters.relativeSigma = relativeSigma;
    // Float stops near its rounding: relative changes of 1e-8 are below it, and the gap's floor is about
    // 5e-7 / relativeAlpha (see gapTolerance in gpurSparseRecovery.h).
    parameters.tolerance = sizeof(Real) == 8 ? 1e-8 : 1e-6;
    parameters.gapTolerance = sizeof(Real) == 8 ? 1e-6 : 1e-2;
    parameters.maximumIterations = solver == SparseSolver::CPISTA ? 100000 : 20000;
    std::vector<Real> x;
    const SparseRecoveryReport report = Recover(p, parameters, x);
    const double error = RelativeDifference(x, p.truth);
    EXPECT_LE(error, tolerance) << ToString(solver) << " k/n " << fraction << " trial " << trial;
    EXPECT_TRUE(report.converged);
  }
}

// The LASSO's bias is about 3 relativeAlpha in relative error here (measured: 2-4e-5 at relativeAlpha 1e-5, 2-4e-4
// at 1e-4), so FISTA and CPADMM run at 1e-5; CPISTA, which needs about 8x FISTA's iterations at 1e-4 and more than
// 10^5 at 1e-5, runs at 1e-4 and the sparser case.
TEST(SparseRecovery, ExactRecoveryAtHalfSamplingFISTA)
{
  for (double fraction : { 0.05, 0.10 })
    CheckExactRecovery<double>(SparseSolver::FISTA, fraction, 1e-5, 3, 1e-4);
}

// The duality gap certifies 1e-6 at relativeAlpha 1e-5 only with the larger fixed penalties (7300-12400
// iterations here): with the automatic ones (rho = 1e-3) the error reaches 2-6e-5 within a few hundred iterations,
// but the gap stays at 2e-4 to 2e-3 after 20000 (measured at n = 512).
TEST(SparseRecovery, ExactRecoveryAtHalfSamplingCPADMM)
{
  for (double fraction : { 0.05, 0.10 })
    CheckExactRecovery<double>(SparseSolver::CPADMM, fraction, 1e-5, 3, 1e-4, 0.1, 0.01);
}

// The automatic penalties (rho = 100 a, relativeSigma = 10 a; the calibration in docs/benchmarks.md) at a small
// relative alpha: 1e-4 against the signal in under 400 iterations (measured: 160), where the fixed rho = 0.1,
// relativeSigma = 0.01 take about 3300 and FISTA about 5100.
TEST(SparseRecovery, AutomaticPenaltiesReachTheSignalQuickly)
{
  const std::size_t n = std::size_t(1) << 12;
  const Problem<double> p = MakeProblem<double>({ n }, 0.5, n / 20, 7);
  SparseRecoveryParameters parameters;
  parameters.solver = SparseSolver::CPADMM;
  parameters.relativeAlpha = 1e-5;
  parameters.maximumIterations = 400;
  std::vector<double> x(n);
  SparseRecoveryTruth<double> truth;
  truth.truth = p.truth.data();
  truth.targetRelativeError = 1e-4;
  const SparseRecoveryReport report =
    RecoverSparse(p.sensing, p.y.data(), x.data(), parameters, MakeExecution(Backend::CPU), {}, {}, truth);
  EXPECT_EQ(report.stop, SparseStop::TruthReached);
  EXPECT_LT(report.iterations, 400u);
  EXPECT_LE(RelativeDifference(x, p.truth), 1e-4);
  EXPECT_NEAR(report.rho, 100.0 * report.alpha / report.alphaMax, 1e-15);
  EXPECT_NEAR(report.sigma, 10.0 * report.alpha / report.alphaMax * report.normSquaredBound, 1e-12 * report.sigma);
}

TEST(SparseRecovery, ExactRecoveryAtHalfSamplingCPISTA)
{
  CheckExactRecovery<double>(SparseSolver::CPISTA, 0.05, 1e-4, 2, 1e-3);
}

TEST(SparseRecovery, ExactRecoveryAtHalfSamplingFloat)
{
  CheckExactRecovery<float>(SparseSolver::FISTA, 0.05, 1e-3, 2, 5e-3);
}

} // namespace
} // namespace gpur

namespace gpur
{
namespace
{

using namespace sparsetest;

/** g = A^T (y - A x) on the CPU reference. */
std::vector<double>
DualGradient(const CirculantSensing & sensing, const std::vector<double> & y, const std::vector<double> & x)
{
  const CirculantOperator<double> op(sensing, MakeExecution(Backend::CPU));
  const std::size_t n = x.size();
  std::vector<double> ax(n), r(n), g(n);
  op.Apply(x.data(), ax.data());
  for (std::size_t i = 0; i < n; ++i)
    r[i] = sensing.mask[i] ? y[i] - ax[i] : 0.0;
  op.ApplyTranspose(r.data(), g.data());
  return g;
}

// The optimality of the LASSO [Fiandrotti2018, eq. (3)]: A^T (y - A x) = alpha sign(x_i) on the support and
// |A^T (y - A x)| <= alpha off it (with x >= 0: = alpha on the support, <= alpha off it).
TEST(SparseRecovery, SolutionsMeetTheKKTConditions)
{
  for (const bool nonnegative : { false, true })
    for (const SparseSolver solver : { SparseSolver::FISTA, SparseSolver::CPADMM })
    {
      const Problem<double> p = MakeProblem<double>({ 24, 16 }, 0.4, 15, 31, nonnegative);
      SparseRecoveryParameters parameters;
      parameters.solver = solver;
      parameters.relativeAlpha = 0.02;
      parameters.nonnegative = nonnegative;
      parameters.tolerance = 1e-12;
      parameters.gapTolerance = 1e-10;
      parameters.maximumIterations = 20000;
      std::vector<double> x;
      const SparseRecoveryReport report = Recover(p, parameters, x);
      ASSERT_TRUE(report.converged) << ToString(solver) << " " << report.relativeGap;
      const std::vector<double> g = DualGradient(p.sensing, p.y, x);
      const double alpha = report.alpha;
      std::size_t support = 0;
      for (std::size_t i = 0; i < x.size(); ++i)
      {
        if (x[i] != 0.0)
        {
          ++support;
          EXPECT_NEAR(g[i], x[i] > 0 ? alpha : -alpha, 1e-5 * alpha) << ToString(solver) << " at " << i;
        }
        else if (nonnegative)
        {
          EXPECT_LE(g[i], alpha * (1 + 1e-5)) << ToString(solver) << " at " << i;
        }
        else
        {
          EXPECT_LE(std::abs(g[i]), alpha * (1 + 1e-5)) << ToString(solver) << " at " << i;
        }
      }
      EXPECT_EQ(report.nonzeros, support);
      EXPECT_GT(support, 0u);
      if (nonnegative)
      {
        EXPECT_GE(*std::min_element(x.begin(), x.end()), 0.0);
      }
    }
}

// CPISTA decreases the objective at every check (a descent method with step 1/L [Beck2009, Lemma 2.3]); the
// duality gap falls by orders of magnitude to below gapTolerance; the report matches its last check.
TEST(SparseRecovery, ObjectiveAndDualityGapDecrease)
{
  const Problem<double> p = MakeProblem<double>({ 256 }, 0.5, 10, 41);
  SparseRecoveryParameters parameters;
  parameters.solver = SparseSolver::CPISTA;
  parameters.relativeAlpha = 0.05;
  parameters.checkInterval = 5;
  parameters.maximumIterations = 20000;
  std::vector<double> x;
  const SparseRecoveryReport report = Recover(p, parameters, x);
  ASSERT_TRUE(report.converged);
  EXPECT_EQ(report.stop, SparseStop::Converged);
  ASSERT_EQ(report.history.size(), report.iterations);
  std::vector<double> objective, gap;
  for (const SparseIterationInfo & info : report.history)
  {
    if (info.iteration % 5 == 0)
    {
      objective.push_back(info.objective);
      gap.push_back(info.relativeGap);
      EXPECT_TRUE(std::isfinite(info.relativeChange));
    }
    else
    {
      EXPECT_TRUE(std::isnan(info.objective) && std::isnan(info.relativeGap) && std::isnan(info.relativeChange));
    }
  }
  ASSERT_GE(objective.size(), 4u);
  for (std::size_t i = 1; i < objective.size(); ++i)
    EXPECT_LE(objective[i], objective[i - 1] * (1 + 1e-12)) << "check " << i;
  EXPECT_LT(gap.back(), parameters.gapTolerance);
  EXPECT_LT(gap.back(), 1e-2 * gap.front());
  EXPECT_EQ(report.relativeGap, gap.back());
  EXPECT_EQ(report.objective, objective.back());
  EXPECT_GE(gap.back(), -1e-12);
  // The resolved units.
  EXPECT_DOUBLE_EQ(report.alpha, 0.05 * report.alphaMax);
  EXPECT_DOUBLE_EQ(report.step, 1.0 / report.normSquaredBound);
  EXPECT_GT(report.bytes, 0u);
  EXPECT_TRUE(report.warnings.empty());
  EXPECT_LT(report.relativeResidual, 1.0);
}

template<typename Real>
void
CheckScaling(SparseSolver solver, double tolerance)
{
  Problem<Real> p = MakeProblem<Real>({ 300 }, 0.5, 12, 51);
  SparseRecoveryParameters parameters;
  parameters.solver = solver;
  parameters.relativeAlpha = 0.01;
  // A fixed count (the only check is at the last iteration): the iterates themselves must scale.
  parameters.maximumIterations = 400;
  parameters.checkInterval = 400;
  std::vector<Real> x, xs;
  const SparseRecoveryReport report = Recover(p, parameters, x);
  for (Real & v : p.y)
    v *= Real(1000);
  const SparseRecoveryReport scaled = Recover(p, parameters, xs);
  EXPECT_EQ(report.iterations, scaled.iterations);
  std::vector<double> expected(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    expected[i] = 1000.0 * double(x[i]);
  EXPECT_LT(RelativeDifference(xs, expected), tolerance) << ToString(solver);
  EXPECT_NEAR(scaled.alphaMax, 1000.0 * report.alphaMax, 1e-5 * scaled.alphaMax);
  // The gap at its rounding floor in float (about 1e-5 here, see gapTolerance).
  EXPECT_NEAR(scaled.relativeGap, report.relativeGap, sizeof(Real) == 8 ? 1e-9 : 1e-4);
}

// y -> 1000 y gives x -> 1000 x: alpha is relative to ||A^T y||_inf, the step and sigma to ||A||^2.
TEST(SparseRecovery, ScalingTheMeasurementsScalesTheSolution)
{
  for (const SparseSolver solver : { SparseSolver::CPISTA, SparseSolver::FISTA, SparseSolver::CPADMM })
  {
    CheckScaling<float>(solver, 1e-5);
    CheckScaling<double>(solver, 1e-12);
  }
}

TEST(SparseRecovery, TruthStopsTheRunAndZeroMeasurementsGiveZero)
{
  const Problem<double> p = MakeProblem<double>({ 200 }, 0.5, 8, 61);
  SparseRecoveryParameters parameters;
  parameters.relativeAlpha = 1e-3;
  std::vector<double> x(200, 0.0);
  SparseRecoveryTruth<double> truth;
  truth.truth = p.truth.data();
  truth.targetRelativeError = 1e-2;
  const SparseRecoveryReport report =
    RecoverSparse(p.sensing, p.y.data(), x.data(), parameters, MakeExecution(Backend::CPU), {}, {}, truth);
  EXPECT_EQ(report.stop, SparseStop::TruthReached);
  EXPECT_LE(report.relativeError, 1e-2);
  EXPECT_NEAR(RelativeDifference(x, p.truth), report.relativeError, 1e-9);
  EXPECT_EQ(report.iterations % parameters.checkInterval, 0u);
  EXPECT_EQ(report.converged, report.relativeGap < parameters.gapTolerance);
  EXPECT_EQ(report.warnings.size(), report.converged ? 0u : 1u);

  const std::vector<double> zero(200, 0.0);
  std::vector<double> out(200, 5.0);
  const SparseRecoveryReport none =
    RecoverSparse(p.sensing, zero.data(), out.data(), parameters, MakeExecution(Backend::CPU));
  EXPECT_TRUE(none.converged);
  EXPECT_EQ(none.nonzeros, 0u);
  EXPECT_EQ(out, zero);
  ASSERT_EQ(none.warnings.size(), 1u);
  EXPECT_NE(none.warnings[0].find("all 0"), std::string::npos);
}

TEST(SparseRecovery, NotConvergedSaysSo)
{
  const Problem<float> p = MakeProblem<float>({ 128 }, 0.5, 6, 71);
  SparseRecoveryParameters parameters;
  parameters.maximumIterations = 7;
  std::vector<float> x;
  const SparseRecoveryReport report = Recover(p, parameters, x);
  EXPECT_FALSE(report.converged);
  EXPECT_EQ(report.stop, SparseStop::MaximumIterations);
  EXPECT_EQ(report.iterations, 7u);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("not converged"), std::string::npos);
  // The last iteration is always measured.
  EXPECT_TRUE(std::isfinite(report.history.back().relativeGap));
  EXPECT_TRUE(std::isfinite(report.relativeGap));
}

TEST(SparseRecovery, DeblursSparseImageFromCompressedMeasurements)
{
  // The application of [Fiandrotti2018, §5]: point sources, blurred by a PSF and sensed at half the pixels.
  CirculantSensing sensing = MakeGaussianCirculantSensing({ 32, 32 }, 0.5, 81);
  sensing.psfSize = { 5, 5 };
  sensing.psf = TestPSF(sensing.psfSize);
  const std::vector<double> truth = SparseSignal<double>(sensing.Count(), 20, 82, true);
  std::vector<double> y(sensing.Count()), x(sensing.Count());
  MeasureCirculant(sensing, truth.data(), y.data(), MakeExecution(Backend::CPU));
  SparseRecoveryParameters parameters;
  parameters.relativeAlpha = 1e-3;
  parameters.nonnegative = true;
  parameters.maximumIterations = 20000;
  const SparseRecoveryReport report =
    RecoverSparse(sensing, y.data(), x.data(), parameters, MakeExecution(Backend::CPU));
  EXPECT_TRUE(report.converged);
  EXPECT_LT(RelativeDifference(x, truth), 1e-2);
}

TEST(SparseRecovery, CallbacksReportProgressAndAbort)
{
  const Problem<float> p = MakeProblem<float>({ 128 }, 0.5, 6, 91);
  SparseRecoveryParameters parameters;
  parameters.maximumIterations = 50;
  std::vector<float> x(128, 7.0f);
  unsigned calls = 0, last = 0;
  const auto progress = [&](const Progress & pr)
  {
    ++calls;
    EXPECT_EQ(pr.maximum, 50u);
    EXPECT_GT(pr.done, last);
    last = pr.done;
    return true;
  };
  const SparseRecoveryReport report =
    RecoverSparse(p.sensing, p.y.data(), x.data(), parameters, MakeExecution(Backend::CPU), progress);
  EXPECT_EQ(calls, report.iterations);
  std::fill(x.begin(), x.end(), 7.0f);
  EXPECT_THROW(RecoverSparse(p.sensing,
                             p.y.data(),
                             x.data(),
                             parameters,
                             MakeExecution(Backend::CPU),
                             {},
                             [](const SparseIterationInfo & info) { return info.iteration < 3; }),
               Aborted);
  EXPECT_THROW(RecoverSparse(p.sensing,
                             p.y.data(),
                             x.data(),
                             parameters,
                             MakeExecution(Backend::CPU),
                             [](const Progress & pr) { return pr.done < 5; }),
               Aborted);
  // x is written only by a run that succeeds.
  for (float v : x)
    EXPECT_EQ(v, 7.0f);
}

TEST(SparseRecovery, BadInputIsRejected)
{
  const Problem<double> p = MakeProblem<double>({ 64 }, 0.5, 3, 101);
  std::vector<double> x(64);
  const auto expectInvalid = [&](const SparseRecoveryParameters & parameters, const char * what)
  {
    try
    {
      RecoverSparse(p.sensing, p.y.data(), x.data(), parameters, MakeExecution(Backend::CPU));
      ADD_FAILURE() << "accepted: " << what;
    }
    catch (const InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const SparseRecoveryParameters good;
  SparseRecoveryParameters b = good;
  b.relativeAlpha = 0.0;
  expectInvalid(b, "relativeAlpha");
  b.relativeAlpha = 1.0;
  expectInvalid(b, "relativeAlpha");
  b = good;
  b.alpha = -1.0;
  expectInvalid(b, "alpha");
  b = good;
  b.alpha = std::nan("");
  expectInvalid(b, "alpha");
  b = good;
  b.step = -1.0;
  expectInvalid(b, "step");
  b = good;
  b.solver = SparseSolver::FISTA; // the step is CPISTA/FISTA's
  b.step = 1e6;                   // beyond 2 / ||A||^2
  expectInvalid(b, "step");
  b = good;
  b.rho = -1.0; // 0 is automatic
  expectInvalid(b, "rho");
  b = good;
  b.relativeSigma = -1.0;
  expectInvalid(b, "relativeSigma");
  b = good;
  b.dualStep = 2.0;
  expectInvalid(b, "dualStep");
  b = good;
  b.tolerance = 0.0;
  expectInvalid(b, "tolerance");
  b = good;
  b.gapTolerance = std::numeric_limits<double>::infinity();
  expectInvalid(b, "gapTolerance");
  b = good;
  b.maximumIterations = 0;
  expectInvalid(b, "maximumIterations");
  b = good;
  b.checkInterval = 0;
  expectInvalid(b, "checkInterval");
  b = good;
  b.solver = static_cast<SparseSolver>(7);
  expectInvalid(b, "solver");

  std::vector<double> bad = p.y;
  for (std::size_t i = 0; i < 64; ++i)
    if (p.sensing.mask[i])
    {
      bad[i] = std::nan("");
      break;
    }
  EXPECT_THROW(RecoverSparse(p.sensing, bad.data(), x.data(), good, MakeExecution(Backend::CPU)), InvalidArgument);
  // NaN outside the mask is ignored, as every value there.
  bad = p.y;
  for (std::size_t i = 0; i < 64; ++i)
    if (!p.sensing.mask[i])
      bad[i] = std::nan("");
  EXPECT_NO_THROW(RecoverSparse(p.sensing, bad.data(), x.data(), good, MakeExecution(Backend::CPU)));
  EXPECT_THROW(
    RecoverSparse(p.sensing, static_cast<const double *>(nullptr), x.data(), good, MakeExecution(Backend::CPU)),
    InvalidArgument);
  EXPECT_THROW(RecoverSparse(p.sensing, p.y.data(), static_cast<double *>(nullptr), good, MakeExecution(Backend::CPU)),
               InvalidArgument);
  CirculantSensing empty = p.sensing;
  empty.mask.assign(64, 0);
  EXPECT_THROW(RecoverSparse(empty, p.y.data(), x.data(), good, MakeExecution(Backend::CPU)), InvalidArgument);
  CirculantSensing zeroPSF = p.sensing;
  zeroPSF.psf = { 1.0, -1.0 };
  zeroPSF.psfSize = { 2 };
  EXPECT_THROW(RecoverSparse(zeroPSF, p.y.data(), x.data(), good, MakeExecution(Backend::CPU)), InvalidArgument);
  SparseRecoveryTruth<double> truth;
  const std::vector<double> zero(64, 0.0);
  truth.truth = zero.data();
  EXPECT_THROW(RecoverSparse(p.sensing, p.y.data(), x.data(), good, MakeExecution(Backend::CPU), {}, {}, truth),
               InvalidArgument);
  truth.truth = p.truth.data();
  truth.targetRelativeError = -1.0;
  EXPECT_THROW(RecoverSparse(p.sensing, p.y.data(), x.data(), good, MakeExecution(Backend::CPU), {}, {}, truth),
               InvalidArgument);

  EXPECT_EQ(ParseSparseSolver("ISTA"), SparseSolver::CPISTA);
  EXPECT_EQ(ParseSparseSolver("fista"), SparseSolver::FISTA);
  EXPECT_EQ(ParseSparseSolver("Admm"), SparseSolver::CPADMM);
  EXPECT_THROW(ParseSparseSolver("lasso"), InvalidArgument);
  EXPECT_EQ(ParseSparseThreshold("paper"), SparseThreshold::PaperLiteral);
  EXPECT_EQ(ParseSparseThreshold("Proximal"), SparseThreshold::Proximal);
  EXPECT_THROW(ParseSparseThreshold("hard"), InvalidArgument);
  EXPECT_STREQ(ToString(SparseSolver::CPADMM), "CPADMM");
  EXPECT_STREQ(ToString(SparseThreshold::PaperLiteral), "PaperLiteral");
}

// SparseThreshold::PaperLiteral thresholds at alpha itself [Fiandrotti2018, Algorithm 1]: the LASSO of weight
// alpha / step, whose gap the report measures.
TEST(SparseRecovery, PaperLiteralThresholdSolvesTheScaledLasso)
{
  const Problem<double> p = MakeProblem<double>({ 128 }, 0.5, 5, 111);
  SparseRecoveryParameters literal;
  literal.solver = SparseSolver::CPISTA;
  literal.threshold = SparseThreshold::PaperLiteral;
  literal.maximumIterations = 20000;
  std::vector<double> a, b;
  const SparseRecoveryReport r1 = Recover(p, literal, a);
  ASSERT_TRUE(r1.converged);
  SparseRecoveryParameters proximal = literal;
  proximal.threshold = SparseThreshold::Proximal;
  proximal.alpha = r1.alpha / r1.step;
  proximal.tolerance = 1e-9;
  const SparseRecoveryReport r2 = Recover(p, proximal, b);
  ASSERT_TRUE(r2.converged);
  EXPECT_LT(RelativeDifference(a, b), 1e-3);
}

} // namespace
} // namespace gpur
