// SPDX-License-Identifier: Apache-2.0
// Tests of the statistical TV engine: variance weights, the discrepancy
// principle (automatic lambda, its calibrated factor, converged solves, the
// unreachable target), the estimated variance, scale covariance on both
// backends, and the automatic lambda against the PSNR-best lambda on a
// simulated CT scan.
#include "gpurCTPhantom.h"
#include "gpurDevice.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurStatisticalTV.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

using gpur::Grid;
using gpur::StatisticalTVParameters;

namespace
{

/** The phantom with noise whose sigma ramps from sigmaLow (z = 0) to sigmaHigh (last slice). */
struct NoisyVolume
{
  std::vector<float> truth, f, variance;
};

NoisyVolume
MakeVolume(const Grid & grid, double sigmaLow, double sigmaHigh, std::uint64_t seed)
{
  NoisyVolume v;
  v.truth = gpur::SheppLoganPhantom(grid);
  const auto unit = gpur::AddGaussianNoise(std::vector<float>(grid.Count(), 0.0f), 1.0, seed);
  const std::size_t slice = grid.size[0] * grid.size[1];
  v.f.resize(grid.Count());
  v.variance.resize(grid.Count());
  for (std::size_t i = 0; i < grid.Count(); ++i)
  {
    const double t = grid.size[2] > 1 ? double(i / slice) / double(grid.size[2] - 1) : 0.0;
    const double sigma = sigmaLow + t * (sigmaHigh - sigmaLow);
    v.f[i] = float(v.truth[i] + sigma * unit[i]);
    v.variance[i] = float(sigma * sigma);
  }
  return v;
}

double
Discrepancy(const std::vector<float> & u, const std::vector<float> & f, const std::vector<float> & variance)
{
  double s = 0;
  for (std::size_t i = 0; i < u.size(); ++i)
    s += (double(u[i]) - f[i]) * (double(u[i]) - f[i]) / variance[i];
  return s / double(u.size());
}

StatisticalTVParameters
Automatic()
{
  StatisticalTVParameters p;
  p.tv.gapTolerance = 1e-4;
  p.tv.maxIterations = 2000;
  p.automaticLambda = true;
  return p;
}

/**
 * The search ran on converged solves, at gaps within the tolerance: a solve that
 * stopped at the iteration limit was run again at the same lambda, and converged.
 */
void
ExpectConvergedSolves(const gpur::StatisticalTVReport & r, double tolerance)
{
  EXPECT_EQ(r.lambdaHistory.size(), r.solves);
  for (std::size_t k = 0; k < r.lambdaHistory.size(); ++k)
  {
    const auto & s = r.lambdaHistory[k];
    EXPECT_GT(s.iterations, 0u);
    if (!s.converged)
    {
      ASSERT_LT(k + 1, r.lambdaHistory.size()) << "the last solve did not converge";
      EXPECT_EQ(r.lambdaHistory[k + 1].lambda, s.lambda) << "an unconverged solve was not run again";
      continue;
    }
    EXPECT_LE(s.relativeGap, tolerance) << "lambda " << s.lambda;
  }
}

double
PSNR(const std::vector<float> & u, const std::vector<float> & truth)
{
  return gpur::PeakSignalToNoiseRatio(u.data(), truth.data(), u.size(), 1.0);
}

} // namespace

TEST(StatisticalTV, AutomaticLambdaMeetsTheCalibratedDiscrepancyOfWhiteNoise)
{
  const Grid grid = gpur::MakeGrid3D(40, 40, 32);
  const NoisyVolume v = MakeVolume(grid, 0.1, 0.1, 21);
  std::vector<float> u(v.f.size());
  const auto r = gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, Automatic());
  // White noise: the residual gain is about 1 (or, with too few flat tiles to measure it on this small,
  // busy phantom, that of white noise), so the calibrated target is about 0.9.
  EXPECT_NEAR(r.residualGain, 1.0, 0.1);
  EXPECT_NEAR(r.discrepancyTarget, gpur::CalibratedDiscrepancyFactor(r.residualGain), 1e-12);
  EXPECT_NEAR(r.discrepancyTarget, 0.9, 0.03);
  EXPECT_NEAR(Discrepancy(u, v.f, v.variance), r.discrepancyTarget, 0.02 * r.discrepancyTarget);
  EXPECT_NEAR(r.discrepancy, Discrepancy(u, v.f, v.variance), 1e-6 * r.discrepancy); // u rounded to float
  EXPECT_NEAR(r.lambdaHistory.front().lambda, 1.0 / 0.1, 1e-5) << "the search starts at 1 / (sigma h)";
  EXPECT_LE(r.solves, 8u);
  ExpectConvergedSolves(r, 1e-4);
  EXPECT_FALSE(r.varianceEstimated);
  EXPECT_NEAR(r.varianceRange, 1.0, 1e-6);
  EXPECT_GT(PSNR(u, v.truth), PSNR(v.f, v.truth) + 6.0);
  RecordProperty("calibrated",
                 "lambda " + std::to_string(r.lambda) + " discrepancy " + std::to_string(r.discrepancy) + " solves " +
                   std::to_string(r.solves));

  // An explicit factor is met as given (the plain discrepancy principle with 1).
  auto p = Automatic();
  p.discrepancyFactor = 1.0;
  const auto plain = gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, p);
  EXPECT_EQ(plain.discrepancyTarget, 1.0);
  EXPECT_NEAR(Discrepancy(u, v.f, v.variance), 1.0, 0.02);
  EXPECT_LT(plain.lambda, r.lambda) << "a larger residual needs more smoothing";
  ExpectConvergedSolves(plain, 1e-4);
}

TEST(StatisticalTV, AutomaticLambdaWithSpatiallyVaryingVariance)
{
  const Grid grid = gpur::MakeGrid3D(36, 36, 30);
  const NoisyVolume v = MakeVolume(grid, 0.03, 0.15, 22);
  std::vector<float> u(v.f.size());
  auto p = Automatic();
  p.tv.algorithm = gpur::TVAlgorithm::PDU; // S-PDU [Huang2023, Algorithm 3], given the iterations to converge
  p.tv.maxIterations = 5000;
  const auto r = gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, p);
  EXPECT_NEAR(Discrepancy(u, v.f, v.variance), r.discrepancyTarget, 0.02 * r.discrepancyTarget);
  ExpectConvergedSolves(r, 1e-4);
  RecordProperty("varying",
                 "discrepancy " + std::to_string(r.discrepancy) + " solves " + std::to_string(r.solves) +
                   " iterations of the last " + std::to_string(r.tv.iterations));
  EXPECT_NEAR(r.meanVariance, 0.0093, 0.0005); // mean of the ramp's sigma^2
  EXPECT_NEAR(r.varianceRange, 25.0, 0.01);    // (0.15 / 0.03)^2
}

TEST(StatisticalTV, EstimatedVarianceWhenNoneIsGiven)
{
  const Grid grid = gpur::MakeGrid3D(48, 48, 40);
  const NoisyVolume v = MakeVolume(grid, 0.05, 0.12, 23);
  std::vector<float> u(v.f.size());
  const auto r =
    gpur::DenoiseStatisticalTV(v.f.data(), static_cast<const float *>(nullptr), u.data(), grid, Automatic());
  EXPECT_TRUE(r.varianceEstimated);
  EXPECT_TRUE(r.noise.gainMeasured);
  EXPECT_EQ(r.residualGain, r.noise.residualGain);
  double trueMean = 0;
  for (float x : v.variance)
    trueMean += x;
  trueMean /= double(v.variance.size());
  EXPECT_NEAR(r.meanVariance / trueMean, 1.0, 0.1);
  EXPECT_NEAR(Discrepancy(u, v.f, v.variance), r.discrepancyTarget, 0.1); // against the true variance
  RecordProperty("estimated",
                 "mean variance ratio " + std::to_string(r.meanVariance / trueMean) + " true discrepancy " +
                   std::to_string(Discrepancy(u, v.f, v.variance)));
}

TEST(StatisticalTV, ZeroExponentIsPlainTVAndFixedLambdaSolvesOnce)
{
  const Grid grid = gpur::MakeGrid3D(20, 20, 16);
  const NoisyVolume v = MakeVolume(grid, 0.03, 0.15, 24);
  StatisticalTVParameters p;
  p.tv.lambda = 12.0;
  p.weightExponent = 0.0;
  std::vector<float> u(v.f.size()), plain(v.f.size());
  const auto r = gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, p);
  const auto rp = gpur::DenoiseTV(v.f.data(), plain.data(), grid, p.tv);
  // The same model (solved on f / range(f) with lambda range(f)): the same ROF objective to within the
  // gap tolerance of either solve.
  ASSERT_TRUE(r.tv.converged && rp.converged);
  const double a = gpur::ROFObjective(v.f.data(), u.data(), grid, 12.0);
  const double b = gpur::ROFObjective(v.f.data(), plain.data(), grid, 12.0);
  EXPECT_NEAR(a / b, 1.0, 2e-4);
  EXPECT_EQ(r.solves, 1u);
  EXPECT_EQ(r.lambda, 12.0);
  EXPECT_EQ(r.discrepancyTarget, 0.0);
}

TEST(StatisticalTV, BadInputIsRefused)
{
  const Grid grid = gpur::MakeGrid2D(16, 16);
  std::vector<float> f(grid.Count(), 0.5f), u(f.size()), variance(f.size(), 0.01f);
  auto expectInvalid = [&](const StatisticalTVParameters & p, const std::string & words)
  {
    try
    {
      gpur::DenoiseStatisticalTV(f.data(), variance.data(), u.data(), grid, p);
      ADD_FAILURE() << "no exception; expected one naming '" << words << "'";
    }
    catch (const gpur::InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  StatisticalTVParameters p;
  p.weightExponent = -1.0;
  expectInvalid(p, "the weight exponent is -1; allowed: 0 to 2 (");
  p.weightExponent = 1000.0;
  expectInvalid(p, "the weight exponent is 1000; allowed: 0 to 2 (");
  p = StatisticalTVParameters();
  p.discrepancyFactor = -1.0;
  expectInvalid(p, "discrepancy factor");
  p = StatisticalTVParameters();
  p.automaticLambda = true;
  p.tv.gapTolerance = 0.0;
  expectInvalid(p, "needs converged solves");
  // Weights beyond float range: a variance range of 1e4 to the power 2.
  p = StatisticalTVParameters();
  p.weightExponent = 2.0;
  variance[3] = 1e-6f;
  expectInvalid(p, "the weight exponent 2 raises the noise variance's range");
  variance[3] = 0.01f;
  variance[7] = 0.0f;
  p = StatisticalTVParameters();
  expectInvalid(p, "the noise variance is 0");
}

TEST(StatisticalTV, UnreachableDiscrepancyTargetIsRefusedWithTheReachableRange)
{
  const Grid grid = gpur::MakeGrid3D(24, 24, 16);
  const NoisyVolume v = MakeVolume(grid, 0.05, 0.1, 25);
  std::vector<float> u(v.f.size());
  // The largest discrepancy, independently: the constant sum(f / var) / sum(1 / var) (gamma = 1).
  double num = 0, den = 0;
  for (std::size_t i = 0; i < v.f.size(); ++i)
  {
    num += v.f[i] / double(v.variance[i]);
    den += 1.0 / v.variance[i];
  }
  std::vector<float> constant(v.f.size(), float(num / den));
  const double largest = Discrepancy(constant, v.f, v.variance);
  StatisticalTVParameters p;
  const auto fixed = gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, p);
  EXPECT_NEAR(fixed.maximumDiscrepancy, largest, 1e-6 * largest);
  auto automatic = Automatic();
  automatic.discrepancyFactor = 1.01 * largest;
  try
  {
    gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, automatic);
    ADD_FAILURE() << "an unreachable target was accepted";
  }
  catch (const gpur::InvalidArgument & e)
  {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot be reached"), std::string::npos) << what;
    EXPECT_NE(what.find("reachable targets: (0, "), std::string::npos) << what;
  }
  // Just below it, the search runs (small lambda) and meets the target on converged solves.
  automatic.discrepancyFactor = 0.8 * largest;
  automatic.tv.maxIterations = 20000;
  const auto r = gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, automatic);
  EXPECT_NEAR(r.discrepancy / (0.8 * largest), 1.0, 0.02);
  ExpectConvergedSolves(r, 1e-4);
}

TEST(StatisticalTV, SearchRefusesUnconvergedSolves)
{
  const Grid grid = gpur::MakeGrid3D(24, 24, 16);
  const NoisyVolume v = MakeVolume(grid, 0.1, 0.1, 26);
  std::vector<float> u(v.f.size());
  auto p = Automatic();
  p.tv.algorithm = gpur::TVAlgorithm::PDU;
  p.tv.maxIterations = 20;
  try
  {
    gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, p);
    ADD_FAILURE() << "unconverged solves were used";
  }
  catch (const gpur::InvalidArgument &)
  {
    ADD_FAILURE() << "not an argument error: the solve did not converge";
  }
  catch (const gpur::Error & e)
  {
    EXPECT_NE(std::string(e.what()).find("raise the maximum number of iterations"), std::string::npos) << e.what();
  }
}

TEST(StatisticalTV, AutomaticLambdaIsScaleCovariantOnBothBackends)
{
  // f -> c f, var -> c^2 var: u -> c u and lambda -> lambda / c over the float range. The solves run on
  // f / range(f), so powers of two give bit-identical results and other factors the same to rounding.
  const Grid grid = gpur::MakeGrid3D(24, 20, 16);
  const NoisyVolume v = MakeVolume(grid, 0.05, 0.1, 27);
  std::vector<gpur::Backend> backends{ gpur::Backend::CPU };
  if (gpur::HaveOpenCLDevice())
    backends.push_back(gpur::Backend::OpenCL);
  for (const gpur::Backend backend : backends)
  {
    gpur::ExecutionOptions execution;
    execution.backend = backend;
    auto run = [&](double c, std::vector<float> & u)
    {
      std::vector<float> f(v.f.size()), variance(v.f.size());
      for (std::size_t i = 0; i < f.size(); ++i)
      {
        f[i] = float(c * v.f[i]);
        variance[i] = float(c * c * v.variance[i]);
      }
      u.resize(f.size());
      return gpur::DenoiseStatisticalTV(f.data(), variance.data(), u.data(), grid, Automatic(), execution);
    };
    std::vector<float> u1;
    const auto r1 = run(1.0, u1);
    double range = 0.0;
    for (float x : u1)
      range = std::max(range, std::abs(double(x)));
    for (const double c : { 1e-6, 1e-3, 1e3, 1e6, 1024.0, 1.0 / 65536.0 })
    {
      std::vector<float> uc;
      const auto rc = run(c, uc);
      double worst = 0.0;
      for (std::size_t i = 0; i < uc.size(); ++i)
        worst = std::max(worst, std::abs(uc[i] / c - u1[i]));
      const std::string where = std::string(gpur::ToString(backend)) + ", scale " + std::to_string(c);
      std::cout << where << ": target " << rc.discrepancyTarget << " vs " << r1.discrepancyTarget << ", iterations "
                << rc.tv.iterations << " vs " << r1.tv.iterations << ", lambda " << rc.lambda * c << " (x c) vs "
                << r1.lambda << ", max |u/c - u| / max |u| " << worst / range << ", " << rc.solves << " solves\n";
      EXPECT_EQ(rc.solves, r1.solves) << where;
      EXPECT_NEAR(rc.lambda * c / r1.lambda, 1.0, 1e-6) << where;
      EXPECT_LE(worst / range, 1e-5) << where;
      if (c == 1024.0 || c == 1.0 / 65536.0)
      {
        EXPECT_EQ(worst, 0.0) << where << ": a power of two is exact";
      }
    }
  }
  // The estimated variance and the calibrated factor follow the scale too.
  auto estimate = [&](double c, std::vector<float> & u)
  {
    std::vector<float> f(v.f.size());
    for (std::size_t i = 0; i < f.size(); ++i)
      f[i] = float(c * v.f[i]);
    u.resize(f.size());
    return gpur::DenoiseStatisticalTV(f.data(), static_cast<const float *>(nullptr), u.data(), grid, Automatic());
  };
  std::vector<float> e1, ec;
  const auto r1 = estimate(1.0, e1);
  for (const double c : { 1e-6, 1e6 })
  {
    const auto rc = estimate(c, ec);
    double worst = 0.0, range = 0.0;
    for (std::size_t i = 0; i < ec.size(); ++i)
    {
      worst = std::max(worst, std::abs(ec[i] / c - e1[i]));
      range = std::max(range, std::abs(double(e1[i])));
    }
    std::cout << "estimated variance, scale " << c << ": lambda " << rc.lambda * c << " (x c) vs " << r1.lambda
              << ", max |u/c - u| / max |u| " << worst / range << "\n";
    EXPECT_NEAR(rc.meanVariance / (c * c * r1.meanVariance), 1.0, 1e-5);
    EXPECT_NEAR(rc.lambda * c / r1.lambda, 1.0, 1e-5);
    EXPECT_LE(worst / range, 1e-5);
  }
}

TEST(StatisticalTV, AutomaticLambdaIsNearThePSNRBestLambdaOnCTNoise)
{
  // The setting at a size that runs in seconds: a machined part scanned with Poisson noise
  // (2000 photons), parallel-beam FBP with 180 views, the analytic variance (given) or estimated. The
  // automatic lambda (calibrated factor) must be within 0.05 dB of the best lambda's PSNR; the plain
  // principle (factor 1) over-smooths (measured: -0.18 dB given). Every solve converges at the defaults.
  const Grid grid = gpur::MakeGrid3D(64, 64, 32);
  gpur::CTScanParameters scan;
  scan.photonsPerRay = 2000.0;
  scan.numberOfAngles = 180;
  scan.seed = 3;
  const gpur::CTSimulation ct = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::MachinedPart, scan);
  std::vector<float> u(ct.noisy.size());
  std::map<double, double> psnr;
  auto at = [&](double lambda)
  {
    auto it = psnr.find(lambda);
    if (it != psnr.end())
      return it->second;
    StatisticalTVParameters p;
    p.tv.lambda = lambda;
    const auto r = gpur::DenoiseStatisticalTV(ct.noisy.data(), ct.variance.data(), u.data(), grid, p);
    EXPECT_TRUE(r.tv.converged) << "lambda " << lambda;
    return psnr[lambda] = PSNR(u, ct.truth);
  };
  // Golden-section search of the best lambda on a log scale.
  double a = std::log(10.0), b = std::log(400.0);
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  for (int k = 0; k < 12; ++k)
  {
    const double c = b - g * (b - a), d = a + g * (b - a);
    if (at(std::exp(c)) > at(std::exp(d)))
      b = d;
    else
      a = c;
  }
  double best = -1e300, bestLambda = 0;
  for (const auto & [lambda, value] : psnr)
    if (value > best)
      best = value, bestLambda = lambda;

  const auto given = gpur::DenoiseStatisticalTV(ct.noisy.data(), ct.variance.data(), u.data(), grid, Automatic());
  const double givenPSNR = PSNR(u, ct.truth);
  ExpectConvergedSolves(given, 1e-4);
  const auto estimated =
    gpur::DenoiseStatisticalTV(ct.noisy.data(), static_cast<const float *>(nullptr), u.data(), grid, Automatic());
  const double estimatedPSNR = PSNR(u, ct.truth);
  ExpectConvergedSolves(estimated, 1e-4);
  auto plainP = Automatic();
  plainP.discrepancyFactor = 1.0;
  gpur::DenoiseStatisticalTV(ct.noisy.data(), ct.variance.data(), u.data(), grid, plainP);
  const double plainPSNR = PSNR(u, ct.truth);
  std::cout << "best lambda " << bestLambda << ": " << best << " dB; automatic, variance given: lambda " << given.lambda
            << ", " << givenPSNR << " dB (target " << given.discrepancyTarget << ", G " << given.residualGain
            << "); estimated: lambda " << estimated.lambda << ", " << estimatedPSNR << " dB (mean variance "
            << estimated.meanVariance << " vs " << given.meanVariance << "); factor 1: " << plainPSNR << " dB\n";
  EXPECT_GT(givenPSNR, best - 0.05);
  EXPECT_GT(estimatedPSNR, best - 0.05);
  EXPECT_NEAR(estimated.meanVariance / given.meanVariance, 1.0, 0.1);
  EXPECT_LT(plainPSNR, givenPSNR);
}
