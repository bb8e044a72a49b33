// SPDX-License-Identifier: Apache-2.0
// The building blocks of level-line denoising: the segment patterns against
// the rows of P_5 printed in [Perrot2013, §IV-B], their symmetries; the
// likelihood-ratio tests of [Perrot2013, eq. (8)] in the running-sum form the
// backends share against a direct two-pass evaluation; the parameters.
#include "gpurLevelLines.h"
#include "gpurLevelLinesArithmetic.h"
#include "gpurLevelLinesEngine.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>

using namespace gpur;

namespace
{

using Offsets = std::vector<std::array<int, 2>>;

std::set<std::pair<int, int>>
PixelSet(const Offsets & offsets)
{
  std::set<std::pair<int, int>> pixels;
  for (const auto & o : offsets)
    pixels.insert({ o[0], o[1] });
  return pixels;
}

} // namespace

TEST(LevelLinesPattern, ReproducesThePaperRowsOfP5)
{
  const Offsets printed[8] = {
    { { { 0, 1 } }, { { 0, 2 } }, { { 0, 3 } }, { { 0, 4 } }, { { 0, 5 } } },
    { { { 0, 1 } }, { { 0, 2 } }, { { -1, 3 } }, { { -1, 4 } }, { { -1, 5 } } },
    { { { 0, 1 } }, { { -1, 2 } }, { { -1, 3 } }, { { -2, 4 } }, { { -2, 5 } } },
    { { { -1, 1 } }, { { -1, 2 } }, { { -2, 3 } }, { { -3, 4 } }, { { -3, 5 } } },
    { { { -1, 1 } }, { { -2, 2 } }, { { -3, 3 } }, { { -4, 4 } }, { { -5, 5 } } },
    { { { -1, 1 } }, { { -2, 1 } }, { { -3, 2 } }, { { -4, 3 } }, { { -5, 3 } } },
    { { { -1, 0 } }, { { -2, 1 } }, { { -3, 1 } }, { { -4, 2 } }, { { -5, 2 } } },
    { { { -1, 0 } }, { { -2, 0 } }, { { -3, 1 } }, { { -4, 1 } }, { { -5, 1 } } },
  };
  for (unsigned d = 0; d < 8; ++d)
    EXPECT_EQ(LevelLinesPattern(d, 5), printed[d]) << "direction " << d;
}

TEST(LevelLinesPattern, RotatesBy90DegreesEvery8Directions)
{
  for (unsigned l = 2; l <= 12; ++l)
  {
    for (unsigned d = 0; d < kLevelLinesDirections; ++d)
    {
      Offsets rotated;
      for (const auto & o : LevelLinesPattern(d, l))
        rotated.push_back({ { -o[1], o[0] } });
      EXPECT_EQ(LevelLinesPattern((d + 8) % kLevelLinesDirections, l), rotated) << "l " << l << " d " << d;
    }
  }
}

TEST(LevelLinesPattern, HasLDistinctPixelsWithoutTheCentre)
{
  for (unsigned l = 2; l <= 12; ++l)
  {
    for (unsigned d = 0; d < kLevelLinesDirections; ++d)
    {
      const Offsets p = LevelLinesPattern(d, l);
      ASSERT_EQ(p.size(), l);
      const auto pixels = PixelSet(p);
      EXPECT_EQ(pixels.size(), l) << "l " << l << " d " << d;
      EXPECT_EQ(pixels.count({ 0, 0 }), 0u) << "l " << l << " d " << d;
      for (const auto & o : p)
        EXPECT_LE(std::max(std::abs(o[0]), std::abs(o[1])), int(l));
    }
  }
}

TEST(LevelLinesPattern, RaysEvery45DegreesAreDisjoint)
{
  std::set<std::pair<int, int>> all;
  for (unsigned d = 0; d < kLevelLinesDirections; d += 4)
  {
    for (const auto & pixel : PixelSet(LevelLinesPattern(d, 5)))
      EXPECT_TRUE(all.insert(pixel).second) << "direction " << d;
  }
  EXPECT_EQ(all.size(), 40u);
}

TEST(LevelLinesPattern, ThickPatternsHave3LDistinctPixels)
{
  for (unsigned l = 2; l <= 12; ++l)
  {
    LevelLinesParameters p;
    p.segmentLength = l;
    p.maximumLength = 2 * l;
    p.thick = true;
    const levellines::Setup setup = levellines::MakeSetup(p, 1.0f);
    ASSERT_EQ(setup.m, int(3 * l));
    ASSERT_EQ(setup.table.size(), 2 * (kLevelLinesDirections * 3 * l + kLevelLinesDirections));
    for (unsigned d = 0; d < kLevelLinesDirections; ++d)
    {
      std::set<std::pair<int, int>> pixels;
      for (int k = 0; k < setup.m; ++k)
      {
        const int * o = setup.table.data() + 2 * (int(d) * setup.m + k);
        pixels.insert({ o[0], o[1] });
        EXPECT_LE(std::max(std::abs(o[0]), std::abs(o[1])), setup.halo);
      }
      EXPECT_EQ(pixels.size(), 3 * l) << "l " << l << " d " << d;
      EXPECT_EQ(pixels.count({ 0, 0 }), 0u);
      // The end of a segment is the thin pattern's last pixel.
      const int * end = setup.table.data() + 2 * (kLevelLinesDirections * setup.m + d);
      EXPECT_EQ(end[0], LevelLinesPattern(d, l).back()[0]);
      EXPECT_EQ(end[1], LevelLinesPattern(d, l).back()[1]);
    }
  }
}

TEST(LevelLinesPattern, RejectsADirectionOutOfRange)
{
  EXPECT_THROW(LevelLinesPattern(32, 5), InvalidArgument);
}

namespace
{

/** N log(v1 / v2) of [Perrot2013, eq. (8)] by two passes in double (means first), with the floor. */
double
TwoPassPooled(const std::vector<double> & a, const std::vector<double> & b, double floor)
{
  const auto mean = [](const std::vector<double> & x)
  {
    double s = 0.0;
    for (double v : x)
      s += v;
    return s / double(x.size());
  };
  std::vector<double> all(a);
  all.insert(all.end(), b.begin(), b.end());
  const double ma = mean(a), mb = mean(b), m = mean(all);
  double v1 = 0.0, v2 = 0.0;
  for (double v : all)
    v1 += (v - m) * (v - m);
  for (double v : a)
    v2 += (v - ma) * (v - ma);
  for (double v : b)
    v2 += (v - mb) * (v - mb);
  const double n = double(all.size());
  return n * (std::log(std::max(v1 / n, floor)) - std::log(std::max(v2 / n, floor)));
}

} // namespace

TEST(LevelLinesArithmetic, PooledTestIsNonNegativeAndZeroForEqualMeans)
{
  std::mt19937 random(7);
  std::normal_distribution<float> normal(0.0f, 10.0f);
  for (int trial = 0; trial < 1000; ++trial)
  {
    float s1 = 0, q1 = 0, s2 = 0, q2 = 0;
    const int n1 = 6 + trial % 20, n2 = 5;
    const float shift = float(trial % 7) * 3.0f;
    for (int k = 0; k < n1; ++k)
    {
      const float v = normal(random);
      s1 += v;
      q1 += v * v;
    }
    for (int k = 0; k < n2; ++k)
    {
      const float v = normal(random) + shift;
      s2 += v;
      q2 += v * v;
    }
    EXPECT_GE(levellines::ll_test_pooled(s1, q1, float(n1), s2, q2, float(n2), 1e-3f), -1e-4f);
    EXPECT_GE(levellines::ll_test_separate(s1, q1, float(n1), s2, q2, float(n2), 1e-3f), -1e-3f);
  }
  // Two parts with the same mean (and any spread): the pooled statistic is 0.
  // Part 1: -2, 0, 2 (mean 0); part 2: -1, 1 (mean 0).
  EXPECT_NEAR(levellines::ll_test_pooled(0.0f, 8.0f, 3.0f, 0.0f, 2.0f, 2.0f, 1e-6f), 0.0f, 1e-6f);
  // Identical constant parts: both variances at the floor, 0.
  EXPECT_EQ(levellines::ll_test_pooled(0.0f, 0.0f, 6.0f, 0.0f, 0.0f, 5.0f, 0.5f), 0.0f);
  EXPECT_EQ(levellines::ll_test_separate(0.0f, 0.0f, 6.0f, 0.0f, 0.0f, 5.0f, 0.5f), 0.0f);
}

TEST(LevelLinesArithmetic, RunningSumsMatchTwoPassEvaluation)
{
  // Part 1 relative to its pixel zc, part 2 relative to another pixel z(e) and
  // moved to zc by ll_shift_sum / ll_shift_square, as stage 2 does: the
  // statistic equals the direct two-pass value of the grey levels.
  std::mt19937 random(11);
  std::normal_distribution<double> normal(0.0, 20.0);
  for (int trial = 0; trial < 200; ++trial)
  {
    const double zc = 1000.0 + normal(random), ze = zc + 0.5 * normal(random);
    const double shift = double(trial % 5) * 8.0;
    std::vector<double> a(11), b(5);
    float s1 = 0, q1 = 0, se = 0, qe = 0;
    for (double & v : a)
    {
      v = float(zc + normal(random));
      const float t = float(v) - float(zc);
      s1 += t;
      q1 += t * t;
    }
    for (double & v : b)
    {
      v = float(zc + shift + normal(random));
      const float t = float(v) - float(ze);
      se += t;
      qe += t * t;
    }
    const float delta = float(ze) - float(zc);
    const float s2 = levellines::ll_shift_sum(se, 5.0f, delta);
    const float q2 = levellines::ll_shift_square(qe, se, 5.0f, delta);
    const double floor = 25.0;
    const double expected = TwoPassPooled(a, b, floor);
    const double got = levellines::ll_test_pooled(s1, q1, 11.0f, s2, q2, 5.0f, float(floor));
    EXPECT_NEAR(got, expected, 1e-3 * std::max(1.0, std::abs(expected))) << "trial " << trial;
  }
}

TEST(LevelLinesArithmetic, LogFreeDecisionEqualsTheStatisticBelowTheThreshold)
{
  // The engine decides by v1 < v2 exp(t / N) (ll_pooled_below); away from
  // the threshold (1e-3 relative) that is exactly the statistic below t.
  std::mt19937 random(5);
  std::normal_distribution<float> normal(0.0f, 10.0f);
  int decided = 0, accepted = 0;
  for (int trial = 0; trial < 2000; ++trial)
  {
    float s1 = 0, q1 = 0, s2 = 0, q2 = 0;
    const int n1 = 6 + 5 * (trial % 9), n2 = 5;
    const float shift = float(trial % 4) * 4.0f;
    for (int k = 0; k < n1; ++k)
    {
      const float v = normal(random);
      s1 += v;
      q1 += v * v;
    }
    for (int k = 0; k < n2; ++k)
    {
      const float v = normal(random) + shift;
      s2 += v;
      q2 += v * v;
    }
    const float t = 0.5f + float(trial % 3), fl = 60.0f;
    const float statistic = levellines::ll_test_pooled(s1, q1, float(n1), s2, q2, float(n2), fl);
    if (std::abs(statistic - t) < 1e-3f * t)
      continue;
    const float bound = float(std::exp(double(t) / double(n1 + n2)));
    const bool below = levellines::ll_pooled_below(s1, q1, float(n1), s2, q2, float(n2), fl, bound);
    EXPECT_EQ(below, statistic < t) << "trial " << trial << ": statistic " << statistic << ", t " << t;
    ++decided;
    accepted += below ? 1 : 0;
  }
  // Both outcomes occur, so the comparison means something.
  EXPECT_GT(decided, 1900);
  EXPECT_GT(accepted, 200);
  EXPECT_LT(accepted, decided - 200);
}

TEST(LevelLinesArithmetic, TurnBackIsMoreThan90Degrees)
{
  EXPECT_FALSE(levellines::ll_turns_back(8, 0));
  EXPECT_TRUE(levellines::ll_turns_back(9, 0));
  EXPECT_FALSE(levellines::ll_turns_back(24, 0)); // 90 degrees the other way round
  EXPECT_TRUE(levellines::ll_turns_back(23, 0));
  EXPECT_FALSE(levellines::ll_turns_back(2, 30));
  EXPECT_TRUE(levellines::ll_turns_back(16, 0));
}

TEST(LevelLinesParameters, NamesRoundTripAndBadNamesThrow)
{
  for (LevelLinesMode mode : { LevelLinesMode::PIPD, LevelLinesMode::Hybrid })
    EXPECT_EQ(ParseLevelLinesMode(ToString(mode)), mode);
  for (LevelLinesTest test : { LevelLinesTest::Pooled, LevelLinesTest::SeparateVariances })
    EXPECT_EQ(ParseLevelLinesTest(ToString(test)), test);
  EXPECT_EQ(ParseLevelLinesTest("separate"), LevelLinesTest::SeparateVariances);
  for (LevelLinesTurnBack rule : { LevelLinesTurnBack::Flip, LevelLinesTurnBack::Stop })
    EXPECT_EQ(ParseLevelLinesTurnBack(ToString(rule)), rule);
  EXPECT_THROW(ParseLevelLinesMode("median"), InvalidArgument);
  EXPECT_THROW(ParseLevelLinesTest("welch"), InvalidArgument);
  EXPECT_THROW(ParseLevelLinesTurnBack("turn"), InvalidArgument);
}

TEST(LevelLinesParameters, ValidateNamesTheBadParameter)
{
  const auto message = [](const LevelLinesParameters & p)
  {
    try
    {
      p.Validate();
    }
    catch (const InvalidArgument & e)
    {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(LevelLinesParameters()), "");
  LevelLinesParameters p;
  p.segmentLength = 1;
  EXPECT_NE(message(p).find("segmentLength"), std::string::npos);
  p = LevelLinesParameters();
  p.maximumLength = 4;
  EXPECT_NE(message(p).find("maximumLength"), std::string::npos);
  p = LevelLinesParameters();
  p.lengtheningThreshold = 0.0;
  EXPECT_NE(message(p).find("lengtheningThreshold"), std::string::npos);
  p = LevelLinesParameters();
  p.edgeThreshold = std::nan("");
  EXPECT_NE(message(p).find("edgeThreshold"), std::string::npos);
  p = LevelLinesParameters();
  p.varianceFloor = 5.0;
  EXPECT_NE(message(p).find("varianceFloor"), std::string::npos);
  p = LevelLinesParameters();
  p.noiseSigma = -1.0;
  EXPECT_NE(message(p).find("noiseSigma"), std::string::npos);
}

TEST(LevelLinesParameters, RadiusIsTheMaximumLengthPlusThickening)
{
  LevelLinesParameters p;
  EXPECT_EQ(LevelLinesRadius(p), 25u);
  p.thick = true;
  EXPECT_EQ(LevelLinesRadius(p), 26u);
  p.maximumLength = 5;
  p.thick = false;
  EXPECT_EQ(LevelLinesRadius(p), 5u);
}
