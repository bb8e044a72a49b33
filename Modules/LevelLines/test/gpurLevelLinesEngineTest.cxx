// SPDX-License-Identifier: Apache-2.0
// PI-PD level-line denoising [Perrot2013] on the CPU reference: exact
// results where the level lines are known (constants, ramps, a step), the
// PSNR gain on Gaussian noise, scaling, the hybrid classes, stacks, chunks
// padded by LevelLinesRadius, bad input and abort.
#include "gpurDevice.h"
#include "gpurLevelLinesTesting.h"
#include "gpurMetrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace gpur;
using namespace gpur::lltest;

namespace
{

double
Psnr(const std::vector<float> & a, const std::vector<float> & b)
{
  return PeakSignalToNoiseRatio(a.data(), b.data(), a.size(), 255.0);
}

/**
 * Expects u == f bit for bit, thin and thick (the noise estimate is 0 on
 * these images): everywhere, or farther than the radius from the border.
 */
void
ExpectExact(const std::vector<float> & f, std::size_t n, const char * what, bool interior = false)
{
  for (bool thick : { false, true })
  {
    LevelLinesParameters p;
    p.thick = thick;
    const Result r = Filter(f, MakeGrid2D(n, n), p);
    // Thick lines average the neighbours across the line, symmetric on a
    // ramp except where clamping at the border breaks the symmetry.
    const std::size_t margin = interior || thick ? LevelLinesRadius(p) : 0;
    std::size_t wrong = 0;
    for (std::size_t i = margin; i + margin < n; ++i)
      for (std::size_t j = margin; j + margin < n; ++j)
        wrong += r.u[i * n + j] != f[i * n + j] ? 1 : 0;
    EXPECT_EQ(wrong, 0u) << what << " thick " << thick;
    EXPECT_EQ(r.report.noiseSigma, 0.0) << what;
  }
}

} // namespace

TEST(LevelLinesEngine, ConstantImageIsUnchanged)
{
  const std::vector<float> f(64 * 48, 117.25f);
  const Result r = Filter(f, MakeGrid2D(64, 48), LevelLinesParameters());
  EXPECT_EQ(r.u, f);
  EXPECT_FALSE(r.report.warnings.empty());
}

TEST(LevelLinesEngine, NoiseFreeRampsAndStepAreExact)
{
  // Every pixel of axis-aligned ramps and steps: clamp-to-edge reads keep
  // their level lines at the border.
  const std::size_t n = 64;
  ExpectExact(Image(n, n, [](double, double j) { return 3.0 * j; }), n, "row ramp");
  ExpectExact(Image(n, n, [](double i, double) { return 2.0 * i + 5.0; }), n, "column ramp");
  ExpectExact(Image(n, n, [](double, double j) { return j < 30 ? 50.0 : 200.0; }), n, "vertical step");
  // A diagonal ramp away from the border: clamping bends its level lines in
  // the outer l pixels, where stage 1 then finds no constant segment, and
  // lines reaching there (up to the radius) average a slightly wrong value.
  ExpectExact(Image(2 * n, 2 * n, [](double i, double j) { return i + j; }), 2 * n, "45 degree ramp", true);
}

TEST(LevelLinesEngine, GaussianNoiseOnAFlatFieldGainsPSNR)
{
  const std::size_t n = 128;
  const std::vector<float> truth(n * n, 128.0f);
  const std::vector<float> noisy = AddNoise(truth, 25.0, 3);
  const Result r = Filter(noisy, MakeGrid2D(n, n), LevelLinesParameters());
  const double gain = Psnr(r.u, truth) - Psnr(noisy, truth);
  std::cout << "flat field sigma 25: gain " << gain << " dB, mean length " << r.report.meanLength << ", sigma "
            << r.report.noiseSigma << "\n";
  EXPECT_TRUE(r.report.sigmaEstimated);
  EXPECT_NEAR(r.report.noiseSigma, 25.0, 1.5);
  // Measured: +11.5 dB with lines of 42.6 pixels on average (at most 51: the centre and two arms of 25).
  EXPECT_GT(gain, 10.5);
  EXPECT_LT(gain, 12.5);
  EXPECT_GT(r.report.meanLength, 35.0);
  EXPECT_LE(r.report.meanLength, 51.0);
  const double shares =
    r.report.stoppedByTest + r.report.stoppedByTurnBack + r.report.stoppedByBorder + r.report.stoppedByLength;
  EXPECT_NEAR(shares, 1.0, 1e-12);
}

TEST(LevelLinesEngine, ScaledDataGiveTheScaledResult)
{
  const std::size_t n = 96;
  // Continuous noise: with integer grey levels stage 1 meets exact ties
  // between directions, which the scaled data's rounding may break the
  // other way (an equally good line, a different mean).
  const std::vector<float> f = AddNoise(StepCorner(n, n), 20.0, 5);
  const Result a = Filter(f, MakeGrid2D(n, n), LevelLinesParameters());
  std::vector<float> scaled(f.size());
  for (std::size_t i = 0; i < f.size(); ++i)
    scaled[i] = f[i] * 1000.0f + 7.0f;
  const Result b = Filter(scaled, MakeGrid2D(n, n), LevelLinesParameters());
  double worst = 0.0;
  for (std::size_t i = 0; i < f.size(); ++i)
    worst = std::max(worst, std::abs((double(b.u[i]) - 7.0) / 1000.0 - double(a.u[i])));
  std::cout << "scaled: max |u(1000 f + 7) - 7) / 1000 - u(f)| = " << worst << "\n";
  EXPECT_LT(worst, 1e-5 * 255.0);
  EXPECT_EQ(a.length, b.length);
}

TEST(LevelLinesEngine, SixteenBitGreyLevelsLoseNothing)
{
  // Integer grey levels (8-bit-like data), so that f + 30000 is exact in
  // float: sums relative to each pixel are then the same, and the results
  // differ by the output's rounding alone.
  const std::size_t n = 96;
  std::vector<float> f = AddNoise(StepCorner(n, n), 20.0, 5), offset(f.size());
  for (std::size_t i = 0; i < f.size(); ++i)
  {
    f[i] = std::round(f[i]);
    offset[i] = f[i] + 30000.0f;
  }
  const Result a = Filter(f, MakeGrid2D(n, n), LevelLinesParameters());
  const Result c = Filter(offset, MakeGrid2D(n, n), LevelLinesParameters());
  double worst = 0.0;
  for (std::size_t i = 0; i < f.size(); ++i)
    worst = std::max(worst, std::abs(double(c.u[i]) - 30000.0 - double(a.u[i])));
  std::cout << "offset 30000: max |u(f + 30000) - 30000 - u(f)| = " << worst << "\n";
  EXPECT_LE(worst, 0.004); // 2 ulp of 30000 in float
  EXPECT_EQ(a.length, c.length);
}

TEST(LevelLinesEngine, HybridClassifiesFlatAreasAndEdges)
{
  const std::size_t n = 96;
  const std::vector<float> truth = StepCorner(n, n);
  const std::vector<float> f = AddNoise(truth, 20.0, 9);
  LevelLinesParameters p;
  p.mode = LevelLinesMode::Hybrid;
  const Result r = Filter(f, MakeGrid2D(n, n), p);
  // Flat interiors: farther than l + 1 from the edge (its rays do not cross it); edge pixels: next to the
  // straight parts of the edge (rows n/2 - 1 and n/2, columns n/2 - 1 and n/2), away from the corner.
  std::size_t flat = 0, flatLow = 0, edge = 0, edgeDetected = 0;
  const std::ptrdiff_t h = std::ptrdiff_t(n / 2), reach = std::ptrdiff_t(p.segmentLength) + 1;
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i)
  {
    for (std::ptrdiff_t j = 0; j < std::ptrdiff_t(n); ++j)
    {
      const auto cls = LevelLinesClass(r.pixelClass[std::size_t(i) * n + std::size_t(j)]);
      const std::ptrdiff_t di = i - h, dj = j - h;
      // Chebyshev distance to the edge set (row h-1/2 for j >= h, column h-1/2 for i >= h).
      const double toRow = dj >= 0 ? std::abs(double(di) + 0.5) : 1e9;
      const double toColumn = di >= 0 ? std::abs(double(dj) + 0.5) : 1e9;
      const double distance = std::min(toRow, toColumn);
      const bool corner = std::abs(di) < 2 * reach && std::abs(dj) < 2 * reach;
      if (distance > double(reach))
      {
        ++flat;
        flatLow += cls == LevelLinesClass::LowSlope ? 1 : 0;
      }
      else if (distance < 1.0 && !corner && i >= reach && j >= reach && i + reach < std::ptrdiff_t(n) &&
               j + reach < std::ptrdiff_t(n))
      {
        ++edge;
        edgeDetected += cls != LevelLinesClass::LowSlope ? 1 : 0;
      }
    }
  }
  const double flatShare = double(flatLow) / double(flat), edgeShare = double(edgeDetected) / double(edge);
  std::cout << "hybrid: flat pixels LowSlope " << flatShare << " (" << flat << "), edge pixels SingleEdge/Complex "
            << edgeShare << " (" << edge << "), shares " << r.report.classShares[0] << " " << r.report.classShares[1]
            << " " << r.report.classShares[2] << "\n";
  // Measured (seed 9, sigma 20, 96^2): 77 % of the flat pixels LowSlope, every edge pixel SingleEdge or Complex.
  EXPECT_GT(flatShare, 0.65);
  EXPECT_GT(edgeShare, 0.9);
  EXPECT_NEAR(r.report.classShares[0] + r.report.classShares[1] + r.report.classShares[2], 1.0, 1e-12);
  // The hybrid output on the flat parts is at least as good as PI-PD's.
  EXPECT_GT(Psnr(r.u, truth), Psnr(f, truth) + 6.0);
}

TEST(LevelLinesEngine, AStackIsItsFramesFilteredOneByOne)
{
  const std::size_t n = 64;
  std::vector<float> stack;
  std::vector<std::vector<float>> frames;
  for (unsigned k = 0; k < 3; ++k)
  {
    frames.push_back(AddNoise(StepCorner(n, n), 15.0 + 5.0 * k, 20 + k));
    stack.insert(stack.end(), frames.back().begin(), frames.back().end());
  }
  LevelLinesParameters p;
  p.noiseSigma = 20.0; // one sigma for all (an estimate is the median of the frames')
  for (LevelLinesMode mode : { LevelLinesMode::PIPD, LevelLinesMode::Hybrid })
  {
    p.mode = mode;
    const Result all = Filter(stack, MakeGrid3D(n, n, 3), p);
    EXPECT_EQ(all.report.frames, 3u);
    for (std::size_t k = 0; k < 3; ++k)
    {
      const Result one = Filter(frames[k], MakeGrid2D(n, n), p);
      EXPECT_TRUE(std::equal(one.u.begin(), one.u.end(), all.u.begin() + k * n * n)) << "frame " << k;
      EXPECT_TRUE(std::equal(one.length.begin(), one.length.end(), all.length.begin() + k * n * n));
    }
  }
}

TEST(LevelLinesEngine, ACropPaddedByTheRadiusGivesTheSameInterior)
{
  const std::size_t n = 128;
  const std::vector<float> f = AddNoise(StepCorner(n, n), 20.0, 13);
  for (bool thick : { false, true })
  {
    for (LevelLinesMode mode : { LevelLinesMode::PIPD, LevelLinesMode::Hybrid })
    {
      LevelLinesParameters p;
      p.noiseSigma = 20.0;
      p.thick = thick;
      p.mode = mode;
      const Result whole = Filter(f, MakeGrid2D(n, n), p);
      // The interior rows 40..80, columns 50..90 (touching nothing), and a crop touching the top-left corner.
      const std::size_t r = LevelLinesRadius(p);
      for (const std::array<std::size_t, 4> & box :
           { std::array<std::size_t, 4>{ { 40, 80, 50, 90 } }, std::array<std::size_t, 4>{ { 0, 30, 0, 20 } } })
      {
        const std::size_t i0 = box[0] > r ? box[0] - r : 0, i1 = std::min(n, box[1] + r);
        const std::size_t j0 = box[2] > r ? box[2] - r : 0, j1 = std::min(n, box[3] + r);
        std::vector<float> crop;
        for (std::size_t i = i0; i < i1; ++i)
          crop.insert(crop.end(), f.begin() + i * n + j0, f.begin() + i * n + j1);
        const Result part = Filter(crop, MakeGrid2D(j1 - j0, i1 - i0), p);
        std::size_t differ = 0;
        for (std::size_t i = box[0]; i < box[1]; ++i)
          for (std::size_t j = box[2]; j < box[3]; ++j)
            differ += part.u[(i - i0) * (j1 - j0) + (j - j0)] != whole.u[i * n + j] ? 1 : 0;
        EXPECT_EQ(differ, 0u) << "thick " << thick << " mode " << ToString(mode) << " box " << box[0];
      }
    }
  }
}

TEST(LevelLinesEngine, BadInputIsRejectedWithAClearMessage)
{
  const auto message = [](const std::vector<float> & f, const Grid & grid, const LevelLinesParameters & p)
  {
    std::vector<float> u(grid.Count(), -1.0f);
    try
    {
      DenoiseLevelLines(f.data(), u.data(), grid, p, MakeExecution(Backend::CPU));
    }
    catch (const InvalidArgument & e)
    {
      EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](float v) { return v == -1.0f; }));
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({ 1.0f }, MakeGrid2D(1, 1), LevelLinesParameters()).find("at least 2 x 2"), std::string::npos);
  EXPECT_NE(message(std::vector<float>(10, 1.0f), MakeGrid2D(10, 1), LevelLinesParameters()).find("2 x 2"),
            std::string::npos);
  EXPECT_NE(message({ 1.0f, 2.0f, 3.0f, 4.0f }, MakeGrid2D(2, 2), LevelLinesParameters()).find("give noiseSigma"),
            std::string::npos);
  LevelLinesParameters given;
  given.noiseSigma = 1.0;
  EXPECT_EQ(message({ 1.0f, 2.0f, 3.0f, 4.0f }, MakeGrid2D(2, 2), given), ""); // 2 x 2 works with a given sigma
  std::vector<float> f(16 * 16, 3.0f);
  f[37] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(message(f, MakeGrid2D(16, 16), LevelLinesParameters()).find("index 37"), std::string::npos);
  f[37] = 3.0f;
  LevelLinesParameters p;
  p.segmentLength = 13;
  EXPECT_NE(message(f, MakeGrid2D(16, 16), p).find("segmentLength"), std::string::npos);
  std::vector<float> u(f.size());
  EXPECT_THROW(DenoiseLevelLines(f.data(), f.data(), MakeGrid2D(16, 16), LevelLinesParameters()), InvalidArgument);
  EXPECT_THROW(DenoiseLevelLines(nullptr, u.data(), MakeGrid2D(16, 16), LevelLinesParameters()), InvalidArgument);
}

TEST(LevelLinesEngine, AbortLeavesTheOutputUntouched)
{
  const std::size_t n = 48;
  std::vector<float> stack = AddNoise(std::vector<float>(2 * n * n, 100.0f), 10.0, 17);
  for (Backend backend : { Backend::CPU, Backend::OpenCL })
  {
    if (backend == Backend::OpenCL && ListDevices().empty())
      continue;
    std::vector<float> u(stack.size(), -5.0f);
    unsigned calls = 0;
    const ProgressCallback stop = [&](const Progress & progress)
    {
      ++calls;
      EXPECT_NE(progress.message.find("frame 1 of 2"), std::string::npos);
      return false;
    };
    EXPECT_THROW(DenoiseLevelLines(
                   stack.data(), u.data(), MakeGrid3D(n, n, 2), LevelLinesParameters(), MakeExecution(backend), stop),
                 Aborted);
    EXPECT_EQ(calls, 1u);
    EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](float v) { return v == -5.0f; })) << ToString(backend);
  }
}
