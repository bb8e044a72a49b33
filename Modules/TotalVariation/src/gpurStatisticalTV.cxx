#include "gpurStatisticalTV.h"

#include "gpurValidate.h"

#include <cmath>
#include <string>
#include <vector>

namespace gpur
{

void
StatisticalTVParameters::Validate() const
{
  tv.Validate();
  noise.Validate();
  if (!(weightExponent >= 0.0) || !std::isfinite(weightExponent))
  {
    throw InvalidArgument("the weight exponent is " + std::to_string(weightExponent) + "; it must be finite and >= 0");
  }
  if (!(discrepancyFactor > 0.0) || !std::isfinite(discrepancyFactor))
  {
    throw InvalidArgument("the discrepancy factor is " + std::to_string(discrepancyFactor) +
                          "; it must be finite and > 0");
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
}

namespace
{

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
 * estimated from f into `estimated`. Sets varianceEstimated and meanVariance.
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
    estimated = EstimateNoiseVariance(f, grid, noise, execution.parallelFor);
    variance = estimated.data();
    report.varianceEstimated = true;
  }
  else
  {
    RequirePositiveFinite(variance, n, "the noise variance");
  }
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    sum += variance[i];
  report.meanVariance = sum / static_cast<double>(n);
  return variance;
}

/** w = var^gamma / mean(var^gamma); empty for gamma = 0 (plain TV). */
template<typename Real>
std::vector<Real>
Weights(const Real * variance, std::size_t n, double gamma)
{
  std::vector<Real> w;
  if (gamma == 0.0)
    return w;
  w.resize(n);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double v = std::pow(static_cast<double>(variance[i]), gamma);
    w[i] = static_cast<Real>(v);
    sum += v;
  }
  const double mean = sum / static_cast<double>(n);
  for (Real & x : w)
    x = static_cast<Real>(x / mean);
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
                     const IterationCallback & callback)
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
  const std::vector<Real> w = Weights(variance, n, parameters.weightExponent);

  // One solve at lambda into u; returns its discrepancy.
  auto solve = [&](double lambda)
  {
    TVParameters tv = parameters.tv;
    tv.lambda = lambda;
    report.tv = DenoiseWeightedTV(f, w.empty() ? nullptr : w.data(), u, grid, tv, execution, callback);
    report.lambda = lambda;
    report.discrepancy = Discrepancy(f, u, variance, n);
    report.lambdaHistory.emplace_back(lambda, report.discrepancy);
    ++report.solves;
    return report.discrepancy;
  };

  double lambda = parameters.tv.lambda;
  double r = solve(lambda);
  if (!parameters.automaticLambda)
    return report;

  // The discrepancy falls as lambda grows (more fidelity). Bracket the target by
  // factors of 4, then regula falsi on (log lambda, log r): r is close to a
  // power of lambda, so this converges in a few solves.
  const double target = parameters.discrepancyFactor;
  auto done = [&](double value) { return std::abs(value / target - 1.0) <= parameters.discrepancyTolerance; };
  double lo = lambda, rlo = r, hi = lambda, rhi = r; // rlo >= target >= rhi once bracketed
  while (!done(r) && report.solves < parameters.maximumLambdaSolves && !(rlo >= target && rhi <= target))
  {
    if (r > target)
    {
      lo = lambda;
      rlo = r;
      lambda *= 4.0;
      r = solve(lambda);
      hi = lambda;
      rhi = r;
    }
    else
    {
      hi = lambda;
      rhi = r;
      lambda /= 4.0;
      r = solve(lambda);
      lo = lambda;
      rlo = r;
    }
  }
  while (!done(r) && report.solves < parameters.maximumLambdaSolves)
  {
    const double t = (std::log(target) - std::log(rlo)) / (std::log(rhi) - std::log(rlo));
    const double next = std::exp(std::log(lo) + std::min(0.9, std::max(0.1, t)) * (std::log(hi) - std::log(lo)));
    r = solve(next);
    lambda = next;
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
    throw Error("automatic lambda: the discrepancy principle did not converge in " + std::to_string(report.solves) +
                " solves (last lambda " + std::to_string(lambda) + ", discrepancy " + std::to_string(r) + ", target " +
                std::to_string(target) + "); raise the iterations or set lambda by hand");
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
                       const IterationCallback & callback)
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
                                                    const IterationCallback &);                                        \
  template StatisticalTVGDReport DenoiseStatisticalTVGD(const Real *,                                                  \
                                                        const Real *,                                                  \
                                                        Real *,                                                        \
                                                        const Grid &,                                                  \
                                                        const StatisticalTVGDParameters &,                             \
                                                        const ExecutionOptions &,                                      \
                                                        const IterationCallback &);
GPUR_INSTANTIATE_STATISTICAL_TV(float)
GPUR_INSTANTIATE_STATISTICAL_TV(double)
#undef GPUR_INSTANTIATE_STATISTICAL_TV

} // namespace gpur
