// SPDX-License-Identifier: Apache-2.0
// Engine of statistical TV denoising for CT [Huang2023]: the
// noise-weighted ROF model with a per-voxel noise variance (given, or estimated
// from the image), a weight exponent, and lambda chosen by the discrepancy
// principle [Morozov1966] on request.
//
//   min_u  (lambda/2) sum_i (u_i - f_i)^2 / w_i + TV(u),
//   w_i = var_i^gamma / mean(var^gamma)          (gamma = weightExponent)
//
// gamma = 1 is the model of [Huang2023, eq. (2.5)] (w = the variance, the weighted
// least squares of Gaussian noise [Sawatzky2014]); gamma = 0.5 weights by the standard
// deviation; gamma = 0 is plain ROF. Normalising w by its mean keeps
// lambda in the range of plain TV.
#ifndef gpurStatisticalTV_h
#define gpurStatisticalTV_h

#include "gpurNoiseEstimation.h"
#include "gpurTVDenoiser.h"
#include "gpurTVGradientDescent.h"
#include "gpurTVNoiseLevel.h"

namespace gpur
{

/** Parameters of a statistical TV run (DenoiseStatisticalTV). */
struct StatisticalTVParameters
{
  /**
   * lambda, algorithm, iterations and gap tolerance of every solve. The default
   * algorithm is the accelerated Chambolle-Pock method, which meets the gap
   * tolerance 1e-4 in 90-200 iterations on CT volumes where PDU [Huang2023, Algorithm 1] is
   * still at 2e-4 to 5e-4 after 500 (measured on a 96^3 scan, lambda 45-70).
   * With automaticLambda, tv.lambda is not used (the search starts from the data).
   */
  TVParameters tv;
  /** gamma of w = var^gamma (normalised); 0 gives plain TV. In [0, kMaximumWeightExponent]. */
  double weightExponent = 1.0;
  /**
   * Choose lambda so that sum (u - f)^2 / var = discrepancyFactor * N (Morozov's
   * discrepancy principle: the residual looks like the noise). Costs several
   * solves (usually 1-8), each of which must converge (tv.gapTolerance > 0).
   */
  bool automaticLambda = false;
  /**
   * > 0: the target of sum (u - f)^2 / var / N. 0 (default): calibrated from
   * the noise's spectrum, CalibratedDiscrepancyFactor(G) with G the residual
   * gain that EstimateNoiseVariance measures on the image.
   */
  double discrepancyFactor = 0.0;
  /** Relative tolerance of the discrepancy match, in (0, 0.5]. */
  double discrepancyTolerance = 0.02;
  unsigned maximumLambdaSolves = 16; ///< >= 2
  /** Options of the variance estimate used when no variance is given. */
  NoiseEstimationOptions noise;

  /**
   * The largest weight exponent: 2 already makes the weights span the square of
   * the variance's range (a CT volume's variance spans 5-20x, so 25-400x); beyond,
   * the quietest voxels' fidelity swamps the model, and the weights' range
   * leaves float precision for ordinary variance ranges.
   */
  static constexpr double kMaximumWeightExponent = 2.0;
  /** The largest range max(w) / min(w) of the weights (the solvers work in float). */
  static constexpr double kMaximumWeightRange = 1e6;

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;
};

/** One TV solve of a run: its lambda, the discrepancy of its result, and how it converged. */
using StatisticalTVSolve = DiscrepancySolve;

/** What a statistical TV run did. */
struct StatisticalTVReport
{
  TVReport tv;                    ///< the last solve (the result's)
  double lambda = 0.0;            ///< the lambda of the result
  bool varianceEstimated = false; ///< no variance was given: estimated from the image
  NoiseEstimationReport noise;    ///< how it was estimated (when varianceEstimated)
  double meanVariance = 0.0;      ///< mean of the variance used
  /** max(var) / min(var) of the variance used: how much the weights can help (see docs/statistical-tv.md). */
  double varianceRange = 0.0;
  double discrepancy = 0.0;       ///< sum (u - f)^2 / var / N of the result
  double discrepancyTarget = 0.0; ///< the discrepancy factor the automatic lambda met (0 without automatic lambda)
  /** The residual gain G behind a calibrated factor (1 when G could not be measured or was not needed). */
  double residualGain = 1.0;
  bool residualGainMeasured = false;             ///< G was measured (enough flat regions); else white noise is assumed
  double maximumDiscrepancy = 0.0;               ///< that of lambda -> 0 (the weighted mean): targets must stay below
  unsigned solves = 0;                           ///< TV solves run (1 without automaticLambda)
  std::vector<StatisticalTVSolve> lambdaHistory; ///< every solve, in order
};

/**
 * Denoises f into u. variance: per-voxel noise variance (finite, > 0), or null
 * to estimate it with EstimateNoiseVariance. The callback sees one progress
 * range over the solves of the automatic search.
 *
 * Scale covariance: the TV solves are scale-covariant (gpurTVDenoiser.h) and
 * the discrepancy sum (u - f)^2 / var is scale-free, so f -> c f,
 * var -> c^2 var gives u -> c u and lambda -> lambda / c, to rounding (bit for
 * bit for powers of two), over the whole float range.
 *
 * The automatic lambda solves sum (u - f)^2 / var = discrepancyFactor * N for
 * lambda on converged solves (the factor calibrated when it is 0, which
 * costs one run of EstimateNoiseVariance when the variance is given) by the
 * search that plain TV shares, gpur::SearchDiscrepancyLambda: it starts at
 * NoiseBalancedLambda(RMS sigma), 1 / (RMS sigma * mean spacing), brackets the
 * target by factors of 4 and narrows it by regula falsi on (log lambda, log
 * discrepancy); a solve that stops at tv.maxIterations runs again with 4 times as many.
 *
 * Memory besides the solver's: the weights (one volume), and the estimated
 * variance when none is given.
 *
 * Throws InvalidArgument for bad input or parameters, for a discrepancy target
 * that no lambda reaches (at or above maximumDiscrepancy: the message gives the
 * reachable range) and for weights beyond kMaximumWeightRange; Error when a
 * solve of the search does not converge or the search does not meet the
 * target in maximumLambdaSolves solves; Aborted or OpenCLError as DenoiseTV.
 */
template<typename Real>
StatisticalTVReport
DenoiseStatisticalTV(const Real * f,
                     const Real * variance,
                     Real * u,
                     const Grid & grid,
                     const StatisticalTVParameters & parameters,
                     const ExecutionOptions & execution = ExecutionOptions(),
                     const ProgressCallback & callback = ProgressCallback());

/**
 * TV gradient descent (TV-GD or AW-TV, gpurTVGradientDescent.h) as the second
 * method of statistical TV. TV-GD has no data term and no weights: the noise
 * variance sets where it stops. With stopAtDiscrepancy it iterates until
 * ||u - f||^2 >= discrepancyFactor * sum(var) (the discrepancy principle for
 * the unweighted residual, the counterpart of the primal-dual automatic lambda),
 * at most gd.iterations; gd.targetResidual > 0 is an explicit target instead
 * (the comparison of PDU and TV-GD at equal residual of [Huang2023, §6.5]);
 * neither runs gd.iterations.
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

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;
};

/** What a statistical TV gradient-descent run did (DenoiseStatisticalTVGD). */
struct StatisticalTVGDReport
{
  TVGDReport gd;                  ///< iterations, final ||u - f||, target reached, backend, time
  double targetResidual = 0.0;    ///< the ||u - f|| target used (0: none, all iterations ran)
  bool varianceEstimated = false; ///< the stop needed a variance and none was given
  NoiseEstimationReport noise;    ///< how it was estimated (when varianceEstimated)
  double meanVariance = 0.0;      ///< mean of the variance (0 when none was given or needed)
  double varianceRange = 0.0;     ///< max(var) / min(var) (0 when none was given or needed)
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
                       const ProgressCallback & callback = ProgressCallback());

} // namespace gpur

#endif
