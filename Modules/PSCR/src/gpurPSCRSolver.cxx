// SPDX-License-Identifier: Apache-2.0
// PSCRSolver and its CPU execution of the plan ([Myllykoski2018, §2.3,
// eqs. (2.16)-(2.19)] on the sets J_i = multiples of q^i, and the 3D recursion
// of eq. (2.6)).
#include "gpurPSCRSolver.h"

#include "gpurAutoBackend.h"
#include "gpurBuffer.h"
#include "gpurError.h"
#include "gpurPSCRDevice.h"
#include "gpurPSCRInternal.h"
#include "gpurPSCRCheckedSolve.h"
#include "gpurPSCRPlan.h"
#include "gpurStopwatch.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

namespace gpur
{

namespace
{

// Sums over the whole array (compatibility, null component) run in double.
template<typename Scalar>
using Wide = std::conditional_t<IsComplex<Scalar>::value, std::complex<double>, double>;

// Memory of one thread: per reduced axis the partial solutions Z and the
// boundary vectors V of the level being processed, and the tridiagonal
// workspace. Sequential inner solves of axis d - 1 use the entries below d.
template<typename Scalar>
struct Scratch
{
  std::vector<std::vector<Scalar>> z, v;
  std::vector<TridiagonalWork<Scalar>> tridiagonal;

  explicit Scratch(std::size_t dims)
    : z(dims)
    , v(dims)
  {
  }

  static Scalar *
  Buffer(std::vector<Scalar> & b, std::size_t size)
  {
    if (b.size() < size)
      b.resize(size);
    return b.data();
  }
};

template<typename Scalar>
void
Axpy(Scalar a, const Scalar * x, Scalar * y, std::size_t begin, std::size_t end)
{
  for (std::size_t s = begin; s < end; ++s)
    y[s] += a * x[s];
}

// u[s] = sum_{l < m} w[l] z_l[s] for s in [s0, s1), with z_l at z + l S,
// accumulated in TridiagonalWork<Scalar> over chunks that stay in cache, in
// the order of the OpenCL kernel pscr_back_update (l ascending).
template<typename Scalar>
void
WeightedSum(const Scalar * w,
            std::size_t m,
            const Scalar * z,
            std::size_t S,
            Scalar * u,
            std::size_t s0,
            std::size_t s1)
{
  using W = TridiagonalWork<Scalar>;
  constexpr std::size_t kChunk = 512;
  W acc[kChunk];
  for (std::size_t c0 = s0; c0 < s1; c0 += kChunk)
  {
    const std::size_t c1 = std::min(s1, c0 + kChunk);
    std::fill(acc, acc + (c1 - c0), W(0));
    for (std::size_t l = 0; l < m; ++l)
    {
      const W wl = static_cast<W>(w[l]);
      const Scalar * zl = z + l * S;
      for (std::size_t s = c0; s < c1; ++s)
        acc[s - c0] += wl * static_cast<W>(zl[s]);
    }
    for (std::size_t s = c0; s < c1; ++s)
      u[s] = static_cast<Scalar>(acc[s - c0]);
  }
}

// Splits "per block" work over the inner index too when the level has few
// blocks (the top levels), so that every thread gets a share.
void
ForEachBlockSlice(const ParallelForFunction * loop,
                  std::size_t blocks,
                  std::size_t inner,
                  const std::function<void(std::size_t block, std::size_t begin, std::size_t end)> & body)
{
  const std::size_t slices = blocks >= 16 ? 1 : std::min<std::size_t>(inner, 16 / blocks + 1);
  pscr::ForEachRange(loop,
                     blocks * slices,
                     [&](std::size_t i0, std::size_t i1)
                     {
                       for (std::size_t i = i0; i < i1; ++i)
                       {
                         const std::size_t b = i / slices, c = i % slices;
                         body(b, inner * c / slices, inner * (c + 1) / slices);
                       }
                     });
}

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

template<typename Scalar>
class CPUExecution
{
public:
  explicit CPUExecution(const PSCRPlan<Scalar> & plan)
    : m_Plan(plan)
  {
  }

  // Solves the problem of axes 0..d with shift `shift` in place on x:
  // (sum_e [A_e on axis e, M elsewhere] + shift M (x) ... (x) M) u = x.
  // `singularPath`: this problem is the singular one on the path of the null
  // vector; only then can its own top level hit the null eigenpair.
  void
  Axis(unsigned d,
       Scalar shift,
       Scalar * x,
       bool singularPath,
       Scratch<Scalar> & scratch,
       const ParallelForFunction * loop) const
  {
    if (d == 0)
    {
      Tridiagonal(shift, x, singularPath, scratch);
      return;
    }
    const PSCRPlan<Scalar> & p = m_Plan;
    const PSCRAxisPlan<Scalar> & ap = p.reduced[d];
    const AxisFactors<Scalar> & ax = p.axes[d];
    const std::size_t n = ap.n;
    const std::size_t S = p.InnerCount(d);
    const std::size_t k = ap.levels.size();
    Scalar * Z = Scratch<Scalar>::Buffer(scratch.z[d], ap.maxJobs * S);
    Scalar * V = Scratch<Scalar>::Buffer(scratch.v[d], 2 * ap.maxBlocks * S);
    auto row = [&](std::size_t r) { return x + r * S; };
    // y -= C_rs v with the coupling block of neighbouring rows r, s:
    // (A_rs + shift M_rs) M_inner + M_rs A_inner (T-hat, T-check, K-hat,
    // K-check of [Myllykoski2018, eqs. (2.16), (2.19)]; in 3D with the inner
    // operator of eq. (2.6)).
    auto couple = [&](std::size_t r, std::size_t s, const Scalar * v, Scalar * y)
    {
      const std::size_t o = std::min(r, s);
      const Scalar mrs = ax.M.offDiagonal[o];
      ApplySeparableTerms(p.axes.data(), d, ax.A.offDiagonal[o] + shift * mrs, mrs, v, y, true, nullptr);
    };
    // Partial-solution right-hand side sum_t w_l[rhs row t] f[rhs row t]
    // ([Myllykoski2018, eq. (2.17)]).
    auto gather = [&](const PSCRBlock & B, std::size_t l, Scalar * z)
    {
      const Scalar * w = ap.vectors.data() + B.vectors + 2 * B.size + l;
      std::fill(z, z + S, Scalar(0));
      for (unsigned t = 0; t < B.rhsCount; ++t)
        Axpy(w[t * B.size], row(B.rhsFirst + t * B.rhsStride), z, 0, S);
    };

    // Reduction, levels 1..k-1 ([Myllykoski2018, eqs. (2.16)-(2.17)], block by
    // block for any n).
    for (std::size_t i = 1; i < k; ++i)
    {
      const PSCRLevel & level = ap.levels[i - 1];
      PartialSolves(d, level, shift, Z, kNone, scratch, loop, gather);
      // v_first, v_last: the partial solutions at the block ends.
      ForEachBlockSlice(loop,
                        level.blocks.size(),
                        S,
                        [&](std::size_t b, std::size_t s0, std::size_t s1)
                        {
                          const PSCRBlock & B = level.blocks[b];
                          const Scalar * w = ap.vectors.data() + B.vectors;
                          Scalar * vFirst = V + 2 * b * S;
                          Scalar * vLast = vFirst + S;
                          std::fill(vFirst + s0, vFirst + s1, Scalar(0));
                          std::fill(vLast + s0, vLast + s1, Scalar(0));
                          for (std::size_t l = 0; l < B.size; ++l)
                          {
                            const Scalar * zl = Z + (B.job + l) * S;
                            Axpy(w[l], zl, vFirst, s0, s1);
                            Axpy(w[B.size + l], zl, vLast, s0, s1);
                          }
                        });
      // f^{(i+1)} on J_i: a row of J_i can end one block and start the next,
      // so the two updates run as two passes.
      pscr::ForEachRange(loop,
                         level.blocks.size(),
                         [&](std::size_t b0, std::size_t b1)
                         {
                           for (std::size_t b = b0; b < b1; ++b)
                           {
                             const PSCRBlock & B = level.blocks[b];
                             const std::size_t r = B.first + B.size;
                             if (r < n)
                               couple(r, r - 1, V + (2 * b + 1) * S, row(r));
                           }
                         });
      pscr::ForEachRange(loop,
                         level.blocks.size(),
                         [&](std::size_t b0, std::size_t b1)
                         {
                           for (std::size_t b = b0; b < b1; ++b)
                           {
                             const PSCRBlock & B = level.blocks[b];
                             if (B.first > 0)
                               couple(B.first - 1, B.first, V + 2 * b * S, row(B.first - 1));
                           }
                         });
    }

    // Back substitution, levels k..1 ([Myllykoski2018, eqs. (2.18)-(2.19)]): u
    // is known on J_i.
    for (std::size_t i = k; i >= 1; --i)
    {
      const PSCRLevel & level = ap.levels[i - 1];
      // -C u at the known neighbour rows of each block.
      pscr::ForEachRange(loop,
                         level.blocks.size(),
                         [&](std::size_t b0, std::size_t b1)
                         {
                           for (std::size_t b = b0; b < b1; ++b)
                           {
                             const PSCRBlock & B = level.blocks[b];
                             Scalar * gFirst = V + 2 * b * S;
                             Scalar * gLast = gFirst + S;
                             const std::size_t last = B.first + B.size - 1;
                             if (B.first > 0)
                             {
                               std::fill(gFirst, gFirst + S, Scalar(0));
                               couple(B.first, B.first - 1, row(B.first - 1), gFirst);
                             }
                             if (last + 1 < n)
                             {
                               std::fill(gLast, gLast + S, Scalar(0));
                               couple(last, last + 1, row(last + 1), gLast);
                             }
                           }
                         });
      const std::size_t singularJob = singularPath && i == k ? ap.nullIndex : kNone;
      PartialSolves(d,
                    level,
                    shift,
                    Z,
                    singularJob,
                    scratch,
                    loop,
                    [&](const PSCRBlock & B, std::size_t l, Scalar * z)
                    {
                      gather(B, l, z);
                      const std::size_t b = static_cast<std::size_t>(&B - level.blocks.data());
                      const Scalar * w = ap.vectors.data() + B.vectors;
                      if (B.first > 0)
                        Axpy(w[l], V + 2 * b * S, z, 0, S);
                      if (B.first + B.size < n)
                        Axpy(w[B.size + l], V + (2 * b + 1) * S, z, 0, S);
                    });
      // u on the right-hand-side rows: sum_l w_l[row] z_l, summed in the
      // tridiagonal work type (double for float data: the float sum over a
      // block's up to n eigenpairs cost 3x the rounding floor at 2047^2).
      ForEachBlockSlice(loop,
                        level.blocks.size(),
                        S,
                        [&](std::size_t b, std::size_t s0, std::size_t s1)
                        {
                          const PSCRBlock & B = level.blocks[b];
                          for (unsigned t = 0; t < B.rhsCount; ++t)
                            WeightedSum(ap.vectors.data() + B.vectors + (2 + t) * B.size,
                                        B.size,
                                        Z + B.job * S,
                                        S,
                                        row(B.rhsFirst + t * B.rhsStride),
                                        s0,
                                        s1);
                        });
    }
  }

private:
  void
  Tridiagonal(Scalar shift, Scalar * x, bool singularPath, Scratch<Scalar> & scratch) const
  {
    const AxisFactors<Scalar> & ax = m_Plan.axes[0];
    const std::size_t n = ax.Size();
    if (!singularPath)
    {
      SolveShiftedTridiagonalUnchecked(ax.A, ax.M, shift, n, x, m_Plan.tridiagonal, scratch.tridiagonal);
      return;
    }
    // The singular tridiagonal system at the end of the null vector's path:
    // its right-hand side is compatible, so dropping the last equation and
    // fixing u_{n-1} = 0 gives one solution; Solve() then removes the null
    // component of the whole result.
    if (n > 1)
      SolveShiftedTridiagonalUnchecked(ax.A, ax.M, shift, n - 1, x, m_Plan.tridiagonal, scratch.tridiagonal);
    x[n - 1] = Scalar(0);
  }

  // The partial solves of one level ([Myllykoski2018, §2.2, eq. (2.10)]): for
  // each block B and eigenpair l, z = rhs(B, l), then (inner
  // operator + (shift + lambda_{B,l}) M_inner) z = rhs.
  template<typename Rhs>
  void
  PartialSolves(unsigned d,
                const PSCRLevel & level,
                Scalar shift,
                Scalar * Z,
                std::size_t singularJob,
                Scratch<Scalar> & scratch,
                const ParallelForFunction * loop,
                const Rhs & rhs) const
  {
    const PSCRAxisPlan<Scalar> & ap = m_Plan.reduced[d];
    const std::size_t S = m_Plan.InnerCount(d);
    // The inner problems of d = 1 are tridiagonal solves of the same A_x and
    // M_x: they are solved kGroup at a time (SolveShiftedTridiagonalGroupUnchecked), the rest one by one.
    constexpr std::size_t kGroup = 16;
    const bool grouped = d == 1;
    auto body = [&](std::size_t j0, std::size_t j1, Scratch<Scalar> & inner)
    {
      std::size_t b = static_cast<std::size_t>(
        std::upper_bound(
          level.blocks.begin(), level.blocks.end(), j0, [](std::size_t j, const PSCRBlock & B) { return j < B.job; }) -
        level.blocks.begin() - 1);
      Scalar shifts[kGroup];
      Scalar * rows[kGroup];
      std::size_t pending = 0;
      for (std::size_t j = j0; j < j1; ++j)
      {
        while (j >= level.blocks[b].job + level.blocks[b].size)
          ++b;
        const PSCRBlock & B = level.blocks[b];
        const std::size_t l = j - B.job;
        Scalar * z = Z + j * S;
        rhs(B, l, z);
        const Scalar jobShift = shift + ap.values[B.values + l];
        if (!grouped || j == singularJob)
        {
          Axis(d - 1, jobShift, z, j == singularJob, inner, nullptr);
          continue;
        }
        shifts[pending] = jobShift;
        rows[pending++] = z;
        if (pending == kGroup || j + 1 == j1)
        {
          const AxisFactors<Scalar> & ax = m_Plan.axes[0];
          SolveShiftedTridiagonalGroupUnchecked(
            ax.A, ax.M, shifts, pending, rows, m_Plan.tridiagonal, inner.tridiagonal);
          pending = 0;
        }
      }
    };
    if (loop != nullptr && level.jobs > 1)
    {
      pscr::ForEachRange(loop,
                         level.jobs,
                         [&](std::size_t j0, std::size_t j1)
                         {
                           std::unique_ptr<Scratch<Scalar>> inner = TakeScratch();
                           body(j0, j1, *inner);
                           ReturnScratch(std::move(inner));
                         });
    }
    else
    {
      body(0, level.jobs, scratch);
    }
  }

  // The workspaces of the threads' partial solves, kept for the solve's next
  // level: allocated per level, their buffers (S x jobs, up to megabytes) cost
  // fresh pages, about 4 % of a 3D 127^3 solve.
  std::unique_ptr<Scratch<Scalar>>
  TakeScratch() const
  {
    const std::lock_guard<std::mutex> lock(m_ScratchMutex);
    if (m_Scratch.empty())
      return std::make_unique<Scratch<Scalar>>(m_Plan.axes.size());
    std::unique_ptr<Scratch<Scalar>> s = std::move(m_Scratch.back());
    m_Scratch.pop_back();
    return s;
  }

  void
  ReturnScratch(std::unique_ptr<Scratch<Scalar>> s) const
  {
    const std::lock_guard<std::mutex> lock(m_ScratchMutex);
    m_Scratch.push_back(std::move(s));
  }

  const PSCRPlan<Scalar> & m_Plan;
  mutable std::mutex m_ScratchMutex;
  mutable std::vector<std::unique_ptr<Scratch<Scalar>>> m_Scratch;
};

// Calls fn(index, value) for the tensor product of per-axis vectors (x first).
template<typename Scalar, typename F>
void
ForEachTensor(const std::vector<std::vector<Scalar>> & factors, F && fn)
{
  const std::size_t nx = factors[0].size(), ny = factors[1].size();
  const std::size_t nz = factors.size() > 2 ? factors[2].size() : 1;
  std::size_t index = 0;
  for (std::size_t z = 0; z < nz; ++z)
  {
    const Scalar fz = factors.size() > 2 ? factors[2][z] : Scalar(1);
    for (std::size_t y = 0; y < ny; ++y)
    {
      const Scalar fzy = fz * factors[1][y];
      for (std::size_t x = 0; x < nx; ++x, ++index)
        fn(index, fzy * factors[0][x]);
    }
  }
}

template<typename Scalar>
Wide<Scalar>
TensorDot(const std::vector<std::vector<Scalar>> & factors, const Scalar * u)
{
  Wide<Scalar> sum = 0;
  ForEachTensor(
    factors, [&](std::size_t i, Scalar e) { sum += static_cast<Wide<Scalar>>(e) * static_cast<Wide<Scalar>>(u[i]); });
  return sum;
}

// u <- A^-1 u on the CPU. Singular operators: f <- f - (e^T f) M e first
// (rounding-level for a right-hand side that ProjectOnCPU prepared, and for
// the refinement's residuals), and the solution with e^T M u = 0.
template<typename Scalar>
void
SolveOnCPU(const PSCRPlan<Scalar> & plan, Scalar * u, const ParallelForFunction & loop)
{
  if (plan.singular)
  {
    const Scalar c = static_cast<Scalar>(TensorDot(plan.nullVector, u));
    ForEachTensor(plan.massNullVector, [&](std::size_t i, Scalar me) { u[i] -= c * me; });
  }
  bool fast = false;
  if constexpr (!IsComplex<Scalar>::value)
  {
    if (plan.fast)
    {
      plan.fast->Solve(u, loop);
      fast = true;
    }
  }
  if (!fast)
  {
    if (plan.content != PlanContent::Full)
      throw Error("PSCR: internal error, a plan built for the fast transforms (no block eigenpairs) ran PSCR");
    Scratch<Scalar> scratch(plan.axes.size());
    CPUExecution<Scalar>(plan).Axis(
      static_cast<unsigned>(plan.axes.size() - 1), plan.shift, u, plan.singular, scratch, &loop);
  }
  if (plan.singular)
  {
    // The solution with e^T M u = 0.
    const Scalar c = static_cast<Scalar>(TensorDot(plan.massNullVector, u));
    ForEachTensor(plan.nullVector, [&](std::size_t i, Scalar e) { u[i] -= c * e; });
  }
}

// RequireFiniteScalars for a solve's right-hand side, in parallel and
// branch-free (the scan is one pass over f, a few percent of a fast solve);
// a non-finite value is then located and named by RequireFiniteScalars.
template<typename Scalar>
void
RequireFiniteInParallel(const Scalar * f, std::size_t count, const ParallelForFunction & loop, const char * what)
{
  using Real = RealType<Scalar>;
  const Real * parts = reinterpret_cast<const Real *>(f); // complex: (re, im) pairs
  const std::size_t n = count * (IsComplex<Scalar>::value ? 2 : 1);
  std::atomic<bool> bad{ false };
  pscr::ForEachRange(&loop,
                     n,
                     [&](std::size_t b, std::size_t e)
                     {
                       unsigned flag = 0;
                       for (std::size_t i = b; i < e; ++i)
                         flag |= !(std::abs(parts[i]) <= std::numeric_limits<Real>::max());
                       if (flag)
                         bad = true;
                     });
  if (bad)
    RequireFiniteScalars(f, count, what);
}

// The remainder of the fast-transform path (gpurPSCRFastTransforms.h): the
// problem of the axes left, solved by the CPU execution of `sub`, a plan of
// those axes (one axis: tridiagonal solves; two: PSCR).
template<typename Scalar>
RemainderFactory<Scalar>
MakeRemainder(std::shared_ptr<const PSCRPlan<Scalar>> sub)
{
  return [sub]() -> RemainderSolve<Scalar>
  {
    auto scratch = std::make_shared<Scratch<Scalar>>(sub->axes.size());
    return [sub, scratch](Scalar shift, Scalar * x, bool singularPath)
    {
      CPUExecution<Scalar>(*sub).Axis(
        static_cast<unsigned>(sub->axes.size() - 1), shift, x, singularPath, *scratch, nullptr);
    };
  };
}

// Whether some axis of the operator is one the fast transforms diagonalise.
bool
HasTrigAxis(const SeparableOperator<double> & op)
{
  return std::any_of(op.axes.begin(),
                     op.axes.end(),
                     [](const AxisFactors<double> & a)
                     { return FastTransformAxis(a).kind != TrigTransformKind::None; });
}

// The fast-transform solver of an operator (real, CPU backend), or null when no
// axis is a transform axis or the operator is singular with a null vector
// that is not the constants (see "Fast transforms" in gpurPSCRSolver.h).
// The plan of the remaining axes is built in double and rounded to Scalar,
// as the solver's own plan is.
template<typename Scalar>
std::shared_ptr<const FastTransformSolver<Scalar>>
MakeFastTransforms(const SeparableOperator<double> & op,
                   const PSCROptions & options,
                   bool singular,
                   const ParallelForFunction & loop)
{
  std::vector<TrigAxis> trig;
  std::vector<std::size_t> shape;
  SeparableOperator<double> rest;
  rest.shift = op.shift;
  for (const AxisFactors<double> & axis : op.axes)
  {
    trig.push_back(FastTransformAxis(axis));
    shape.push_back(axis.Size());
    if (trig.back().kind == TrigTransformKind::None)
      rest.axes.push_back(axis);
  }
  if (rest.axes.size() == op.axes.size() || (singular && op.shift != 0.0))
    return nullptr;
  auto sub = std::make_shared<PSCRPlan<Scalar>>();
  if (rest.axes.size() == 1)
  {
    sub->axes = { CastAxis<Scalar>(rest.axes[0]) };
    sub->shift = static_cast<Scalar>(op.shift);
    sub->tridiagonal = options.tridiagonal;
    sub->reduced.resize(1);
  }
  else if (rest.axes.size() == 2)
  {
    PSCROptions subOptions = options;
    subOptions.compatibilityTolerance = 1; // the sub-plan never checks a right-hand side
    *sub = CastPlan<Scalar>(BuildPSCRPlan(rest, subOptions, loop, std::numeric_limits<Scalar>::epsilon()));
  }
  return std::make_shared<const FastTransformSolver<Scalar>>(
    shape, trig, op.shift, MakeRemainder<Scalar>(sub), singular);
}

// Singular operators: the compatibility check of f and f <- f - (e^T f) M e,
// returning |e^T f| / (|e| |f|); others: 0.
template<typename Scalar>
double
ProjectOnCPU(const PSCRPlan<Scalar> & plan, Scalar * f)
{
  if (!plan.singular)
    return 0;
  const Wide<Scalar> ef = TensorDot(plan.nullVector, f);
  double f2 = 0;
  for (std::size_t i = 0, count = plan.Count(); i < count; ++i)
    f2 += std::norm(static_cast<Wide<Scalar>>(f[i]));
  const double ratio = CheckNullCompatibility(plan, std::abs(ef), f2);
  const Scalar c = static_cast<Scalar>(ef);
  ForEachTensor(plan.massNullVector, [&](std::size_t i, Scalar me) { f[i] -= c * me; });
  return ratio;
}

// u (which holds f) <- the solution for the plan, refined against rhs
// (gpurPSCRResidual.h); the floor for Final, the type the caller receives.
template<typename Final, typename T>
pscr::RefinementOutcome
RefineOnCPU(const PSCRPlan<T> & plan,
            const std::vector<std::vector<pscr::ColumnGram>> & gram,
            const T * rhs,
            T * u,
            const pscr::RefinementSettings & settings,
            const ParallelForFunction & loop)
{
  SolveOnCPU(plan, u, loop);
  // The checks store no residual; a correction evaluates it again into r (an
  // operator product, a small part of the solve that follows), so that a
  // solve that needs none writes no array beyond u.
  std::vector<T> r;
  return pscr::Refine(
    settings,
    [&] { return pscr::ResidualOnCPU<T, Final>(plan, gram, rhs, u, nullptr, loop); },
    [&]
    {
      r.resize(plan.Count());
      pscr::ResidualOnCPU<T, Final>(plan, gram, rhs, u, r.data(), loop);
      SolveOnCPU(plan, r.data(), loop);
      pscr::ForEachRange(&loop,
                         r.size(),
                         [&](std::size_t b, std::size_t e)
                         {
                           for (std::size_t i = b; i < e; ++i)
                             u[i] += r[i];
                         });
    });
}

/** Unknowns of Auto's probe: a few milliseconds a solve on a CPU (512^2, 64^3). */
constexpr std::size_t kAutoProbeCount = std::size_t(1) << 18;

template<typename Scalar>
const char *
PrecisionName()
{
  if constexpr (IsComplex<Scalar>::value)
    return std::is_same<RealType<Scalar>, float>::value ? "complex64" : "complex128";
  else
    return std::is_same<Scalar, float>::value ? "float32" : "float64";
}

/**
 * The operator on the leading entries of every axis, about maxCount unknowns
 * in all (each axis shrunk by the same factor): leading principal blocks of
 * the factors, so A and M keep their kind (positive definite M stays so).
 */
template<typename Scalar>
SeparableOperator<Scalar>
LeadingOperator(const SeparableOperator<Scalar> & op, std::size_t maxCount)
{
  if (op.Count() <= maxCount)
    return op;
  const double factor = std::pow(double(maxCount) / double(op.Count()), 1.0 / double(op.axes.size()));
  SeparableOperator<Scalar> out;
  out.shift = op.shift;
  for (const AxisFactors<Scalar> & axis : op.axes)
  {
    const std::size_t n = axis.Size();
    const std::size_t m = std::min(n, std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(n * factor))));
    auto lead = [m](const SymmetricTridiagonal<Scalar> & t)
    {
      SymmetricTridiagonal<Scalar> l;
      l.diagonal.assign(t.diagonal.begin(), t.diagonal.begin() + m);
      l.offDiagonal.assign(t.offDiagonal.begin(), t.offDiagonal.begin() + (m - 1));
      return l;
    };
    AxisFactors<Scalar> part{ lead(axis.A), lead(axis.M) };
    // A reflecting Neumann axis keeps its end row (w, not the interior 2w), so
    // that the part takes the fast transforms where the operator does.
    if constexpr (!IsComplex<Scalar>::value)
      if (m < n && DetectTrigAxis(CastAxis<double>(axis)).kind == TrigTransformKind::DCT2)
        part.A.diagonal.back() = axis.A.diagonal.back();
    out.axes.push_back(std::move(part));
  }
  return out;
}

/**
 * The axes of the OpenCL fast-transform path for a real operator on
 * `device` (see gpurPSCRFastTransformsDevice.h), or empty where PSCR runs:
 * DeviceTakesFastTransforms refuses the axes, or the operator is singular
 * with c != 0 (its null vector is then not the constants).
 */
std::vector<TrigAxis>
DeviceFastAxes(const SeparableOperator<double> & op, const DeviceInfo & device, bool singular)
{
  std::vector<TrigAxis> trig;
  for (const AxisFactors<double> & axis : op.axes)
    trig.push_back(FastTransformAxis(axis));
  if (!DeviceTakesFastTransforms(device, trig) || (singular && op.shift != 0.0))
    return {};
  return trig;
}

/**
 * Adds the OpenCL fast-transform path to `plan`, a plan of `op` (see
 * DeviceFastAxes): its axes and, with two axes left, the full plan of those
 * (built in double and rounded to Scalar, as the solver's own plan). False,
 * and the plan unchanged, where PSCR runs.
 */
template<typename Scalar>
bool
AttachDeviceFastPath(PSCRPlan<Scalar> & plan,
                     const SeparableOperator<double> & op,
                     const PSCROptions & options,
                     const DeviceInfo & device,
                     const ParallelForFunction & loop)
{
  std::vector<TrigAxis> trig = DeviceFastAxes(op, device, plan.singular);
  if (trig.empty())
    return false;
  SeparableOperator<double> rest;
  rest.shift = op.shift;
  for (std::size_t d = 0; d < trig.size(); ++d)
    if (trig[d].kind == TrigTransformKind::None)
      rest.axes.push_back(op.axes[d]);
  if (rest.axes.size() == 2)
  {
    PSCROptions sub = options;
    sub.compatibilityTolerance = 1; // the remainder never checks a right-hand side
    plan.remainder = std::make_shared<const PSCRPlan<Scalar>>(
      CastPlan<Scalar>(BuildPSCRPlan(rest, sub, loop, std::numeric_limits<RealType<Scalar>>::epsilon())));
  }
  plan.trig = std::move(trig);
  return true;
}

/**
 * A plan with the fast-transform path of `backend` added where the solver
 * would take it (Auto's probe times the path the solves run).
 */
template<typename Scalar>
std::shared_ptr<const PSCRPlan<Scalar>>
WithFastPath(std::shared_ptr<const PSCRPlan<Scalar>> plan,
             const SeparableOperator<Scalar> & op,
             const PSCROptions & options,
             const ResolvedBackend & backend,
             const ParallelForFunction & loop)
{
  if constexpr (IsComplex<Scalar>::value)
  {
    return plan;
  }
  else
  {
    if (!options.fastTransforms)
      return plan;
    const SeparableOperator<double> real = CastOperator<double>(op);
    auto out = std::make_shared<PSCRPlan<Scalar>>(*plan);
    if (backend.backend == Backend::OpenCL)
      AttachDeviceFastPath(*out, real, options, backend.device, loop);
    else if (HasTrigAxis(real))
      out->fast = MakeFastTransforms<Scalar>(real, options, plan->singular, loop);
    return out;
  }
}

/**
 * Auto's speed probe (gpurExecution.h): unchecked PSCR solves (the bulk of a
 * checked one) of the operator's leading part, at most about kAutoProbeCount
 * unknowns, with the solver's options. The plan is built when Auto measures,
 * in double and rounded as the solver's own; should the part's plan fail (an
 * indefinite operator can be singular on a part), the whole operator's is used.
 */
template<typename Scalar>
AutoProbe
MakeAutoProbe(const SeparableOperator<Scalar> & op, const PSCROptions & options, const ParallelForFunction & loop)
{
  using WideT = pscr::WideScalar<Scalar>;
  AutoProbe probe;
  const SeparableOperator<Scalar> part = LeadingOperator(op, kAutoProbeCount);
  probe.family = "PSCR";
  probe.precision = PrecisionName<Scalar>();
  probe.grid.dimension = static_cast<unsigned>(part.axes.size());
  for (std::size_t d = 0; d < part.axes.size(); ++d)
    probe.grid.size[d] = part.axes[d].Size();
  auto plan = std::make_shared<std::shared_ptr<const PSCRPlan<Scalar>>>();
  probe.prepare = [&op, part, options, loop, plan](const ResolvedBackend & candidate) -> ProbeSteps
  {
    if (*plan == nullptr)
    {
      auto build = [&](const SeparableOperator<Scalar> & o)
      {
        const PSCRPlan<WideT> wide =
          BuildPSCRPlan(CastOperator<WideT>(o), options, loop, std::numeric_limits<RealType<Scalar>>::epsilon());
        if constexpr (std::is_same<Scalar, WideT>::value)
          return std::make_shared<const PSCRPlan<Scalar>>(wide);
        else
          return std::make_shared<const PSCRPlan<Scalar>>(CastPlan<Scalar>(wide));
      };
      try
      {
        *plan = build(part);
      }
      catch (const Error &)
      {
        *plan = build(op);
      }
    }
    const std::shared_ptr<const PSCRPlan<Scalar>> p = WithFastPath(*plan, part, options, candidate, loop);
    auto rhs = std::make_shared<std::vector<Scalar>>(p->Count());
    for (std::size_t i = 0; i < rhs->size(); ++i)
      (*rhs)[i] = static_cast<Scalar>(static_cast<double>((i * 7919) % 1000) / 1000.0 - 0.5);
    if (candidate.backend != Backend::OpenCL)
    {
      auto u = std::make_shared<std::vector<Scalar>>(rhs->size());
      return [p, rhs, u, loop](unsigned steps)
      {
        for (unsigned i = 0; i < steps; ++i)
        {
          *u = *rhs; // from f each time: repeated A^-1 would drift towards overflow or denormals
          SolveOnCPU(*p, u->data(), loop);
        }
      };
    }
    auto device =
      std::make_shared<PSCRDeviceSolver<Scalar>>(p, candidate.device, pscr::MakeColumnGram(p->axes, p->shift));
    auto f = std::make_shared<DeviceBuffer<Scalar>>(device->Context(), rhs->size());
    f->Upload(device->Queue(), *rhs);
    return [device, f](unsigned steps)
    {
      const DeviceBuffer<Scalar> & u = device->Data();
      for (unsigned i = 0; i < steps; ++i)
      {
        device->Copy(f->Get(), u.Get());
        device->Pass(u.Get());
      }
      device->Queue().finish();
    };
  };
  return probe;
}

} // namespace

template<typename Scalar>
double
CheckNullCompatibility(const PSCRPlan<Scalar> & plan, double absEf, double f2)
{
  double e2 = 1;
  for (const std::vector<Scalar> & e : plan.nullVector)
  {
    double s = 0;
    for (const Scalar & v : e)
      s += std::norm(static_cast<Wide<Scalar>>(v));
    e2 *= s;
  }
  const double ratio = absEf > 0 ? absEf / std::sqrt(e2 * f2) : 0.0;
  if (ratio > plan.compatibilityTolerance)
  {
    throw IncompatibleRightHandSide(
      "the operator is singular (for pure-Neumann Poisson its null vector e is the constant) "
      "and f is not compatible with it: |e^T f| / (|e| |f|) = " +
      pscr::Scientific(ratio) + " > " + pscr::Scientific(plan.compatibilityTolerance) +
      "; remove that component from f (Neumann Poisson: make the sum of f zero) or "
      "raise PSCROptions::compatibilityTolerance");
  }
  return ratio;
}

// Everything a solver holds: the plan in the scalar type and in double (the
// same plan for double scalars), the column tables of the residual checks,
// and on OpenCL the device solvers; the double one of a float solver is made
// when a solve first needs it.
template<typename Scalar>
struct PSCRSolver<Scalar>::Solvers
{
  using WideT = pscr::WideScalar<Scalar>;
  static constexpr bool kNarrow = !std::is_same<Scalar, WideT>::value;

  std::shared_ptr<const PSCRPlan<WideT>> wide;
  std::shared_ptr<const PSCRPlan<Scalar>> plan;
  std::vector<std::vector<pscr::ColumnGram>> gram;
  ParallelForFunction loop;
  pscr::CheckedSolveSettings settings;
  std::atomic<bool> inDouble{ false };
  DeviceInfo device;
  std::shared_ptr<PSCRDeviceSolver<Scalar>> onDevice;
  std::shared_ptr<PSCRDeviceSolver<WideT>> wideOnDevice;
  std::mutex wideMutex;
  std::string path = "PSCR";
  /**
   * Float solvers on the fast-transform path: the double transforms of their
   * solves in double, made by WidePlan() when such a solve first runs (FFTW
   * plans a grid's transforms in up to about a second without wisdom, and
   * most float solves never need double).
   */
  std::function<std::shared_ptr<const FastTransformSolver<WideT>>()> makeWideFast;
  std::once_flag wideFastOnce;

  const PSCRPlan<WideT> &
  WidePlan()
  {
    std::call_once(wideFastOnce,
                   [this]
                   {
                     if (!makeWideFast)
                       return;
                     auto withFast = std::make_shared<PSCRPlan<WideT>>(*wide);
                     withFast->fast = makeWideFast();
                     wide = std::move(withFast);
                   });
    return *wide;
  }

  PSCRDeviceSolver<WideT> &
  WideOnDevice()
  {
    if constexpr (kNarrow)
    {
      const std::lock_guard<std::mutex> lock(wideMutex);
      if (!wideOnDevice)
        wideOnDevice = std::make_shared<PSCRDeviceSolver<WideT>>(wide, device, gram, true);
      return *wideOnDevice;
    }
    else
    {
      return *onDevice;
    }
  }
};

namespace
{

// The steps of a checked solve on the CPU (gpurPSCRCheckedSolve.h).
template<typename Scalar, typename Solvers>
class CPUSolve
{
public:
  using WideT = pscr::WideScalar<Scalar>;

  CPUSolve(Solvers & solvers, const Scalar * f, Scalar * u)
    : m_S(solvers)
    , m_F(f)
    , m_U(u)
  {
  }

  // The right-hand side the residuals are of: f itself, or a copy when the
  // solve overwrites f (u == f) or projects it (singular operators).
  // f is checked for non-finite values here, or, when the solve starts with
  // a copy of f, in that copy (one pass over f less: a few percent of a
  // fast-transform solve).
  double
  Prepare()
  {
    const std::size_t count = m_S.plan->Count();
    if (!m_S.plan->singular && m_F != m_U)
    {
      m_RhsPointer = m_F;
      return 0;
    }
    RequireFinite();
    m_Rhs.assign(m_F, m_F + count);
    m_RhsPointer = m_Rhs.data();
    return ProjectOnCPU(*m_S.plan, m_Rhs.data());
  }

  pscr::RefinementOutcome
  Solve(const pscr::RefinementSettings & settings)
  {
    const std::size_t count = m_S.plan->Count();
    CopyInParallel(m_RhsPointer, count, m_U);
    if (m_NonFinite)
      RequireFinite();
    return RefineOnCPU<Scalar>(*m_S.plan, m_S.gram, m_RhsPointer, m_U, settings, m_S.loop);
  }

  pscr::RefinementOutcome
  SolveWide(const pscr::RefinementSettings & settings)
  {
    RequireFinite();
    const std::vector<WideT> rhs(m_RhsPointer, m_RhsPointer + m_S.plan->Count());
    std::vector<WideT> u = rhs;
    const pscr::RefinementOutcome out =
      RefineOnCPU<Scalar>(m_S.WidePlan(), m_S.gram, rhs.data(), u.data(), settings, m_S.loop);
    std::transform(u.begin(), u.end(), m_U, [](const WideT & v) { return static_cast<Scalar>(v); });
    return out;
  }

  pscr::RefinementOutcome
  Check(const pscr::RefinementSettings & settings)
  {
    return pscr::Refine(
      settings,
      [&] { return pscr::ResidualOnCPU<Scalar, Scalar>(*m_S.plan, m_S.gram, m_RhsPointer, m_U, nullptr, m_S.loop); },
      [] {});
  }

private:
  // The check of f, once (RequireFiniteInParallel names the first bad value).
  void
  RequireFinite()
  {
    if (!m_Checked)
      RequireFiniteInParallel(m_F, m_S.plan->Count(), m_S.loop, "PSCR right-hand side f");
    m_Checked = true;
  }

  // to <- from; when from is f, unchecked, it is checked in the same pass
  // (m_NonFinite set on a non-finite value, m_Checked otherwise).
  void
  CopyInParallel(const Scalar * from, std::size_t count, Scalar * to)
  {
    if (from == to)
      return;
    const bool check = !m_Checked && from == m_F;
    using Real = RealType<Scalar>;
    std::atomic<bool> bad{ false };
    pscr::ForEachRange(&m_S.loop,
                       count,
                       [&](std::size_t b, std::size_t e)
                       {
                         std::copy(from + b, from + e, to + b);
                         if (!check)
                           return;
                         const Real * parts = reinterpret_cast<const Real *>(to + b); // complex: (re, im) pairs
                         unsigned flag = 0;
                         for (std::size_t i = 0, n = (e - b) * (IsComplex<Scalar>::value ? 2 : 1); i < n; ++i)
                           flag |= !(std::abs(parts[i]) <= std::numeric_limits<Real>::max());
                         if (flag)
                           bad = true;
                       });
    m_NonFinite = bad;
    m_Checked = check && !bad;
  }

  Solvers & m_S;
  const Scalar * m_F;
  Scalar * m_U;
  std::vector<Scalar> m_Rhs;
  const Scalar * m_RhsPointer = nullptr;
  bool m_Checked = false;
  bool m_NonFinite = false;
};

} // namespace

template<typename Scalar>
PSCRSolver<Scalar>::PSCRSolver(const SeparableOperator<Scalar> & op, const PSCROptions & options)
  : m_Solvers(std::make_shared<Solvers>())
{
  using WideT = typename Solvers::WideT;
  const Stopwatch clock;
  Solvers & s = *m_Solvers;
  s.loop = ResolveParallelFor(options.parallelFor ? options.parallelFor : options.execution.parallelFor);
  // The backend first: an unknown device or a missing fp64 (which the residual
  // checks need on OpenCL, whatever the scalar) fails before the eigenproblems
  // run. Auto on a CPU OpenCL driver measures solves of a part of the operator.
  m_Backend = ResolveBackend(options.execution, true, MakeAutoProbe(op, options, s.loop));
  // The eigenproblems are solved in double either way: the plan in double
  // first, and a float solver's own plan is its rounded copy.
  auto build = [&](PlanContent content)
  {
    return BuildPSCRPlan(
      CastOperator<WideT>(op), options, s.loop, std::numeric_limits<RealType<Scalar>>::epsilon(), content);
  };
  // The fast transforms, for real operators on the CPU backend: the solver's
  // own path and, for float data, the one of its solves in double. Their
  // solves never read the plan's block eigenpairs (a remainder of two axes
  // has its own plan), so the plan is then built without them; should the
  // path be refused (singular with c != 0), the full plan follows.
  PSCRPlan<WideT> widePlan;
  PSCRPlan<Scalar> plan;
  bool fast = false;
  if constexpr (!IsComplex<Scalar>::value)
  {
    if (options.fastTransforms && m_Backend.backend == Backend::CPU)
    {
      const SeparableOperator<double> real = CastOperator<double>(op);
      if (HasTrigAxis(real))
      {
        widePlan = build(PlanContent::Structure);
        auto own = MakeFastTransforms<Scalar>(real, options, widePlan.singular, s.loop);
        fast = own != nullptr;
        if (fast)
        {
          s.path = own->Description();
          if constexpr (Solvers::kNarrow)
          {
            plan = CastPlan<Scalar>(widePlan);
            plan.fast = std::move(own);
            s.makeWideFast = [real, options, singular = widePlan.singular, loop = s.loop]
            { return MakeFastTransforms<WideT>(real, options, singular, loop); };
          }
          else
          {
            widePlan.fast = std::move(own);
          }
        }
      }
    }
  }
  // On OpenCL likewise (gpurPSCRFastTransformsDevice.h): the plan without
  // eigenpairs, and a full plan of the axes left when two are.
  if constexpr (!IsComplex<Scalar>::value)
  {
    if (options.fastTransforms && m_Backend.backend == Backend::OpenCL)
    {
      const SeparableOperator<double> real = CastOperator<double>(op);
      if (!DeviceFastAxes(real, m_Backend.device, false).empty())
      {
        widePlan = build(PlanContent::Structure);
        fast = AttachDeviceFastPath(widePlan, real, options, m_Backend.device, s.loop);
        if (fast)
        {
          s.path = FastTransformDescription(widePlan.trig);
          if constexpr (Solvers::kNarrow)
            plan = CastPlan<Scalar>(widePlan);
        }
      }
    }
  }
  if (!fast)
  {
    widePlan = build(PlanContent::Full);
    if constexpr (Solvers::kNarrow)
      plan = CastPlan<Scalar>(widePlan);
  }
  s.wide = std::make_shared<const PSCRPlan<WideT>>(std::move(widePlan));
  if constexpr (Solvers::kNarrow)
    s.plan = std::make_shared<const PSCRPlan<Scalar>>(std::move(plan));
  else
    s.plan = s.wide;
  s.gram = pscr::MakeColumnGram(s.plan->axes, s.plan->shift);
  s.settings.maxSteps = s.plan->refinementSteps;
  s.settings.tolerance = options.residualTolerance;
  s.settings.precision = options.precision;
  if (Solvers::kNarrow && options.precision == PSCRPrecision::Double)
    s.WidePlan(); // every solve runs in double: its transforms planned now
  if (m_Backend.backend == Backend::OpenCL)
  {
    m_Backend.devices = { m_Backend.device }; // one device runs the solves
    s.device = m_Backend.device;
    s.onDevice = std::make_shared<PSCRDeviceSolver<Scalar>>(s.plan, s.device, s.gram);
    if (Solvers::kNarrow && options.precision == PSCRPrecision::Double)
      s.WideOnDevice(); // built now, so that a kernel or memory error surfaces here
  }
  m_SetupSeconds = clock.Seconds();
}

namespace
{
// The host solves' check of their arrays (`call` names the method in the message).
template<typename Scalar>
void
RequireHostArrays(const Scalar * f, const Scalar * u, const char * call)
{
  if (f == nullptr || u == nullptr)
    throw InvalidArgument(std::string("PSCRSolver::") + call + ": the right-hand side or solution pointer is null");
}
} // namespace

template<typename Scalar>
PSCRSolveReport
PSCRSolver<Scalar>::Solve(const Scalar * f, Scalar * u) const
{
  Solvers & s = *m_Solvers;
  RequireHostArrays(f, u, "Solve");
  PSCRSolveReport report;
  if (s.onDevice)
  {
    RequireFiniteInParallel(f, s.plan->Count(), s.loop, "PSCR right-hand side f");
    report = SolveOnDevice<Scalar>(
      *s.onDevice, [&]() -> auto & { return s.WideOnDevice(); }, f, u, s.settings, s.inDouble);
  }
  else
  {
    CPUSolve<Scalar, Solvers> run(s, f, u);
    report = pscr::CheckedSolve<Scalar>(run, s.settings, s.inDouble);
  }
  report.path = s.path;
  return report;
}

template<typename Scalar>
PSCRSolveReport
PSCRSolver<Scalar>::Solve(const DeviceBuffer<Scalar> & f, DeviceBuffer<Scalar> & u) const
{
  Solvers & s = *m_Solvers;
  if (!s.onDevice)
  {
    throw InvalidArgument("PSCRSolver::Solve on device buffers needs the OpenCL backend, but this solver runs on the "
                          "CPU (set PSCROptions::execution.backend to OpenCL, or solve host arrays)");
  }
  PSCRSolveReport report = SolveOnDevice<Scalar>(
    *s.onDevice, [&]() -> auto & { return s.WideOnDevice(); }, f, u, s.settings, s.inDouble);
  report.path = s.path;
  return report;
}

template<typename Scalar>
void
PSCRSolver<Scalar>::EnqueueSolve(const DeviceBuffer<Scalar> & f, DeviceBuffer<Scalar> & u) const
{
  Solvers & s = *m_Solvers;
  if (!s.onDevice)
  {
    throw InvalidArgument("PSCRSolver::EnqueueSolve needs the OpenCL backend, but this solver runs on the CPU");
  }
  if (!IsWellPosed() || ComputesInDouble())
  {
    throw InvalidArgument("PSCRSolver::EnqueueSolve solves without checking, which is only safe for real positive "
                          "(semi)definite operators in their own precision; this operator is indefinite or complex "
                          "(or its float solves need double): use Solve, which checks the residual");
  }
  EnqueueOnDevice(*s.onDevice, f, u);
}

template<typename Scalar>
void
PSCRSolver<Scalar>::SolveUnchecked(const Scalar * f, Scalar * u) const
{
  Solvers & s = *m_Solvers;
  RequireHostArrays(f, u, "SolveUnchecked");
  if (s.onDevice)
  {
    throw InvalidArgument("PSCRSolver::SolveUnchecked solves host arrays on the CPU backend, but this solver runs on "
                          "OpenCL: use EnqueueSolve on device buffers, or Solve");
  }
  if (!IsWellPosed() || s.plan->singular || ComputesInDouble())
  {
    throw InvalidArgument("PSCRSolver::SolveUnchecked solves without checking, which is only safe for positive "
                          "definite operators in their own precision; this operator is singular or indefinite, has "
                          "complex factors, or its float solves need double: use Solve, which checks the residual");
  }
  if (f != u)
  {
    pscr::ForEachRange(
      &s.loop, s.plan->Count(), [&](std::size_t begin, std::size_t end) { std::copy(f + begin, f + end, u + begin); });
  }
  SolveOnCPU(*s.plan, u, s.loop);
}

template<typename Scalar>
bool
PSCRSolver<Scalar>::IsWellPosed() const
{
  return m_Solvers->plan->wellPosed;
}

template<typename Scalar>
bool
PSCRSolver<Scalar>::ComputesInDouble() const
{
  return Solvers::kNarrow && (m_Solvers->inDouble.load() || m_Solvers->settings.precision == PSCRPrecision::Double);
}

template<typename Scalar>
const ResolvedBackend &
PSCRSolver<Scalar>::BackendUsed() const
{
  return m_Backend;
}

template<typename Scalar>
const std::string &
PSCRSolver<Scalar>::Path() const
{
  return m_Solvers->path;
}

template<typename Scalar>
DeviceContext &
PSCRSolver<Scalar>::Context() const
{
  if (!m_Solvers->onDevice)
  {
    throw InvalidArgument("PSCRSolver::Context: this solver runs on the CPU and has no OpenCL context");
  }
  return m_Solvers->onDevice->Context();
}

template<typename Scalar>
unsigned
PSCRSolver<Scalar>::Dimension() const
{
  return static_cast<unsigned>(m_Solvers->plan->axes.size());
}

template<typename Scalar>
std::size_t
PSCRSolver<Scalar>::Size(unsigned axis) const
{
  if (axis >= m_Solvers->plan->axes.size())
  {
    throw InvalidArgument("PSCRSolver::Size: axis " + std::to_string(axis) + " of a " +
                          std::to_string(m_Solvers->plan->axes.size()) + "D operator");
  }
  return m_Solvers->plan->axes[axis].Size();
}

template<typename Scalar>
std::size_t
PSCRSolver<Scalar>::Count() const
{
  return m_Solvers->plan->Count();
}

template<typename Scalar>
unsigned
PSCRSolver<Scalar>::Radix() const
{
  return m_Solvers->plan->radix;
}

template<typename Scalar>
unsigned
PSCRSolver<Scalar>::Levels(unsigned axis) const
{
  if (axis == 0 || axis >= m_Solvers->plan->axes.size())
  {
    throw InvalidArgument("PSCRSolver::Levels: axis " + std::to_string(axis) + " is not reduced; axes 1 to " +
                          std::to_string(m_Solvers->plan->axes.size() - 1) + " are");
  }
  return static_cast<unsigned>(m_Solvers->plan->reduced[axis].levels.size());
}

template<typename Scalar>
bool
PSCRSolver<Scalar>::IsSingular() const
{
  return m_Solvers->plan->singular;
}

template<typename Scalar>
unsigned
PSCRSolver<Scalar>::RefinementSteps() const
{
  return m_Solvers->plan->refinementSteps;
}

template<typename Scalar>
std::size_t
PSCRSolver<Scalar>::TridiagonalSolveCount() const
{
  return m_Solvers->plan->tridiagonalSolves;
}

template<typename Scalar>
double
PSCRSolver<Scalar>::SetupSeconds() const
{
  return m_SetupSeconds;
}

#define GPUR_INSTANTIATE_PSCR_CHECKS(T) template double CheckNullCompatibility<T>(const PSCRPlan<T> &, double, double);

GPUR_INSTANTIATE_PSCR_CHECKS(float)
GPUR_INSTANTIATE_PSCR_CHECKS(double)
GPUR_INSTANTIATE_PSCR_CHECKS(std::complex<float>)
GPUR_INSTANTIATE_PSCR_CHECKS(std::complex<double>)

template class PSCRSolver<float>;
template class PSCRSolver<double>;
template class PSCRSolver<std::complex<float>>;
template class PSCRSolver<std::complex<double>>;

} // namespace gpur
