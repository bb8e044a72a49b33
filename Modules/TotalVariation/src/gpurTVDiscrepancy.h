// SPDX-License-Identifier: Apache-2.0
// What plain TV at a noise level (gpurTVNoiseLevel.cxx) and statistical TV
// (gpurStatisticalTV.cxx) share around the discrepancy search of the core
// (gpurDiscrepancyPrinciple.h): the TV solve at a lambda with its discrepancy,
// the discrepancy of lambda -> 0, and the calibrated target (internal).
#ifndef gpurTVDiscrepancy_h
#define gpurTVDiscrepancy_h

#include "gpurDiscrepancyPrinciple.h"
#include "gpurError.h"
#include "gpurNoiseEstimation.h"
#include "gpurTVDenoiser.h"
#include "gpurTVNoiseLevel.h"
#include "gpurValidate.h"

#include <cstddef>
#include <functional>
#include <string>

namespace gpur
{

/** sum (u - f)^2 / varianceAt(i) / N: scale-free when u, f and the variance are scaled alike. */
template<typename Real, typename VarianceAt>
double
Discrepancy(const Real * f, const Real * u, std::size_t n, const VarianceAt & varianceAt)
{
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double r = static_cast<double>(u[i]) - f[i];
    s += r * r / varianceAt(i);
  }
  return s / static_cast<double>(n);
}

/**
 * The discrepancy as lambda -> 0: u tends to the constant minimising the data
 * term, the weighted mean sum(f / w) / sum(1 / w) (the mean for weight null).
 * No lambda reaches a larger one.
 */
template<typename Real, typename VarianceAt>
double
MaximumDiscrepancy(const Real * f, const Real * weight, std::size_t n, const VarianceAt & varianceAt)
{
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double iw = weight == nullptr ? 1.0 : 1.0 / static_cast<double>(weight[i]);
    num += static_cast<double>(f[i]) * iw;
    den += iw;
  }
  const double c = num / den;
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double r = static_cast<double>(f[i]) - c;
    s += r * r / varianceAt(i);
  }
  return s / static_cast<double>(n);
}

/**
 * The discrepancy factor to meet: `factor` when > 0, else calibrated
 * (CalibratedDiscrepancyFactor) from the residual gain of the noise estimate
 * `estimated` made for the run, or, when there was none (null), of one made
 * now; where that one cannot be made (an axis of fewer than 3 voxels, no
 * measurable noise) the gain is white noise's, 1, reported as not measured, as
 * the estimator does for an image without flat tiles. Sets residualGain and
 * residualGainMeasured of the report.
 */
template<typename Real, typename Report>
double
DiscrepancyTarget(double factor,
                  const Real * f,
                  const Grid & grid,
                  const NoiseEstimationOptions & options,
                  const ExecutionOptions & execution,
                  const NoiseEstimationReport * estimated,
                  Report & report)
{
  if (factor > 0.0)
  {
    return factor;
  }
  NoiseEstimationReport measured;
  if (estimated == nullptr)
  {
    try
    {
      EstimateNoiseVariance(f, grid, options, execution.parallelFor, &measured);
    }
    catch (const InvalidArgument &)
    {
      measured = NoiseEstimationReport(); // G = 1, not measured
    }
    estimated = &measured;
  }
  report.residualGain = estimated->residualGain;
  report.residualGainMeasured = estimated->gainMeasured;
  return CalibratedDiscrepancyFactor(report.residualGain);
}

/** The noise variance of voxel i; empty when it is not known. */
using VarianceFunction = std::function<double(std::size_t)>;

/**
 * The TV solve of a discrepancy search: DenoiseWeightedTV of f (weight null:
 * plain ROF) into u at the given lambda and iteration budget, the other
 * settings from `tv`; its TVReport goes to `last`, its discrepancy is
 * sum (u - f)^2 / varianceAt(i) / N (0 when varianceAt is empty).
 */
template<typename Real>
DiscrepancySolveFunction
TVDiscrepancySolve(const Real * f,
                   const Real * weight,
                   Real * u,
                   const Grid & grid,
                   const TVParameters & tv,
                   const ExecutionOptions & execution,
                   const VarianceFunction & varianceAt,
                   TVReport & last)
{
  return [=, &grid, &tv, &execution, &last](double lambda, unsigned maxIterations, const ProgressCallback & progress)
  {
    TVParameters p = tv;
    p.lambda = lambda;
    p.maxIterations = maxIterations;
    last = DenoiseWeightedTV(f, weight, u, grid, p, execution, progress);
    DiscrepancySolve s;
    s.lambda = lambda;
    s.discrepancy = varianceAt ? Discrepancy(f, u, grid.Count(), varianceAt) : 0.0;
    s.iterations = last.iterations;
    s.relativeGap = last.relativeGap;
    s.converged = last.converged;
    return s;
  };
}

/** ValidateDiscrepancySearch of a TV front's parameters (TVNoiseLevelParameters, StatisticalTVParameters). */
template<typename Parameters>
void
ValidateTVDiscrepancySettings(const Parameters & p)
{
  ValidateDiscrepancySearch(p.discrepancyFactor,
                            p.discrepancyTolerance,
                            p.maximumLambdaSolves,
                            p.automaticLambda,
                            p.tv.gapTolerance,
                            p.tv.gapCheckInterval);
}

/**
 * The checks every TV front makes before it estimates or solves anything: the
 * grid, the parameters, the arrays (`front` names the function) and finite input.
 */
template<typename Real, typename Parameters>
void
ValidateTVFront(const Real * f, const Real * u, const Grid & grid, const Parameters & parameters, const char * front)
{
  grid.Validate();
  parameters.Validate();
  if (f == nullptr || u == nullptr)
  {
    throw InvalidArgument(std::string(front) + ": the input and output arrays must not be null");
  }
  RequireFinite(f, grid.Count(), "the input image");
}

/**
 * Solves at the front's lambda: once at parameters.tv.lambda, or, with
 * parameters.automaticLambda, by the discrepancy search from
 * NoiseBalancedLambda(sigma) to the target DiscrepancyTarget gives (`estimated`:
 * the noise estimate the front made, or null), within report.maximumDiscrepancy.
 * Fills the report's lambda, discrepancy, discrepancyTarget, solves and
 * lambdaHistory (and the residual gain of a calibrated target). Parameters is
 * TVNoiseLevelParameters or StatisticalTVParameters.
 */
template<typename Real, typename Parameters, typename Report>
void
SolveAtTVLambda(const DiscrepancySolveFunction & solve,
                const Real * f,
                const Grid & grid,
                const Parameters & parameters,
                const ExecutionOptions & execution,
                const NoiseEstimationReport * estimated,
                double sigma,
                const ProgressCallback & callback,
                Report & report)
{
  DiscrepancySearchReport search;
  if (!parameters.automaticLambda)
  {
    search = SolveAtFixedLambda(solve, parameters.tv.lambda, parameters.tv.maxIterations, callback);
  }
  else
  {
    DiscrepancySearchOptions options;
    options.target =
      DiscrepancyTarget(parameters.discrepancyFactor, f, grid, parameters.noise, execution, estimated, report);
    report.discrepancyTarget = options.target;
    options.tolerance = parameters.discrepancyTolerance;
    options.maximumSolves = parameters.maximumLambdaSolves;
    options.initialLambda = NoiseBalancedLambda(sigma, grid);
    options.maxIterations = parameters.tv.maxIterations;
    options.maximumDiscrepancy = report.maximumDiscrepancy;
    search = SearchDiscrepancyLambda(solve, options, callback);
  }
  report.lambda = search.lambda;
  report.discrepancy = search.discrepancy;
  report.solves = search.solves;
  report.lambdaHistory = search.history;
}

} // namespace gpur

#endif
