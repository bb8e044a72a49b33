// SPDX-License-Identifier: Apache-2.0
// Tests of statistical (noise-weighted) TV, DenoiseWeightedTV: the S-PDU model
// (lambda/2) sum (u-f)^2 / w + TV(u) on both backends and every method.
#include "gpurAutoTesting.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"
#include "gpurTVTesting.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

using gpur::Backend;
using gpur::Grid;
using gpur::TVAlgorithm;
using gpur::TVParameters;

namespace
{

TVParameters
Parameters(TVAlgorithm algorithm, double lambda, double tolerance = 1e-5, unsigned iterations = 3000)
{
  return gpur::testing::MakeTVParameters(algorithm, lambda, tolerance, iterations);
}

std::vector<float>
Weighted(const std::vector<float> & f,
         const std::vector<float> & w,
         const Grid & grid,
         const TVParameters & p,
         Backend backend,
         gpur::TVReport * report = nullptr)
{
  std::vector<float> u(f.size());
  const auto r = gpur::DenoiseWeightedTV(f.data(), w.data(), u.data(), grid, p, gpur::MakeExecution(backend));
  if (report)
    *report = r;
  return u;
}

double
RMSE(const std::vector<float> & a, const std::vector<float> & b, std::size_t begin, std::size_t end)
{
  double s = 0;
  for (std::size_t i = begin; i < end; ++i)
    s += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return std::sqrt(s / double(end - begin));
}

class WeightedTV : public ::testing::TestWithParam<TVAlgorithm>
{
};

} // namespace

TEST_P(WeightedTV, ConstantWeightIsPlainTVWithScaledLambda)
{
  const Grid grid = gpur::MakeGrid3D(24, 20, 12, 1.0, 1.0, 1.5);
  const auto f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 2);
  const std::vector<float> w(f.size(), 2.5f);
  for (Backend backend : { Backend::CPU, Backend::OpenCL })
  {
    const auto weighted = Weighted(f, w, grid, Parameters(GetParam(), 20.0, 0.0, 150), backend);
    std::vector<float> plain(f.size());
    gpur::DenoiseTV(
      f.data(), plain.data(), grid, Parameters(GetParam(), 20.0 / 2.5, 0.0, 150), gpur::MakeExecution(backend));
    EXPECT_LE(gpur::MaxAbsDifference(weighted.data(), plain.data(), f.size()), 2e-5) << backend;
  }
}

TEST_P(WeightedTV, ConvergesWithTheWeightedGapAndBackendsAgree)
{
  const Grid grid = gpur::MakeGrid3D(24, 22, 16);
  const auto truth = gpur::SheppLoganPhantom(grid);
  const auto f = gpur::AddGaussianNoise(truth, 0.1, 4);
  std::vector<float> w(f.size());
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = 0.25f + 1.5f * float(i % 97) / 97.0f; // rough, strictly positive
  gpur::TVReport cpu, gpu;
  const auto p = Parameters(GetParam(), 15.0, 5e-5, 4000);
  const auto uc = Weighted(f, w, grid, p, Backend::CPU, &cpu);
  const auto ug = Weighted(f, w, grid, p, Backend::OpenCL, &gpu);
  EXPECT_TRUE(cpu.converged);
  EXPECT_TRUE(gpu.converged);
  EXPECT_LE(cpu.relativeGap, 5e-5);
  EXPECT_GE(cpu.primal, cpu.dual - 1e-6 * std::abs(cpu.primal));
  EXPECT_LE(gpur::MaxAbsDifference(uc.data(), ug.data(), f.size()), 2e-3);
  // Optimality: (lambda / w)(u - f) = div p sums to 0 (Neumann), so sum (u - f)/w = 0.
  double s = 0, scale = 0;
  for (std::size_t i = 0; i < f.size(); ++i)
  {
    s += (double(uc[i]) - f[i]) / w[i];
    scale += std::abs(double(uc[i]) - f[i]) / w[i];
  }
  EXPECT_LE(std::abs(s), 2e-3 * scale);
}

INSTANTIATE_TEST_SUITE_P(AllMethods,
                         WeightedTV,
                         ::testing::Values(TVAlgorithm::ChambollePock,
                                           TVAlgorithm::AcceleratedChambollePock,
                                           TVAlgorithm::PDU));

TEST(WeightedTV, SPDUKeepsTheWeightedMeanAtEveryIteration)
{
  // An invariant of S-PDU [Huang2023, Algorithm 3]: sum (u^k - f)/w = 0 for all
  // k (from the primal step, eq. (3.11), with u^0 = f and sum div p = 0 under
  // Neumann boundaries).
  const Grid grid = gpur::MakeGrid3D(20, 20, 10);
  const auto f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 6);
  std::vector<float> w(f.size());
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = 0.5f + float((i * 7919) % 101) / 50.0f;
  const auto u = Weighted(f, w, grid, Parameters(TVAlgorithm::PDU, 10.0, 0.0, 37), Backend::CPU);
  double s = 0, scale = 0;
  for (std::size_t i = 0; i < f.size(); ++i)
  {
    s += (double(u[i]) - f[i]) / w[i];
    scale += std::abs(double(u[i]) - f[i]) / w[i];
  }
  EXPECT_LE(std::abs(s), 1e-5 * scale);
}

TEST(WeightedTV, VarianceWeightingBeatsPlainTVOnNonStationaryNoise)
{
  // Two noise levels, like the Blade volume of [Huang2023, §6.6, Fig. 6.10]:
  // sigma 0.03 in the lower half (z < nz/2), 0.15 above; w = sigma^2 /
  // mean(sigma^2). The best S-PDU over lambda beats the best PDU.
  const Grid grid = gpur::MakeGrid3D(40, 40, 32);
  const auto truth = gpur::SheppLoganPhantom(grid);
  const std::size_t half = grid.Count() / 2;
  const auto low = gpur::AddGaussianNoise(truth, 0.03, 8), high = gpur::AddGaussianNoise(truth, 0.15, 9);
  std::vector<float> f(truth.size()), w(truth.size());
  const double meanVariance = 0.5 * (0.03 * 0.03 + 0.15 * 0.15);
  for (std::size_t i = 0; i < f.size(); ++i)
  {
    f[i] = i < half ? low[i] : high[i];
    w[i] = float((i < half ? 0.03 * 0.03 : 0.15 * 0.15) / meanVariance);
  }
  const std::vector<float> ones(f.size(), 1.0f);
  double bestPlain = 1e9, bestWeighted = 1e9, weightedLow = 0, plainLow = 0;
  for (double lambda : { 5.0, 10.0, 20.0, 40.0 })
  {
    const auto p = Parameters(TVAlgorithm::AcceleratedChambollePock, lambda, 1e-4, 1000);
    const auto plain = Weighted(f, ones, grid, p, Backend::Auto);
    const auto weighted = Weighted(f, w, grid, p, Backend::Auto);
    const double ep = RMSE(plain, truth, 0, f.size()), ew = RMSE(weighted, truth, 0, f.size());
    if (ep < bestPlain)
    {
      bestPlain = ep;
      plainLow = RMSE(plain, truth, 0, half);
    }
    if (ew < bestWeighted)
    {
      bestWeighted = ew;
      weightedLow = RMSE(weighted, truth, 0, half);
    }
  }
  RecordProperty("best_plain_rmse", std::to_string(bestPlain));
  RecordProperty("best_weighted_rmse", std::to_string(bestWeighted));
  EXPECT_LT(bestWeighted, 0.97 * bestPlain);
  EXPECT_LT(weightedLow, plainLow); // the quiet half keeps more detail
}

TEST(WeightedTV, AutoMeasuresTheWeightedSolve)
{
  GPUR_REQUIRE_AUTO_MEASURING();
  const gpur::testing::AutoRuleScope rule;
  const Grid grid = gpur::MakeGrid3D(24, 20, 16);
  const std::vector<float> phantom = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 5);
  const std::vector<double> f(phantom.begin(), phantom.end());
  std::vector<double> w(f.size()), u(f.size());
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = 0.5 + double(i % 7) / 7.0;
  const auto r = gpur::DenoiseWeightedTV(
    f.data(), w.data(), u.data(), grid, Parameters(TVAlgorithm::PDU, 8.0, 0.0, 10), gpur::MakeExecution(Backend::Auto));
  gpur::testing::ExpectMeasuredChoice(r.backend, "weighted TV 3D float64 on 24x20x16 voxels");
}

TEST(WeightedTV, BadWeightsAreRefused)
{
  const Grid grid = gpur::MakeGrid2D(8, 8);
  const std::vector<float> f(grid.Count(), 0.5f);
  std::vector<float> u(f.size()), w(f.size(), 1.0f);
  const auto p = Parameters(TVAlgorithm::PDU, 1.0, 0.0, 2);
  for (float bad : { 0.0f, -1.0f, std::nanf(""), INFINITY })
  {
    w[5] = bad;
    try
    {
      gpur::DenoiseWeightedTV(f.data(), w.data(), u.data(), grid, p);
      ADD_FAILURE() << "weight " << bad << " accepted";
    }
    catch (const gpur::InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find("weight"), std::string::npos) << e.what();
    }
  }
}
