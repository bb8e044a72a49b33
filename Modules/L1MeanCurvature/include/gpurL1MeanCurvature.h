// SPDX-License-Identifier: Apache-2.0
// Engine of L1-mean-curvature denoising: plain arrays in, plain arrays out.
//
// The model of Zhu and Chan as solved by [Myllykoski2015a] (the algorithm) and
// [Myllykoski2015b] (its GPU implementation), for a 2D grayscale image f:
//
//   min_u  J(u) = eps * integral | div( grad u / sqrt(1 + |grad u|^2) ) |  +  1/2 integral (f - u)^2
//
// discretised with linear finite elements on the uniform triangulation of the
// pixel grid (pixels are the mesh vertices, every grid square cut into two
// right triangles along its SW-NE diagonal; [Myllykoski2015a, §3]) and solved
// by the augmented Lagrangian method with three multipliers
// [Myllykoski2015a, eq. (2.8), Algorithm 1]: per outer iteration
//   Sub #1: (p1, p2) per triangle, non-convex: Newton, else the multi-interval
//           bisection of [Myllykoski2015a, Algorithm 2], the best of three;
//   Sub #2: p3 from an SPD system: by default directly, through one fast
//           Dirichlet Helmholtz solve on the vertices (see L1MCSub2Solver),
//           or by the paper's matrix-free conjugate gradients, warm-started;
//   Sub #3: psi by shrinkage at the interior vertices;
//   Sub #4: u from the separable system (r1 K + M_L) u = ..., solved by PSCR
//           (Modules/PSCR) with c = 1/r1, Neumann axes and lumped mass;
//   then the three multiplier updates.
// The run stops when the relative change of the discrete augmented Lagrangian
// L_rh [Myllykoski2015a, eq. (3.15)] falls below `tolerance`
// [Myllykoski2015a, eq. (4.5)] while the constraint residuals R1-R3 are below
// kL1MCConstraintTolerance, or after maxIterations (then not converged).
//
// Units. The model is not scale-invariant (the curvature of the graph of u
// depends on the intensity scale), and the seed parameters assume intensities
// in [0, 1] and a domain whose longer side has length 1. The engine therefore
// solves for f / dataRange on a mesh of step h and scales u back: the same
// image in other units (HU, 16-bit counts) gives the same result to rounding.
#ifndef gpurL1MeanCurvature_h
#define gpurL1MeanCurvature_h

#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurGrid.h"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace gpur
{

/** The starting point of the iteration [Myllykoski2015a, §4]. */
enum class L1MCInitialization
{
  /** u = 0 and every other variable 0 [Myllykoski2015a, eq. (4.3)]: the paper's choice, the default. */
  Zero,
  /** u = f, q1 = grad f, q2 = q1 / sqrt(1 + |q1|^2), q3 = q2, psi = div_h q3, multipliers 0 (eq. (4.2)). */
  Data
};

/** "Zero" or "Data". */
const char *
ToString(L1MCInitialization initialization);
/** Parses "zero" or "data" (case-insensitive); throws InvalidArgument otherwise. */
L1MCInitialization
ParseL1MCInitialization(const std::string & text);

/**
 * How Sub #4 treats the lumped mass at the four image corners. The lumped
 * mass |Omega_j| / 3 is M_y (x) M_x everywhere except at the corners (h^2/3
 * where two triangles meet, h^2/6 where one does, against h^2/4 separable),
 * so the exact matrix is not separable.
 */
enum class L1MCCornerMass
{
  /**
   * The exact lumped mass: PSCR on the separable part plus a rank-4 Woodbury
   * correction (four extra PSCR solves once per run, then per iteration one
   * 4x4 solve and one pass over four vectors). The default.
   */
  Exact,
  /** The separable mass h^2/4 at the corners (what a plain PSCR solve gives). */
  Separable
};

/** "Exact" or "Separable". */
const char *
ToString(L1MCCornerMass cornerMass);

/**
 * How Sub #2 solves (r2 I - r3 grad0 div_h) p3 = b [Myllykoski2015a, eq. (3.26)]
 * on the triangles.
 */
enum class L1MCSub2Solver
{
  /**
   * Exactly, through the vertices (the default): with G = grad0 and div_h =
   * -G^T / 2 on this mesh, the push-through identity gives
   * p3 = (b + r3 G t) / r2 with (r2 I + r3 L) t = div_h b, L the five-point
   * Laplacian on the interior vertices with zero boundary values: one
   * separable Dirichlet Helmholtz solve by fast sine transforms (Modules/PSCR)
   * instead of tens of CG steps over four triangle planes. Same system, so the
   * same iterates up to CG's tolerance; its residual ||b - A p3|| / ||b|| is
   * measured each iteration as CG's is (L1MCReport::sub2Residual).
   */
  Direct,
  /** The paper's matrix-free conjugate gradients, warm-started from p3 (relative residual 1e-8 in double). */
  ConjugateGradient
};

/** "Direct" or "ConjugateGradient". */
const char *
ToString(L1MCSub2Solver solver);
/** Parses "direct" or "cg" / "conjugate-gradient" (case-insensitive); throws InvalidArgument otherwise. */
L1MCSub2Solver
ParseL1MCSub2Solver(const std::string & text);

/**
 * Parameters of an L1-mean-curvature run. r0 is the one knob of the paper
 * [Myllykoski2015a, eq. (5.1)]: eps = r0 h, r1 = 10 r0 h, r2 = 5 r0,
 * r3 = 5 r0 h^2; each of them can be overridden.
 */
struct L1MCParameters
{
  /** The regularisation knob r0 > 0; 0 (default): chosen from noiseSigma (see L1MCR0ForNoise). */
  double r0 = 0.0;
  /**
   * The noise standard deviation in the units of f, used when r0 = 0; 0
   * (default): estimated from the image (EstimateNoiseSigma).
   */
  double noiseSigma = 0.0;
  /** The mesh step h > 0 of the normalised domain; 0 (default): 1 / (max(nx, ny) - 1) [Myllykoski2015a, §4]. */
  double meshSize = 0.0;
  /**
   * The intensity span that the model treats as 1 (as scikit-image's
   * data_range): f is divided by it and u multiplied back. 0 (default):
   * max(f) - min(f).
   */
  double dataRange = 0.0;
  /** Overrides of eps, r1, r2, r3 (> 0); 0: from r0 as above. */
  double epsilon = 0.0;
  double r1 = 0.0; ///< see epsilon
  double r2 = 0.0; ///< see epsilon
  double r3 = 0.0; ///< see epsilon
  /** The iteration budget N >= 1. */
  unsigned maxIterations = 1000;
  /** Stop when |L^n - L^{n+1}| / |L^n| < tolerance [Myllykoski2015a, eq. (4.5)]; > 0. */
  double tolerance = 1e-4;
  /** The starting point. */
  L1MCInitialization initialization = L1MCInitialization::Zero;
  /** The corner mass of Sub #4. */
  L1MCCornerMass cornerMass = L1MCCornerMass::Exact;
  /** How Sub #2 is solved. */
  L1MCSub2Solver sub2Solver = L1MCSub2Solver::Direct;

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;
};

/**
 * r0 for a noise level sigma of an image scaled to [0, 1] (sigma / dataRange):
 * r0 = 0.005 (sigma / 0.1)^1.75, the PSNR-optimal r0 of photographs (fitted at
 * 256 x 256, Gaussian and uniform noise, sigma = 0.025 to 0.2, by
 * examples/l1mc_r0_calibration.py; within 20 % of [Myllykoski2015a, Table 1]
 * for uniform noise p = 0.1 to 0.4, sigma = p / sqrt(3)). Piecewise-constant
 * images do best with about 2.5 times more.
 */
double
L1MCR0ForNoise(double normalizedSigma);

/**
 * A run has converged only when, besides the relative change of L_rh, each
 * constraint residual R1-R3 (L1MCIterationInfo) is below this: the relative
 * change can pause early while the constraints are still far from holding.
 */
constexpr double kL1MCConstraintTolerance = 0.05;

/** What one outer iteration reached, in the normalised units (f / dataRange). */
struct L1MCIterationInfo
{
  unsigned iteration = 0;      ///< 1-based
  double objective = 0.0;      ///< J_h(u^n), the discrete objective
  double lagrangian = 0.0;     ///< L_rh at the iterate [Myllykoski2015a, eq. (3.15)]
  double relativeChange = 0.0; ///< |L^{n-1} - L^n| / |L^{n-1}|, the stopping quantity
  /** The constraint residuals R1, R2, R3 [Myllykoski2015a, §5]: relative misfits of grad u = p1, p2 = p3, div_h p3 =
   * psi. */
  double r1Residual = 0.0;
  double r2Residual = 0.0; ///< see r1Residual
  double r3Residual = 0.0; ///< see r1Residual
  /** Share of triangles on which Newton's candidate was accepted in Sub #1. */
  double newtonSuccess = 0.0;
  unsigned cgIterations = 0; ///< conjugate-gradient steps of Sub #2 (0 with L1MCSub2Solver::Direct)
};

/** Seconds spent per subproblem over the run (on OpenCL measured from device events). */
struct L1MCTimings
{
  double sub1 = 0.0; ///< (p1, p2): Newton and the bisection fallback
  double sub2 = 0.0; ///< p3: the direct solve or conjugate gradients, and the residual check
  double sub3 = 0.0; ///< psi: shrinkage
  double sub4 = 0.0; ///< u: PSCR (and the corner correction)
  double misc = 0.0; ///< multiplier updates, the objective and Lagrangian reductions
};

/** What a run did. */
struct L1MCReport
{
  ResolvedBackend backend; ///< what ran
  unsigned iterations = 0; ///< outer iterations run
  bool converged =
    false; ///< the relative change of L_rh fell below the tolerance, with R1-R3 below kL1MCConstraintTolerance
  /** The parameters as resolved (r0 from sigma, h, the data range, eps, r1-r3, sigma and whether it was estimated). */
  double r0 = 0.0;
  double meshSize = 0.0;       ///< see r0
  double dataRange = 0.0;      ///< see r0
  double epsilon = 0.0;        ///< see r0
  double r1 = 0.0;             ///< see r0
  double r2 = 0.0;             ///< see r0
  double r3 = 0.0;             ///< see r0
  double noiseSigma = 0.0;     ///< in the units of f (0 when r0 was given)
  bool sigmaEstimated = false; ///< noiseSigma was estimated from f
  /** J_h of the data, J_h(f) (normalised units); J(f) / eps is the regulariser of f. */
  double objectiveOfData = 0.0;
  /** The last iteration's values (also in history.back()). */
  L1MCIterationInfo last;
  /** Every iteration. */
  std::vector<L1MCIterationInfo> history;
  /** Relative residual of the last Sub #4 solve, ||b - A u|| / ||b||, and of the last Sub #2 solve. */
  double sub4Residual = 0.0;
  double sub2Residual = 0.0; ///< see sub4Residual
  L1MCTimings timings;       ///< per subproblem
  double seconds = 0.0;      ///< wall time of the solve (upload to download)
  /** Sentences for the caller (budget exhausted, ...), as TVReport::warnings. */
  std::vector<std::string> warnings;
};

/** Called after every outer iteration; return false to abort (the engine throws gpur::Aborted). */
using L1MCIterationCallback = std::function<bool(const L1MCIterationInfo &)>;

/**
 * Denoises the 2D image f into u (grid.Count() values, x fastest; grid
 * dimension 2, at least 3 x 3 pixels). Real is float or double. u is written
 * only when the run succeeds. The grid's spacing makes the mesh anisotropic:
 * the steps are h * spacing / min(spacing). Throws InvalidArgument for a bad
 * grid, parameters or non-finite input, Aborted when a callback returns false,
 * OpenCLError / BuildError for a device failure, NumericalError when the
 * iteration produces non-finite values.
 */
template<typename Real>
L1MCReport
DenoiseL1MeanCurvature(const Real * f,
                       Real * u,
                       const Grid & grid,
                       const L1MCParameters & parameters,
                       const ExecutionOptions & execution = ExecutionOptions(),
                       const ProgressCallback & progress = ProgressCallback(),
                       const L1MCIterationCallback & iteration = L1MCIterationCallback());

/** "float32" or "float64". */
template<typename Real>
const char *
L1MCPrecisionName();

} // namespace gpur

#endif
