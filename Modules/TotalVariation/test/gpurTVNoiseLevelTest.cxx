// SPDX-License-Identifier: Apache-2.0
// Tests of plain TV at a noise level (gpurTVNoiseLevel.h): with its default
// parameters (sigma estimated, lambda by the discrepancy principle) it denoises
// a simulated CT slice in HU at 0.7 mm and a [0, 1] phantom at unit spacing
// alike, on converged solves, and its result does not depend on the intensity
// scale or the length unit; a fixed lambda is DenoiseTV; bad input is refused.
#include "gpurCTPhantom.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTVNoiseLevel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

using gpur::Grid;
using gpur::TVNoiseLevelParameters;
using gpur::TVNoiseLevelReport;

namespace
{

/** A noisy image and the reference its denoising is measured against. */
struct TestImage
{
  Grid grid;
  std::vector<float> reference, f;
  double peak = 1.0; ///< the data range of the PSNR
};

/**
 * A CT slice in Hounsfield units: the Shepp-Logan slice scanned in parallel beam
 * (Poisson counts, Ram-Lak FBP, 0.7 mm pixels), mapped by HU = 2000 v - 1000
 * (air -1000 HU, the skull +1000 HU), with the FBP's noise scaled to a standard
 * deviation of 25 HU. The reference is the noise-free reconstruction: the FBP's
 * own error (blurred edges, streaks) is not noise and no denoiser removes it.
 */
TestImage
HounsfieldSlice()
{
  TestImage t;
  t.grid = gpur::MakeGrid2D(256, 256, 0.7, 0.7);
  gpur::CTScanParameters scan;
  scan.photonsPerRay = 1e5;
  scan.computeNoiseFree = true;
  scan.computeVariance = false;
  scan.seed = 3;
  const gpur::CTSimulation ct = gpur::SimulateCT(t.grid, gpur::SheppLoganPhantom(t.grid), scan);
  double noise2 = 0.0;
  for (std::size_t i = 0; i < ct.noisy.size(); ++i)
    noise2 += (double(ct.noisy[i]) - ct.noiseFree[i]) * (double(ct.noisy[i]) - ct.noiseFree[i]);
  const double gain = 25.0 / (2000.0 * std::sqrt(noise2 / double(ct.noisy.size())));
  for (std::size_t i = 0; i < ct.noisy.size(); ++i)
  {
    const double clean = ct.noiseFree[i];
    t.reference.push_back(float(2000.0 * clean - 1000.0));
    t.f.push_back(float(2000.0 * (clean + gain * (double(ct.noisy[i]) - clean)) - 1000.0));
  }
  t.peak = 2000.0;
  return t;
}

/** The Shepp-Logan slice in [0, 1] at unit spacing with white noise sigma 0.1: the guidance's own setting. */
TestImage
UnitSlice()
{
  TestImage t;
  t.grid = gpur::MakeGrid2D(256, 256);
  t.reference = gpur::SheppLoganPhantom(t.grid);
  t.f = gpur::AddGaussianNoise(t.reference, 0.1, 5);
  return t;
}

double
PSNR(const std::vector<float> & u, const TestImage & t)
{
  return gpur::PeakSignalToNoiseRatio(u.data(), t.reference.data(), u.size(), t.peak);
}

/** Every solve of the search converged at the gap tolerance, within the iteration budget (no retry needed). */
void
ExpectConvergedWithinBudget(const TVNoiseLevelReport & r, const TVNoiseLevelParameters & p)
{
  ASSERT_EQ(r.lambdaHistory.size(), r.solves);
  for (const auto & s : r.lambdaHistory)
  {
    EXPECT_TRUE(s.converged) << "lambda " << s.lambda;
    EXPECT_LE(std::abs(s.relativeGap), p.tv.gapTolerance) << "lambda " << s.lambda;
    EXPECT_LT(s.iterations, p.tv.maxIterations) << "lambda " << s.lambda;
  }
  EXPECT_TRUE(r.tv.converged);
  EXPECT_TRUE(r.tv.warnings.empty());
}

std::string
Describe(const TVNoiseLevelReport & r, double before, double after)
{
  std::string iterations;
  for (const auto & s : r.lambdaHistory)
    iterations += (iterations.empty() ? "" : ", ") + std::to_string(s.iterations);
  return "PSNR " + std::to_string(before) + " -> " + std::to_string(after) + " dB, lambda " + std::to_string(r.lambda) +
         ", sigma " + std::to_string(r.sigma) + (r.sigmaEstimated ? " (estimated)" : "") + ", target " +
         std::to_string(r.discrepancyTarget) + ", discrepancy " + std::to_string(r.discrepancy) + ", " +
         std::to_string(r.solves) + " solves (" + iterations + " iterations)";
}

/** The default run on an image with its grid's spacing scaled by `length` and its intensities by `scale`. */
TVNoiseLevelReport
RunScaled(const TestImage & t, double scale, double length, std::vector<float> & u)
{
  Grid grid = t.grid;
  for (unsigned d = 0; d < grid.dimension; ++d)
    grid.spacing[d] *= length;
  std::vector<float> f(t.f);
  for (float & v : f)
    v = float(double(v) * scale);
  u.resize(f.size());
  return gpur::DenoiseTVAtNoiseLevel(f.data(), u.data(), grid, TVNoiseLevelParameters());
}

/** The default run on a test image: u, the report and the PSNR before and after, printed; every solve converged. */
struct DefaultRun
{
  std::vector<float> u;
  TVNoiseLevelReport report;
  double before = 0.0, after = 0.0;

  DefaultRun(const TestImage & t, const std::string & name)
    : u(t.f.size())
  {
    const TVNoiseLevelParameters p;
    report = gpur::DenoiseTVAtNoiseLevel(t.f.data(), u.data(), t.grid, p);
    before = PSNR(t.f, t);
    after = PSNR(u, t);
    std::cout << name << ", defaults: " << Describe(report, before, after) << "\n";
    ::testing::Test::RecordProperty(name, Describe(report, before, after));
    ExpectConvergedWithinBudget(report, p);
  }
};

} // namespace

TEST(TVNoiseLevel, DefaultsDenoiseACTSliceInHounsfieldUnits)
{
  // sigma 25 HU at 0.7 mm: the fixed lambda 8 of earlier versions left such a slice as it was
  // (lambda sigma h = 140: no smoothing); the defaults choose lambda from the noise.
  const TestImage t = HounsfieldSlice();
  const DefaultRun run(t, "HU slice");
  const TVNoiseLevelReport & r = run.report;
  const std::vector<float> & u = run.u;
  EXPECT_GT(run.after, run.before + 3.0); // measured: 38.06 -> 41.98 dB
  EXPECT_TRUE(r.sigmaEstimated);
  EXPECT_NEAR(r.sigma, 25.0, 0.15 * 25.0) << "the FBP noise's RMS sigma is 25 HU";
  EXPECT_LT(r.discrepancyTarget, 0.9) << "correlated FBP noise: a calibrated factor below white noise's";
  EXPECT_NEAR(r.discrepancy / r.discrepancyTarget, 1.0, TVNoiseLevelParameters().discrepancyTolerance);
  EXPECT_LE(r.solves, 8u);
  EXPECT_EQ(r.lambdaHistory.front().lambda, gpur::NoiseBalancedLambda(r.sigma, t.grid));
  // lambda sigma h, the dimensionless weight, in the range of the [0, 1] guidance (lambda 10-15 at sigma 0.1).
  EXPECT_GT(r.lambda * r.sigma * 0.7, 0.5);
  EXPECT_LT(r.lambda * r.sigma * 0.7, 3.0);

  // The same data in other units give the same result, scaled: intensities (s f -> s u, lambda / s,
  // sigma s; exact for a power of two) and the length unit (spacing a h -> lambda / a).
  std::vector<float> us;
  for (const auto & [scale, length] : std::vector<std::pair<double, double>>{
         { 1.0 / 1024.0, 1.0 }, { 1.0 / 2000.0, 1.0 }, { 1.0, 1.0 / 0.7 }, { 1e3, 1e-3 } })
  {
    const TVNoiseLevelReport rs = RunScaled(t, scale, length, us);
    double worst = 0.0, largest = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i)
    {
      worst = std::max(worst, std::abs(double(us[i]) / scale - u[i]));
      largest = std::max(largest, std::abs(double(u[i])));
    }
    std::cout << "scale " << scale << ", length " << length << ": lambda " << rs.lambda << " (x scale x length "
              << rs.lambda * scale * length << "), max |u_s / s - u| / max |u| " << worst / largest << "\n";
    EXPECT_NEAR(rs.lambda * scale * length / r.lambda, 1.0, 1e-4) << scale << " " << length;
    EXPECT_NEAR(rs.sigma / scale / r.sigma, 1.0, 1e-5) << scale << " " << length;
    EXPECT_EQ(rs.solves, r.solves) << scale << " " << length;
    EXPECT_LE(worst, 1e-5 * largest) << scale << " " << length;
    if (scale == 1.0 / 1024.0)
    {
      EXPECT_EQ(worst, 0.0) << "a power of two is exact";
    }
  }
}

TEST(TVNoiseLevel, DefaultsDenoiseAUnitRangePhantom)
{
  const TestImage t = UnitSlice();
  const DefaultRun run(t, "unit slice");
  const TVNoiseLevelReport & r = run.report;
  std::vector<float> u(t.f.size());
  EXPECT_GT(run.after, run.before + 6.0); // measured: 19.99 -> 33.10 dB
  EXPECT_NEAR(r.sigma, 0.1, 0.01);
  EXPECT_NEAR(r.discrepancyTarget, 0.9, 0.03) << "white noise";
  EXPECT_GT(r.lambda, 5.0); // the guidance's 10-15 for sigma 0.1
  EXPECT_LT(r.lambda, 30.0);

  // A known sigma is used as given (no estimate), and lands near the estimated one's lambda.
  TVNoiseLevelParameters known;
  known.sigma = 0.1;
  const TVNoiseLevelReport k = gpur::DenoiseTVAtNoiseLevel(t.f.data(), u.data(), t.grid, known);
  EXPECT_FALSE(k.sigmaEstimated);
  EXPECT_EQ(k.sigma, 0.1);
  EXPECT_EQ(k.lambdaHistory.front().lambda, 10.0);
  EXPECT_NEAR(k.lambda / r.lambda, 1.0, 0.15);
  EXPECT_GT(PSNR(u, t), run.before + 6.0);

  // An explicit factor is met as given: the plain principle (1) smooths more than the calibrated 0.9.
  known.discrepancyFactor = 1.0;
  const TVNoiseLevelReport one = gpur::DenoiseTVAtNoiseLevel(t.f.data(), u.data(), t.grid, known);
  EXPECT_EQ(one.discrepancyTarget, 1.0);
  EXPECT_NEAR(one.discrepancy, 1.0, 0.02);
  EXPECT_LT(one.lambda, k.lambda);
}

TEST(TVNoiseLevel, FixedLambdaIsDenoiseTV)
{
  const TestImage t = UnitSlice();
  TVNoiseLevelParameters p;
  p.automaticLambda = false;
  p.tv.lambda = 12.0;
  std::vector<float> u(t.f.size()), reference(t.f.size());
  const TVNoiseLevelReport r = gpur::DenoiseTVAtNoiseLevel(t.f.data(), u.data(), t.grid, p);
  const gpur::TVReport direct = gpur::DenoiseTV(t.f.data(), reference.data(), t.grid, p.tv);
  EXPECT_EQ(u, reference) << "a fixed lambda is DenoiseTV, bit for bit";
  EXPECT_EQ(r.tv.iterations, direct.iterations);
  EXPECT_EQ(r.lambda, 12.0);
  EXPECT_EQ(r.solves, 1u);
  EXPECT_FALSE(r.sigmaEstimated);
  EXPECT_EQ(r.sigma, 0.0);
  EXPECT_EQ(r.discrepancy, 0.0) << "no sigma, no discrepancy";
  EXPECT_EQ(r.discrepancyTarget, 0.0);

  // With a sigma, the fixed lambda's discrepancy is reported (and no noise is estimated).
  p.sigma = 0.1;
  const TVNoiseLevelReport withSigma = gpur::DenoiseTVAtNoiseLevel(t.f.data(), u.data(), t.grid, p);
  EXPECT_EQ(u, reference);
  double s = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i)
    s += (double(u[i]) - t.f[i]) * (double(u[i]) - t.f[i]);
  EXPECT_NEAR(withSigma.discrepancy, s / double(u.size()) / 0.01, 1e-9);
  EXPECT_GT(withSigma.maximumDiscrepancy, withSigma.discrepancy);
}

TEST(TVNoiseLevel, BadInputIsRefusedWithTheWayOut)
{
  auto expectInvalid = [](const std::function<void()> & run, const std::string & words)
  {
    try
    {
      run();
      ADD_FAILURE() << "no exception; expected one naming '" << words << "'";
    }
    catch (const gpur::InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  const Grid grid = gpur::MakeGrid2D(32, 32);
  std::vector<float> constant(grid.Count(), 0.5f), u(grid.Count());
  // No noise to measure: the automatic lambda cannot work; a fixed lambda or a sigma can.
  expectInvalid([&] { gpur::DenoiseTVAtNoiseLevel(constant.data(), u.data(), grid, TVNoiseLevelParameters()); },
                "give the noise sigma or a fixed lambda");
  TVNoiseLevelParameters p;
  p.sigma = -1.0;
  expectInvalid([&] { gpur::DenoiseTVAtNoiseLevel(constant.data(), u.data(), grid, p); },
                "the noise sigma is -1.000000; it must be finite and > 0, or 0 (estimated from the image)");
  p.sigma = 0.1; // a constant image has discrepancy 0 at every lambda: no lambda reaches the target
  expectInvalid([&] { gpur::DenoiseTVAtNoiseLevel(constant.data(), u.data(), grid, p); }, "cannot be reached");
  p = TVNoiseLevelParameters();
  p.tv.gapTolerance = 0.0;
  expectInvalid([&] { gpur::DenoiseTVAtNoiseLevel(constant.data(), u.data(), grid, p); }, "needs converged solves");
  // Too small to estimate the noise (the estimator's stencil needs 3 voxels per axis).
  const Grid thin = gpur::MakeGrid2D(32, 2);
  std::vector<float> f = gpur::AddGaussianNoise(std::vector<float>(thin.Count(), 0.5f), 0.1, 3);
  expectInvalid([&] { gpur::DenoiseTVAtNoiseLevel(f.data(), u.data(), thin, TVNoiseLevelParameters()); },
                "give the noise sigma or a fixed lambda");
  p = TVNoiseLevelParameters();
  p.automaticLambda = false;
  EXPECT_NO_THROW(gpur::DenoiseTVAtNoiseLevel(f.data(), u.data(), thin, p)) << "a fixed lambda needs no estimate";
}
