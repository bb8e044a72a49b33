// SPDX-License-Identifier: Apache-2.0
// Internal part of the noise estimation (gpurNoiseEstimation.cxx): the noise
// gain of the high-pass residual measured on the image itself, for noise whose
// power spectrum is not white (CT reconstructions: the ramp filter).
#ifndef gpurNoiseGainCalibration_h
#define gpurNoiseGainCalibration_h

#include "gpurGrid.h"
#include "gpurParallel.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpur
{

/**
 * The residual's noise gain G = E[r^2] / Var(noise), measured in flat tiles.
 *
 * For white noise G = 1 by construction of the residual [Immerkaer1996]; for
 * correlated noise G = sum_k |M(k)|^2 S(k) / sum_k S(k), the high-pass M
 * weighted by the noise power spectrum S, which is unknown: a ramp-filtered
 * CT reconstruction has little power where M has its gain (the corners of the
 * frequency cube), so G is 0.35-0.55 for Ram-Lak and about 0.05 for a Hann
 * window, and the residual alone reads the variance 2-20 times too low.
 *
 * The image is covered by tiles of (2 halfWidth + 1)^D voxels, overlapping by
 * half. In a tile that
 * holds no structure voxel (mask 0), the image is noise on a plane, so the
 * residual sum of squares of a least-squares plane fit divided by N - D - 1
 * estimates the noise variance (exactly for white noise; for noise whose
 * spectrum vanishes at low frequencies, as a ramp filter's does, the plane
 * removes almost nothing of it: the error is below (D + 1) / N = 1.2 % for
 * 7^3 tiles, measured 2 % for a Hann-windowed ramp); the local mean of r^2 at
 * the tile's centre (step 3's window, larger than the tile, so less noisy)
 * divided by it is that tile's gain. The global gain is the ratio of sums over
 * the flat tiles whose gain is at least half the median (tiles with remaining
 * structure inflate the plane fit's residual far more than r^2). The gain
 * varies over a CT volume (the noise's anisotropy and correlation follow the
 * rays: measured 0.35 in a cone-beam part and 0.55 in the air beside it), so
 * each voxel gets the gain of the flat tiles within `neighbourTiles` tiles,
 * shrunk towards the global gain where there are few (tile gains interpolated
 * linearly between tile centres).
 */
class ResidualGain
{
public:
  /** Not measured: the gain of white noise, 1. */
  ResidualGain() = default;
  /**
   * localResidual2: the local mean of r^2 (r the residual of f / scale) at every
   * voxel; offset: the image's mean (removed from f in double, so float keeps the
   * precision). mask: 1 on structure voxels.
   */
  template<typename Real>
  ResidualGain(const Real * f,
               double offset,
               double scale,
               const std::vector<float> & localResidual2,
               const std::vector<std::uint8_t> & mask,
               const Grid & grid,
               unsigned halfWidth,
               const ParallelForFunction & parallelFor);

  /** Whether enough flat tiles were found (kMinimumTiles); otherwise the gains are those of white noise. */
  bool
  Measured() const
  {
    return m_Measured;
  }
  /** The residual's gain over the image. */
  double
  Global() const
  {
    return m_Gain.global;
  }
  std::size_t
  Tiles() const
  {
    return m_Tiles;
  }
  std::size_t
  FlatTiles() const
  {
    return m_FlatTiles;
  }
  /** The residual's local gain at voxel (x, y, z). */
  double
  At(std::size_t x, std::size_t y, std::size_t z) const
  {
    return m_Measured ? Interpolate(m_Gain, x, y, z) : 1.0;
  }

  /** Fewer flat tiles than this: the gain is not measured (the median of fewer is too noisy). */
  static constexpr std::size_t kMinimumTiles = 16;
  /**
   * The plausible range of the global gain: 1 for white noise, 0.35-0.55 for a
   * Ram-Lak FBP or FDK, 0.05 for a Hann window; beyond it the measurement is
   * refused (not measured): a gain of 0.002 came from tiles that held edges.
   */
  static constexpr double kMinimumGain = 0.01;
  static constexpr double kMaximumGain = 2.0;
  /** Radius, in tiles, of the neighbourhood whose flat tiles give a voxel's gain. */
  static constexpr unsigned kNeighbourTiles = 2;
  /** Pseudo-count of global-gain tiles added to every neighbourhood (shrinkage towards the global gain). */
  static constexpr double kPriorTiles = 4.0;

private:
  /** A ratio sum(a) / sum(b) over the kept tiles: per tile (of its neighbourhood) and over the image. */
  struct TileField
  {
    std::vector<float> local;
    double global = 1.0;
  };
  TileField
  Smooth(const std::vector<double> & a, const std::vector<double> & b, const ParallelForFunction & parallelFor) const;
  double
  Interpolate(const TileField & field, std::size_t x, std::size_t y, std::size_t z) const;

  std::array<std::size_t, 3> m_Count{ { 1, 1, 1 } };  ///< tiles per axis
  std::array<std::size_t, 3> m_Size{ { 1, 1, 1 } };   ///< voxels per tile and axis
  std::array<std::size_t, 3> m_Stride{ { 1, 1, 1 } }; ///< voxels between tile starts
  TileField m_Gain;
  bool m_Measured = false;
  std::size_t m_Tiles = 0, m_FlatTiles = 0;
};

} // namespace gpur

#endif
