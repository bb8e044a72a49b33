// SPDX-License-Identifier: Apache-2.0
#include "gpurTVNoiseLevel.h"

#include "gpurTVDiscrepancy.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cmath>
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
 * The noise sigma of f: sqrt(median(EstimateNoiseVariance)). The median, not the
 * mean, of the variance map: where edges of high contrast leak past the
 * estimator's structure mask (sharp edges of a 2000 HU range under 25 HU of
 * noise), a few windows read many times the noise and dominate the mean (measured
 * on a 48^3 phantom in HU: sqrt(mean) 46.6 HU for 25, sqrt(median) 25.6), while
 * for the smoothly varying noise of CT the median is within a few percent of the
 * RMS (FBP and cone-beam scans in HU: -6 % to +3 % of the true RMS sigma).
 * EstimateNoiseSigma, the robust global estimate, reads CT noise 5-20 % low (it
 * follows the quieter parts). An image whose noise cannot be estimated is
 * refused with the way out.
 */
template<typename Real>
double
EstimateMedianSigma(const Real * f,
                    const Grid & grid,
                    const NoiseEstimationOptions & options,
                    const ExecutionOptions & execution,
                    NoiseEstimationReport & report)
{
  try
  {
    std::vector<Real> variance = EstimateNoiseVariance(f, grid, options, execution.parallelFor, &report);
    auto middle = variance.begin() + static_cast<std::ptrdiff_t>(variance.size() / 2);
    std::nth_element(variance.begin(), middle, variance.end());
    return std::sqrt(static_cast<double>(*middle));
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
    report.sigma = EstimateMedianSigma(f, grid, parameters.noise, execution, report.noise);
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
