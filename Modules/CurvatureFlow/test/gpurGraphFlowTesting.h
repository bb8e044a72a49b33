// SPDX-License-Identifier: Apache-2.0
// What the graph flows' tests share: square grids, parameters following an
// exact solution, the error norms (31)-(33) of [Oberhuber2011] at M output
// times, the check against printed digits, the initial surface (35).
#ifndef gpurGraphFlowTesting_h
#define gpurGraphFlowTesting_h

#include "gpurGraphFlow.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpurtest
{

struct Errors
{
  double l1 = 0, l2 = 0, linf = 0;
  unsigned accepted = 0, rejected = 0;
};

/** The node grid of N x N cells on [a, b]², and parameters following an exact solution there. */
inline gpur::Grid
SquareGrid(unsigned cells, double a, double b)
{
  const double h = (b - a) / cells;
  return gpur::MakeGrid2D(cells + 1, cells + 1, h, h);
}

inline gpur::GraphFlowParameters
Following(gpur::GraphFlowSolution solution,
          double a,
          double T,
          gpur::GraphFlowType flow = gpur::GraphFlowType::MeanCurvature)
{
  gpur::GraphFlowParameters p;
  p.flow = flow;
  p.solution = solution;
  p.origin = { { a, a } };
  p.finalTime = T;
  return p;
}

/** The errors (31)-(33) of [Oberhuber2011]: at t_k = kT/M, k = 0..M, over every node. */
template<typename Real>
Errors
Measure(unsigned cells,
        double a,
        double b,
        const gpur::GraphFlowParameters & p,
        gpur::Backend backend = gpur::Backend::CPU,
        unsigned M = 20)
{
  const gpur::Grid grid = SquareGrid(cells, a, b);
  const double h = grid.spacing[0];
  std::vector<Real> u(grid.Count());
  auto exact = [&](double t, std::size_t i, std::size_t j)
  { return gpur::GraphFlowExactSolution(p, t, a + i * h, a + j * h); };
  for (std::size_t j = 0; j <= cells; ++j)
    for (std::size_t i = 0; i <= cells; ++i)
      u[i + (cells + 1) * j] = static_cast<Real>(exact(0.0, i, j));
  gpur::GraphFlow<Real> flow(u.data(), grid, p, gpur::MakeExecution(backend));
  Errors e;
  const double theta = p.finalTime / M;
  for (unsigned k = 0; k <= M; ++k)
  {
    const double t = k * theta;
    if (k > 0)
    {
      const gpur::MersonReport & r = flow.AdvanceTo(t);
      e.accepted = r.accepted;
      e.rejected = r.rejected;
    }
    flow.Read(u.data());
    for (std::size_t j = 0; j <= cells; ++j)
      for (std::size_t i = 0; i <= cells; ++i)
      {
        const double d = std::abs(double(u[i + (cells + 1) * j]) - exact(t, i, j));
        e.l1 += theta * d * h * h;
        e.l2 += theta * d * d * h * h;
        e.linf = std::max(e.linf, d);
      }
  }
  e.l2 = std::sqrt(e.l2);
  return e;
}

/** True when `value` shows as `printed` with the printed number of significant digits (`digits`). */
inline ::testing::AssertionResult
ShowsAs(double value, double printed, int digits)
{
  const double unit = std::pow(10.0, std::floor(std::log10(std::abs(printed))) - (digits - 1));
  if (std::abs(value - printed) <= 0.5 * unit * (1 + 1e-9))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << value << " does not round to the printed " << printed;
}

/** The initial surface (35) of [Oberhuber2011]: sin(3π sqrt(x² + y²)) on (-2, 2)². */
template<typename Real>
std::vector<Real>
Rings(const gpur::Grid & grid)
{
  std::vector<Real> u(grid.Count());
  for (std::size_t j = 0; j < grid.size[1]; ++j)
    for (std::size_t i = 0; i < grid.size[0]; ++i)
    {
      const double x = -2.0 + i * grid.spacing[0], y = -2.0 + j * grid.spacing[1];
      u[i + grid.size[0] * j] = static_cast<Real>(std::sin(3 * M_PI * std::sqrt(x * x + y * y)));
    }
  return u;
}

} // namespace gpurtest

#endif
