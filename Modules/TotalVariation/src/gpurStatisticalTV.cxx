// SPDX-License-Identifier: Apache-2.0
#include "gpurStatisticalTV.h"

#include "gpurTVDiscrepancy.h"
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
  ValidateTVDiscrepancySettings(*this);
}

namespace
{

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
  ValidateTVFront(f, u, grid, parameters, "DenoiseStatisticalTV");
  const std::size_t n = grid.Count();
  StatisticalTVReport report;
  std::vector<Real> estimated;
  variance = ResolveVariance(f, variance, grid, parameters.noise, execution, estimated, report);
  const std::vector<Real> w = Weights(variance, n, parameters.weightExponent, report.varianceRange);
  const VarianceFunction varianceAt = [variance](std::size_t i) { return static_cast<double>(variance[i]); };
  const Real * weight = w.empty() ? nullptr : w.data();
  report.maximumDiscrepancy = MaximumDiscrepancy(f, weight, n, varianceAt);

  // The TV driver is scale-covariant (gpurTVDenoiser.h), and the discrepancy
  // sum (u - f)^2 / var / N is scale-free, so the search needs no rescaling.
  const DiscrepancySolveFunction solve =
    TVDiscrepancySolve(f, weight, u, grid, parameters.tv, execution, varianceAt, report.tv);
  // The search starts at 1 / (RMS sigma * spacing), the balance of fidelity and TV for noise of that level.
  SolveAtTVLambda(solve,
                  f,
                  grid,
                  parameters,
                  execution,
                  report.varianceEstimated ? &report.noise : nullptr,
                  std::sqrt(report.meanVariance),
                  callback,
                  report);
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
