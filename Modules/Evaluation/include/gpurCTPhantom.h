// SPDX-License-Identifier: Apache-2.0
// Realistic industrial-CT test data without ITK: a machined-part phantom and
// CT noise simulated through projections (parallel beam slice by slice, or a
// circular cone-beam scan), Poisson counts and filtered back-projection (FBP,
// or Feldkamp-Davis-Kress for the cone beam), with the analytic per-voxel
// noise variance.
// Everything is deterministic for a given seed, whatever the thread count.
#ifndef gpurCTPhantom_h
#define gpurCTPhantom_h

#include "gpurGrid.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpur
{

/**
 * Intensities of the machined part, as normalised attenuation: 0 is air, 1
 * the densest material (steel); aluminium is about a third to a half of steel
 * at industrial tube voltages.
 */
struct MachinedPartParameters
{
  double blockValue = 0.5; ///< the aluminium-like block
  double pinValue = 1.0;   ///< the steel-like pin pressed into the block
};

/**
 * Where MachinedPartPhantom puts its features, in voxel coordinates of a slice:
 * voxel (x, y) covers [x, x + 1) x [y, y + 1), its centre is (x + 0.5, y + 0.5).
 * All features run along z through the slices zBegin <= z < zEnd that hold the
 * part (every slice of a 2D grid or of a stack of fewer than 16 slices).
 */
struct MachinedPartLayout
{
  /** A disc in the slice. */
  struct Circle
  {
    double cx;       ///< centre x (a voxel centre)
    double cy;       ///< centre y (a voxel centre)
    double diameter; ///< voxels whose centre lies within diameter / 2 are inside
  };
  /** An air slot through the block. */
  struct Slot
  {
    std::size_t xBegin; ///< air columns xBegin <= x < xBegin + width
    std::size_t width;  ///< in voxels
    std::size_t yBegin; ///< cut from the block's lower edge: yBegin <= y < yEnd
    std::size_t yEnd;   ///< blockEnd[1]
  };
  std::array<std::size_t, 2> blockBegin{}; ///< the block: blockBegin <= (x, y) < blockEnd
  std::array<std::size_t, 2> blockEnd{};   ///< see blockBegin
  std::size_t zBegin = 0;                  ///< first slice of the part
  std::size_t zEnd = 0;                    ///< one past its last slice
  std::vector<Circle> bores; ///< drilled through along z (air), diameters 0.16, 0.10, 0.06 x min(nx, ny), >= 2
  Circle pin{};              ///< dense insert, diameter 0.14 x min(nx, ny), >= 2
  std::vector<Slot> slots;   ///< widths 1, 2 and 3 voxels whatever the grid size
  double blockValue = 0.5;   ///< intensity of the block
  double pinValue = 1.0;     ///< intensity of the pin
};

/** The layout for a grid; nx, ny >= 32 (InvalidArgument otherwise). */
MachinedPartLayout
MakeMachinedPartLayout(const Grid & grid, const MachinedPartParameters & parameters = {});

/**
 * A machined part on air: an aluminium-like rectangular block (blockValue),
 * three drilled bores of different diameters (air), a steel-like pin
 * (pinValue) and three fine slots 1, 2 and 3 voxels wide cut from one edge.
 * Voxel-aligned sharp edges, values in [0, max(blockValue, pinValue)].
 */
std::vector<float>
MachinedPartPhantom(const Grid & grid, const MachinedPartParameters & parameters = {});

/** The ramp filter of the filtered back-projection. */
enum class RampFilter
{
  RamLak, ///< band-limited ramp |w| (Kak & Slaney's spatial kernel)
  Hann    ///< ramp times the Hann window 0.5 + 0.5 cos(pi w / w_Nyquist): the Ram-Lak kernel convolved with (1/4, 1/2,
          ///< 1/4)
};

/** The scan geometry of SimulateCT. */
enum class CTGeometry
{
  ParallelBeam, ///< every z-slice on its own, views over [0, pi), FBP (noise independent between slices)
  ConeBeam      ///< a point source on a circle around the z axis, flat detector, views over [0, 2 pi), FDK
};

/**
 * The simulated scan. ParallelBeam: each z-slice is scanned on its own (parallel beam,
 * numberOfAngles views evenly spaced over [0, pi), detector bins of width
 * ds = min(hx, hy) covering the slice's diagonal; mm are the grid spacing
 * units). Line integrals: bilinear sampling of the slice every ds / 2 along the ray.
 * Counts: N ~ Poisson(I0 exp(-p)) + N(0, electronicNoise^2), clamped to
 * >= minimumCount, p_noisy = -log(N / I0). Reconstruction: FBP with the ramp
 * filter as a direct spatial convolution and linear interpolation in the
 * back-projection, mu(x) = (pi / A) sum_a q_a(x cos t_a + y sin t_a).
 *
 * ConeBeam (3D grids): a circular orbit of radius sourceToAxis around the z axis
 * through the volume's centre, a flat detector at sourceToDetector from the
 * source, numberOfAngles views over [0, 2 pi). The detector's pixels, seen at
 * the axis (divided by the magnification sourceToDetector / sourceToAxis), are
 * min(hx, hy) wide and hz high, enough of them to cover the whole volume's
 * shadow. Line integrals: trilinear sampling every min(hx, hy, hz) / 2 along the
 * ray from the source to the pixel centre. Reconstruction: FDK ([Feldkamp1984];
 * [KakSlaney1988, §3.6]) for the full circle: the projections are weighted by
 * D / sqrt(D^2 + u^2 + v^2) (u, v at the axis, D = sourceToAxis), filtered
 * along the detector rows by the ramp filter, and back-projected with the
 * weight D^2 / U^2 (U the voxel's distance from the source along the central
 * ray) and bilinear interpolation,
 * mu(x) = (pi / A) sum_a (D / U)^2 q_a(u(x), v(x)).
 * The noise is then correlated along z too (through the bilinear interpolation
 * between detector rows) and its level follows the magnification.
 */
struct CTScanParameters
{
  /** Views A over [0, pi) (parallel beam) or [0, 2 pi) (cone beam); 0: ceil(pi / 2 * max(nx, ny)), twice that for the
   * cone beam. */
  std::size_t numberOfAngles = 0;
  double photonsPerRay = 1.0e4; ///< I0: mean unattenuated counts per detector bin and view (> 0)
  double electronicNoise = 0.0; ///< standard deviation of additive Gaussian detector noise in counts (>= 0)
  /**
   * Linear attenuation coefficient, in 1/mm, of intensity 1 (so p = attenuationPerUnit * integral of the
   * intensity along the ray in mm). <= 0: chosen so that the largest noise-free line integral of the whole
   * volume is maximumLineIntegral (size-independent transmission; 1/mm if the volume is all zero).
   */
  double attenuationPerUnit = 0.0;
  double maximumLineIntegral = 2.5;       ///< used when attenuationPerUnit <= 0 (> 0); 2.5 is about 8 % transmission
  double minimumCount = 0.5;              ///< counts are clamped to this before the log (> 0)
  RampFilter filter = RampFilter::RamLak; ///< the ramp filter of the reconstruction
  CTGeometry geometry = CTGeometry::ParallelBeam; ///< parallel beam and FBP, or cone beam and FDK
  /**
   * ConeBeam: distance from the source to the rotation axis, mm; 0: 4 times the
   * half diagonal of a slice (a cone half-angle of about 14 degrees). It must
   * exceed the half diagonal (the source outside the volume).
   */
  double sourceToAxis = 0.0;
  /** ConeBeam: distance from the source to the detector, mm; 0: 2 sourceToAxis. >= sourceToAxis plus the half diagonal.
   */
  double sourceToDetector = 0.0;
  bool computeVariance = true;   ///< fill CTSimulation::variance
  bool computeNoiseFree = false; ///< fill CTSimulation::noiseFree
  bool keepSinogram = false;     ///< fill CTSimulation::sinogram
  std::uint64_t seed = 1;        ///< of the noise: the same seed gives the same noisy volume
  unsigned threads = 0;          ///< slices processed in parallel; 0: hardware concurrency. Results do not depend on it

  /** Throws InvalidArgument naming the bad field and its allowed range. */
  void
  Validate() const;
};

/**
 * Result of SimulateCT; every volume is on `grid`, x fastest, in the units of
 * the ground truth (normalised attenuation: the reconstructed mu divided by
 * attenuationPerUnit).
 */
struct CTSimulation
{
  Grid grid;                ///< the grid of every volume
  std::vector<float> truth; ///< the ground truth scanned
  /** FBP of the noisy projections: truth + reconstruction error + CT noise. */
  std::vector<float> noisy;
  /**
   * Analytic noise variance of `noisy` per voxel (units^2): the post-log variance
   * Var(p) = (I + electronicNoise^2) / I^2 with I = I0 exp(-p) the expected count
   * (first-order delta method), propagated exactly through the linear FBP: with
   * the back-projection weights (1 - f, f) at bins j, j + 1,
   * Var = (pi / A)^2 sum_a [(1 - f)^2 V_a(j) + f^2 V_a(j + 1) + 2 f (1 - f) X_a(j)],
   * V_a = ds^2 (h^2 * Var(p_a)), X_a(j) = ds^2 sum_k h(j - k) h(j + 1 - k) Var(p_a(k)).
   * FDK: the same per detector row (rows are filtered independently), with the
   * projection weights squared inside V and X, the bilinear weights (1 - g, g)
   * of the rows r, r + 1 and (D / U)^4 per view.
   * Ignores the clamping at minimumCount and the log's higher-order terms, so it
   * holds while the expected counts stay well above ~20. Empty unless computeVariance.
   */
  std::vector<float> variance;
  /** FBP of the noise-free projections (truth + reconstruction error); empty unless computeNoiseFree. */
  std::vector<float> noiseFree;
  /**
   * The noise-free line integrals of the truth (intensity x mm, not multiplied by
   * attenuationPerUnit), bins fastest: [slice][view][bin] for the parallel beam,
   * [view][row][bin] for the cone beam. Empty unless keepSinogram.
   */
  std::vector<float> sinogram;
  double attenuationPerUnit = 0.0; ///< the value used, 1/mm per unit intensity
  std::size_t numberOfAngles = 0;  ///< views of the scan
  std::size_t numberOfBins = 0;    ///< detector bins (columns) per row
  std::size_t numberOfRows = 1;    ///< detector rows: 1 for the parallel beam (per slice)
  double binSpacing = 0.0;         ///< ds in mm (at the rotation axis for the cone beam)
  double sourceToAxis = 0.0;       ///< cone beam: the values used, mm (0 for the parallel beam)
  double sourceToDetector = 0.0;   ///< see sourceToAxis
};

/**
 * Scans `truth` (intensities on `grid`, >= 0 expected) slice by slice and
 * reconstructs it with FBP, or with a cone beam and FDK; see CTScanParameters
 * and CTSimulation. A 2D grid is one slice (parallel beam only). Throws
 * InvalidArgument for a bad grid, a size mismatch, non-finite values or bad
 * parameters.
 */
CTSimulation
SimulateCT(const Grid & grid, const std::vector<float> & truth, const CTScanParameters & parameters = {});

/** The phantoms of MakeCTPhantom. */
enum class CTPhantomShape
{
  SheppLogan,  ///< SheppLoganPhantom (values in [0, 1])
  MachinedPart ///< MachinedPartPhantom with default parameters
};

/** SimulateCT of a phantom: ground truth, noisy FBP volume and its variance map in one call. */
CTSimulation
MakeCTPhantom(const Grid & grid, CTPhantomShape shape, const CTScanParameters & parameters = {});

} // namespace gpur

#endif
