// SPDX-License-Identifier: Apache-2.0
// The TV engine over the numerical range: results scale with the intensities
// (f -> s f, lambda -> lambda / s gives s u) from 1e-6 to 1e6 on both backends
// in float and double, lambdas and intensities the pixel type cannot
// represent are refused, the gap is honest (|gap| against the tolerance, no
// tolerance below the rounding floor, non-convergence reported), and the
// default iteration budget meets the default tolerance.
#include "gpurDevice.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"
#include "gpurTVTesting.h"
#include "gpurTVGradientDescent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using gpur::Backend;
using gpur::Grid;
using gpur::TVAlgorithm;
using gpur::TVParameters;
using gpur::testing::MakeTVParameters;

namespace
{

std::vector<Backend>
Backends()
{
  std::vector<Backend> backends{ Backend::CPU };
  if (gpur::HaveOpenCLDevice())
    backends.push_back(Backend::OpenCL);
  return backends;
}

template<typename Real>
std::vector<Real>
Noisy(const Grid & grid, double scale = 1.0, unsigned seed = 4)
{
  const std::vector<float> f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, seed);
  std::vector<Real> out(f.size());
  std::transform(f.begin(), f.end(), out.begin(), [scale](float v) { return static_cast<Real>(v * scale); });
  return out;
}

template<typename Real>
gpur::TVReport
Denoise(const std::vector<Real> & f, std::vector<Real> & u, const Grid & grid, const TVParameters & p, Backend b)
{
  u.assign(f.size(), Real(0));
  return gpur::DenoiseTV(f.data(), u.data(), grid, p, gpur::MakeExecution(b));
}

/** max |u / s - reference| / max |reference| */
template<typename Real>
double
RelativeScaledError(const std::vector<Real> & u, double s, const std::vector<Real> & reference)
{
  double error = 0.0, size = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i)
  {
    error = std::max(error, std::abs(static_cast<double>(u[i]) / s - static_cast<double>(reference[i])));
    size = std::max(size, std::abs(static_cast<double>(reference[i])));
  }
  return error / size;
}

template<typename Real>
void
ExpectScaleCovariance(double tolerance)
{
  // Unconverged (40 iterations: the iterates themselves) and converged runs;
  // rounding of s f differs by an ulp per voxel, which the solve carries along.
  const Grid grid = gpur::MakeGrid3D(20, 18, 10, 1.0, 0.8, 1.5);
  const std::vector<Real> f = Noisy<Real>(grid);
  const double lambda = 10.0;
  for (const Backend backend : Backends())
    for (const TVAlgorithm algorithm :
         { TVAlgorithm::ChambollePock, TVAlgorithm::AcceleratedChambollePock, TVAlgorithm::PDU })
      for (const double gap : { 0.0, 1e-4 })
      {
        SCOPED_TRACE(std::string(gpur::ToString(backend)) + " " + gpur::ToString(algorithm) +
                     (gap > 0 ? " converged" : " 40 iterations"));
        const TVParameters p = MakeTVParameters(algorithm, lambda, gap, gap > 0 ? 2000 : 40);
        std::vector<Real> reference, u;
        const gpur::TVReport r1 = Denoise(f, reference, grid, p, backend);
        for (const double s : { 1e-6, 1e-3, 1e3, 1e6 })
        {
          const std::vector<Real> fs = Noisy<Real>(grid, s);
          TVParameters ps = p;
          ps.lambda = lambda / s;
          const gpur::TVReport rs = Denoise(fs, u, grid, ps, backend);
          EXPECT_LE(RelativeScaledError(u, s, reference), tolerance) << "s = " << s;
          EXPECT_EQ(rs.iterations, r1.iterations) << "s = " << s;
          EXPECT_EQ(rs.converged, r1.converged) << "s = " << s;
          EXPECT_NEAR(rs.relativeGap, r1.relativeGap, 10 * tolerance + 1e-3 * std::abs(r1.relativeGap)) << s;
          EXPECT_NEAR(rs.primal / s, r1.primal, 1e-4 * r1.primal) << "energies scale with s";
        }
      }
}

} // namespace

TEST(TVRange, ScaleCovarianceFloat)
{
  ExpectScaleCovariance<float>(1e-5);
}

TEST(TVRange, ScaleCovarianceDouble)
{
  ExpectScaleCovariance<double>(1e-12);
}

TEST(TVRange, TinyAndHugeIntensitiesOnOpenCLFloat)
{
  // Before: float intensities <= 1e-20 stopped on OpenCL after 10 iterations as
  // "converged" with gap -1.4e7 and 11 % error; intensities near FLT_MAX gave NaN.
  const Grid grid = gpur::MakeGrid2D(40, 36);
  const std::vector<float> f = Noisy<float>(grid);
  std::vector<float> reference, u;
  for (const Backend backend : Backends())
  {
    const gpur::TVReport r1 =
      Denoise(f, reference, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 12.0, 1e-4, 2000), backend);
    ASSERT_TRUE(r1.converged);
    for (const double s : { 1e-30, 1e-20, 1e20, 1e37 })
    {
      SCOPED_TRACE(std::string(gpur::ToString(backend)) + " s = " + std::to_string(s));
      const gpur::TVReport rs = Denoise(Noisy<float>(grid, s),
                                        u,
                                        grid,
                                        MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 12.0 / s, 1e-4, 2000),
                                        backend);
      EXPECT_TRUE(rs.converged);
      EXPECT_GE(rs.relativeGap, -gpur::TVGapFloor<float>(TVAlgorithm::AcceleratedChambollePock));
      EXPECT_EQ(rs.iterations, r1.iterations);
      EXPECT_LE(RelativeScaledError(u, s, reference), 1e-5);
    }
  }
}

TEST(TVRange, UnrepresentableLambdaIsRefused)
{
  const Grid grid = gpur::MakeGrid2D(16, 16);
  const std::vector<float> f = Noisy<float>(grid);
  std::vector<float> u;
  auto message = [&](const std::vector<float> & image, double lambda, double tolerance)
  {
    try
    {
      Denoise(
        image, u, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, lambda, tolerance, 20), Backend::CPU);
    }
    catch (const gpur::InvalidArgument & e)
    {
      return std::string(e.what());
    }
    return std::string();
  };
  // Before: lambda 1e40 gave all-NaN output reported as "converged, gap 0".
  EXPECT_NE(message(f, 1e40, 1e-4).find("lambda = 1e+40 is outside the range a float solve represents"),
            std::string::npos)
    << message(f, 1e40, 1e-4);
  EXPECT_NE(message(f, 1e40, 1e-4).find("[1e-12, 1e+12]"), std::string::npos);
  EXPECT_NE(message(f, 1e40, 0.0).find("lower lambda"), std::string::npos) << "refused without a gap stop too";
  // Intensities near FLT_MAX with an ordinary lambda.
  const std::vector<float> huge = Noisy<float>(grid, 2e38);
  EXPECT_NE(message(huge, 8.0, 1e-4).find("outside the range"), std::string::npos);
  // Too small: refused where the gap decides, run where it does not.
  EXPECT_NE(message(f, 1e-14, 1e-4).find("raise lambda"), std::string::npos);
  EXPECT_EQ(message(f, 1e-14, 0.0), "");
  // Double has a wider range; the same lambda works there.
  const std::vector<double> fd = Noisy<double>(grid);
  std::vector<double> ud;
  const gpur::TVReport r =
    Denoise(fd, ud, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 1e40, 1e-4, 20), Backend::CPU);
  EXPECT_TRUE(r.converged);
  EXPECT_LE(gpur::MaxAbsDifference(ud.data(), fd.data(), fd.size()), 1e-15) << "lambda 1e40 keeps f";
  // A zero image is fine with any lambda.
  EXPECT_EQ(message(std::vector<float>(f.size(), 0.0f), 1e40, 1e-4), "");
}

TEST(TVRange, ToleranceBelowTheRoundingFloorIsRefused)
{
  const Grid grid = gpur::MakeGrid2D(16, 16);
  const std::vector<float> f = Noisy<float>(grid);
  const std::vector<double> fd = Noisy<double>(grid);
  std::vector<float> u;
  std::vector<double> ud;
  EXPECT_EQ(gpur::TVGapFloor<float>(TVAlgorithm::AcceleratedChambollePock), 2e-7);
  EXPECT_EQ(gpur::TVGapFloor<float>(TVAlgorithm::PDU), 1e-6);
  EXPECT_EQ(gpur::TVGapFloor<double>(TVAlgorithm::PDU), 1e-12);
  try
  {
    Denoise(f, u, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 8.0, 1e-8, 20), Backend::CPU);
    ADD_FAILURE() << "a float tolerance of 1e-8 was accepted";
  }
  catch (const gpur::InvalidArgument & e)
  {
    EXPECT_NE(std::string(e.what()).find("below what float32 arithmetic reaches"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("use a tolerance >= 2e-07"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Denoise(f, u, grid, MakeTVParameters(TVAlgorithm::PDU, 8.0, 5e-7, 20), Backend::CPU),
               gpur::InvalidArgument);
  EXPECT_THROW(Denoise(fd, ud, grid, MakeTVParameters(TVAlgorithm::PDU, 8.0, 1e-13, 20), Backend::CPU),
               gpur::InvalidArgument);
  EXPECT_NO_THROW(Denoise(f, u, grid, MakeTVParameters(TVAlgorithm::ChambollePock, 8.0, 2e-7, 20), Backend::CPU));
  EXPECT_NO_THROW(Denoise(fd, ud, grid, MakeTVParameters(TVAlgorithm::PDU, 8.0, 1e-12, 20), Backend::CPU));
}

TEST(TVRange, FloatReachesToleranceOfTheFloor)
{
  // The floor is reachable: accelerated CP in float gets to 1e-6 (the old solver stalled at 1.6e-6 in 2D).
  const Grid grid = gpur::MakeGrid2D(64, 64);
  const std::vector<float> f = Noisy<float>(grid);
  std::vector<float> u;
  for (const Backend backend : Backends())
  {
    const gpur::TVReport r =
      Denoise(f, u, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 12.0, 1e-6, 2000), backend);
    EXPECT_TRUE(r.converged) << gpur::ToString(backend) << ": gap " << r.relativeGap;
    EXPECT_LE(std::abs(r.relativeGap), 1e-6);
  }
}

TEST(TVRange, NonConvergenceIsReportedAsAWarning)
{
  const Grid grid = gpur::MakeGrid2D(48, 40);
  const std::vector<float> f = Noisy<float>(grid);
  std::vector<float> u;
  for (const Backend backend : Backends())
  {
    SCOPED_TRACE(gpur::ToString(backend));
    const gpur::TVReport short_ =
      Denoise(f, u, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 4.0, 1e-4, 20), backend);
    EXPECT_FALSE(short_.converged);
    EXPECT_GT(short_.relativeGap, 1e-4);
    ASSERT_EQ(short_.warnings.size(), 1u);
    EXPECT_NE(short_.warnings[0].find("did not converge"), std::string::npos) << short_.warnings[0];
    EXPECT_NE(short_.warnings[0].find("after 20 iterations (the maximum)"), std::string::npos) << short_.warnings[0];
    const gpur::TVReport fixed =
      Denoise(f, u, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 4.0, 0.0, 20), backend);
    EXPECT_FALSE(fixed.converged);
    EXPECT_TRUE(fixed.warnings.empty()) << "no tolerance, no claim";
    const gpur::TVReport full =
      Denoise(f, u, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 4.0, 1e-4, 2000), backend);
    EXPECT_TRUE(full.converged);
    EXPECT_TRUE(full.warnings.empty());
  }
}

TEST(TVRange, DefaultBudgetMeetsTheDefaultTolerance)
{
  // Before: 3D TV at lambda 12 on a 96^3 volume ended unconverged at the budget of 500.
  // The slowest measured cases at lambda >= 2 (docs/total-variation.md): 2D lambda 2 (1470 iterations).
  const Backend backend = gpur::HaveOpenCLDevice() ? Backend::OpenCL : Backend::CPU;
  struct Case
  {
    Grid grid;
    double lambda;
  };
  for (const Case & c : { Case{ gpur::MakeGrid2D(256, 256), 2.0 }, Case{ gpur::MakeGrid3D(64, 64, 64), 8.0 } })
  {
    TVParameters p; // the defaults: accelerated CP, tolerance 1e-4, 2000 iterations
    EXPECT_EQ(p.maxIterations, 2000u);
    EXPECT_EQ(p.gapTolerance, 1e-4);
    p.lambda = c.lambda;
    std::vector<float> u;
    const gpur::TVReport r = Denoise(Noisy<float>(c.grid, 1.0, 3), u, c.grid, p, backend);
    EXPECT_TRUE(r.converged) << c.grid.ToString() << " lambda " << c.lambda << ": gap " << r.relativeGap << " after "
                             << r.iterations;
    EXPECT_LT(r.iterations, p.maxIterations * 3 / 4) << "with room to spare";
  }
}

TEST(TVRange, GradientDescentScalesWithTheIntensities)
{
  // TV-GD: (s f, s lambda, s delta) gives s u; before, the flux's epsilon 1e-8
  // weighed 10 % at intensities of 1e-6. Powers of two scale exactly; other
  // scales round s f, and TV-GD amplifies such one-ulp differences (its flux
  // is near-singular where |D u| is small), here to a few 1e-6 in double.
  const Grid grid = gpur::MakeGrid3D(16, 14, 8);
  const std::vector<double> f = Noisy<double>(grid);
  for (const Backend backend : Backends())
    for (const gpur::TVGDVariant variant : { gpur::TVGDVariant::TV, gpur::TVGDVariant::AdaptiveWeightedTV })
    {
      gpur::TVGDParameters p;
      p.lambda = 0.5;
      p.iterations = 15;
      p.variant = variant;
      std::vector<double> reference(f.size()), u(f.size());
      const gpur::TVGDReport r1 = gpur::DenoiseTVGD(f.data(), reference.data(), grid, p, gpur::MakeExecution(backend));
      for (const double s : { 1e-6, 0x1p-20, 0x1p20, 1e6 })
      {
        const bool exact = std::ldexp(1.0, std::ilogb(s)) == s;
        const double tolerance = exact ? 0.0 : 1e-4;
        const std::vector<double> fs = Noisy<double>(grid, s);
        gpur::TVGDParameters ps = p;
        ps.lambda *= s;
        ps.delta *= s;
        const gpur::TVGDReport rs = gpur::DenoiseTVGD(fs.data(), u.data(), grid, ps, gpur::MakeExecution(backend));
        EXPECT_LE(RelativeScaledError(u, s, reference), tolerance) << gpur::ToString(backend) << " s = " << s;
        EXPECT_NEAR(rs.residual / s, r1.residual, tolerance * r1.residual);
        EXPECT_NEAR(rs.stepLength / s, r1.stepLength, 1e-12 * r1.stepLength);
      }
    }
}

TEST(TVRange, GradientDescentWithAnOverflowingStepIsAnError)
{
  const Grid grid = gpur::MakeGrid2D(16, 16);
  const std::vector<float> f = Noisy<float>(grid);
  std::vector<float> u(f.size(), -7.0f);
  gpur::TVGDParameters p;
  p.lambda = 1e40; // the step overflows float
  p.iterations = 5;
  try
  {
    gpur::DenoiseTVGD(f.data(), u.data(), grid, p, gpur::MakeExecution(Backend::CPU));
    ADD_FAILURE() << "no error";
  }
  catch (const gpur::Error & e)
  {
    EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos) << e.what();
  }
  EXPECT_EQ(u, std::vector<float>(f.size(), -7.0f)) << "u is written only on success";
}
