// SPDX-License-Identifier: Apache-2.0
// The discrepancy principle [Morozov1966] as a search for the fidelity weight
// lambda of a denoiser: the lambda whose result differs from the data by as
// much as the noise does. Every denoiser that takes a noise level shares it
// (plain TV, statistical TV): the family supplies one solve at a given lambda,
// this search chooses the lambdas and checks that each solve converged.
//
// The scaling law. A model  min_u (lambda/2) ||u - f||^2 + R(u)  whose
// regulariser R is homogeneous of degree 1 in the intensities and of degree -1
// in the length (TV: sum |grad u|, the differences divided by the spacing h)
// is scale-covariant: (s f, lambda / s) gives s u, and spacing a h with
// lambda / a gives the same u. So lambda has units 1 / (intensity * length),
// and for noise of standard deviation sigma the dimensionless weight is
// lambda * sigma * h: the same lambda sigma h smooths [0, 1] data with unit
// spacing and CT data in HU at 0.7 mm alike. NoiseBalancedLambda is the
// search's start, lambda sigma h = 1.
#ifndef gpurDiscrepancyPrinciple_h
#define gpurDiscrepancyPrinciple_h

#include "gpurGrid.h"
#include "gpurProgress.h"

#include <functional>
#include <limits>
#include <vector>

namespace gpur
{

/** One solve of a search: its lambda, the discrepancy of its result, and how it converged. */
struct DiscrepancySolve
{
  double lambda = 0.0; ///< the fidelity weight of this solve
  /** The family's normalised residual, e.g. sum (u - f)^2 / var / N; it falls as lambda grows. */
  double discrepancy = 0.0;
  unsigned iterations = 0;  ///< iterations run
  double relativeGap = 0.0; ///< the relative primal-dual gap |(P - D)/P| at the end
  bool converged = false;   ///< the solve met its stopping tolerance (its discrepancy is the model's)
};

/** What the search aims at and how hard it tries. */
struct DiscrepancySearchOptions
{
  /** The discrepancy to meet: > 0 and below maximumDiscrepancy. */
  double target = 1.0;
  /** Relative tolerance of the match |discrepancy / target - 1|, in (0, 0.5]. */
  double tolerance = 0.02;
  /** The most solves (the retries of unconverged solves included), >= 2. */
  unsigned maximumSolves = 16;
  /** The first lambda (> 0): NoiseBalancedLambda of the noise level. */
  double initialLambda = 1.0;
  /** The iteration budget of a solve (>= 1); one that does not converge runs again with 4 times as many. */
  unsigned maxIterations = 2000;
  /**
   * The discrepancy as lambda -> 0 (the result then tends to a constant): no
   * lambda reaches a target at or above it. Infinity when the family does not know it.
   */
  double maximumDiscrepancy = std::numeric_limits<double>::infinity();
};

/**
 * The family's solve at `lambda` with at most `maxIterations` iterations. It
 * writes its result where the caller keeps it (the last solve of a search is
 * at the lambda the search returns, so the caller's output is the result) and
 * reports progress to `progress`.
 */
using DiscrepancySolveFunction =
  std::function<DiscrepancySolve(double lambda, unsigned maxIterations, const ProgressCallback & progress)>;

/** What a search did. */
struct DiscrepancySearchReport
{
  double lambda = 0.0;                   ///< the lambda of the result (that of the last solve)
  double discrepancy = 0.0;              ///< its discrepancy, within the tolerance of the target
  unsigned solves = 0;                   ///< solves run, the retries of unconverged ones included
  std::vector<DiscrepancySolve> history; ///< every solve, in order
};

/**
 * Throws InvalidArgument naming the bad setting of a denoiser's discrepancy
 * search: a factor (the target; 0 means "calibrated" to the families) that is
 * negative or not finite, a tolerance outside (0, 0.5], fewer than 2 solves,
 * or, when the search is on (`automatic`), a gap tolerance or check interval
 * of 0 (the search needs converged solves).
 */
void
ValidateDiscrepancySearch(double factor,
                          double tolerance,
                          unsigned maximumSolves,
                          bool automatic,
                          double gapTolerance,
                          unsigned gapCheckInterval);

/**
 * Finds lambda with |discrepancy(lambda) / target - 1| <= tolerance, assuming
 * the discrepancy falls as lambda grows (more fidelity). From initialLambda it
 * brackets the target by factors of 4, then narrows the bracket by regula falsi
 * on (log lambda, log discrepancy), where the discrepancy is close to a power
 * of lambda. Every solve must converge: one that stops at maxIterations runs
 * again at the same lambda with 4 times the iterations (both are in the
 * history; smaller lambdas smooth more and need more iterations). The
 * callback sees one progress range over the search: solve k of at most
 * maximumSolves covers ((k - 1) / K, k / K] (NestedProgress, "lambda solve").
 *
 * Throws InvalidArgument for a target outside (0, maximumDiscrepancy) (the
 * message gives the reachable range) or bad options, Error when a solve does
 * not converge with the larger budget or the target is not met in
 * maximumSolves solves; whatever `solve` throws (e.g. Aborted) passes through.
 */
DiscrepancySearchReport
SearchDiscrepancyLambda(const DiscrepancySolveFunction & solve,
                        const DiscrepancySearchOptions & options,
                        const ProgressCallback & callback = ProgressCallback());

/** The report of one solve at a fixed lambda (no search), for the fronts that take either. */
DiscrepancySearchReport
SolveAtFixedLambda(const DiscrepancySolveFunction & solve,
                   double lambda,
                   unsigned maxIterations,
                   const ProgressCallback & callback = ProgressCallback());

/**
 * lambda = 1 / (sigma h), h the geometric mean of the grid's spacing: the
 * weight at which fidelity and regularisation balance for noise sigma (see the
 * scaling law above), and so where a search for it starts. sigma > 0.
 */
double
NoiseBalancedLambda(double sigma, const Grid & grid);

} // namespace gpur

#endif
