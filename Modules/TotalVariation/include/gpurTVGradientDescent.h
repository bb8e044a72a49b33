// SPDX-License-Identifier: Apache-2.0
// Engine of normalised total-variation gradient descent (TV-GD): the "TV part"
// of ASD-POCS [Sidky2008] that [Huang2023, §3.2, Algorithm 2] uses as a fast
// denoiser, and its adaptive-weighted variant (AW-TV [Liu2012]; [Huang2023,
// eq. (3.9)]). Plain arrays in and out.
//
//   u^0 = f;   du^k = grad_u TV(u^k);   u^{k+1} = u^k - lambda du^k / ||du^k||_2
//
// Discretisation (the same in the CPU reference and in kernels/tv_gd.cl):
//   D_d u(n) = (u(n) - u(n - e_d)) / h_d   backward differences divided by the
//              voxel spacing h_d, 0 on the first index of axis d;
//   TV(u)    = sum_n |D u(n)|              isotropic (2D grids: no z term);
//   du(n)    = sum_d (phi_d(n) - phi_d(n + e_d)) / h_d,  phi_d(n + e_d) := 0 past the last index,
//   phi_d    = w_d D_d u / (sqrt(sum_d' w_d' (D_d' u)^2) + eps),   eps = 1e-8.
// du = D^T phi is the chain rule of TV: it is the exact gradient of TV wherever
// |D u| != 0 (up to the relative perturbation eps / |D u|), and 0 where u is
// locally flat. The spacing enters twice: in the differences and, by the chain
// rule, as the 1/h_d factor in front of each flux difference; so an axis with
// larger voxels is smoothed less, and scaling all spacings by s scales du by
// 1/s (which the normalisation removes). Plain TV has w = 1. AW-TV uses
// w_d = exp(-(D_d u / delta)^2) per direction, treated as constants (as in
// TIGRE's aw_gradientTV [Biguri2019]): edges (|D_d u| >> delta) are smoothed less.
//
// The norm: ||du||_2 = sqrt(sum_n du(n)^2) over the whole volume, summed in
// double (on OpenCL devices with fp64 also for float images). Where du = 0
// (a constant image) the run stops: u is a stationary point (TIGRE adds 1e-7 to
// the norm instead, which makes the step depend on the intensity scale).
//
// Intensity scale: the driver runs on f / 2^e with 2^(e-1) < max|f| <= 2^e
// (exact), with lambda, delta and the target residual divided alike, and
// multiplies u back; so eps acts relative to the image's range, and
// (s f, s lambda, s delta) gives s u (bit for bit for powers of two s; for
// others the rounding of s f, which TV-GD amplifies, to about 1e-6 in double).
// A norm that is not finite (a step far beyond the intensities) throws.
//
// Backends: the CPU reference and the OpenCL kernels use the same operations in
// the same order, and the AW-TV weights use an exp built from basic arithmetic
// (not libm's or the device's exp), so on a device that rounds +, *, /, sqrt
// correctly (PoCL) the two backends agree bit for bit. That matters more than
// usual: the normalised flux is near-singular where |D u| is small (and, for
// AW-TV, where the weights suppress the large differences), so TV-GD amplifies
// a one-ulp difference to ~1e-3 within 30 float iterations.
//
// Properties: sum_n du(n) = 0 (so the mean of u is preserved), and every
// iteration moves u by exactly lambda in the global L2 norm. ||u - f||_2 grows
// without bound: TV-GD is semi-convergent (the error to the truth falls to a
// minimum, then rises as u is over-smoothed), so the number of iterations is
// the smoothing strength and lambda the rate.
#ifndef gpurTVGradientDescent_h
#define gpurTVGradientDescent_h

#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurGrid.h"

#include <ostream>
#include <string>

namespace gpur
{

/** Which TV functional the descent follows. */
enum class TVGDVariant
{
  /** Isotropic TV (TV-GD, [Huang2023, eq. (3.8)], whose second term prints d_z u_{i+1,j,k} for d_x u_{i+1,j,k}). */
  TV,
  /** Adaptive-weighted TV (AW-TV / AW-POCS, [Huang2023, eq. (3.9)]), weights exp(-(D_d u / delta)^2). */
  AdaptiveWeightedTV
};

/** How TVGDParameters::lambda is measured. */
enum class TVGDStepUnit
{
  /**
   * lambda is the step in the global L2 norm, ||u^{k+1} - u^k||_2 (the λ of
   * [Huang2023, Algorithm 2] and of TIGRE).
   */
  L2Norm,
  /**
   * lambda is the root-mean-square change per voxel (λ_rms); the L2 step is
   * λ_rms sqrt(N) with N the number of voxels, so one value suits every volume size.
   */
  RMS
};

/** "TV" or "AdaptiveWeightedTV". */
const char *
ToString(TVGDVariant variant);
/** Writes ToString(variant). */
std::ostream &
operator<<(std::ostream & os, TVGDVariant variant);
/** "tv" (or "plain") and "awtv" (or "aw", "adaptive"); throws InvalidArgument otherwise. */
TVGDVariant
ParseTVGDVariant(const std::string & text);

/** "L2Norm" or "RMS". */
const char *
ToString(TVGDStepUnit unit);
/** Writes ToString(unit). */
std::ostream &
operator<<(std::ostream & os, TVGDStepUnit unit);
/** "l2" and "rms"; throws InvalidArgument otherwise. */
TVGDStepUnit
ParseTVGDStepUnit(const std::string & text);

/** Parameters of a TV gradient-descent run. */
struct TVGDParameters
{
  /**
   * Step length, > 0, in the unit of stepUnit. The λ of [Huang2023, Algorithm 2] (global L2 step):
   * λ = 2 gave the lowest error on a 64^3 volume in [0, 1] with noise σ = 0.1 (measured), i.e. λ_rms ≈ 0.004.
   */
  double lambda = 2.0;
  TVGDStepUnit stepUnit = TVGDStepUnit::L2Norm; ///< the unit of lambda
  /** Number of iterations (>= 1); with a target residual, the maximum number. [Huang2023, §6.3.2] uses 50-80. */
  unsigned iterations = 50;
  /**
   * 0 runs all iterations. > 0: stop at the first iteration at which
   * ||u - f||_2 >= targetResidual (the PDU vs TV-GD comparison of [Huang2023, §6.5]:
   * the target is the residual of a converged PDU run). For white noise of
   * standard deviation σ, σ sqrt(N) is the discrepancy-principle target.
   */
  double targetResidual = 0.0;
  TVGDVariant variant = TVGDVariant::TV; ///< plain TV or AW-TV
  /**
   * AW-TV weight scale δ (> 0, +inf allowed: same as plain TV), in the units of
   * the differences D_d u: intensity / length. For intensities in [0, 1] and unit
   * spacing, about the edge contrast that should be preserved. Unused by plain TV.
   */
  double delta = 0.1;

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;

  /** The L2 step length λ for a grid: lambda, or lambda sqrt(N) for the RMS unit. */
  double
  StepLength(const Grid & grid) const;
};

/** What a run did. */
struct TVGDReport
{
  ResolvedBackend backend;    ///< what ran
  unsigned iterations = 0;    ///< iterations done
  double stepLength = 0.0;    ///< the L2 step λ of each iteration
  double residual = 0.0;      ///< ||u - f||_2 at the end (f: the input, also for ContinueTVGD)
  double gradientNorm = 0.0;  ///< ||du||_2 of the last iteration
  bool targetReached = false; ///< targetResidual > 0 and the residual reached it
  bool stationary = false;    ///< stopped because du = 0 (e.g. a constant image): u stays f
  double seconds = 0.0;       ///< wall time of the solve (upload to download)
};

/**
 * Runs TV-GD from u^0 = f and writes the result to u (both grid.Count() values,
 * x fastest); stops after parameters.iterations, at the target residual, or
 * when du = 0 (report.stationary). u is written only when the run succeeds. Throws InvalidArgument
 * for a bad grid, parameters, null arrays or non-finite input (and for double
 * data on an explicitly requested OpenCL device without fp64), Aborted when the
 * callback, called after every iteration with (done, parameters.iterations),
 * returns false, OpenCLError for a device failure.
 */
template<typename Real>
TVGDReport
DenoiseTVGD(const Real * f,
            Real * u,
            const Grid & grid,
            const TVGDParameters & parameters,
            const ExecutionOptions & execution = ExecutionOptions(),
            const ProgressCallback & callback = ProgressCallback());

/**
 * Continues TV-GD from the u given (in place): parameters.iterations more
 * iterations, or until ||u - f||_2 reaches the target. TV-GD has no state but
 * u, so consecutive calls give exactly (bit for bit) the same u as one call over
 * all their iterations. u is updated only when the run succeeds.
 */
template<typename Real>
TVGDReport
ContinueTVGD(const Real * f,
             Real * u,
             const Grid & grid,
             const TVGDParameters & parameters,
             const ExecutionOptions & execution = ExecutionOptions(),
             const ProgressCallback & callback = ProgressCallback());

/** TV(u) = sum_n |D u(n)| of the discretisation above (plain TV, eps = 0), on the CPU in double. */
template<typename Real>
double
TotalVariationBackward(const Real * u, const Grid & grid);

/** The TV gradient du of the discretisation above for the variant and delta of `parameters`, on the CPU. */
template<typename Real>
void
TVGradient(const Real * u, Real * du, const Grid & grid, const TVGDParameters & parameters);

} // namespace gpur

#endif
