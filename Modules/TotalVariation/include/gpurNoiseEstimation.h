// SPDX-License-Identifier: Apache-2.0
// Noise level of an image estimated from the image itself: a per-voxel noise
// variance map (the weights w of the statistical ROF model when no variance
// volume is given) and a single robust noise sigma (for the discrepancy principle).
#ifndef gpurNoiseEstimation_h
#define gpurNoiseEstimation_h

#include "gpurGrid.h"
#include "gpurParallel.h"

#include <vector>

namespace gpur
{

/** What the noise estimation assumes about the noise power spectrum. */
enum class NoiseSpectrum
{
  /**
   * Measured on the image (the default): the residual's noise gain is measured
   * in flat tiles (step 4 below), so the estimate is right for spatially
   * correlated noise (CT reconstructions: filtered back-projection, FDK) as for
   * white noise.
   */
  Measured,
  /** White (uncorrelated) noise: the residual's gain is 1 by construction; no measurement. */
  White
};

/**
 * Parameters of EstimateNoiseVariance and EstimateNoiseSigma. All lengths are
 * in voxels: a noise variance is a per-voxel property of the intensities, so
 * the physical spacing of the grid is ignored (anisotropic voxels change
 * nothing in the estimate).
 *
 * The estimator, in five steps (the defaults were tuned on a 64^3 Shepp-Logan
 * phantom and on flat images with white Gaussian noise, and on simulated CT
 * scans of a machined part, see test/gpurNoiseEstimationTest.cxx):
 *
 * 1. High-pass residual ([Immerkaer1996], extended to 3D). r = (M * f) / sqrt(6^D)
 *    with M = [1 -2 1] (x) [1 -2 1] (x) [1 -2 1] (3D; the 3x3 mask in 2D), the
 *    tensor product of second differences along every axis. Its squared
 *    coefficients sum to 6^D, so for white noise of variance s^2 the residual
 *    has variance exactly s^2 (the "known noise gain"), whatever the image
 *    content that M cancels: every function that is constant or linear along
 *    at least one axis (constants, ramps, any quadratic, axis-aligned steps,
 *    also when the reconstruction blurs them).
 *    Voxels on the image border use the residual of the nearest interior voxel.
 *
 * 2. Structure mask. Oblique or curved edges still leak into r, over the 3^D
 *    footprint of M, and would inflate a local variance (a thin bright shell
 *    such as a skull or a CT part's wall raises it tenfold). A voxel is
 *    flagged as structure when the gradient of the image smoothed by a
 *    Gaussian (edgeSmoothingSigma) exceeds edgeThreshold standard deviations
 *    of what noise alone gives there: |grad(G * f)|^2 > k^2 g^2 v(x), with v
 *    the current local variance estimate of r and g^2 the noise variance of a
 *    smoothed-gradient component per unit variance of r. For white noise g^2
 *    is the exact gain of the discrete smoothed central difference; with
 *    NoiseSpectrum::Measured it is measured as the ratio of the medians of
 *    |grad(G * f)|^2 / D and r^2 over the image (each divided by the median of
 *    its chi-square law), because the two filters see different parts of a
 *    coloured spectrum (a ramp-filtered reconstruction has 3-20 times less
 *    power in r than white noise of the same variance). Noise alone crosses
 *    k = 4 at about 0.1 % of the voxels (chi-square with D degrees of freedom).
 *    The flags are dilated by one voxel (the footprint of M). Smoothing and
 *    the residual see different frequency bands, so the mask hardly biases
 *    the variance of the residuals it keeps.
 *
 * 3. Robust local variance of r. v(x) = mean of r^2 over the unflagged voxels of
 *    the (2R + 1)^D box around x (clipped to the image) whose |r| is at most
 *    outlierClip * sqrt(v_previous(x)), divided by the variance of a unit
 *    normal truncated at +-outlierClip (0.973 for 3), so that it stays
 *    unbiased for Gaussian noise (r is Gaussian whatever the spectrum). The box sums are running sums, O(1) per
 *    voxel whatever R. The first pass (no mask yet) uses every residual; the
 *    mask and the clipping are then refined `iterations` times with the new
 *    estimate, so the edge threshold follows the local noise level (a
 *    spatially varying sigma). Where fewer than 5 % of a window's voxels
 *    qualify, the previous estimate is kept. A box rather than a Gaussian
 *    window: its support is bounded, so a jump of the noise level reaches at
 *    most R + 1 voxels into the quieter side (a Gaussian's tail carries a
 *    strong jump much farther).
 *
 * 4. Noise gain (NoiseSpectrum::Measured). v estimates E[r^2] = G s^2 with G
 *    the residual's gain for the noise's spectrum: 1 for white noise, 0.35 to
 *    0.55 for a Ram-Lak filtered back-projection or FDK, about 0.05 with a Hann
 *    window. G is measured in flat tiles of (2 calibrationRadius + 1)^D voxels
 *    without structure voxels, where a plane fit's residual variance is the
 *    noise variance, and interpolated between the tiles (ResidualGain in
 *    src/gpurNoiseGainCalibration.h); the map is v / G. Fewer than 16 flat
 *    tiles (a small or busy image): G = 1, reported as not measured.
 *
 * 5. Floor: v = max(v, floorFraction * median(v)), so the map is strictly
 *    positive (for the weights 1/w of the statistical ROF model).
 *
 * Accuracy. The window radius R trades spatial resolution for precision: the
 * residuals of neighbouring voxels are correlated (sum of squared
 * correlations 1.94 per axis), so a (2R + 1)^D window holds about
 * (2R + 1)^D / 1.94^D independent samples. The automatic R (6 in 3D, 16 in 2D)
 * gives about 300 of them, a relative standard deviation of the variance of
 * about sqrt(2/300) ~ 8 %. In the tests (64^3 and 256^2 Shepp-Logan, sigma
 * 0.03 to 0.12) the median voxel-wise relative error of the variance is 5-15 %
 * and the mean over a region is within 10 % of the true mean variance, on the
 * phantom's edge voxels as well as elsewhere. On simulated CT scans of a
 * machined part (64^3, parallel-beam FBP with Ram-Lak and Hann filters) the
 * mean over the volume is within 7 % of the analytic FBP variance and the
 * median voxel-wise error 9-16 %; with cone-beam FDK -5 to -12 % and 18-23 %:
 * the residual's gain varies with the noise's local anisotropy (30 % lower
 * inside the part, whose long axis-aligned paths dominate its noise), which the
 * tiles follow only where flat tiles lie near. Where the
 * noise level jumps, the map is spread over R + 1 voxels either side of the
 * jump; near the image border the window is one-sided, which biases the map
 * where the noise level has a gradient there.
 *
 * Limitations. Deterministic high-frequency content that the mask does not
 * catch counts as noise: a reconstruction's own aliasing streaks (measured:
 * +14 % over the noise variance on a 96^3 scan with 151 views at 10^4 photons;
 * negligible at 2000 photons). Fine texture that covers whole windows is
 * flagged as structure and then keeps the first-pass (unmasked, inflated)
 * estimate. Noise that is not Gaussian only affects the clipping correction
 * and the medians of step 2.
 */
struct NoiseEstimationOptions
{
  /** Half-width R of the box window in voxels; 0 chooses it: 6 for a 3D grid, 16 for a 2D grid. At most 4096. */
  unsigned windowRadius = 0;
  /** Standard deviation, in voxels, of the Gaussian smoothing before the edge gradient ([0.5, 10]). */
  double edgeSmoothingSigma = 1.0;
  /** k: a voxel is structure when its smoothed gradient exceeds k noise standard deviations (> 0). */
  double edgeThreshold = 4.0;
  /** Residuals beyond outlierClip local standard deviations are discarded ([1.5, 100]). */
  double outlierClip = 3.0;
  /** Refinements of the structure mask and the clipping after the first pass ([1, 100]). */
  unsigned iterations = 3;
  /** The map's floor as a fraction of its median ((0, 1]). */
  double floorFraction = 1e-3;
  /** Measured (default): correct for correlated noise; White: assume white noise. */
  NoiseSpectrum spectrum = NoiseSpectrum::Measured;
  /** Half-width of the gain calibration's tiles in voxels; 0 chooses it: 3 in 3D, 6 in 2D. At most 64. */
  unsigned calibrationRadius = 0;

  /** Throws InvalidArgument naming the bad field and its allowed range. */
  void
  Validate() const;

  /** The window radius used on a grid of this dimension (windowRadius, or the automatic one). */
  unsigned
  WindowRadius(unsigned dimension) const;
  /** The calibration tiles' half-width on a grid of this dimension. */
  unsigned
  CalibrationRadius(unsigned dimension) const;
};

/** How an estimate was made (optional output of EstimateNoiseVariance and EstimateNoiseSigma). */
struct NoiseEstimationReport
{
  /** The residual's noise gain G over the whole image (1 for White or when not measured). */
  double residualGain = 1.0;
  /** G was measured (NoiseSpectrum::Measured with at least 16 flat tiles). */
  bool gainMeasured = false;
  std::size_t tiles = 0;     ///< calibration tiles in the image
  std::size_t flatTiles = 0; ///< of them without structure voxels
  /** g^2 of the structure mask: a smoothed-gradient component's noise variance per unit variance of r. */
  double maskGain = 0.0;
};

/**
 * The noise-normalised high-pass residual of step 1 above, one value per
 * voxel: for white noise of variance s^2 its variance is s^2; it is 0 on
 * every image that is linear (or constant) along at least one axis.
 * Throws InvalidArgument for a null pointer, an invalid grid, a grid with
 * fewer than 3 voxels along one of its axes, or a NaN/Inf value.
 */
template<typename Real>
std::vector<Real>
NoiseResidual(const Real * f, const Grid & grid, const ParallelForFunction & parallelFor = {});

/**
 * A per-voxel estimate of the noise variance of f (same layout as f, strictly
 * positive), by the estimator described at NoiseEstimationOptions. Runs on the
 * CPU with `parallelFor` (default: the thread pool on every core); the result does
 * not depend on the number of threads. Memory: about 21 bytes per voxel
 * besides the output.
 * Throws InvalidArgument for a null pointer, an invalid grid, fewer than 3
 * voxels along an axis of the grid (the residual's stencil), a NaN/Inf value,
 * invalid options, or an image without measurable noise (residual 0 almost
 * everywhere, e.g. a constant or linear image), for which no positive map exists.
 */
template<typename Real>
std::vector<Real>
EstimateNoiseVariance(const Real * f,
                      const Grid & grid,
                      const NoiseEstimationOptions & options = {},
                      const ParallelForFunction & parallelFor = {},
                      NoiseEstimationReport * report = nullptr);

/**
 * One robust noise standard deviation for the whole image, e.g. for the
 * discrepancy principle ||u - f||^2 ~ N sigma^2: 1.4826 * median |r| over
 * the voxels that the structure mask (step 2 above, with the global estimate
 * as threshold, refined twice) does not flag, divided by the square root of
 * the global gain of step 4 (NoiseSpectrum::Measured). Cheaper than the map: no local
 * windows. Meant for stationary noise: where the noise level varies over the
 * image, the noisier parts exceed the global edge threshold and are masked,
 * so the result follows the quieter parts (sigma 0.03 in one half of the
 * phantom and 0.12 in the other gives 0.03). The discrepancy principle then
 * needs the RMS sigma, sqrt(mean(EstimateNoiseVariance(...))). Returns 0 for an image without measurable noise. Same
 * input checks as NoiseResidual; only edgeSmoothingSigma, edgeThreshold,
 * spectrum and calibrationRadius of `options` are used (all fields are validated).
 */
template<typename Real>
double
EstimateNoiseSigma(const Real * f,
                   const Grid & grid,
                   const NoiseEstimationOptions & options = {},
                   const ParallelForFunction & parallelFor = {},
                   NoiseEstimationReport * report = nullptr);

} // namespace gpur

#endif
