// SPDX-License-Identifier: Apache-2.0
// The OpenCL backend of level-line denoising against the CPU reference: the
// same float arithmetic in the same order (kernels/levellines_common.cl is
// the per-pixel code of both), so outputs agree to a few float roundings and
// the maps (directions, lengths, classes) are equal, in every mode and on a
// stack of frames.
#include "gpurDevice.h"
#include "gpurLevelLinesTesting.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace gpur;
using namespace gpur::lltest;

namespace
{

/** A noisy step/corner image with a disc (curved level lines). */
std::vector<float>
TestFrame(std::size_t nx, std::size_t ny, unsigned seed)
{
  std::vector<float> truth = StepCorner(nx, ny);
  for (std::size_t i = 0; i < ny; ++i)
    for (std::size_t j = 0; j < nx; ++j)
    {
      const double di = double(i) - 0.3 * double(ny), dj = double(j) - 0.3 * double(nx);
      if (di * di + dj * dj < 0.04 * double(nx * nx))
        truth[i * nx + j] = 140.0f;
    }
  return AddNoise(truth, 20.0, seed);
}

/** nz test frames of n x n, one after the other, noise seeds seed, seed + 1, ... */
std::vector<float>
TestStack(std::size_t n, unsigned nz, unsigned seed)
{
  std::vector<float> stack;
  for (unsigned k = 0; k < nz; ++k)
  {
    const std::vector<float> frame = TestFrame(n, n, seed + k);
    stack.insert(stack.end(), frame.begin(), frame.end());
  }
  return stack;
}

void
ExpectAgreement(const std::vector<float> & f,
                const Grid & grid,
                const LevelLinesParameters & p,
                const std::string & what)
{
  const Result cpu = Filter(f, grid, p, Backend::CPU);
  const Result ocl = Filter(f, grid, p, Backend::OpenCL);
  ASSERT_EQ(ocl.report.backend.backend, Backend::OpenCL);
  EXPECT_GT(ocl.report.kernelSeconds, 0.0);
  double worst = 0.0;
  for (std::size_t i = 0; i < f.size(); ++i)
    worst = std::max(worst, double(std::abs(cpu.u[i] - ocl.u[i])));
  // The same operations in the same order; log may differ by an ulp between the
  // C library and the OpenCL driver, which moves a statistic by ~1e-6 and
  // could flip a decision only at an exact threshold crossing.
  EXPECT_LE(worst, 1e-4) << what;
  EXPECT_EQ(cpu.direction, ocl.direction) << what;
  EXPECT_EQ(cpu.length, ocl.length) << what;
  if (p.mode == LevelLinesMode::Hybrid)
  {
    EXPECT_EQ(cpu.pixelClass, ocl.pixelClass) << what;
  }
  EXPECT_DOUBLE_EQ(cpu.report.meanLength, ocl.report.meanLength) << what;
  EXPECT_DOUBLE_EQ(cpu.report.stoppedByTest, ocl.report.stoppedByTest) << what;
  EXPECT_DOUBLE_EQ(cpu.report.stoppedByBorder, ocl.report.stoppedByBorder) << what;
  EXPECT_DOUBLE_EQ(cpu.report.stoppedByTurnBack, ocl.report.stoppedByTurnBack) << what;
  for (std::size_t c = 0; c < 3; ++c)
    EXPECT_DOUBLE_EQ(cpu.report.classShares[c], ocl.report.classShares[c]) << what;
  std::cout << what << ": max |CPU - OpenCL| = " << worst << ", mean length " << ocl.report.meanLength << "\n";
}

bool
HasOpenCL()
{
  return !ListDevices().empty();
}

} // namespace

TEST(LevelLinesOpenCL, AgreesWithTheCPUReferenceInEveryMode)
{
  if (!HasOpenCL())
    GTEST_SKIP() << "no OpenCL device";
  // 100 x 75: not a multiple of the 16 x 16 tiles.
  const std::size_t nx = 100, ny = 75;
  const std::vector<float> f = TestFrame(nx, ny, 1);
  const Grid grid = MakeGrid2D(nx, ny);
  const std::vector<std::pair<std::string, std::function<void(LevelLinesParameters &)>>> variants = {
    { "PIPD defaults", [](LevelLinesParameters &) {} },
    { "Hybrid", [](LevelLinesParameters & p) { p.mode = LevelLinesMode::Hybrid; } },
    { "thick", [](LevelLinesParameters & p) { p.thick = true; } },
    { "thick Hybrid",
      [](LevelLinesParameters & p)
      {
        p.thick = true;
        p.mode = LevelLinesMode::Hybrid;
      } },
    { "turn back Stop", [](LevelLinesParameters & p) { p.turnBack = LevelLinesTurnBack::Stop; } },
    { "separate variances", [](LevelLinesParameters & p) { p.test = LevelLinesTest::SeparateVariances; } },
    { "the paper's Algorithm 2 (no centre, one arm)",
      [](LevelLinesParameters & p)
      {
        p.includeCenter = false;
        p.bidirectional = false;
      } },
    { "l = 4, n = 30",
      [](LevelLinesParameters & p)
      {
        p.segmentLength = 4;
        p.maximumLength = 30;
      } },
  };
  for (const auto & variant : variants)
  {
    LevelLinesParameters p;
    p.noiseSigma = 20.0;
    variant.second(p);
    ExpectAgreement(f, grid, p, variant.first);
  }
}

TEST(LevelLinesOpenCL, AgreesOnAStackOfThreeFrames)
{
  if (!HasOpenCL())
    GTEST_SKIP() << "no OpenCL device";
  const std::size_t n = 64;
  const std::vector<float> stack = TestStack(n, 3, 30);
  for (LevelLinesMode mode : { LevelLinesMode::PIPD, LevelLinesMode::Hybrid })
  {
    LevelLinesParameters p;
    p.mode = mode;
    ExpectAgreement(stack, MakeGrid3D(n, n, 3), p, std::string("stack ") + ToString(mode));
  }
}

TEST(LevelLinesOpenCL, AStackLargerThanTheMemoryLimitGoesInBatches)
{
  if (!HasOpenCL())
    GTEST_SKIP() << "no OpenCL device";
  const std::size_t n = 48;
  const std::vector<float> stack = TestStack(n, 5, 40);
  LevelLinesParameters p;
  p.noiseSigma = 20.0;
  const Grid grid = MakeGrid3D(n, n, 5);
  std::vector<float> whole(stack.size()), batched(stack.size());
  DenoiseLevelLines(stack.data(), whole.data(), grid, p, MakeExecution(Backend::OpenCL));
  ExecutionOptions small = MakeExecution(Backend::OpenCL);
  small.deviceMemoryLimit = 2 * 30 * n * n; // two frames (about 28 bytes a pixel) per batch
  unsigned reports = 0;
  DenoiseLevelLines(stack.data(), batched.data(), grid, p, small, [&](const Progress &) { return ++reports > 0; });
  EXPECT_EQ(whole, batched);
  EXPECT_EQ(reports, 5u);
}
