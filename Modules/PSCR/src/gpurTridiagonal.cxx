// SPDX-License-Identifier: Apache-2.0
#include "gpurTridiagonal.h"

#include "gpurError.h"
#include "gpurPSCRInternal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpur
{

namespace
{

template<typename T>
bool
IsFiniteScalar(const T & v)
{
  return std::isfinite(v);
}
template<typename R>
bool
IsFiniteScalar(const std::complex<R> & v)
{
  return std::isfinite(v.real()) && std::isfinite(v.imag());
}

unsigned
CeilLog2(std::size_t n)
{
  unsigned k = 0;
  while ((std::size_t(1) << k) < n)
  {
    ++k;
  }
  return k;
}

// The kernels below work on full-length arrays: a[i] couples row i to row
// i - stride, c[i] to row i + stride, with a = 0 / c = 0 where that row is
// outside the system (so no special cases at the ends).

// One Thomas elimination step: c' = c / d and x' = (x - a x'_prev) / d. Real
// scalars divide once (r = 1 / d, then two products): the divisions are the
// recurrence's bottleneck, and PSCR's partial solves spend most of their time
// here (3D 127^3, double: 0.235 -> 0.202 s a solve); the result differs from
// two divisions by at most an ulp a step. Complex ones keep std::complex's
// careful division. ThomasInterleaved takes the same steps, bit for bit.
template<typename T>
inline void
ThomasStep(const T & d, const T & c, const T & x, T & cpOut, T & xOut)
{
  if constexpr (IsComplex<T>::value)
  {
    cpOut = c / d;
    xOut = x / d;
  }
  else
  {
    const T r = T(1) / d;
    cpOut = c * r;
    xOut = x * r;
  }
}

// Thomas algorithm [Thomas1949] (LU without pivoting) on rows first,
// first + stride, ... < n.
template<typename T>
void
ThomasStrided(std::size_t n,
              std::size_t first,
              std::size_t stride,
              const T * a,
              const T * b,
              const T * c,
              T * x,
              T * cp)
{
  const std::size_t m = (n - first + stride - 1) / stride;
  ThomasStep(b[first], c[first], x[first], cp[0], x[first]);
  std::size_t prev = first;
  for (std::size_t k = 1; k < m; ++k)
  {
    const std::size_t i = prev + stride;
    ThomasStep(T(b[i] - a[i] * cp[k - 1]), c[i], T(x[i] - a[i] * x[prev]), cp[k], x[i]);
    prev = i;
  }
  for (std::size_t k = m - 1; k-- > 0;)
  {
    const std::size_t i = first + k * stride;
    x[i] -= cp[k] * x[i + stride];
  }
}

// One PCR step with stride d ([Myllykoski2015, §3.3.2, eqs. (3.33)-(3.39)]):
// every row eliminates its neighbours at distance d, which doubles the coupling
// distance.
template<typename T>
void
PCRStep(std::size_t n,
        std::size_t d,
        const T * a,
        const T * b,
        const T * c,
        const T * x,
        T * a2,
        T * b2,
        T * c2,
        T * x2)
{
  for (std::size_t i = 0; i < n; ++i)
  {
    T bi = b[i];
    T xi = x[i];
    T ai = T(0);
    T ci = T(0);
    if (i >= d)
    {
      const T alpha = -a[i] / b[i - d];
      ai = alpha * a[i - d];
      bi += alpha * c[i - d];
      xi += alpha * x[i - d];
    }
    if (i + d < n)
    {
      const T beta = -c[i] / b[i + d];
      ci = beta * c[i + d];
      bi += beta * a[i + d];
      xi += beta * x[i + d];
    }
    a2[i] = ai;
    b2[i] = bi;
    c2[i] = ci;
    x2[i] = xi;
  }
}

// One CR reduction for arbitrary m ([Myllykoski2018, eqs. (3.3)-(3.4)]): the
// odd rows (0-based) form the reduced system; a missing right neighbour counts
// as zero.
template<typename T>
void
CRReduce(std::size_t m, const T * a, const T * b, const T * c, const T * f, T * a2, T * b2, T * c2, T * f2)
{
  for (std::size_t j = 0; j < m / 2; ++j)
  {
    const std::size_t r = 2 * j + 1;
    const T alpha = -a[r] / b[r - 1];
    T bj = b[r] + alpha * c[r - 1];
    T fj = f[r] + alpha * f[r - 1];
    T cj = T(0);
    if (r + 1 < m)
    {
      const T beta = -c[r] / b[r + 1];
      cj = beta * c[r + 1];
      bj += beta * a[r + 1];
      fj += beta * f[r + 1];
    }
    a2[j] = alpha * a[r - 1];
    b2[j] = bj;
    c2[j] = cj;
    f2[j] = fj;
  }
}

// CR back substitution: x holds f on entry; the odd rows come from the reduced
// solution, the even rows from their own equation.
template<typename T>
void
CRBackSubstitute(std::size_t m, const T * a, const T * b, const T * c, T * x, const T * reduced)
{
  for (std::size_t j = 0; j < m / 2; ++j)
  {
    x[2 * j + 1] = reduced[j];
  }
  for (std::size_t r = 0; r < m; r += 2)
  {
    T v = x[r];
    if (r > 0)
    {
      v -= a[r] * x[r - 1];
    }
    if (r + 1 < m)
    {
      v -= c[r] * x[r + 1];
    }
    x[r] = v / b[r];
  }
}

constexpr std::size_t kKernelWorkspacePerRow = 9; // CR levels 4, PCR buffer 4, Thomas 1

// CR while more than crStop rows, then `pcrSteps` PCR steps, then Thomas on the
// interleaved systems, then CR back substitution. a, b, c are overwritten.
template<typename T>
void
SolveKernel(std::size_t n, T * a, T * b, T * c, T * x, std::size_t crStop, unsigned pcrSteps, T * work)
{
  struct Level
  {
    std::size_t m;
    T *a, *b, *c, *f;
  };
  Level levels[64];
  unsigned top = 0;
  levels[0] = Level{ n, a, b, c, x };
  T * w = work;
  while (levels[top].m > crStop && levels[top].m >= 2)
  {
    const Level & l = levels[top];
    const std::size_t m2 = l.m / 2;
    const Level next{ m2, w, w + m2, w + 2 * m2, w + 3 * m2 };
    w += 4 * m2;
    CRReduce(l.m, l.a, l.b, l.c, l.f, next.a, next.b, next.c, next.f);
    levels[++top] = next;
  }
  const Level & last = levels[top];
  const std::size_t m = last.m;
  const unsigned steps = std::min(pcrSteps, CeilLog2(m));
  T *pa = last.a, *pb = last.b, *pc = last.c, *px = last.f;
  T *qa = w, *qb = w + m, *qc = w + 2 * m, *qx = w + 3 * m;
  w += 4 * m;
  std::size_t stride = 1;
  for (unsigned s = 0; s < steps; ++s)
  {
    PCRStep(m, stride, pa, pb, pc, px, qa, qb, qc, qx);
    std::swap(pa, qa);
    std::swap(pb, qb);
    std::swap(pc, qc);
    std::swap(px, qx);
    stride *= 2;
  }
  for (std::size_t r = 0; r < std::min(stride, m); ++r)
  {
    ThomasStrided(m, r, stride, pa, pb, pc, px, w);
  }
  if (px != last.f)
  {
    std::copy(px, px + m, last.f);
  }
  for (unsigned l = top; l-- > 0;)
  {
    CRBackSubstitute(levels[l].m, levels[l].a, levels[l].b, levels[l].c, levels[l].f, levels[l + 1].f);
  }
}

// Full-length coefficients of a general system in the workspace, then the kernel.
template<typename T>
void
SolveFullLength(std::size_t n, T * a, T * b, T * c, T * x, const TridiagonalOptions & options, T * work)
{
  const TridiagonalStages stages = options.Stages();
  SolveKernel(n, a, b, c, x, stages.crStop, stages.pcrSteps, work);
}

// Room for a, b, c, the kernel's workspace and (for the shifted solves) x in the work type.
template<typename T>
T *
PrepareWorkspace(std::vector<T> & workspace, std::size_t n)
{
  const std::size_t needed = (4 + kKernelWorkspacePerRow) * n;
  if (workspace.size() < needed)
  {
    workspace.resize(needed);
  }
  return workspace.data();
}

} // namespace

template<typename T>
void
RequireFiniteScalars(const T * values, std::size_t count, const std::string & what)
{
  for (std::size_t i = 0; i < count; ++i)
  {
    if (!IsFiniteScalar(values[i]))
    {
      throw InvalidArgument(what + " holds a non-finite value at index " + std::to_string(i) +
                            "; NaN and Inf are not allowed");
    }
  }
}

template<typename T>
void
ValidateTridiagonal(const SymmetricTridiagonal<T> & m, const std::string & what)
{
  const std::size_t n = m.diagonal.size();
  if (n == 0)
  {
    throw InvalidArgument(what + " is empty; a tridiagonal matrix needs at least 1 row");
  }
  if (m.offDiagonal.size() != n - 1)
  {
    throw InvalidArgument(what + " has " + std::to_string(n) + " diagonal but " + std::to_string(m.offDiagonal.size()) +
                          " off-diagonal entries; a symmetric tridiagonal matrix of size n needs n and n - 1");
  }
  RequireFiniteScalars(m.diagonal.data(), n, what + " (diagonal)");
  RequireFiniteScalars(m.offDiagonal.data(), n - 1, what + " (off-diagonal)");
}

const char *
ToString(TridiagonalAlgorithm algorithm)
{
  switch (algorithm)
  {
    case TridiagonalAlgorithm::Thomas:
      return "Thomas";
    case TridiagonalAlgorithm::CR:
      return "CR";
    case TridiagonalAlgorithm::PCR:
      return "PCR";
    case TridiagonalAlgorithm::Hybrid:
      return "Hybrid";
  }
  return "unknown";
}

void
TridiagonalOptions::Validate() const
{
  if (crStopSize == 0)
  {
    throw InvalidArgument("TridiagonalOptions::crStopSize is 0; CR must stop at a system of at least 1 row");
  }
  if (pcrSteps > 31)
  {
    throw InvalidArgument("TridiagonalOptions::pcrSteps is " + std::to_string(pcrSteps) +
                          "; at most 31 PCR steps are allowed (31 already decouples 2^31 rows)");
  }
}

TridiagonalStages
TridiagonalOptions::Stages() const
{
  constexpr std::size_t all = std::numeric_limits<std::size_t>::max();
  switch (algorithm)
  {
    case TridiagonalAlgorithm::Thomas:
      return { all, 0 };
    case TridiagonalAlgorithm::CR:
      return { 1, 0 };
    case TridiagonalAlgorithm::PCR:
      return { all, 64 };
    case TridiagonalAlgorithm::Hybrid:
      return { crStopSize, pcrSteps };
  }
  return { all, 0 };
}

template<typename T>
void
SolveShiftedTridiagonalUnchecked(const SymmetricTridiagonal<T> & A,
                                 const SymmetricTridiagonal<T> & M,
                                 T shift,
                                 std::size_t rows,
                                 T * x,
                                 const TridiagonalOptions & options,
                                 std::vector<TridiagonalWork<T>> & workspace)
{
  using W = TridiagonalWork<T>;
  const std::size_t n = rows;
  W * a = PrepareWorkspace(workspace, n);
  W * b = a + n;
  W * c = b + n;
  W * xw = c + n;
  const W s = static_cast<W>(shift);
  a[0] = W(0);
  for (std::size_t i = 0; i < n; ++i)
  {
    b[i] = static_cast<W>(A.diagonal[i]) + s * static_cast<W>(M.diagonal[i]);
    xw[i] = static_cast<W>(x[i]);
  }
  for (std::size_t i = 0; i + 1 < n; ++i)
  {
    c[i] = static_cast<W>(A.offDiagonal[i]) + s * static_cast<W>(M.offDiagonal[i]);
    a[i + 1] = c[i];
  }
  c[n - 1] = W(0);
  SolveFullLength(n, a, b, c, xw, options, xw + n);
  for (std::size_t i = 0; i < n; ++i)
  {
    x[i] = static_cast<T>(xw[i]);
  }
}

namespace
{

// K systems of SolveShiftedTridiagonalUnchecked's Thomas path side by side:
// the work arrays hold row i of system k at i * K + k, so the loops over k
// run on independent recurrences (and vectorise for real data).
template<std::size_t K, typename T>
void
ThomasInterleaved(const SymmetricTridiagonal<T> & A,
                  const SymmetricTridiagonal<T> & M,
                  const T * shifts,
                  T * const * x,
                  std::vector<TridiagonalWork<T>> & workspace)
{
  using W = TridiagonalWork<T>;
  const std::size_t n = A.Size();
  if (workspace.size() < 2 * K * n)
    workspace.resize(2 * K * n);
  W * cp = workspace.data();
  W * xw = cp + K * n;
  W s[K], a[K]{};
  for (std::size_t k = 0; k < K; ++k)
  {
    s[k] = static_cast<W>(shifts[k]);
    for (std::size_t i = 0; i < n; ++i)
      xw[i * K + k] = static_cast<W>(x[k][i]);
  }
  for (std::size_t i = 0; i < n; ++i)
  {
    const W ad = static_cast<W>(A.diagonal[i]), md = static_cast<W>(M.diagonal[i]);
    const bool upper = i + 1 < n;
    const W ao = upper ? static_cast<W>(A.offDiagonal[i]) : W(0), mo = upper ? static_cast<W>(M.offDiagonal[i]) : W(0);
    W * cpi = cp + i * K;
    W * xi = xw + i * K;
    for (std::size_t k = 0; k < K; ++k)
    {
      const W b = ad + s[k] * md;
      const W c = upper ? ao + s[k] * mo : W(0);
      if (i == 0)
        ThomasStep(b, c, xi[k], cpi[k], xi[k]);
      else
        ThomasStep(W(b - a[k] * cpi[k - K]), c, W(xi[k] - a[k] * xi[k - K]), cpi[k], xi[k]);
      a[k] = c; // a[i + 1] = c[i]
    }
  }
  for (std::size_t i = n - 1; i-- > 0;)
    for (std::size_t k = 0; k < K; ++k)
      xw[i * K + k] -= cp[i * K + k] * xw[(i + 1) * K + k];
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t i = 0; i < n; ++i)
      x[k][i] = static_cast<T>(xw[i * K + k]);
}

} // namespace

template<typename T>
void
SolveShiftedTridiagonalGroupUnchecked(const SymmetricTridiagonal<T> & A,
                                      const SymmetricTridiagonal<T> & M,
                                      const T * shifts,
                                      std::size_t count,
                                      T * const * x,
                                      const TridiagonalOptions & options,
                                      std::vector<TridiagonalWork<T>> & workspace)
{
  // Eight systems side by side: 3D 127^3 PSCR took 28 % less time than one
  // by one with four, 30 % with eight (SSE2, double).
  constexpr std::size_t kGroup = 8;
  std::size_t k = 0;
  if (options.algorithm == TridiagonalAlgorithm::Thomas)
    for (; k + kGroup <= count; k += kGroup)
      ThomasInterleaved<kGroup>(A, M, shifts + k, x + k, workspace);
  for (; k < count; ++k)
    SolveShiftedTridiagonalUnchecked(A, M, shifts[k], A.Size(), x[k], options, workspace);
}

template<typename T>
void
SolveTridiagonalBatch(const TridiagonalBatch<T> & batch,
                      T * x,
                      const TridiagonalOptions & options,
                      const ParallelForFunction & parallelFor)
{
  options.Validate();
  const std::size_t n = batch.size;
  if (n == 0)
  {
    throw InvalidArgument("tridiagonal batch: the system size is 0; it must be at least 1");
  }
  if (batch.count == 0)
  {
    return;
  }
  if (batch.diagonal == nullptr || x == nullptr || (n > 1 && (batch.lower == nullptr || batch.upper == nullptr)))
  {
    throw InvalidArgument("tridiagonal batch: a coefficient or right-hand-side pointer is null");
  }
  const std::size_t sets = batch.sharedCoefficients ? 1 : batch.count;
  RequireFiniteScalars(batch.diagonal, sets * n, "tridiagonal batch diagonal");
  RequireFiniteScalars(batch.lower, sets * (n - 1), "tridiagonal batch lower diagonal");
  RequireFiniteScalars(batch.upper, sets * (n - 1), "tridiagonal batch upper diagonal");
  const ParallelForFunction loop = ResolveParallelFor(parallelFor);
  pscr::ForEachRange(&loop,
                     batch.count,
                     [&](std::size_t k0, std::size_t k1)
                     {
                       std::vector<T> workspace;
                       for (std::size_t k = k0; k < k1; ++k)
                       {
                         const std::size_t set = batch.sharedCoefficients ? 0 : k;
                         const T * lower = batch.lower + set * (n - 1);
                         const T * diagonal = batch.diagonal + set * n;
                         const T * upper = batch.upper + set * (n - 1);
                         T * a = PrepareWorkspace(workspace, n);
                         T * b = a + n;
                         T * c = b + n;
                         a[0] = T(0);
                         c[n - 1] = T(0);
                         std::copy(diagonal, diagonal + n, b);
                         std::copy(lower, lower + (n - 1), a + 1);
                         std::copy(upper, upper + (n - 1), c);
                         SolveFullLength(n, a, b, c, x + k * n, options, c + n);
                       }
                     });
}

template<typename T>
void
SolveShiftedTridiagonalBatch(const SymmetricTridiagonal<T> & A,
                             const SymmetricTridiagonal<T> & M,
                             const T * shifts,
                             std::size_t count,
                             T * x,
                             const TridiagonalOptions & options,
                             const ParallelForFunction & parallelFor)
{
  options.Validate();
  ValidateTridiagonal(A, "shifted tridiagonal batch: A");
  ValidateTridiagonal(M, "shifted tridiagonal batch: M");
  if (M.Size() != A.Size())
  {
    throw InvalidArgument("shifted tridiagonal batch: A has " + std::to_string(A.Size()) + " rows but M has " +
                          std::to_string(M.Size()) + "; they must be the same size");
  }
  if (count == 0)
  {
    return;
  }
  if (shifts == nullptr || x == nullptr)
  {
    throw InvalidArgument("shifted tridiagonal batch: the shift or right-hand-side pointer is null");
  }
  RequireFiniteScalars(shifts, count, "shifted tridiagonal batch: shifts");
  const std::size_t n = A.Size();
  const ParallelForFunction loop = ResolveParallelFor(parallelFor);
  pscr::ForEachRange(&loop,
                     count,
                     [&](std::size_t k0, std::size_t k1)
                     {
                       std::vector<TridiagonalWork<T>> workspace;
                       for (std::size_t k = k0; k < k1; ++k)
                       {
                         SolveShiftedTridiagonalUnchecked(A, M, shifts[k], n, x + k * n, options, workspace);
                       }
                     });
}

#define GPUR_INSTANTIATE_TRIDIAGONAL(T)                                                                                \
  template void RequireFiniteScalars<T>(const T *, std::size_t, const std::string &);                                  \
  template void ValidateTridiagonal<T>(const SymmetricTridiagonal<T> &, const std::string &);                          \
  template void SolveShiftedTridiagonalUnchecked<T>(const SymmetricTridiagonal<T> &,                                   \
                                                    const SymmetricTridiagonal<T> &,                                   \
                                                    T,                                                                 \
                                                    std::size_t,                                                       \
                                                    T *,                                                               \
                                                    const TridiagonalOptions &,                                        \
                                                    std::vector<TridiagonalWork<T>> &);                                \
  template void SolveShiftedTridiagonalGroupUnchecked<T>(const SymmetricTridiagonal<T> &,                              \
                                                         const SymmetricTridiagonal<T> &,                              \
                                                         const T *,                                                    \
                                                         std::size_t,                                                  \
                                                         T * const *,                                                  \
                                                         const TridiagonalOptions &,                                   \
                                                         std::vector<TridiagonalWork<T>> &);                           \
  template void SolveTridiagonalBatch<T>(                                                                              \
    const TridiagonalBatch<T> &, T *, const TridiagonalOptions &, const ParallelForFunction &);                        \
  template void SolveShiftedTridiagonalBatch<T>(const SymmetricTridiagonal<T> &,                                       \
                                                const SymmetricTridiagonal<T> &,                                       \
                                                const T *,                                                             \
                                                std::size_t,                                                           \
                                                T *,                                                                   \
                                                const TridiagonalOptions &,                                            \
                                                const ParallelForFunction &);

GPUR_INSTANTIATE_TRIDIAGONAL(float)
GPUR_INSTANTIATE_TRIDIAGONAL(double)
GPUR_INSTANTIATE_TRIDIAGONAL(std::complex<float>)
GPUR_INSTANTIATE_TRIDIAGONAL(std::complex<double>)

} // namespace gpur
