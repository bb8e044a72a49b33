// SPDX-License-Identifier: Apache-2.0
// Test signals, a dense copy of the sensing operator built independently of
// the engine's FFTs, and small vector helpers for the sparse-recovery tests.
#ifndef gpurSparseTesting_h
#define gpurSparseTesting_h

#include "gpurSparseRecovery.h"

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace gpur
{
namespace sparsetest
{

/** A k-sparse signal of n values: k distinct random positions, N(0, 1) values (nonnegative: |N(0, 1)|). */
template<typename Real>
std::vector<Real>
SparseSignal(std::size_t n, std::size_t k, unsigned seed, bool nonnegative = false)
{
  std::mt19937_64 random(seed);
  std::vector<std::size_t> index(n);
  for (std::size_t i = 0; i < n; ++i)
    index[i] = i;
  std::normal_distribution<double> normal;
  std::vector<Real> x(n, Real(0));
  for (std::size_t i = 0; i < k; ++i)
  {
    std::uniform_int_distribution<std::size_t> pick(i, n - 1);
    std::swap(index[i], index[pick(random)]);
    double v = normal(random);
    // Keep every entry away from 0 so that "exactly k-sparse" stays meaningful.
    v = v < 0 ? v - 0.2 : v + 0.2;
    x[index[i]] = Real(nonnegative ? std::abs(v) : v);
  }
  return x;
}

/** A periodic index difference (a - b) mod n. */
inline std::size_t
Wrap(std::ptrdiff_t v, std::size_t n)
{
  const std::ptrdiff_t m = std::ptrdiff_t(n);
  return std::size_t(((v % m) + m) % m);
}

/**
 * The dense n x n matrix of A = P C B (row-major, n = Count()) from the
 * definitions alone: C_ij = v_((j - i) mod n) per axis, B the periodic
 * convolution with the PSF centred at psfSize / 2 (normalised when asked),
 * P zeroing the unsampled rows.
 */
inline std::vector<double>
DenseSensing(const CirculantSensing & s)
{
  const std::size_t nx = s.size[0], ny = s.size.size() > 1 ? s.size[1] : 1, n = nx * ny;
  std::vector<double> c(n * n, 0.0), b(n * n, 0.0), a(n * n, 0.0);
  for (std::size_t iy = 0; iy < ny; ++iy)
    for (std::size_t ix = 0; ix < nx; ++ix)
      for (std::size_t jy = 0; jy < ny; ++jy)
        for (std::size_t jx = 0; jx < nx; ++jx)
          c[(iy * nx + ix) * n + jy * nx + jx] = s.generator[Wrap(std::ptrdiff_t(jy) - std::ptrdiff_t(iy), ny) * nx +
                                                             Wrap(std::ptrdiff_t(jx) - std::ptrdiff_t(ix), nx)];
  if (s.psf.empty())
  {
    for (std::size_t i = 0; i < n; ++i)
      b[i * n + i] = 1.0;
  }
  else
  {
    const std::size_t px = s.psfSize[0], py = s.psfSize.size() > 1 ? s.psfSize[1] : 1;
    double sum = 0.0;
    for (double p : s.psf)
      sum += p;
    const double scale = s.normalizePSF ? 1.0 / sum : 1.0;
    // (B x)_i = sum_a psf_a x_(i - (a - centre)): a convolution.
    for (std::size_t iy = 0; iy < ny; ++iy)
      for (std::size_t ix = 0; ix < nx; ++ix)
        for (std::size_t ay = 0; ay < py; ++ay)
          for (std::size_t ax = 0; ax < px; ++ax)
          {
            const std::size_t jx = Wrap(std::ptrdiff_t(ix) - (std::ptrdiff_t(ax) - std::ptrdiff_t(px / 2)), nx);
            const std::size_t jy = Wrap(std::ptrdiff_t(iy) - (std::ptrdiff_t(ay) - std::ptrdiff_t(py / 2)), ny);
            b[(iy * nx + ix) * n + jy * nx + jx] += scale * s.psf[ay * px + ax];
          }
  }
  for (std::size_t i = 0; i < n; ++i)
  {
    if (!s.mask[i])
      continue;
    for (std::size_t l = 0; l < n; ++l)
    {
      const double cil = c[i * n + l];
      if (cil == 0.0)
        continue;
      for (std::size_t j = 0; j < n; ++j)
        a[i * n + j] += cil * b[l * n + j];
    }
  }
  return a;
}

/** y = M x for a dense row-major n x n matrix. */
template<typename Real>
std::vector<double>
Multiply(const std::vector<double> & m, const std::vector<Real> & x, bool transpose = false)
{
  const std::size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      y[i] += (transpose ? m[j * n + i] : m[i * n + j]) * double(x[j]);
  return y;
}

template<typename A, typename B>
double
Dot(const std::vector<A> & a, const std::vector<B> & b)
{
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += double(a[i]) * double(b[i]);
  return s;
}

template<typename A>
double
Norm(const std::vector<A> & a)
{
  return std::sqrt(Dot(a, a));
}

/** ||a - b|| / ||b||. */
template<typename A, typename B>
double
RelativeDifference(const std::vector<A> & a, const std::vector<B> & b)
{
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    d += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
  return std::sqrt(d) / Norm(b);
}

/** A Gaussian-ish PSF of the given size (positive, peaked at the centre, not symmetric so that flips show). */
inline std::vector<double>
TestPSF(const std::vector<std::size_t> & size)
{
  const std::size_t px = size[0], py = size.size() > 1 ? size[1] : 1;
  std::vector<double> p(px * py);
  for (std::size_t j = 0; j < py; ++j)
    for (std::size_t i = 0; i < px; ++i)
    {
      const double dx = double(i) - double(px / 2), dy = double(j) - double(py / 2);
      p[j * px + i] = std::exp(-0.5 * (dx * dx + dy * dy)) * (1.0 + 0.1 * double(i) + 0.05 * double(j));
    }
  return p;
}

/** n values drawn from N(0, 1). */
template<typename Real>
std::vector<Real>
RandomVector(std::size_t n, unsigned seed)
{
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  std::vector<Real> v(n);
  for (auto & x : v)
    x = Real(normal(random));
  return v;
}

/** A Gaussian sensing of the given size and ratio with TestPSF of psfSize (empty: no PSF). */
inline CirculantSensing
TestSensing(const std::vector<std::size_t> & size,
            const std::vector<std::size_t> & psfSize,
            double ratio,
            unsigned seed)
{
  CirculantSensing s = MakeGaussianCirculantSensing(size, ratio, seed);
  if (!psfSize.empty())
  {
    s.psfSize = psfSize;
    s.psf = TestPSF(psfSize);
  }
  return s;
}

} // namespace sparsetest
} // namespace gpur

#endif
