// SPDX-License-Identifier: Apache-2.0
#include "gpurStatisticalTV.h"

#include "gpurValidate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace gpur
{

void
StatisticalTVParameters::Validate() const
{
  tv.Validate();
  noise.Validate();
  if (!(weightExponent >= 0.0 && weightExponent <= kMaximumWeightExponent))
  {
    std::ostringstream message;
    message << "the weight exponent is " << weightExponent << "; allowed: 0 to " << kMaximumWeightExponent
            << " (0: plain TV, 0.5: weights by the noise sigma, 1: by the variance)";
    throw InvalidArgument(message.str());
  }
  if (!(discrepancyFactor >= 0.0) || !std::isfinite(discrepancyFactor))
  {
    throw InvalidArgument("the discrepancy factor is " + std::to_string(discrepancyFactor) +
                          "; it must be finite and > 0, or 0 (calibrated from the noise)");
  }
  if (!(discrepancyTolerance > 0.0 && discrepancyTolerance <= 0.5))
  {
    throw InvalidArgument("the discrepancy tolerance is " + std::to_string(discrepancyTolerance) +
                          "; it must be in (0, 0.5]");
  }
  if (maximumLambdaSolves < 2)
  {
    throw InvalidArgument("the maximum number of lambda solves is " + std::to_string(maximumLambdaSolves) +
                          "; it must be >= 2");
  }
  if (automaticLambda && !(tv.gapTolerance > 0.0 && tv.gapCheckInterval > 0))
  {
    throw InvalidArgument("the automatic lambda needs converged solves, but the gap tolerance is " +
                          std::to_string(tv.gapTolerance) + " and the gap check interval " +
                          std::to_string(tv.gapCheckInterval) + "; both must be > 0");
  }
}

double
CalibratedDiscrepancyFactor(double residualGain)
{
  // An empirical fit to the PSNR-best discrepancies (see the header); G > 1 (noise bluer than white) as white.
  const double g = std::min(std::max(residualGain, 1e-6), 1.0);
  return 0.9 * std::pow(g, 0.35);
}

namespace
{

/** sum (u - f)^2 / var / N: scale-free when u, f and var are scaled alike. */
template<typename Real>
double
Discrepancy(const Real * f, const Real * u, const Real * variance, std::size_t n)
{
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double r = static_cast<double>(u[i]) - f[i];
    s += r * r / variance[i];
  }
  return s / static_cast<double>(n);
}

/**
 * The variance to use: `variance` checked (finite, > 0), or, when it is null,
 * estimated from f into `estimated`. Sets varianceEstimated, noise,
 * meanVariance and varianceRange.
 */
template<typename Real, typename Report>
const Real *
ResolveVariance(const Real * f,
                const Real * variance,
                const Grid & grid,
                const NoiseEstimationOptions & noise,
                const ExecutionOptions & execution,
                std::vector<Real> & estimated,
                Report & report)
{
  const std::size_t n = grid.Count();
  if (variance == nullptr)
  {
    estimated = EstimateNoiseVariance(f, grid, noise, execution.parallelFor, &report.noise);
    variance = estimated.data();
    report.varianceEstimated = true;
  }
  else
  {
    RequirePositiveFinite(variance, n, "the noise variance");
  }
  double sum = 0.0, lowest = static_cast<double>(variance[0]), highest = lowest;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double v = static_cast<double>(variance[i]);
    sum += v;
    lowest = std::min(lowest, v);
    highest = std::max(highest, v);
  }
  report.meanVariance = sum / static_cast<double>(n);
  report.varianceRange = highest / lowest;
  return variance;
}

/**
 * w = var^gamma / mean(var^gamma), in the log domain so that no power over- or
 * underflows; empty for gamma = 0 (plain TV). Throws InvalidArgument, naming
 * the weight exponent, when max(w) / min(w) exceeds kMaximumWeightRange.
 */
template<typename Real>
std::vector<Real>
Weights(const Real * variance, std::size_t n, double gamma, double varianceRange)
{
  std::vector<Real> w;
  if (gamma == 0.0)
    return w;
  const double range = std::exp(gamma * std::log(varianceRange));
  if (!(range <= StatisticalTVParameters::kMaximumWeightRange))
  {
    std::ostringstream message;
    message << "the weight exponent " << gamma << " raises the noise variance's range max/min = " << varianceRange
            << " to a weight range of " << range << "; at most " << StatisticalTVParameters::kMaximumWeightRange
            << " is allowed (float solvers): lower the weight exponent below "
            << std::log(StatisticalTVParameters::kMaximumWeightRange) / std::log(varianceRange)
            << " or floor the variance";
    throw InvalidArgument(message.str());
  }
  std::vector<double> logs(n);
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i)
  {
    logs[i] = gamma * std::log(static_cast<double>(variance[i]));
    top = std::max(top, logs[i]);
  }
  double sum = 0.0;
  for (double & l : logs)
  {
    l = std::exp(l - top); // in (0, 1]
    sum += l;
  }
  const double mean = sum / static_cast<double>(n);
  w.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    w[i] = static_cast<Real>(logs[i] / mean);
  return w;
}

/**
 * The discrepancy as lambda -> 0: u tends to the constant minimising the data
 * term, the weighted mean sum(f / w) / sum(1 / w). No lambda reaches a larger one.
 */
template<typename Real>
double
MaximumDiscrepancy(const Real * f, const std::vector<Real> & w, const Real * variance, std::size_t n)
{
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double iw = w.empty() ? 1.0 : 1.0 / static_cast<double>(w[i]);
    num += static_cast<double>(f[i]) * iw;
    den += iw;
  }
  const double c = num / den;
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double r = static_cast<double>(f[i]) - c;
    s += r * r / variance[i];
  }
  return s / static_cast<double>(n);
}

/** The geometric mean of the grid's spacing (the length unit of lambda). */
double
MeanSpacing(const Grid & grid)
{
  double logSum = 0.0;
  for (unsigned d = 0; d < grid.dimension; ++d)
    logSum += std::log(grid.spacing[d]);
  return std::exp(logSum / grid.dimension);
}

} // namespace

template<typename Real>
StatisticalTVReport
DenoiseStatisticalTV(const Real * f,
                     const Real * variance,
                     Real * u,
                     const Grid & grid,
                     const StatisticalTVParameters & parameters,
                     const ExecutionOptions & execution,
                     const ProgressCallback & callback)
{
  grid.Validate();
  parameters.Validate();
  if (f == nullptr || u == nullptr)
  {
    throw InvalidArgument("DenoiseStatisticalTV: the input and output arrays must not be null");
  }
  const std::size_t n = grid.Count();
  RequireFinite(f, n, "the input image");
  StatisticalTVReport report;
  std::vector<Real> estimated;
  variance = ResolveVariance(f, variance, grid, parameters.noise, execution, estimated, report);
  const std::vector<Real> w = Weights(variance, n, parameters.weightExponent, report.varianceRange);
  report.maximumDiscrepancy = MaximumDiscrepancy(f, w, variance, n);

  // The TV driver is scale-covariant (gpurTVDenoiser.h), and the discrepancy
  // sum (u - f)^2 / var / N is scale-free, so the search needs no rescaling.
  // The search's solves are the outer iterations of its progress.
  const ProgressCallback progress =
    parameters.automaticLambda
      ? NestedCallback(
          callback, "lambda solve", [&report] { return report.solves + 1; }, parameters.maximumLambdaSolves)
      : callback;
  auto solve = [&](double lambda, unsigned maxIterations)
  {
    TVParameters tv = parameters.tv;
    tv.lambda = lambda;
    tv.maxIterations = maxIterations;
    report.tv = DenoiseWeightedTV(f, w.empty() ? nullptr : w.data(), u, grid, tv, execution, progress);
    report.lambda = lambda;
    report.discrepancy = Discrepancy(f, u, variance, n);
    report.lambdaHistory.push_back(
      { lambda, report.discrepancy, report.tv.iterations, report.tv.relativeGap, report.tv.converged });
    ++report.solves;
    return report.discrepancy;
  };
  if (!parameters.automaticLambda)
  {
    solve(parameters.tv.lambda, parameters.tv.maxIterations);
    return report;
  }

  double target = parameters.discrepancyFactor;
  if (target == 0.0)
  {
    if (report.varianceEstimated)
    {
      report.residualGain = report.noise.residualGain;
      report.residualGainMeasured = report.noise.gainMeasured;
    }
    else
    {
      NoiseEstimationReport noise;
      EstimateNoiseVariance(f, grid, parameters.noise, execution.parallelFor, &noise);
      report.residualGain = noise.residualGain;
      report.residualGainMeasured = noise.gainMeasured;
    }
    target = CalibratedDiscrepancyFactor(report.residualGain);
  }
  report.discrepancyTarget = target;
  if (!(target < report.maximumDiscrepancy))
  {
    std::ostringstream message;
    message << "automatic lambda: the discrepancy target " << target
            << " (sum (u - f)^2 / var / N) cannot be reached: the largest discrepancy, of the weighted mean as "
               "lambda -> 0, is "
            << report.maximumDiscrepancy << "; reachable targets: (0, " << report.maximumDiscrepancy
            << "); lower the discrepancy factor or check the noise variance";
    throw InvalidArgument(message.str());
  }
  // A solve of the search must converge: its discrepancy is the model's only then. Smaller lambdas
  // (more smoothing) need more iterations, so one that stops at the limit runs again with 4 times the
  // iterations (both are in the history) before the search gives up.
  auto converged = [&](double lambda)
  {
    double value = solve(lambda, parameters.tv.maxIterations);
    if (!report.tv.converged)
    {
      const unsigned more = parameters.tv.maxIterations > std::numeric_limits<unsigned>::max() / 4u
                              ? std::numeric_limits<unsigned>::max()
                              : 4u * parameters.tv.maxIterations;
      value = solve(lambda, more);
    }
    if (!report.tv.converged)
    {
      std::ostringstream message;
      message << "automatic lambda: the solve at lambda " << report.lambda << " stopped after " << report.tv.iterations
              << " iterations at relative gap " << report.tv.relativeGap << " > tolerance "
              << parameters.tv.gapTolerance
              << ", so its discrepancy is not the model's; raise the maximum number of iterations";
      throw Error(message.str());
    }
    return value;
  };
  auto done = [&](double value) { return std::abs(value / target - 1.0) <= parameters.discrepancyTolerance; };

  // The discrepancy falls as lambda grows (more fidelity). Start at 1 / (RMS sigma * spacing),
  // the balance of fidelity and TV for noise of that level; bracket the target by factors of 4,
  // then regula falsi on (log lambda, log r): r is close to a power of lambda there.
  double lambda = 1.0 / (std::sqrt(report.meanVariance) * MeanSpacing(grid));
  double r = converged(lambda);
  double lo = lambda, rlo = r, hi = lambda, rhi = r; // rlo >= target >= rhi once bracketed
  while (!done(r) && report.solves < parameters.maximumLambdaSolves && !(rlo >= target && rhi <= target))
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
  while (!done(r) && report.solves < parameters.maximumLambdaSolves)
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

void
StatisticalTVGDParameters::Validate() const
{
  gd.Validate();
  noise.Validate();
  if (!(discrepancyFactor > 0.0) || !std::isfinite(discrepancyFactor))
  {
    throw InvalidArgument("the discrepancy factor is " + std::to_string(discrepancyFactor) +
                          "; it must be finite and > 0");
  }
  if (stopAtDiscrepancy && gd.targetResidual > 0.0)
  {
    throw InvalidArgument("TV gradient descent: both the discrepancy stop and an explicit target residual (" +
                          std::to_string(gd.targetResidual) + ") are set; choose one");
  }
}

template<typename Real>
StatisticalTVGDReport
DenoiseStatisticalTVGD(const Real * f,
                       const Real * variance,
                       Real * u,
                       const Grid & grid,
                       const StatisticalTVGDParameters & parameters,
                       const ExecutionOptions & execution,
                       const ProgressCallback & callback)
{
  grid.Validate();
  parameters.Validate();
  if (f == nullptr || u == nullptr)
  {
    throw InvalidArgument("DenoiseStatisticalTVGD: the input and output arrays must not be null");
  }
  const std::size_t n = grid.Count();
  RequireFinite(f, n, "the input image");
  StatisticalTVGDReport report;
  std::vector<Real> estimated;
  if (variance != nullptr || parameters.stopAtDiscrepancy)
  {
    variance = ResolveVariance(f, variance, grid, parameters.noise, execution, estimated, report);
  }
  TVGDParameters gd = parameters.gd;
  if (parameters.stopAtDiscrepancy)
  {
    gd.targetResidual = std::sqrt(parameters.discrepancyFactor * report.meanVariance * static_cast<double>(n));
  }
  report.targetResidual = gd.targetResidual;
  report.gd = DenoiseTVGD(f, u, grid, gd, execution, callback);
  if (variance != nullptr)
  {
    report.discrepancy = report.gd.residual * report.gd.residual / (report.meanVariance * static_cast<double>(n));
  }
  return report;
}

#define GPUR_INSTANTIATE_STATISTICAL_TV(Real)                                                                          \
  template StatisticalTVReport DenoiseStatisticalTV(const Real *,                                                      \
                                                    const Real *,                                                      \
                                                    Real *,                                                            \
                                                    const Grid &,                                                      \
                                                    const StatisticalTVParameters &,                                   \
                                                    const ExecutionOptions &,                                          \
                                                    const ProgressCallback &);                                         \
  template StatisticalTVGDReport DenoiseStatisticalTVGD(const Real *,                                                  \
                                                        const Real *,                                                  \
                                                        Real *,                                                        \
                                                        const Grid &,                                                  \
                                                        const StatisticalTVGDParameters &,                             \
                                                        const ExecutionOptions &,                                      \
                                                        const ProgressCallback &);
GPUR_INSTANTIATE_STATISTICAL_TV(float)
GPUR_INSTANTIATE_STATISTICAL_TV(double)
#undef GPUR_INSTANTIATE_STATISTICAL_TV

} // namespace gpur
