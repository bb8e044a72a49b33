// SPDX-License-Identifier: Apache-2.0
#include "gpurDiscrepancyPrinciple.h"

#include "gpurError.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace gpur
{

void
ValidateDiscrepancySearch(double factor,
                          double tolerance,
                          unsigned maximumSolves,
                          bool automatic,
                          double gapTolerance,
                          unsigned gapCheckInterval)
{
  if (!(factor >= 0.0) || !std::isfinite(factor))
  {
    throw InvalidArgument("the discrepancy factor is " + std::to_string(factor) +
                          "; it must be finite and > 0, or 0 (calibrated from the noise)");
  }
  if (!(tolerance > 0.0 && tolerance <= 0.5))
  {
    throw InvalidArgument("the discrepancy tolerance is " + std::to_string(tolerance) + "; it must be in (0, 0.5]");
  }
  if (maximumSolves < 2)
  {
    throw InvalidArgument("the maximum number of lambda solves is " + std::to_string(maximumSolves) +
                          "; it must be >= 2");
  }
  if (automatic && !(gapTolerance > 0.0 && gapCheckInterval > 0))
  {
    throw InvalidArgument("the automatic lambda needs converged solves, but the gap tolerance is " +
                          std::to_string(gapTolerance) + " and the gap check interval " +
                          std::to_string(gapCheckInterval) + "; both must be > 0");
  }
}

namespace
{

void
ValidateOptions(const DiscrepancySearchOptions & options)
{
  ValidateDiscrepancySearch(options.target, options.tolerance, options.maximumSolves, false, 0.0, 0);
  if (!(options.initialLambda > 0.0) || !std::isfinite(options.initialLambda))
  {
    throw InvalidArgument("the discrepancy search's initial lambda is " + std::to_string(options.initialLambda) +
                          "; it must be finite and > 0");
  }
  if (options.maxIterations == 0)
  {
    throw InvalidArgument("the discrepancy search's iteration budget is 0; it must be >= 1");
  }
  if (!(options.target > 0.0 && options.target < options.maximumDiscrepancy))
  {
    std::ostringstream message;
    message << "automatic lambda: the discrepancy target " << options.target
            << " cannot be reached: the largest discrepancy, of the constant image the result tends to as "
               "lambda -> 0, is "
            << options.maximumDiscrepancy << "; reachable targets: (0, " << options.maximumDiscrepancy
            << "); lower the discrepancy factor or check the noise level";
    throw InvalidArgument(message.str());
  }
}

} // namespace

DiscrepancySearchReport
SearchDiscrepancyLambda(const DiscrepancySolveFunction & solve,
                        const DiscrepancySearchOptions & options,
                        const ProgressCallback & callback)
{
  ValidateOptions(options);
  DiscrepancySearchReport report;
  // The search's solves are the outer iterations of its progress.
  const ProgressCallback progress = NestedCallback(
    callback, "lambda solve", [&report] { return report.solves + 1; }, options.maximumSolves);
  auto run = [&](double lambda, unsigned maxIterations)
  {
    const DiscrepancySolve s = solve(lambda, maxIterations, progress);
    report.history.push_back(s);
    ++report.solves;
    report.lambda = s.lambda;
    report.discrepancy = s.discrepancy;
    return s;
  };
  // A solve's discrepancy is the model's only when it converged. Smaller lambdas (more smoothing)
  // need more iterations, so one that stops at the limit runs again with 4 times the iterations
  // before the search gives up.
  auto converged = [&](double lambda)
  {
    DiscrepancySolve s = run(lambda, options.maxIterations);
    if (!s.converged)
    {
      const unsigned more = options.maxIterations > std::numeric_limits<unsigned>::max() / 4u
                              ? std::numeric_limits<unsigned>::max()
                              : 4u * options.maxIterations;
      s = run(lambda, more);
    }
    if (!s.converged)
    {
      std::ostringstream message;
      message << "automatic lambda: the solve at lambda " << s.lambda << " stopped after " << s.iterations
              << " iterations at relative gap " << s.relativeGap
              << " above its tolerance (also with 4 times the iteration budget), so its discrepancy is not the "
                 "model's; raise the maximum number of iterations";
      throw Error(message.str());
    }
    return s.discrepancy;
  };
  const double target = options.target;
  auto done = [&](double value) { return std::abs(value / target - 1.0) <= options.tolerance; };

  // The discrepancy falls as lambda grows. Bracket the target by factors of 4, then regula falsi
  // on (log lambda, log r): r is close to a power of lambda there.
  double lambda = options.initialLambda;
  double r = converged(lambda);
  double lo = lambda, rlo = r, hi = lambda, rhi = r; // rlo >= target >= rhi once bracketed
  while (!done(r) && report.solves < options.maximumSolves && !(rlo >= target && rhi <= target))
  {
    if (r > target)
    {
      lo = lambda;
      rlo = r;
      lambda *= 4.0;
      r = converged(lambda);
      hi = lambda;
      rhi = r;
    }
    else
    {
      hi = lambda;
      rhi = r;
      lambda /= 4.0;
      r = converged(lambda);
      lo = lambda;
      rlo = r;
    }
  }
  while (!done(r) && report.solves < options.maximumSolves)
  {
    const double t = (std::log(target) - std::log(rlo)) / (std::log(rhi) - std::log(rlo));
    lambda = std::exp(std::log(lo) + std::min(0.9, std::max(0.1, t)) * (std::log(hi) - std::log(lo)));
    r = converged(lambda);
    if (r > target)
    {
      lo = lambda;
      rlo = r;
    }
    else
    {
      hi = lambda;
      rhi = r;
    }
  }
  if (!done(r))
  {
    std::ostringstream message;
    message << "automatic lambda: the discrepancy principle did not converge in " << report.solves
            << " solves (last lambda " << lambda << ", discrepancy " << r << ", target " << target
            << "); raise maximumLambdaSolves or set lambda by hand";
    throw Error(message.str());
  }
  return report;
}

DiscrepancySearchReport
SolveAtFixedLambda(const DiscrepancySolveFunction & solve,
                   double lambda,
                   unsigned maxIterations,
                   const ProgressCallback & callback)
{
  DiscrepancySearchReport report;
  report.history.push_back(solve(lambda, maxIterations, callback));
  report.solves = 1;
  report.lambda = lambda;
  report.discrepancy = report.history.back().discrepancy;
  return report;
}

double
NoiseBalancedLambda(double sigma, const Grid & grid)
{
  if (!(sigma > 0.0) || !std::isfinite(sigma))
  {
    throw InvalidArgument("the noise sigma is " + std::to_string(sigma) + "; it must be finite and > 0");
  }
  double logSum = 0.0;
  for (unsigned d = 0; d < grid.dimension; ++d)
    logSum += std::log(grid.spacing[d]);
  return 1.0 / (sigma * std::exp(logSum / grid.dimension));
}

} // namespace gpur
