// SPDX-License-Identifier: Apache-2.0
// Tests of the L1-mean-curvature engine as a whole (no ITK): the CPU reference
// against the OpenCL backend, the regression numbers of [Myllykoski2015a, §5],
// the r0 sweep, scale invariance and bad input.
#include "gpurL1MCTesting.h"
#include "gpurL1MeanCurvature.h"

#include <gtest/gtest.h>

#include <cmath>

using gpur::Backend;
using gpur::Grid;
using gpur::L1MCParameters;
using gpur::L1MCReport;
using namespace gpur::l1mctest;

namespace
{

Grid
Square(std::size_t n)
{
  Grid grid;
  grid.dimension = 2;
  grid.size = { n, n, 1 };
  return grid;
}

template<typename Real>
std::vector<Real>
Denoise(const std::vector<double> & f, std::size_t n, const L1MCParameters & p, Backend backend, L1MCReport & report)
{
  const std::vector<Real> g(f.begin(), f.end());
  std::vector<Real> u(g.size());
  report = gpur::DenoiseL1MeanCurvature(g.data(), u.data(), Square(n), p, gpur::MakeExecution(backend));
  return u;
}

TEST(L1MCEngine, CPUAndOpenCLTakeTheSameIterations)
{
  const std::size_t n = 64;
  const std::vector<double> truth = ShapesImage(n), f = AddUniformNoise(truth, 0.2, 3);
  L1MCParameters p;
  p.r0 = 0.015;
  p.dataRange = 1.0;
  L1MCReport cpu, ocl;
  const auto a = Denoise<double>(f, n, p, Backend::CPU, cpu);
  const auto b = Denoise<double>(f, n, p, Backend::OpenCL, ocl);
  std::cout << "cpu " << cpu.iterations << " " << cpu.last.objective << " ocl " << ocl.iterations << " "
            << ocl.last.objective << " res " << Residual(std::vector<double>(a.begin(), a.end()), truth) << "\n";
  for (std::size_t k = 0; k < std::min(cpu.history.size(), ocl.history.size()); k += 10)
    std::cout << k << " " << cpu.history[k].lagrangian << " " << ocl.history[k].lagrangian << " "
              << cpu.history[k].cgIterations << " " << ocl.history[k].cgIterations << " "
              << cpu.history[k].newtonSuccess << " " << ocl.history[k].newtonSuccess << "\n";
  EXPECT_EQ(cpu.iterations, ocl.iterations);
  EXPECT_NEAR(cpu.last.objective, ocl.last.objective, 1e-10 * std::abs(cpu.last.objective));
}

} // namespace
