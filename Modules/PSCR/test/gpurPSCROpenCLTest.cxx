// SPDX-License-Identifier: Apache-2.0
// Tests of the OpenCL backend of the PSCR module against the CPU reference:
// the tridiagonal kernels (Thomas per work-item; CR, PCR and hybrids in local
// memory; the fallback when a system does not fit) for every size 1..64 and
// 127, 255, 300; PSCR in 2D and 3D, q = 2 and 4, float and double, real and
// complex, regular, indefinite (refinement) and singular; the lane kernels of
// CPU drivers against the batched ones; solves chained on
// device buffers; backend choice and errors (fp64, build log, buffers).
// Skipped without an OpenCL device.
#include "gpurAutoTesting.h"
#include "gpurError.h"
#include "gpurPSCRDevice.h"
#include "gpurPSCRSolver.h"
#include "gpurPSCRTesting.h"
#include "gpurSeparableProblems.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using gpur::AxisFactors;
using gpur::Backend;
using gpur::PSCROptions;
using gpur::PSCRSolver;
using gpur::SeparableOperator;
using gpur::TridiagonalAlgorithm;
using gpur::TridiagonalOptions;
using namespace gpur::testing;

namespace
{

using cd = std::complex<double>;
using cf = std::complex<float>;
const gpur::BoundaryCondition N = gpur::BoundaryCondition::Neumann;

template<typename T>
constexpr double
Tolerance()
{
  return std::is_same<gpur::RealType<T>, double>::value ? 1e-10 : 1e-4;
}

PSCROptions
On(Backend backend, unsigned radix = 4)
{
  PSCROptions o;
  o.radix = radix;
  o.execution.backend = backend;
  o.fastTransforms = false; // PSCR on both backends (the CPU's fast transforms: gpurPSCRFastTransformsTest)
  return o;
}

TridiagonalOptions
Algorithm(TridiagonalAlgorithm a, std::size_t crStop = 32, unsigned pcrSteps = 2)
{
  TridiagonalOptions o;
  o.algorithm = a;
  o.crStopSize = crStop;
  o.pcrSteps = pcrSteps;
  return o;
}

// Every size 1..64 and three larger ones.
std::vector<std::size_t>
Sizes()
{
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 64; ++n)
    sizes.push_back(n);
  for (std::size_t n : { 127, 255, 300 })
    sizes.push_back(n);
  return sizes;
}

// Fewer sizes where a sweep repeats one already made in double: the small
// ones, the powers of two (+-1) where the level structure changes, the large.
std::vector<std::size_t>
SomeSizes()
{
  return { 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 127, 255, 300 };
}

// A random symmetric pair with A + s M diagonally dominant for shifts s in [0, 1]
// (complex entries too: |diag| >= 3 > 2 (|off A| + |off M|)).
template<typename T>
AxisFactors<T>
RandomPair(std::size_t n, unsigned seed)
{
  AxisFactors<T> f{ { RandomVector<T>(n, seed), RandomVector<T>(n - 1, seed + 1) },
                    { RandomVector<T>(n, seed + 2), RandomVector<T>(n - 1, seed + 3) } };
  for (T & d : f.A.diagonal)
    d += T(4);
  for (T & d : f.M.diagonal)
    d += T(2);
  for (T & o : f.M.offDiagonal)
    o *= gpur::RealType<T>(0.25);
  return f;
}

// The device tridiagonal solver on `count` systems with shifts 0, 1/count, ...;
// system `singular` drops its last equation. Returns the relative difference to the CPU.
template<typename T>
double
TridiagonalAgreement(const gpur::DeviceInfo & device,
                     std::size_t n,
                     const TridiagonalOptions & options,
                     long singular,
                     bool expectLocal)
{
  const std::size_t count = 3;
  const AxisFactors<T> f = RandomPair<T>(n, static_cast<unsigned>(n));
  std::vector<T> shifts(count), x = RandomVector<T>(count * n, static_cast<unsigned>(n + 100));
  for (std::size_t k = 0; k < count; ++k)
    shifts[k] = T(gpur::RealType<T>(k) / gpur::RealType<T>(count));
  auto context = gpur::DeviceContext::Get(device);
  gpur::TridiagonalDeviceSolver<T> solver(*context, device, f, options, count);
  EXPECT_EQ(solver.UsesLocalMemory(), expectLocal) << gpur::ToString(options.algorithm) << " n = " << n;
  const gpur::DeviceBuffer<T> xd(*context, x.size()), sd(*context, count);
  xd.Upload(context->Queue(0), x);
  sd.Upload(context->Queue(0), shifts);
  solver.Solve(context->Queue(0), xd.Get(), count, sd.Get(), singular);
  const std::vector<T> onDevice = xd.Download(context->Queue(0));
  std::vector<T> reference = x;
  std::vector<gpur::TridiagonalWork<T>> workspace;
  for (std::size_t k = 0; k < count; ++k)
  {
    const bool dropLast = static_cast<long>(k) == singular;
    if (n > 1 || !dropLast)
      gpur::SolveShiftedTridiagonalUnchecked(
        f.A, f.M, shifts[k], dropLast ? n - 1 : n, reference.data() + k * n, options, workspace);
    if (dropLast)
      reference[k * n + n - 1] = T(0);
  }
  return RelativeDifference(onDevice, reference);
}

template<typename T>
void
CheckTridiagonalKernels()
{
  const gpur::DeviceInfo device = gpur::SelectDevices().front();
  gpur::DeviceInfo small = device;
  small.localMemory = 2048; // too small for a system of 300 rows: Thomas instead
  double worst = 0;
  for (const TridiagonalOptions & o : { Algorithm(TridiagonalAlgorithm::Thomas),
                                        Algorithm(TridiagonalAlgorithm::CR),
                                        Algorithm(TridiagonalAlgorithm::PCR),
                                        Algorithm(TridiagonalAlgorithm::Hybrid, 32, 2),
                                        Algorithm(TridiagonalAlgorithm::Hybrid, 3, 1) })
  {
    const bool local = o.algorithm != TridiagonalAlgorithm::Thomas;
    for (std::size_t n : Sizes())
    {
      const double d = TridiagonalAgreement<T>(device, n, o, n % 3 == 0 ? 1 : -1, local);
      worst = std::max(worst, d);
      ASSERT_LE(d, Tolerance<T>() / 100) << gpur::ToString(o.algorithm) << " n = " << n;
    }
    if (local)
    {
      const double d = TridiagonalAgreement<T>(small, 300, o, 2, false);
      worst = std::max(worst, d);
      EXPECT_LE(d, Tolerance<T>() / 100) << gpur::ToString(o.algorithm) << " without local memory";
    }
  }
  std::printf("  max relative difference OpenCL vs CPU: %.2e\n", worst);
}

// Solves A u = A u0 on both backends: (OpenCL residual, OpenCL vs CPU difference).
// The residual of a float solution is measured with the double operator.
template<typename T>
std::pair<double, double>
Compare(const SeparableOperator<T> & op, const PSCROptions & options, unsigned seed)
{
  const std::vector<T> u0 = RandomVector<T>(op.Count(), seed);
  std::vector<T> f(op.Count()), cpu(op.Count()), opencl(op.Count());
  gpur::ApplySeparableOperator(op, u0.data(), f.data());
  PSCROptions cpuOptions = options;
  cpuOptions.execution.backend = Backend::CPU;
  PSCRSolver<T>(op, cpuOptions).Solve(f.data(), cpu.data());
  PSCROptions clOptions = options;
  clOptions.execution.backend = Backend::OpenCL;
  const PSCRSolver<T> solver(op, clOptions);
  solver.Solve(f.data(), opencl.data());
  using W = std::conditional_t<gpur::IsComplex<T>::value, cd, double>;
  const SeparableOperator<W> wide = gpur::CastOperator<W>(op);
  const std::vector<W> uw(opencl.begin(), opencl.end()), fw(f.begin(), f.end());
  return { RelativeResidual(wide, uw, fw), RelativeDifference(opencl, cpu) };
}

struct Worst
{
  double residual = 0, difference = 0;
  void
  Add(const std::pair<double, double> & r)
  {
    residual = std::max(residual, r.first);
    difference = std::max(difference, r.second);
  }
};

template<typename T>
void
CheckTwoDimensional(Worst & worst, const std::vector<std::size_t> & sizes)
{
  for (unsigned radix : { 2u, 4u })
  {
    for (std::size_t n : sizes)
    {
      // n on the reduced axis y, then on the tridiagonal axis x.
      const unsigned seed = static_cast<unsigned>(n);
      for (const auto & axes : { std::vector<AxisFactors<double>>{ VariedAxis(5, 1), VariedAxis(n, seed) },
                                 std::vector<AxisFactors<double>>{ VariedAxis(n, seed), VariedAxis(6, 2) } })
      {
        const auto r =
          Compare(gpur::CastOperator<T>(SeparableOperator<double>{ axes, 0.3 }), On(Backend::OpenCL, radix), seed);
        worst.Add(r);
        ASSERT_LE(r.first, Tolerance<T>()) << axes[0].Size() << " x " << axes[1].Size() << " q = " << radix;
        ASSERT_LE(r.second, Tolerance<T>()) << axes[0].Size() << " x " << axes[1].Size() << " q = " << radix;
      }
    }
  }
}

template<typename T>
void
CheckThreeDimensional(Worst & worst)
{
  std::vector<std::vector<std::size_t>> shapes;
  for (std::size_t n : { 1, 2, 3, 4, 5, 7, 15, 16, 17, 33 })
  {
    shapes.push_back({ n, 5, 6 });
    shapes.push_back({ 6, n, 5 });
    shapes.push_back({ 5, 6, n });
  }
  shapes.push_back({ 21, 19, 23 });
  for (unsigned radix : { 2u, 4u })
  {
    for (const std::vector<std::size_t> & n : shapes)
    {
      std::vector<AxisFactors<double>> axes;
      for (unsigned d = 0; d < 3; ++d)
        axes.push_back(VariedAxis(n[d], static_cast<unsigned>(7 * d + n[d])));
      const auto r =
        Compare(gpur::CastOperator<T>(SeparableOperator<double>{ axes, 0.3 }), On(Backend::OpenCL, radix), 5);
      worst.Add(r);
      const std::string shape = std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
      ASSERT_LE(r.first, Tolerance<T>()) << shape << " q = " << radix;
      ASSERT_LE(r.second, Tolerance<T>()) << shape << " q = " << radix;
    }
  }
}

} // namespace

TEST(TridiagonalOpenCL, EveryAlgorithmMatchesTheCPU)
{
  GPUR_REQUIRE_OPENCL();
  CheckTridiagonalKernels<double>();
  CheckTridiagonalKernels<float>();
  CheckTridiagonalKernels<cd>();
  CheckTridiagonalKernels<cf>();
}

TEST(PSCROpenCL, AgreesWithTheCPUIn2D)
{
  GPUR_REQUIRE_OPENCL();
  Worst d, f;
  CheckTwoDimensional<double>(d, Sizes());
  CheckTwoDimensional<float>(f, SomeSizes());
  std::printf("  2D double: max residual %.2e, max difference to the CPU %.2e\n", d.residual, d.difference);
  std::printf("  2D float: max residual %.2e, max difference to the CPU %.2e\n", f.residual, f.difference);
}

TEST(PSCROpenCL, AgreesWithTheCPUIn3D)
{
  GPUR_REQUIRE_OPENCL();
  Worst d, f;
  CheckThreeDimensional<double>(d);
  CheckThreeDimensional<float>(f);
  std::printf("  3D double: max residual %.2e, max difference to the CPU %.2e\n", d.residual, d.difference);
  std::printf("  3D float: max residual %.2e, max difference to the CPU %.2e\n", f.residual, f.difference);
}

// The innermost solves in local memory (CR, PCR, hybrid) give the same PSCR result.
TEST(PSCROpenCL, EveryTridiagonalAlgorithm)
{
  GPUR_REQUIRE_OPENCL();
  const SeparableOperator<double> op2{ { VariedAxis(300, 1), VariedAxis(37, 2) }, 0.1 };
  const SeparableOperator<double> op3{ { VariedAxis(40, 3), VariedAxis(9, 4), VariedAxis(13, 5) }, 0.1 };
  for (const TridiagonalOptions & t : { Algorithm(TridiagonalAlgorithm::CR),
                                        Algorithm(TridiagonalAlgorithm::PCR),
                                        Algorithm(TridiagonalAlgorithm::Hybrid, 8, 2) })
  {
    PSCROptions o = On(Backend::OpenCL);
    o.tridiagonal = t;
    for (const SeparableOperator<double> * op : { &op2, &op3 })
    {
      const auto r = Compare(*op, o, 9);
      EXPECT_LE(r.first, 1e-10) << gpur::ToString(t.algorithm) << " " << op->axes.size() << "D";
      EXPECT_LE(r.second, 1e-10) << gpur::ToString(t.algorithm) << " " << op->axes.size() << "D";
    }
  }
}

// Helmholtz with the absorbing boundary (complex symmetric, c = -omega^2), 2D and 3D.
TEST(PSCROpenCL, ComplexHelmholtz)
{
  GPUR_REQUIRE_OPENCL();
  const double omega = 10;
  const AxisFactors<cd> x = gpur::MakeHelmholtzABCAxis(gpur::MakeUniformNodes(40, 0, 1), omega);
  const AxisFactors<cd> y = gpur::MakeHelmholtzABCAxis(RandomMesh(30, 1, 17), omega);
  const AxisFactors<cd> z = gpur::MakeHelmholtzABCAxis(gpur::MakeUniformNodes(9, 0, 1), omega);
  Worst d, f;
  for (unsigned radix : { 2u, 4u })
  {
    for (const auto & axes : { std::vector<AxisFactors<cd>>{ x, y }, std::vector<AxisFactors<cd>>{ z, y, x } })
    {
      const SeparableOperator<cd> op{ axes, cd(-omega * omega) };
      d.Add(Compare(op, On(Backend::OpenCL, radix), 3));
      f.Add(Compare(gpur::CastOperator<cf>(op), On(Backend::OpenCL, radix), 4));
    }
  }
  EXPECT_LE(d.residual, 1e-10);
  EXPECT_LE(d.difference, 1e-10);
  EXPECT_LE(f.residual, 1e-4);
  EXPECT_LE(f.difference, 1e-4);
  std::printf("  Helmholtz complex double: residual %.2e, difference %.2e; complex float: %.2e, %.2e\n",
              d.residual,
              d.difference,
              f.residual,
              f.difference);
}

// Indefinite operators: the checks and refinement steps run on the device as
// on the CPU (residual kernel, correction solve) and take the same decisions,
// 2D and 3D, q = 2 and 4, float and double; the 3D case is the ITK test's
// Helmholtz problem, where PSCR alone leaves 1e-9 with q = 2.
TEST(PSCROpenCL, IndefiniteRefinement)
{
  GPUR_REQUIRE_OPENCL();
  const gpur::BoundaryCondition D = gpur::BoundaryCondition::Dirichlet;
  const SeparableOperator<double> op2{ { VariedAxis(37, 6), VariedAxis(45, 7) }, -2000.0 };
  const SeparableOperator<double> op3{ { gpur::MakeSecondDifferenceAxis(21, 1.0, N, N),
                                         gpur::MakeSecondDifferenceAxis(16, 0.4, D, D),
                                         gpur::MakeSecondDifferenceAxis(11, 2.5, N, N) },
                                       -1.5 };
  Worst d, f;
  for (unsigned radix : { 2u, 4u })
  {
    for (const SeparableOperator<double> * op : { &op2, &op3 })
    {
      const PSCRSolver<double> solver(*op, On(Backend::OpenCL, radix));
      // A random f: u is dominated by the near-null components.
      const std::vector<double> rhs = RandomVector<double>(op->Count(), 8);
      std::vector<double> cpu(op->Count()), opencl(op->Count());
      const gpur::PSCRSolveReport onCPU =
        PSCRSolver<double>(*op, On(Backend::CPU, radix)).Solve(rhs.data(), cpu.data());
      const gpur::PSCRSolveReport onDevice = solver.Solve(rhs.data(), opencl.data());
      EXPECT_GE(onDevice.refinementSteps, 1u) << "an indefinite operator needs refinement";
      EXPECT_EQ(onDevice.refinementSteps, onCPU.refinementSteps);
      EXPECT_NEAR(onDevice.relativeResidual, onCPU.relativeResidual, 1e-3 * onCPU.relativeResidual);
      EXPECT_NEAR(onDevice.roundingFloor, onCPU.roundingFloor, 1e-9 * onCPU.roundingFloor);
      EXPECT_NEAR(onDevice.relativeResidual, RelativeResidual(*op, opencl, rhs), 0.1 * onDevice.relativeResidual);
      d.Add({ RelativeResidual(*op, opencl, rhs), RelativeDifference(opencl, cpu) });
      f.Add(Compare(gpur::CastOperator<float>(*op), On(Backend::OpenCL, radix), 9));
    }
  }
  EXPECT_LE(d.residual, 1e-10);
  EXPECT_LE(d.difference, 1e-10);
  EXPECT_LE(f.residual, 1e-4);
  EXPECT_LE(f.difference, 1e-4);
  std::printf("  indefinite double: residual %.2e, difference %.2e; float: %.2e, %.2e\n",
              d.residual,
              d.difference,
              f.residual,
              f.difference);
}

// Pure-Neumann Poisson: the null-space projections on the device give the CPU's
// zero-mean solution, and an incompatible f is refused with the CPU's message.
TEST(PSCROpenCL, SingularNeumannPoisson)
{
  GPUR_REQUIRE_OPENCL();
  const std::vector<std::vector<AxisFactors<double>>> problems{ { gpur::MakeSecondDifferenceAxis(37, 0.5, N, N),
                                                                  gpur::MakeP1Axis(RandomMesh(17, 2, 2), N, N) },
                                                                { gpur::MakeSecondDifferenceAxis(6, 1, N, N),
                                                                  gpur::MakeP1Axis(RandomMesh(9, 1, 3), N, N),
                                                                  gpur::MakeSecondDifferenceAxis(5, 1, N, N) } };
  for (const auto & axes : problems)
  {
    const SeparableOperator<double> op{ axes, 0.0 };
    for (unsigned radix : { 2u, 4u })
    {
      // f = A u0 is compatible (to rounding); both backends project out the same null component.
      const std::vector<double> u0 = RandomVector<double>(op.Count(), 21);
      std::vector<double> f(op.Count()), cpu(op.Count()), opencl(op.Count());
      gpur::ApplySeparableOperator(op, u0.data(), f.data());
      PSCRSolver<double>(op, On(Backend::CPU, radix)).Solve(f.data(), cpu.data());
      const PSCRSolver<double> solver(op, On(Backend::OpenCL, radix));
      ASSERT_TRUE(solver.IsSingular());
      solver.Solve(f.data(), opencl.data());
      EXPECT_LE(RelativeDifference(opencl, cpu), 1e-10) << axes.size() << "D q = " << radix;
      EXPECT_LE(RelativeResidual(op, opencl, f), 1e-10) << axes.size() << "D q = " << radix;
      for (double & v : f)
        v += 1e-3;
      ExpectError<gpur::IncompatibleRightHandSide>([&] { solver.Solve(f.data(), opencl.data()); }, "not compatible");
    }
  }
}

// The kernels of pscr_lanes.cl (CPU drivers' default: partial solves fused on vector lanes, the block sums on
// spans of inner values) and the batched ones (GPUs' default) give the same solutions bit for bit, in 2D and 3D, q = 2
// and 4, float and double, sizes around the lane width and its multiples, blocks larger and smaller than the lanes, and
// the singular path; both agree with the CPU. The switch follows the device type unless $ITKGPUR_PSCR_LANES says.
template<typename T>
void
CheckLanesAgainstBatched(const SeparableOperator<double> & wide, unsigned radix, double tolerance)
{
  const SeparableOperator<T> op = gpur::CastOperator<T>(wide);
  std::vector<T> u0 = RandomVector<T>(op.Count(), 3), f(op.Count()), cpu(op.Count());
  gpur::ApplySeparableOperator(op, u0.data(), f.data());
  PSCRSolver<T>(op, On(Backend::CPU, radix)).Solve(f.data(), cpu.data());
  std::vector<std::vector<T>> solutions;
  for (const char * lanes : { "on", "off" })
  {
    const ScopedEnvironment choice("ITKGPUR_PSCR_LANES", lanes);
    std::vector<T> u(op.Count());
    PSCRSolver<T>(op, On(Backend::OpenCL, radix)).Solve(f.data(), u.data());
    EXPECT_LE(RelativeDifference(u, cpu), tolerance) << "lanes " << lanes << ", q = " << radix;
    solutions.push_back(u);
  }
  // The same operations in the same order per system (contraction off), so the same bits.
  EXPECT_EQ(RelativeDifference(solutions[0], solutions[1]), 0.0) << "q = " << radix;
}

TEST(PSCROpenCL, LaneKernelsMatchTheBatchedOnes)
{
  GPUR_REQUIRE_OPENCL();
  std::vector<SeparableOperator<double>> ops;
  for (std::size_t n : { 1, 7, 8, 9, 17, 70 })
    ops.push_back({ { VariedAxis(n, 1), VariedAxis(77, 2) }, 0.3 });
  ops.push_back({ { VariedAxis(40, 3), VariedAxis(130, 4) }, 0.3 });
  ops.push_back({ { VariedAxis(9, 5), VariedAxis(21, 6), VariedAxis(19, 7) }, 0.3 });
  ops.push_back({ { gpur::MakeSecondDifferenceAxis(23, 0.5, N, N), gpur::MakeP1Axis(RandomMesh(40, 2, 2), N, N) },
                  0.0 }); // singular: the null vector's path through the lanes
  for (const SeparableOperator<double> & op : ops)
    for (unsigned radix : { 2u, 4u })
    {
      CheckLanesAgainstBatched<double>(op, radix, 1e-10);
      CheckLanesAgainstBatched<float>(op, radix, 1e-4);
    }

  const gpur::DeviceInfo device = gpur::SelectDevices().front();
  {
    const ScopedEnvironment choice("ITKGPUR_PSCR_LANES", nullptr);
    EXPECT_EQ(gpur::UsesPSCRLanes(device, false), device.type == gpur::DeviceType::CPU && device.fp64);
  }
  const ScopedEnvironment on("ITKGPUR_PSCR_LANES", "on");
  EXPECT_EQ(gpur::UsesPSCRLanes(device, false), device.fp64);
  EXPECT_FALSE(gpur::UsesPSCRLanes(device, true)) << "complex scalars keep the batched kernels";
}

// Solves chained on device buffers (u1 = A^-1 f, u2 = A^-1 u1, then in place
// u3 = A^-1 u2) equal the host solves on the same device bit for bit, and the
// CPU's; host solves in place and from two threads.
TEST(PSCROpenCL, ChainedSolvesOnDeviceBuffers)
{
  GPUR_REQUIRE_OPENCL();
  auto check = [](auto zero, const SeparableOperator<double> & op64)
  {
    using T = decltype(zero);
    const SeparableOperator<T> op = gpur::CastOperator<T>(op64);
    const PSCRSolver<T> solver(op, On(Backend::OpenCL));
    const PSCRSolver<T> cpu(op, On(Backend::CPU));
    const std::size_t n = op.Count();
    const std::vector<T> f = RandomVector<T>(n, 8);
    std::vector<T> host1(n), host2(n), host3(n), cpu3(n);
    solver.Solve(f.data(), host1.data());
    solver.Solve(host1.data(), host2.data());
    solver.Solve(host2.data(), host3.data());
    cpu.Solve(f.data(), cpu3.data());
    cpu.Solve(cpu3.data(), cpu3.data());
    cpu.Solve(cpu3.data(), cpu3.data());

    gpur::DeviceContext & context = solver.Context();
    const cl::CommandQueue & queue = context.Queue(0);
    const gpur::DeviceBuffer<T> fd(context, n);
    gpur::DeviceBuffer<T> u1(context, n), u2(context, n);
    fd.Upload(queue, f);
    solver.Solve(fd, u1);
    solver.Solve(u1, u2);
    solver.Solve(u2, u2);
    const std::vector<T> chained = u2.Download(queue);
    EXPECT_EQ(chained, host3) << "device-resident solves differ from host solves on the same device";
    EXPECT_LE(RelativeDifference(chained, cpu3), Tolerance<T>());
    EXPECT_EQ(u1.Download(queue), host1);

    // Host solves in place, and from two threads at once (serialised on the one workspace).
    std::vector<T> inPlace = f, a(n), b(n);
    solver.Solve(inPlace.data(), inPlace.data());
    EXPECT_EQ(inPlace, host1);
    std::thread other([&] { solver.Solve(f.data(), a.data()); });
    solver.Solve(f.data(), b.data());
    other.join();
    EXPECT_EQ(a, host1);
    EXPECT_EQ(b, host1);
  };
  check(double(0), SeparableOperator<double>{ { VariedAxis(33, 1), VariedAxis(20, 2) }, 0.5 });
  check(float(0), SeparableOperator<double>{ { VariedAxis(9, 3), VariedAxis(8, 4), VariedAxis(7, 5) }, 0.5 });
  check(cd(0), SeparableOperator<double>{ { VariedAxis(12, 5), VariedAxis(10, 6) }, 0.5 });
}

TEST(PSCROpenCL, AutoMeasuresSolvesOfALeadingPart)
{
  GPUR_REQUIRE_AUTO_MEASURING();
  const gpur::testing::AutoRuleScope rule;
  // 600 000 unknowns: the probe solves the leading 661 x 397 (about 2^18) with the solver's options.
  const SeparableOperator<double> op{ { VariedAxis(1000, 1), VariedAxis(600, 2) }, 0.2 };
  const PSCRSolver<float> solver(gpur::CastOperator<float>(op));
  ExpectMeasuredChoice(solver.BackendUsed(), "PSCR 2D float32 on 661x397 voxels");
  std::vector<float> f(op.Count()), u(op.Count());
  for (std::size_t i = 0; i < f.size(); ++i)
    f[i] = float(i % 13) - 6.0f;
  const gpur::PSCRSolveReport report = solver.Solve(f.data(), u.data());
  EXPECT_LE(report.relativeResidual, report.residualTarget);
}

TEST(PSCROpenCL, BackendChoiceAndErrors)
{
  GPUR_REQUIRE_OPENCL();
  const SeparableOperator<double> op{ { VariedAxis(7, 1), VariedAxis(6, 2) }, 0.2 };
  const PSCRSolver<double> cpu(op, On(Backend::CPU));
  EXPECT_EQ(cpu.BackendUsed().Describe(), "CPU");
  const PSCRSolver<double> opencl(op, On(Backend::OpenCL));
  EXPECT_EQ(opencl.BackendUsed().backend, Backend::OpenCL);
  EXPECT_EQ(opencl.BackendUsed().Describe(), "OpenCL: " + gpur::SelectDevices().front().name);
  EXPECT_EQ(opencl.BackendUsed().reason, "backend OpenCL requested");
  PSCROptions named = On(Backend::Auto);
  named.execution.device = "0";
  EXPECT_EQ(PSCRSolver<double>(op, named).BackendUsed().backend, Backend::OpenCL) << "Auto on a named device";
  PSCROptions unknown = On(Backend::Auto);
  unknown.execution.device = "no-such-device-xyz";
  ExpectError<gpur::InvalidArgument>([&] { PSCRSolver<double>(op, unknown); }, "no-such-device-xyz");

  // Device buffers need the OpenCL backend, and Count() values.
  gpur::DeviceContext & context = opencl.Context();
  gpur::DeviceBuffer<double> small(context, op.Count() - 1), fine(context, op.Count());
  ExpectError<gpur::InvalidArgument>([&] { cpu.Solve(fine, fine); }, "needs the OpenCL backend");
  ExpectError<gpur::InvalidArgument>([&] { cpu.Context(); }, "runs on the CPU");
  ExpectError<gpur::InvalidArgument>([&] { opencl.Solve(small, fine); }, "the operator needs 42");

  // Every PSCR solve checks its residual in double, so the PSCR solver needs
  // fp64 whatever the scalar; the float tridiagonal solver runs without it.
  gpur::DeviceInfo noFp64 = gpur::SelectDevices().front();
  noFp64.fp64 = false;
  const auto plan = std::make_shared<const gpur::PSCRPlan<double>>(
    gpur::BuildPSCRPlan(op, PSCROptions(), gpur::MakeThreadParallelFor(1)));
  const auto gram = gpur::pscr::MakeColumnGram(op.axes, op.shift);
  ExpectError<gpur::InvalidArgument>([&] { gpur::PSCRDeviceSolver<double> s(plan, noFp64, gram); }, "no fp64 support");
  const SeparableOperator<float> opf = gpur::CastOperator<float>(op);
  const auto planf = std::make_shared<const gpur::PSCRPlan<float>>(
    gpur::BuildPSCRPlan(opf, PSCROptions(), gpur::MakeThreadParallelFor(1)));
  ExpectError<gpur::InvalidArgument>([&] { gpur::PSCRDeviceSolver<float> s(planf, noFp64, gram); },
                                     "residual checks run in double");
  EXPECT_NO_THROW(gpur::TridiagonalDeviceSolver<float> t(context, noFp64, opf.axes[0], gpur::TridiagonalOptions(), 4));

  // A kernel that does not build: BuildError with the compiler's log.
  setenv(gpur::KernelDirectoryEnvironmentVariable(), GPUR_PSCR_BROKEN_KERNEL_DIR, 1);
  try
  {
    PSCRSolver<float> broken(opf, On(Backend::OpenCL));
    unsetenv(gpur::KernelDirectoryEnvironmentVariable());
    FAIL() << "a broken kernel built";
  }
  catch (const gpur::BuildError & e)
  {
    unsetenv(gpur::KernelDirectoryEnvironmentVariable());
    const std::string what = e.what();
    EXPECT_NE(what.find("build log"), std::string::npos) << what;
    EXPECT_NE(what.find("pscr_solve.cl"), std::string::npos) << what;
    EXPECT_NE(what.find("broken_identifier"), std::string::npos) << what;
  }
}
