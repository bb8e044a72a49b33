// SPDX-License-Identifier: Apache-2.0
// The accuracy sweep of the PSCR solver: every solve must either reach its
// residual target or throw, so float results land within 10x the float
// rounding floor (the residual of the exact solution merely rounded to float)
// and double results at 1e-12 or better. Sizes around 2^k - 1, 2^k, 2^k + 1
// and 1000, 2D and 3D; shifts positive, zero, indefinite and close to an
// eigenvalue of the operator; uniform second differences and P1 factors on
// random non-uniform meshes. The residuals are computed here in long double
// with the operator applied term by term (KroneckerResidual), independently
// of the solver's own checks, which the test compares with its report. The
// cases of the float32 Helmholtz report (wrong answers with no error: 32^3,
// 64^3, 1000^2, 1023^2 - 1025^2) and the pure-Neumann float case that broke
// down are included by name.
#include "gpurError.h"
#include "gpurPSCRSolver.h"
#include "gpurPSCRTesting.h"
#include "gpurSeparableProblems.h"
#include "gpurTridiagonalEigen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using gpur::AxisFactors;
using gpur::Backend;
using gpur::PSCROptions;
using gpur::PSCRSolver;
using gpur::PSCRSolveReport;
using gpur::SeparableOperator;
using namespace gpur::testing;

namespace
{

const gpur::BoundaryCondition D = gpur::BoundaryCondition::Dirichlet;
const gpur::BoundaryCondition N = gpur::BoundaryCondition::Neumann;

PSCROptions
On(Backend backend, unsigned radix = 4)
{
  PSCROptions o;
  o.execution.backend = backend;
  o.radix = radix;
  o.compatibilityTolerance = 1; // singular cases: f is projected
  // The sweep of PSCR itself; the fast transforms have their own
  // (gpurPSCRFastTransformsTest.cxx).
  o.fastTransforms = false;
  return o;
}

std::vector<AxisFactors<double>>
Uniform(const std::vector<std::size_t> & n, const std::vector<double> & h, gpur::BoundaryCondition end = D)
{
  std::vector<AxisFactors<double>> axes;
  for (std::size_t d = 0; d < n.size(); ++d)
    axes.push_back(gpur::MakeSecondDifferenceAxis(n[d], h[d], end, end));
  return axes;
}

std::vector<AxisFactors<double>>
Varied(const std::vector<std::size_t> & n, unsigned seed)
{
  std::vector<AxisFactors<double>> axes;
  for (std::size_t d = 0; d < n.size(); ++d)
    axes.push_back(VariedAxis(n[d], seed + static_cast<unsigned>(d)));
  return axes;
}

struct Shift
{
  const char * name;
  double c;
};

// Shifts relative to the operator's spectrum (the sums of axis eigenvalues,
// largest Lambda): positive, zero, indefinite (in the middle of a gap between
// eigenvalues near 0.3 Lambda, so that it is not near-singular by accident),
// and at distance delta from an eigenvalue near 0.3 Lambda with
// delta = 2.2e-3 Lambda / sqrt(N), so that the condition number is 1e4-1e6
// and the double rounding floor (about eps Lambda / (delta sqrt N) for a
// random f) stays near 1e-13.
std::vector<Shift>
Shifts(const std::vector<AxisFactors<double>> & axes)
{
  std::vector<std::vector<double>> spectra;
  for (const AxisFactors<double> & a : axes)
    spectra.push_back(gpur::TridiagonalPencilEigenvalues(a.A, a.M));
  std::vector<double> sums{ 0.0 };
  for (const std::vector<double> & s : spectra)
  {
    std::vector<double> next;
    for (double a : sums)
      for (double b : s)
        next.push_back(a + b);
    sums.swap(next);
  }
  std::sort(sums.begin(), sums.end());
  const double top = sums.back();
  const double delta = 2.2e-3 * top / std::sqrt(static_cast<double>(sums.size()));
  // The first gap at or after 0.3 Lambda wider than `width`.
  auto gapAfter = [&](double width)
  {
    std::size_t k = static_cast<std::size_t>(std::lower_bound(sums.begin(), sums.end(), 0.3 * top) - sums.begin());
    while (k + 2 < sums.size() && !(sums[k + 1] - sums[k] >= width && sums[k] - sums[k - 1] >= width / 2))
      ++k;
    return k;
  };
  const std::size_t wide = gapAfter(4 * top / static_cast<double>(sums.size()));
  const std::size_t near = gapAfter(2 * delta);
  return { { "positive", 0.1 * top },
           { "zero", 0.0 },
           { "indefinite", -0.5 * (sums[wide] + sums[wide + 1]) },
           { "near eigenvalue", -(sums[near] + delta) } };
}

struct Outcome
{
  double floatRatio = 0;     ///< float relative residual / float rounding floor
  double doubleResidual = 0; ///< double relative residual
};

// One case on one backend: the operator rounded to float (so that float and
// double solve the same problem), its double solve (which is also the exact
// solution the float floor is measured with) and its float solve; every
// figure checked here and against the solves' reports.
Outcome
Check(const std::string & name, const SeparableOperator<double> & op, Backend backend, bool print)
{
  const std::size_t count = op.Count();
  const SeparableOperator<float> opf = gpur::CastOperator<float>(op);
  const SeparableOperator<double> exact = gpur::CastOperator<double>(opf);
  const std::vector<float> ff = RandomVector<float>(count, 3);
  const std::vector<double> fd(ff.begin(), ff.end());
  Outcome out;

  const PSCRSolver<double> solver(exact, On(backend));
  std::vector<double> ud(count);
  const PSCRSolveReport rd = solver.Solve(fd.data(), ud.data());
  // Singular operators (pure Neumann, M = I): the residual of the projected f.
  long double nullShift = 0;
  std::vector<std::vector<long double>> massNull;
  if (solver.IsSingular())
  {
    for (double v : fd)
      nullShift += v;
    nullShift /= static_cast<long double>(count);
    for (const AxisFactors<float> & a : opf.axes)
      massNull.emplace_back(a.Size(), 1.0L);
  }
  auto residual = [&](const auto & u)
  { return RelativeNorm(KroneckerResidual(exact, u, fd, nullShift, massNull), fd); };
  out.doubleResidual = residual(ud);
  EXPECT_LE(out.doubleResidual, 1e-12) << name << " double";
  // The report's residual is evaluated in double: near the floor its own rounding counts.
  EXPECT_NEAR(rd.relativeResidual, out.doubleResidual, 0.2 * out.doubleResidual + 2 * rd.roundingFloor) << name;

  const std::vector<float> rounded(ud.begin(), ud.end());
  const double floor = residual(rounded);
  std::vector<float> uf(count);
  const PSCRSolver<float> solverf(opf, On(backend));
  const PSCRSolveReport rf = solverf.Solve(ff.data(), uf.data());
  const double residualf = residual(uf);
  out.floatRatio = residualf / floor;
  EXPECT_LE(out.floatRatio, 10) << name << " float: residual " << residualf << ", floor " << floor;
  EXPECT_NEAR(rf.relativeResidual, residualf, 0.2 * residualf) << name << " float report";
  EXPECT_NEAR(rf.roundingFloor, floor, 0.3 * floor) << name << " float floor estimate";
  EXPECT_EQ(rf.computedInDouble, solverf.ComputesInDouble());
  if (print)
  {
    std::printf("  %-36s float %8.2e = %5.2f x floor, %u steps%s | double %8.2e, %u steps\n",
                name.c_str(),
                residualf,
                out.floatRatio,
                rf.refinementSteps,
                rf.computedInDouble ? " in double" : "",
                out.doubleResidual,
                rd.refinementSteps);
  }
  return out;
}

struct Geometry
{
  std::string name;
  std::vector<AxisFactors<double>> axes;
};

void
Sweep(const std::vector<Geometry> & geometries)
{
  Outcome worst;
  for (const Geometry & g : geometries)
  {
    for (const Shift & shift : Shifts(g.axes))
    {
      const Outcome o =
        Check(g.name + " " + shift.name, SeparableOperator<double>{ g.axes, shift.c }, Backend::CPU, true);
      worst.floatRatio = std::max(worst.floatRatio, o.floatRatio);
      worst.doubleResidual = std::max(worst.doubleResidual, o.doubleResidual);
    }
  }
  std::printf(
    "  worst: float %.2f x its rounding floor, double residual %.2e\n", worst.floatRatio, worst.doubleResidual);
}

} // namespace

TEST(PSCRAccuracy, TwoDimensionalSweep)
{
  std::vector<Geometry> geometries;
  for (std::size_t n : { 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025 })
    geometries.push_back({ std::to_string(n) + "^2", Uniform({ n, n }, { 1.3, 1.0 }) });
  geometries.push_back({ "P1 130 x 257", Varied({ 130, 257 }, 11) });
  geometries.push_back({ "P1 1000 x 1025", Varied({ 1000, 1025 }, 21) });
  Sweep(geometries);
}

TEST(PSCRAccuracy, ThreeDimensionalSweep)
{
  std::vector<Geometry> geometries;
  for (std::size_t n : { 31, 32, 33, 63, 64, 65 })
    geometries.push_back({ std::to_string(n) + "^3", Uniform({ n, n, n }, { 1.5, 1.0, 1.0 }) });
  geometries.push_back({ "P1 33 x 31 x 32", Varied({ 33, 31, 32 }, 31) });
  geometries.push_back({ "P1 64 x 65 x 63", Varied({ 64, 65, 63 }, 41) });
  Sweep(geometries);
}

// The reported cases, by name: float32 Helmholtz that returned wrong answers
// (residuals 0.25 to 8e13) and pure-Neumann float that broke down (non-finite).
TEST(PSCRAccuracy, ReportedCases)
{
  const std::vector<std::pair<std::string, SeparableOperator<double>>> cases{
    { "32^3 c = -0.777", { Uniform({ 32, 32, 32 }, { 1.5, 1, 1 }), -0.777 } },
    { "64^3 c = -0.2", { Uniform({ 64, 64, 64 }, { 1, 1, 1 }), -0.2 } },
    { "1000^2 c = -1.2345", { Uniform({ 1000, 1000 }, { 1.3, 1 }), -1.2345 } },
    { "1023^2 c = -1.2345", { Uniform({ 1023, 1023 }, { 1.3, 1 }), -1.2345 } },
    { "1024^2 c = -1.2345", { Uniform({ 1024, 1024 }, { 1.3, 1 }), -1.2345 } },
    { "1025^2 c = -1.2345", { Uniform({ 1025, 1025 }, { 1.3, 1 }), -1.2345 } },
    { "Neumann 257 x 4097, h = (0.5, 1)", { Uniform({ 257, 4097 }, { 0.5, 1 }, N), 0.0 } },
  };
  for (const auto & c : cases)
    Check(c.first, c.second, Backend::CPU, true);
}

// The same checks on OpenCL, which must take the same decisions as the CPU
// (the residual is evaluated in double with the same arithmetic).
TEST(PSCRAccuracy, OpenCLTakesTheSameDecisions)
{
  GPUR_REQUIRE_OPENCL();
  const std::vector<std::pair<std::string, SeparableOperator<double>>> cases{
    { "OpenCL 32^3 c = -0.777", { Uniform({ 32, 32, 32 }, { 1.5, 1, 1 }), -0.777 } },
    { "OpenCL 257^2 near eigenvalue",
      { Uniform({ 257, 257 }, { 1.3, 1 }), Shifts(Uniform({ 257, 257 }, { 1.3, 1 }))[3].c } },
    { "OpenCL P1 130 x 257 indefinite", { Varied({ 130, 257 }, 11), Shifts(Varied({ 130, 257 }, 11))[2].c } },
    { "OpenCL Neumann 65 x 129", { Uniform({ 65, 129 }, { 0.5, 1 }, N), 0.0 } },
  };
  for (const auto & c : cases)
  {
    Check(c.first, c.second, Backend::OpenCL, true);
    // Same reports and results as the CPU.
    const std::vector<float> f = RandomVector<float>(c.second.Count(), 3);
    std::vector<float> cpu(f.size()), opencl(f.size());
    const SeparableOperator<float> op = gpur::CastOperator<float>(c.second);
    const PSCRSolveReport a = PSCRSolver<float>(op, On(Backend::CPU)).Solve(f.data(), cpu.data());
    const PSCRSolveReport b = PSCRSolver<float>(op, On(Backend::OpenCL)).Solve(f.data(), opencl.data());
    EXPECT_EQ(a.refinementSteps, b.refinementSteps) << c.first;
    EXPECT_EQ(a.computedInDouble, b.computedInDouble) << c.first;
    EXPECT_LE(RelativeDifference(opencl, cpu), 1e-6) << c.first;
  }
}
