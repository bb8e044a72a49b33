// SPDX-License-Identifier: Apache-2.0
// The fused OpenCL iteration (kernels/tv_rof.cl: tv_step, one pass per
// iteration with ubar formed in local memory) against the CPU reference, which
// runs the unfused formula (dual, then primal writing ubar): on sizes that are
// not multiples of the work-group tile, 2D and 3D, plain and weighted, every
// method; with the state settled at gap checks and at ContinueTV boundaries;
// and the half-precision dual storage.
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"
#include "gpurTVTesting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace
{

using gpur::Backend;
using gpur::Grid;
using gpur::TVAlgorithm;
using gpur::TVParameters;
using gpur::testing::MakeTVParameters;

const TVAlgorithm kAlgorithms[] = { TVAlgorithm::ChambollePock,
                                    TVAlgorithm::AcceleratedChambollePock,
                                    TVAlgorithm::PDU };

// Odd sizes, none a multiple of the (16, 16) work-group tile nor of its halves.
Grid
OddGrid(unsigned dimension)
{
  return dimension == 2 ? gpur::MakeGrid2D(37, 29, 1.0, 0.8) : gpur::MakeGrid3D(19, 13, 11, 1.0, 0.9, 1.3);
}

template<typename Real>
std::vector<Real>
Solve(const std::vector<Real> & f,
      const std::vector<Real> * w,
      const Grid & grid,
      const TVParameters & p,
      Backend backend,
      gpur::TVReport * report = nullptr)
{
  std::vector<Real> u(f.size());
  const gpur::TVReport r =
    gpur::DenoiseWeightedTV(f.data(), w ? w->data() : nullptr, u.data(), grid, p, gpur::MakeExecution(backend, "0"));
  if (report)
    *report = r;
  return u;
}

template<typename Real>
double
MaxDifference(const std::vector<Real> & a, const std::vector<Real> & b)
{
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    d = std::max(d, std::abs(static_cast<double>(a[i]) - b[i]));
  return d;
}

bool
HasDevice()
{
  return !gpur::ListDevices().empty();
}

// 60 iterations with a gap check every 7: the device settles its state (the
// pending primal step) at each check and restarts from the settled ubar.
TVParameters
Checked(TVAlgorithm a, double floor)
{
  TVParameters p = MakeTVParameters(a, 6.0, floor, 60);
  p.gapCheckInterval = 7;
  return p;
}

/**
 * Calls check(f, weight or null, grid, method, description) on the odd grids,
 * 2D and 3D, without and with weights: for every method, or (everyMethod
 * false, to build few programs) accelerated CP unweighted and PDU weighted.
 */
template<typename Real, typename Check>
void
ForOddCases(bool everyMethod, Check check)
{
  for (unsigned dimension : { 2u, 3u })
  {
    const Grid grid = OddGrid(dimension);
    const auto f = gpur::testing::NoisyPhantom<Real>(grid, 3);
    const auto w = gpur::testing::PeriodicWeights<Real>(f.size(), 7, Real(5));
    for (const std::vector<Real> * weight : { static_cast<const std::vector<Real> *>(nullptr), &w })
      for (TVAlgorithm a : kAlgorithms)
      {
        const TVAlgorithm picked = weight ? TVAlgorithm::PDU : TVAlgorithm::AcceleratedChambollePock;
        if (everyMethod || a == picked)
          check(f,
                weight,
                grid,
                a,
                std::string(gpur::ToString(a)) + (weight ? " weighted " : " ") + std::to_string(dimension) + "D");
      }
  }
}

// The OpenCL result within `tolerance` (largest difference) of the CPU
// reference's on ForOddCases, with gap checks every 7 iterations to `floor`.
template<typename Real>
void
ExpectOpenCLMatchesCPU(bool everyMethod, double floor, double tolerance)
{
  ForOddCases<Real>(
    everyMethod,
    [=](const std::vector<Real> & f,
        const std::vector<Real> * weight,
        const Grid & grid,
        TVAlgorithm a,
        const std::string & what)
    {
      const TVParameters p = Checked(a, floor);
      EXPECT_LE(MaxDifference(Solve(f, weight, grid, p, Backend::CPU), Solve(f, weight, grid, p, Backend::OpenCL)),
                tolerance)
        << what;
    });
}

} // namespace

// Double precision: the fused pass computes the same formula as the CPU
// reference term for term, so they agree to double rounding (1e-12 of the
// range 1) at every gap check and at the end.
TEST(TVFused, EqualsTheCPUReferenceInDoubleOnOddSizes)
{
  if (!HasDevice() || !gpur::ListDevices()[0].fp64)
    GTEST_SKIP() << "no OpenCL device with double";
  ForOddCases<double>(true,
                      [](const std::vector<double> & f,
                         const std::vector<double> * weight,
                         const Grid & grid,
                         TVAlgorithm a,
                         const std::string & what)
                      {
                        const TVParameters p = Checked(a, 2e-12);
                        gpur::TVReport cpuReport, oclReport;
                        const auto cpu = Solve(f, weight, grid, p, Backend::CPU, &cpuReport);
                        const auto ocl = Solve(f, weight, grid, p, Backend::OpenCL, &oclReport);
                        EXPECT_LE(MaxDifference(cpu, ocl), 1e-12) << what;
                        ASSERT_EQ(cpuReport.gapHistory.size(), 8u) << what;
                        ASSERT_EQ(oclReport.gapHistory.size(), cpuReport.gapHistory.size()) << what;
                        for (std::size_t k = 0; k < cpuReport.gapHistory.size(); ++k)
                          EXPECT_NEAR(oclReport.gapHistory[k].second, cpuReport.gapHistory[k].second, 1e-9)
                            << what << " check " << k;
                        EXPECT_NEAR(oclReport.primal, cpuReport.primal, 1e-10 * cpuReport.primal) << what;
                        EXPECT_EQ(oclReport.dualStorage, "float64");
                      });
}

// The local-memory tile of GPUs ($ITKGPUR_TV_TILE=local forces it on any
// device; read when a device's kernels are first made, so a fresh process):
// the same comparison in double on the odd sizes, 2D and 3D, CP and PDU.
TEST(TVFused, LocalTileEqualsTheCPUReference)
{
  if (!HasDevice() || !gpur::ListDevices()[0].fp64)
    GTEST_SKIP() << "no OpenCL device with double";
  const char * forced = std::getenv("ITKGPUR_TV_TILE");
  if (forced == nullptr || std::string(forced) != "local")
    GTEST_SKIP() << "runs as its own ctest with ITKGPUR_TV_TILE=local";
  ExpectOpenCLMatchesCPU<double>(false, 2e-12, 1e-12);
}

// Float: the same within float rounding of the iterates (1e-5 of the range 1).
TEST(TVFused, EqualsTheCPUReferenceInFloatOnOddSizes)
{
  if (!HasDevice())
    GTEST_SKIP() << "no OpenCL device";
  ExpectOpenCLMatchesCPU<float>(true, 0.0, 1e-5);
}

// Settling (gap checks) does not change the iterates: a run checked every 7
// iterations equals an unchecked one bit for bit, and ContinueTV in two
// pieces (the state stored and loaded between them) equals one run.
TEST(TVFused, SettlingKeepsTheIterates)
{
  if (!HasDevice())
    GTEST_SKIP() << "no OpenCL device";
  for (unsigned dimension : { 2u, 3u })
  {
    const Grid grid = OddGrid(dimension);
    const auto f = gpur::testing::NoisyPhantom<float>(grid, 3);
    for (TVAlgorithm a : kAlgorithms)
    {
      const std::string what = std::string(gpur::ToString(a)) + " " + std::to_string(dimension) + "D";
      TVParameters unchecked = Checked(a, 0.0), checked = Checked(a, 2e-7);
      checked.gapTolerance = gpur::TVGapFloor<float>(a);
      unchecked.gapCheckInterval = 0;
      const auto once = Solve(f, static_cast<const std::vector<float> *>(nullptr), grid, unchecked, Backend::OpenCL);
      gpur::TVReport report;
      const auto withChecks =
        Solve(f, static_cast<const std::vector<float> *>(nullptr), grid, checked, Backend::OpenCL, &report);
      ASSERT_EQ(report.iterations, 60u) << what;
      EXPECT_EQ(once, withChecks) << what;

      const std::size_t n = f.size();
      std::vector<float> u(n), bar(n), dual(grid.dimension * n);
      const gpur::TVStateView<float> state{ u.data(), a == TVAlgorithm::PDU ? nullptr : bar.data(), dual.data() };
      gpur::InitializeTVState(f.data(), grid, state);
      const gpur::ExecutionOptions e = gpur::MakeExecution(Backend::OpenCL, "0");
      gpur::ContinueTV(f.data(), static_cast<const float *>(nullptr), grid, unchecked, 0, 23, state, e);
      gpur::ContinueTV(f.data(), static_cast<const float *>(nullptr), grid, unchecked, 23, 37, state, e);
      EXPECT_EQ(u, once) << what;
    }
  }
}

// Half-precision duals: p stored in 16 bits, arithmetic in float. The result
// stays within the objective excess measured in docs/benchmarks.md of the
// float run's, the report says which storage ran, and the CPU reference (no
// half storage) and double images are handled as documented.
TEST(TVFused, HalfPrecisionDuals)
{
  if (!HasDevice())
    GTEST_SKIP() << "no OpenCL device";
  ForOddCases<float>(true,
                     [](const std::vector<float> & f,
                        const std::vector<float> * weight,
                        const Grid & grid,
                        TVAlgorithm a,
                        const std::string & what)
                     {
                       TVParameters p = MakeTVParameters(a, 6.0, 0.0, 300);
                       gpur::TVReport full, half;
                       const auto u = Solve(f, weight, grid, p, Backend::OpenCL, &full);
                       p.halfPrecisionDual = true;
                       const auto uh = Solve(f, weight, grid, p, Backend::OpenCL, &half);
                       EXPECT_EQ(full.dualStorage, "float32");
                       EXPECT_EQ(half.dualStorage, "float16");
                       EXPECT_LE(MaxDifference(u, uh), 2e-2) << what;
                       EXPECT_LE(std::abs(half.primal - full.primal), 1e-3 * full.primal) << what;
                       EXPECT_GE(half.relativeGap, -1e-3) << what;
                     });
  const Grid grid = OddGrid(2);
  TVParameters p = MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 6.0, 0.0, 20);
  p.halfPrecisionDual = true;
  gpur::TVReport cpu;
  Solve(gpur::testing::NoisyPhantom<float>(grid, 3),
        static_cast<const std::vector<float> *>(nullptr),
        grid,
        p,
        Backend::CPU,
        &cpu);
  EXPECT_EQ(cpu.dualStorage, "float32");
  const auto d = gpur::testing::NoisyPhantom<double>(grid, 3);
  std::vector<double> u(d.size());
  try
  {
    gpur::DenoiseTV(d.data(), u.data(), grid, p, gpur::MakeExecution(Backend::CPU));
    FAIL() << "half duals on a double image must be refused";
  }
  catch (const gpur::InvalidArgument & e)
  {
    EXPECT_NE(std::string(e.what()).find("float images"), std::string::npos) << e.what();
  }
}

// A volume streamed through host memory (regions refilled every exchange
// interval, the state settled before each download) equals the in-memory run
// bit for bit, with float and with half duals.
TEST(TVFused, StreamedEqualsInMemory)
{
  if (!HasDevice())
    GTEST_SKIP() << "no OpenCL device";
  const Grid grid = gpur::MakeGrid3D(21, 17, 60, 1.0, 0.9, 1.3);
  const auto f = gpur::testing::NoisyPhantom<float>(grid, 3);
  for (bool half : { false, true })
    for (TVAlgorithm a : kAlgorithms)
    {
      TVParameters p = MakeTVParameters(a, 6.0, 2e-3, 40);
      p.gapCheckInterval = 5;
      p.exchangeInterval = 3;
      p.halfPrecisionDual = half;
      std::vector<float> inMemory(f.size()), streamed(f.size());
      gpur::ExecutionOptions e = gpur::MakeExecution(Backend::OpenCL, "0");
      const gpur::TVReport whole = gpur::DenoiseTV(f.data(), inMemory.data(), grid, p, e);
      e.deviceMemoryLimit = 600 * 1024;
      const gpur::TVReport parts = gpur::DenoiseTV(f.data(), streamed.data(), grid, p, e);
      const std::string what = std::string(gpur::ToString(a)) + (half ? " half" : " float");
      EXPECT_EQ(whole.streamRegions, 0u) << what;
      EXPECT_GE(parts.streamRegions, 3u) << what;
      EXPECT_EQ(whole.iterations, parts.iterations) << what;
      EXPECT_EQ(inMemory, streamed) << what;
    }
}
