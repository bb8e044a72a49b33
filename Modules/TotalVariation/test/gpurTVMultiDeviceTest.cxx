// SPDX-License-Identifier: Apache-2.0
// Several OpenCL devices: z-slabs with halos of exchangeInterval + 1 slices
// must reproduce the single-device run. Outcome with POCL_DEVICES="pthread pthread".
#include "gpurDevice.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"

#include <gtest/gtest.h>

#include <vector>

using gpur::Backend;
using gpur::Grid;
using gpur::TVAlgorithm;
using gpur::TVParameters;

namespace
{

struct Outcome
{
  std::vector<float> u;
  gpur::TVReport report;
};

Outcome
Denoise(const std::vector<float> & f,
        const std::vector<float> * weight,
        const Grid & grid,
        const TVParameters & p,
        const std::string & devices)
{
  Outcome r;
  r.u.resize(f.size());
  r.report = gpur::DenoiseWeightedTV(
    f.data(), weight ? weight->data() : nullptr, r.u.data(), grid, p, gpur::MakeExecution(Backend::OpenCL, devices));
  return r;
}

class TVMultiDevice : public ::testing::TestWithParam<TVAlgorithm>
{
protected:
  void
  SetUp() override
  {
    if (gpur::ListDevices().size() < 2)
      GTEST_SKIP() << "needs two OpenCL devices (POCL_DEVICES=\"pthread pthread\")";
  }
};

} // namespace

TEST_P(TVMultiDevice, SlabsEqualOneDeviceBitForBit)
{
  const Grid grid = gpur::MakeGrid3D(26, 21, 30, 1.0, 0.9, 1.4);
  const auto f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 11);
  std::vector<float> w(f.size());
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = 0.5f + float(i % 13) / 10.0f;
  TVParameters p;
  p.algorithm = GetParam();
  p.lambda = 12.0;
  p.maxIterations = 23; // not a multiple of the interval: the last round is partial
  p.gapTolerance = 0.0;
  p.exchangeInterval = 4;
  for (const std::vector<float> * weight : std::vector<const std::vector<float> *>{ nullptr, &w })
  {
    const Outcome one = Denoise(f, weight, grid, p, "0");
    const Outcome two = Denoise(f, weight, grid, p, "all");
    EXPECT_EQ(one.report.backend.devices.size(), 1u);
    ASSERT_EQ(two.report.backend.devices.size(), 2u);
    EXPECT_NE(two.report.backend.Describe().find("2 devices"), std::string::npos) << two.report.backend.Describe();
    EXPECT_EQ(two.u, one.u); // every voxel does the same arithmetic on either device
    EXPECT_NEAR(two.report.primal, one.report.primal, 1e-5 * one.report.primal);
    EXPECT_NEAR(two.report.dual, one.report.dual, 1e-5 * std::abs(one.report.primal));
  }
}

TEST_P(TVMultiDevice, GapStopAgreesWithOneDevice)
{
  const Grid grid = gpur::MakeGrid3D(24, 24, 24);
  const auto f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 12);
  TVParameters p;
  p.algorithm = GetParam();
  p.lambda = 10.0;
  p.gapTolerance = 1e-3;
  p.exchangeInterval = 5;
  const Outcome one = Denoise(f, nullptr, grid, p, "0");
  const Outcome two = Denoise(f, nullptr, grid, p, "all");
  EXPECT_EQ(two.report.converged, one.report.converged);
  // The gap is summed in another order, so a borderline check could stop one
  // interval apart; the iterates agree either way.
  EXPECT_NEAR(double(two.report.iterations), double(one.report.iterations), p.gapCheckInterval);
  if (two.report.iterations == one.report.iterations)
  {
    EXPECT_LE(gpur::MaxAbsDifference(two.u.data(), one.u.data(), f.size()), 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(AllMethods,
                         TVMultiDevice,
                         ::testing::Values(TVAlgorithm::ChambollePock,
                                           TVAlgorithm::AcceleratedChambollePock,
                                           TVAlgorithm::PDU));

TEST(TVMultiDeviceFallback, ThinVolumesAnd2DUseOneDevice)
{
  if (gpur::ListDevices().size() < 2)
    GTEST_SKIP() << "needs two OpenCL devices";
  TVParameters p;
  p.maxIterations = 5;
  p.exchangeInterval = 8; // slabs need >= 9 slices each
  const Grid thin = gpur::MakeGrid3D(16, 16, 17);
  const auto f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(thin), 0.1, 1);
  EXPECT_EQ(Denoise(f, nullptr, thin, p, "all").report.backend.devices.size(), 1u);
  const Grid flat = gpur::MakeGrid2D(40, 40);
  const auto g = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(flat), 0.1, 1);
  EXPECT_EQ(Denoise(g, nullptr, flat, p, "all").report.backend.devices.size(), 1u);
  p.exchangeInterval = 0;
  EXPECT_THROW(Denoise(f, nullptr, thin, p, "all"), gpur::InvalidArgument);
}

TEST(TVMultiDeviceRounds, ContinueTVOnSlabsEqualsOneDevice)
{
  if (gpur::ListDevices().size() < 2)
    GTEST_SKIP() << "needs two OpenCL devices";
  const Grid grid = gpur::MakeGrid3D(20, 18, 26);
  const auto f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 13);
  TVParameters p;
  p.lambda = 9.0;
  p.exchangeInterval = 3;
  std::vector<std::vector<float>> results;
  for (const char * devices : { "0", "all" })
  {
    std::vector<float> u(f.size()), bar(f.size()), dual(3 * f.size());
    gpur::TVStateView<float> state;
    state.u = u.data();
    state.bar = bar.data();
    state.p = dual.data();
    gpur::InitializeTVState(f.data(), grid, state);
    gpur::ContinueTV<float>(f.data(), nullptr, grid, p, 0, 7, state, gpur::MakeExecution(Backend::OpenCL, devices));
    gpur::ContinueTV<float>(f.data(), nullptr, grid, p, 7, 9, state, gpur::MakeExecution(Backend::OpenCL, devices));
    u.insert(u.end(), dual.begin(), dual.end());
    results.push_back(u);
  }
  EXPECT_EQ(results[0], results[1]);
}
