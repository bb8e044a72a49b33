// SPDX-License-Identifier: Apache-2.0
// The fast-transform path of PSCRSolver: which axes it takes (and the
// eigenvalues it assigns them, against the tridiagonal eigensolver), and its
// solutions against PSCR's (fastTransforms off) on uniform, mixed and
// non-uniform operators, 2D and 3D, Dirichlet and Neumann, singular ones
// included, in double and float, on the CPU and on the OpenCL backend.
#include "gpurBuffer.h"
#include "gpurContext.h"
#include "gpurPSCRFastTransforms.h"
#include "gpurPSCRSolver.h"
#include "gpurPSCRTesting.h"
#include "gpurTridiagonalEigen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace
{

using gpur::AxisFactors;
using gpur::Backend;
using gpur::BoundaryCondition;
using gpur::MassMatrix;
using gpur::PSCROptions;
using gpur::PSCRSolver;
using gpur::PSCRSolveReport;
using gpur::SeparableOperator;
using gpur::TrigTransformKind;
using gpur::testing::RandomMesh;
using gpur::testing::RandomVector;
using gpur::testing::RelativeDifference;
using gpur::testing::RelativeResidual;

const BoundaryCondition D = BoundaryCondition::Dirichlet;
const BoundaryCondition N = BoundaryCondition::Neumann;

PSCROptions
Options(bool fast, Backend backend = Backend::CPU)
{
  PSCROptions o;
  o.execution.backend = backend;
  o.fastTransforms = fast;
  o.compatibilityTolerance = 1; // singular cases: f is projected
  return o;
}

AxisFactors<double>
Uniform(std::size_t n, double h, BoundaryCondition end)
{
  return gpur::MakeSecondDifferenceAxis(n, h, end, end);
}

AxisFactors<double>
NonUniform(std::size_t n, unsigned seed)
{
  return gpur::MakeP1Axis(RandomMesh(n + 1, 1.0, seed), D, D);
}

// The zero-mean (M = I) projection of f for singular operators.
template<typename T>
void
RemoveMean(std::vector<T> & f)
{
  double mean = 0;
  for (const T v : f)
    mean += double(v);
  mean /= double(f.size());
  for (T & v : f)
    v = static_cast<T>(double(v) - mean);
}

} // namespace

TEST(PSCRFastTransforms, DetectsTheAxesItsTransformsDiagonalise)
{
  struct Case
  {
    const char * name;
    AxisFactors<double> axis;
    TrigTransformKind kind;
  };
  const std::vector<Case> cases{
    { "differences D-D", Uniform(37, 0.3, D), TrigTransformKind::DST1 },
    { "differences N-N", Uniform(37, 0.3, N), TrigTransformKind::DCT2 },
    { "differences D-N", gpur::MakeSecondDifferenceAxis(37, 0.3, D, N), TrigTransformKind::None },
    { "differences D, n = 1", Uniform(1, 2.0, D), TrigTransformKind::DST1 },
    { "differences N, n = 1", Uniform(1, 2.0, N), TrigTransformKind::DCT2 },
    { "P1 lumped uniform D-D", gpur::MakeP1Axis(gpur::MakeUniformNodes(65, 0, 1), D, D), TrigTransformKind::DST1 },
    { "P1 lumped uniform N-N (half mass at the ends)",
      gpur::MakeP1Axis(gpur::MakeUniformNodes(65, 0, 1), N, N),
      TrigTransformKind::None },
    { "P1 consistent uniform D-D",
      gpur::MakeP1Axis(gpur::MakeUniformNodes(65, 0, 1), D, D, MassMatrix::Consistent),
      TrigTransformKind::None },
    { "P1 non-uniform D-D", NonUniform(40, 3), TrigTransformKind::None },
  };
  for (const Case & c : cases)
  {
    const gpur::TrigAxis t = gpur::DetectTrigAxis(c.axis);
    EXPECT_EQ(t.kind, c.kind) << c.name;
    if (t.kind == TrigTransformKind::None)
      continue;
    // The eigenvalues it assigns, sorted, are those of the pencil (A, M), to
    // the general eigensolver's accuracy (1e-10 relative at the top of the
    // P1 spectrum, where the closed form agrees with a dense solver to 1e-15).
    std::vector<double> mine = t.eigenvalues;
    std::sort(mine.begin(), mine.end());
    const std::vector<double> reference = gpur::TridiagonalPencilEigenvalues(c.axis.A, c.axis.M);
    ASSERT_EQ(mine.size(), reference.size()) << c.name;
    for (std::size_t k = 0; k < mine.size(); ++k)
      EXPECT_NEAR(mine[k], reference[k], 1e-9 * reference.back() + 1e-300) << c.name << " k = " << k;
  }
}

// The fast path takes an axis only when its FFT length factors into primes up to 13: a uniform Dirichlet axis
// of 37 unknowns is a DST-I axis (2 (37 + 1) = 4 19 points) that it leaves to PSCR, one of 44 (90 = 2 3^2 5) it takes.
TEST(PSCRFastTransforms, RefusesFFTLengthsWithLargePrimeFactors)
{
  const struct
  {
    std::size_t n;
    BoundaryCondition condition;
    TrigTransformKind kind;
    bool taken;
  } cases[] = { { 37, D, TrigTransformKind::DST1, false },  { 44, D, TrigTransformKind::DST1, true },
                { 38, N, TrigTransformKind::DCT2, false },  { 39, N, TrigTransformKind::DCT2, true },
                { 382, D, TrigTransformKind::DST1, false }, { 510, D, TrigTransformKind::DST1, false },
                { 511, D, TrigTransformKind::DST1, true },  { 416, N, TrigTransformKind::DCT2, true } };
  for (const auto & c : cases)
  {
    const AxisFactors<double> axis = Uniform(c.n, 0.1, c.condition);
    EXPECT_EQ(gpur::DetectTrigAxis(axis).kind, c.kind) << c.n;
    EXPECT_EQ(gpur::FastTransformAxis(axis).kind, c.taken ? c.kind : TrigTransformKind::None) << c.n;
  }
}

namespace
{

struct MixedCase
{
  std::vector<AxisFactors<double>> axes;
  double shift;
  std::string path;
};

// Every combination of transform and PSCR axes, with the CPU's path.
std::vector<MixedCase>
MixedCases()
{
  return {
    // 2D: uniform, each axis alone, none.
    { { Uniform(44, 0.7, D), Uniform(35, 1.1, D) }, 0.0, "fast transforms (x: DST-I, y: DST-I)" },
    { { Uniform(44, 0.7, N), Uniform(35, 1.1, N) }, 0.25, "fast transforms (x: DCT-II, y: DCT-II)" },
    { { Uniform(44, 0.7, D), NonUniform(35, 5) }, 0.0, "fast transforms (x: DST-I) + tridiagonal (y)" },
    { { NonUniform(44, 6), Uniform(35, 1.1, N) }, 0.5, "fast transforms (y: DCT-II) + tridiagonal (x)" },
    { { NonUniform(44, 6), NonUniform(35, 7) }, 0.0, "PSCR" },
    // A uniform axis whose FFT length has a large prime factor (2 (37 + 1) = 4 19) stays with the remainder.
    { { Uniform(37, 0.7, D), Uniform(35, 1.1, D) }, 0.0, "fast transforms (y: DST-I) + tridiagonal (x)" },
    // Indefinite (Helmholtz-like) shift.
    { { Uniform(44, 0.7, D), NonUniform(35, 5) }, -7.3, "fast transforms (x: DST-I) + tridiagonal (y)" },
    // 3D: every subset of transformed axes.
    { { Uniform(12, 1.0, D), Uniform(9, 0.5, N), Uniform(14, 2.0, D) },
      0.1,
      "fast transforms (x: DST-I, y: DCT-II, z: DST-I)" },
    { { NonUniform(12, 8), Uniform(9, 0.5, D), Uniform(14, 2.0, N) },
      0.1,
      "fast transforms (y: DST-I, z: DCT-II) + tridiagonal (x)" },
    { { Uniform(12, 1.0, D), NonUniform(9, 9), Uniform(14, 2.0, D) },
      0.0,
      "fast transforms (x: DST-I, z: DST-I) + tridiagonal (y)" },
    { { Uniform(12, 1.0, N), Uniform(9, 0.5, D), NonUniform(14, 10) },
      0.0,
      "fast transforms (x: DCT-II, y: DST-I) + tridiagonal (z)" },
    { { NonUniform(12, 11), NonUniform(9, 12), Uniform(14, 2.0, D) }, 0.0, "fast transforms (z: DST-I) + PSCR (x, y)" },
    { { NonUniform(12, 11), Uniform(9, 0.5, N), NonUniform(14, 13) },
      0.3,
      "fast transforms (y: DCT-II) + PSCR (x, z)" },
    { { Uniform(12, 1.0, D), NonUniform(9, 14), NonUniform(14, 15) },
      -2.0,
      "fast transforms (x: DST-I) + PSCR (y, z)" },
  };
}

} // namespace

// Every combination of transform and PSCR axes, against PSCR on the same f.
TEST(PSCRFastTransforms, AgreesWithPSCROnUniformMixedAndNonUniformOperators)
{
  const std::vector<MixedCase> cases = MixedCases();
  double worstResidual = 0, worstDifference = 0, worstFloat = 0;
  for (std::size_t k = 0; k < cases.size(); ++k)
  {
    const SeparableOperator<double> op{ cases[k].axes, cases[k].shift };
    const std::vector<double> f = RandomVector<double>(op.Count(), static_cast<unsigned>(k));
    std::vector<double> fast(f.size()), pscr(f.size());
    const PSCRSolver<double> fastSolver(op, Options(true));
    EXPECT_EQ(fastSolver.Path(), cases[k].path) << "case " << k;
    const PSCRSolveReport report = fastSolver.Solve(f.data(), fast.data());
    EXPECT_EQ(report.path, cases[k].path) << "case " << k;
    EXPECT_LE(report.relativeResidual, report.residualTarget) << "case " << k;
    const PSCRSolver<double> pscrSolver(op, Options(false));
    EXPECT_EQ(pscrSolver.Path(), "PSCR");
    EXPECT_EQ(pscrSolver.Solve(f.data(), pscr.data()).path, "PSCR");
    const double residual = RelativeResidual(op, fast, f), difference = RelativeDifference(fast, pscr);
    EXPECT_LE(residual, 1e-13) << "case " << k;
    EXPECT_LE(difference, 1e-12) << "case " << k;
    worstResidual = std::max(worstResidual, residual);
    worstDifference = std::max(worstDifference, difference);
    // Float: the fast path in float, checked against its own target.
    const SeparableOperator<float> opf = gpur::CastOperator<float>(op);
    const std::vector<float> ff(f.begin(), f.end());
    std::vector<float> uf(f.size());
    const PSCRSolveReport rf = PSCRSolver<float>(opf, Options(true)).Solve(ff.data(), uf.data());
    EXPECT_EQ(rf.path, cases[k].path);
    EXPECT_LE(rf.relativeResidual, rf.residualTarget) << "case " << k << " float";
    EXPECT_LE(RelativeDifference(uf, pscr), 1e-4) << "case " << k << " float";
    worstFloat = std::max(worstFloat, rf.relativeResidual / rf.roundingFloor);
  }
  std::printf("  fast path vs PSCR: max residual %.2e, max difference %.2e; float at most %.2f x its floor\n",
              worstResidual,
              worstDifference,
              worstFloat);
}

// Pure Neumann with c = 0: the fast path takes the transform axes' null mode
// to the remainder's singular path (or zeroes it) and returns the zero-mean solution, as PSCR does.
TEST(PSCRFastTransforms, SingularNeumannAsPSCR)
{
  const std::vector<std::vector<AxisFactors<double>>> problems{
    { Uniform(39, 0.5, N), Uniform(21, 1.0, N) },
    { Uniform(39, 0.5, N), gpur::MakeP1Axis(RandomMesh(17, 2, 2), N, N) },
    { gpur::MakeP1Axis(RandomMesh(12, 1, 4), N, N), Uniform(21, 1.0, N) },
    { Uniform(6, 1, N), gpur::MakeP1Axis(RandomMesh(9, 1, 3), N, N), Uniform(5, 1, N) },
    { gpur::MakeP1Axis(RandomMesh(7, 1, 5), N, N), gpur::MakeP1Axis(RandomMesh(9, 1, 3), N, N), Uniform(8, 1, N) },
    { Uniform(6, 1, N), Uniform(7, 2, N), Uniform(5, 1, N) },
  };
  for (std::size_t k = 0; k < problems.size(); ++k)
  {
    const SeparableOperator<double> op{ problems[k], 0.0 };
    std::vector<double> f = RandomVector<double>(op.Count(), static_cast<unsigned>(20 + k));
    const PSCRSolver<double> fastSolver(op, Options(true)), pscrSolver(op, Options(false));
    ASSERT_TRUE(fastSolver.IsSingular());
    EXPECT_NE(fastSolver.Path().find("fast transforms"), std::string::npos) << "problem " << k;
    std::vector<double> fast(f.size()), pscr(f.size());
    const PSCRSolveReport a = fastSolver.Solve(f.data(), fast.data());
    const PSCRSolveReport b = pscrSolver.Solve(f.data(), pscr.data());
    EXPECT_NEAR(a.incompatibility, b.incompatibility, 1e-12) << "problem " << k;
    EXPECT_LE(RelativeDifference(fast, pscr), 1e-11) << "problem " << k;
    EXPECT_LE(a.relativeResidual, a.residualTarget) << "problem " << k;
  }
  // With a compatible f the uniform problem's solution has zero mean.
  const SeparableOperator<double> op{ problems[0], 0.0 };
  std::vector<double> f = RandomVector<double>(op.Count(), 3), u(op.Count());
  RemoveMean(f);
  PSCROptions strict = Options(true);
  strict.compatibilityTolerance = 0;
  PSCRSolver<double>(op, strict).Solve(f.data(), u.data());
  double mean = 0;
  for (const double v : u)
    mean += v;
  EXPECT_LE(std::abs(mean) / double(u.size()), 1e-14);
  // An incompatible f is refused on the fast path too.
  for (double & v : f)
    v += 1e-3;
  EXPECT_THROW(PSCRSolver<double>(op, strict).Solve(f.data(), u.data()), gpur::IncompatibleRightHandSide);
  // A singular operator whose null vector is not the constants stays with PSCR.
  const std::size_t n = 9;
  const AxisFactors<double> x = Uniform(n, 1.0, D), y = gpur::MakeP1Axis(RandomMesh(n + 1, 1.0, 6), D, D);
  const double lx = gpur::TridiagonalPencilEigenvalues(x.A, x.M).front();
  const double ly = gpur::TridiagonalPencilEigenvalues(y.A, y.M).front();
  const PSCRSolver<double> shifted(SeparableOperator<double>{ { x, y }, -(lx + ly) }, Options(true));
  EXPECT_TRUE(shifted.IsSingular());
  EXPECT_EQ(shifted.Path(), "PSCR");
}

// The fast path's constructor builds the reduction's tables but none of its
// block eigenproblems (PlanContent::Structure): what the solver reports of the
// operator and of PSCR's reduction is the same as with fastTransforms off, and
// an operator the path then refuses (singular with c != 0) gets the full plan.
TEST(PSCRFastTransforms, SetupWithoutEigenpairsReportsAsPSCR)
{
  const std::vector<SeparableOperator<double>> ops{
    { { Uniform(44, 0.7, D), Uniform(35, 1.1, D) }, 0.0 },
    { { Uniform(44, 0.7, N), Uniform(35, 1.1, N) }, 0.0 },
    { { Uniform(44, 0.7, N), Uniform(35, 1.1, D) }, -3.0 },
    { { NonUniform(12, 8), Uniform(9, 0.5, D), Uniform(14, 2.0, N) }, 0.1 },
    { { Uniform(12, 1.0, D), Uniform(9, 0.5, N), Uniform(14, 2.0, D) }, 0.0 },
  };
  for (std::size_t k = 0; k < ops.size(); ++k)
  {
    const PSCRSolver<double> fast(ops[k], Options(true)), pscr(ops[k], Options(false));
    ASSERT_NE(fast.Path(), "PSCR") << "case " << k;
    EXPECT_EQ(fast.IsSingular(), pscr.IsSingular()) << "case " << k;
    EXPECT_EQ(fast.IsWellPosed(), pscr.IsWellPosed()) << "case " << k;
    EXPECT_EQ(fast.RefinementSteps(), pscr.RefinementSteps()) << "case " << k;
    EXPECT_EQ(fast.TridiagonalSolveCount(), pscr.TridiagonalSolveCount()) << "case " << k;
    for (unsigned d = 1; d < fast.Dimension(); ++d)
      EXPECT_EQ(fast.Levels(d), pscr.Levels(d)) << "case " << k << " axis " << d;
  }
  EXPECT_TRUE(PSCRSolver<double>(ops[1], Options(true)).IsSingular());
  EXPECT_FALSE(PSCRSolver<double>(ops[2], Options(true)).IsWellPosed());
  // Singular with c = -(lambda_x,min + lambda_y,min) on two transform axes:
  // the fast path is refused after the light plan, and PSCR solves it.
  const AxisFactors<double> x = Uniform(17, 1.0, D), y = Uniform(11, 0.5, D);
  const double lx = gpur::TridiagonalPencilEigenvalues(x.A, x.M).front();
  const double ly = gpur::TridiagonalPencilEigenvalues(y.A, y.M).front();
  const SeparableOperator<double> op{ { x, y }, -(lx + ly) };
  for (const bool fastTransforms : { true, false })
  {
    const PSCRSolver<double> solver(op, Options(fastTransforms));
    EXPECT_TRUE(solver.IsSingular());
    EXPECT_EQ(solver.Path(), "PSCR");
    const std::vector<double> f = RandomVector<double>(op.Count(), 31);
    std::vector<double> u(f.size());
    const PSCRSolveReport report = solver.Solve(f.data(), u.data());
    EXPECT_LE(report.relativeResidual, report.residualTarget);
  }
}

// A float solver plans the double transforms of its solves in double when one
// first runs (PSCRPrecision::Automatic falling short) or in its constructor
// (PSCRPrecision::Double); either way the double solve takes the fast path.
TEST(PSCRFastTransforms, FloatSolvesInDoubleTakeTheFastPath)
{
  const SeparableOperator<double> op{ { Uniform(39, 0.5, D), Uniform(30, 1.0, N) }, 0.0 };
  const std::vector<double> f = RandomVector<double>(op.Count(), 41);
  std::vector<double> exact(f.size());
  PSCRSolver<double>(op, Options(false)).Solve(f.data(), exact.data());
  const SeparableOperator<float> opf = gpur::CastOperator<float>(op);
  const std::vector<float> ff(f.begin(), f.end());
  const PSCRSolveReport own =
    PSCRSolver<float>(opf, Options(true)).Solve(ff.data(), std::vector<float>(f.size()).data());
  PSCROptions automatic = Options(true), always = Options(true);
  automatic.refinementSteps = 0; // a target the float solve misses: 1.5 x the floor
  automatic.residualTolerance = 1.5 * own.roundingFloor;
  always.precision = gpur::PSCRPrecision::Double;
  for (const PSCROptions & options : { automatic, always })
  {
    const PSCRSolver<float> solver(opf, options);
    std::vector<float> u(f.size());
    const PSCRSolveReport report = solver.Solve(ff.data(), u.data());
    EXPECT_TRUE(report.computedInDouble);
    EXPECT_EQ(report.path, "fast transforms (x: DST-I, y: DCT-II)");
    EXPECT_LE(report.relativeResidual, report.residualTarget);
    EXPECT_LE(RelativeDifference(u, exact), 1e-6);
  }
}

// In place (f == u), on arrays without FFTW's alignment, and from two threads.
TEST(PSCRFastTransforms, AliasingUnalignedArraysAndThreads)
{
  const SeparableOperator<double> op{ { Uniform(29, 1.0, D), NonUniform(20, 2) }, 0.0 };
  const PSCRSolver<double> solver(op, Options(true));
  const std::vector<double> f = RandomVector<double>(op.Count(), 9);
  std::vector<double> reference(f.size());
  solver.Solve(f.data(), reference.data());
  std::vector<double> shifted(f.size() + 1);
  std::copy(f.begin(), f.end(), shifted.begin() + 1);
  solver.Solve(shifted.data() + 1, shifted.data() + 1); // in place, 8 bytes off alignment
  EXPECT_LE(RelativeDifference(std::vector<double>(shifted.begin() + 1, shifted.end()), reference), 1e-15);
  // 16 bytes off FFTW's alignment (malloc's: its own measured plan) and aligned, f != u.
  for (const std::size_t offset : { std::size_t(0), std::size_t(2) })
  {
    std::vector<double> in(f.size() + 4), out(f.size() + 4);
    // Doubles from the start of each vector to its first 32-byte boundary, plus offset.
    auto start = [&](const std::vector<double> & v)
    { return (4 - reinterpret_cast<std::uintptr_t>(v.data()) % 32 / sizeof(double)) % 4 + offset; };
    const std::size_t inOffset = start(in), outOffset = start(out);
    std::copy(f.begin(), f.end(), in.begin() + inOffset);
    solver.Solve(in.data() + inOffset, out.data() + outOffset);
    EXPECT_LE(
      RelativeDifference(std::vector<double>(out.begin() + outOffset, out.begin() + outOffset + f.size()), reference),
      1e-15)
      << "offset " << offset;
  }
  std::vector<double> a(f.size()), b(f.size());
  std::thread other([&] { solver.Solve(f.data(), a.data()); });
  solver.Solve(f.data(), b.data());
  other.join();
  EXPECT_EQ(a, reference);
  EXPECT_EQ(b, reference);
}

// A non-finite f is named, whether the fast path checks it in its copy of f
// (f != u), before solving in place, or before its solve in double.
TEST(PSCRFastTransforms, NonFiniteRightHandSideIsNamed)
{
  const SeparableOperator<double> op{ { Uniform(12, 1.0, D), Uniform(9, 1.0, N) }, 0.0 };
  const std::string message = "right-hand side f holds a non-finite value at index 30";
  auto expectNamed = [&](const std::function<void()> & solve)
  { gpur::testing::ExpectError<gpur::InvalidArgument>(solve, message); };
  std::vector<double> f(op.Count(), 1.0), u(op.Count());
  f[30] = std::nan("");
  const PSCRSolver<double> solver(op, Options(true));
  expectNamed([&] { solver.Solve(f.data(), u.data()); });
  expectNamed([&] { solver.Solve(f.data(), f.data()); });
  PSCROptions inDouble = Options(true);
  inDouble.precision = gpur::PSCRPrecision::Double;
  std::vector<float> ff(f.begin(), f.end()), uf(f.size());
  ff[30] = -std::numeric_limits<float>::infinity();
  expectNamed([&] { PSCRSolver<float>(gpur::CastOperator<float>(op), inDouble).Solve(ff.data(), uf.data()); });
  // After a refused f, the next solve of a finite one runs as before.
  f[30] = 1.0;
  EXPECT_LE(solver.Solve(f.data(), u.data()).relativeResidual, 1e-13);
}

// On OpenCL (gpurPSCRFastTransformsDevice.h): the same paths as on the CPU,
// the axes left solved on the device (tridiagonal solves, or PSCR problems
// in one batch). The solutions agree with PSCR's on the CPU, in double and
// in float.
TEST(PSCRFastTransforms, OpenCLAgreesWithPSCROnEveryCombination)
{
  GPUR_REQUIRE_OPENCL();
  const std::vector<MixedCase> cases = MixedCases();
  double worstDifference = 0, worstFloat = 0;
  for (std::size_t k = 0; k < cases.size(); ++k)
  {
    const SeparableOperator<double> op{ cases[k].axes, cases[k].shift };
    const std::string & path = cases[k].path;
    const std::vector<double> f = RandomVector<double>(op.Count(), static_cast<unsigned>(k));
    std::vector<double> device(f.size()), pscr(f.size());
    PSCRSolver<double>(op, Options(false)).Solve(f.data(), pscr.data());
    const PSCRSolver<double> solver(op, Options(true, Backend::OpenCL));
    EXPECT_EQ(solver.Path(), path) << "case " << k;
    const PSCRSolveReport report = solver.Solve(f.data(), device.data());
    EXPECT_EQ(report.path, path) << "case " << k;
    EXPECT_LE(report.relativeResidual, report.residualTarget) << "case " << k;
    EXPECT_LE(RelativeResidual(op, device, f), 1e-13) << "case " << k;
    const double difference = RelativeDifference(device, pscr);
    EXPECT_LE(difference, 1e-12) << "case " << k;
    worstDifference = std::max(worstDifference, difference);
    const std::vector<float> ff(f.begin(), f.end());
    std::vector<float> uf(f.size());
    const PSCRSolveReport rf =
      PSCRSolver<float>(gpur::CastOperator<float>(op), Options(true, Backend::OpenCL)).Solve(ff.data(), uf.data());
    EXPECT_EQ(rf.path, path) << "case " << k << " float";
    EXPECT_LE(rf.relativeResidual, rf.residualTarget) << "case " << k << " float";
    EXPECT_LE(RelativeDifference(uf, pscr), 1e-4) << "case " << k << " float";
    worstFloat = std::max(worstFloat, rf.relativeResidual / rf.roundingFloor);
  }
  std::printf(
    "  OpenCL fast path vs PSCR: max difference %.2e; float at most %.2f x its floor\n", worstDifference, worstFloat);
}

// Pure Neumann (c = 0) on OpenCL: the null mode zeroed (every axis a DCT) or
// the remainder's singular system or problem; the zero-mean solution as on the CPU.
TEST(PSCRFastTransforms, OpenCLSingularNeumann)
{
  GPUR_REQUIRE_OPENCL();
  const std::vector<std::vector<AxisFactors<double>>> problems{
    { Uniform(39, 0.5, N), Uniform(21, 1.0, N) },
    { Uniform(39, 0.5, N), gpur::MakeP1Axis(RandomMesh(17, 2, 2), N, N) },
    { Uniform(6, 1, N), Uniform(7, 2, N), Uniform(5, 1, N) },
    { gpur::MakeP1Axis(RandomMesh(7, 1, 5), N, N), gpur::MakeP1Axis(RandomMesh(9, 1, 3), N, N), Uniform(8, 1, N) },
  };
  for (std::size_t k = 0; k < problems.size(); ++k)
  {
    const SeparableOperator<double> op{ problems[k], 0.0 };
    const std::vector<double> f = RandomVector<double>(op.Count(), static_cast<unsigned>(20 + k));
    const PSCRSolver<double> device(op, Options(true, Backend::OpenCL));
    ASSERT_TRUE(device.IsSingular());
    EXPECT_EQ(device.Path().rfind("fast transforms", 0), 0u) << "problem " << k;
    std::vector<double> a(f.size()), b(f.size());
    const PSCRSolveReport ra = device.Solve(f.data(), a.data());
    const PSCRSolveReport rb = PSCRSolver<double>(op, Options(false)).Solve(f.data(), b.data());
    EXPECT_NEAR(ra.incompatibility, rb.incompatibility, 1e-12) << "problem " << k;
    EXPECT_LE(ra.relativeResidual, ra.residualTarget) << "problem " << k;
    EXPECT_LE(RelativeDifference(a, b), 1e-11) << "problem " << k;
  }
}

// Device buffers, the unchecked EnqueueSolve, a float solve in double (the
// solver's double twin on the device takes the path too) and Auto.
TEST(PSCRFastTransforms, OpenCLDeviceBuffersEnqueueAndDouble)
{
  GPUR_REQUIRE_OPENCL();
  const SeparableOperator<double> op{ { Uniform(39, 1.0, D), Uniform(24, 0.5, N) }, 0.0 };
  const std::string path = "fast transforms (x: DST-I, y: DCT-II)";
  const std::vector<double> f = RandomVector<double>(op.Count(), 4);
  std::vector<double> cpu(f.size()), device(f.size());
  PSCRSolver<double>(op, Options(true, Backend::CPU)).Solve(f.data(), cpu.data());
  const PSCRSolver<double> solver(op, Options(true, Backend::OpenCL));
  gpur::DeviceBuffer<double> fb(solver.Context(), f.size()), ub(solver.Context(), f.size());
  const cl::CommandQueue & queue = solver.Context().Queue(0);
  fb.Upload(queue, f);
  EXPECT_EQ(solver.Solve(fb, ub).path, path);
  ub.Download(queue, device.data(), device.size());
  EXPECT_LE(RelativeDifference(device, cpu), 1e-12);
  std::fill(device.begin(), device.end(), 0.0);
  solver.EnqueueSolve(fb, ub);
  ub.Download(queue, device.data(), device.size());
  EXPECT_LE(RelativeDifference(device, cpu), 1e-12);
  gpur::testing::ExpectError<gpur::InvalidArgument>([&] { solver.SolveUnchecked(f.data(), device.data()); },
                                                    "use EnqueueSolve");

  PSCROptions always = Options(true, Backend::OpenCL);
  always.precision = gpur::PSCRPrecision::Double;
  const std::vector<float> ff(f.begin(), f.end());
  std::vector<float> uf(f.size());
  const PSCRSolveReport report = PSCRSolver<float>(gpur::CastOperator<float>(op), always).Solve(ff.data(), uf.data());
  EXPECT_TRUE(report.computedInDouble);
  EXPECT_EQ(report.path, path);
  EXPECT_LE(RelativeDifference(uf, cpu), 1e-6);

  // Auto times the path each backend would run and solves on the one it picks.
  const PSCRSolver<double> automatic(op, Options(true, Backend::Auto));
  EXPECT_EQ(automatic.Path(), path);
  std::vector<double> u(f.size());
  automatic.Solve(f.data(), u.data());
  EXPECT_LE(RelativeDifference(u, cpu), 1e-12);
}
