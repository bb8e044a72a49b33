// SPDX-License-Identifier: Apache-2.0
// Tests of the L1-mean-curvature engine as a whole (no ITK): the CPU reference
// against the OpenCL backend, the regression numbers of [Myllykoski2015a, §5]
// on a piecewise-constant image with uniform noise, the r0 sweep, the noise
// entry, units and spacing, reporting, and bad input.
#include "gpurAutoTesting.h"
#include "gpurL1MCTesting.h"
#include "gpurL1MeanCurvature.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

using gpur::Backend;
using gpur::Grid;
using gpur::L1MCParameters;
using gpur::L1MCReport;
using namespace gpur::l1mctest;

namespace
{

Grid
Square(std::size_t n, double sx = 1.0, double sy = 1.0)
{
  Grid grid;
  grid.dimension = 2;
  grid.size = { n, n, 1 };
  grid.spacing = { sx, sy, 1.0 };
  return grid;
}

L1MCParameters
Paper(double r0)
{
  L1MCParameters p;
  p.r0 = r0;
  p.dataRange = 1.0; // the images are on [0, 1], as in the paper
  return p;
}

template<typename Real>
std::vector<double>
Denoise(const std::vector<double> & f,
        const Grid & grid,
        const L1MCParameters & p,
        Backend backend,
        L1MCReport & report)
{
  const std::vector<Real> g(f.begin(), f.end());
  std::vector<Real> u(g.size());
  report = gpur::DenoiseL1MeanCurvature(g.data(), u.data(), grid, p, gpur::MakeExecution(backend));
  EXPECT_EQ(report.backend.backend, backend);
  return std::vector<double>(u.begin(), u.end());
}

double
PSNR(const std::vector<double> & u, const std::vector<double> & truth)
{
  return PSNRFromResidual(Residual(u, truth), truth.size());
}

// [Myllykoski2015a, §5] via the digest of its results: identical iteration
// counts and objectives on both backends (in double, to 1e-10 relative).
TEST(L1MCEngine, CPUAndOpenCLTakeTheSameIterations)
{
  const std::size_t n = 64;
  const std::vector<double> truth = ShapesImage(n), f = AddUniformNoise(truth, 0.2, 3);
  using Corners = gpur::L1MCCornerMass;
  using Sub2 = gpur::L1MCSub2Solver;
  const std::pair<Corners, Sub2> settings[] = { { Corners::Exact, Sub2::Direct },
                                                { Corners::Separable, Sub2::Direct },
                                                { Corners::Exact, Sub2::ConjugateGradient } };
  for (const auto & setting : settings)
  {
    SCOPED_TRACE(std::string(gpur::ToString(setting.first)) + " corners, Sub #2 " + gpur::ToString(setting.second));
    L1MCParameters p = Paper(0.015);
    p.cornerMass = setting.first;
    p.sub2Solver = setting.second;
    L1MCReport cpu, ocl;
    const auto a = Denoise<double>(f, Square(n), p, Backend::CPU, cpu);
    const auto b = Denoise<double>(f, Square(n), p, Backend::OpenCL, ocl);
    ASSERT_TRUE(cpu.converged);
    EXPECT_EQ(cpu.iterations, ocl.iterations);
    EXPECT_NEAR(cpu.last.objective, ocl.last.objective, 1e-10 * std::abs(cpu.last.objective));
    EXPECT_NEAR(cpu.last.lagrangian, ocl.last.lagrangian, 1e-10 * std::abs(cpu.last.lagrangian));
    for (std::size_t k = 0; k < std::min(cpu.history.size(), ocl.history.size()); ++k)
      ASSERT_EQ(cpu.history[k].cgIterations, ocl.history[k].cgIterations) << "iteration " << k + 1;
    EXPECT_LT(Residual(a, b), 1e-8 * Residual(a, std::vector<double>(a.size(), 0.0)));
  }
}

// Sub #1's Newton half on vectors of squares (l1mc_sub1_newton_lanes, what CPU drivers run) and a square per
// work-item (l1mc_sub1_newton, what GPUs run), both forced on this machine's OpenCL device: the same run, the
// same Newton acceptance per iteration (the runs the lane kernel cut short and the fallback kernel's Newton
// accepted count as accepted), the same result. A width that is no multiple of the lanes (8 in double, 16 in
// float) and rows that end inside a vector.
template<typename Real>
void
ExpectNewtonKernelsAgree()
{
  Grid grid = Square(0);
  grid.size = { 61, 47, 1 };
  const std::vector<double> shapes = ShapesImage(64);
  std::vector<double> cropped;
  for (std::size_t y = 0; y < grid.size[1]; ++y)
    cropped.insert(cropped.end(), shapes.begin() + y * 64, shapes.begin() + y * 64 + grid.size[0]);
  const std::vector<double> f = AddUniformNoise(cropped, 0.2, 9);
  const L1MCParameters p = Paper(0.015);
  L1MCReport lanes, scalar;
  std::vector<double> a, b;
  {
    const gpur::testing::ScopedEnvironment use("ITKGPUR_L1MC_NEWTON", "lanes");
    a = Denoise<Real>(f, grid, p, Backend::OpenCL, lanes);
  }
  {
    const gpur::testing::ScopedEnvironment use("ITKGPUR_L1MC_NEWTON", "scalar");
    b = Denoise<Real>(f, grid, p, Backend::OpenCL, scalar);
  }
  ASSERT_TRUE(lanes.converged);
  EXPECT_EQ(lanes.iterations, scalar.iterations);
  for (std::size_t k = 0; k < std::min(lanes.history.size(), scalar.history.size()); ++k)
    ASSERT_EQ(lanes.history[k].newtonSuccess, scalar.history[k].newtonSuccess) << "iteration " << k + 1;
  double least = 1.0;
  for (const gpur::L1MCIterationInfo & info : lanes.history)
    least = std::min(least, info.newtonSuccess);
  EXPECT_LT(least, 1.0); // the fallback kernel had work
  EXPECT_NEAR(lanes.last.objective, scalar.last.objective, 1e-12 * std::abs(scalar.last.objective));
  EXPECT_LE(Residual(a, b), 1e-12 * Residual(b, std::vector<double>(b.size(), 0.0)));
}

TEST(L1MCEngine, NewtonOnVectorsAgreesWithNewtonPerSquare)
{
  ExpectNewtonKernelsAgree<double>();
  ExpectNewtonKernelsAgree<float>();
}

// Sub #2 solved directly (the default) and by the paper's CG: the same system,
// so the same run up to CG's tolerance; the direct solve's own residual sits
// at rounding, CG's at its tolerance (1e-8).
TEST(L1MCEngine, DirectAndCGSub2GiveTheSameRun)
{
  const std::size_t n = 96;
  const std::vector<double> truth = ShapesImage(n), f = AddUniformNoise(truth, 0.2, 5);
  L1MCParameters p = Paper(0.015);
  L1MCReport direct, cg;
  const auto a = Denoise<double>(f, Square(n), p, Backend::CPU, direct);
  p.sub2Solver = gpur::L1MCSub2Solver::ConjugateGradient;
  const auto b = Denoise<double>(f, Square(n), p, Backend::CPU, cg);
  ASSERT_TRUE(direct.converged);
  ASSERT_TRUE(cg.converged);
  std::cout << "direct vs CG: " << direct.iterations << " vs " << cg.iterations << " iterations, J "
            << direct.last.objective << " vs " << cg.last.objective << ", Sub #2 residual " << direct.sub2Residual
            << " vs " << cg.sub2Residual << ", |u_direct - u_cg| / |u| "
            << Residual(a, b) / Residual(a, std::vector<double>(a.size(), 0.0)) << "\n";
  EXPECT_NEAR(double(direct.iterations), double(cg.iterations), 2.0);
  EXPECT_NEAR(direct.last.objective, cg.last.objective, 1e-5 * std::abs(cg.last.objective));
  EXPECT_LT(Residual(a, b), 1e-5 * Residual(a, std::vector<double>(a.size(), 0.0)));
  for (const gpur::L1MCIterationInfo & info : direct.history)
    ASSERT_EQ(info.cgIterations, 0u);
  EXPECT_LT(direct.sub2Residual, 1e-13);
  EXPECT_GT(cg.sub2Residual, direct.sub2Residual);
  EXPECT_LT(cg.sub2Residual, 1e-7);
}

// Float on both backends: the same denoising quality (rounding changes the
// path, not the result).
TEST(L1MCEngine, FloatAgreesWithDouble)
{
  const std::size_t n = 64;
  const std::vector<double> truth = ShapesImage(n), f = AddUniformNoise(truth, 0.2, 4);
  L1MCReport d, cpu, ocl;
  const double reference = PSNR(Denoise<double>(f, Square(n), Paper(0.015), Backend::CPU, d), truth);
  const double a = PSNR(Denoise<float>(f, Square(n), Paper(0.015), Backend::CPU, cpu), truth);
  const double b = PSNR(Denoise<float>(f, Square(n), Paper(0.015), Backend::OpenCL, ocl), truth);
  EXPECT_TRUE(cpu.converged);
  EXPECT_TRUE(ocl.converged);
  EXPECT_NEAR(a, reference, 0.05);
  EXPECT_NEAR(b, reference, 0.05);
  EXPECT_NEAR(double(cpu.iterations), double(d.iterations), 0.1 * d.iterations);
}

// The whole algorithm at the paper's size and settings: a 512^2 piecewise-
// constant image with shapes and a star (like Test9 of [Myllykoski2015a, §5]),
// uniform noise p = 0.2, r0 = 0.015, h = 1/511, init (4.3), tolerance 1e-4.
// The paper: noisy residual 58.95 -> output 9.05 (18.8 -> 35.1 dB) in 291
// iterations; iteration counts across its experiments 75-291.
TEST(L1MCEngine, Test9LikeImageReachesThePapersQuality)
{
  const std::size_t n = 512;
  const std::vector<double> truth = ShapesImage(n), f = AddUniformNoise(truth, 0.2, 9);
  L1MCReport r;
  const std::vector<double> u = Denoise<double>(f, Square(n), Paper(0.015), Backend::CPU, r);
  const double noisy = Residual(f, truth), output = Residual(u, truth);
  std::cout << "512^2, p = 0.2, r0 = 0.015: " << r.iterations << " iterations, residual " << noisy << " -> " << output
            << " (" << PSNR(f, truth) << " -> " << PSNR(u, truth) << " dB), J(f) = " << r.objectiveOfData
            << ", J(u) = " << r.last.objective << ", R1-R3 " << r.last.r1Residual << " " << r.last.r2Residual << " "
            << r.last.r3Residual << ", CG " << r.last.cgIterations << ", Newton " << r.last.newtonSuccess << ", "
            << r.seconds / r.iterations << " s/iteration\n";
  EXPECT_TRUE(r.converged);
  EXPECT_GE(r.iterations, 75u);
  EXPECT_LE(r.iterations, 291u);
  EXPECT_NEAR(noisy, 0.2 * 512 / std::sqrt(3.0), 0.5); // 59.1
  // Measured: 206 iterations, 59.07 -> 9.09 (35.02 dB), J(f) = 0.02733, J(u) = 0.007046.
  EXPECT_LT(output, 10.0);                                   // the paper: 9.05
  EXPECT_GT(PSNR(u, truth), 34.0);                           // the paper: 35.1 dB
  EXPECT_NEAR(r.objectiveOfData, 0.027159, 0.02 * 0.027159); // the paper's J(f) of Test9
  EXPECT_NEAR(r.last.objective, 0.007054, 0.05 * 0.007054);  // the paper's J(u^291)
  EXPECT_LT(r.last.relativeChange, 1e-4);
  EXPECT_LT(r.sub2Residual, 1e-7);
  EXPECT_LT(r.sub4Residual, 1e-10);
  EXPECT_GT(r.last.newtonSuccess, 0.95);
  // The constraints hold better at the end than after the first iterations.
  EXPECT_LT(r.last.r1Residual, r.history[2].r1Residual);
  EXPECT_LT(r.last.r3Residual, r.history[2].r3Residual);
}

// [Myllykoski2015a, Table 2]: over r0 the output error is U-shaped (too
// little smoothing leaves noise, too much erases detail). On a 128^2 image,
// p = 0.2.
TEST(L1MCEngine, R0SweepIsUShaped)
{
  const std::size_t n = 128;
  const std::vector<double> truth = ShapesImage(n), f = AddUniformNoise(truth, 0.2, 12);
  std::vector<double> errors;
  for (double r0 : { 0.001, 0.005, 0.02, 0.1 })
  {
    L1MCReport r;
    const std::vector<double> u = Denoise<double>(f, Square(n), Paper(r0), Backend::CPU, r);
    errors.push_back(Residual(u, truth));
    std::cout << "r0 = " << r0 << ": residual " << errors.back() << ", " << r.iterations << " iterations\n";
    EXPECT_TRUE(r.converged) << "r0 = " << r0;
  }
  const std::size_t best = std::min_element(errors.begin(), errors.end()) - errors.begin();
  EXPECT_GT(best, 0u);
  EXPECT_LT(best, errors.size() - 1);
  for (std::size_t k = 0; k + 1 < errors.size(); ++k)
    EXPECT_EQ(errors[k + 1] < errors[k], k + 1 <= best) << "between sweep points " << k << " and " << k + 1;
}

// What the separable corner masses (a plain PSCR solve in Sub #4) cost in the
// result: u differs from the exact-corner run at the corners, by far less
// elsewhere, and the PSNR is the same to 0.01 dB (figures in
// docs/l1-mean-curvature.md).
TEST(L1MCEngine, SeparableCornerMassesChangeTheResultOnlyAtTheCorners)
{
  const std::size_t n = 96;
  const std::vector<double> truth = ShapesImage(n), f = AddUniformNoise(truth, 0.2, 13);
  L1MCParameters p = Paper(0.015);
  L1MCReport exact, separable;
  const auto a = Denoise<double>(f, Square(n), p, Backend::CPU, exact);
  p.cornerMass = gpur::L1MCCornerMass::Separable;
  const auto b = Denoise<double>(f, Square(n), p, Backend::CPU, separable);
  double atCorners = 0.0, far = 0.0;
  for (std::size_t y = 0; y < n; ++y)
    for (std::size_t x = 0; x < n; ++x)
    {
      const std::size_t distance = std::max(std::min(x, n - 1 - x), std::min(y, n - 1 - y));
      const double d = std::abs(a[y * n + x] - b[y * n + x]);
      (distance < 4 ? atCorners : far) = std::max(distance < 4 ? atCorners : far, d);
    }
  std::cout << "corner masses, whole run: max |u_exact - u_separable| within 4 pixels of a corner " << atCorners
            << ", elsewhere " << far << "; PSNR " << PSNR(a, truth) << " vs " << PSNR(b, truth) << " dB, iterations "
            << exact.iterations << " vs " << separable.iterations << ", s/iteration "
            << exact.timings.sub4 / exact.iterations << " vs " << separable.timings.sub4 / separable.iterations
            << " in Sub #4\n";
  EXPECT_GT(atCorners, 1e-4);
  EXPECT_LT(far, atCorners); // elsewhere only the path differs (the problem is not convex)
  EXPECT_NEAR(PSNR(a, truth), PSNR(b, truth), 0.01);
}

// The noise entry: r0 = 0 picks r0 from sigma (given, or estimated).
TEST(L1MCEngine, NoiseLevelPicksR0)
{
  const std::size_t n = 64;
  const std::vector<double> truth = ShapesImage(n), f = AddUniformNoise(truth, 0.1, 5);
  L1MCParameters p;
  p.noiseSigma = 0.1 / std::sqrt(3.0);
  p.dataRange = 1.0;
  L1MCReport given, estimated;
  Denoise<double>(f, Square(n), p, Backend::CPU, given);
  EXPECT_FALSE(given.sigmaEstimated);
  EXPECT_DOUBLE_EQ(given.r0, gpur::L1MCR0ForNoise(p.noiseSigma));
  EXPECT_NEAR(gpur::L1MCR0ForNoise(0.1), 0.005, 1e-15); // the fitted rule at sigma = 0.1
  p.noiseSigma = 0.0;
  Denoise<double>(f, Square(n), p, Backend::CPU, estimated);
  EXPECT_TRUE(estimated.sigmaEstimated);
  EXPECT_NEAR(estimated.noiseSigma, 0.1 / std::sqrt(3.0), 0.25 * 0.1 / std::sqrt(3.0));
  EXPECT_GT(estimated.r0, 0.0);
  // Monotone: more noise, more smoothing.
  double previous = 0.0;
  for (double sigma : { 0.001, 0.01, 0.03, 0.1, 0.3, 1.0 })
  {
    EXPECT_GT(gpur::L1MCR0ForNoise(sigma), previous);
    previous = gpur::L1MCR0ForNoise(sigma);
  }
}

// Units: the same image in other units (offset and scale) gives the same
// result to rounding; an isotropic spacing does not matter, an anisotropic one does.
TEST(L1MCEngine, ResultIsTheSameInOtherUnitsAndUsesTheSpacing)
{
  const std::size_t n = 40;
  const std::vector<double> f = AddUniformNoise(ShapesImage(n), 0.1, 6);
  std::vector<double> g(f.size());
  for (std::size_t i = 0; i < f.size(); ++i)
    g[i] = 1000.0 * f[i] - 300.0;
  L1MCParameters p;
  p.r0 = 0.01;
  L1MCReport a, b, c, d;
  const auto u = Denoise<double>(f, Square(n), p, Backend::CPU, a);
  const auto v = Denoise<double>(g, Square(n), p, Backend::CPU, b);
  EXPECT_EQ(a.iterations, b.iterations);
  double worst = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i)
    worst = std::max(worst, std::abs((v[i] + 300.0) / 1000.0 - u[i]));
  EXPECT_LT(worst, 1e-10);
  const auto w = Denoise<double>(f, Square(n, 0.7, 0.7), p, Backend::CPU, c);
  EXPECT_EQ(c.iterations, a.iterations);
  EXPECT_LT(Residual(w, u), 1e-12 * Residual(u, std::vector<double>(n * n, 0.0)));
  const auto x = Denoise<double>(f, Square(n, 1.0, 2.0), p, Backend::CPU, d);
  EXPECT_GT(Residual(x, u), 1e-3);
}

// What a run reports: the resolved parameters, one history entry per
// iteration, "not converged" (with a warning) when the budget ends first, and
// the data initialisation (4.2) as an alternative start.
TEST(L1MCEngine, ReportsWhatItDid)
{
  const std::size_t n = 32;
  const std::vector<double> f = AddUniformNoise(ShapesImage(n), 0.1, 7);
  L1MCParameters p = Paper(0.01);
  p.maxIterations = 3;
  L1MCReport r;
  Denoise<double>(f, Square(n), p, Backend::CPU, r);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 3u);
  ASSERT_EQ(r.history.size(), 3u);
  EXPECT_EQ(r.history[2].iteration, 3u);
  EXPECT_FALSE(r.warnings.empty());
  const double h = 1.0 / (n - 1);
  EXPECT_DOUBLE_EQ(r.meshSize, h);
  EXPECT_DOUBLE_EQ(r.epsilon, 0.01 * h);
  EXPECT_DOUBLE_EQ(r.r1, 10 * 0.01 * h);
  EXPECT_DOUBLE_EQ(r.r2, 5 * 0.01);
  EXPECT_DOUBLE_EQ(r.r3, 5 * 0.01 * h * h);
  p.maxIterations = 1000;
  p.initialization = gpur::L1MCInitialization::Data;
  p.r2 = 0.07;
  Denoise<double>(f, Square(n), p, Backend::CPU, r);
  EXPECT_TRUE(r.converged);
  EXPECT_DOUBLE_EQ(r.r2, 0.07);
  EXPECT_TRUE(r.warnings.empty());
}

// "Converged" needs the constraints to hold as well: with a tolerance that the
// relative change of L meets at once, the run goes on until R1-R3 are below
// kL1MCConstraintTolerance.
TEST(L1MCEngine, ConvergedMeansTheConstraintsHold)
{
  const std::size_t n = 48;
  const std::vector<double> f = AddUniformNoise(ShapesImage(n), 0.2, 10);
  L1MCParameters p = Paper(0.015);
  p.tolerance = 0.5;
  L1MCReport r;
  Denoise<double>(f, Square(n), p, Backend::CPU, r);
  EXPECT_TRUE(r.converged);
  EXPECT_GT(r.iterations, 3u);
  EXPECT_LT(r.history[1].relativeChange, p.tolerance); // L alone would have stopped at iteration 2
  for (double residual : { r.last.r1Residual, r.last.r2Residual, r.last.r3Residual })
    EXPECT_LT(residual, gpur::kL1MCConstraintTolerance);
  const auto & before = r.history[r.history.size() - 2];
  EXPECT_GE(std::max({ before.r1Residual, before.r2Residual, before.r3Residual }), gpur::kL1MCConstraintTolerance);
}

TEST(L1MCEngine, AbortLeavesTheOutputUntouched)
{
  const std::size_t n = 32;
  const std::vector<double> f = AddUniformNoise(ShapesImage(n), 0.1, 8);
  std::vector<double> u(f.size(), -7.0);
  unsigned calls = 0;
  EXPECT_THROW(gpur::DenoiseL1MeanCurvature(f.data(),
                                            u.data(),
                                            Square(n),
                                            Paper(0.01),
                                            gpur::MakeExecution(Backend::CPU),
                                            gpur::ProgressCallback(),
                                            [&](const gpur::L1MCIterationInfo &) { return ++calls < 4; }),
               gpur::Aborted);
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(u[0], -7.0);
  EXPECT_EQ(u.back(), -7.0);
}

TEST(L1MCEngine, BadInputIsRejected)
{
  const std::size_t n = 16;
  std::vector<double> f = AddUniformNoise(ShapesImage(n), 0.1, 9), u(f.size(), -7.0);
  const auto run = [&](const Grid & grid, const L1MCParameters & p)
  { gpur::DenoiseL1MeanCurvature(f.data(), u.data(), grid, p, gpur::MakeExecution(Backend::CPU)); };
  const L1MCParameters good = Paper(0.01);
  Grid small = Square(2);
  EXPECT_THROW(run(small, good), gpur::InvalidArgument);
  Grid volume = Square(n);
  volume.dimension = 3;
  EXPECT_THROW(run(volume, good), gpur::InvalidArgument);
  for (auto bad : { &L1MCParameters::r0,
                    &L1MCParameters::noiseSigma,
                    &L1MCParameters::meshSize,
                    &L1MCParameters::dataRange,
                    &L1MCParameters::epsilon,
                    &L1MCParameters::r1,
                    &L1MCParameters::r2,
                    &L1MCParameters::r3,
                    &L1MCParameters::tolerance })
  {
    for (double value : { -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity() })
    {
      L1MCParameters p = good;
      p.*bad = value;
      EXPECT_THROW(run(Square(n), p), gpur::InvalidArgument) << value;
    }
  }
  L1MCParameters p = good;
  p.maxIterations = 0;
  EXPECT_THROW(run(Square(n), p), gpur::InvalidArgument);
  p = good;
  p.tolerance = 0.0;
  EXPECT_THROW(run(Square(n), p), gpur::InvalidArgument);
  f[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(run(Square(n), good), gpur::InvalidArgument);
  EXPECT_EQ(u[0], -7.0);
  EXPECT_THROW(gpur::DenoiseL1MeanCurvature<double>(nullptr, u.data(), Square(n), good), gpur::InvalidArgument);
  // A constant image is its own result.
  std::vector<double> flat(f.size(), 3.5);
  L1MCReport r = gpur::DenoiseL1MeanCurvature(flat.data(), u.data(), Square(n), good);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(u[17], 3.5);
}

} // namespace
