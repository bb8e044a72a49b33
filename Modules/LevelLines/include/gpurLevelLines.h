// SPDX-License-Identifier: Apache-2.0
// Engine of level-line (isoline) denoising, "PI-PD" [Perrot2013]: plain
// arrays in, plain arrays out.
//
// Each pixel's output is the mean grey level along an estimated level line
// through it. The line is a poly-line ("poly-isoline") of straight segment
// patterns of l pixels in D = 32 directions [Perrot2013, §IV]:
//   stage 1 (precomputation, [Perrot2013, Algorithm 1]): per pixel, the
//           direction whose segment, with the pixel itself, has the smallest
//           variance (the maximum of the generalised likelihood of a level-line
//           part through the pixel [Perrot2013, eqs. (1)-(5)]), with the
//           segment's sums (sum z, sum z^2);
//   stage 2 (lengthening, [Perrot2013, Algorithm 2]): from the pixel, chain the
//           precomputed segment found at each segment's end while the
//           generalised likelihood-ratio test [Perrot2013, eq. (8)] accepts the
//           merge, up to n pixels; the output is the mean along the accepted line;
//   hybrid mode ([Perrot2013, §VI-C, Algorithm 3]): an 8-direction half-plane
//           test classifies each pixel as low-slope region (mean of the 8-ray
//           star), single edge (mean of the centre's half-plane) or complex
//           (the PI-PD value).
// Where the paper is silent or garbled, the choices are ours and documented
// at LevelLinesParameters (the centre pixel, the turn-back rule, growing both
// ways, the variance floor) with the PSNR they buy (docs/level-lines.md).
//
// Units. Every decision compares variances of the same data, and the variance
// floor is a multiple of the noise variance, so scaling the image scales the
// output by the same factor (to rounding). Sums are kept relative to the
// grey level of the pixel they belong to, so 16-bit and HU data lose no
// precision in float.
#ifndef gpurLevelLines_h
#define gpurLevelLines_h

#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurGrid.h"
#include "gpurProgress.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gpur
{

/** The number of segment directions D, fixed by the method [Perrot2013, §IV-B] (one GPU warp). */
constexpr unsigned kLevelLinesDirections = 32;

/** What a pixel's output is. */
enum class LevelLinesMode
{
  /** The mean along the pixel's poly-isoline, everywhere [Perrot2013, Algorithm 2]. The default. */
  PIPD,
  /** Classify first [Perrot2013, Algorithm 3]: star mean, half-plane mean or the PI-PD value. */
  Hybrid
};

/** The lengthening test's variance model [Perrot2013, eqs. (6)-(8)]. */
enum class LevelLinesTest
{
  /**
   * (n+p) log(s1^2 / s2^2) with s2^2 the pooled two-mean variance, the form
   * consistent with eqs. (6)-(8). The default.
   */
  Pooled,
  /** (n+p) log s1^2 - n log sn^2 - p log sp^2: separate variances of the two parts (the reading of
     Algorithm 2's GLRT signature). */
  SeparateVariances
};

/** What happens when the direction found at a segment's end points back (more than 90 degrees from the last). */
enum class LevelLinesTurnBack
{
  /** Continue along the opposite direction d + 16, whose sums stage 1 also keeps. The default. */
  Flip,
  /** Stop the line there. */
  Stop
};

/** "PIPD" / "Hybrid". */
const char *
ToString(LevelLinesMode mode);
/** "Pooled" / "SeparateVariances". */
const char *
ToString(LevelLinesTest test);
/** "Flip" / "Stop". */
const char *
ToString(LevelLinesTurnBack turnBack);
/** Parses "pipd" or "hybrid" (case-insensitive); throws InvalidArgument otherwise. */
LevelLinesMode
ParseLevelLinesMode(const std::string & text);
/** Parses "pooled" or "separate" / "separatevariances"; throws InvalidArgument otherwise. */
LevelLinesTest
ParseLevelLinesTest(const std::string & text);
/** Parses "flip" or "stop"; throws InvalidArgument otherwise. */
LevelLinesTurnBack
ParseLevelLinesTurnBack(const std::string & text);

/**
 * Parameters of a level-line run. The defaults are the paper's for its
 * result table [Perrot2013, Fig. 10]: l = 5, n = 25, T_max = 1, T2_max = 2.
 */
struct LevelLinesParameters
{
  /** Segment length l in pixels along the pattern's major axis, 2 to 12 ([Perrot2013] uses 4 and 5). */
  unsigned segmentLength = 5;
  /** Maximum poly-isoline length n in pixels per arm (without the centre), a multiple of l is natural; >= l, <= 64. */
  unsigned maximumLength = 25;
  /** T_max of the lengthening test [Perrot2013, eq. (8)]: a segment is added while the statistic is below it; > 0. */
  double lengtheningThreshold = 1.0;
  /** T2_max of the hybrid edge test [Perrot2013, eq. (11)]: an edge along a direction when the statistic exceeds it;
   * > 0. */
  double edgeThreshold = 2.0;
  /** PI-PD everywhere or the hybrid classifier. */
  LevelLinesMode mode = LevelLinesMode::PIPD;
  /** The lengthening test's variance model. */
  LevelLinesTest test = LevelLinesTest::Pooled;
  /** The turn-back rule, which the paper names but does not describe [Perrot2013, §IV-C]. */
  LevelLinesTurnBack turnBack = LevelLinesTurnBack::Flip;
  /**
   * Thicken the poly-isolines from 1 to 3 pixels (each pattern pixel with its
   * two neighbours across the major axis), the paper's optional improvement
   * [Perrot2013, §VI]: more pixels per mean, more smoothing, finer details lost.
   */
  bool thick = false;
  /**
   * Count the pixel itself in the first segment's variance and in the mean.
   * The paper's model has the level-line part contain the pixel
   * [Perrot2013, eq. (1)]; its Algorithm 2 as printed leaves it out (false).
   */
  bool includeCenter = true;
  /**
   * Grow the line both ways from the pixel: the second arm starts along the
   * opposite direction d + 16 and is lengthened by the same test. The paper
   * grows one arm (false); a level line passes through the pixel, so two arms
   * halve the bias at its start.
   */
  bool bidirectional = true;
  /**
   * The variances in both tests are floored at varianceFloor * sigma^2, sigma
   * the noise level: the variance along a level line cannot be below the
   * noise's, and the minimum-variance choice of stage 1 underestimates it,
   * which stops lines early. 0 < varianceFloor <= 4.
   */
  double varianceFloor = 1.0;
  /** The noise standard deviation in the units of the image, > 0; 0 (default): estimated (EstimateNoiseSigma). */
  double noiseSigma = 0.0;

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;
};

/**
 * The radius in pixels (Chebyshev) of the neighbourhood an output pixel
 * depends on: n (+1 when thick, and at least l for the hybrid test). A chunk
 * padded by it on every side gives the same interior as the whole image
 * (the dask entry's overlap).
 */
unsigned
LevelLinesRadius(const LevelLinesParameters & parameters);

/** The pixel classes of the hybrid mode [Perrot2013, Algorithm 3]. */
enum class LevelLinesClass : std::uint8_t
{
  LowSlope = 0,   ///< no edge detected: mean of the 8-ray star (8l + 1 pixels)
  SingleEdge = 1, ///< one edge direction: mean of the centre's half-plane (5l + 1 pixels)
  Complex = 2     ///< several: the PI-PD value
};

/**
 * Optional per-pixel outputs, each grid.Count() values (or null): the
 * direction stage 1 chose (0..31, counter-clockwise from +x, y down), the
 * number of pixels averaged, and the hybrid class (Hybrid mode only).
 */
struct LevelLinesMaps
{
  std::uint8_t * direction = nullptr;  ///< stage 1's direction index
  std::uint16_t * length = nullptr;    ///< pixels in the mean (centre, arms, thickening)
  std::uint8_t * pixelClass = nullptr; ///< LevelLinesClass (Hybrid only; null otherwise)
};

/** What a run did. */
struct LevelLinesReport
{
  ResolvedBackend backend;     ///< what ran
  std::size_t frames = 0;      ///< 2D frames filtered (nz of a 3D grid)
  double noiseSigma = 0.0;     ///< the sigma used, in the units of the image
  bool sigmaEstimated = false; ///< estimated: the median of the frames' estimates
  /** Mean number of pixels averaged per output pixel (centre and both arms; PI-PD pixels). */
  double meanLength = 0.0;
  /** Share of lengthening attempts ended by the test, the turn-back rule (Stop), the image border, the length cap. */
  double stoppedByTest = 0.0;
  double stoppedByTurnBack = 0.0; ///< see stoppedByTest
  double stoppedByBorder = 0.0;   ///< see stoppedByTest
  double stoppedByLength = 0.0;   ///< see stoppedByTest
  /** Hybrid only: shares of LowSlope, SingleEdge and Complex pixels. */
  std::array<double, 3> classShares{ { 0.0, 0.0, 0.0 } };
  double seconds = 0.0;       ///< wall time, upload to download
  double kernelSeconds = 0.0; ///< OpenCL: device time of the kernels alone (events); CPU: compute time
  /** Sentences for the caller (e.g. sigma estimated as 0). */
  std::vector<std::string> warnings;
};

/**
 * Filters the image f into u (grid.Count() floats each, x fastest). A 2D grid
 * is one image; a 3D grid is a stack of nz independent 2D frames (video, or the
 * slices of a volume), filtered in one call with the stack kept on the device
 * (split into as many frames as fit when it is larger than device memory).
 * Each frame must be at least 2 x 2 pixels. Spacing is not used: the method
 * works on the pixel lattice (the patterns are pixel offsets). u must not
 * overlap f. u and the maps are written only when the run succeeds. Throws InvalidArgument for a bad grid,
 * parameters or non-finite input, Aborted when progress returns false,
 * OpenCLError / BuildError for a device failure.
 */
LevelLinesReport
DenoiseLevelLines(const float * f,
                  float * u,
                  const Grid & grid,
                  const LevelLinesParameters & parameters,
                  const ExecutionOptions & execution = ExecutionOptions(),
                  const ProgressCallback & progress = ProgressCallback(),
                  const LevelLinesMaps & maps = LevelLinesMaps());

/**
 * The segment pattern p_{l,d} [Perrot2013, §IV-B]: l pixel offsets (di, dj)
 * from the start pixel (excluded), row i down, column j right, direction d at
 * d * 11.25 degrees counter-clockwise from +j. A DDA rule that reproduces the
 * paper's printed rows d = 0..7 of P_5 and rotates by 90 degrees every 8
 * directions.
 */
std::vector<std::array<int, 2>>
LevelLinesPattern(unsigned direction, unsigned segmentLength);

} // namespace gpur

#endif
