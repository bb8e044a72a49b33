// SPDX-License-Identifier: Apache-2.0
// Engine of sparse recovery with partial circulant sensing [Fiandrotti2018]:
// plain arrays in, plain arrays out.
//
// The measurements are y = P C B x (+ noise): x the unknown signal (a 1D
// signal of n values or a 2D image of nx x ny pixels), B an optional periodic
// blur (the point-spread function; identity without one), C a circulant
// (block circulant with circulant blocks in 2D) sensing matrix given by its
// first row, P the selection of the m sampled rows Omega [Fiandrotti2018,
// §4]. The solvers minimise the LASSO
//     1/2 ||y - A x||^2 + alpha ||x||_1,   A = P C B   [Fiandrotti2018, eq. (3)]
// by
//   CPISTA: iterative soft thresholding [Fiandrotti2018, Algorithm 1],
//   FISTA:  its accelerated form [Beck2009, eq. (4.1)-(4.3)],
//   CPADMM: the partial-circulant ADMM [Fiandrotti2018, Algorithm 3; Yin2010],
// with every product by C, C^T and (rho C^T C + sigma I)^-1 an FFT pair
// (gpurFFT.h): memory linear in n, O(n log n) per iteration, where the paper's
// kernels loop O(n) per entry.
//
// Conventions. Arrays are x fastest (index = y * nx + x). The measurements are
// exchanged zero-filled: a full-size array holding y_i at the sampled
// positions i in Omega and 0 elsewhere (P^T y), so a 2D measurement is an
// image with the mask beside it. C's first row v gives C_ij = v_(j - i) mod n
// (2D: per axis); C x is the periodic cross-correlation of x with v.
//
// Units. alpha defaults to a fraction of alpha_max = ||A^T y||_inf (the
// smallest alpha whose solution is 0), and the steps and penalties are relative
// to ||A||^2, so scaling y scales x by the same factor (to rounding) and
// scaling the sensing matrix leaves the iteration unchanged.
#ifndef gpurSparseRecovery_h
#define gpurSparseRecovery_h

#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurProgress.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpur
{

/**
 * The sensing operator A = P C B. Every array has Count() values (x fastest),
 * except the point-spread function, which has its own size.
 */
struct CirculantSensing
{
  /** The axes, fastest first: {n} for a 1D signal, {nx, ny} for an image; each >= 2. */
  std::vector<std::size_t> size;
  /** The first row v of C: C_ij = v_(j - i) mod n, per axis in 2D [Fiandrotti2018, §4.2]. Finite, not all 0. */
  std::vector<double> generator;
  /** The sampling set Omega: 1 where a row of C is measured, 0 elsewhere; at least one 1. */
  std::vector<std::uint8_t> mask;
  /**
   * Optional blur B (empty: none): a point-spread function of psfSize values,
   * centred at index psfSize / 2 per axis (integer division, the convention of
   * ITK's convolution filters), applied as a periodic convolution; each axis
   * of psfSize at most the signal's. Finite, with a nonzero sum.
   */
  std::vector<double> psf;
  /** The size of psf, as many axes as size. */
  std::vector<std::size_t> psfSize;
  /** Scale psf to a unit sum (the default), so that blurring keeps the total flux. */
  bool normalizePSF = true;

  /** Number of unknowns n (nx * ny). */
  std::size_t
  Count() const;
  /** Number of measurements m (ones in the mask). */
  std::size_t
  Measurements() const;
  /** Throws InvalidArgument naming what is wrong (sizes, non-finite values, an empty mask, a zero PSF sum). */
  void
  Validate() const;
};

/**
 * A random Gaussian partial circulant sensing operator, reproducible from the
 * seed on every platform: generator entries N(0, 1/m) (so ||A|| is about
 * 1 + sqrt(n/m)), and exactly m = round(ratio * n) sampled positions drawn
 * uniformly without replacement. The generator is a SplitMix64 stream turned
 * into normals by the Box-Muller transform (written out in the source so that
 * Python, the tools and the filters draw the same numbers). 0 < ratio <= 1.
 */
CirculantSensing
MakeGaussianCirculantSensing(const std::vector<std::size_t> & size, double ratio, std::uint64_t seed);

/**
 * The measurements of x (sensing.Count() values): y = P C B x, zero-filled
 * (Count() values, 0 outside the mask). Real is float or double.
 */
template<typename Real>
void
MeasureCirculant(const CirculantSensing & sensing,
                 const Real * x,
                 Real * y,
                 const ExecutionOptions & execution = ExecutionOptions());

/**
 * The operators of a sensing on one backend, for tests and for users who
 * build their own solvers: A, A^T and the FFT inversion of (rho C'^T C' + sigma I)
 * with C' = C B [Fiandrotti2018, §4.2]. Host arrays in and out (an OpenCL
 * operator copies them to the device and back). Real is float or double.
 */
template<typename Real>
class CirculantOperator
{
public:
  /** Plans the transforms; throws InvalidArgument for a bad sensing, and for double on a device without fp64. */
  CirculantOperator(const CirculantSensing & sensing, const ExecutionOptions & execution = ExecutionOptions());
  ~CirculantOperator();
  /** Movable. */
  CirculantOperator(CirculantOperator &&) noexcept;
  /** Movable. */
  CirculantOperator &
  operator=(CirculantOperator &&) noexcept;
  CirculantOperator(const CirculantOperator &) = delete;
  CirculantOperator &
  operator=(const CirculantOperator &) = delete;

  /** y = P C B x, zero-filled outside the mask (Count() values each). */
  void
  Apply(const Real * x, Real * y) const;
  /** x = B^T C^T P^T y (y zero-filled; values outside the mask are ignored). */
  void
  ApplyTranspose(const Real * y, Real * x) const;
  /** x = (rho C'^T C' + sigma I)^-1 b, C' = C B; rho >= 0, sigma > 0. */
  void
  SolveShifted(double rho, double sigma, const Real * b, Real * x) const;
  /** ||C B||^2 = max_k |c_k b_k|^2 over the spectrum: an upper bound of ||A||^2. */
  double
  NormSquaredBound() const;
  /** The backend the operator runs on. */
  const ResolvedBackend &
  Backend() const;
  /** Bytes the operator holds on its backend (spectra and work arrays): linear in n. */
  std::size_t
  Bytes() const;

private:
  class Impl;
  std::unique_ptr<Impl> m_Impl;
};

/** The iteration. */
enum class SparseSolver
{
  CPISTA, ///< iterative soft thresholding with the circulant operators [Fiandrotti2018, Algorithm 1]
  FISTA,  ///< its accelerated form [Beck2009]; the same 4 FFTs per iteration as CPADMM, but more iterations
  CPADMM  ///< the partial-circulant ADMM [Fiandrotti2018, Algorithm 3]
};

/** How CPISTA/FISTA threshold: the proximal step's alpha * step (default) or the paper's printed eta_alpha. */
enum class SparseThreshold
{
  /** eta_(alpha tau): the proximal gradient step of the LASSO with weight alpha. The default. */
  Proximal,
  /**
   * eta_alpha as printed in [Fiandrotti2018, Algorithm 1]: the LASSO with
   * weight alpha / tau. Kept to reproduce the paper.
   */
  PaperLiteral
};

/** "CPISTA" / "FISTA" / "CPADMM". */
const char *
ToString(SparseSolver solver);
/** "Proximal" / "PaperLiteral". */
const char *
ToString(SparseThreshold threshold);
/** Parses "cpista" / "ista", "fista", "cpadmm" / "admm" (case-insensitive); throws InvalidArgument otherwise. */
SparseSolver
ParseSparseSolver(const std::string & text);
/** Parses "proximal" or "paper" / "paperliteral" (case-insensitive); throws InvalidArgument otherwise. */
SparseThreshold
ParseSparseThreshold(const std::string & text);

/** Parameters of a recovery. */
struct SparseRecoveryParameters
{
  /** The iteration. */
  SparseSolver solver = SparseSolver::FISTA;
  /** The l1 weight alpha of the LASSO, absolute (units of A^T y); 0 (default): relativeAlpha * ||A^T y||_inf. */
  double alpha = 0.0;
  /** alpha as a fraction of alpha_max = ||A^T y||_inf, in (0, 1); used when alpha is 0. */
  double relativeAlpha = 1e-3;
  /** CPISTA/FISTA step tau, in (0, 2 / ||A||^2); 0 (default): 1 / NormSquaredBound(). */
  double step = 0.0;
  /** CPISTA/FISTA threshold convention. */
  SparseThreshold threshold = SparseThreshold::Proximal;
  /**
   * CPADMM penalty rho of v = C x, >= 0 (dimensionless: the data term has unit weight). 0 (default): automatic,
   * rho = 100 a with a = alpha / alpha_max the resolved relative weight (relativeAlpha when alpha is 0). The
   * fastest penalties scale with a: rho ~ 100 a and relativeSigma ~ 10 a were within 16 % of the best of a grid
   * at a = 1e-5, 1e-4 and 1e-3 (the calibration in docs/benchmarks.md, "Sparse recovery"), where fixed
   * penalties tuned for a = 1e-3 need 30 times more iterations at a = 1e-5.
   */
  double rho = 0.0;
  /**
   * CPADMM penalty sigma of z = x relative to ||A||^2 (sigma = relativeSigma * NormSquaredBound()), >= 0.
   * 0 (default): automatic, relativeSigma = 10 a (see rho).
   */
  double relativeSigma = 0.0;
  /** CPADMM dual steps tau1 = tau2, in (0, (1 + sqrt 5) / 2) for convergence [Fiandrotti2018, §4.3]. */
  double dualStep = 1.0;
  /** Project on x >= 0 in the threshold (sources of light, densities): the prox of alpha ||x||_1 + i_(x >= 0). */
  bool nonnegative = false;
  /** Stop when, at a check (see checkInterval), ||x_k - x_(k-1)|| / ||x_k|| < tolerance, > 0. */
  double tolerance = 1e-6;
  /**
   * And the relative duality gap (P - D) / P at that point is below gapTolerance (> 0) for "converged".
   * In float the gap is only known to about 5e-7 / relativeAlpha (the rounding of A^T (y - A x) against
   * alpha): below relativeAlpha = 1e-3, run in double or raise gapTolerance.
   */
  double gapTolerance = 1e-3;
  /** At most this many iterations, >= 1. */
  unsigned maximumIterations = 5000;
  /**
   * The relative change, the objective and the duality gap (4 extra FFTs and one wait for the device) are
   * measured every checkInterval iterations (>= 1) and at the last one; the run stops only at these checks.
   */
  unsigned checkInterval = 10;

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;
};

/**
 * For benchmarks and tests: a known solution to measure the error against
 * and stop at (null: none). The run stops at the first check (see
 * SparseRecoveryParameters::checkInterval) where ||x - truth|| / ||truth||
 * <= targetRelativeError (0: never by the truth).
 */
template<typename Real>
struct SparseRecoveryTruth
{
  const Real * truth = nullptr;     ///< Count() values, or null
  double targetRelativeError = 0.0; ///< stop at this relative error (0: do not stop by it)
};

/** What one iteration reached (reported every iteration). */
struct SparseIterationInfo
{
  unsigned iteration = 0; ///< 1-based
  double relativeChange =
    0.0; ///< ||x_k - x_(k-1)|| / ||x_k|| where measured (every checkInterval iterations), else NaN
  /** The LASSO objective 1/2 ||y - A x||^2 + alpha ||x||_1 where measured (every checkInterval iterations), else NaN.
   */
  double objective = 0.0;
  double relativeGap = 0.0;   ///< the relative duality gap where computed, else NaN
  double relativeError = 0.0; ///< ||x - truth|| / ||truth|| where measured, when a truth is given, else NaN
};

/** Why a run stopped. */
enum class SparseStop
{
  Converged,        ///< relative change below tolerance and gap below gapTolerance
  TruthReached,     ///< the target relative error against the given truth
  MaximumIterations ///< not converged
};

/** What a run did. */
struct SparseRecoveryReport
{
  ResolvedBackend backend;                         ///< what ran
  SparseStop stop = SparseStop::MaximumIterations; ///< why the run stopped
  bool converged = false;  ///< stop is Converged (or TruthReached with the gap below gapTolerance)
  unsigned iterations = 0; ///< iterations done
  /**
   * The parameters as resolved: alpha, alpha_max, the step (CPISTA/FISTA), rho and sigma (CPADMM), ||A||^2's
   * bound.
   */
  double alpha = 0.0;
  double alphaMax = 0.0;         ///< see alpha
  double step = 0.0;             ///< see alpha
  double rho = 0.0;              ///< see alpha
  double sigma = 0.0;            ///< see alpha
  double normSquaredBound = 0.0; ///< see alpha
  /**
   * At the output: objective, relative duality gap, data residual ||y - A x|| / ||y||, nonzeros, relative change.
   * The objective and gap are those of the LASSO the iteration solves: weight alpha, or alpha / step with
   * SparseThreshold::PaperLiteral.
   */
  double objective = 0.0;
  double relativeGap = 0.0;      ///< see objective
  double relativeResidual = 0.0; ///< see objective
  std::size_t nonzeros = 0;      ///< see objective
  double relativeChange = 0.0;   ///< see objective
  double relativeError = 0.0;    ///< against the truth, when given (else NaN)
  /** Every iteration. */
  std::vector<SparseIterationInfo> history;
  /** Bytes held on the backend during the solve (operator, iterates, work arrays). */
  std::size_t bytes = 0;
  double setupSeconds = 0.0; ///< planning and the spectra (the paper's "inversion" time)
  double seconds = 0.0;      ///< wall time of the solve (upload to download, setup included)
  /** Sentences for the caller (not converged, ...). */
  std::vector<std::string> warnings;
};

/** Called after every iteration; return false to abort (the engine throws gpur::Aborted). */
using SparseIterationCallback = std::function<bool(const SparseIterationInfo &)>;

/**
 * Recovers x (sensing.Count() values) from the zero-filled measurements y
 * (Count() values; entries outside the mask are ignored). Real is float or
 * double. x is written only when the run succeeds. Throws InvalidArgument for
 * a bad sensing, parameters or non-finite input, Aborted when a callback
 * returns false, OpenCLError / BuildError for a device failure,
 * NumericalError when the iteration produces non-finite values.
 */
template<typename Real>
SparseRecoveryReport
RecoverSparse(const CirculantSensing & sensing,
              const Real * y,
              Real * x,
              const SparseRecoveryParameters & parameters,
              const ExecutionOptions & execution = ExecutionOptions(),
              const ProgressCallback & progress = ProgressCallback(),
              const SparseIterationCallback & iteration = SparseIterationCallback(),
              const SparseRecoveryTruth<Real> & truth = SparseRecoveryTruth<Real>());

} // namespace gpur

#endif
