// SPDX-License-Identifier: Apache-2.0
#include "gpurPSCRPlan.h"

#include "gpurError.h"
#include "gpurPSCRInternal.h"
#include "gpurTridiagonalEigen.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <map>
#include <string>
#include <type_traits>
#include <utility>

namespace gpur
{

namespace
{

// The eigenproblems ([Myllykoski2018, eq. (2.15)]) are solved in double
// whatever the scalar.
template<typename Scalar>
using Precise = std::conditional_t<IsComplex<Scalar>::value, std::complex<double>, double>;

// Below this size a block's eigenproblem runs on one thread, and the blocks of
// a level run in parallel; above it the eigenvalues of the block run in parallel.
constexpr std::size_t kParallelEigenSize = 128;

// An operator eigenvalue below this fraction of the spectrum's scale counts as zero.
constexpr double kSingularTolerance = 1e-10;

// Refinement steps: the automatic limit (the slowest case of the test sweep,
// a 3D indefinite P1 problem in double, contracts 28x per step and needs 6)
// and the most allowed.
constexpr int kAutomaticRefinementSteps = 8;
constexpr int kMaxRefinementSteps = 16;

void
SerialLoop(std::size_t n, const RangeBody & body)
{
  if (n > 0)
  {
    body(0, n);
  }
}

template<typename T>
SymmetricTridiagonal<T>
Restrict(const SymmetricTridiagonal<T> & m, std::size_t first, std::size_t size)
{
  SymmetricTridiagonal<T> out;
  out.diagonal.assign(m.diagonal.begin() + first, m.diagonal.begin() + first + size);
  out.offDiagonal.assign(m.offDiagonal.begin() + first, m.offDiagonal.begin() + first + size - 1);
  return out;
}

// Same restricted pencil at rows a.. and b.. (uniform meshes: every inner block).
template<typename T>
bool
SameBlock(const AxisFactors<T> & f, std::size_t a, std::size_t b, std::size_t size)
{
  for (std::size_t i = 0; i < size; ++i)
  {
    if (f.A.diagonal[a + i] != f.A.diagonal[b + i] || f.M.diagonal[a + i] != f.M.diagonal[b + i])
      return false;
  }
  for (std::size_t i = 0; i + 1 < size; ++i)
  {
    if (f.A.offDiagonal[a + i] != f.A.offDiagonal[b + i] || f.M.offDiagonal[a + i] != f.M.offDiagonal[b + i])
      return false;
  }
  return true;
}

// One distinct block pencil and the rows of its eigenvectors PSCR reads.
template<typename T>
struct EigenTask
{
  std::size_t first = 0, size = 0;
  std::vector<std::size_t> rows;
  TridiagonalPencilEigen<T> result;
};

// The reduction sets for one axis ([Myllykoski2018, §2.1]; its eq. (2.14)
// covers n = q^k - 1 only, these any n): k = floor(log_q n) + 1 levels,
// J_i = multiples of q^i; the blocks of level i lie between consecutive
// elements of {0} u J_i u {n + 1}, and their right-hand sides on J_{i-1}.
template<typename Scalar>
PSCRAxisPlan<Scalar>
BuildAxis(const AxisFactors<Scalar> & axis,
          unsigned q,
          const ParallelForFunction & loop,
          EigenvectorAccuracy accuracy,
          PlanContent content,
          std::vector<Precise<Scalar>> & topValues)
{
  using P = Precise<Scalar>;
  PSCRAxisPlan<Scalar> plan;
  const std::size_t n = axis.Size();
  plan.n = n;
  std::vector<EigenTask<P>> tasks;
  std::vector<std::vector<std::size_t>> blockTask; // per level, per block: its task
  std::size_t step = 1;
  while (step <= n)
  {
    const std::size_t sub = step;
    step *= q;
    PSCRLevel level;
    std::vector<std::size_t> taskOfBlock;
    std::map<std::size_t, std::size_t> lastTaskOfSize;
    for (std::size_t a = 0; a <= n; a += step)
    {
      const std::size_t b = std::min(a + step, n + 1);
      const std::size_t size = b - a - 1;
      const std::size_t rhsCount = size / sub;
      if (size == 0 || rhsCount == 0)
      {
        continue; // no rows, or no right-hand side rows: nothing to solve ([Myllykoski2015, Lemma 3.7])
      }
      PSCRBlock block;
      block.first = a;
      block.size = size;
      block.rhsFirst = a + sub - 1;
      block.rhsStride = sub;
      block.rhsCount = static_cast<unsigned>(rhsCount);
      block.job = level.jobs;
      level.jobs += size;
      const auto found = lastTaskOfSize.find(size);
      if (found != lastTaskOfSize.end() && SameBlock(axis, tasks[found->second].first, a, size))
      {
        taskOfBlock.push_back(found->second);
      }
      else
      {
        EigenTask<P> task;
        task.first = a;
        task.size = size;
        task.rows.push_back(0); // the block ends, then the right-hand-side rows
        task.rows.push_back(size - 1);
        for (std::size_t t = 0; t < rhsCount; ++t)
        {
          task.rows.push_back(sub - 1 + t * sub);
        }
        lastTaskOfSize[size] = tasks.size();
        taskOfBlock.push_back(tasks.size());
        tasks.push_back(std::move(task));
      }
      level.blocks.push_back(block);
    }
    plan.maxJobs = std::max(plan.maxJobs, level.jobs);
    plan.maxBlocks = std::max(plan.maxBlocks, level.blocks.size());
    plan.levels.push_back(std::move(level));
    blockTask.push_back(std::move(taskOfBlock));
  }

  if (content == PlanContent::Structure)
    return plan; // the tables only; the caller finds the axis' eigenvalues (AxisEigenvalues)
  const AxisFactors<P> precise = CastAxis<P>(axis);
  auto solve = [&](EigenTask<P> & task, const ParallelForFunction & inner)
  {
    task.result = SolveTridiagonalPencil(Restrict(precise.A, task.first, task.size),
                                         Restrict(precise.M, task.first, task.size),
                                         task.rows,
                                         inner,
                                         accuracy);
  };
  std::vector<std::size_t> small;
  for (std::size_t t = 0; t < tasks.size(); ++t)
  {
    if (tasks[t].size >= kParallelEigenSize)
      solve(tasks[t], loop);
    else
      small.push_back(t);
  }
  pscr::ForEachRange(&loop,
                     small.size(),
                     [&](std::size_t b, std::size_t e)
                     {
                       for (std::size_t s = b; s < e; ++s)
                         solve(tasks[small[s]], SerialLoop);
                     });

  std::vector<std::size_t> valueOffset(tasks.size()), vectorOffset(tasks.size());
  for (std::size_t t = 0; t < tasks.size(); ++t)
  {
    valueOffset[t] = plan.values.size();
    vectorOffset[t] = plan.vectors.size();
    for (const P & v : tasks[t].result.values)
      plan.values.push_back(static_cast<Scalar>(v));
    for (const P & v : tasks[t].result.vectors)
      plan.vectors.push_back(static_cast<Scalar>(v));
  }
  for (std::size_t i = 0; i < plan.levels.size(); ++i)
  {
    for (std::size_t j = 0; j < plan.levels[i].blocks.size(); ++j)
    {
      plan.levels[i].blocks[j].values = valueOffset[blockTask[i][j]];
      plan.levels[i].blocks[j].vectors = vectorOffset[blockTask[i][j]];
    }
  }
  // The top level is one block, the whole axis: its eigenvalues are the axis'.
  topValues = tasks[blockTask.back().front()].result.values;
  return plan;
}

// The eigenvalues of an axis' pencil (A, M), in any order: in closed form on
// the axes of the fast transforms (gpurPSCRFastTransforms.h; the general
// pencil solver takes 0.11 s for an axis of 2047 on 2 cores, more than the
// rest of a fast-transform setup once FFTW has wisdom).
template<typename Scalar>
std::vector<Precise<Scalar>>
AxisEigenvalues(const AxisFactors<Scalar> & axis, const ParallelForFunction & loop)
{
  if constexpr (!IsComplex<Scalar>::value)
  {
    const TrigAxis trig = DetectTrigAxis(CastAxis<double>(axis));
    if (trig.kind != TrigTransformKind::None)
      return trig.eigenvalues;
  }
  const AxisFactors<Precise<Scalar>> precise = CastAxis<Precise<Scalar>>(axis);
  return TridiagonalPencilEigenvalues(precise.A, precise.M, loop);
}

// Solves per right-hand side: reduction at levels 1..k-1, back substitution at 1..k.
template<typename Scalar>
std::size_t
AxisSolves(const PSCRAxisPlan<Scalar> & axis)
{
  std::size_t count = 0;
  for (std::size_t i = 0; i < axis.levels.size(); ++i)
  {
    count += (i + 1 < axis.levels.size() ? 2 : 1) * axis.levels[i].jobs;
  }
  return count;
}

template<typename T>
double
MaxAbs(const std::vector<T> & values)
{
  double m = 0;
  for (const T & v : values)
    m = std::max(m, std::abs(v));
  return m;
}

// Zero eigenvalues c + lambda_x + lambda_y (+ lambda_z) of the operator, as
// index tuples (x, y, z): for each combination of the other axes, a window
// search in the x eigenvalues sorted by real part.
template<typename P>
std::vector<std::array<std::size_t, 3>>
ZeroEigenvalues(const std::vector<std::vector<P>> & spectra, P shift)
{
  double scale = std::abs(shift);
  for (const std::vector<P> & s : spectra)
    scale += MaxAbs(s);
  const double tolerance = kSingularTolerance * scale;
  std::vector<std::pair<double, std::size_t>> sorted;
  for (std::size_t l = 0; l < spectra[0].size(); ++l)
    sorted.emplace_back(std::real(spectra[0][l]), l);
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::array<std::size_t, 3>> zeros;
  const std::size_t ny = spectra[1].size();
  const std::size_t nz = spectra.size() > 2 ? spectra[2].size() : 1;
  for (std::size_t z = 0; z < nz; ++z)
  {
    for (std::size_t y = 0; y < ny; ++y)
    {
      const P target = -(shift + spectra[1][y] + (spectra.size() > 2 ? spectra[2][z] : P(0)));
      auto it =
        std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(std::real(target) - tolerance, std::size_t(0)));
      for (; it != sorted.end() && it->first <= std::real(target) + tolerance; ++it)
      {
        if (std::abs(spectra[0][it->second] - target) <= tolerance)
          zeros.push_back({ it->second, y, z });
      }
    }
  }
  return zeros;
}

template<typename T>
bool
IsRealData(const std::vector<T> & values)
{
  return std::all_of(values.begin(), values.end(), [](const T & v) { return std::imag(v) == 0; });
}

// Whether no partial solve can be closer to singular than the operator itself:
// with real data (M_d positive definite) the eigenvalues of a block of axis d
// lie in [lambda_min,d, lambda_max,d] (Cauchy interlacing for the pencil), so
// when c + sum_d lambda_min,d >= 0 every shifted subproblem of the reduction
// has eigenvalues c + lambda_B + ... >= that sum. Otherwise (indefinite, or
// complex) a subproblem can come arbitrarily close to singular although the
// operator does not, which costs PSCR accuracy (see gpurPSCRSolver.h).
template<typename Scalar, typename P>
bool
PartialSolvesWellPosed(const SeparableOperator<Scalar> & op, const std::vector<std::vector<P>> & spectra)
{
  if (std::imag(op.shift) != 0)
    return false;
  for (const AxisFactors<Scalar> & a : op.axes)
  {
    if (!IsRealData(a.A.diagonal) || !IsRealData(a.A.offDiagonal) || !IsRealData(a.M.diagonal) ||
        !IsRealData(a.M.offDiagonal))
      return false;
  }
  double lowest = std::real(op.shift), scale = std::abs(op.shift);
  for (const std::vector<P> & s : spectra)
  {
    double smallest = std::numeric_limits<double>::infinity();
    for (const P & v : s)
      smallest = std::min(smallest, std::real(v));
    lowest += smallest;
    scale += MaxAbs(s);
  }
  // Semidefinite (pure-Neumann Poisson) counts as well posed: only the top
  // level reaches lambda_min, and the singular path handles it.
  return lowest >= -kSingularTolerance * scale;
}

template<typename Scalar>
std::vector<Scalar>
ToScalar(const std::vector<Precise<Scalar>> & v)
{
  std::vector<Scalar> out;
  for (const auto & x : v)
    out.push_back(static_cast<Scalar>(x));
  return out;
}

} // namespace

void
PSCROptions::Validate() const
{
  if (radix != 2 && radix != 4)
  {
    throw InvalidArgument("PSCR radix q is " + std::to_string(radix) + "; q must be 2 or 4");
  }
  tridiagonal.Validate();
  if (refinementSteps < -1 || refinementSteps > kMaxRefinementSteps)
  {
    throw InvalidArgument("PSCR refinementSteps is " + std::to_string(refinementSteps) +
                          "; it must be -1 (automatic: " + std::to_string(kAutomaticRefinementSteps) + ") or 0 to " +
                          std::to_string(kMaxRefinementSteps));
  }
  if (!(residualTolerance >= 0 && std::isfinite(residualTolerance)))
  {
    throw InvalidArgument("PSCR residualTolerance is " + std::to_string(residualTolerance) +
                          "; it must be a finite relative residual >= 0 (0: a multiple of the rounding floor)");
  }
  if (precision != PSCRPrecision::Automatic && precision != PSCRPrecision::Scalar && precision != PSCRPrecision::Double)
  {
    throw InvalidArgument("PSCR precision is not one of Automatic, Scalar, Double");
  }
  if (!(compatibilityTolerance >= 0 && compatibilityTolerance <= 1))
  {
    throw InvalidArgument("PSCR compatibilityTolerance is " + std::to_string(compatibilityTolerance) +
                          "; it must be in [0, 1] (0: the default sqrt(epsilon))");
  }
}

const char *
ToString(PSCRPrecision precision)
{
  switch (precision)
  {
    case PSCRPrecision::Automatic:
      return "Automatic";
    case PSCRPrecision::Scalar:
      return "Scalar";
    case PSCRPrecision::Double:
      return "Double";
  }
  return "unknown";
}

template<typename Scalar>
PSCRPlan<Scalar>
BuildPSCRPlan(const SeparableOperator<Scalar> & op,
              const PSCROptions & options,
              const ParallelForFunction & loop,
              double dataEpsilon,
              PlanContent content)
{
  using P = Precise<Scalar>;
  options.Validate();
  op.Validate();
  const unsigned dims = static_cast<unsigned>(op.axes.size());
  if (dims < 2)
  {
    throw InvalidArgument("PSCR needs a 2D or 3D operator; this one has " + std::to_string(dims) +
                          " axis (solve a 1D system with SolveShiftedTridiagonalBatch)");
  }
  PSCRPlan<Scalar> plan;
  plan.axes = op.axes;
  plan.shift = op.shift;
  plan.radix = options.radix;
  plan.content = content;
  plan.tridiagonal = options.tridiagonal;
  plan.compatibilityTolerance =
    options.compatibilityTolerance > 0 ? options.compatibilityTolerance : std::sqrt(dataEpsilon);
  plan.reduced.resize(dims);
  // Double data need the eigenvectors in extended precision to land near
  // their rounding floor without refinement; float data do not (the double
  // eigenvectors' errors are far below float's).
  const EigenvectorAccuracy accuracy =
    dataEpsilon < 1e-10 ? EigenvectorAccuracy::Extended : EigenvectorAccuracy::Double;
  std::vector<std::vector<P>> spectra(dims);
  for (unsigned d = 0; d < dims; ++d)
  {
    try
    {
      if (d > 0)
        plan.reduced[d] = BuildAxis(op.axes[d], options.radix, loop, accuracy, content, spectra[d]);
      if (d == 0 || content == PlanContent::Structure)
        spectra[d] = AxisEigenvalues(op.axes[d], loop);
    }
    catch (const InvalidArgument & e)
    {
      throw InvalidArgument("PSCR axis " + std::to_string(d) + ": " + e.what());
    }
  }

  const std::vector<std::array<std::size_t, 3>> zeros = ZeroEigenvalues(spectra, static_cast<P>(op.shift));
  if (zeros.size() > 1)
  {
    throw InvalidArgument("the separable operator is singular with a null space of dimension " +
                          std::to_string(zeros.size()) +
                          " (several sums c + lambda_x + lambda_y (+ lambda_z) vanish); PSCR handles a "
                          "one-dimensional null space only, change the shift c");
  }
  if (zeros.size() == 1)
  {
    plan.singular = true;
    for (unsigned d = 0; d < dims; ++d)
    {
      const AxisFactors<P> a = CastAxis<P>(op.axes[d]);
      const std::vector<P> e = TridiagonalPencilEigenvector(a.A, a.M, spectra[d][zeros[0][d]]);
      std::vector<P> me(e.size());
      for (std::size_t i = 0; i < e.size(); ++i)
      {
        me[i] = a.M.diagonal[i] * e[i];
        if (i > 0)
          me[i] += a.M.offDiagonal[i - 1] * e[i - 1];
        if (i + 1 < e.size())
          me[i] += a.M.offDiagonal[i] * e[i + 1];
      }
      plan.nullVector.push_back(ToScalar<Scalar>(e));
      plan.massNullVector.push_back(ToScalar<Scalar>(me));
      if (d > 0)
        plan.reduced[d].nullIndex = zeros[0][d];
    }
  }

  plan.refinementSteps =
    static_cast<unsigned>(options.refinementSteps >= 0 ? options.refinementSteps : kAutomaticRefinementSteps);
  plan.wellPosed = PartialSolvesWellPosed(op, spectra);

  plan.tridiagonalSolves = 1;
  for (unsigned d = 1; d < dims; ++d)
    plan.tridiagonalSolves *= AxisSolves(plan.reduced[d]);
  return plan;
}

#define GPUR_INSTANTIATE_PSCR_PLAN(T)                                                                                  \
  template PSCRPlan<T> BuildPSCRPlan<T>(                                                                               \
    const SeparableOperator<T> &, const PSCROptions &, const ParallelForFunction &, double, PlanContent);

GPUR_INSTANTIATE_PSCR_PLAN(float)
GPUR_INSTANTIATE_PSCR_PLAN(double)
GPUR_INSTANTIATE_PSCR_PLAN(std::complex<float>)
GPUR_INSTANTIATE_PSCR_PLAN(std::complex<double>)

} // namespace gpur
