// SPDX-License-Identifier: Apache-2.0
// Tests of the resumable TV state (ContinueTV): rounds reproduce one run bit
// for bit, and padded blocks advanced by rounds of B iterations with a halo of
// B + 1 reproduce the whole-image run (the scheme behind the dask entry and
// the multi-device slabs).
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using gpur::Backend;
using gpur::Grid;
using gpur::TVAlgorithm;
using gpur::TVParameters;

namespace
{

/** Host storage of a whole TV state on a grid. */
struct State
{
  State(const Grid & grid, const std::vector<float> & f)
    : u(grid.Count())
    , bar(grid.Count())
    , p(grid.dimension * grid.Count())
  {
    gpur::InitializeTVState(f.data(), grid, View());
  }
  gpur::TVStateView<float>
  View()
  {
    gpur::TVStateView<float> v;
    v.u = u.data();
    v.bar = bar.data();
    v.p = p.data();
    return v;
  }
  std::vector<float> u, bar, p;
};

TVParameters
FixedIterations(TVAlgorithm algorithm, unsigned iterations)
{
  TVParameters p;
  p.lambda = 10.0;
  p.algorithm = algorithm;
  p.maxIterations = iterations;
  p.gapTolerance = 0.0;
  return p;
}

std::vector<float>
OneRun(const std::vector<float> & f, const Grid & grid, const TVParameters & p, Backend backend)
{
  std::vector<float> u(f.size());
  gpur::DenoiseTV(f.data(), u.data(), grid, p, gpur::MakeExecution(backend));
  return u;
}

/** Copies z-slices [z0, z1) of every array of a state (u, bar, p components) from one grid to another. */
void
CopySlices(const Grid & from,
           const State & a,
           std::size_t az0,
           const Grid & to,
           State & b,
           std::size_t bz0,
           std::size_t nz)
{
  const std::size_t slice = from.size[0] * from.size[1];
  auto copy = [&](const std::vector<float> & src, std::size_t srcBase, std::vector<float> & dst, std::size_t dstBase)
  { std::copy_n(src.begin() + srcBase + az0 * slice, nz * slice, dst.begin() + dstBase + bz0 * slice); };
  copy(a.u, 0, b.u, 0);
  copy(a.bar, 0, b.bar, 0);
  for (unsigned k = 0; k < from.dimension; ++k)
    copy(a.p, k * from.Count(), b.p, k * to.Count());
}

/**
 * Advances the whole state by `iterations` in rounds of B on z-slabs padded by
 * `halo` slices (clipped at the volume's ends), as several devices would.
 */
std::vector<float>
RunInSlabs(const std::vector<float> & f,
           const Grid & grid,
           const TVParameters & parameters,
           unsigned roundLength,
           std::size_t halo,
           std::size_t slabs,
           Backend backend)
{
  State whole(grid, f);
  const std::size_t nz = grid.size[2], slice = grid.size[0] * grid.size[1];
  for (unsigned first = 0; first < parameters.maxIterations; first += roundLength)
  {
    const unsigned count = std::min(roundLength, parameters.maxIterations - first);
    State next = whole;
    for (std::size_t s = 0; s < slabs; ++s)
    {
      const std::size_t z0 = nz * s / slabs, z1 = nz * (s + 1) / slabs;
      const std::size_t p0 = z0 > halo ? z0 - halo : 0, p1 = std::min(nz, z1 + halo);
      Grid block = grid;
      block.size[2] = p1 - p0;
      std::vector<float> blockF(f.begin() + p0 * slice, f.begin() + p1 * slice);
      State state(block, blockF);
      CopySlices(grid, whole, p0, block, state, 0, p1 - p0);
      gpur::ContinueTV<float>(
        blockF.data(), nullptr, block, parameters, first, count, state.View(), gpur::MakeExecution(backend));
      CopySlices(block, state, z0 - p0, grid, next, z0, z1 - z0);
    }
    whole = next;
  }
  return whole.u;
}

class TVRounds : public ::testing::TestWithParam<std::tuple<TVAlgorithm, Backend>>
{
};

} // namespace

TEST_P(TVRounds, ConsecutiveCallsEqualOneRun)
{
  const auto [algorithm, backend] = GetParam();
  const Grid grid = gpur::MakeGrid3D(21, 17, 9, 1.0, 0.8, 1.3);
  const auto f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 3);
  const TVParameters p = FixedIterations(algorithm, 12);

  State rounds(grid, f);
  for (unsigned first : { 0u, 5u, 9u })
  {
    const unsigned count = first == 0 ? 5 : (first == 5 ? 4 : 3);
    const auto report =
      gpur::ContinueTV<float>(f.data(), nullptr, grid, p, first, count, rounds.View(), gpur::MakeExecution(backend));
    EXPECT_EQ(report.iterations, count);
    EXPECT_EQ(report.backend.backend, backend);
  }
  EXPECT_EQ(rounds.u, OneRun(f, grid, p, backend)); // bit for bit

  State once(grid, f);
  gpur::ContinueTV<float>(f.data(), nullptr, grid, p, 0, 12, once.View(), gpur::MakeExecution(backend));
  EXPECT_EQ(rounds.u, once.u);
  EXPECT_EQ(rounds.p, once.p);
  if (algorithm != TVAlgorithm::PDU)
  {
    EXPECT_EQ(rounds.bar, once.bar);
  }
}

TEST_P(TVRounds, PaddedSlabsEqualTheWholeVolume)
{
  const auto [algorithm, backend] = GetParam();
  const Grid grid = gpur::MakeGrid3D(19, 15, 24, 1.0, 0.8, 1.3);
  const auto f = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 5);
  const TVParameters p = FixedIterations(algorithm, 13);
  const auto reference = OneRun(f, grid, p, backend);
  const unsigned B = 4;
  const auto slabbed = RunInSlabs(f, grid, p, B, B + 1, 3, backend);
  EXPECT_LE(gpur::MaxAbsDifference(slabbed.data(), reference.data(), f.size()), 1e-6);
  // A halo too thin lets the wrong boundary condition at the cut leak in.
  const auto thin = RunInSlabs(f, grid, p, B, 1, 3, backend);
  EXPECT_GT(gpur::MaxAbsDifference(thin.data(), reference.data(), f.size()), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(AllMethods,
                         TVRounds,
                         ::testing::Combine(::testing::Values(TVAlgorithm::ChambollePock,
                                                              TVAlgorithm::AcceleratedChambollePock,
                                                              TVAlgorithm::PDU),
                                            ::testing::Values(Backend::CPU, Backend::OpenCL)));

TEST(TVState, TwoDimensionalAndSingleSliceStates)
{
  // 2D: p has two components.
  const Grid g2 = gpur::MakeGrid2D(16, 12);
  const auto f2 = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(g2), 0.1, 1);
  State s2(g2, f2);
  gpur::ContinueTV<float>(
    f2.data(), nullptr, g2, FixedIterations(TVAlgorithm::AcceleratedChambollePock, 6), 0, 6, s2.View());
  EXPECT_EQ(s2.u, OneRun(f2, g2, FixedIterations(TVAlgorithm::AcceleratedChambollePock, 6), Backend::Auto));

  // A 3D grid of one slice keeps a p_z component, which stays 0.
  Grid g3 = g2;
  g3.dimension = 3;
  State s3(g3, f2);
  std::fill(s3.p.begin() + 2 * g3.Count(), s3.p.end(), 1.0f); // garbage in the unused component
  gpur::ContinueTV<float>(
    f2.data(), nullptr, g3, FixedIterations(TVAlgorithm::AcceleratedChambollePock, 6), 0, 6, s3.View());
  // (Not equal to the 2D result: the step sizes follow the 3D bound of ||grad||^2.)
  EXPECT_EQ(s3.u, OneRun(f2, g3, FixedIterations(TVAlgorithm::AcceleratedChambollePock, 6), Backend::Auto));
  EXPECT_TRUE(std::all_of(s3.p.begin() + 2 * g3.Count(), s3.p.end(), [](float v) { return v == 0.0f; }));
}

TEST(TVState, MissingStateArraysAreRefused)
{
  const Grid grid = gpur::MakeGrid2D(8, 8);
  const std::vector<float> f(grid.Count(), 0.5f);
  State s(grid, f);
  auto view = s.View();
  view.bar = nullptr;
  EXPECT_THROW(
    gpur::ContinueTV<float>(f.data(), nullptr, grid, FixedIterations(TVAlgorithm::ChambollePock, 2), 0, 2, view),
    gpur::InvalidArgument);
  // PDU has no ubar: the same view is fine.
  EXPECT_NO_THROW(gpur::ContinueTV<float>(f.data(), nullptr, grid, FixedIterations(TVAlgorithm::PDU, 2), 0, 2, view));
  view.p = nullptr;
  EXPECT_THROW(gpur::ContinueTV<float>(f.data(), nullptr, grid, FixedIterations(TVAlgorithm::PDU, 2), 0, 2, view),
               gpur::InvalidArgument);
}
