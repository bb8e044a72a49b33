// Helpers of the PSCR tests: random data, norms, a dense reference solver, and
// a dense Kronecker assembly of a separable operator, all independent of the
// engine's code; and VariedAxis, test factors made by the problem generators.
#ifndef gpurPSCRTesting_h
#define gpurPSCRTesting_h

#include "gpurSeparableOperator.h"
#include "gpurSeparableProblems.h"

#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

namespace gpur
{
namespace testing
{

template<typename T>
T
RandomScalar(std::mt19937 & rng, double lo = -1, double hi = 1)
{
  std::uniform_real_distribution<double> u(lo, hi);
  if constexpr (IsComplex<T>::value)
  {
    const double re = u(rng);
    return T(static_cast<RealType<T>>(re), static_cast<RealType<T>>(u(rng)));
  }
  else
  {
    return static_cast<T>(u(rng));
  }
}

template<typename T>
std::vector<T>
RandomVector(std::size_t n, unsigned seed)
{
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T & x : v)
    x = RandomScalar<T>(rng);
  return v;
}

template<typename T>
double
Norm(const std::vector<T> & v)
{
  double s = 0;
  for (const T & x : v)
    s += std::norm(std::complex<double>(x));
  return std::sqrt(s);
}

template<typename T, typename U>
double
RelativeDifference(const std::vector<T> & a, const std::vector<U> & b)
{
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    d += std::norm(std::complex<double>(a[i]) - std::complex<double>(b[i]));
    s += std::norm(std::complex<double>(b[i]));
  }
  return std::sqrt(d / s);
}

/** ||A u - f|| / ||f|| with A applied by ApplySeparableOperator. */
template<typename T>
double
RelativeResidual(const SeparableOperator<T> & op, const std::vector<T> & u, const std::vector<T> & f)
{
  std::vector<T> Au(u.size());
  ApplySeparableOperator(op, u.data(), Au.data());
  return RelativeDifference(Au, f);
}

/** Strictly increasing mesh on [0, L] with random steps in [0.5, 1.5] L / intervals (digest §11.3). */
inline std::vector<double>
RandomMesh(std::size_t intervals, double length, unsigned seed)
{
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<double> steps(intervals), nodes{ 0.0 };
  double total = 0;
  for (double & h : steps)
    total += (h = u(rng));
  for (double h : steps)
    nodes.push_back(nodes.back() + h * length / total);
  return nodes;
}

/**
 * P1 factors on a random mesh with n unknowns whose ends vary with n % 3
 * (Dirichlet-Dirichlet, Neumann-Dirichlet, Dirichlet-Neumann) and whose mass
 * matrix with n % 2 (consistent, lumped).
 */
inline AxisFactors<double>
VariedAxis(std::size_t n, unsigned seed)
{
  const BoundaryCondition D = BoundaryCondition::Dirichlet, N = BoundaryCondition::Neumann;
  const BoundaryCondition left = n % 3 == 1 ? N : D, right = n % 3 == 2 ? N : D;
  const std::size_t dropped = (left == D) + (right == D);
  return MakeP1Axis(
    RandomMesh(n + dropped - 1, 1.0, seed), left, right, n % 2 ? MassMatrix::Lumped : MassMatrix::Consistent);
}

/** Dense row-major matrix. */
template<typename T>
struct Dense
{
  std::size_t n = 0;
  std::vector<T> a;
  explicit Dense(std::size_t size)
    : n(size)
    , a(size * size, T(0))
  {
  }
  T &
  operator()(std::size_t i, std::size_t j)
  {
    return a[i * n + j];
  }
  T
  operator()(std::size_t i, std::size_t j) const
  {
    return a[i * n + j];
  }
};

template<typename T>
Dense<T>
ToDense(const SymmetricTridiagonal<T> & m)
{
  Dense<T> d(m.Size());
  for (std::size_t i = 0; i < m.Size(); ++i)
  {
    d(i, i) = m.diagonal[i];
    if (i + 1 < m.Size())
      d(i, i + 1) = d(i + 1, i) = m.offDiagonal[i];
  }
  return d;
}

/** Kronecker product, the first factor the slow index. */
template<typename T>
Dense<T>
Kron(const Dense<T> & a, const Dense<T> & b)
{
  Dense<T> k(a.n * b.n);
  for (std::size_t i = 0; i < a.n; ++i)
    for (std::size_t j = 0; j < a.n; ++j)
      for (std::size_t r = 0; r < b.n; ++r)
        for (std::size_t s = 0; s < b.n; ++s)
          k(i * b.n + r, j * b.n + s) = a(i, j) * b(r, s);
  return k;
}

/** Gaussian elimination with partial pivoting in long double / complex<long double>. */
template<typename T>
std::vector<T>
DenseSolve(const Dense<T> & matrix, const std::vector<T> & rhs)
{
  using W = std::conditional_t<IsComplex<T>::value, std::complex<long double>, long double>;
  const std::size_t n = matrix.n;
  std::vector<W> a(matrix.a.begin(), matrix.a.end()), b(rhs.begin(), rhs.end());
  for (std::size_t c = 0; c < n; ++c)
  {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r * n + c]) > std::abs(a[p * n + c]))
        p = r;
    for (std::size_t j = 0; j < n; ++j)
      std::swap(a[c * n + j], a[p * n + j]);
    std::swap(b[c], b[p]);
    for (std::size_t r = c + 1; r < n; ++r)
    {
      const W f = a[r * n + c] / a[c * n + c];
      for (std::size_t j = c; j < n; ++j)
        a[r * n + j] -= f * a[c * n + j];
      b[r] -= f * b[c];
    }
  }
  std::vector<T> x(n);
  for (std::size_t i = n; i-- > 0;)
  {
    W s = b[i];
    for (std::size_t j = i + 1; j < n; ++j)
      s -= a[i * n + j] * W(x[j]);
    x[i] = static_cast<T>(s / a[i * n + i]);
  }
  return x;
}

} // namespace testing
} // namespace gpur

#endif
