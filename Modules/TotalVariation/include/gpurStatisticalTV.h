// Engine of statistical TV denoising for CT (seed 001): the noise-weighted ROF
// model with a per-voxel noise variance (given, or estimated from the image),
// a weight exponent, and lambda chosen by the discrepancy principle on request.
//
//   min_u  (lambda/2) sum_i (u_i - f_i)^2 / w_i + TV(u),
//   w_i = var_i^gamma / mean(var^gamma)          (gamma = weightExponent)
//
// Normalising w by its mean keeps lambda in the range of plain TV (digest 1.4);
// gamma = 1 is the thesis' model (w = the variance), gamma = 0.5 weights by the
// standard deviation, which the digest's check found better for the MSE.
#ifndef gpurStatisticalTV_h
#define gpurStatisticalTV_h

#include "gpurNoiseEstimation.h"
#include "gpurTVDenoiser.h"

namespace gpur
{

struct StatisticalTVParameters
{
  /** lambda, algorithm (PDU is the thesis' S-PDU), iterations and gap tolerance of every solve. */
  TVParameters tv;
  /** gamma of w = var^gamma (normalised); 0 gives plain TV. Finite, >= 0. */
  double weightExponent = 1.0;
  /**
   * Choose lambda so that sum (u - f)^2 / var = discrepancyFactor * N (Morozov's
   * discrepancy principle: the residual looks like the noise). tv.lambda is the
   * first guess. Costs several solves (usually 4-8).
   */
  bool automaticLambda = false;
  double discrepancyFactor = 1.0; ///< > 0
  /** Relative tolerance of the discrepancy match, in (0, 0.5]. */
  double discrepancyTolerance = 0.02;
  unsigned maximumLambdaSolves = 16; ///< >= 2
  /** Options of the variance estimate used when no variance is given. */
  NoiseEstimationOptions noise;

  void
  Validate() const;
};

struct StatisticalTVReport
{
  TVReport tv;                                          ///< the last solve
  double lambda = 0.0;                                  ///< the lambda of the result
  bool varianceEstimated = false;                       ///< no variance was given: estimated from the image
  double meanVariance = 0.0;                            ///< mean of the variance used
  double discrepancy = 0.0;                             ///< sum (u - f)^2 / var / N of the result
  unsigned solves = 0;                                  ///< TV solves run (1 without automaticLambda)
  std::vector<std::pair<double, double>> lambdaHistory; ///< (lambda, discrepancy) of every solve
};

/**
 * Denoises f into u. variance: per-voxel noise variance (finite, > 0), or null
 * to estimate it with EstimateNoiseVariance. The callback sees each solve's
 * iterations (it restarts for every lambda of the automatic search).
 * Throws InvalidArgument, Aborted or OpenCLError as DenoiseTV.
 */
template<typename Real>
StatisticalTVReport
DenoiseStatisticalTV(const Real * f,
                     const Real * variance,
                     Real * u,
                     const Grid & grid,
                     const StatisticalTVParameters & parameters,
                     const ExecutionOptions & execution = ExecutionOptions(),
                     const IterationCallback & callback = IterationCallback());

} // namespace gpur

#endif
