// SPDX-License-Identifier: Apache-2.0
// Tests of the core's discrepancy search (gpurDiscrepancyPrinciple.h) on model
// solves whose discrepancy is known in closed form: the target met from either
// side, the retry of unconverged solves, the refusals, one progress range, and
// the scaling law of the starting lambda.
#include "gpurDiscrepancyPrinciple.h"
#include "gpurError.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

using gpur::DiscrepancySearchOptions;
using gpur::DiscrepancySolve;

namespace
{

/**
 * A model solve: discrepancy (lambda1 / lambda)^0.8 (falling in lambda, as a
 * denoiser's), converged when the budget reaches `needed(lambda)` iterations.
 */
struct ModelSolve
{
  double lambda1 = 2.0;
  std::function<unsigned(double)> needed = [](double) { return 1u; };
  std::vector<unsigned> budgets; ///< the budget of every call

  gpur::DiscrepancySolveFunction
  Function()
  {
    return [this](double lambda, unsigned maxIterations, const gpur::ProgressCallback & progress)
    {
      budgets.push_back(maxIterations);
      const unsigned n = needed(lambda);
      const unsigned iterations = std::min(n, maxIterations);
      for (unsigned k = 1; k <= iterations; ++k)
        gpur::ReportProgress(progress, gpur::IterationProgress(k, maxIterations));
      DiscrepancySolve s;
      s.lambda = lambda;
      s.discrepancy = std::pow(lambda1 / lambda, 0.8);
      s.iterations = iterations;
      s.converged = n <= maxIterations;
      s.relativeGap = s.converged ? 1e-5 : 1e-2;
      return s;
    };
  }
};

DiscrepancySearchOptions
Options(double target, double initialLambda)
{
  DiscrepancySearchOptions o;
  o.target = target;
  o.initialLambda = initialLambda;
  o.maxIterations = 100;
  return o;
}

template<typename Exception>
std::string
ExpectThrow(const std::function<void()> & run)
{
  try
  {
    run();
  }
  catch (const Exception & e)
  {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected type";
  return {};
}

} // namespace

TEST(DiscrepancySearch, MeetsTheTargetFromBothSidesAndEndsAtTheResultsLambda)
{
  for (double start : { 0.01, 2.0, 500.0 })
  {
    ModelSolve model;
    const double target = 0.9;
    const auto r = gpur::SearchDiscrepancyLambda(model.Function(), Options(target, start));
    EXPECT_NEAR(r.discrepancy / target, 1.0, 0.02) << "start " << start;
    EXPECT_NEAR(std::pow(model.lambda1 / r.lambda, 0.8), r.discrepancy, 1e-12);
    ASSERT_EQ(r.history.size(), r.solves);
    EXPECT_EQ(r.history.front().lambda, start) << "the search starts at the initial lambda";
    EXPECT_EQ(r.history.back().lambda, r.lambda) << "the last solve is the result's";
    EXPECT_LE(r.solves, 10u) << "start " << start;
    // Bracketing moves by factors of 4 from the start.
    ASSERT_GE(r.solves, 2u);
    EXPECT_NEAR(std::abs(std::log(r.history[1].lambda / start)), std::log(4.0), 1e-12);
  }
}

TEST(DiscrepancySearch, RunsAnUnconvergedSolveAgainWithFourTimesTheBudget)
{
  ModelSolve model;
  model.needed = [](double lambda) { return lambda < 1.0 ? 300u : 50u; }; // small lambdas need more iterations
  const auto r = gpur::SearchDiscrepancyLambda(model.Function(), Options(1.5, 0.5)); // target below: lambda grows
  ASSERT_GE(r.history.size(), 2u);
  EXPECT_FALSE(r.history[0].converged);
  EXPECT_TRUE(r.history[1].converged);
  EXPECT_EQ(r.history[1].lambda, r.history[0].lambda) << "the unconverged solve ran again at its lambda";
  EXPECT_EQ(model.budgets[0], 100u);
  EXPECT_EQ(model.budgets[1], 400u);
  EXPECT_TRUE(r.history.back().converged);

  // Still not converged with 4 times the budget: no discrepancy of it is used.
  model.needed = [](double) { return 1000u; };
  const std::string what =
    ExpectThrow<gpur::Error>([&] { gpur::SearchDiscrepancyLambda(model.Function(), Options(1.5, 0.5)); });
  EXPECT_NE(what.find("raise the maximum number of iterations"), std::string::npos) << what;
  EXPECT_NE(what.find("stopped after 400 iterations"), std::string::npos) << what;
}

TEST(DiscrepancySearch, RefusesUnreachableTargetsBadOptionsAndTooFewSolves)
{
  ModelSolve model;
  auto o = Options(2.0, 1.0);
  o.maximumDiscrepancy = 1.5;
  std::string what = ExpectThrow<gpur::InvalidArgument>([&] { gpur::SearchDiscrepancyLambda(model.Function(), o); });
  EXPECT_NE(what.find("cannot be reached"), std::string::npos) << what;
  EXPECT_NE(what.find("reachable targets: (0, 1.5)"), std::string::npos) << what;
  EXPECT_TRUE(model.budgets.empty()) << "nothing solved for an unreachable target";

  o = Options(0.0, 1.0);
  EXPECT_NE(
    ExpectThrow<gpur::InvalidArgument>([&] { gpur::SearchDiscrepancyLambda(model.Function(), o); }).find("target"),
    std::string::npos);
  o = Options(1.0, -1.0);
  EXPECT_NE(ExpectThrow<gpur::InvalidArgument>([&] { gpur::SearchDiscrepancyLambda(model.Function(), o); })
              .find("initial lambda is -1"),
            std::string::npos);

  // A target far from the start in too few solves: the search says so.
  o = Options(1e-6, 1.0);
  o.maximumSolves = 3;
  what = ExpectThrow<gpur::Error>([&] { gpur::SearchDiscrepancyLambda(model.Function(), o); });
  EXPECT_NE(what.find("did not converge in 3 solves"), std::string::npos) << what;

  EXPECT_NE(ExpectThrow<gpur::InvalidArgument>([] { gpur::ValidateDiscrepancySearch(-1, 0.02, 16, false, 0, 0); })
              .find("the discrepancy factor is -1"),
            std::string::npos);
  EXPECT_NE(ExpectThrow<gpur::InvalidArgument>([] { gpur::ValidateDiscrepancySearch(0, 0.7, 16, false, 0, 0); })
              .find("tolerance is 0.7"),
            std::string::npos);
  EXPECT_NE(ExpectThrow<gpur::InvalidArgument>([] { gpur::ValidateDiscrepancySearch(0, 0.02, 1, false, 0, 0); })
              .find("lambda solves is 1"),
            std::string::npos);
  EXPECT_NE(ExpectThrow<gpur::InvalidArgument>([] { gpur::ValidateDiscrepancySearch(0, 0.02, 16, true, 0, 10); })
              .find("needs converged solves"),
            std::string::npos);
  EXPECT_NO_THROW(gpur::ValidateDiscrepancySearch(0, 0.02, 16, false, 0, 0)); // a fixed lambda needs no gap stop
}

TEST(DiscrepancySearch, ReportsOneProgressRangeOverItsSolves)
{
  ModelSolve model;
  model.needed = [](double) { return 5u; };
  std::vector<double> fractions;
  std::string lastMessage;
  const auto r = gpur::SearchDiscrepancyLambda(model.Function(),
                                               Options(0.9, 100.0),
                                               [&](const gpur::Progress & p)
                                               {
                                                 fractions.push_back(p.fraction);
                                                 lastMessage = p.message;
                                                 return true;
                                               });
  ASSERT_EQ(fractions.size(), 5u * r.solves);
  for (std::size_t k = 1; k < fractions.size(); ++k)
    EXPECT_GE(fractions[k], fractions[k - 1]) << "progress went back at report " << k;
  EXPECT_GT(fractions.front(), 0.0);
  EXPECT_LE(fractions.back(), double(r.solves) / 16.0 + 1e-12); // solve k of at most 16 ends at k / 16
  EXPECT_NE(lastMessage.find("lambda solve " + std::to_string(r.solves) + " of at most 16"), std::string::npos)
    << lastMessage;

  // A callback that returns false aborts the search.
  EXPECT_THROW(
    gpur::SearchDiscrepancyLambda(model.Function(), Options(0.9, 100.0), [](const gpur::Progress &) { return false; }),
    gpur::Aborted);
}

TEST(DiscrepancySearch, FixedLambdaIsOneSolve)
{
  ModelSolve model;
  const auto r = gpur::SolveAtFixedLambda(model.Function(), 8.0, 77);
  EXPECT_EQ(r.solves, 1u);
  EXPECT_EQ(r.lambda, 8.0);
  EXPECT_DOUBLE_EQ(r.discrepancy, std::pow(2.0 / 8.0, 0.8));
  ASSERT_EQ(model.budgets.size(), 1u);
  EXPECT_EQ(model.budgets[0], 77u);
}

TEST(DiscrepancySearch, NoiseBalancedLambdaFollowsTheScalingLaw)
{
  // lambda = 1 / (sigma h): intensities scaled by s divide it by s, spacings scaled by a divide it by a.
  const gpur::Grid unit = gpur::MakeGrid2D(8, 8);
  EXPECT_DOUBLE_EQ(gpur::NoiseBalancedLambda(0.1, unit), 10.0);
  const gpur::Grid ct = gpur::MakeGrid3D(8, 8, 8, 0.7, 0.7, 0.7);
  EXPECT_NEAR(gpur::NoiseBalancedLambda(25.0, ct), 1.0 / (25.0 * 0.7), 1e-15);
  EXPECT_NEAR(
    gpur::NoiseBalancedLambda(0.1, unit) * 0.1 * 1.0, gpur::NoiseBalancedLambda(25.0, ct) * 25.0 * 0.7, 1e-14);
  // Anisotropic voxels: the geometric mean of the spacings.
  const gpur::Grid aniso = gpur::MakeGrid3D(8, 8, 8, 0.5, 0.5, 2.0);
  EXPECT_NEAR(gpur::NoiseBalancedLambda(1.0, aniso), 1.0 / std::cbrt(0.5 * 0.5 * 2.0), 1e-14);
  EXPECT_THROW(gpur::NoiseBalancedLambda(0.0, unit), gpur::InvalidArgument);
}
