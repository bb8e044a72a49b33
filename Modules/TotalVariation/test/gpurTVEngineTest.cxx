// SPDX-License-Identifier: Apache-2.0
// Tests of the TV engine (no ITK): closed-form solutions, an independent
// solver, convergence of the gap, CPU vs OpenCL agreement, parameter checks.
#include "gpurAutoTesting.h"
#include "gpurFiniteDifference.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"
#include "gpurTVTesting.h"
#include "gpurTVSchedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

using gpur::Backend;
using gpur::Grid;
using gpur::TVAlgorithm;
using gpur::TVParameters;
using gpur::testing::MakeTVParameters;

namespace
{

template<typename Real>
std::vector<Real>
Denoise(const std::vector<Real> & f,
        const Grid & grid,
        const TVParameters & p,
        Backend backend,
        gpur::TVReport * report = nullptr)
{
  std::vector<Real> u(f.size());
  const auto r = gpur::DenoiseTV(f.data(), u.data(), grid, p, gpur::MakeExecution(backend));
  EXPECT_EQ(r.backend.backend, backend);
  if (report)
    *report = r;
  return u;
}

std::vector<float>
NoisyPhantom(const Grid & grid, double sigma = 0.1)
{
  return gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), sigma, 7);
}

/** The dual projection algorithm of [Chambolle2004] in double: an independent ROF solver on the same discretisation. */
std::vector<double>
ChambolleProjection(const std::vector<double> & f, const Grid & grid, double lambda, unsigned iterations)
{
  const std::size_t n = grid.Count();
  const gpur::StencilGeometry<double> g(grid);
  const double tau = 1.0 / grid.GradientNormSquaredBound(); // < 2/||grad||^2: converges
  std::vector<double> px(n, 0.0), py(n, 0.0), pz(n, 0.0), v(n);
  for (unsigned k = 0; k < iterations; ++k)
  {
    // v = div p - lambda f;  p <- (p + tau grad v) / (1 + tau |grad v|)
    for (std::size_t z = 0, i = 0; z < g.nz; ++z)
      for (std::size_t y = 0; y < g.ny; ++y)
        for (std::size_t x = 0; x < g.nx; ++x, ++i)
          v[i] = gpur::BackwardDivergence(px.data(), py.data(), pz.data(), g, x, y, z, i) - lambda * f[i];
    for (std::size_t z = 0, i = 0; z < g.nz; ++z)
      for (std::size_t y = 0; y < g.ny; ++y)
        for (std::size_t x = 0; x < g.nx; ++x, ++i)
        {
          const auto gr = gpur::ForwardGradient(v.data(), g, x, y, z, i);
          const double norm = std::sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
          px[i] = (px[i] + tau * gr[0]) / (1.0 + tau * norm);
          py[i] = (py[i] + tau * gr[1]) / (1.0 + tau * norm);
          pz[i] = (pz[i] + tau * gr[2]) / (1.0 + tau * norm);
        }
  }
  std::vector<double> u(n);
  for (std::size_t z = 0, i = 0; z < g.nz; ++z)
    for (std::size_t y = 0; y < g.ny; ++y)
      for (std::size_t x = 0; x < g.nx; ++x, ++i)
        u[i] = f[i] - gpur::BackwardDivergence(px.data(), py.data(), pz.data(), g, x, y, z, i) / lambda;
  return u;
}

TVParameters
FixedIterations(TVAlgorithm algorithm, double lambda, unsigned iterations)
{
  return MakeTVParameters(algorithm, lambda, 0.0, iterations);
}

const TVAlgorithm kAlgorithms[] = { TVAlgorithm::ChambollePock,
                                    TVAlgorithm::AcceleratedChambollePock,
                                    TVAlgorithm::PDU };

} // namespace

TEST(TVEngine, ConstantImageStaysConstant)
{
  for (const Grid & grid : { gpur::MakeGrid2D(20, 13), gpur::MakeGrid3D(9, 8, 7, 1, 2, 3) })
    for (Backend b : { Backend::CPU, Backend::OpenCL })
      for (TVAlgorithm a : kAlgorithms)
      {
        const std::vector<float> f(grid.Count(), 0.37f);
        gpur::TVReport report;
        const auto u = Denoise(f, grid, FixedIterations(a, 4.0, 30), b, &report);
        EXPECT_LT(gpur::MaxAbsDifference(u.data(), f.data(), f.size()), 1e-6);
        EXPECT_NEAR(report.relativeGap, 0.0, 1e-6);
      }
}

TEST(TVEngine, ClosedFormStepWithSpacing)
{
  // f = 0 | 1 along x (m = 16 voxels each side), Neumann. The exact discrete
  // ROF [Rudin1992] solution has two levels c1 = 1/(lambda m hx), c2 = 1 - c1
  // (lambda m hx > 2); the spacing hx enters because the differences are
  // divided by it.
  for (double hx : { 1.0, 2.0 })
  {
    const Grid grid = gpur::MakeGrid3D(32, 3, 4, hx, 0.7, 1.9);
    std::vector<double> f(grid.Count());
    for (std::size_t i = 0; i < f.size(); ++i)
      f[i] = (i % 32) < 16 ? 0.0 : 1.0;
    const double c1 = 1.0 / (0.5 * 16 * hx);
    // Plain CP converges linearly on this tiny problem; the accelerated
    // variant's shrinking primal step makes it slow at this small lambda.
    for (TVAlgorithm a : { TVAlgorithm::ChambollePock, TVAlgorithm::PDU })
      for (Backend b : { Backend::CPU, Backend::OpenCL })
      {
        gpur::TVReport report;
        const auto u = Denoise(f, grid, MakeTVParameters(a, 0.5, 1e-8, 10000), b, &report);
        EXPECT_TRUE(report.converged);
        for (std::size_t i = 0; i < u.size(); ++i)
          ASSERT_NEAR(u[i], (i % 32) < 16 ? c1 : 1.0 - c1, 1e-6) << "hx " << hx << " voxel " << i;
      }
  }
}

TEST(TVEngine, AgreesWithAnIndependentSolver)
{
  // Chambolle's projection algorithm (double, 4000 iterations) vs our float
  // OpenCL and CPU runs to a relative gap of 1e-4: objectives within 1e-3.
  const Grid grid = gpur::MakeGrid2D(40, 32, 1.0, 1.5);
  const std::vector<float> f = NoisyPhantom(grid);
  const double lambda = 6.0;
  const std::vector<double> fd(f.begin(), f.end());
  const auto reference = ChambolleProjection(fd, grid, lambda, 4000);
  const double pRef = gpur::ROFObjective(fd.data(), reference.data(), grid, lambda);
  for (Backend b : { Backend::CPU, Backend::OpenCL })
    for (TVAlgorithm a : kAlgorithms)
    {
      gpur::TVReport report;
      const auto u = Denoise(f, grid, MakeTVParameters(a, lambda, 1e-4, 5000), b, &report);
      EXPECT_TRUE(report.converged) << gpur::ToString(a);
      const double p = gpur::ROFObjective(f.data(), u.data(), grid, lambda);
      EXPECT_NEAR(p, pRef, 1e-3 * pRef) << gpur::ToString(a) << " on " << gpur::ToString(b);
      EXPECT_NEAR(report.primal, p, 1e-5 * p) << "the engine's P(u) is the objective";
      std::vector<float> rf(reference.begin(), reference.end());
      EXPECT_LT(gpur::MaxAbsDifference(u.data(), rf.data(), u.size()), 0.02) << gpur::ToString(a);
    }
}

TEST(TVEngine, GapDecreasesBelowTheTolerance)
{
  const Grid grid = gpur::MakeGrid3D(32, 28, 20);
  const std::vector<float> f = NoisyPhantom(grid);
  for (TVAlgorithm a : kAlgorithms)
  {
    gpur::TVReport report;
    // Plain CP converges as O(1/k) in the gap, hence the generous iteration cap.
    Denoise(f, grid, MakeTVParameters(a, 10.0, 1e-4, 10000), Backend::OpenCL, &report);
    ASSERT_GE(report.gapHistory.size(), 2u);
    EXPECT_TRUE(report.converged) << gpur::ToString(a);
    EXPECT_LE(report.relativeGap, 1e-4);
    EXPECT_GE(report.relativeGap, 0.0 - 1e-7) << "weak duality";
    EXPECT_LT(report.gapHistory.back().second, 0.01 * report.gapHistory.front().second) << gpur::ToString(a);
    EXPECT_EQ(report.iterations % 10, 0u) << "stops at a check";
  }
}

TEST(TVEngine, AcceleratedNeedsFewerIterationsThanPlainChambollePock)
{
  const Grid grid = gpur::MakeGrid2D(96, 80);
  const std::vector<float> f = NoisyPhantom(grid);
  gpur::TVReport plain, accelerated;
  Denoise(f, grid, MakeTVParameters(TVAlgorithm::ChambollePock, 8.0, 1e-4, 5000), Backend::OpenCL, &plain);
  Denoise(
    f, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 8.0, 1e-4, 5000), Backend::OpenCL, &accelerated);
  EXPECT_TRUE(accelerated.converged);
  EXPECT_LT(accelerated.iterations, plain.iterations);
}

TEST(TVEngine, CPUAndOpenCLAgree)
{
  for (const Grid & grid : { gpur::MakeGrid2D(80, 64, 0.8, 1.1), gpur::MakeGrid3D(40, 32, 24, 1.0, 0.9, 1.6) })
    for (TVAlgorithm a : kAlgorithms)
    {
      const std::vector<float> f = NoisyPhantom(grid);
      const auto cpu = Denoise(f, grid, FixedIterations(a, 8.0, 100), Backend::CPU);
      const auto ocl = Denoise(f, grid, FixedIterations(a, 8.0, 100), Backend::OpenCL);
      EXPECT_LE(gpur::MaxAbsDifference(cpu.data(), ocl.data(), cpu.size()), 1e-4)
        << gpur::ToString(a) << " " << grid.ToString();
    }
}

TEST(TVEngine, AutoRunsTheFasterBackendAsMeasured)
{
  GPUR_REQUIRE_AUTO_MEASURING();
  const gpur::testing::AutoRuleScope rule;
  const Grid grid = gpur::MakeGrid2D(64, 48);
  const std::vector<float> f = NoisyPhantom(grid);
  const TVParameters p = FixedIterations(TVAlgorithm::AcceleratedChambollePock, 8.0, 20);
  std::vector<float> u(f.size()), again(f.size());
  const auto first = gpur::DenoiseTV(f.data(), u.data(), grid, p, gpur::MakeExecution(Backend::Auto));
  gpur::testing::ExpectMeasuredChoice(first.backend, "TV 2D float32 on 64x48 voxels");
  EXPECT_EQ(u, Denoise(f, grid, p, first.backend.backend)) << "the chosen backend's result";
  // The same kind of run again: the process's cached measurement, the same choice.
  const auto second = gpur::DenoiseTV(f.data(), again.data(), grid, p, gpur::MakeExecution(Backend::Auto));
  EXPECT_EQ(second.backend.backend, first.backend.backend);
  EXPECT_EQ(second.backend.cpuVoxelsPerSecond, first.backend.cpuVoxelsPerSecond);
  EXPECT_EQ(second.backend.openclVoxelsPerSecond, first.backend.openclVoxelsPerSecond);
  EXPECT_NE(second.backend.reason.find(" s ago"), std::string::npos) << second.backend.reason;
  EXPECT_EQ(again, u);
}

TEST(TVEngine, DoublePrecisionOnBothBackends)
{
  const Grid grid = gpur::MakeGrid3D(24, 20, 16, 1.0, 1.0, 2.0);
  const std::vector<float> ff = NoisyPhantom(grid);
  const std::vector<double> f(ff.begin(), ff.end());
  const auto cpu = Denoise(f, grid, FixedIterations(TVAlgorithm::AcceleratedChambollePock, 8.0, 80), Backend::CPU);
  const auto ocl = Denoise(f, grid, FixedIterations(TVAlgorithm::AcceleratedChambollePock, 8.0, 80), Backend::OpenCL);
  EXPECT_LE(gpur::MaxAbsDifference(cpu.data(), ocl.data(), cpu.size()), 1e-10);
}

TEST(TVEngine, MeanIsPreserved)
{
  // sum div p = 0 with Neumann boundaries, so every method keeps the mean.
  const Grid grid = gpur::MakeGrid3D(30, 20, 10);
  const std::vector<float> f = NoisyPhantom(grid);
  for (TVAlgorithm a : kAlgorithms)
  {
    const auto u = Denoise(f, grid, FixedIterations(a, 5.0, 60), Backend::OpenCL);
    const double mf = std::accumulate(f.begin(), f.end(), 0.0) / f.size();
    const double mu = std::accumulate(u.begin(), u.end(), 0.0) / u.size();
    EXPECT_NEAR(mu, mf, 1e-5) << gpur::ToString(a);
  }
}

TEST(TVEngine, DenoisingImprovesPSNR)
{
  const Grid grid = gpur::MakeGrid3D(48, 48, 32);
  const std::vector<float> truth = gpur::SheppLoganPhantom(grid);
  const std::vector<float> f = gpur::AddGaussianNoise(truth, 0.1, 3);
  const auto u =
    Denoise(f, grid, MakeTVParameters(TVAlgorithm::AcceleratedChambollePock, 15.0, 1e-4, 500), Backend::OpenCL);
  const double before = gpur::PeakSignalToNoiseRatio(f.data(), truth.data(), f.size(), 1.0);
  const double after = gpur::PeakSignalToNoiseRatio(u.data(), truth.data(), u.size(), 1.0);
  EXPECT_NEAR(before, 20.0, 0.2) << "sigma 0.1 gives 20 dB";
  EXPECT_GT(after, before + 6.0);
}

TEST(TVSchedule, PDUStepsMatchTheHuang2023Schedule)
{
  // The literal schedule of [Huang2023, eqs. (3.6)-(3.7)] (k0 = 0) on 3D unit
  // spacing, evaluated: tau_P(0) = -0.555556, tau_P(15) = 0,
  // tau_P(20) = 0.034014, tau_P(100) = 0.053560; tau_D tau_P -> 1/6.
  TVParameters p = FixedIterations(TVAlgorithm::PDU, 1.0, 1);
  p.pduOffset = 0;
  gpur::TVSchedule s(p, gpur::MakeGrid3D(4, 4, 4));
  std::vector<gpur::TVStep> steps;
  for (unsigned k = 0; k <= 100000; ++k)
    steps.push_back(s.Next(k));
  EXPECT_NEAR(steps[0].b, -0.555556, 1e-6);
  EXPECT_NEAR(steps[0].sigma, 0.3, 1e-12);
  EXPECT_NEAR(steps[15].b, 0.0, 1e-12);
  EXPECT_NEAR(steps[20].b, 0.034014, 1e-6);
  EXPECT_NEAR(steps[100].b, 0.053560, 1e-6);
  EXPECT_TRUE(steps[0].primalFirst) << "Gauss-Seidel order: u then p";
  EXPECT_NEAR(steps[100000].b * steps[100000].sigma, 1.0 / 6.0, 1e-3);
  // The default offset starts at tau_P = 0, never negative.
  gpur::TVSchedule fixed(FixedIterations(TVAlgorithm::PDU, 1.0, 1), gpur::MakeGrid3D(4, 4, 4));
  for (unsigned k = 0; k < 50; ++k)
    EXPECT_GE(fixed.Next(k).b, 0.0);
}

TEST(TVEngine, LiteralPDUScheduleHasTheTransientButConverges)
{
  // With k0 = 0 the error first rises (tau_P < 0; the rise of [Huang2023,
  // §6.2.1, Fig. 6.3]); with k0 = 15 it does not.
  const Grid grid = gpur::MakeGrid3D(32, 32, 32);
  const std::vector<float> truth = gpur::SheppLoganPhantom(grid);
  const std::vector<float> f = gpur::AddGaussianNoise(truth, 0.1, 5);
  auto rmseAfter = [&](unsigned offset, unsigned iterations)
  {
    TVParameters p = FixedIterations(TVAlgorithm::PDU, 10.0, iterations);
    p.pduOffset = offset;
    const auto u = Denoise(f, grid, p, Backend::OpenCL);
    return std::sqrt(gpur::MeanSquaredError(u.data(), truth.data(), u.size()));
  };
  const double noisy = std::sqrt(gpur::MeanSquaredError(f.data(), truth.data(), f.size()));
  EXPECT_GT(rmseAfter(0, 14), 2.0 * noisy) << "transient of the literal schedule";
  EXPECT_LT(rmseAfter(15, 14), noisy);
  EXPECT_NEAR(rmseAfter(0, 400), rmseAfter(15, 400), 2e-3) << "same minimiser";
}

TEST(TVEngine, ProgressAndAbort)
{
  const Grid grid = gpur::MakeGrid2D(32, 32);
  const std::vector<float> f = NoisyPhantom(grid);
  for (Backend b : { Backend::CPU, Backend::OpenCL })
  {
    std::vector<float> u(f.size(), -7.0f);
    unsigned calls = 0;
    EXPECT_THROW(gpur::DenoiseTV(f.data(),
                                 u.data(),
                                 grid,
                                 FixedIterations(TVAlgorithm::PDU, 8, 50),
                                 gpur::MakeExecution(b),
                                 [&](const gpur::Progress & progress)
                                 {
                                   ++calls;
                                   EXPECT_EQ(progress.maximum, 50u);
                                   EXPECT_EQ(progress.message, "iteration " + std::to_string(progress.done) + " of 50");
                                   return progress.done < 3;
                                 }),
                 gpur::Aborted);
    EXPECT_EQ(calls, 3u);
    EXPECT_EQ(gpur::MaxAbsDifference(u.data(), std::vector<float>(u.size(), -7.0f).data(), u.size()), 0.0)
      << "output untouched on abort";
  }
}

TEST(TVEngine, BadInputIsRefusedWithAClearMessage)
{
  const Grid grid = gpur::MakeGrid2D(8, 8);
  std::vector<float> f(64, 1.0f), u(64);
  auto expectMessage = [&](const TVParameters & p,
                           const Grid & g,
                           const std::vector<float> & in,
                           const std::string & text,
                           const gpur::ExecutionOptions & e = gpur::ExecutionOptions())
  {
    try
    {
      gpur::DenoiseTV(in.data(), u.data(), g, p, e);
      FAIL() << "expected InvalidArgument mentioning '" << text << "'";
    }
    catch (const gpur::InvalidArgument & err)
    {
      EXPECT_NE(std::string(err.what()).find(text), std::string::npos) << err.what();
    }
  };
  TVParameters p;
  p.lambda = 0.0;
  expectMessage(p, grid, f, "lambda");
  p.lambda = -1.0;
  expectMessage(p, grid, f, "lambda");
  p.lambda = std::nan("");
  expectMessage(p, grid, f, "lambda");
  p = TVParameters();
  p.maxIterations = 0;
  expectMessage(p, grid, f, "iterations");
  p = TVParameters();
  p.gapTolerance = -1e-3;
  expectMessage(p, grid, f, "tolerance");
  p = TVParameters();
  expectMessage(p, gpur::MakeGrid2D(0, 8), f, "empty");
  expectMessage(p, gpur::MakeGrid3D(1, 1, 1), f, "single voxel");
  expectMessage(p, gpur::MakeGrid2D(8, 8, 0.0, 1.0), f, "spacing");
  std::vector<float> nan = f;
  nan[17] = std::numeric_limits<float>::infinity();
  expectMessage(p, grid, nan, "non-finite");
  gpur::ExecutionOptions e;
  e.backend = Backend::OpenCL;
  e.device = "no-such-device-xyz";
  expectMessage(p, grid, f, "matches no device", e);
  EXPECT_THROW(gpur::DenoiseTV<float>(nullptr, u.data(), grid, p), gpur::InvalidArgument);
  EXPECT_THROW(gpur::ParseTVAlgorithm("split-bregman"), gpur::InvalidArgument);
  EXPECT_EQ(gpur::ParseTVAlgorithm("PDU"), TVAlgorithm::PDU);
}
