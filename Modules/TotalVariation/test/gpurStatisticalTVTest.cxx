// Tests of the statistical TV engine: variance weights, the discrepancy
// principle (automatic lambda) and the estimated variance.
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurStatisticalTV.h"

#include <gtest/gtest.h>

#include <cmath>
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
Discrepancy(const std::vector<float> & u, const NoisyVolume & v)
{
  double s = 0;
  for (std::size_t i = 0; i < u.size(); ++i)
    s += (double(u[i]) - v.f[i]) * (double(u[i]) - v.f[i]) / v.variance[i];
  return s / double(u.size());
}

StatisticalTVParameters
Automatic(double firstGuess)
{
  StatisticalTVParameters p;
  p.tv.lambda = firstGuess;
  p.tv.gapTolerance = 1e-4;
  p.tv.maxIterations = 2000;
  p.automaticLambda = true;
  return p;
}

} // namespace

TEST(StatisticalTV, AutomaticLambdaMeetsTheDiscrepancyOfKnownGaussianNoise)
{
  const Grid grid = gpur::MakeGrid3D(40, 40, 32);
  const NoisyVolume v = MakeVolume(grid, 0.1, 0.1, 21);
  for (double firstGuess : { 1.0, 200.0 }) // from either side
  {
    std::vector<float> u(v.f.size());
    const auto r = gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, Automatic(firstGuess));
    EXPECT_NEAR(Discrepancy(u, v), 1.0, 0.05) << "lambda " << r.lambda;
    RecordProperty("guess_" + std::to_string(int(firstGuess)),
                   "lambda " + std::to_string(r.lambda) + " discrepancy " + std::to_string(r.discrepancy) + " solves " +
                     std::to_string(r.solves));
    EXPECT_NEAR(r.discrepancy, Discrepancy(u, v), 1e-9);
    EXPECT_LE(r.solves, 10u);
    EXPECT_EQ(r.lambdaHistory.size(), r.solves);
    EXPECT_FALSE(r.varianceEstimated);
    EXPECT_GT(gpur::PeakSignalToNoiseRatio(u.data(), v.truth.data(), u.size(), 1.0),
              gpur::PeakSignalToNoiseRatio(v.f.data(), v.truth.data(), u.size(), 1.0) + 6.0);
  }
}

TEST(StatisticalTV, AutomaticLambdaWithSpatiallyVaryingVariance)
{
  const Grid grid = gpur::MakeGrid3D(36, 36, 30);
  const NoisyVolume v = MakeVolume(grid, 0.03, 0.15, 22);
  std::vector<float> u(v.f.size());
  auto p = Automatic(10.0);
  p.tv.algorithm = gpur::TVAlgorithm::PDU; // the thesis' S-PDU
  const auto r = gpur::DenoiseStatisticalTV(v.f.data(), v.variance.data(), u.data(), grid, p);
  EXPECT_NEAR(Discrepancy(u, v), 1.0, 0.05);
  RecordProperty("varying", "discrepancy " + std::to_string(Discrepancy(u, v)) + " solves " + std::to_string(r.solves));
  EXPECT_NEAR(r.meanVariance, 0.0093, 0.0005); // mean of the ramp's sigma^2
}

TEST(StatisticalTV, EstimatedVarianceWhenNoneIsGiven)
{
  const Grid grid = gpur::MakeGrid3D(48, 48, 40);
  const NoisyVolume v = MakeVolume(grid, 0.05, 0.12, 23);
  std::vector<float> u(v.f.size());
  const auto r =
    gpur::DenoiseStatisticalTV(v.f.data(), static_cast<const float *>(nullptr), u.data(), grid, Automatic(10.0));
  EXPECT_TRUE(r.varianceEstimated);
  double trueMean = 0;
  for (float x : v.variance)
    trueMean += x;
  trueMean /= double(v.variance.size());
  EXPECT_NEAR(r.meanVariance / trueMean, 1.0, 0.1);
  EXPECT_NEAR(Discrepancy(u, v), 1.0, 0.1); // against the true variance
  RecordProperty("estimated",
                 "mean variance ratio " + std::to_string(r.meanVariance / trueMean) + " true discrepancy " +
                   std::to_string(Discrepancy(u, v)));
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
  gpur::DenoiseTV(v.f.data(), plain.data(), grid, p.tv);
  EXPECT_EQ(u, plain);
  EXPECT_EQ(r.solves, 1u);
  EXPECT_EQ(r.lambda, 12.0);
}

TEST(StatisticalTV, BadInputIsRefused)
{
  const Grid grid = gpur::MakeGrid2D(16, 16);
  std::vector<float> f(grid.Count(), 0.5f), u(f.size()), variance(f.size(), 0.01f);
  StatisticalTVParameters p;
  p.weightExponent = -1.0;
  EXPECT_THROW(gpur::DenoiseStatisticalTV(f.data(), variance.data(), u.data(), grid, p), gpur::InvalidArgument);
  p = StatisticalTVParameters();
  p.discrepancyFactor = 0.0;
  EXPECT_THROW(gpur::DenoiseStatisticalTV(f.data(), variance.data(), u.data(), grid, p), gpur::InvalidArgument);
  p = StatisticalTVParameters();
  variance[7] = 0.0f;
  EXPECT_THROW(gpur::DenoiseStatisticalTV(f.data(), variance.data(), u.data(), grid, p), gpur::InvalidArgument);
}
