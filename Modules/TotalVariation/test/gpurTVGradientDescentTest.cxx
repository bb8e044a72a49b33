// SPDX-License-Identifier: Apache-2.0
// Tests of the TV gradient-descent engine (no ITK): the gradient against finite
// differences of TV, the invariants (zero-sum gradient, mean, step length),
// the residual-target stop, CPU vs OpenCL, AW-TV's limit, semi-convergence on
// a noisy phantom, slice ranges of the stepper interface, parameter checks.
#include "gpurAutoTesting.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTVGDStepper.h"
#include "gpurTVGradientDescent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using gpur::Backend;
using gpur::Grid;
using gpur::TVGDParameters;
using gpur::TVGDStepUnit;
using gpur::TVGDVariant;

namespace
{

template<typename Real>
std::vector<Real>
RandomImage(const Grid & grid, unsigned seed)
{
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<Real> v(grid.Count());
  for (auto & x : v)
    x = static_cast<Real>(uniform(rng));
  return v;
}

TVGDParameters
Fixed(double lambda, unsigned iterations, TVGDVariant variant = TVGDVariant::TV, double delta = 0.1)
{
  TVGDParameters p;
  p.lambda = lambda;
  p.iterations = iterations;
  p.variant = variant;
  p.delta = delta;
  return p;
}

template<typename Real>
std::vector<Real>
Denoise(const std::vector<Real> & f,
        const Grid & grid,
        const TVGDParameters & p,
        Backend backend,
        gpur::TVGDReport * report = nullptr)
{
  std::vector<Real> u(f.size());
  const auto r = gpur::DenoiseTVGD(f.data(), u.data(), grid, p, gpur::MakeExecution(backend));
  EXPECT_EQ(r.backend.backend, backend);
  if (report)
    *report = r;
  return u;
}

template<typename Real>
double
L2Distance(const std::vector<Real> & a, const std::vector<Real> & b)
{
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    const double d = static_cast<double>(a[i]) - b[i];
    s += d * d;
  }
  return std::sqrt(s);
}

template<typename Real>
double
Mean(const std::vector<Real> & v)
{
  double s = 0.0;
  for (Real x : v)
    s += x;
  return s / static_cast<double>(v.size());
}

double
Rmse(const std::vector<float> & a, const std::vector<float> & b)
{
  return std::sqrt(gpur::MeanSquaredError(a.data(), b.data(), a.size()));
}

std::string
Format(double v)
{
  std::ostringstream os;
  os.precision(4);
  os << v;
  return os.str();
}

const Grid kAnisotropic = gpur::MakeGrid3D(11, 9, 7, 0.7, 1.3, 2.1);

} // namespace

TEST(TVGD, GradientMatchesFiniteDifferencesOfTV)
{
  for (const Grid & grid : { kAnisotropic, gpur::MakeGrid2D(13, 10, 1.6, 0.5) })
  {
    std::vector<double> u = RandomImage<double>(grid, 3);
    std::vector<double> g(u.size());
    gpur::TVGradient(u.data(), g.data(), grid, TVGDParameters());
    const double h = 1e-6;
    double maxError = 0.0, maxG = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i)
    {
      const double keep = u[i];
      u[i] = keep + h;
      const double plus = gpur::TotalVariationBackward(u.data(), grid);
      u[i] = keep - h;
      const double minus = gpur::TotalVariationBackward(u.data(), grid);
      u[i] = keep;
      maxError = std::max(maxError, std::abs((plus - minus) / (2 * h) - g[i]));
      maxG = std::max(maxG, std::abs(g[i]));
    }
    RecordProperty("relativeError" + std::to_string(grid.dimension) + "D", Format(maxError / maxG));
    EXPECT_LT(maxError, 1e-5 * maxG) << grid.ToString() << ": max |g - FD| " << maxError << ", max |g| " << maxG;
  }
}

TEST(TVGD, GradientSumsToZeroAndTheMeanIsPreserved)
{
  const std::vector<double> u = RandomImage<double>(kAnisotropic, 5);
  for (TVGDVariant variant : { TVGDVariant::TV, TVGDVariant::AdaptiveWeightedTV })
  {
    std::vector<double> g(u.size());
    gpur::TVGradient(u.data(), g.data(), kAnisotropic, Fixed(1.0, 1, variant, 0.3));
    double sum = 0.0, sumAbs = 0.0;
    for (double x : g)
    {
      sum += x;
      sumAbs += std::abs(x);
    }
    EXPECT_LT(std::abs(sum), 1e-13 * sumAbs) << variant;
  }
  const Grid grid = gpur::MakeGrid3D(24, 20, 16, 1.0, 1.0, 2.0);
  const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 11);
  for (Backend b : { Backend::CPU, Backend::OpenCL })
    for (TVGDVariant variant : { TVGDVariant::TV, TVGDVariant::AdaptiveWeightedTV })
    {
      const auto u = Denoise(f, grid, Fixed(3.0, 40, variant, 0.2), b);
      EXPECT_NEAR(Mean(u), Mean(f), 1e-6 * std::abs(Mean(f))) << b << " " << variant;
    }
}

TEST(TVGD, EachIterationMovesUByLambda)
{
  const Grid grid = gpur::MakeGrid3D(20, 18, 12, 1.0, 0.8, 1.5);
  const std::vector<float> ff = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 2);
  const std::vector<double> f(ff.begin(), ff.end());
  double maxDeviation = 0.0;
  for (Backend b : { Backend::CPU, Backend::OpenCL })
    for (TVGDStepUnit unit : { TVGDStepUnit::L2Norm, TVGDStepUnit::RMS })
    {
      TVGDParameters p = Fixed(unit == TVGDStepUnit::RMS ? 0.01 : 1.5, 1);
      p.stepUnit = unit;
      const double lambda = unit == TVGDStepUnit::RMS ? 0.01 * std::sqrt(double(grid.Count())) : 1.5;
      std::vector<double> u = f;
      for (unsigned k = 0; k < 8; ++k)
      {
        const std::vector<double> before = u;
        const auto report = gpur::ContinueTVGD(f.data(), u.data(), grid, p, gpur::MakeExecution(b));
        EXPECT_EQ(report.iterations, 1u);
        EXPECT_DOUBLE_EQ(report.stepLength, lambda);
        const double deviation = std::abs(L2Distance(u, before) / lambda - 1.0);
        maxDeviation = std::max(maxDeviation, deviation);
        EXPECT_LT(deviation, 1e-5) << b << " " << unit << " k " << k;
        EXPECT_NEAR(report.residual, L2Distance(u, f), 1e-9 * report.residual);
      }
    }
  RecordProperty("maxStepDeviationDouble", Format(maxDeviation));
  // Float: rounding u - s du to float blurs the step length slightly (measured 5e-8).
  maxDeviation = 0.0;
  for (Backend b : { Backend::CPU, Backend::OpenCL })
  {
    std::vector<float> u = ff;
    for (unsigned k = 0; k < 5; ++k)
    {
      const std::vector<float> before = u;
      gpur::ContinueTVGD(ff.data(), u.data(), grid, Fixed(1.5, 1), gpur::MakeExecution(b));
      const double deviation = std::abs(L2Distance(u, before) / 1.5 - 1.0);
      maxDeviation = std::max(maxDeviation, deviation);
      EXPECT_LT(deviation, 1e-5) << b << " k " << k;
    }
  }
  RecordProperty("maxStepDeviationFloat", Format(maxDeviation));
}

TEST(TVGD, ConsecutiveCallsEqualOneRun)
{
  const Grid grid = gpur::MakeGrid3D(17, 15, 9);
  const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 4);
  for (Backend b : { Backend::CPU, Backend::OpenCL })
  {
    const auto once = Denoise(f, grid, Fixed(2.0, 12, TVGDVariant::AdaptiveWeightedTV, 0.2), b);
    std::vector<float> u = f;
    for (unsigned n : { 5u, 4u, 3u })
    {
      gpur::ContinueTVGD(
        f.data(), u.data(), grid, Fixed(2.0, n, TVGDVariant::AdaptiveWeightedTV, 0.2), gpur::MakeExecution(b));
    }
    EXPECT_EQ(u, once) << b; // bit for bit
  }
}

TEST(TVGD, ResidualTargetStopsAtTheFirstIterationReachingIt)
{
  const Grid grid = gpur::MakeGrid3D(24, 22, 14);
  const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 9);
  for (Backend b : { Backend::CPU, Backend::OpenCL })
  {
    // The residual after each of 30 iterations.
    std::vector<double> residual;
    std::vector<float> u = f;
    for (unsigned k = 0; k < 30; ++k)
    {
      residual.push_back(gpur::ContinueTVGD(f.data(), u.data(), grid, Fixed(1.0, 1), gpur::MakeExecution(b)).residual);
      if (k > 0)
      {
        EXPECT_GE(residual[k], residual[k - 1]) << "||u - f|| is non-decreasing";
      }
    }
    for (unsigned stop : { 1u, 17u, 30u })
      for (double target : { residual[stop - 1], 0.5 * (residual[stop - 1] + (stop > 1 ? residual[stop - 2] : 0.0)) })
      {
        TVGDParameters p = Fixed(1.0, 100);
        p.targetResidual = target;
        gpur::TVGDReport report;
        const auto v = Denoise(f, grid, p, b, &report);
        EXPECT_TRUE(report.targetReached);
        EXPECT_EQ(report.iterations, stop) << b << " target " << target;
        EXPECT_EQ(report.residual, residual[stop - 1]);
        EXPECT_EQ(v, Denoise(f, grid, Fixed(1.0, stop), b)) << "the same u as a fixed run";
      }
    // Not reached within the maximum: all iterations, reported as such.
    TVGDParameters p = Fixed(1.0, 30);
    p.targetResidual = residual.back() * 1.01;
    gpur::TVGDReport report;
    Denoise(f, grid, p, b, &report);
    EXPECT_FALSE(report.targetReached);
    EXPECT_EQ(report.iterations, 30u);
    EXPECT_EQ(report.residual, residual.back());
    // Continuing from a u that already reaches the target does nothing.
    p.targetResidual = residual[9];
    std::vector<float> w = Denoise(f, grid, Fixed(1.0, 10), b);
    const auto copy = w;
    report = gpur::ContinueTVGD(f.data(), w.data(), grid, p, gpur::MakeExecution(b));
    EXPECT_TRUE(report.targetReached);
    EXPECT_EQ(report.iterations, 0u);
    EXPECT_EQ(w, copy);
  }
}

TEST(TVGD, CPUAndOpenCLAgree)
{
  for (const Grid & grid : { gpur::MakeGrid3D(40, 36, 28, 1.0, 1.0, 1.6), gpur::MakeGrid2D(64, 48, 0.5, 0.7) })
    for (TVGDVariant variant : { TVGDVariant::TV, TVGDVariant::AdaptiveWeightedTV })
    {
      const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 21);
      TVGDParameters p = Fixed(0.004, 30, variant, 0.3);
      p.stepUnit = TVGDStepUnit::RMS;
      gpur::TVGDReport cpuReport, oclReport;
      const auto cpu = Denoise(f, grid, p, Backend::CPU, &cpuReport);
      const auto ocl = Denoise(f, grid, p, Backend::OpenCL, &oclReport);
      const double diff = gpur::MaxAbsDifference(cpu.data(), ocl.data(), cpu.size());
      RecordProperty("maxAbs" + std::to_string(grid.dimension) + "D" + gpur::ToString(variant), Format(diff));
      EXPECT_LE(diff, 1e-5) << grid.ToString() << " " << variant;
      EXPECT_NEAR(cpuReport.residual, oclReport.residual, 1e-5 * cpuReport.residual);
      EXPECT_NEAR(cpuReport.gradientNorm, oclReport.gradientNorm, 1e-4 * cpuReport.gradientNorm);
    }
}

TEST(TVGD, AutoRunsTheFasterBackendAsMeasured)
{
  GPUR_REQUIRE_AUTO_MEASURING();
  const gpur::testing::AutoRuleScope rule;
  const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(kAnisotropic), 0.1, 3);
  std::vector<float> u(f.size());
  const auto r = gpur::DenoiseTVGD(f.data(), u.data(), kAnisotropic, Fixed(0.5, 5), gpur::MakeExecution(Backend::Auto));
  gpur::testing::ExpectMeasuredChoice(r.backend, "TV-GD 3D float32 on 11x9x7 voxels");
  EXPECT_EQ(u, Denoise(f, kAnisotropic, Fixed(0.5, 5), r.backend.backend)) << "the chosen backend's result";
}

TEST(TVGD, AdaptiveWeightsTendToPlainTVForLargeDelta)
{
  const Grid grid = gpur::MakeGrid3D(24, 24, 16, 1.0, 1.0, 1.5);
  const std::vector<float> ff = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 5);
  const std::vector<double> f(ff.begin(), ff.end());
  const auto plain = Denoise(f, grid, Fixed(2.0, 20), Backend::CPU);
  // delta = +inf: the weights are exactly 1, the same run bit for bit.
  EXPECT_EQ(Denoise(f, grid, Fixed(2.0, 20, TVGDVariant::AdaptiveWeightedTV, HUGE_VAL), Backend::CPU), plain);
  // w = exp(-(d/delta)^2) = 1 - (d/delta)^2 + ...: the difference falls as 1/delta^2.
  double previous = HUGE_VAL;
  for (double delta : { 0.1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e5 })
  {
    const auto aw = Denoise(f, grid, Fixed(2.0, 20, TVGDVariant::AdaptiveWeightedTV, delta), Backend::CPU);
    const double diff = gpur::MaxAbsDifference(aw.data(), plain.data(), aw.size());
    RecordProperty("maxAbsDelta" + Format(delta), Format(diff));
    EXPECT_LT(diff, previous) << "delta " << delta;
    if (delta == 0.1)
    {
      EXPECT_GT(diff, 0.1) << "a small delta changes the result";
    }
    if (delta >= 1e3)
    {
      EXPECT_NEAR(previous / diff, 100.0, 20.0) << "quadratic in 1/delta at delta " << delta;
    }
    previous = diff;
  }
  EXPECT_LT(previous, 1e-8) << "delta 1e5";
}

TEST(TVGD, SemiConvergenceOnANoisyPhantom)
{
  // As in [Huang2023, §6.2.2, Fig. 6.4]: the error to the truth falls to a
  // minimum below the noisy error, then rises as TV-GD over-smooths.
  const Grid grid = gpur::MakeGrid3D(48, 48, 48);
  const std::vector<float> truth = gpur::SheppLoganPhantom(grid);
  const std::vector<float> f = gpur::AddGaussianNoise(truth, 0.1, 7);
  const double noisy = Rmse(f, truth);
  TVGDParameters p = Fixed(0.004, 1); // λ_rms 0.004: λ = 0.004 sqrt(48^3) = 1.33
  p.stepUnit = TVGDStepUnit::RMS;
  std::vector<float> u = f;
  std::vector<double> error;
  for (unsigned k = 0; k < 80; ++k)
  {
    gpur::ContinueTVGD(f.data(), u.data(), grid, p, gpur::MakeExecution(Backend::CPU));
    error.push_back(Rmse(u, truth));
  }
  const auto best = std::min_element(error.begin(), error.end());
  const unsigned kBest = static_cast<unsigned>(best - error.begin()) + 1;
  RecordProperty("noisyRMSE", Format(noisy));
  RecordProperty("bestRMSE", Format(*best));
  RecordProperty("bestIteration", static_cast<int>(kBest));
  RecordProperty("RMSEat80", Format(error.back()));
  std::cout << "noisy RMSE " << noisy << ", best " << *best << " at k = " << kBest << ", at k = 80 " << error.back()
            << "\n";
  // Measured (CPU, deterministic): noisy 0.0998, best 0.0396 at k = 26, 0.0731 at k = 80.
  EXPECT_NEAR(noisy, 0.0998, 0.0005);
  EXPECT_NEAR(*best, 0.0396, 0.0010);
  EXPECT_LT(*best, 0.5 * noisy);
  EXPECT_GE(kBest, 23u);
  EXPECT_LE(kBest, 29u);
  EXPECT_NEAR(error.back(), 0.0731, 0.0020);
  for (unsigned k = 1; k < kBest; ++k)
    EXPECT_LT(error[k], error[k - 1]) << "falls until the minimum, k = " << k + 1;
  for (unsigned k = kBest; k < error.size(); ++k)
    EXPECT_GT(error[k], error[k - 1]) << "rises after the minimum, k = " << k + 1;
  EXPECT_GT(error.back(), 1.3 * *best);
}

TEST(TVGD, ConstantImageIsStationary)
{
  for (const Grid & grid : { gpur::MakeGrid2D(20, 13), gpur::MakeGrid3D(9, 8, 7, 1, 2, 3) })
    for (Backend b : { Backend::CPU, Backend::OpenCL })
    {
      const std::vector<float> f(grid.Count(), 0.37f);
      gpur::TVGDReport report;
      const auto u = Denoise(f, grid, Fixed(2.0, 10, TVGDVariant::AdaptiveWeightedTV, 0.1), b, &report);
      EXPECT_EQ(u, f);
      EXPECT_TRUE(report.stationary);
      EXPECT_EQ(report.iterations, 0u);
      EXPECT_EQ(report.residual, 0.0);
    }
}

TEST(TVGD, SliceRangesOfTheStepperComposeToTheWholeGrid)
{
  // The per-iteration work splits into gradient + partial sum over slice ranges
  // and the update; a two-slab driver with one halo slice per inner side,
  // summing only the interiors' partials, reproduces the whole-grid run.
  const Grid grid = gpur::MakeGrid3D(14, 12, 10, 1.0, 1.2, 0.9);
  const std::vector<float> ff = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 8);
  // Halved into (0.5, 1], where the driver solves as it is (it divides other images by a power of two).
  std::vector<double> f(ff.size());
  std::transform(ff.begin(), ff.end(), f.begin(), [](float v) { return 0.5 * v; });
  ASSERT_GT(*std::max_element(f.begin(), f.end()), 0.5);
  ASSERT_LE(*std::max_element(f.begin(), f.end()), 1.0);
  const std::size_t slice = grid.size[0] * grid.size[1], nz = grid.size[2], cut = 4;
  const gpur::TVGDStencilConstants constants;
  const unsigned iterations = 6;
  const double lambda = 1.2;
  for (Backend b : { Backend::CPU, Backend::OpenCL })
  {
    auto make = [&](const double * fp, const Grid & g)
    {
      return b == Backend::CPU ? gpur::MakeTVGDStepperCPU(fp, g, constants, gpur::MakeThreadParallelFor())
                               : gpur::MakeTVGDStepperOpenCL(
                                   fp, g, constants, gpur::ResolveBackend(gpur::MakeExecution(b), true).device);
    };
    // Sums over split ranges add up; Store/Load touch only their slices.
    auto whole = make(f.data(), grid);
    whole->Initialize();
    const double all = whole->Gradient(0, nz);
    const double split = whole->Gradient(0, cut) + whole->Gradient(cut, nz - cut);
    EXPECT_NEAR(split, all, 1e-12 * all);
    std::vector<double> marker(f.size(), -1.0);
    whole->Store(marker.data(), 2, 3);
    for (std::size_t i = 0; i < marker.size(); ++i)
      ASSERT_EQ(marker[i], (i >= 2 * slice && i < 5 * slice) ? f[i] : -1.0) << i;

    // Reference: the driver's loop on the whole grid.
    std::vector<double> reference(f.size());
    gpur::DenoiseTVGD(f.data(), reference.data(), grid, Fixed(lambda, iterations), gpur::MakeExecution(b));

    // Two slabs: [0, cut + 1) with an upper halo slice, [cut - 1, nz) with a lower one.
    const Grid lowGrid = gpur::MakeGrid3D(grid.size[0], grid.size[1], cut + 1, 1.0, 1.2, 0.9);
    const Grid highGrid = gpur::MakeGrid3D(grid.size[0], grid.size[1], nz - cut + 1, 1.0, 1.2, 0.9);
    const double * fHigh = f.data() + (cut - 1) * slice;
    auto low = make(f.data(), lowGrid), high = make(fHigh, highGrid);
    low->Initialize();
    high->Initialize();
    std::vector<double> u(f.size());
    for (unsigned k = 0; k < iterations; ++k)
    {
      const double norm = std::sqrt(low->Gradient(0, cut) + high->Gradient(1, nz - cut));
      low->Update(lambda / norm, 0, cut, false);
      high->Update(lambda / norm, 1, nz - cut, false);
      // Halo exchange: each slab's interior slice next to the cut goes to the other's halo.
      low->Store(u.data(), 0, cut);
      high->Store(u.data() + (cut - 1) * slice, 1, nz - cut);
      low->Load(u.data(), cut, 1);
      high->Load(u.data() + (cut - 1) * slice, 0, 1);
    }
    EXPECT_LT(gpur::MaxAbsDifference(u.data(), reference.data(), u.size()), 1e-12) << b;
  }
}

TEST(TVGD, ProgressAndAbort)
{
  const Grid grid = gpur::MakeGrid2D(32, 32);
  const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 3);
  for (Backend b : { Backend::CPU, Backend::OpenCL })
  {
    std::vector<unsigned> seen;
    std::vector<float> u(f.size());
    gpur::DenoiseTVGD(f.data(),
                      u.data(),
                      grid,
                      Fixed(1.0, 7),
                      gpur::MakeExecution(b),
                      [&](const gpur::Progress & progress)
                      {
                        EXPECT_EQ(progress.maximum, 7u);
                        EXPECT_DOUBLE_EQ(progress.fraction, progress.done / 7.0);
                        seen.push_back(progress.done);
                        return true;
                      });
    EXPECT_EQ(seen, (std::vector<unsigned>{ 1, 2, 3, 4, 5, 6, 7 }));

    std::fill(u.begin(), u.end(), -7.0f);
    unsigned calls = 0;
    EXPECT_THROW(gpur::DenoiseTVGD(f.data(),
                                   u.data(),
                                   grid,
                                   Fixed(1.0, 50),
                                   gpur::MakeExecution(b),
                                   [&](const gpur::Progress & progress)
                                   {
                                     ++calls;
                                     return progress.done < 3;
                                   }),
                 gpur::Aborted);
    EXPECT_EQ(calls, 3u);
    EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](float v) { return v == -7.0f; })) << "output untouched on abort";
  }
}

TEST(TVGD, BadInputIsRefusedWithAClearMessage)
{
  const Grid grid = gpur::MakeGrid2D(8, 8);
  std::vector<float> f(64, 1.0f), u(64, 1.0f);
  auto expectMessage = [&](const TVGDParameters & p,
                           const Grid & g,
                           const std::vector<float> & in,
                           const std::string & text,
                           const gpur::ExecutionOptions & e = gpur::ExecutionOptions())
  {
    try
    {
      gpur::DenoiseTVGD(in.data(), u.data(), g, p, e);
      FAIL() << "expected InvalidArgument mentioning '" << text << "'";
    }
    catch (const gpur::InvalidArgument & err)
    {
      EXPECT_NE(std::string(err.what()).find(text), std::string::npos) << err.what();
    }
  };
  for (double lambda : { 0.0, -1.0, std::nan(""), HUGE_VAL })
    expectMessage(Fixed(lambda, 10), grid, f, "lambda");
  expectMessage(Fixed(1.0, 0), grid, f, "iterations");
  for (double delta : { 0.0, -0.5, std::nan("") })
    expectMessage(Fixed(1.0, 10, TVGDVariant::AdaptiveWeightedTV, delta), grid, f, "delta");
  EXPECT_NO_THROW(Fixed(1.0, 10, TVGDVariant::TV, -1.0).Validate()) << "plain TV ignores delta";
  for (double target : { -1.0, std::nan(""), HUGE_VAL })
  {
    TVGDParameters p = Fixed(1.0, 10);
    p.targetResidual = target;
    expectMessage(p, grid, f, "target");
  }
  const TVGDParameters p = Fixed(1.0, 10);
  expectMessage(p, gpur::MakeGrid2D(0, 8), f, "empty");
  expectMessage(p, gpur::MakeGrid3D(1, 1, 1), f, "single voxel");
  expectMessage(p, gpur::MakeGrid2D(8, 8, 0.0, 1.0), f, "spacing");
  std::vector<float> bad = f;
  bad[17] = std::numeric_limits<float>::quiet_NaN();
  expectMessage(p, grid, bad, "non-finite");
  gpur::ExecutionOptions e;
  e.backend = Backend::OpenCL;
  e.device = "no-such-device-xyz";
  expectMessage(p, grid, f, "matches no device", e);
  EXPECT_THROW(gpur::DenoiseTVGD<float>(nullptr, u.data(), grid, p), gpur::InvalidArgument);
  EXPECT_THROW(gpur::DenoiseTVGD<float>(f.data(), nullptr, grid, p), gpur::InvalidArgument);
  try
  {
    gpur::ContinueTVGD(f.data(), bad.data(), grid, p);
    FAIL() << "expected InvalidArgument for a NaN in the starting u";
  }
  catch (const gpur::InvalidArgument & err)
  {
    EXPECT_NE(std::string(err.what()).find("starting image"), std::string::npos) << err.what();
  }
  EXPECT_EQ(gpur::ParseTVGDVariant("AWTV"), TVGDVariant::AdaptiveWeightedTV);
  EXPECT_EQ(gpur::ParseTVGDVariant("tv"), TVGDVariant::TV);
  EXPECT_THROW(gpur::ParseTVGDVariant("tgv"), gpur::InvalidArgument);
  EXPECT_EQ(gpur::ParseTVGDStepUnit("RMS"), TVGDStepUnit::RMS);
  EXPECT_THROW(gpur::ParseTVGDStepUnit("linf"), gpur::InvalidArgument);
}

TEST(TVGD, DoubleOnADeviceWithoutFp64IsRefused)
{
  gpur::DeviceInfo fake = gpur::ListDevices().front();
  fake.fp64 = false;
  const Grid grid = gpur::MakeGrid3D(8, 8, 4);
  const std::vector<double> f(grid.Count(), 1.0);
  try
  {
    gpur::MakeTVGDStepperOpenCL(f.data(), grid, gpur::TVGDStencilConstants(), fake);
    FAIL() << "expected InvalidArgument";
  }
  catch (const gpur::InvalidArgument & e)
  {
    EXPECT_NE(std::string(e.what()).find("fp64"), std::string::npos) << e.what();
  }
  // Float on the same device is fine.
  const std::vector<float> ff(grid.Count(), 1.0f);
  EXPECT_NO_THROW(gpur::MakeTVGDStepperOpenCL(ff.data(), grid, gpur::TVGDStencilConstants(), fake));
}
