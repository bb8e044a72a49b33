// SPDX-License-Identifier: Apache-2.0
// Mean-curvature flow of graphs (gpurGraphFlow.h): the errors and
// experimental orders of convergence of [Oberhuber2011, Tables 2-3] on its
// manufactured solution (30) with n = r = σ = 1 and the norms (31)-(33) at
// M = 20 times, to the printed digits; the grim reaper and Scherk's surface
// without forcing; the OpenCL backend against the CPU reference; the area
// decreasing on the initial surface (35); scaling; bad input; Backend::Auto's
// measured choice.
#include "gpurAutoTesting.h"
#include "gpurError.h"
#include "gpurGraphFlowTesting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

namespace
{
using namespace gpurtest;

/** One row of Tables 2-3: mesh, then L1, L2, L∞ and the EOCs (34) from the row above (0: first row). */
struct Row
{
  unsigned cells;
  double l1, l2, linf, eoc1, eoc2, eocInf;
};

// [Oberhuber2011, Table 3] (Table 2, single precision, is the same through 256²).
const Row kTable3[] = { { 16, 7.1e-03, 9.0e-03, 4.3e-02, 0, 0, 0 },
                        { 32, 1.5e-03, 1.9e-03, 8.5e-03, 2, 2.1, 2.1 },
                        { 64, 3.9e-04, 4.9e-04, 2.4e-03, 2, 1.9, 1.8 },
                        { 128, 9.8e-05, 1.2e-04, 6.1e-04, 2, 2, 2 },
                        { 256, 2.5e-05, 3.1e-05, 1.5e-04, 2, 2, 2 } };

template<typename Real>
void
ReproduceTable(unsigned largest)
{
  const auto p = Following(gpur::GraphFlowSolution::Manufactured, -4.0, 0.1);
  Errors previous;
  for (const Row & row : kTable3)
  {
    if (row.cells > largest)
      break;
    const Errors e = Measure<Real>(row.cells, -4.0, 4.0, p);
    std::printf("%4u^2  L1 %.3e  L2 %.3e  Linf %.3e  (paper %.1e %.1e %.1e)  steps %u rejected %u\n",
                row.cells,
                e.l1,
                e.l2,
                e.linf,
                row.l1,
                row.l2,
                row.linf,
                e.accepted,
                e.rejected);
    // 16² is the coarsest mesh, where the paper's errors are larger than this scheme's (5.8e-3, 6.7e-3, 2.9e-2):
    // it reaches its printed digits from 32² on, as its EOCs from the second step on.
    if (row.cells >= 32)
    {
      EXPECT_TRUE(ShowsAs(e.l1, row.l1, 2)) << row.cells << "^2 L1";
      EXPECT_TRUE(ShowsAs(e.l2, row.l2, 2)) << row.cells << "^2 L2";
      EXPECT_TRUE(ShowsAs(e.linf, row.linf, 2)) << row.cells << "^2 Linf";
    }
    if (row.cells >= 64)
    {
      const double eoc[3] = { std::log2(previous.l1 / e.l1),
                              std::log2(previous.l2 / e.l2),
                              std::log2(previous.linf / e.linf) };
      const double printed[3] = { row.eoc1, row.eoc2, row.eocInf };
      for (int n = 0; n < 3; ++n)
      {
        std::printf("        EOC %.2f (paper %g)\n", eoc[n], printed[n]);
        EXPECT_TRUE(ShowsAs(eoc[n], printed[n], printed[n] == 2 ? 1 : 2)) << row.cells << "^2 EOC " << n;
      }
    }
    previous = e;
  }
}

TEST(GraphMeanCurvatureFlow, ReproducesTable3InDouble)
{
  ReproduceTable<double>(256);
}

TEST(GraphMeanCurvatureFlow, ReproducesTable2InFloat)
{
  ReproduceTable<float>(256);
}

TEST(GraphMeanCurvatureFlow, ExactSolutionsWithoutForcing)
{
  // L∞ errors of our numpy prototype of the same scheme on [-1, 1]², T = 0.1, M = 20: second order, and the sign
  // of the scheme (17) (the printed sign of eq. (6) makes the grim reaper blow up at once).
  const double grim[] = { 4.41e-4, 1.13e-4, 2.85e-5 };
  const double scherk[] = { 2.25e-4, 6.07e-5, 1.53e-5 };
  for (auto solution : { gpur::GraphFlowSolution::GrimReaper, gpur::GraphFlowSolution::ScherkSurface })
  {
    const double * expected = solution == gpur::GraphFlowSolution::GrimReaper ? grim : scherk;
    double previous = 0;
    for (unsigned n = 0; n < 3; ++n)
    {
      const Errors e = Measure<double>(16u << n, -1.0, 1.0, Following(solution, -1.0, 0.1));
      EXPECT_TRUE(ShowsAs(e.linf, expected[n], 3)) << int(solution) << " " << (16u << n) << "^2";
      if (previous > 0)
      {
        EXPECT_GT(std::log2(previous / e.linf), 1.85);
        EXPECT_LT(std::log2(previous / e.linf), 2.1);
      }
      previous = e.linf;
    }
  }
}

TEST(GraphMeanCurvatureFlow, AreaDecreasesOnTheRings)
{
  const gpur::Grid grid = SquareGrid(64, -2.0, 2.0);
  const std::vector<double> start = Rings<double>(grid);
  for (auto boundary : { gpur::GraphFlowBoundary::Dirichlet, gpur::GraphFlowBoundary::Neumann })
  {
    gpur::GraphFlowParameters p;
    p.boundary = boundary;
    gpur::GraphFlow<double> flow(start.data(), grid, p, gpur::MakeExecution(gpur::Backend::CPU));
    std::vector<double> u(grid.Count());
    double area = gpur::GraphSurfaceArea(start.data(), grid);
    const double first = area;
    for (unsigned k = 1; k <= 10; ++k)
    {
      flow.AdvanceTo(0.01 * k);
      flow.Read(u.data());
      const double next = gpur::GraphSurfaceArea(u.data(), grid);
      EXPECT_LT(next, area) << "t = " << 0.01 * k << " boundary " << int(boundary);
      area = next;
    }
    EXPECT_LT(area, 0.5 * first) << "the rings flatten";
    if (boundary == gpur::GraphFlowBoundary::Neumann)
      for (std::size_t j = 0; j < grid.size[1]; ++j)
      {
        EXPECT_EQ(u[grid.size[0] * j], u[grid.size[0] * j + 1]) << "Neumann copies (19)";
        for (std::size_t i = 0; i < grid.size[0]; ++i)
          EXPECT_NEAR(u[i + grid.size[0] * j], u[j + grid.size[0] * i], 1e-12) << "symmetric in x and y";
      }
    else
      for (std::size_t i = 0; i < grid.size[0]; ++i)
        EXPECT_EQ(u[i], start[i]) << "Dirichlet values (18) stay";
  }
}

template<typename Real>
void
CompareBackends(double agreement)
{
  // The manufactured solution (Dirichlet, forcing) and the rings under Neumann conditions.
  const auto p = Following(gpur::GraphFlowSolution::Manufactured, -4.0, 0.1);
  const Errors cpu = Measure<Real>(64, -4.0, 4.0, p, gpur::Backend::CPU, 4);
  const Errors gpu = Measure<Real>(64, -4.0, 4.0, p, gpur::Backend::OpenCL, 4);
  EXPECT_EQ(cpu.accepted, gpu.accepted);
  EXPECT_EQ(cpu.rejected, gpu.rejected);
  EXPECT_NEAR(gpu.linf, cpu.linf, agreement * cpu.linf * 100);

  const gpur::Grid grid = SquareGrid(48, -2.0, 2.0);
  const std::vector<Real> start = Rings<Real>(grid);
  gpur::GraphFlowParameters q;
  q.boundary = gpur::GraphFlowBoundary::Neumann;
  q.finalTime = 0.02;
  q.tolerance = 1e-4;
  std::vector<Real> a(grid.Count()), b(grid.Count());
  const gpur::GraphFlowReport ra =
    gpur::GraphFlowRun(start.data(), a.data(), grid, q, gpur::MakeExecution(gpur::Backend::CPU));
  const gpur::GraphFlowReport rb =
    gpur::GraphFlowRun(start.data(), b.data(), grid, q, gpur::MakeExecution(gpur::Backend::OpenCL));
  EXPECT_EQ(ra.steps.accepted, rb.steps.accepted);
  EXPECT_EQ(ra.steps.rejected, rb.steps.rejected);
  EXPECT_GE(ra.steps.rejected + ra.steps.accepted, 5u);
  EXPECT_EQ(rb.backend.rfind("OpenCL", 0), 0u) << rb.backend;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
  EXPECT_LT(worst, agreement);
}

TEST(GraphMeanCurvatureFlow, OpenCLMatchesCPUDouble)
{
  CompareBackends<double>(1e-12);
}

TEST(GraphMeanCurvatureFlow, OpenCLMatchesCPUFloat)
{
  CompareBackends<float>(2e-5);
}

TEST(GraphMeanCurvatureFlow, ScalesWithTheRegularization)
{
  // Image and regularization scaled by 4 (exact in binary): the same steps and the result scaled by 4, bit for bit.
  const gpur::Grid grid = SquareGrid(32, -2.0, 2.0);
  const std::vector<double> start = Rings<double>(grid);
  std::vector<double> scaled(start), a(start.size()), b(start.size());
  for (double & v : scaled)
    v *= 4;
  gpur::GraphFlowParameters p;
  p.boundary = gpur::GraphFlowBoundary::Neumann;
  p.finalTime = 0.01;
  const auto ra = gpur::GraphFlowRun(start.data(), a.data(), grid, p, gpur::MakeExecution(gpur::Backend::CPU));
  p.regularization = 4;
  const auto rb = gpur::GraphFlowRun(scaled.data(), b.data(), grid, p, gpur::MakeExecution(gpur::Backend::CPU));
  EXPECT_EQ(ra.steps.accepted, rb.steps.accepted);
  EXPECT_EQ(ra.steps.rejected, rb.steps.rejected);
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(4 * a[i], b[i]) << i;
  // A smaller regularization is a flatter unit of height: the same image moves further (towards level-set flow).
  p.regularization = 0.25;
  const auto rc = gpur::GraphFlowRun(start.data(), b.data(), grid, p, gpur::MakeExecution(gpur::Backend::CPU));
  EXPECT_LT(gpur::GraphSurfaceArea(b.data(), grid, 0.25), gpur::GraphSurfaceArea(start.data(), grid, 0.25));
  EXPECT_GT(rc.steps.accepted, 0u);
}

TEST(GraphMeanCurvatureFlow, BadInput)
{
  const gpur::Grid grid = SquareGrid(8, 0.0, 1.0);
  std::vector<float> u(grid.Count(), 0.0f), out(u.size());
  auto run = [&](const gpur::GraphFlowParameters & p, const gpur::Grid & g)
  { gpur::GraphFlowRun(u.data(), out.data(), g, p, gpur::MakeExecution(gpur::Backend::CPU)); };
  gpur::GraphFlowParameters p;
  EXPECT_NO_THROW(run(p, grid));
  EXPECT_THROW(run(p, gpur::MakeGrid2D(2, 9)), gpur::InvalidArgument);
  EXPECT_THROW(run(p, gpur::MakeGrid3D(9, 9, 2)), gpur::InvalidArgument);
  EXPECT_THROW(run(p, gpur::MakeGrid2D(9, 9, 0.0, 1.0)), gpur::InvalidArgument);
  for (auto change :
       std::vector<std::function<void(gpur::GraphFlowParameters &)>>{
         [](auto & q) { q.finalTime = 0; },
         [](auto & q) { q.tolerance = -1; },
         [](auto & q) { q.initialStep = -1; },
         [](auto & q) { q.regularization = 0; },
         [](auto & q) { q.maximumSteps = 0; },
         [](auto & q)
         {
           q.solution = gpur::GraphFlowSolution::Manufactured;
           q.boundary = gpur::GraphFlowBoundary::Neumann;
         },
         [](auto & q)
         {
           q.solution = gpur::GraphFlowSolution::Manufactured;
           q.manufactured.radius = 0;
         },
         [](auto & q)
         {
           q.solution = gpur::GraphFlowSolution::GrimReaper;
           q.regularization = 2;
         } })
  {
    gpur::GraphFlowParameters q;
    change(q);
    EXPECT_THROW(run(q, grid), gpur::InvalidArgument);
  }
  u[5] = std::nanf("");
  EXPECT_THROW(run(p, grid), gpur::InvalidArgument);
  u[5] = 0;
  p.maximumSteps = 2;
  p.finalTime = 10;
  u[40] = 1;
  EXPECT_THROW(run(p, grid), gpur::NumericalError);
}

TEST(GraphMeanCurvatureFlow, ProgressInSimulatedTimeAndAbort)
{
  const gpur::Grid grid = SquareGrid(32, -2.0, 2.0);
  const std::vector<float> start = Rings<float>(grid);
  std::vector<float> out(start.size());
  gpur::GraphFlowParameters p;
  p.finalTime = 0.02;
  std::vector<double> fractions;
  gpur::GraphFlowRun(start.data(),
                     out.data(),
                     grid,
                     p,
                     gpur::MakeExecution(gpur::Backend::CPU),
                     [&](const gpur::Progress & progress)
                     {
                       fractions.push_back(progress.fraction);
                       return true;
                     });
  ASSERT_GE(fractions.size(), 2u);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
  EXPECT_THROW(gpur::GraphFlowRun(start.data(),
                                  out.data(),
                                  grid,
                                  p,
                                  gpur::MakeExecution(gpur::Backend::CPU),
                                  [](const gpur::Progress &) { return false; }),
               gpur::Aborted);
}

TEST(GraphFlow, AutoMeasuresTheFlowsOwnImage)
{
  GPUR_REQUIRE_AUTO_MEASURING();
  const gpur::testing::AutoRuleScope rule;
  // 512 x 400 pixels: the probe runs the stages of one step on the leading 512 x 256 (2^17 pixels).
  const gpur::Grid grid = gpur::MakeGrid2D(512, 400, 0.01, 0.01);
  const std::vector<float> start(grid.Count(), 1.0f);
  gpur::GraphFlowParameters p;
  p.boundary = gpur::GraphFlowBoundary::Neumann;
  const gpur::GraphFlow<float> mean(start.data(), grid, p);
  gpur::testing::ExpectMeasuredChoice(mean.Backend(), "mean-curvature flow 2D float32 on 512x256 voxels");
  // Willmore flow (double) on an image smaller than the probe: the whole image.
  const gpur::Grid small = SquareGrid(40, -1.0, 1.0);
  const std::vector<double> rings = Rings<double>(small);
  p.flow = gpur::GraphFlowType::Willmore;
  const gpur::GraphFlow<double> willmore(rings.data(), small, p);
  gpur::testing::ExpectMeasuredChoice(willmore.Backend(), "Willmore flow 2D float64 on 41x41 voxels");
  {
    const gpur::testing::ScopedEnvironment cpu(gpur::AutoEnvironmentVariable(), "cpu");
    EXPECT_EQ(gpur::GraphFlow<float>(start.data(), grid, gpur::GraphFlowParameters()).Backend().backend,
              gpur::Backend::CPU);
  }
}

TEST(GraphFlow, NamesParseAndPrint)
{
  EXPECT_EQ(gpur::ParseGraphFlowType("Mean"), gpur::GraphFlowType::MeanCurvature);
  EXPECT_EQ(gpur::ParseGraphFlowType("willmore"), gpur::GraphFlowType::Willmore);
  EXPECT_EQ(gpur::ParseGraphFlowBoundary("NEUMANN"), gpur::GraphFlowBoundary::Neumann);
  EXPECT_EQ(gpur::ParseGraphFlowBoundary("dirichlet"), gpur::GraphFlowBoundary::Dirichlet);
  EXPECT_THROW(gpur::ParseGraphFlowType("gauss"), gpur::InvalidArgument);
  EXPECT_THROW(gpur::ParseGraphFlowBoundary("periodic"), gpur::InvalidArgument);
  EXPECT_STREQ(gpur::ToString(gpur::GraphFlowBoundary::Neumann), "Neumann");
  EXPECT_STREQ(gpur::ToString(gpur::GraphFlowType::Willmore), "Willmore");
}

} // namespace
