// SPDX-License-Identifier: Apache-2.0
// The OpenCL backend against the CPU reference: the operators (1D and 2D,
// with and without PSF, odd and even sizes), adjointness on the device, the
// three solvers (same iteration count, values to rounding) in float and
// double, abort, and Backend::Auto's measured choice.
#include "gpurAutoTesting.h"
#include "gpurFFT.h"
#include "gpurSparseTesting.h"

#include <gtest/gtest.h>

#define REQUIRE_OPENCL()                                                                                               \
  if (!gpur::HaveOpenCLDevice())                                                                                       \
  GTEST_SKIP() << "no OpenCL device"

namespace gpur
{
namespace
{

using namespace sparsetest;

template<typename Real>
void
CheckOperators(double tolerance)
{
  struct Case
  {
    std::vector<std::size_t> size, psfSize;
  };
  for (const Case & c :
       std::vector<Case>{ { { 1024 }, {} }, { { 999 }, { 9 } }, { { 64, 48 }, {} }, { { 45, 33 }, { 5, 4 } } })
  {
    const CirculantSensing s = TestSensing(c.size, c.psfSize, 0.4, 3);
    const std::size_t n = s.Count();
    const CirculantOperator<Real> cpu(s, MakeExecution(Backend::CPU));
    const CirculantOperator<Real> gpu(s, MakeExecution(Backend::OpenCL));
    EXPECT_EQ(gpu.Backend().backend, Backend::OpenCL);
    EXPECT_EQ(gpu.NormSquaredBound(), cpu.NormSquaredBound());
    EXPECT_GT(gpu.Bytes(), n * sizeof(Real));
    const std::vector<Real> x = RandomVector<Real>(n, 1), y = RandomVector<Real>(n, 2);
    std::vector<Real> a(n), b(n);
    cpu.Apply(x.data(), a.data());
    gpu.Apply(x.data(), b.data());
    EXPECT_LT(RelativeDifference(b, a), tolerance) << "Apply, n " << n;
    std::vector<Real> ta(n), tb(n);
    cpu.ApplyTranspose(y.data(), ta.data());
    gpu.ApplyTranspose(y.data(), tb.data());
    EXPECT_LT(RelativeDifference(tb, ta), tolerance) << "ApplyTranspose, n " << n;
    // <A x, y> = <x, A^T y> on the device.
    EXPECT_NEAR(Dot(b, y), Dot(x, tb), 10 * tolerance * Norm(b) * Norm(y)) << "n " << n;
    cpu.SolveShifted(0.7, 0.05 * cpu.NormSquaredBound(), x.data(), a.data());
    gpu.SolveShifted(0.7, 0.05 * cpu.NormSquaredBound(), x.data(), b.data());
    EXPECT_LT(RelativeDifference(b, a), tolerance) << "SolveShifted, n " << n;
  }
}

TEST(SparseOpenCL, OperatorsMatchTheCPUFloat)
{
  REQUIRE_OPENCL();
  CheckOperators<float>(2e-6);
}

TEST(SparseOpenCL, OperatorsMatchTheCPUDouble)
{
  REQUIRE_OPENCL();
  if (!SelectDevices("").front().fp64)
    GTEST_SKIP() << "the device has no fp64";
  CheckOperators<double>(1e-14);
}

template<typename Real>
void
CheckSolvers(double tolerance)
{
  struct Case
  {
    std::vector<std::size_t> size, psfSize;
    bool nonnegative;
  };
  for (const Case & c : std::vector<Case>{ { { 2048 }, {}, false }, { { 45, 33 }, { 5, 4 }, true } })
  {
    const CirculantSensing s = TestSensing(c.size, c.psfSize, 0.5, 5);
    const std::size_t n = s.Count();
    const std::vector<Real> truth = SparseSignal<Real>(n, n / 40, 6, c.nonnegative);
    std::vector<Real> y(n);
    MeasureCirculant(s, truth.data(), y.data(), MakeExecution(Backend::CPU));
    for (const SparseSolver solver : { SparseSolver::CPISTA, SparseSolver::FISTA, SparseSolver::CPADMM })
    {
      SparseRecoveryParameters parameters;
      parameters.solver = solver;
      // Far above float's gap floor (gapTolerance), so both backends stop at the same check.
      parameters.relativeAlpha = 0.02;
      parameters.nonnegative = c.nonnegative;
      // CPISTA, and every solver on the deblurring case, run a fixed count; FISTA needs thousands of iterations
      // there, over which float rounding moves its non-monotone path by 1e-4 (measured: 3550 vs 3680 iterations
      // to convergence on the two backends; double agrees to 7e-15).
      const bool capped = solver == SparseSolver::CPISTA || c.nonnegative;
      parameters.maximumIterations = capped ? 300 : 5000;
      std::vector<Real> a(n), b(n);
      const SparseRecoveryReport cpu = RecoverSparse(s, y.data(), a.data(), parameters, MakeExecution(Backend::CPU));
      const SparseRecoveryReport gpu = RecoverSparse(s, y.data(), b.data(), parameters, MakeExecution(Backend::OpenCL));
      EXPECT_EQ(gpu.backend.backend, Backend::OpenCL);
      EXPECT_EQ(gpu.converged, cpu.converged) << ToString(solver);
      EXPECT_TRUE(cpu.converged || capped) << ToString(solver) << " n " << n;
      EXPECT_EQ(gpu.iterations, cpu.iterations) << ToString(solver) << " n " << n;
      EXPECT_LT(RelativeDifference(b, a), tolerance) << ToString(solver) << " n " << n;
      EXPECT_NEAR(gpu.alphaMax, cpu.alphaMax, 1e-6 * cpu.alphaMax);
      EXPECT_NEAR(gpu.objective, cpu.objective, 1e-5 * cpu.objective);
      EXPECT_GT(gpu.bytes, 4 * n * sizeof(Real));
    }
  }
}

TEST(SparseOpenCL, SolversMatchTheCPUFloat)
{
  REQUIRE_OPENCL();
  CheckSolvers<float>(1e-5);
}

TEST(SparseOpenCL, SolversMatchTheCPUDouble)
{
  REQUIRE_OPENCL();
  if (!SelectDevices("").front().fp64)
    GTEST_SKIP() << "the device has no fp64";
  CheckSolvers<double>(1e-12);
}

TEST(SparseOpenCL, AbortAndBadInput)
{
  REQUIRE_OPENCL();
  const CirculantSensing s = TestSensing({ 256 }, {}, 0.5, 7);
  const std::vector<float> truth = SparseSignal<float>(256, 8, 8);
  std::vector<float> y(256), x(256, 3.0f);
  MeasureCirculant(s, truth.data(), y.data(), MakeExecution(Backend::OpenCL));
  SparseRecoveryParameters parameters;
  EXPECT_THROW(RecoverSparse(s,
                             y.data(),
                             x.data(),
                             parameters,
                             MakeExecution(Backend::OpenCL),
                             {},
                             [](const SparseIterationInfo & info) { return info.iteration < 4; }),
               Aborted);
  for (float v : x)
    EXPECT_EQ(v, 3.0f);
  CirculantSensing empty = s;
  empty.mask.assign(256, 0);
  EXPECT_THROW(RecoverSparse(empty, y.data(), x.data(), parameters, MakeExecution(Backend::OpenCL)), InvalidArgument);
  EXPECT_THROW(CirculantOperator<float>(s, MakeExecution(Backend::OpenCL, "no-such-device")), InvalidArgument);
}

TEST(SparseOpenCL, AutoMeasuresTheRunsOwnProblem)
{
  GPUR_REQUIRE_AUTO_MEASURING();
  const gpur::testing::AutoRuleScope rule;
  const CirculantSensing s = TestSensing({ 4096 }, {}, 0.5, 9);
  const std::vector<float> truth = SparseSignal<float>(4096, 100, 10);
  std::vector<float> y(4096), x(4096);
  MeasureCirculant(s, truth.data(), y.data(), MakeExecution(Backend::CPU));
  SparseRecoveryParameters parameters;
  parameters.relativeAlpha = 0.02;
  const SparseRecoveryReport report = RecoverSparse(s, y.data(), x.data(), parameters);
  gpur::testing::ExpectMeasuredChoice(report.backend, "sparse recovery 2D float32 on 4096x1 voxels");
  EXPECT_TRUE(report.converged);
  {
    const gpur::testing::ScopedEnvironment cpu(AutoEnvironmentVariable(), "cpu");
    EXPECT_EQ(RecoverSparse(s, y.data(), x.data(), parameters).backend.backend, Backend::CPU);
  }
}

// VkFFT crashes CPU OpenCL drivers for some long 1D axes (FFTDeviceAxisLimit): Auto runs those on the CPU
// reference, an explicit OpenCL request is refused with the reason, and nothing crashes.
TEST(SparseOpenCL, AxesBeyondTheDeviceLimitRunOnTheCPU)
{
  REQUIRE_OPENCL();
  const DeviceInfo device = SelectDevices().front();
  const std::size_t n = std::size_t(1) << 17;
  if (FFTDeviceSupports(device, { n }, false))
  {
    GTEST_SKIP() << device.name << " runs FFTs of " << n << " points";
  }
  const CirculantSensing s = MakeGaussianCirculantSensing({ n }, 0.5, 3);
  const std::vector<float> truth = SparseSignal<float>(n, 64, 11);
  std::vector<float> y(n), x(n);
  MeasureCirculant(s, truth.data(), y.data(), MakeExecution(Backend::CPU));
  SparseRecoveryParameters parameters;
  parameters.maximumIterations = 2;
  parameters.checkInterval = 1;
  {
    const gpur::testing::ScopedEnvironment opencl(AutoEnvironmentVariable(), "opencl");
    const SparseRecoveryReport report = RecoverSparse(s, y.data(), x.data(), parameters);
    EXPECT_EQ(report.backend.backend, Backend::CPU);
    EXPECT_NE(report.backend.reason.find("axis"), std::string::npos) << report.backend.reason;
  }
  EXPECT_THROW(RecoverSparse(s, y.data(), x.data(), parameters, MakeExecution(Backend::OpenCL)), InvalidArgument);
  EXPECT_THROW(CirculantOperator<float>(s, MakeExecution(Backend::OpenCL)), InvalidArgument);
}

} // namespace
} // namespace gpur
