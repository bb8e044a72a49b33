// SPDX-License-Identifier: Apache-2.0
// Tests of the noise estimation from the image itself (gpurNoiseEstimation.h):
// the residual's noise gain, the variance map and the global sigma on white
// noise of known, constant or spatially varying, sigma on flat images and on
// the Shepp-Logan phantom (sharp edges), and the input checks.
#include "gpurCTPhantom.h"
#include "gpurError.h"
#include "gpurNoiseEstimation.h"
#include "gpurPhantom.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace
{

using SigmaFunction = std::function<double(std::size_t x, std::size_t y, std::size_t z)>;

/** clean + sigma(x) * N(0, 1), and the true variance sigma(x)^2. */
struct NoisyImage
{
  std::vector<float> f;
  std::vector<double> variance;
};

NoisyImage
AddNoise(const gpur::Grid & grid, const std::vector<float> & clean, const SigmaFunction & sigma, std::uint64_t seed)
{
  const std::vector<float> unit = gpur::AddGaussianNoise(std::vector<float>(grid.Count(), 0.0f), 1.0, seed);
  NoisyImage out{ std::vector<float>(grid.Count()), std::vector<double>(grid.Count()) };
  std::size_t i = 0;
  for (std::size_t z = 0; z < grid.size[2]; ++z)
    for (std::size_t y = 0; y < grid.size[1]; ++y)
      for (std::size_t x = 0; x < grid.size[0]; ++x, ++i)
      {
        const double s = sigma(x, y, z);
        out.f[i] = static_cast<float>(clean[i] + s * unit[i]);
        out.variance[i] = s * s;
      }
  return out;
}

/** Voxels whose 3^D neighbourhood in the clean image is not constant: the phantom's edges. */
std::vector<std::uint8_t>
EdgeVoxels(const gpur::Grid & grid, const std::vector<float> & clean)
{
  std::vector<std::uint8_t> edge(grid.Count(), 0);
  const long nx = static_cast<long>(grid.size[0]), ny = static_cast<long>(grid.size[1]),
             nz = static_cast<long>(grid.size[2]);
  const long rz = grid.dimension == 3 ? 1 : 0;
  for (long z = 0; z < nz; ++z)
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x)
      {
        const long i = (z * ny + y) * nx + x;
        for (long dz = -rz; dz <= rz; ++dz)
          for (long dy = -1; dy <= 1; ++dy)
            for (long dx = -1; dx <= 1; ++dx)
            {
              const long xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx >= 0 && xx < nx && yy >= 0 && yy < ny && zz >= 0 && zz < nz &&
                  clean[static_cast<std::size_t>((zz * ny + yy) * nx + xx)] != clean[static_cast<std::size_t>(i)])
              {
                edge[static_cast<std::size_t>(i)] = 1;
              }
            }
      }
  return edge;
}

/** How the estimated variance compares with the truth over a selection of voxels. */
struct Agreement
{
  std::size_t count = 0;
  double meanRatioError = 0.0; ///< mean(estimate) / mean(truth) - 1
  double medianError = 0.0;    ///< median of |estimate / truth - 1|
  double p90Error = 0.0;       ///< 90th percentile of |estimate / truth - 1|
};

template<typename Real>
Agreement
Compare(const std::vector<Real> & estimate,
        const std::vector<double> & truth,
        const std::function<bool(std::size_t)> & select)
{
  Agreement a;
  double se = 0.0, st = 0.0;
  std::vector<double> rel;
  for (std::size_t i = 0; i < truth.size(); ++i)
  {
    if (!select(i))
      continue;
    se += static_cast<double>(estimate[i]);
    st += truth[i];
    rel.push_back(std::abs(static_cast<double>(estimate[i]) / truth[i] - 1.0));
  }
  a.count = rel.size();
  if (rel.empty())
    return a;
  a.meanRatioError = se / st - 1.0;
  std::sort(rel.begin(), rel.end());
  a.medianError = rel[rel.size() / 2];
  a.p90Error = rel[rel.size() * 9 / 10];
  return a;
}

void
Print(const std::string & name, const Agreement & a)
{
  std::cout << "  " << name << ": " << a.count << " voxels, mean error " << 100.0 * a.meanRatioError
            << " %, median |rel. error| " << 100.0 * a.medianError << " %, 90th percentile " << 100.0 * a.p90Error
            << " %\n";
}

std::size_t
ZOf(const gpur::Grid & grid, std::size_t i)
{
  return i / (grid.size[0] * grid.size[1]);
}

std::size_t
YOf(const gpur::Grid & grid, std::size_t i)
{
  return (i / grid.size[0]) % grid.size[1];
}

} // namespace

TEST(NoiseEstimation, ResidualCancelsSmoothContentAndHasUnitNoiseGain)
{
  // Any image that is linear along at least one axis is cancelled exactly.
  const gpur::Grid grid = gpur::MakeGrid3D(20, 18, 16, 0.5, 1.0, 2.0);
  std::vector<double> smooth(grid.Count());
  std::size_t i = 0;
  for (std::size_t z = 0; z < 16; ++z)
    for (std::size_t y = 0; y < 18; ++y)
      for (std::size_t x = 0; x < 20; ++x, ++i)
      {
        const double X = static_cast<double>(x), Y = static_cast<double>(y), Z = static_cast<double>(z);
        smooth[i] = 3.0 + 0.1 * X - 0.02 * Y * Y + 0.005 * Z * Z * Y + 0.001 * X * Y * Z + 0.03 * X * X * Z;
      }
  const std::vector<double> r0 = gpur::NoiseResidual(smooth.data(), grid);
  for (double v : r0)
  {
    ASSERT_NEAR(v, 0.0, 1e-10);
  }

  // White noise of variance s^2: the residual has variance s^2 (3D and 2D).
  const double sigma = 0.2;
  for (const gpur::Grid & g : { gpur::MakeGrid3D(64, 64, 64), gpur::MakeGrid2D(512, 512) })
  {
    const auto noisy = gpur::AddGaussianNoise(std::vector<float>(g.Count(), 1.0f), sigma, 7);
    const std::vector<float> r = gpur::NoiseResidual(noisy.data(), g);
    double s2 = 0.0;
    for (float v : r)
      s2 += static_cast<double>(v) * v;
    const double ratio = s2 / static_cast<double>(r.size()) / (sigma * sigma);
    std::cout << "  " << g.dimension << "D residual variance / sigma^2 = " << ratio << "\n";
    EXPECT_NEAR(ratio, 1.0, 0.02);
  }
}

TEST(NoiseEstimation, WhiteNoiseOnFlatImage)
{
  // (a) constant sigma on a flat image: the global sigma and the map's mean within 5 %.
  const double sigma = 0.1;
  for (const gpur::Grid & grid : { gpur::MakeGrid3D(64, 64, 64), gpur::MakeGrid2D(256, 256) })
  {
    const auto img = AddNoise(
      grid,
      std::vector<float>(grid.Count(), 0.5f),
      [sigma](std::size_t, std::size_t, std::size_t) { return sigma; },
      11);
    const double s = gpur::EstimateNoiseSigma(img.f.data(), grid);
    const auto v = gpur::EstimateNoiseVariance(img.f.data(), grid);
    const Agreement all = Compare(v, img.variance, [](std::size_t) { return true; });
    std::cout << "  " << grid.dimension << "D flat, sigma " << sigma << ": global sigma " << s << " (error "
              << 100.0 * (s / sigma - 1.0) << " %)\n";
    Print(std::to_string(grid.dimension) + "D flat map", all);
    EXPECT_NEAR(s / sigma, 1.0, 0.05);
    EXPECT_NEAR(all.meanRatioError, 0.0, 0.05);
    EXPECT_LT(all.medianError, 0.2);
    for (float x : v)
    {
      ASSERT_GT(x, 0.0f);
    }
  }
}

namespace
{

/**
 * (b) Shepp-Logan + noise with a known spatially varying sigma; compares the
 * map with sigma^2 in every region: over all its voxels, those inside the
 * head, and the phantom's edge voxels (the map is also checked to be > 0).
 */
void
CheckPhantom(const std::string & name,
             const gpur::Grid & grid,
             const SigmaFunction & sigma,
             const std::vector<std::pair<std::string, std::function<bool(std::size_t)>>> & regions,
             double meanTolerance,
             double medianTolerance)
{
  const std::vector<float> clean = gpur::SheppLoganPhantom(grid);
  const auto img = AddNoise(grid, clean, sigma, 2024);
  const auto edge = EdgeVoxels(grid, clean);
  const auto v = gpur::EstimateNoiseVariance(img.f.data(), grid);
  std::cout << name << " (" << grid.ToString() << ")\n";
  EXPECT_GT(*std::min_element(v.begin(), v.end()), 0.0f);
  for (const auto & region : regions)
  {
    const auto & in = region.second;
    const Agreement all = Compare(v, img.variance, in);
    const Agreement onEdges = Compare(v, img.variance, [&](std::size_t i) { return in(i) && edge[i]; });
    const Agreement inside = Compare(v, img.variance, [&](std::size_t i) { return in(i) && clean[i] > 0.0f; });
    Print(region.first + ", all voxels", all);
    Print(region.first + ", inside the head", inside);
    Print(region.first + ", phantom edge voxels", onEdges);
    ASSERT_GT(onEdges.count, 100u);
    for (const Agreement * a : { &all, &inside, &onEdges })
    {
      EXPECT_NEAR(a->meanRatioError, 0.0, meanTolerance) << region.first;
      EXPECT_LT(a->medianError, medianTolerance) << region.first;
    }
  }
}

} // namespace

TEST(NoiseEstimation, PhantomWithTwoNoiseLevels3D)
{
  // sigma = 0.03 for z < 32 and 0.12 for z >= 32 (two noise levels, like the
  // Blade volume of [Huang2023, §6.6]); the map is spread over R + 1 = 7 voxels
  // either side of the jump, so the regions start 7 voxels away from it.
  const gpur::Grid grid = gpur::MakeGrid3D(64, 64, 64);
  const unsigned R = gpur::NoiseEstimationOptions{}.WindowRadius(3);
  const std::size_t lowEnd = 32 - (R + 1), highBegin = 32 + (R + 1);
  CheckPhantom(
    "Shepp-Logan, sigma 0.03 | 0.12 along z",
    grid,
    [](std::size_t, std::size_t, std::size_t z) { return z < 32 ? 0.03 : 0.12; },
    { { "z < " + std::to_string(lowEnd), [&](std::size_t i) { return ZOf(grid, i) < lowEnd; } },
      { "z >= " + std::to_string(highBegin), [&](std::size_t i) { return ZOf(grid, i) >= highBegin; } } },
    0.2,
    0.2);

  // The global sigma follows the quieter half (documented); the map's RMS is the true RMS sigma.
  const std::vector<float> clean = gpur::SheppLoganPhantom(grid);
  const auto img = AddNoise(
    grid, clean, [](std::size_t, std::size_t, std::size_t z) { return z < 32 ? 0.03 : 0.12; }, 9);
  const auto v = gpur::EstimateNoiseVariance(img.f.data(), grid);
  const double rms = std::sqrt(Compare(v, img.variance, [](std::size_t) { return true; }).meanRatioError + 1.0);
  const double global = gpur::EstimateNoiseSigma(img.f.data(), grid);
  std::cout << "  global sigma " << global << ", RMS of the map / true RMS sigma " << rms << "\n";
  EXPECT_NEAR(global / 0.03, 1.0, 0.1);
  EXPECT_NEAR(rms, 1.0, 0.05);
}

TEST(NoiseEstimation, PhantomWithNoiseRamp3D)
{
  // sigma rises linearly from 0.03 (z = 0) to 0.12 (z = 63); four slabs.
  const gpur::Grid grid = gpur::MakeGrid3D(64, 64, 64);
  std::vector<std::pair<std::string, std::function<bool(std::size_t)>>> slabs;
  for (std::size_t s = 0; s < 4; ++s)
  {
    slabs.emplace_back("slab z in [" + std::to_string(16 * s) + ", " + std::to_string(16 * s + 16) + ")",
                       [&grid, s](std::size_t i) { return ZOf(grid, i) / 16 == s; });
  }
  CheckPhantom(
    "Shepp-Logan, sigma ramp 0.03 -> 0.12 along z",
    grid,
    [](std::size_t, std::size_t, std::size_t z) { return 0.03 + 0.09 * static_cast<double>(z) / 63.0; },
    slabs,
    0.2,
    0.2);
}

TEST(NoiseEstimation, PhantomWithTwoNoiseLevels2D)
{
  const gpur::Grid grid = gpur::MakeGrid2D(256, 256);
  const unsigned R = gpur::NoiseEstimationOptions{}.WindowRadius(2);
  const std::size_t lowEnd = 128 - (R + 1), highBegin = 128 + (R + 1);
  CheckPhantom(
    "2D Shepp-Logan, sigma 0.03 | 0.12 along y",
    grid,
    [](std::size_t, std::size_t y, std::size_t) { return y < 128 ? 0.03 : 0.12; },
    { { "y < " + std::to_string(lowEnd), [&](std::size_t i) { return YOf(grid, i) < lowEnd; } },
      { "y >= " + std::to_string(highBegin), [&](std::size_t i) { return YOf(grid, i) >= highBegin; } } },
    0.2,
    0.2);
}

TEST(NoiseEstimation, GlobalSigmaOnPhantom)
{
  // (c) one sigma for the whole phantom, within 10 %, float and double input.
  for (const gpur::Grid & grid : { gpur::MakeGrid3D(64, 64, 64), gpur::MakeGrid2D(256, 256) })
  {
    for (double sigma : { 0.02, 0.05, 0.1 })
    {
      const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), sigma, 5);
      const double s = gpur::EstimateNoiseSigma(f.data(), grid);
      const std::vector<double> fd(f.begin(), f.end());
      const double sd = gpur::EstimateNoiseSigma(fd.data(), grid);
      std::cout << "  " << grid.dimension << "D Shepp-Logan, sigma " << sigma << ": estimate " << s << " (error "
                << 100.0 * (s / sigma - 1.0) << " %)\n";
      EXPECT_NEAR(s / sigma, 1.0, 0.1);
      EXPECT_NEAR(sd / s, 1.0, 1e-5);
    }
  }
}

TEST(NoiseEstimation, IndependentOfThreadsSpacingAndScale)
{
  gpur::Grid grid = gpur::MakeGrid3D(40, 36, 32);
  const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.05, 3);
  const auto one = gpur::EstimateNoiseVariance(f.data(), grid, {}, gpur::MakeThreadParallelFor(1));
  const auto three = gpur::EstimateNoiseVariance(f.data(), grid, {}, gpur::MakeThreadParallelFor(3));
  EXPECT_EQ(one, three);
  EXPECT_EQ(gpur::EstimateNoiseSigma(f.data(), grid, {}, gpur::MakeThreadParallelFor(1)),
            gpur::EstimateNoiseSigma(f.data(), grid, {}, gpur::MakeThreadParallelFor(3)));

  // The spacing plays no part.
  gpur::Grid anisotropic = grid;
  anisotropic.spacing = { { 0.3, 0.7, 2.5 } };
  EXPECT_EQ(one, gpur::EstimateNoiseVariance(f.data(), anisotropic));

  // Scaling the intensities by c scales the variance by c^2, also far from unit range.
  const double c = 1e15;
  std::vector<double> big(f.size());
  for (std::size_t i = 0; i < f.size(); ++i)
  {
    big[i] = 1000.0 + c * f[i];
  }
  const auto scaled = gpur::EstimateNoiseVariance(big.data(), grid);
  for (std::size_t i = 0; i < f.size(); ++i)
  {
    ASSERT_NEAR(scaled[i] / (c * c) / one[i], 1.0, 1e-3) << i;
  }
}

TEST(NoiseEstimation, BadInputThrows)
{
  // (d) invalid images and options are rejected with gpur::InvalidArgument.
  const gpur::Grid grid = gpur::MakeGrid3D(16, 16, 16);
  std::vector<float> f = gpur::AddGaussianNoise(std::vector<float>(grid.Count(), 0.0f), 0.1, 1);
  const auto expectThrow = [](const std::function<void()> & call, const std::string & needle)
  {
    try
    {
      call();
      ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
    }
    catch (const gpur::InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectThrow([&] { gpur::EstimateNoiseVariance<float>(nullptr, grid); }, "null");

  gpur::Grid empty = grid;
  empty.size = { { 0, 16, 16 } };
  expectThrow([&] { gpur::EstimateNoiseVariance(f.data(), empty); }, "empty");
  expectThrow([&] { gpur::EstimateNoiseSigma(f.data(), empty); }, "empty");

  const gpur::Grid thin = gpur::MakeGrid3D(16, 16, 2);
  expectThrow([&] { gpur::EstimateNoiseVariance(f.data(), thin); }, "at least 3");
  expectThrow([&] { gpur::EstimateNoiseSigma(f.data(), gpur::MakeGrid2D(2, 100)); }, "at least 3");

  for (float bad : { std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity() })
  {
    std::vector<float> g = f;
    g[1234] = bad;
    expectThrow([&] { gpur::EstimateNoiseVariance(g.data(), grid); }, "index 1234");
    expectThrow([&] { gpur::EstimateNoiseSigma(g.data(), grid); }, "non-finite");
  }

  const auto withOptions = [&](const std::function<void(gpur::NoiseEstimationOptions &)> & set)
  {
    gpur::NoiseEstimationOptions o;
    set(o);
    return [&f, &grid, o] { gpur::EstimateNoiseVariance(f.data(), grid, o); };
  };
  expectThrow(withOptions([](auto & o) { o.windowRadius = 5000; }), "windowRadius");
  expectThrow(withOptions([](auto & o) { o.edgeSmoothingSigma = 0.0; }), "edgeSmoothingSigma");
  expectThrow(withOptions([](auto & o) { o.edgeThreshold = -1.0; }), "edgeThreshold");
  expectThrow(withOptions([](auto & o) { o.edgeThreshold = std::numeric_limits<double>::quiet_NaN(); }),
              "edgeThreshold");
  expectThrow(withOptions([](auto & o) { o.outlierClip = 1.0; }), "outlierClip");
  expectThrow(withOptions([](auto & o) { o.iterations = 0; }), "iterations");
  expectThrow(withOptions([](auto & o) { o.floorFraction = 0.0; }), "floorFraction");
  expectThrow(withOptions([](auto & o) { o.floorFraction = 2.0; }), "floorFraction");

  // An image without noise has no positive variance map; its global sigma is 0.
  std::vector<float> ramp(grid.Count());
  for (std::size_t i = 0; i < ramp.size(); ++i)
  {
    ramp[i] = 0.25f + 0.125f * static_cast<float>(i % 16);
  }
  expectThrow([&] { gpur::EstimateNoiseVariance(ramp.data(), grid); }, "no measurable noise");
  EXPECT_EQ(gpur::EstimateNoiseSigma(ramp.data(), grid), 0.0);
}

TEST(NoiseEstimation, CorrelatedCTNoise)
{
  // Filtered back-projection colours the noise (the ramp filter): the residual
  // reads 0.05-0.55 of the variance, which the measured gain corrects. The truth
  // is the generator's analytic FBP/FDK variance (checked against realisations in
  // gpurCTPhantomTest). Tolerances: the mean over the volume within 10 % for the
  // parallel beam (the gain's spread between tiles, and aliasing streaks that
  // count as noise; measured 0 % Ram-Lak, -9 % Hann); 15 % for the cone beam
  // (measured -13 %), whose noise in the part is anisotropic (long axis-aligned
  // paths through the block): there the residual's gain is 30 % below that of
  // the flat tiles around it (measured on the pure noise), which also makes the
  // voxel-wise error larger.
  const gpur::Grid grid = gpur::MakeGrid3D(64, 64, 32);
  struct Case
  {
    const char * name;
    gpur::CTGeometry geometry;
    gpur::RampFilter filter;
    std::size_t views;
    double tolerance, medianTolerance;
  };
  for (const Case & c :
       { Case{ "parallel beam, Ram-Lak", gpur::CTGeometry::ParallelBeam, gpur::RampFilter::RamLak, 180, 0.1, 0.25 },
         Case{ "parallel beam, Hann", gpur::CTGeometry::ParallelBeam, gpur::RampFilter::Hann, 180, 0.1, 0.25 },
         Case{ "cone beam (FDK), Ram-Lak", gpur::CTGeometry::ConeBeam, gpur::RampFilter::RamLak, 200, 0.15, 0.35 } })
  {
    gpur::CTScanParameters p;
    p.geometry = c.geometry;
    p.filter = c.filter;
    p.numberOfAngles = c.views;
    p.photonsPerRay = 2000.0;
    p.seed = 11;
    const auto scan = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::MachinedPart, p);
    const std::vector<double> truth(scan.variance.begin(), scan.variance.end());
    gpur::NoiseEstimationReport report;
    const auto v = gpur::EstimateNoiseVariance(scan.noisy.data(), grid, {}, {}, &report);
    gpur::NoiseEstimationOptions white;
    white.spectrum = gpur::NoiseSpectrum::White;
    gpur::NoiseEstimationReport whiteReport;
    const auto w = gpur::EstimateNoiseVariance(scan.noisy.data(), grid, white, {}, &whiteReport);
    const Agreement all = Compare(v, truth, [](std::size_t) { return true; });
    const Agreement asWhite = Compare(w, truth, [](std::size_t) { return true; });
    gpur::NoiseEstimationReport sigmaReport;
    const double sigma = gpur::EstimateNoiseSigma(scan.noisy.data(), grid, {}, {}, &sigmaReport);
    double meanTruth = 0.0;
    for (double x : truth)
      meanTruth += x;
    meanTruth /= static_cast<double>(truth.size());
    std::cout << c.name << ": residual gain " << report.residualGain << " (" << report.flatTiles << " of "
              << report.tiles << " tiles flat)\n";
    Print("measured spectrum", all);
    Print("white noise assumed", asWhite);
    std::cout << "  global sigma^2 / mean variance " << sigma * sigma / meanTruth << "\n";
    EXPECT_TRUE(report.gainMeasured) << c.name;
    EXPECT_FALSE(whiteReport.gainMeasured) << c.name;
    EXPECT_EQ(whiteReport.residualGain, 1.0) << c.name;
    EXPECT_LT(report.residualGain, 0.65) << c.name;
    EXPECT_NEAR(all.meanRatioError, 0.0, c.tolerance) << c.name;
    EXPECT_LT(all.medianError, c.medianTolerance) << c.name;
    EXPECT_LT(asWhite.meanRatioError, -0.4) << c.name << ": the white-noise estimator reads half or less";
    // The global sigma follows the quieter parts (documented), within the range of the variance.
    EXPECT_GT(sigma * sigma / meanTruth, 0.5) << c.name;
    EXPECT_LT(sigma * sigma / meanTruth, 1.1) << c.name;
  }
}
