// SPDX-License-Identifier: Apache-2.0
// Image quality metrics shared by tests, examples and benchmarks.
#ifndef gpurMetrics_h
#define gpurMetrics_h

#include "gpurGrid.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpur
{

/** Mean squared error of two arrays of n values. */
template<typename T>
double
MeanSquaredError(const T * a, const T * b, std::size_t n);

/** PSNR in dB: 10 log10(peak^2 / MSE); +inf when the arrays are equal. */
template<typename T>
double
PeakSignalToNoiseRatio(const T * test, const T * reference, std::size_t n, double peak);

/** Largest |a - b|. */
template<typename T>
double
MaxAbsDifference(const T * a, const T * b, std::size_t n);

/**
 * Parameters of the structural similarity index [Wang2004]. The
 * defaults are the standard Gaussian-window SSIM: an 11-voxel window
 * (sigma 1.5 voxels, radius int(truncate * sigma + 0.5) = 5), K1 = 0.01,
 * K2 = 0.03, C1 = (K1 L)^2, C2 = (K2 L)^2 with L = dataRange (1 for images
 * normalised to [0, 1], as in [Huang2023, §6.4]). With these defaults and
 * excludeBorder the result equals scikit-image's
 * structural_similarity(a, b, data_range=L, gaussian_weights=True, sigma=1.5,
 * use_sample_covariance=False) on float64 arrays.
 */
struct SSIMParameters
{
  double dataRange = 1.0; ///< L: the dynamic range of the intensities (> 0)
  double k1 = 0.01;       ///< > 0
  double k2 = 0.03;       ///< > 0
  double sigma = 1.5;     ///< Gaussian window standard deviation in voxels (> 0; the voxel spacing is ignored)
  double truncate = 3.5;  ///< window radius = int(truncate * sigma + 0.5) voxels (>= 0)
  /** 3D grids: a 2D window per z-slice instead of the 3D window (the mean is over all slices). */
  bool sliceBySlice = false;
  /**
   * Mean over the voxels at least one window radius away from every border of the
   * windowed axes (scikit-image's convention; needs size >= 2 radius + 1 along
   * them); false: mean over all voxels. The local statistics always mirror the
   * image at its borders (half-sample symmetric, scipy.ndimage mode "reflect").
   */
  bool excludeBorder = true;

  /** Throws InvalidArgument naming the bad field and its allowed range. */
  void
  Validate() const;

  /** The window radius in voxels. */
  unsigned
  Radius() const;
};

/**
 * Local SSIM of two images on `grid` (2D grid: 2D window; 3D grid: 3D window
 * unless sliceBySlice), one value per voxel, computed in double:
 * SSIM = (2 mu_a mu_b + C1)(2 cov_ab + C2) / ((mu_a^2 + mu_b^2 + C1)(var_a + var_b + C2))
 * with Gaussian-weighted local means, (population) variances and covariance.
 */
template<typename T>
std::vector<float>
StructuralSimilarityMap(const Grid & grid, const T * a, const T * b, const SSIMParameters & parameters = {});

/** Mean SSIM over the image (over the interior when excludeBorder, see SSIMParameters). 1 when a == b. */
template<typename T>
double
MeanStructuralSimilarity(const Grid & grid, const T * a, const T * b, const SSIMParameters & parameters = {});

/** Mean, standard deviation and SNR of the voxels selected by a mask. */
struct RegionStatistics
{
  std::size_t count = 0; ///< voxels selected
  double mean = 0.0;     ///< their mean
  /** Population standard deviation: sqrt(sum (v - mean)^2 / count). */
  double standardDeviation = 0.0;
  /** mean / standardDeviation (+inf for a constant region with mean > 0), [Huang2023, eq. (6.7)]. */
  double snr = 0.0;
};

/**
 * Statistics of image[i] over the voxels with mask[i] != 0. The SNR is the
 * no-reference metric SNR = mu / sigma in a homogeneous region of [Huang2023,
 * eq. (6.7)], meaningful for non-negative intensities (offset the image first
 * otherwise). Throws InvalidArgument when fewer than 2 voxels are selected.
 */
template<typename T>
RegionStatistics
ComputeRegionStatistics(const T * image, const std::uint8_t * mask, std::size_t n);

/** ComputeRegionStatistics(image, mask, n).snr. */
template<typename T>
double
RegionSignalToNoiseRatio(const T * image, const std::uint8_t * mask, std::size_t n);

/**
 * A mask on `grid` selecting the box begin[d] <= index[d] < end[d] (clamped to
 * the grid; for a 2D grid the z range is ignored).
 */
std::vector<std::uint8_t>
BoxMask(const Grid & grid, const std::array<std::size_t, 3> & begin, const std::array<std::size_t, 3> & end);

} // namespace gpur

#endif
