// SPDX-License-Identifier: Apache-2.0
// gpur::bench::TimeIterations on stand-in runs of known cost: the per-iteration
// time from t(2N) - t(N), and what it does when 2N is timed no slower than N.
#include "gpurBench.h"
#include "gpurError.h"

#include <gtest/gtest.h>

namespace
{

using gpur::bench::OnUntimed;
using gpur::bench::TimeIterations;

TEST(BenchTiming, DifferenceRemovesTheFixedCost)
{
  // 0.25 s of set-up and 0.01 s per iteration: N doubles from 4 until t(2N) - t(N) >= 0.5 s, i.e. N = 64.
  const auto t = TimeIterations([](unsigned n) { return 0.25 + 0.01 * n; }, 4, 0, 0.5, "linear");
  EXPECT_TRUE(t.differenced);
  EXPECT_EQ(t.iterations, 64u);
  EXPECT_NEAR(t.secondsPerIteration, 0.01, 1e-12);
  EXPECT_NEAR(t.fixedSeconds, 0.25, 1e-12);
}

TEST(BenchTiming, NoSlowerAt2NThrowsOrReportsTheTotalTime)
{
  // Noise: every run takes 1 s whatever N.
  const auto flat = [](unsigned) { return 1.0; };
  EXPECT_THROW(TimeIterations(flat, 8, 8, 0.0, "flat"), gpur::Error);
  const auto t = TimeIterations(flat, 8, 8, 0.0, "flat", OnUntimed::TotalTime);
  EXPECT_FALSE(t.differenced);
  EXPECT_EQ(t.iterations, 8u);
  EXPECT_DOUBLE_EQ(t.secondsPerIteration, 1.0 / 16); // t(2N) / 2N, set-up included
  EXPECT_EQ(t.fixedSeconds, 0.0);
}

} // namespace
