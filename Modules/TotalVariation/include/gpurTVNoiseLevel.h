// SPDX-License-Identifier: Apache-2.0
// Plain TV (ROF) denoising at a noise level: lambda chosen by the discrepancy
// principle [Morozov1966] from the noise sigma, known or estimated from the
// image, so that the same call denoises [0, 1] images with unit spacing and CT
// volumes in HU at 0.7 mm alike.
//
//   min_u  (lambda/2) ||u - f||^2 + TV(u),   lambda such that  mean (u - f)^2 = F sigma^2
//
// lambda has units 1 / (intensity * length): the dimensionless weight is
// lambda sigma h (the scaling law of gpurDiscrepancyPrinciple.h), so the
// lambda that suits sigma 0.1 on [0, 1] data at unit spacing (about 10) is
// 10 * 0.1 / (25 HU * 0.7 mm) = 0.057 for sigma 25 HU at 0.7 mm.
#ifndef gpurTVNoiseLevel_h
#define gpurTVNoiseLevel_h

#include "gpurDiscrepancyPrinciple.h"
#include "gpurNoiseEstimation.h"
#include "gpurTVDenoiser.h"

#include <vector>

namespace gpur
{

/**
 * The discrepancy factor of the automatic lambda of TV for noise whose high-pass
 * residual has gain G (NoiseEstimationReport::residualGain; 1 for white noise):
 * 0.9 min(G, 1)^0.35.
 *
 * Why not 1: the discrepancy principle over-smooths TV. At the lambda of the
 * best PSNR the residual is smaller than the noise, because TV leaves in u the
 * noise it cannot tell from structure, its low-frequency part; how much depends
 * on where the noise's power lies, which G measures (the high-pass's share of
 * it against white noise). Measured discrepancies at the PSNR-best lambda:
 * 0.87-0.92 for white noise (machined part and Shepp-Logan, 64^3), 0.68-0.77
 * for Ram-Lak FBP with the variance weights (G 0.4-0.5; 64^3 and 96^3, 2000 to
 * 20000 photons), 0.13-0.27 for a Hann window (G 0.05). With this factor the
 * automatic lambda's PSNR is within 0.015 dB of the best lambda's on those
 * scans with the variance weights (given or estimated variance), within
 * 0.06 dB without weights and for white noise; with factor 1 it lost 0.05-1.1 dB
 * (the numbers: docs/statistical-tv.md).
 */
double
CalibratedDiscrepancyFactor(double residualGain);

/** Parameters of DenoiseTVAtNoiseLevel. */
struct TVNoiseLevelParameters
{
  /**
   * Algorithm, iteration budget and gap tolerance of every solve; tv.lambda is
   * the fixed lambda when automaticLambda is false (and not used otherwise).
   */
  TVParameters tv;
  /**
   * Choose lambda by the discrepancy principle (the default): mean (u - f)^2 =
   * F sigma^2 on converged solves (usually 3-7; gpur::SearchDiscrepancyLambda).
   * false: solve once at tv.lambda, as DenoiseTV.
   */
  bool automaticLambda = true;
  /**
   * The noise standard deviation in the image's intensity units, >= 0. 0 (the
   * default): estimated from the image as sqrt(median(EstimateNoiseVariance)):
   * robust to the structure a high-contrast image leaks into the map, and within
   * a few percent of the RMS sigma for the smoothly varying noise of CT (see
   * gpurTVNoiseLevel.cxx for the measurements). Where the noise level varies
   * strongly between regions, statistical TV (gpurStatisticalTV.h) is the model.
   * With a fixed lambda, a sigma > 0 only gives the report's discrepancy, and
   * none is estimated.
   */
  double sigma = 0.0;
  /**
   * F > 0: the target of mean (u - f)^2 / sigma^2. 0 (default): calibrated from
   * the noise's spectrum, CalibratedDiscrepancyFactor(G) with G the residual gain
   * the noise estimate measures on the image (one estimate more when sigma is given).
   */
  double discrepancyFactor = 0.0;
  /** Relative tolerance of the discrepancy match, in (0, 0.5]. */
  double discrepancyTolerance = 0.02;
  unsigned maximumLambdaSolves = 16; ///< >= 2
  /** Options of the noise estimate (sigma and the residual gain). */
  NoiseEstimationOptions noise;

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;
};

/** What DenoiseTVAtNoiseLevel did. */
struct TVNoiseLevelReport
{
  TVReport tv;                 ///< the last solve (the result's): iterations, gap, converged, backend, warnings
  double lambda = 0.0;         ///< the lambda of the result
  double sigma = 0.0;          ///< the noise sigma used (0: none given with a fixed lambda)
  bool sigmaEstimated = false; ///< sigma was estimated from the image
  NoiseEstimationReport noise; ///< how (when sigmaEstimated)
  /** mean (u - f)^2 / sigma^2 of the result (0 without a sigma). */
  double discrepancy = 0.0;
  double discrepancyTarget = 0.0; ///< the factor the automatic lambda met (0 with a fixed lambda)
  /** The residual gain G behind a calibrated factor (1 when not measured or not needed). */
  double residualGain = 1.0;
  bool residualGainMeasured = false; ///< G was measured on the image (else white noise's 1 was assumed)
  /** mean (f - mean f)^2 / sigma^2, the discrepancy as lambda -> 0: targets must stay below (0 without a sigma). */
  double maximumDiscrepancy = 0.0;
  unsigned solves = 0;                         ///< TV solves run (1 with a fixed lambda)
  std::vector<DiscrepancySolve> lambdaHistory; ///< every solve, in order
};

/**
 * Denoises f into u (grid.Count() values each, x fastest) by ROF, with lambda
 * chosen by the discrepancy principle for the noise sigma (given, or estimated
 * from f) or fixed. The callback sees one progress range over all solves.
 *
 * Scale-free: the TV solves are scale-covariant (gpurTVDenoiser.h), sigma and
 * its estimate scale with the data and the discrepancy is a ratio, so
 * f -> s f gives u -> s u, lambda -> lambda / s, sigma -> s sigma to
 * rounding (bit for bit for powers of two), and spacing h -> a h gives the same
 * u with lambda -> lambda / a: lambda sigma h is what the data decide.
 *
 * Memory besides DenoiseTV's: the noise estimate's (about 25 bytes per voxel,
 * freed before the solves) when sigma is estimated or the factor calibrated.
 *
 * Throws InvalidArgument for bad input or parameters, for an image whose noise
 * cannot be estimated (fewer than 3 voxels along an axis, or no measurable
 * noise such as a constant image: give sigma or a fixed lambda) and for a
 * target no lambda reaches; Error when a solve of the search does not converge
 * with 4 times the iteration budget or the search misses the target in
 * maximumLambdaSolves solves; Aborted or OpenCLError as DenoiseTV.
 */
template<typename Real>
TVNoiseLevelReport
DenoiseTVAtNoiseLevel(const Real * f,
                      Real * u,
                      const Grid & grid,
                      const TVNoiseLevelParameters & parameters,
                      const ExecutionOptions & execution = ExecutionOptions(),
                      const ProgressCallback & callback = ProgressCallback());

} // namespace gpur

#endif
