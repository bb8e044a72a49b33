// SPDX-License-Identifier: Apache-2.0
// Tests of the CT test-data generator: machined-part geometry, FBP accuracy,
// CT noise statistics (1/sqrt(I0) scaling, analytic vs empirical variance,
// dependence on the material), determinism.
#include "gpurCTPhantom.h"
#include "gpurError.h"
#include "gpurPhantom.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <vector>

namespace
{

double
RelativeL2(const std::vector<float> & a, const std::vector<float> & b, const std::vector<std::uint8_t> * mask = nullptr)
{
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    if (mask && !(*mask)[i])
    {
      continue;
    }
    num += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

double
MeanOver(const std::vector<double> & v, const std::vector<std::uint8_t> & mask)
{
  double s = 0.0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
  {
    if (mask[i])
    {
      s += v[i];
      ++n;
    }
  }
  return n ? s / static_cast<double>(n) : 0.0;
}

// Regions of the machined part on one slice (same mask for every slice of the grid).
struct Regions
{
  std::vector<std::uint8_t> block; // block material at least `margin` voxels from any edge or feature
  std::vector<std::uint8_t> air;   // air outside the block, at least `margin` voxels from it, inside the scan circle
  std::vector<std::uint8_t> pin;   // inside the pin, `margin` from its edge
  std::vector<std::uint8_t> all;   // inside the scan circle
};

Regions
MakeRegions(const gpur::Grid & grid, const gpur::MachinedPartLayout & l, double margin)
{
  const std::size_t nx = grid.size[0], ny = grid.size[1], nz = grid.dimension == 3 ? grid.size[2] : 1;
  Regions r;
  r.block.assign(grid.Count(), 0);
  r.air.assign(grid.Count(), 0);
  r.pin.assign(grid.Count(), 0);
  r.all.assign(grid.Count(), 0);
  auto distance = [](const gpur::MachinedPartLayout::Circle & c, double x, double y)
  { return std::hypot(x - c.cx, y - c.cy); };
  for (std::size_t z = 0; z < nz; ++z)
  {
    for (std::size_t y = 0; y < ny; ++y)
    {
      for (std::size_t x = 0; x < nx; ++x)
      {
        const std::size_t i = (z * ny + y) * nx + x;
        const double px = x + 0.5, py = y + 0.5;
        const double rx = px - 0.5 * nx, ry = py - 0.5 * ny;
        const bool inCircle = std::hypot(rx, ry) < 0.5 * std::min(nx, ny) - 1.0;
        r.all[i] = inCircle;
        const double dBlock = std::min(std::min(px - l.blockBegin[0], l.blockEnd[0] - px),
                                       std::min(py - l.blockBegin[1], l.blockEnd[1] - py)); // > 0 inside
        bool nearFeature = distance(l.pin, px, py) < 0.5 * l.pin.diameter + margin;
        for (const auto & b : l.bores)
        {
          nearFeature = nearFeature || distance(b, px, py) < 0.5 * b.diameter + margin;
        }
        for (const auto & s : l.slots)
        {
          nearFeature =
            nearFeature || (px > s.xBegin - margin && px < s.xBegin + s.width + margin && py > s.yBegin - margin);
        }
        r.block[i] = dBlock > margin && !nearFeature;
        r.air[i] = inCircle && dBlock < -margin;
        r.pin[i] = distance(l.pin, px, py) < 0.5 * l.pin.diameter - margin;
      }
    }
  }
  return r;
}

// Voxels whose (2 radius + 1)^2 neighbourhood in the slice is constant in `f`.
std::vector<std::uint8_t>
FlatRegion(const gpur::Grid & grid, const std::vector<float> & f, int radius)
{
  const int nx = static_cast<int>(grid.size[0]), ny = static_cast<int>(grid.size[1]);
  std::vector<std::uint8_t> m(f.size(), 0);
  for (int y = radius; y < ny - radius; ++y)
  {
    for (int x = radius; x < nx - radius; ++x)
    {
      bool flat = true;
      for (int dy = -radius; dy <= radius && flat; ++dy)
      {
        for (int dx = -radius; dx <= radius && flat; ++dx)
        {
          flat = f[(y + dy) * nx + x + dx] == f[y * nx + x];
        }
      }
      m[y * nx + x] = flat;
    }
  }
  return m;
}

std::size_t
Count(const std::vector<std::uint8_t> & m)
{
  std::size_t n = 0;
  for (auto v : m)
  {
    n += v;
  }
  return n;
}

} // namespace

TEST(CTPhantomGeometry, MachinedPartFeatures)
{
  const gpur::Grid grid = gpur::MakeGrid3D(64, 64, 32);
  const gpur::MachinedPartLayout l = gpur::MakeMachinedPartLayout(grid);
  const std::vector<float> f = gpur::MachinedPartPhantom(grid);
  ASSERT_EQ(f.size(), grid.Count());
  const std::size_t nx = 64, ny = 64;
  auto at = [&](std::size_t x, std::size_t y, std::size_t z) { return f[(z * ny + y) * nx + x]; };

  EXPECT_EQ(l.zBegin, 2u);
  EXPECT_EQ(l.zEnd, 30u);
  EXPECT_EQ(l.blockBegin[0], 8u);
  EXPECT_EQ(l.blockEnd[0], 56u);
  EXPECT_EQ(l.blockBegin[1], 12u);
  EXPECT_EQ(l.blockEnd[1], 52u);
  float lo = 1e9f, hi = -1e9f;
  for (float v : f)
  {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 1.0f);
  // Air above and below the part, and around the block.
  for (std::size_t i = 0; i < nx * ny; ++i)
  {
    ASSERT_EQ(f[i], 0.0f);
    ASSERT_EQ(f[31 * nx * ny + i], 0.0f);
  }
  for (std::size_t z = l.zBegin; z < l.zEnd; ++z)
  {
    EXPECT_EQ(at(l.blockBegin[0] - 1, 30, z), 0.0f);
    EXPECT_EQ(at(l.blockEnd[0], 30, z), 0.0f);
    EXPECT_EQ(at(30, l.blockBegin[1] - 1, z), 0.0f);
    // Sharp edge: the first block voxel has the full material value.
    EXPECT_EQ(at(l.blockBegin[0], 30, z), 0.5f);
    EXPECT_EQ(at(l.blockBegin[0] + 1, l.blockBegin[1] + 1, z), 0.5f);
    EXPECT_EQ(at(static_cast<std::size_t>(l.pin.cx), static_cast<std::size_t>(l.pin.cy), z), 1.0f);
  }
  // Bores: three different diameters, every voxel whose centre is inside is air, those
  // at least one voxel outside are material; the air area matches pi d^2 / 4.
  ASSERT_EQ(l.bores.size(), 3u);
  EXPECT_GT(l.bores[0].diameter, l.bores[1].diameter);
  EXPECT_GT(l.bores[1].diameter, l.bores[2].diameter);
  EXPECT_GE(l.bores[2].diameter, 2.0);
  for (const auto & b : l.bores)
  {
    std::size_t air = 0;
    for (std::size_t y = 0; y < ny; ++y)
    {
      for (std::size_t x = 0; x < nx; ++x)
      {
        const double d = std::hypot(x + 0.5 - b.cx, y + 0.5 - b.cy);
        if (d <= 0.5 * b.diameter)
        {
          ASSERT_EQ(at(x, y, 16), 0.0f) << "bore voxel " << x << "," << y;
          ++air;
        }
        else if (d < 0.5 * b.diameter + 1.5)
        {
          ASSERT_EQ(at(x, y, 16), 0.5f) << "material around the bore " << x << "," << y;
        }
      }
    }
    const double area = 3.14159265358979 * b.diameter * b.diameter / 4.0;
    EXPECT_NEAR(static_cast<double>(air), area, std::max(3.0, 0.2 * area)) << "bore diameter " << b.diameter;
  }
  // Slots: 1, 2 and 3 voxels wide, cut from the lower block edge, material in between.
  ASSERT_EQ(l.slots.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k)
  {
    const auto & s = l.slots[k];
    EXPECT_EQ(s.width, k + 1);
    EXPECT_EQ(s.yEnd, l.blockEnd[1]);
    for (std::size_t y = s.yBegin; y < s.yEnd; ++y)
    {
      std::size_t width = 0;
      for (std::size_t x = s.xBegin - 1; x <= s.xBegin + s.width; ++x)
      {
        width += at(x, y, 10) == 0.0f;
      }
      ASSERT_EQ(width, s.width) << "slot " << k << " row " << y;
      ASSERT_EQ(at(s.xBegin - 1, y, 10), 0.5f);
      ASSERT_EQ(at(s.xBegin + s.width, y, 10), 0.5f);
    }
    EXPECT_EQ(at(s.xBegin, s.yBegin - 1, 10), 0.5f) << "slot bottom";
  }
  // A 2D grid is one slice of the same part.
  const gpur::Grid g2 = gpur::MakeGrid2D(64, 64);
  const std::vector<float> f2 = gpur::MachinedPartPhantom(g2);
  for (std::size_t i = 0; i < nx * ny; ++i)
  {
    ASSERT_EQ(f2[i], f[16 * nx * ny + i]);
  }
  EXPECT_THROW(gpur::MachinedPartPhantom(gpur::MakeGrid2D(8, 64)), gpur::InvalidArgument);
}

TEST(CTPhantomGeometry, FeaturesStaySeparateAtOtherSizes)
{
  for (const auto & size : { std::array<std::size_t, 2>{ { 32, 32 } },
                             std::array<std::size_t, 2>{ { 48, 40 } },
                             std::array<std::size_t, 2>{ { 100, 36 } },
                             std::array<std::size_t, 2>{ { 36, 100 } } })
  {
    const std::size_t nx = size[0], ny = size[1];
    const gpur::Grid grid = gpur::MakeGrid2D(nx, ny);
    const auto l = gpur::MakeMachinedPartLayout(grid);
    const auto f = gpur::MachinedPartPhantom(grid);
    for (const auto & c : l.bores)
    {
      for (std::size_t y = 0; y < ny; ++y)
      {
        for (std::size_t x = 0; x < nx; ++x)
        {
          const double d = std::hypot(x + 0.5 - c.cx, y + 0.5 - c.cy);
          if (d <= 0.5 * c.diameter)
          {
            ASSERT_EQ(f[y * nx + x], 0.0f) << nx << "x" << ny;
          }
          else if (d < 0.5 * c.diameter + 1.5)
          {
            ASSERT_EQ(f[y * nx + x], 0.5f) << nx << "x" << ny << " around a bore at " << x << "," << y;
          }
        }
      }
    }
    for (const auto & s : l.slots)
    {
      for (std::size_t y = s.yBegin; y < s.yEnd; ++y)
      {
        ASSERT_EQ(f[y * nx + s.xBegin - 1], 0.5f) << nx << "x" << ny;
        ASSERT_EQ(f[y * nx + s.xBegin + s.width], 0.5f) << nx << "x" << ny;
        for (std::size_t x = s.xBegin; x < s.xBegin + s.width; ++x)
        {
          ASSERT_EQ(f[y * nx + x], 0.0f);
        }
      }
    }
    EXPECT_EQ(f[static_cast<std::size_t>(l.pin.cy) * nx + static_cast<std::size_t>(l.pin.cx)], 1.0f);
  }
  EXPECT_THROW(gpur::MachinedPartPhantom(gpur::MakeGrid2D(31, 64)), gpur::InvalidArgument);
}

TEST(CTPhantomFBP, NoiseFreeReconstructionReproducesThePhantom)
{
  // 64 x 64, 101 views (pi/2 * 64) over [0, pi), 95 bins, Ram-Lak unless said otherwise.
  const gpur::Grid grid = gpur::MakeGrid2D(64, 64);
  gpur::CTScanParameters p;
  p.computeNoiseFree = true;
  p.computeVariance = false;
  auto fbp = [&](const std::vector<float> & truth) { return gpur::SimulateCT(grid, truth, p).noiseFree; };
  auto report = [](const char * what, double overall, double flat)
  { std::cout << what << ": relative L2 error " << overall << ", in flat regions " << flat << "\n"; };

  // A smooth off-centre blob: tests the geometry (a flip or a shift would show) and the scaling.
  std::vector<float> blob(grid.Count());
  for (std::size_t y = 0; y < 64; ++y)
  {
    for (std::size_t x = 0; x < 64; ++x)
    {
      const double dx = x - 19.0, dy = y - 38.0;
      blob[y * 64 + x] = static_cast<float>(std::exp(-(dx * dx + dy * dy) / (2.0 * 3.84 * 3.84)));
    }
  }
  const auto sim = gpur::SimulateCT(grid, blob, p);
  EXPECT_EQ(sim.numberOfAngles, 101u);
  EXPECT_EQ(sim.numberOfBins, 95u);
  const double blobError = RelativeL2(sim.noiseFree, blob);
  std::cout << "Gaussian blob (sigma 3.84 voxels): relative L2 error " << blobError << "\n";
  EXPECT_LT(blobError, 0.03);
  // The same on anisotropic voxels (0.5 x 1 mm): the geometry is in mm.
  {
    const gpur::Grid aniso = gpur::MakeGrid2D(96, 48, 0.5, 1.0);
    std::vector<float> f(aniso.Count());
    for (std::size_t y = 0; y < 48; ++y)
    {
      for (std::size_t x = 0; x < 96; ++x)
      {
        const double dx = (x - 30.0) * 0.5, dy = y - 28.0;
        f[y * 96 + x] = static_cast<float>(std::exp(-(dx * dx + dy * dy) / (2.0 * 3.0 * 3.0)));
      }
    }
    const double anisoError = RelativeL2(gpur::SimulateCT(aniso, f, p).noiseFree, f);
    std::cout << "Gaussian blob on 0.5 x 1 mm voxels: relative L2 error " << anisoError << "\n";
    EXPECT_LT(anisoError, 0.03);
  }

  // Sharp phantoms: the error sits at the edges (the Shepp-Logan skull is a one-voxel ring at 64^2).
  const std::vector<float> sheppLogan = gpur::SheppLoganPhantom(grid);
  const std::vector<float> part = gpur::MachinedPartPhantom(grid);
  const auto slFlat = FlatRegion(grid, sheppLogan, 2);
  const auto partFlat = FlatRegion(grid, part, 2);
  const auto slRecon = fbp(sheppLogan), partRecon = fbp(part);
  const double slError = RelativeL2(slRecon, sheppLogan), slFlatError = RelativeL2(slRecon, sheppLogan, &slFlat);
  const double partError = RelativeL2(partRecon, part), partFlatError = RelativeL2(partRecon, part, &partFlat);
  report("Shepp-Logan", slError, slFlatError);
  report("machined part", partError, partFlatError);
  EXPECT_LT(slError, 0.40);
  EXPECT_LT(slFlatError, 0.15);
  EXPECT_LT(partError, 0.15);
  EXPECT_LT(partFlatError, 0.035);
  const Regions r = MakeRegions(grid, gpur::MakeMachinedPartLayout(grid), 3.0);
  double sum = 0.0;
  for (std::size_t i = 0; i < grid.Count(); ++i)
  {
    sum += r.block[i] ? partRecon[i] : 0.0;
  }
  const double blockMean = sum / static_cast<double>(Count(r.block));
  std::cout << "mean of the reconstructed block interior " << blockMean << " (truth 0.5)\n";
  EXPECT_NEAR(blockMean, 0.5, 0.01);

  // Twice the views: no worse. Hann window: smoother edges, so a larger overall error.
  p.numberOfAngles = 202;
  const double finer = RelativeL2(fbp(part), part);
  p.numberOfAngles = 0;
  p.filter = gpur::RampFilter::Hann;
  const auto hann = fbp(part);
  const double hannError = RelativeL2(hann, part), hannFlatError = RelativeL2(hann, part, &partFlat);
  std::cout << "machined part, 202 views: " << finer << "\n";
  report("machined part, Hann", hannError, hannFlatError);
  EXPECT_LT(finer, partError + 1e-3);
  EXPECT_GT(hannError, partError);
  EXPECT_LT(hannError, 0.25);
  EXPECT_LT(hannFlatError, 0.01);
}

TEST(CTPhantomNoise, StdScalesWithInverseSqrtPhotons)
{
  const gpur::Grid grid = gpur::MakeGrid3D(64, 64, 2);
  gpur::CTScanParameters p;
  p.computeNoiseFree = true;
  p.computeVariance = false;
  p.seed = 5;
  double std[2];
  for (int k = 0; k < 2; ++k)
  {
    p.photonsPerRay = k == 0 ? 1.0e4 : 4.0e4;
    const auto sim = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::MachinedPart, p);
    double s = 0.0;
    for (std::size_t i = 0; i < grid.Count(); ++i)
    {
      const double d = static_cast<double>(sim.noisy[i]) - sim.noiseFree[i];
      s += d * d;
    }
    std[k] = std::sqrt(s / static_cast<double>(grid.Count()));
  }
  std::cout << "noise std: I0 = 1e4 " << std[0] << ", I0 = 4e4 " << std[1] << ", ratio " << std[0] / std[1] << "\n";
  EXPECT_NEAR(std[0] / std[1], 2.0, 0.2);
}

TEST(CTPhantomNoise, AnalyticVarianceMatchesEmpiricalOver30Realisations)
{
  const gpur::Grid grid = gpur::MakeGrid2D(32, 32);
  const auto layout = gpur::MakeMachinedPartLayout(grid);
  const Regions regions = MakeRegions(grid, layout, 1.0);
  for (auto filter : { gpur::RampFilter::RamLak, gpur::RampFilter::Hann })
  {
    gpur::CTScanParameters p;
    p.filter = filter;
    p.photonsPerRay = 5.0e3;
    p.electronicNoise = 5.0;
    const auto reference = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::MachinedPart, p);
    const std::vector<double> analytic(reference.variance.begin(), reference.variance.end());
    p.computeVariance = false;
    const int realisations = 30;
    std::vector<double> sum(grid.Count(), 0.0), sum2(grid.Count(), 0.0);
    for (int k = 0; k < realisations; ++k)
    {
      p.seed = 1000 + k;
      const auto sim = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::MachinedPart, p);
      for (std::size_t i = 0; i < grid.Count(); ++i)
      {
        sum[i] += sim.noisy[i];
        sum2[i] += static_cast<double>(sim.noisy[i]) * sim.noisy[i];
      }
    }
    std::vector<double> empirical(grid.Count());
    for (std::size_t i = 0; i < grid.Count(); ++i)
    {
      const double mean = sum[i] / realisations;
      empirical[i] = (sum2[i] - realisations * mean * mean) / (realisations - 1);
    }
    const char * name = filter == gpur::RampFilter::RamLak ? "Ram-Lak" : "Hann";
    for (const auto & [region, mask] :
         { std::pair<const char *, const std::vector<std::uint8_t> *>{ "block", &regions.block },
           { "air", &regions.air },
           { "pin", &regions.pin },
           { "scan circle", &regions.all } })
    {
      ASSERT_GT(Count(*mask), 4u) << region;
      const double a = MeanOver(analytic, *mask), e = MeanOver(empirical, *mask);
      std::cout << name << ", " << region << " (" << Count(*mask) << " voxels): analytic variance " << a
                << ", empirical " << e << ", ratio " << e / a << "\n";
      EXPECT_NEAR(e / a, 1.0, 0.2) << name << " " << region;
    }
  }
}

TEST(CTPhantomNoise, VarianceIsLargerAlongRaysThroughDenseMaterial)
{
  const gpur::Grid grid = gpur::MakeGrid2D(48, 48);
  const auto layout = gpur::MakeMachinedPartLayout(grid);
  const Regions regions = MakeRegions(grid, layout, 2.0);
  gpur::CTScanParameters p;
  p.attenuationPerUnit = 0.12; // 1/mm at intensity 1 (line integrals up to ~4), the same for both parts
  const auto steel = gpur::SimulateCT(grid, gpur::MachinedPartPhantom(grid), p);
  std::vector<double> v(steel.variance.begin(), steel.variance.end());
  const double inBlock = MeanOver(v, regions.block), inAir = MeanOver(v, regions.air);
  std::cout << "variance: block interior " << inBlock << ", air around the part " << inAir << "\n";
  EXPECT_GT(inBlock, 1.5 * inAir);
  // Replacing the steel pin by aluminium lowers the variance in and around it.
  gpur::MachinedPartParameters aluminiumPin;
  aluminiumPin.pinValue = 0.5;
  const auto aluminium = gpur::SimulateCT(grid, gpur::MachinedPartPhantom(grid, aluminiumPin), p);
  std::vector<double> va(aluminium.variance.begin(), aluminium.variance.end());
  const double pinSteel = MeanOver(v, regions.pin), pinAluminium = MeanOver(va, regions.pin);
  std::cout << "variance in the pin: steel " << pinSteel << ", aluminium " << pinAluminium << "\n";
  EXPECT_GT(pinSteel, 1.1 * pinAluminium);
  // More photons: exactly proportionally less variance (no electronic noise).
  p.photonsPerRay *= 4.0;
  const auto bright = gpur::SimulateCT(grid, gpur::MachinedPartPhantom(grid), p);
  for (std::size_t i = 0; i < grid.Count(); i += 37)
  {
    EXPECT_NEAR(bright.variance[i] * 4.0, steel.variance[i], 1e-5 * steel.variance[i]);
  }
  for (float x : steel.variance)
  {
    ASSERT_GT(x, 0.0f);
  }
}

TEST(CTPhantomDeterminism, SameSeedSameDataWhateverTheThreads)
{
  const gpur::Grid grid = gpur::MakeGrid3D(32, 32, 3);
  gpur::CTScanParameters p;
  p.seed = 42;
  p.threads = 1;
  const auto a = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::SheppLogan, p);
  p.threads = 3;
  const auto b = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::SheppLogan, p);
  EXPECT_EQ(a.noisy, b.noisy);
  EXPECT_EQ(a.variance, b.variance);
  EXPECT_EQ(a.truth, gpur::SheppLoganPhantom(grid));
  p.seed = 43;
  const auto c = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::SheppLogan, p);
  EXPECT_NE(a.noisy, c.noisy);
  EXPECT_EQ(a.variance, c.variance) << "the analytic variance does not depend on the seed";
  // Each slice draws its own noise.
  const std::size_t slice = 32 * 32;
  EXPECT_FALSE(std::equal(a.noisy.begin(), a.noisy.begin() + slice, a.noisy.begin() + slice));
}

TEST(CTPhantomDeterminism, RejectsBadInput)
{
  const gpur::Grid grid = gpur::MakeGrid2D(32, 32);
  const std::vector<float> f(grid.Count(), 0.1f);
  gpur::CTScanParameters p;
  p.photonsPerRay = 0.0;
  EXPECT_THROW(gpur::SimulateCT(grid, f, p), gpur::InvalidArgument);
  p = {};
  p.minimumCount = 0.0;
  EXPECT_THROW(gpur::SimulateCT(grid, f, p), gpur::InvalidArgument);
  p = {};
  p.electronicNoise = -1.0;
  EXPECT_THROW(gpur::SimulateCT(grid, f, p), gpur::InvalidArgument);
  EXPECT_THROW(gpur::SimulateCT(grid, std::vector<float>(10, 0.0f)), gpur::InvalidArgument);
  std::vector<float> bad = f;
  bad[3] = std::nanf("");
  EXPECT_THROW(gpur::SimulateCT(grid, bad), gpur::InvalidArgument);
  // An all-air volume is fine: mu defaults to 1/mm and the noise is that of I0.
  const auto air = gpur::SimulateCT(grid, std::vector<float>(grid.Count(), 0.0f));
  EXPECT_DOUBLE_EQ(air.attenuationPerUnit, 1.0);
}

TEST(CTPhantomConeBeam, NoiseFreeFDKReproducesThePhantom)
{
  gpur::CTScanParameters p;
  p.geometry = gpur::CTGeometry::ConeBeam;
  p.computeNoiseFree = true;
  p.computeVariance = false;
  p.keepSinogram = true;
  // A smooth off-centre blob: geometry (a flip or shift would show) and scaling of the FDK weights.
  const gpur::Grid grid = gpur::MakeGrid3D(48, 40, 32);
  std::vector<float> blob(grid.Count());
  for (std::size_t z = 0, i = 0; z < 32; ++z)
    for (std::size_t y = 0; y < 40; ++y)
      for (std::size_t x = 0; x < 48; ++x, ++i)
      {
        const double dx = x - 18.0, dy = y - 24.0, dz = z - 13.0;
        blob[i] = static_cast<float>(std::exp(-(dx * dx + dy * dy + dz * dz) / (2.0 * 4.5 * 4.5)));
      }
  const auto sim = gpur::SimulateCT(grid, blob, p);
  EXPECT_EQ(sim.numberOfAngles, 2u * 76u); // 2 ceil(pi / 2 * 48) views over the full circle
  EXPECT_EQ(sim.sinogram.size(), sim.numberOfAngles * sim.numberOfRows * sim.numberOfBins);
  EXPECT_GT(sim.sourceToAxis, 0.0);
  EXPECT_DOUBLE_EQ(sim.sourceToDetector, 2.0 * sim.sourceToAxis);
  const double blobError = RelativeL2(sim.noiseFree, blob);
  std::cout << "cone beam, Gaussian blob (sigma 4.5 voxels): relative L2 error " << blobError << "\n";
  EXPECT_LT(blobError, 0.03);

  // The machined part: the block interior of the central slices comes back at 0.5 (the
  // slices near the part's top and bottom faces carry the cone-beam artefact, 10 %).
  const gpur::Grid partGrid = gpur::MakeGrid3D(64, 64, 32);
  p.numberOfAngles = 120;
  const auto part = gpur::MakeCTPhantom(partGrid, gpur::CTPhantomShape::MachinedPart, p);
  const Regions r = MakeRegions(partGrid, gpur::MakeMachinedPartLayout(partGrid), 3.0);
  double sum = 0.0;
  std::size_t count = 0;
  for (std::size_t z = 12; z < 20; ++z)
    for (std::size_t j = 0; j < 64 * 64; ++j)
    {
      const std::size_t i = z * 64 * 64 + j;
      if (r.block[i])
      {
        sum += part.noiseFree[i];
        ++count;
      }
    }
  std::cout << "cone beam, mean of the block interior of the central slices " << sum / count << " (truth 0.5)\n";
  EXPECT_NEAR(sum / count, 0.5, 0.005);
}

TEST(CTPhantomConeBeam, AnalyticVarianceMatchesEmpiricalAndNoiseIsCorrelatedAlongZ)
{
  const gpur::Grid grid = gpur::MakeGrid3D(32, 32, 16);
  const Regions regions = MakeRegions(grid, gpur::MakeMachinedPartLayout(grid), 1.0);
  for (auto filter : { gpur::RampFilter::RamLak, gpur::RampFilter::Hann })
  {
    gpur::CTScanParameters p;
    p.geometry = gpur::CTGeometry::ConeBeam;
    p.filter = filter;
    p.numberOfAngles = 60;
    p.photonsPerRay = 5.0e3;
    p.electronicNoise = 5.0;
    const auto reference = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::MachinedPart, p);
    p.computeVariance = false;
    const int realisations = 16;
    std::vector<double> sum(grid.Count(), 0.0), sum2(grid.Count(), 0.0);
    double zProduct = 0.0, zSquares = 0.0;
    std::vector<float> previous;
    for (int k = 0; k < realisations; ++k)
    {
      p.seed = 2000 + k;
      const auto sim = gpur::MakeCTPhantom(grid, gpur::CTPhantomShape::MachinedPart, p);
      for (std::size_t i = 0; i < grid.Count(); ++i)
      {
        sum[i] += sim.noisy[i];
        sum2[i] += static_cast<double>(sim.noisy[i]) * sim.noisy[i];
      }
      if (k % 2 == 1)
      {
        // The difference of two realisations is pure noise: correlation of neighbours along z (central slices).
        const std::size_t slice = 32 * 32;
        for (std::size_t i = 4 * slice; i < 11 * slice; ++i)
        {
          const double a = static_cast<double>(sim.noisy[i]) - previous[i];
          const double b = static_cast<double>(sim.noisy[i + slice]) - previous[i + slice];
          zProduct += a * b;
          zSquares += a * a;
        }
      }
      previous = sim.noisy;
    }
    const char * name = filter == gpur::RampFilter::RamLak ? "Ram-Lak" : "Hann";
    std::vector<double> empirical(grid.Count()), analytic(reference.variance.begin(), reference.variance.end());
    for (std::size_t i = 0; i < grid.Count(); ++i)
    {
      const double mean = sum[i] / realisations;
      empirical[i] = (sum2[i] - realisations * mean * mean) / (realisations - 1);
    }
    // The central slices (the regions' masks repeat on every slice).
    std::vector<std::uint8_t> central(grid.Count(), 0);
    std::fill(central.begin() + 4 * 32 * 32, central.begin() + 12 * 32 * 32, 1);
    for (const auto & [region, mask] :
         { std::pair<const char *, const std::vector<std::uint8_t> *>{ "block", &regions.block },
           { "air", &regions.air },
           { "scan circle", &regions.all } })
    {
      std::vector<std::uint8_t> m(grid.Count());
      for (std::size_t i = 0; i < m.size(); ++i)
        m[i] = (*mask)[i] && central[i];
      const double a = MeanOver(analytic, m), e = MeanOver(empirical, m);
      std::cout << "cone beam, " << name << ", " << region << " (" << Count(m) << " voxels): analytic variance " << a
                << ", empirical " << e << ", ratio " << e / a << "\n";
      EXPECT_NEAR(e / a, 1.0, 0.1) << name << " " << region;
    }
    const double zCorrelation = zProduct / zSquares;
    std::cout << "cone beam, " << name << ": correlation of the noise of neighbouring slices " << zCorrelation << "\n";
    EXPECT_GT(zCorrelation, 0.1); // the bilinear interpolation between detector rows
  }
}

TEST(CTPhantomConeBeam, RejectsBadGeometry)
{
  gpur::CTScanParameters p;
  p.geometry = gpur::CTGeometry::ConeBeam;
  const gpur::Grid slice = gpur::MakeGrid2D(32, 32);
  EXPECT_THROW(gpur::SimulateCT(slice, std::vector<float>(slice.Count(), 0.1f), p), gpur::InvalidArgument);
  const gpur::Grid grid = gpur::MakeGrid3D(32, 32, 8);
  const std::vector<float> f(grid.Count(), 0.1f);
  p.sourceToAxis = 10.0; // inside the volume (half diagonal 22.6 mm)
  EXPECT_THROW(gpur::SimulateCT(grid, f, p), gpur::InvalidArgument);
  p.sourceToAxis = 100.0;
  p.sourceToDetector = 110.0; // the detector would cut the volume
  EXPECT_THROW(gpur::SimulateCT(grid, f, p), gpur::InvalidArgument);
  p.sourceToDetector = -1.0;
  EXPECT_THROW(gpur::SimulateCT(grid, f, p), gpur::InvalidArgument);
  p.sourceToDetector = 250.0;
  const auto sim = gpur::SimulateCT(grid, f, p);
  EXPECT_EQ(sim.sourceToAxis, 100.0);
  EXPECT_EQ(sim.sourceToDetector, 250.0);
}
