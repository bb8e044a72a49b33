// SPDX-License-Identifier: Apache-2.0
// Volumes larger than device memory: with a device memory limit the TV state
// streams through host memory in z-regions padded by exchangeInterval + 1
// slices. The result must equal the in-memory run on the same device. Run with
// POCL_DEVICES="pthread pthread" so that streaming across two devices is tested too.
#include "gpurDevice.h"
#include "gpurPhantom.h"
#include "gpurStatisticalTV.h"
#include "gpurTVDenoiser.h"
#include "gpurTVTesting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using gpur::Backend;
using gpur::Grid;
using gpur::TVAlgorithm;
using gpur::TVParameters;

namespace
{

constexpr std::uint64_t kKiB = 1024;

template<typename Real>
struct Outcome
{
  std::vector<Real> u;
  gpur::TVReport report;
};

template<typename Real>
Outcome<Real>
Denoise(const std::vector<Real> & f,
        const typename std::vector<Real>::value_type * weight, // not deduced: nullptr works
        const Grid & grid,
        const TVParameters & p,
        std::uint64_t memoryLimit,
        const std::string & devices = "0",
        const gpur::ProgressCallback & callback = gpur::ProgressCallback())
{
  gpur::ExecutionOptions execution = gpur::MakeExecution(Backend::OpenCL, devices);
  execution.deviceMemoryLimit = memoryLimit;
  Outcome<Real> r;
  r.u.resize(f.size());
  r.report = gpur::DenoiseWeightedTV(f.data(), weight, r.u.data(), grid, p, execution, callback);
  return r;
}

template<typename Real>
std::vector<Real>
Noisy(const Grid & grid)
{
  return gpur::testing::NoisyPhantom<Real>(grid, 5);
}

template<typename Real>
std::vector<Real>
Weights(std::size_t n)
{
  return gpur::testing::PeriodicWeights<Real>(n, 13, Real(10));
}

// 24 x 20 x 80 voxels: 16.9 KiB (CP, PDU) to 18.8 KiB (weighted CP) of device memory per slice
// (f, u twice, p twice; see gpurTVDeviceKernels.h).
const Grid kGrid = gpur::MakeGrid3D(24, 20, 80, 1.0, 0.9, 1.3);
// Two region buffers of 23 (weighted CP) to 26 (PDU) slices with halos of 4: 5 to 6 regions.
constexpr std::uint64_t kLimit = 900 * kKiB;
constexpr unsigned kInterval = 3;

class TVStream : public ::testing::TestWithParam<TVAlgorithm>
{
protected:
  void
  SetUp() override
  {
    if (gpur::ListDevices().empty())
      GTEST_SKIP() << "no OpenCL device";
  }
  TVParameters
  Parameters() const
  {
    TVParameters p;
    p.algorithm = GetParam();
    p.lambda = 10.0;
    p.maxIterations = 22; // not a multiple of the interval: the last pass is partial
    p.gapTolerance = 0.0;
    p.exchangeInterval = kInterval;
    return p;
  }
};

} // namespace

TEST_P(TVStream, EqualsInMemoryRunBitForBit)
{
  const auto f = Noisy<float>(kGrid);
  const auto w = Weights<float>(f.size());
  for (const float * weight : { static_cast<const float *>(nullptr), w.data() })
  {
    const auto inMemory = Denoise(f, weight, kGrid, Parameters(), 0);
    const auto streamed = Denoise(f, weight, kGrid, Parameters(), kLimit);
    EXPECT_EQ(inMemory.report.streamRegions, 0u);
    EXPECT_GE(streamed.report.streamRegions, 5u);
    EXPECT_EQ(streamed.report.iterations, 22u);
    EXPECT_EQ(streamed.u, inMemory.u); // every voxel does the same arithmetic
    EXPECT_NEAR(streamed.report.primal, inMemory.report.primal, 1e-5 * inMemory.report.primal);
    EXPECT_NEAR(streamed.report.dual, inMemory.report.dual, 1e-5 * std::abs(inMemory.report.primal));
  }
}

TEST_P(TVStream, GapStopAgreesWithInMemoryRun)
{
  const auto f = Noisy<float>(kGrid);
  TVParameters p = Parameters();
  p.maxIterations = 600;
  p.gapTolerance = 5e-3;
  p.gapCheckInterval = 5; // not a multiple of the interval: checks fall inside passes and after them
  const auto inMemory = Denoise(f, nullptr, kGrid, p, 0);
  const auto streamed = Denoise(f, nullptr, kGrid, p, kLimit);
  ASSERT_TRUE(inMemory.report.converged);
  EXPECT_TRUE(streamed.report.converged);
  EXPECT_EQ(streamed.report.iterations, inMemory.report.iterations);
  ASSERT_EQ(streamed.report.gapHistory.size(), inMemory.report.gapHistory.size());
  for (std::size_t k = 0; k < inMemory.report.gapHistory.size(); ++k)
    EXPECT_NEAR(streamed.report.gapHistory[k].second, inMemory.report.gapHistory[k].second, 1e-4);
  float diff = 0;
  for (std::size_t i = 0; i < f.size(); ++i)
    diff = std::max(diff, std::abs(streamed.u[i] - inMemory.u[i]));
  EXPECT_EQ(diff, 0.0f);
}

INSTANTIATE_TEST_SUITE_P(Algorithms,
                         TVStream,
                         ::testing::Values(TVAlgorithm::PDU,
                                           TVAlgorithm::ChambollePock,
                                           TVAlgorithm::AcceleratedChambollePock));

TEST(TVStreamDouble, EqualsInMemoryRun)
{
  const auto devices = gpur::ListDevices();
  if (devices.empty() || !devices[0].fp64)
    GTEST_SKIP() << "needs an OpenCL device with fp64";
  const auto f = Noisy<double>(kGrid);
  TVParameters p;
  p.algorithm = TVAlgorithm::AcceleratedChambollePock;
  p.maxIterations = 13;
  p.gapTolerance = 0.0;
  p.exchangeInterval = kInterval;
  const auto inMemory = Denoise(f, nullptr, kGrid, p, 0);
  const auto streamed = Denoise(f, nullptr, kGrid, p, 2 * kLimit);
  EXPECT_GE(streamed.report.streamRegions, 3u);
  EXPECT_EQ(streamed.u, inMemory.u);
}

TEST(TVStreamDevices, TwoDevicesWithALimitEqualOneDeviceInMemory)
{
  if (gpur::ListDevices().size() < 2)
    GTEST_SKIP() << "needs two OpenCL devices (POCL_DEVICES=\"pthread pthread\")";
  const auto f = Noisy<float>(kGrid);
  const auto w = Weights<float>(f.size());
  TVParameters p;
  p.algorithm = TVAlgorithm::PDU;
  p.maxIterations = 19;
  p.gapTolerance = 0.0;
  p.exchangeInterval = kInterval;
  const auto one = Denoise(f, w.data(), kGrid, p, 0, "0");
  const auto two = Denoise(f, w.data(), kGrid, p, kLimit / 5 * 4, "all"); // each slab streams through its device
  ASSERT_EQ(two.report.backend.devices.size(), 2u);
  EXPECT_GE(two.report.streamRegions, 2u);
  EXPECT_EQ(two.u, one.u);
}

TEST(TVStreamState, ContinueTVStreamedEqualsInMemory)
{
  if (gpur::ListDevices().empty())
    GTEST_SKIP() << "no OpenCL device";
  const auto f = Noisy<float>(kGrid);
  TVParameters p;
  p.algorithm = TVAlgorithm::ChambollePock;
  p.exchangeInterval = kInterval;
  const std::size_t n = f.size();
  std::vector<float> u[2], bar[2], dual[2];
  for (int k = 0; k < 2; ++k)
  {
    u[k].resize(n);
    bar[k].resize(n);
    dual[k].resize(3 * n);
    const gpur::TVStateView<float> state{ u[k].data(), bar[k].data(), dual[k].data() };
    gpur::InitializeTVState(f.data(), kGrid, state);
    gpur::ExecutionOptions execution = gpur::MakeExecution(Backend::OpenCL, "0");
    execution.deviceMemoryLimit = k == 0 ? 0 : kLimit;
    const auto a = gpur::ContinueTV(f.data(), static_cast<const float *>(nullptr), kGrid, p, 0, 9, state, execution);
    const auto b = gpur::ContinueTV(f.data(), static_cast<const float *>(nullptr), kGrid, p, 9, 7, state, execution);
    EXPECT_EQ(a.streamRegions, b.streamRegions);
    EXPECT_EQ(b.streamRegions > 0, k == 1);
  }
  EXPECT_EQ(u[1], u[0]);
  EXPECT_EQ(bar[1], bar[0]);
  EXPECT_EQ(dual[1], dual[0]);
}

TEST(TVStreamState, StatisticalTVStreams)
{
  if (gpur::ListDevices().empty())
    GTEST_SKIP() << "no OpenCL device";
  const auto f = Noisy<float>(kGrid);
  const auto variance = Weights<float>(f.size());
  gpur::StatisticalTVParameters p;
  p.tv.lambda = 8.0;
  p.tv.maxIterations = 17;
  p.tv.gapTolerance = 0.0;
  p.tv.exchangeInterval = kInterval;
  std::vector<float> a(f.size()), b(f.size());
  gpur::ExecutionOptions execution = gpur::MakeExecution(Backend::OpenCL, "0");
  gpur::DenoiseStatisticalTV(f.data(), variance.data(), a.data(), kGrid, p, execution);
  execution.deviceMemoryLimit = kLimit;
  const auto streamed = gpur::DenoiseStatisticalTV(f.data(), variance.data(), b.data(), kGrid, p, execution);
  EXPECT_GE(streamed.tv.streamRegions, 3u);
  EXPECT_EQ(b, a);
}

TEST(TVStreamErrors, LimitTooSmallIsRefusedWithTheLeastThatWorks)
{
  if (gpur::ListDevices().empty())
    GTEST_SKIP() << "no OpenCL device";
  const auto f = Noisy<float>(kGrid);
  TVParameters p;
  p.maxIterations = 4;
  p.exchangeInterval = 8;
  std::vector<float> u(f.size(), -7.0f);
  gpur::ExecutionOptions execution = gpur::MakeExecution(Backend::OpenCL, "0");
  execution.deviceMemoryLimit = 100 * kKiB;
  try
  {
    gpur::DenoiseTV(f.data(), u.data(), kGrid, p, execution);
    FAIL() << "a limit below two padded regions must be refused";
  }
  catch (const gpur::InvalidArgument & e)
  {
    const std::string what = e.what();
    EXPECT_NE(what.find("at least"), std::string::npos) << what;
    EXPECT_NE(what.find("KiB of device memory"), std::string::npos) << what;
  }
  EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](float v) { return v == -7.0f; })); // untouched

  // A 2D image is not streamed: over the limit it is refused, not cut.
  const Grid plane = gpur::MakeGrid2D(300, 200);
  const std::vector<float> g(plane.Count(), 1.0f);
  std::vector<float> v(g.size());
  EXPECT_THROW(gpur::DenoiseTV(g.data(), v.data(), plane, p, execution), gpur::InvalidArgument);
}

TEST(TVStreamErrors, AbortStopsAStreamedRun)
{
  if (gpur::ListDevices().empty())
    GTEST_SKIP() << "no OpenCL device";
  const auto f = Noisy<float>(kGrid);
  TVParameters p;
  p.maxIterations = 200;
  p.gapTolerance = 0.0;
  p.exchangeInterval = kInterval;
  unsigned calls = 0;
  const auto stopAt10 = [&calls](const gpur::Progress & progress) { return ++calls, progress.done < 10; };
  EXPECT_THROW(Denoise(f, nullptr, kGrid, p, kLimit, "0", stopAt10), gpur::Aborted);
  EXPECT_EQ(calls, 10u);
}
