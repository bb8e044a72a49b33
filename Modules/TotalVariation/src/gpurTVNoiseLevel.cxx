// SPDX-License-Identifier: Apache-2.0
#include "gpurTVNoiseLevel.h"

#include "gpurTVDiscrepancy.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace gpur
{

double
CalibratedDiscrepancyFactor(double residualGain)
{
  // An empirical fit to the PSNR-best discrepancies (see the header); G > 1 (noise bluer than white) as white.
  const double g = std::min(std::max(residualGain, 1e-6), 1.0);
  return 0.9 * std::pow(g, 0.35);
}

void
TVNoiseLevelParameters::Validate() const
{
  tv.Validate();
  noise.Validate();
  if (!(sigma >= 0.0) || !std::isfinite(sigma))
  {
    throw InvalidArgument("the noise sigma is " + std::to_string(sigma) +
                          "; it must be finite and > 0, or 0 (estimated from the image)");
  }
  ValidateTVDiscrepancySettings(*this);
}

namespace
{

/**
 * The RMS noise sigma of f, sqrt(mean(EstimateNoiseVariance)): the discrepancy
 * sum needs the mean variance where the noise level varies (CT). An image whose
 * noise cannot be estimated is refused with the way out.
 */
template<typename Real>
double
EstimateRMSSigma(const Real * f,
                 const Grid & grid,
                 const NoiseEstimationOptions & options,
                 const ExecutionOptions & execution,
                 NoiseEstimationReport & report)
{
  try
  {
    const std::vector<Real> variance = EstimateNoiseVariance(f, grid, options, execution.parallelFor, &report);
    const double sum = std::accumulate(
      variance.begin(), variance.end(), 0.0, [](double s, Real v) { return s + static_cast<double>(v); });
    return std::sqrt(sum / static_cast<double>(variance.size()));
  }
  catch (const InvalidArgument & e)
  {
    throw InvalidArgument(std::string("TV denoising chooses lambda from the noise level, which could not be "
                                      "estimated from the image (") +
                          e.what() + "); give the noise sigma or a fixed lambda");
  }
}

} // namespace

template<typename Real>
TVNoiseLevelReport
DenoiseTVAtNoiseLevel(const Real * f,
                      Real * u,
                      const Grid & grid,
                      const TVNoiseLevelParameters & parameters,
                      const ExecutionOptions & execution,
                      const ProgressCallback & callback)
{
  ValidateTVFront(f, u, grid, parameters, "TV denoising");
  const std::size_t n = grid.Count();
  TVNoiseLevelReport report;
  report.sigma = parameters.sigma;
  if (parameters.automaticLambda && report.sigma == 0.0)
  {
    // Strictly positive: the estimate floors its map, and refuses an image without measurable noise.
    report.sigma = EstimateRMSSigma(f, grid, parameters.noise, execution, report.noise);
    report.sigmaEstimated = true;
  }
  const double variance = report.sigma * report.sigma;
  VarianceFunction varianceAt;
  if (variance > 0.0)
  {
    varianceAt = [variance](std::size_t) { return variance; };
    report.maximumDiscrepancy = MaximumDiscrepancy(f, static_cast<const Real *>(nullptr), n, varianceAt);
  }
  const DiscrepancySolveFunction solve =
    TVDiscrepancySolve(f, static_cast<const Real *>(nullptr), u, grid, parameters.tv, execution, varianceAt, report.tv);
  SolveAtTVLambda(solve,
                  f,
                  grid,
                  parameters,
                  execution,
                  report.sigmaEstimated ? &report.noise : nullptr,
                  report.sigma,
                  callback,
                  report);
  return report;
}

#define GPUR_INSTANTIATE_TV_NOISE_LEVEL(Real)                                                                          \
  template TVNoiseLevelReport DenoiseTVAtNoiseLevel(const Real *,                                                      \
                                                    Real *,                                                            \
                                                    const Grid &,                                                      \
                                                    const TVNoiseLevelParameters &,                                    \
                                                    const ExecutionOptions &,                                          \
                                                    const ProgressCallback &);
GPUR_INSTANTIATE_TV_NOISE_LEVEL(float)
GPUR_INSTANTIATE_TV_NOISE_LEVEL(double)
#undef GPUR_INSTANTIATE_TV_NOISE_LEVEL

} // namespace gpur
