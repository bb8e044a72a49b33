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
CheckExactRecovery(SparseSolver solver, double fraction, double relativeAlpha, unsigned trials, double tolerance)
{
  const std::size_t n = 512, k = std::size_t(std::lround(fraction * n));
  for (unsigned trial = 0; trial < trials; ++trial)
  {
    const Problem<Real> p = MakeProblem<Real>({ n }, 0.5, k, 100 + trial);
    SparseRecoveryParameters parameters;
    parameters.solver = solver;
    parameters.relativeAlpha = relativeAlpha;
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

TEST(SparseRecovery, ExactRecoveryAtHalfSamplingCPADMM)
{
  for (double fraction : { 0.05, 0.10 })
    CheckExactRecovery<double>(SparseSolver::CPADMM, fraction, 1e-5, 3, 1e-4);
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
