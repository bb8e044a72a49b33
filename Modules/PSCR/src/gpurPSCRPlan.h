// SPDX-License-Identifier: Apache-2.0
// The PSCR plan: everything a solve needs that does not depend on the
// right-hand side, as flat arrays a device backend can upload unchanged.
// Built by BuildPSCRPlan (gpurPSCRPlan.cxx); executed on the CPU by
// gpurPSCRSolver.cxx.
#ifndef gpurPSCRPlan_h
#define gpurPSCRPlan_h

#include "gpurPSCRFastTransforms.h"
#include "gpurPSCRSolver.h"

#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

namespace gpur
{

/**
 * One block of a reduction level: the rows strictly between two consecutive
 * elements of {0} u J_i u {n + 1} (the sets D_l^{(i)} of [Myllykoski2018, §2.1,
 * condition (iii)]), 0-based here, whose right-hand side is supported on the
 * rows of J_{i-1} inside it.
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

/** What BuildPSCRPlan computes of the reduced axes. */
enum class PlanContent
{
  /** Everything a PSCR solve needs: the block eigenvalues and eigenvector entries of every level. */
  Full,
  /**
   * The level and block tables (Levels(), TridiagonalSolveCount()) and each
   * axis' own eigenvalues (the singularity and well-posedness checks), but no
   * block eigenproblems: the plan of an operator whose solves take the
   * fast-transform path, which never reads them (PSCRAxisPlan::values and
   * vectors stay empty; such a plan cannot run PSCR).
   */
  Structure
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
  /** Most refinement steps per solve (PSCROptions::refinementSteps resolved). */
  unsigned refinementSteps = 0;
  /** Whether the reduced axes have their block eigenpairs (only then can PSCR run on this plan). */
  PlanContent content = PlanContent::Full;
  /** Real and positive (semi)definite: every partial solve as well conditioned as A (see gpurPSCRSolver.h). */
  bool wellPosed = true;
  /**
   * The CPU solves' fast-transform path (gpurPSCRFastTransforms.h), when it
   * runs; set by PSCRSolver for real scalars, not by BuildPSCRPlan or CastPlan.
   */
  std::shared_ptr<const FastTransformSolver<Scalar>> fast;
  /**
   * The OpenCL solves' fast-transform path: every axis' TrigAxis when it runs
   * (gpurPSCRFastTransformsDevice.h), else empty; set by PSCRSolver.
   */
  std::vector<TrigAxis> trig;
  /** With trig: the full plan of the two axes left, when two are (their PSCR solves per mode), else null. */
  std::shared_ptr<const PSCRPlan<Scalar>> remainder;

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
 * Singular operators, both backends: returns |e^T f| / (|e| |f|) given
 * absEf = |e^T f| and f2 = |f|^2, and throws InvalidArgument (saying how to
 * fix f) when it exceeds plan.compatibilityTolerance.
 */
template<typename Scalar>
double
CheckNullCompatibility(const PSCRPlan<Scalar> & plan, double absEf, double f2);

/**
 * The plan with its arrays converted to another scalar type of the same kind
 * (double -> float: the float solver's plan from the double one it keeps for
 * solves in double; the eigenproblems are solved in double either way).
 */
template<typename To, typename From>
PSCRPlan<To>
CastPlan(const PSCRPlan<From> & from)
{
  PSCRPlan<To> to;
  auto cast = [](const auto & v) { return std::vector<To>(v.begin(), v.end()); };
  for (const AxisFactors<From> & a : from.axes)
    to.axes.push_back(CastAxis<To>(a));
  to.shift = static_cast<To>(from.shift);
  to.radix = from.radix;
  to.tridiagonal = from.tridiagonal;
  to.reduced.resize(from.reduced.size());
  for (std::size_t d = 0; d < from.reduced.size(); ++d)
  {
    const PSCRAxisPlan<From> & a = from.reduced[d];
    PSCRAxisPlan<To> & b = to.reduced[d];
    b.n = a.n;
    b.levels = a.levels;
    b.values = cast(a.values);
    b.vectors = cast(a.vectors);
    b.maxJobs = a.maxJobs;
    b.maxBlocks = a.maxBlocks;
    b.nullIndex = a.nullIndex;
  }
  to.singular = from.singular;
  for (const std::vector<From> & e : from.nullVector)
    to.nullVector.push_back(cast(e));
  for (const std::vector<From> & e : from.massNullVector)
    to.massNullVector.push_back(cast(e));
  to.compatibilityTolerance = from.compatibilityTolerance;
  to.tridiagonalSolves = from.tridiagonalSolves;
  to.refinementSteps = from.refinementSteps;
  to.wellPosed = from.wellPosed;
  to.content = from.content;
  to.trig = from.trig;
  if (from.remainder)
    to.remainder = std::make_shared<const PSCRPlan<To>>(CastPlan<To>(*from.remainder));
  return to;
}

/**
 * Validates the operator (2 or 3 axes) and the options and builds the plan.
 * `dataEpsilon` is the machine epsilon of the data the solves receive (the
 * default compatibility tolerance is its square root): the double plan of a
 * float solver is built for float data.
 */
template<typename Scalar>
PSCRPlan<Scalar>
BuildPSCRPlan(const SeparableOperator<Scalar> & op,
              const PSCROptions & options,
              const ParallelForFunction & loop,
              double dataEpsilon = std::numeric_limits<RealType<Scalar>>::epsilon(),
              PlanContent content = PlanContent::Full);

} // namespace gpur

#endif
