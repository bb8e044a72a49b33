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
#include "gpurTVGradientDescent.h"

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

/**
 * TV gradient descent (TV-GD or AW-TV, gpurTVGradientDescent.h) as the second
 * method of statistical TV. TV-GD has no data term and no weights: the noise
 * variance sets where it stops. With stopAtDiscrepancy it iterates until
 * ||u - f||^2 >= discrepancyFactor * sum(var) (the discrepancy principle for
 * the unweighted residual, the counterpart of the primal-dual automatic lambda),
 * at most gd.iterations; gd.targetResidual > 0 is an explicit target instead
 * (the thesis' PDU vs TV-GD comparison, digest 3.4); neither runs gd.iterations.
 */
struct StatisticalTVGDParameters
{
  /** Step, step unit, iterations (the maximum with a target), variant, delta and an explicit target. */
  TVGDParameters gd;
  /** Stop at the discrepancy target; excludes gd.targetResidual > 0. */
  bool stopAtDiscrepancy = false;
  double discrepancyFactor = 1.0; ///< > 0
  /** Options of the variance estimate used when the stop needs a variance and none is given. */
  NoiseEstimationOptions noise;

  void
  Validate() const;
};

struct StatisticalTVGDReport
{
  TVGDReport gd;                  ///< iterations, final ||u - f||, target reached, backend, time
  double targetResidual = 0.0;    ///< the ||u - f|| target used (0: none, all iterations ran)
  bool varianceEstimated = false; ///< the stop needed a variance and none was given
  double meanVariance = 0.0;      ///< mean of the variance (0 when none was given or needed)
  double discrepancy = 0.0;       ///< ||u - f||^2 / sum(var) of the result (0 without a variance)
};

/**
 * Denoises f into u by TV gradient descent. variance: per-voxel noise variance
 * (finite, > 0) or null; it is estimated (EstimateNoiseVariance) only when
 * stopAtDiscrepancy needs it. Throws InvalidArgument, Aborted or OpenCLError as DenoiseTVGD.
 */
template<typename Real>
StatisticalTVGDReport
DenoiseStatisticalTVGD(const Real * f,
                       const Real * variance,
                       Real * u,
                       const Grid & grid,
                       const StatisticalTVGDParameters & parameters,
                       const ExecutionOptions & execution = ExecutionOptions(),
                       const IterationCallback & callback = IterationCallback());

} // namespace gpur

#endif
