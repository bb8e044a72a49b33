// Realistic industrial-CT test data without ITK: a machined-part phantom and
// CT noise simulated through parallel-beam projections, Poisson counts and
// filtered back-projection, with the analytic per-voxel noise variance.
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
  struct Circle
  {
    double cx, cy;   ///< centre (a voxel centre)
    double diameter; ///< voxels whose centre lies within diameter / 2 are inside
  };
  struct Slot
  {
    std::size_t xBegin, width; ///< air columns xBegin <= x < xBegin + width
    std::size_t yBegin, yEnd;  ///< cut from the block's lower edge: yBegin <= y < yEnd = blockEnd[1]
  };
  std::array<std::size_t, 2> blockBegin{}; ///< the block: blockBegin <= (x, y) < blockEnd
  std::array<std::size_t, 2> blockEnd{};
  std::size_t zBegin = 0, zEnd = 0;
  std::vector<Circle> bores; ///< drilled through along z (air), diameters 0.16, 0.10, 0.06 x min(nx, ny), >= 2
  Circle pin{};              ///< dense insert, diameter 0.14 x min(nx, ny), >= 2
  std::vector<Slot> slots;   ///< widths 1, 2 and 3 voxels whatever the grid size
  double blockValue = 0.5, pinValue = 1.0;
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

/**
 * The simulated scan. Each z-slice is scanned on its own (parallel beam,
 * numberOfAngles views evenly spaced over [0, pi), detector bins of width
 * ds = min(hx, hy) covering the slice's diagonal; mm are the grid spacing
 * units). Line integrals: bilinear sampling of the slice every ds / 2 along the ray.
 * Counts: N ~ Poisson(I0 exp(-p)) + N(0, electronicNoise^2), clamped to
 * >= minimumCount, p_noisy = -log(N / I0). Reconstruction: FBP with the ramp
 * filter as a direct spatial convolution and linear interpolation in the
 * back-projection, mu(x) = (pi / A) sum_a q_a(x cos t_a + y sin t_a).
 */
struct CTScanParameters
{
  std::size_t numberOfAngles = 0; ///< views A over [0, pi); 0: ceil(pi / 2 * max(nx, ny))
  double photonsPerRay = 1.0e4;   ///< I0: mean unattenuated counts per detector bin and view (> 0)
  double electronicNoise = 0.0;   ///< standard deviation of additive Gaussian detector noise in counts (>= 0)
  /**
   * Linear attenuation coefficient, in 1/mm, of intensity 1 (so p = attenuationPerUnit * integral of the
   * intensity along the ray in mm). <= 0: chosen so that the largest noise-free line integral of the whole
   * volume is maximumLineIntegral (size-independent transmission; 1/mm if the volume is all zero).
   */
  double attenuationPerUnit = 0.0;
  double maximumLineIntegral = 2.5; ///< used when attenuationPerUnit <= 0 (> 0); 2.5 is about 8 % transmission
  double minimumCount = 0.5;        ///< counts are clamped to this before the log (> 0)
  RampFilter filter = RampFilter::RamLak;
  bool computeVariance = true;   ///< fill CTSimulation::variance
  bool computeNoiseFree = false; ///< fill CTSimulation::noiseFree
  std::uint64_t seed = 1;
  unsigned threads = 0; ///< slices processed in parallel; 0: hardware concurrency. Results do not depend on it

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
  Grid grid;
  std::vector<float> truth;
  /** FBP of the noisy projections: truth + reconstruction error + CT noise. */
  std::vector<float> noisy;
  /**
   * Analytic noise variance of `noisy` per voxel (units^2): the post-log variance
   * Var(p) = (I + electronicNoise^2) / I^2 with I = I0 exp(-p) the expected count
   * (first-order delta method), propagated exactly through the linear FBP: with
   * the back-projection weights (1 - f, f) at bins j, j + 1,
   * Var = (pi / A)^2 sum_a [(1 - f)^2 V_a(j) + f^2 V_a(j + 1) + 2 f (1 - f) X_a(j)],
   * V_a = ds^2 (h^2 * Var(p_a)), X_a(j) = ds^2 sum_k h(j - k) h(j + 1 - k) Var(p_a(k)).
   * Ignores the clamping at minimumCount and the log's higher-order terms, so it
   * holds while the expected counts stay well above ~20. Empty unless computeVariance.
   */
  std::vector<float> variance;
  /** FBP of the noise-free projections (truth + reconstruction error); empty unless computeNoiseFree. */
  std::vector<float> noiseFree;
  double attenuationPerUnit = 0.0; ///< the value used, 1/mm per unit intensity
  std::size_t numberOfAngles = 0;
  std::size_t numberOfBins = 0;
  double binSpacing = 0.0; ///< ds in mm
};

/**
 * Scans `truth` (intensities on `grid`, >= 0 expected) slice by slice and
 * reconstructs it with FBP; see CTScanParameters and CTSimulation. A 2D grid
 * is one slice. Throws InvalidArgument for a bad grid, a size mismatch,
 * non-finite values or bad parameters.
 */
CTSimulation
SimulateCT(const Grid & grid, const std::vector<float> & truth, const CTScanParameters & parameters = {});

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
