// SPDX-License-Identifier: Apache-2.0
#include "gpurTridiagonalEigen.h"

#include "gpurError.h"
#include "gpurPSCRInternal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace gpur
{

namespace
{

using Complex = std::complex<double>;
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kPi = 3.14159265358979323846;

// Eigenvalues closer than this (relative to the largest) are one cluster: their
// inverse-iteration vectors are M-orthogonalised against each other. Above it,
// inverse iteration alone keeps w_k^T M w_l ~ eps / gap <= 1e-9.
constexpr double kClusterGap = 1e-7;

template<typename T>
void
ValidatePencil(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M)
{
  ValidateTridiagonal(A, "pencil matrix A");
  ValidateTridiagonal(M, "pencil matrix M");
  if (A.Size() != M.Size())
  {
    throw InvalidArgument("pencil: A has " + std::to_string(A.Size()) + " rows but M has " + std::to_string(M.Size()) +
                          "; A and M must be the same size");
  }
}

template<typename T>
double
NormInf(const SymmetricTridiagonal<T> & m)
{
  const std::size_t n = m.Size();
  double norm = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    double row = static_cast<double>(std::abs(m.diagonal[i]));
    if (i > 0)
    {
      row += static_cast<double>(std::abs(m.offDiagonal[i - 1]));
    }
    if (i + 1 < n)
    {
      row += static_cast<double>(std::abs(m.offDiagonal[i]));
    }
    norm = std::max(norm, row);
  }
  return norm;
}

bool
IsRealValued(const SymmetricTridiagonal<Complex> & m)
{
  auto real = [](const Complex & v) { return v.imag() == 0.0; };
  return std::all_of(m.diagonal.begin(), m.diagonal.end(), real) &&
         std::all_of(m.offDiagonal.begin(), m.offDiagonal.end(), real);
}

SymmetricTridiagonal<double>
RealPart(const SymmetricTridiagonal<Complex> & m)
{
  SymmetricTridiagonal<double> out;
  for (const Complex & v : m.diagonal)
    out.diagonal.push_back(v.real());
  for (const Complex & v : m.offDiagonal)
    out.offDiagonal.push_back(v.real());
  return out;
}

// The first non-positive LDL^T pivot of the real symmetric M (its index and
// value), or index n when M is positive definite.
std::pair<std::size_t, double>
FirstNonPositivePivot(const SymmetricTridiagonal<double> & M)
{
  double pivot = M.diagonal[0];
  for (std::size_t i = 0; i < M.Size(); ++i)
  {
    if (i > 0)
    {
      pivot = M.diagonal[i] - M.offDiagonal[i - 1] * M.offDiagonal[i - 1] / pivot;
    }
    if (!(pivot > 0))
    {
      return { i, pivot };
    }
  }
  return { M.Size(), pivot };
}

void
RequirePositiveDefinite(const SymmetricTridiagonal<double> & M)
{
  const auto [index, pivot] = FirstNonPositivePivot(M);
  if (index < M.Size())
  {
    throw InvalidArgument("pencil matrix M is not positive definite (LDL^T pivot " + std::to_string(index) + " is " +
                          std::to_string(pivot) +
                          "); a real pencil needs a symmetric positive-definite M, e.g. a mass matrix");
  }
}

// ---------------------------------------------------------------------------
// p(s) = det(A - s M) through the pivots r_i of its LDL^T factorisation:
//   r_0 = d_0(s),  r_i = d_i(s) - e_{i-1}(s)^2 / r_{i-1},
// with d_i(s) = A_ii - s M_ii and e_i(s) = A_i,i+1 - s M_i,i+1. Then
// p = prod r_i, (for real s and SPD M) the number of eigenvalues below s is
// the number of negative pivots, G = p'/p = sum r_i' / r_i, and
// H = -G' = sum (r_i'/r_i)^2 - r_i''/r_i (Laguerre's second term).

template<typename T>
struct PivotScan
{
  std::size_t negative = 0;
  T G = T(0);
  T H = T(0);
};

// The scan at `Lanes` shifts at once: one pivot recurrence is a chain of
// dependent divisions, so independent recurrences run in lock-step to overlap
// them (4 lanes make the Laguerre refinement about twice as fast).
template<typename T, bool WithH, unsigned Lanes>
void
ScanPivots(const SymmetricTridiagonal<T> & A,
           const SymmetricTridiagonal<T> & M,
           const T * s,
           double pivmin,
           PivotScan<T> * scan)
{
  const std::size_t n = A.Size();
  T r[Lanes], dr[Lanes], ddr[Lanes], inverse[Lanes];
  for (unsigned k = 0; k < Lanes; ++k)
  {
    scan[k] = PivotScan<T>();
    r[k] = A.diagonal[0] - s[k] * M.diagonal[0];
    dr[k] = -M.diagonal[0];
    ddr[k] = T(0);
  }
  for (std::size_t i = 0;; ++i)
  {
    for (unsigned k = 0; k < Lanes; ++k)
    {
      // An exact zero pivot is perturbed as in LAPACK's dstebz.
      r[k] = std::abs(r[k]) < pivmin ? T(-pivmin) : r[k];
      scan[k].negative += std::real(r[k]) < 0 ? 1 : 0;
      inverse[k] = T(1) / r[k];
      const T g = dr[k] * inverse[k];
      scan[k].G += g;
      if (WithH)
      {
        scan[k].H += g * g - ddr[k] * inverse[k];
      }
    }
    if (i + 1 == n)
    {
      break;
    }
    // r_{i+1} = d - e q with q = e / r_i; derivatives with d'' = e'' = 0.
    const T ao = A.offDiagonal[i], mo = M.offDiagonal[i], an = A.diagonal[i + 1], mn = M.diagonal[i + 1];
    for (unsigned k = 0; k < Lanes; ++k)
    {
      const T e = ao - s[k] * mo;
      const T q = e * inverse[k];
      if (WithH)
      {
        const T dq = (-mo - q * dr[k]) * inverse[k];
        ddr[k] = T(2) * dq * (q * dr[k] + mo) + q * q * ddr[k];
      }
      dr[k] = -mn + T(2) * q * mo + q * q * dr[k];
      r[k] = an - s[k] * mn - q * e;
    }
  }
}

template<typename T, bool WithH>
PivotScan<T>
ScanPivots(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M, T s, double pivmin)
{
  PivotScan<T> scan;
  ScanPivots<T, WithH, 1>(A, M, &s, pivmin, &scan);
  return scan;
}

double
PivotMinimum(double offScale)
{
  return std::numeric_limits<double>::min() * std::max(1.0, offScale * offScale);
}

// Real pencil with SPD M: isolate every eigenvalue by Sturm counts, then refine
// each by Laguerre steps kept inside its isolating interval.
std::vector<double>
RealEigenvalues(const SymmetricTridiagonal<double> & A,
                const SymmetricTridiagonal<double> & M,
                const ParallelForFunction & parallelFor)
{
  RequirePositiveDefinite(M);
  const std::size_t n = A.Size();
  const double normA = NormInf(A);
  const double normM = NormInf(M);
  auto below = [&](double s, double pivmin) { return ScanPivots<double, false>(A, M, s, pivmin).negative; };

  // A bound g with every eigenvalue in (-g, g); pivmin as in LAPACK's dstebz.
  double maxOffA = 0, maxOffM = 0;
  for (std::size_t i = 0; i + 1 < n; ++i)
  {
    maxOffA = std::max(maxOffA, std::abs(A.offDiagonal[i]));
    maxOffM = std::max(maxOffM, std::abs(M.offDiagonal[i]));
  }
  auto pivotMinimum = [&](double bound) { return PivotMinimum(maxOffA + bound * maxOffM); };
  double g = std::max(normA / normM, std::numeric_limits<double>::min() / kEps);
  for (int doubling = 0; below(-g, pivotMinimum(g)) != 0 || below(g, pivotMinimum(g)) != n; ++doubling)
  {
    if (doubling > 2100)
    {
      throw Error("pencil eigenvalues: no finite bound of the spectrum was found");
    }
    g *= 2;
  }
  const double pivmin = pivotMinimum(g);
  const double absTol = kEps * g;
  auto tiny = [&](double lo, double hi) { return hi - lo <= 2 * kEps * std::max(std::abs(lo), std::abs(hi)) + absTol; };

  // Isolation by bisection of the spectrum slices.
  struct Interval
  {
    double lo, hi;
    std::size_t first, count;
  };
  std::vector<Interval> isolated;
  std::vector<double> values(n);
  std::vector<Interval> stack{ Interval{ -g, g, 0, n } };
  while (!stack.empty())
  {
    const Interval iv = stack.back();
    stack.pop_back();
    if (iv.count == 0)
    {
      continue;
    }
    if (iv.count == 1)
    {
      isolated.push_back(iv);
      continue;
    }
    if (tiny(iv.lo, iv.hi))
    {
      // A cluster at working precision: a multiple eigenvalue.
      std::fill(values.begin() + iv.first, values.begin() + iv.first + iv.count, 0.5 * (iv.lo + iv.hi));
      continue;
    }
    const double mid = 0.5 * (iv.lo + iv.hi);
    const std::size_t split = below(mid, pivmin);
    stack.push_back(Interval{ mid, iv.hi, split, iv.first + iv.count - split });
    stack.push_back(Interval{ iv.lo, mid, iv.first, split - iv.first });
  }

  // Refinement by Laguerre's method, count(lo) = j < count(hi) = j + 1
  // throughout: det(A - s M) has only real roots, so the Laguerre step towards
  // the root never passes it (it stays in (lo, hi)) and converges cubically.
  // kLanes eigenvalues are refined together (see ScanPivots).
  constexpr unsigned kLanes = 4;
  const double degree = static_cast<double>(n);
  pscr::ForEachRange(&parallelFor,
                     isolated.size(),
                     [&](std::size_t b, std::size_t e)
                     {
                       struct Lane
                       {
                         bool active = false;
                         std::size_t index = 0;
                         double lo = 0, hi = 0, s = 0;
                         int iterations = 0;
                       };
                       Lane lanes[kLanes];
                       std::size_t pending = b;
                       auto refill = [&](Lane & lane)
                       {
                         lane.active = pending < e;
                         if (lane.active)
                         {
                           const Interval & iv = isolated[pending++];
                           lane = Lane{ true, iv.first, iv.lo, iv.hi, 0.5 * (iv.lo + iv.hi), 0 };
                         }
                       };
                       for (Lane & lane : lanes)
                         refill(lane);
                       for (;;)
                       {
                         const Lane * busy =
                           std::find_if(lanes, lanes + kLanes, [](const Lane & l) { return l.active; });
                         if (busy == lanes + kLanes)
                           break;
                         double shifts[kLanes];
                         for (unsigned k = 0; k < kLanes; ++k)
                           shifts[k] = lanes[k].active ? lanes[k].s : busy->s; // idle lanes repeat a busy one
                         PivotScan<double> scans[kLanes];
                         ScanPivots<double, true, kLanes>(A, M, shifts, pivmin, scans);
                         for (unsigned k = 0; k < kLanes; ++k)
                         {
                           Lane & lane = lanes[k];
                           if (!lane.active)
                             continue;
                           const bool rootAbove = scans[k].negative <= lane.index;
                           (rootAbove ? lane.lo : lane.hi) = lane.s;
                           const double root =
                             std::sqrt(std::max(0.0, (degree - 1) * (degree * scans[k].H - scans[k].G * scans[k].G)));
                           double next = lane.s - degree / (rootAbove ? scans[k].G - root : scans[k].G + root);
                           if (!std::isfinite(next) || next <= lane.lo || next >= lane.hi)
                           {
                             next = 0.5 * (lane.lo + lane.hi);
                           }
                           // Cubic convergence: after a step below 1e-10 |s| the new s is exact to
                           // rounding even for eigenvalues 1e-7 apart (error ~ step^3 / gap^2).
                           const bool converged = std::abs(next - lane.s) <= 1e-10 * std::abs(lane.s) + absTol;
                           lane.s = next;
                           if (converged || tiny(lane.lo, lane.hi) || ++lane.iterations == 200)
                           {
                             values[lane.index] = lane.s;
                             refill(lane);
                           }
                         }
                       }
                     });
  return values;
}

// Complex-symmetric pencil: Aberth-Ehrlich on det(A - z M) from the seeds.
std::vector<Complex>
AberthEigenvalues(const SymmetricTridiagonal<Complex> & A,
                  const SymmetricTridiagonal<Complex> & M,
                  std::vector<Complex> z)
{
  const std::size_t n = z.size();
  double scale = 0;
  for (const Complex & v : z)
  {
    scale = std::max(scale, std::abs(v));
  }
  scale = std::max(scale, NormInf(A) / NormInf(M));
  const double pivmin = PivotMinimum(NormInf(A) + scale * NormInf(M));
  // Distinct seeds: Aberth's repulsion term divides by their differences.
  for (std::size_t k = 0; k < n; ++k)
  {
    z[k] += Complex(0, 1e-9 * scale * static_cast<double>(k + 1) / static_cast<double>(n));
  }
  std::vector<char> done(n, 0);
  for (int sweep = 0; sweep < 500; ++sweep)
  {
    bool all = true;
    for (std::size_t k = 0; k < n; ++k)
    {
      if (done[k])
      {
        continue;
      }
      const Complex newton = 1.0 / ScanPivots<Complex, false>(A, M, z[k], pivmin).G;
      Complex repulsion = 0;
      for (std::size_t j = 0; j < n; ++j)
      {
        if (j != k)
        {
          repulsion += 1.0 / (z[k] - z[j]);
        }
      }
      const Complex step = newton / (1.0 - newton * repulsion);
      if (!std::isfinite(step.real()) || !std::isfinite(step.imag()))
      {
        all = false;
        z[k] += Complex(kEps * scale, kEps * scale); // sitting on a pole of det'/det: nudge
        continue;
      }
      z[k] -= step;
      if (std::abs(step) <= 4 * kEps * std::abs(z[k]) + kEps * scale)
      {
        done[k] = 1;
      }
      else
      {
        all = false;
      }
    }
    if (all)
    {
      std::sort(z.begin(),
                z.end(),
                [](const Complex & a, const Complex & b)
                { return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag()); });
      return z;
    }
  }
  throw Error("complex pencil eigenvalues: the Aberth iteration did not converge in 500 sweeps");
}

std::vector<Complex>
ComplexEigenvalues(const SymmetricTridiagonal<Complex> & A,
                   const SymmetricTridiagonal<Complex> & M,
                   const ParallelForFunction & parallelFor)
{
  const std::size_t n = A.Size();
  std::vector<Complex> seeds(n);
  const SymmetricTridiagonal<double> reM = RealPart(M);
  if (FirstNonPositivePivot(reM).first == n)
  {
    // The real parts differ from the pencil only at a few entries (the
    // absorbing boundary terms), so their eigenvalues are close seeds.
    const std::vector<double> re = RealEigenvalues(RealPart(A), reM, parallelFor);
    std::copy(re.begin(), re.end(), seeds.begin());
  }
  else
  {
    const double radius = std::max(NormInf(A) / NormInf(M), 1e-300);
    for (std::size_t k = 0; k < n; ++k)
    {
      seeds[k] = std::polar(radius, 0.4 + 2 * kPi * static_cast<double>(k) / static_cast<double>(n));
    }
  }
  return AberthEigenvalues(A, M, std::move(seeds));
}

template<typename T>
std::vector<T>
Eigenvalues(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M, const ParallelForFunction & loop);

template<>
std::vector<double>
Eigenvalues<double>(const SymmetricTridiagonal<double> & A,
                    const SymmetricTridiagonal<double> & M,
                    const ParallelForFunction & loop)
{
  return RealEigenvalues(A, M, loop);
}

template<>
std::vector<Complex>
Eigenvalues<Complex>(const SymmetricTridiagonal<Complex> & A,
                     const SymmetricTridiagonal<Complex> & M,
                     const ParallelForFunction & loop)
{
  if (IsRealValued(A) && IsRealValued(M))
  {
    const std::vector<double> re = RealEigenvalues(RealPart(A), RealPart(M), loop);
    return std::vector<Complex>(re.begin(), re.end());
  }
  return ComplexEigenvalues(A, M, loop);
}

// ---------------------------------------------------------------------------
// Inverse iteration.

// A - lambda M = P L U with partial pivoting (LAPACK's gttrf), so that solves
// stay accurate next to an eigenvalue; an exactly zero pivot is replaced by a
// tiny one, which is what inverse iteration needs.
template<typename T>
class ShiftedLU
{
public:
  ShiftedLU(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M, T lambda, double tinyPivot)
    : m_N(A.Size())
    , m_Lower(m_N > 0 ? m_N - 1 : 0)
    , m_Diagonal(m_N)
    , m_Upper(m_N > 0 ? m_N - 1 : 0)
    , m_Upper2(m_N > 1 ? m_N - 2 : 0, T(0))
    , m_Swapped(m_N, 0)
  {
    for (std::size_t i = 0; i < m_N; ++i)
    {
      m_Diagonal[i] = A.diagonal[i] - lambda * M.diagonal[i];
    }
    for (std::size_t i = 0; i + 1 < m_N; ++i)
    {
      m_Lower[i] = m_Upper[i] = A.offDiagonal[i] - lambda * M.offDiagonal[i];
    }
    for (std::size_t i = 0; i + 1 < m_N; ++i)
    {
      if (std::abs(m_Diagonal[i]) >= std::abs(m_Lower[i]))
      {
        if (m_Diagonal[i] == T(0))
        {
          m_Diagonal[i] = T(tinyPivot);
        }
        const T fact = m_Lower[i] / m_Diagonal[i];
        m_Lower[i] = fact;
        m_Diagonal[i + 1] -= fact * m_Upper[i];
      }
      else
      {
        const T fact = m_Diagonal[i] / m_Lower[i];
        m_Diagonal[i] = m_Lower[i];
        m_Lower[i] = fact;
        const T temp = m_Upper[i];
        m_Upper[i] = m_Diagonal[i + 1];
        m_Diagonal[i + 1] = temp - fact * m_Diagonal[i + 1];
        if (i + 2 < m_N)
        {
          m_Upper2[i] = m_Upper[i + 1];
          m_Upper[i + 1] = -fact * m_Upper[i + 1];
        }
        m_Swapped[i] = 1;
      }
    }
    if (m_Diagonal[m_N - 1] == T(0))
    {
      m_Diagonal[m_N - 1] = T(tinyPivot);
    }
  }

  void
  Solve(T * b) const
  {
    for (std::size_t i = 0; i + 1 < m_N; ++i)
    {
      if (m_Swapped[i])
      {
        const T temp = b[i];
        b[i] = b[i + 1];
        b[i + 1] = temp - m_Lower[i] * b[i];
      }
      else
      {
        b[i + 1] -= m_Lower[i] * b[i];
      }
    }
    for (std::size_t i = m_N; i-- > 0;)
    {
      T v = b[i];
      if (i + 1 < m_N)
      {
        v -= m_Upper[i] * b[i + 1];
      }
      if (i + 2 < m_N)
      {
        v -= m_Upper2[i] * b[i + 2];
      }
      b[i] = v / m_Diagonal[i];
    }
  }

private:
  std::size_t m_N;
  std::vector<T> m_Lower, m_Diagonal, m_Upper, m_Upper2;
  std::vector<char> m_Swapped;
};

template<typename T>
void
Multiply(const SymmetricTridiagonal<T> & m, const T * x, T * y)
{
  const std::size_t n = m.Size();
  for (std::size_t i = 0; i < n; ++i)
  {
    T v = m.diagonal[i] * x[i];
    if (i > 0)
    {
      v += m.offDiagonal[i - 1] * x[i - 1];
    }
    if (i + 1 < n)
    {
      v += m.offDiagonal[i] * x[i + 1];
    }
    y[i] = v;
  }
}

template<typename T>
T
Bilinear(const std::vector<T> & x, const std::vector<T> & y)
{
  T s = T(0);
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    s += x[i] * y[i];
  }
  return s;
}

template<typename T>
double
MaxAbs(const std::vector<T> & x)
{
  double m = 0;
  for (const T & v : x)
  {
    m = std::max(m, static_cast<double>(std::abs(v)));
  }
  return m;
}

// The extended-precision scalar of the final eigenvector step (see Eigenvector).
template<typename T>
using Extended = std::conditional_t<IsComplex<T>::value, std::complex<long double>, long double>;

// The null vector of K = A - lambda M from its twisted factorisation (the
// MRRR building block): forward pivots r+ and backward pivots r- of K, the
// twist t where gamma_t = r+_t + r-_t - K_tt is smallest, w_t = 1 and
// products of the factors' multipliers away from t. One O(n) pass each way
// instead of several inverse-iteration solves. Returns false when a pivot
// vanished (the caller then uses inverse iteration).
template<typename T>
bool
TwistedVector(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M, T lambda, std::vector<T> & w)
{
  const std::size_t n = A.Size();
  // Reciprocal pivots: two divisions per row instead of four.
  std::vector<T> forward(n), backward(n), off(n > 0 ? n - 1 : 0);
  for (std::size_t i = 0; i + 1 < n; ++i)
  {
    off[i] = A.offDiagonal[i] - lambda * M.offDiagonal[i];
  }
  auto diagonal = [&](std::size_t i) { return A.diagonal[i] - lambda * M.diagonal[i]; };
  std::vector<T> pivotF(n), pivotB(n);
  pivotF[0] = diagonal(0);
  pivotB[n - 1] = diagonal(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i)
  {
    const std::size_t b = n - 1 - i;
    if (pivotF[i] == T(0) || pivotB[b] == T(0))
    {
      return false;
    }
    forward[i] = T(1) / pivotF[i];
    backward[b] = T(1) / pivotB[b];
    pivotF[i + 1] = diagonal(i + 1) - off[i] * off[i] * forward[i];
    pivotB[b - 1] = diagonal(b - 1) - off[b - 1] * off[b - 1] * backward[b];
  }
  std::size_t twist = 0;
  double smallest = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t < n; ++t)
  {
    const double gamma = static_cast<double>(std::abs(pivotF[t] + pivotB[t] - diagonal(t)));
    if (gamma < smallest)
    {
      smallest = gamma;
      twist = t;
    }
  }
  w.assign(n, T(0));
  w[twist] = T(1);
  for (std::size_t i = twist; i-- > 0;)
  {
    w[i] = -off[i] * forward[i] * w[i + 1];
  }
  for (std::size_t i = twist + 1; i < n; ++i)
  {
    w[i] = -off[i - 1] * backward[i] * w[i - 1];
  }
  const double size = MaxAbs(w);
  if (!std::isfinite(size))
  {
    return false;
  }
  for (T & v : w)
  {
    v /= size;
  }
  return true;
}

// max |A w - lambda M w| / (|A| + |lambda| |M|) for max |w| = 1.
template<typename T>
double
RelativeResidual(const SymmetricTridiagonal<T> & A,
                 const SymmetricTridiagonal<T> & M,
                 T lambda,
                 const std::vector<T> & w)
{
  const std::size_t n = w.size();
  std::vector<T> aw(n), mw(n);
  Multiply(A, w.data(), aw.data());
  Multiply(M, w.data(), mw.data());
  for (std::size_t i = 0; i < n; ++i)
  {
    aw[i] -= lambda * mw[i];
  }
  const double scale = NormInf(A) + static_cast<double>(std::abs(lambda)) * NormInf(M);
  return MaxAbs(aw) / (scale > 0 ? scale : 1.0);
}

// Inverse iteration with partial pivoting from a pseudo-random start,
// M-orthogonalised against `previous` (the already computed vectors of the
// cluster); the result has max |x| = 1.
template<typename T>
std::vector<T>
InverseIteration(const SymmetricTridiagonal<T> & A,
                 const SymmetricTridiagonal<T> & M,
                 T lambda,
                 const std::vector<std::vector<T>> & previous,
                 std::uint64_t seed)
{
  const std::size_t n = A.Size();
  const double scale = NormInf(A) + std::abs(lambda) * NormInf(M);
  const ShiftedLU<T> lu(A, M, lambda, kEps * std::max(scale, std::numeric_limits<double>::min()));
  std::vector<T> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    x[i] = T(static_cast<double>(seed >> 11) * 0x1.0p-53 - 0.5);
  }
  double residual = std::numeric_limits<double>::infinity();
  for (int it = 0; it < 8 && residual > 1e-12; ++it)
  {
    Multiply(M, x.data(), y.data());
    lu.Solve(y.data());
    x.swap(y);
    for (const std::vector<T> & p : previous)
    {
      Multiply(M, x.data(), y.data());
      const T coefficient = Bilinear(p, y);
      for (std::size_t i = 0; i < n; ++i)
      {
        x[i] -= coefficient * p[i];
      }
    }
    const double size = MaxAbs(x);
    if (!(size > 0) || !std::isfinite(size))
    {
      throw Error("pencil eigenvector: inverse iteration broke down near eigenvalue " +
                  std::to_string(std::real(lambda)));
    }
    for (T & v : x)
    {
      v /= size;
    }
    if (it > 0) // one step from a random start is rarely enough; skip its check
    {
      residual = RelativeResidual(A, M, lambda, x);
    }
  }
  if (residual > 1e-8)
  {
    throw Error("pencil eigenvector: inverse iteration did not converge near eigenvalue " +
                std::to_string(std::real(lambda)) + " (relative residual " + std::to_string(residual) + ")");
  }
  return x;
}

// The pencil in extended precision, made once for all its eigenvectors.
template<typename T>
struct ExtendedPencil
{
  SymmetricTridiagonal<Extended<T>> A, M;
  ExtendedPencil(const SymmetricTridiagonal<T> & a, const SymmetricTridiagonal<T> & m)
    : A(CastTridiagonal<Extended<T>>(a))
    , M(CastTridiagonal<Extended<T>>(m))
  {
  }
};

// x <- x / sqrt(x^T M x) and lambda <- x^T A x (the Rayleigh quotient).
template<typename T>
void
Normalise(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M, std::vector<T> & x, T & lambda)
{
  std::vector<T> y(x.size());
  Multiply(M, x.data(), y.data());
  const T norm2 = Bilinear(x, y);
  if (std::abs(norm2) <= 1e-10 * NormInf(M))
  {
    throw InvalidArgument("pencil eigenvector near eigenvalue " +
                          std::to_string(static_cast<double>(std::real(lambda))) +
                          " has w^T M w = 0 (a quasi-null vector): the complex-symmetric pencil is not "
                          "diagonalisable, which PSCR needs");
  }
  const T factor = T(1) / std::sqrt(norm2);
  for (T & v : x)
  {
    v *= factor;
  }
  Multiply(A, x.data(), y.data());
  lambda = Bilinear(x, y);
}

// From an approximate eigenvector x: one Rayleigh-quotient step (lambda to
// twice the digits), then the twisted vector of the improved lambda (its error
// is |lambda error| / gap), normalised, with lambda its Rayleigh quotient;
// false when the twisted factorisation fails or is inaccurate.
template<typename X>
bool
RefineTwisted(const SymmetricTridiagonal<X> & A, const SymmetricTridiagonal<X> & M, std::vector<X> & x, X & lambda)
{
  std::vector<X> y(x.size());
  Multiply(M, x.data(), y.data());
  const X xmx = Bilinear(x, y);
  Multiply(A, x.data(), y.data());
  lambda = Bilinear(x, y) / xmx;
  if (!std::isfinite(static_cast<double>(std::abs(lambda))) || !TwistedVector(A, M, lambda, x) ||
      RelativeResidual(A, M, lambda, x) > 1e-12)
    return false;
  Normalise(A, M, x, lambda);
  return true;
}

// The eigenvector of `lambda` normalised by w^T M w = 1; lambda becomes the
// Rayleigh quotient w^T A w. A lone eigenvalue takes the twisted
// factorisation; members of a cluster (non-empty `previous`) and vectors the
// twisted factorisation gets wrong take inverse iteration.
//
// The twisted vector's error is |lambda error| / gap, and in double lambda is
// no better than eps |A|: the M-orthogonality of close eigenvectors is then
// about eps |A| / gap, which limited double PSCR solves to relative residuals
// of 2e-14 - 4e-14 at n = 1023 (exact eigenvectors give 2e-16 - 4e-16). With
// `extended` (EigenvectorAccuracy::Extended) the Rayleigh-quotient step and
// the final twisted vector run in long double (64-bit significand on x86-64:
// 2048 times smaller errors), one O(n) pass. Where long double is double
// (some platforms) this is the double algorithm.
template<typename T>
std::vector<T>
Eigenvector(const SymmetricTridiagonal<T> & A,
            const SymmetricTridiagonal<T> & M,
            const ExtendedPencil<T> * extended,
            T & lambda,
            const std::vector<std::vector<T>> & previous,
            std::uint64_t seed)
{
  std::vector<T> x;
  if (previous.empty() && TwistedVector(A, M, lambda, x))
  {
    if (extended)
    {
      std::vector<Extended<T>> xe(x.begin(), x.end());
      Extended<T> quotient;
      if (RefineTwisted(extended->A, extended->M, xe, quotient))
      {
        lambda = static_cast<T>(quotient);
        return std::vector<T>(xe.begin(), xe.end());
      }
    }
    else
    {
      T quotient;
      if (RefineTwisted(A, M, x, quotient))
      {
        lambda = quotient;
        return x;
      }
    }
  }
  x = InverseIteration(A, M, lambda, previous, seed);
  Normalise(A, M, x, lambda);
  return x;
}

} // namespace

template<typename T>
std::vector<T>
TridiagonalPencilEigenvalues(const SymmetricTridiagonal<T> & A,
                             const SymmetricTridiagonal<T> & M,
                             const ParallelForFunction & parallelFor)
{
  ValidatePencil(A, M);
  return Eigenvalues(A, M, ResolveParallelFor(parallelFor));
}

template<typename T>
std::vector<T>
TridiagonalPencilEigenvector(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M, T lambda)
{
  ValidatePencil(A, M);
  const ExtendedPencil<T> extended(A, M);
  return Eigenvector(A, M, &extended, lambda, {}, 1);
}

template<typename T>
TridiagonalPencilEigen<T>
SolveTridiagonalPencil(const SymmetricTridiagonal<T> & A,
                       const SymmetricTridiagonal<T> & M,
                       const std::vector<std::size_t> & rows,
                       const ParallelForFunction & parallelFor,
                       EigenvectorAccuracy accuracy)
{
  ValidatePencil(A, M);
  const std::size_t n = A.Size();
  for (std::size_t r : rows)
  {
    if (r >= n)
    {
      throw InvalidArgument("pencil: requested eigenvector row " + std::to_string(r) + " of a pencil of size " +
                            std::to_string(n) + "; rows must be < size");
    }
  }
  const ParallelForFunction loop = ResolveParallelFor(parallelFor);
  TridiagonalPencilEigen<T> result;
  result.values = Eigenvalues(A, M, loop);
  result.rows = rows;
  result.vectors.assign(rows.size() * n, T(0));

  // Clusters of consecutive (sorted) eigenvalues closer than kClusterGap.
  double largest = 0;
  for (const T & v : result.values)
  {
    largest = std::max(largest, std::abs(v));
  }
  std::vector<std::size_t> clusterStart{ 0 };
  for (std::size_t l = 1; l < n; ++l)
  {
    if (std::abs(result.values[l] - result.values[l - 1]) > kClusterGap * largest)
    {
      clusterStart.push_back(l);
    }
  }
  clusterStart.push_back(n);
  std::unique_ptr<const ExtendedPencil<T>> extended;
  if (accuracy == EigenvectorAccuracy::Extended)
    extended = std::make_unique<const ExtendedPencil<T>>(A, M);
  pscr::ForEachRange(&loop,
                     clusterStart.size() - 1,
                     [&](std::size_t c0, std::size_t c1)
                     {
                       for (std::size_t c = c0; c < c1; ++c)
                       {
                         std::vector<std::vector<T>> cluster;
                         for (std::size_t l = clusterStart[c]; l < clusterStart[c + 1]; ++l)
                         {
                           cluster.push_back(Eigenvector(A, M, extended.get(), result.values[l], cluster, l + 1));
                           for (std::size_t r = 0; r < rows.size(); ++r)
                           {
                             result.vectors[r * n + l] = cluster.back()[rows[r]];
                           }
                         }
                       }
                     });
  return result;
}

#define GPUR_INSTANTIATE_PENCIL(T)                                                                                     \
  template TridiagonalPencilEigen<T> SolveTridiagonalPencil<T>(const SymmetricTridiagonal<T> &,                        \
                                                               const SymmetricTridiagonal<T> &,                        \
                                                               const std::vector<std::size_t> &,                       \
                                                               const ParallelForFunction &,                            \
                                                               EigenvectorAccuracy);                                   \
  template std::vector<T> TridiagonalPencilEigenvalues<T>(                                                             \
    const SymmetricTridiagonal<T> &, const SymmetricTridiagonal<T> &, const ParallelForFunction &);                    \
  template std::vector<T> TridiagonalPencilEigenvector<T>(                                                             \
    const SymmetricTridiagonal<T> &, const SymmetricTridiagonal<T> &, T);

GPUR_INSTANTIATE_PENCIL(double)
GPUR_INSTANTIATE_PENCIL(std::complex<double>)

} // namespace gpur
