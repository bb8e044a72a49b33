// The PSCR plan: everything a solve needs that does not depend on the
// right-hand side, as flat arrays a device backend can upload unchanged.
// Built by BuildPSCRPlan (gpurPSCRPlan.cxx); executed on the CPU by
// gpurPSCRSolver.cxx.
#ifndef gpurPSCRPlan_h
#define gpurPSCRPlan_h

#include "gpurPSCRSolver.h"

#include <cstddef>
#include <limits>
#include <vector>

namespace gpur
{

/**
 * One block of a reduction level: the rows strictly between two consecutive
 * elements of {0} u J_i u {n + 1} (digest §4.4), 0-based here, whose
 * right-hand side is supported on the rows of J_{i-1} inside it.
 */
struct PSCRBlock
{
  std::size_t first = 0; ///< first row of the block
  std::size_t size = 0;  ///< m, its number of rows
  /** Rows of J_{i-1} in the block: rhsFirst + t * rhsStride, t < rhsCount (<= q - 1). */
  std::size_t rhsFirst = 0;
  std::size_t rhsStride = 1;
  unsigned rhsCount = 0;
  /** Offset of its m eigenvalues in PSCRAxisPlan::values. */
  std::size_t values = 0;
  /**
   * Offset of its eigenvector entries in PSCRAxisPlan::vectors: (2 + rhsCount)
   * rows of m, row 0 = w_l[first], row 1 = w_l[last], row 2 + t = w_l[rhs row t].
   */
  std::size_t vectors = 0;
  /** Index of its first partial solve (eigenpair 0) among the level's solves. */
  std::size_t job = 0;
};

struct PSCRLevel
{
  std::vector<PSCRBlock> blocks; ///< only blocks with rhsCount > 0
  std::size_t jobs = 0;          ///< sum of the block sizes: partial solves per pass
};

/** The reduction of one axis (d >= 1). */
template<typename Scalar>
struct PSCRAxisPlan
{
  std::size_t n = 0;
  std::vector<PSCRLevel> levels; ///< levels[i - 1] is level i = 1..k; level k is the whole axis
  std::vector<Scalar> values;
  std::vector<Scalar> vectors;
  std::size_t maxJobs = 0;
  std::size_t maxBlocks = 0;
  /** Singular operators: the top-level eigenpair of this axis in the null vector. */
  std::size_t nullIndex = std::numeric_limits<std::size_t>::max();
};

template<typename Scalar>
struct PSCRPlan
{
  std::vector<AxisFactors<Scalar>> axes; ///< x first
  Scalar shift = Scalar(0);
  unsigned radix = 4;
  TridiagonalOptions tridiagonal;
  /** reduced[d] for d >= 1 (reduced[0] is unused: x is solved by tridiagonal systems). */
  std::vector<PSCRAxisPlan<Scalar>> reduced;

  bool singular = false;
  /** Singular: e_d and M_d e_d per axis, with e_d^T M_d e_d = 1. */
  std::vector<std::vector<Scalar>> nullVector, massNullVector;
  double compatibilityTolerance = 0;

  std::size_t tridiagonalSolves = 0;
  /** Iterative refinement steps after each solve (PSCROptions::refinementSteps resolved). */
  unsigned refinementSteps = 0;

  std::size_t
  Count() const
  {
    std::size_t count = 1;
    for (const AxisFactors<Scalar> & axis : axes)
      count *= axis.Size();
    return count;
  }
  /** Unknowns of the axes below d (the size of one block row of axis d). */
  std::size_t
  InnerCount(unsigned d) const
  {
    std::size_t count = 1;
    for (unsigned e = 0; e < d; ++e)
      count *= axes[e].Size();
    return count;
  }
};

/**
 * Singular operators, both backends: throws InvalidArgument (saying how to fix
 * f) unless |e^T f| / (|e| |f|) <= plan.compatibilityTolerance, given
 * absEf = |e^T f| and f2 = |f|^2.
 */
template<typename Scalar>
void
CheckNullCompatibility(const PSCRPlan<Scalar> & plan, double absEf, double f2);

/** Both backends: throws InvalidArgument unless the solution's `count` values are finite. */
template<typename Scalar>
void
RequireFiniteSolution(const Scalar * u, std::size_t count);

/** Validates the operator (2 or 3 axes) and the options and builds the plan. */
template<typename Scalar>
PSCRPlan<Scalar>
BuildPSCRPlan(const SeparableOperator<Scalar> & op, const PSCROptions & options, const ParallelForFunction & loop);

} // namespace gpur

#endif
