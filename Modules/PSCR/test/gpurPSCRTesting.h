// SPDX-License-Identifier: Apache-2.0
// Helpers of the PSCR tests: random data, norms, a dense reference solver, and
// a dense Kronecker assembly of a separable operator, all independent of the
// engine's code; and VariedAxis, test factors made by the problem generators.
#ifndef gpurPSCRTesting_h
#define gpurPSCRTesting_h

#include "gpurDevice.h"
#include "gpurSeparableOperator.h"
#include "gpurSeparableProblems.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstddef>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

/** Skips the test when there is no OpenCL device. */
#define GPUR_REQUIRE_OPENCL()                                                                                          \
  if (!gpur::HaveOpenCLDevice())                                                                                       \
  GTEST_SKIP() << "no OpenCL device"

namespace gpur
{
namespace testing
{

/** Runs call, which must throw E with `part` in its message. */
template<typename E>
void
ExpectError(const std::function<void()> & call, const std::string & part)
{
  try
  {
    call();
    FAIL() << "no exception; expected one mentioning \"" << part << "\"";
  }
  catch (const E & e)
  {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

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

/**
 * r = f - A u in long double for a real separable operator, A applied term by
 * term, A = sum_t (x)_d F_{t,d} + c (x)_d M_d with F_{t,d} = A_d on axis t and
 * M_d elsewhere, one axis at a time by tridiagonal products: a different
 * decomposition from the engine's stencil, so the tests' residuals do not
 * share its code. `nullShift` subtracts s e_M (M e_z (x) M e_y (x) M e_x for
 * the vectors `null` of each axis) from f first (a projected right-hand side).
 */
template<typename T, typename U, typename V>
std::vector<long double>
KroneckerResidual(const SeparableOperator<T> & op,
                  const std::vector<U> & u,
                  const std::vector<V> & f,
                  long double nullShift = 0,
                  const std::vector<std::vector<long double>> & massNull = {})
{
  using L = long double;
  const std::size_t dims = op.axes.size(), count = u.size();
  // v <- (I (x) m (x) I) v along axis d.
  auto along = [&](std::vector<L> & v, std::size_t d, const SymmetricTridiagonal<T> & m)
  {
    std::size_t stride = 1;
    for (std::size_t e = 0; e < d; ++e)
      stride *= op.axes[e].Size();
    const std::size_t n = op.axes[d].Size();
    std::vector<L> out(count);
    for (std::size_t outer = 0; outer < count / (stride * n); ++outer)
      for (std::size_t s = 0; s < stride; ++s)
      {
        const std::size_t base = outer * stride * n + s;
        for (std::size_t i = 0; i < n; ++i)
        {
          L acc = L(m.diagonal[i]) * v[base + i * stride];
          if (i > 0)
            acc += L(m.offDiagonal[i - 1]) * v[base + (i - 1) * stride];
          if (i + 1 < n)
            acc += L(m.offDiagonal[i]) * v[base + (i + 1) * stride];
          out[base + i * stride] = acc;
        }
      }
    v.swap(out);
  };
  std::vector<L> r(count);
  for (std::size_t i = 0; i < count; ++i)
    r[i] = L(f[i]);
  if (nullShift != 0)
  {
    for (std::size_t i = 0; i < count; ++i)
    {
      L e = 1;
      std::size_t rest = i;
      for (std::size_t d = 0; d < dims; ++d)
      {
        e *= massNull[d][rest % op.axes[d].Size()];
        rest /= op.axes[d].Size();
      }
      r[i] -= nullShift * e;
    }
  }
  for (std::size_t t = 0; t <= dims; ++t) // t == dims: the shift term
  {
    std::vector<L> v(u.begin(), u.end());
    for (std::size_t d = 0; d < dims; ++d)
      along(v, d, d == t ? op.axes[d].A : op.axes[d].M);
    const L scale = t == dims ? L(op.shift) : L(1);
    for (std::size_t i = 0; i < count; ++i)
      r[i] -= scale * v[i];
  }
  return r;
}

/** ||r|| / ||f|| of KroneckerResidual's r, in double. */
template<typename V>
double
RelativeNorm(const std::vector<long double> & r, const std::vector<V> & f)
{
  long double rr = 0, ff = 0;
  for (std::size_t i = 0; i < r.size(); ++i)
  {
    rr += r[i] * r[i];
    ff += static_cast<long double>(f[i]) * static_cast<long double>(f[i]);
  }
  return static_cast<double>(std::sqrt(rr / ff));
}

/**
 * Strictly increasing mesh on [0, L] with random steps in [0.5, 1.5] L / intervals (neighbouring steps differ by up
 * to 3x).
 */
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
