// SPDX-License-Identifier: Apache-2.0
// gpur::TrigTransformPlan against the defining sums (FFTW's r2r definitions,
// evaluated directly in long double), on every subset of the axes of a 3D
// array and on a 2D one, float and double, aligned and unaligned arrays; and
// the round trips that the PSCR fast path relies on.
#include "gpurError.h"
#include "gpurTrigTransform.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace
{

using gpur::TrigTransformKind;

// One axis of the transform by its definition (gpurTrigTransform.h).
long double
Kernel(TrigTransformKind kind, std::size_t n, std::size_t j, std::size_t k)
{
  const long double pi = std::acos(-1.0L);
  switch (kind)
  {
    case TrigTransformKind::DST1:
      return 2 * std::sin(pi * (j + 1) * (k + 1) / (n + 1));
    case TrigTransformKind::DCT2:
      return 2 * std::cos(pi * (j + 0.5L) * k / n);
    case TrigTransformKind::DCT3:
      return j == 0 ? 1.0L : 2 * std::cos(pi * j * (k + 0.5L) / n);
    default:
      return j == k ? 1.0L : 0.0L;
  }
}

// The transform of x (x fastest) along every axis by direct sums.
std::vector<long double>
Direct(const std::vector<std::size_t> & shape, const std::vector<TrigTransformKind> & kinds, std::vector<long double> x)
{
  std::size_t stride = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
  {
    const std::size_t n = shape[d];
    std::vector<long double> y(x.size(), 0);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
      const std::size_t k = (i / stride) % n, base = i - k * stride;
      for (std::size_t j = 0; j < n; ++j)
        y[i] += Kernel(kinds[d], n, j, k) * x[base + j * stride];
    }
    x.swap(y);
    stride *= n;
  }
  return x;
}

template<typename T>
double
WorstError(const std::vector<std::size_t> & shape, const std::vector<TrigTransformKind> & kinds, std::size_t offset)
{
  std::size_t count = 1;
  for (std::size_t n : shape)
    count *= n;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> storage(count + offset);
  T * data = storage.data() + offset; // offset 1: not FFTW-aligned
  std::vector<long double> x(count);
  for (std::size_t i = 0; i < count; ++i)
    x[i] = data[i] = static_cast<T>(u(rng));
  const std::vector<long double> y = Direct(shape, kinds, x);
  gpur::TrigTransformPlan<T>(shape, kinds).Execute(data);
  long double worst = 0, scale = 0;
  for (std::size_t i = 0; i < count; ++i)
  {
    worst = std::max(worst, std::abs(static_cast<long double>(data[i]) - y[i]));
    scale = std::max(scale, std::abs(y[i]));
  }
  return static_cast<double>(worst / scale);
}

} // namespace

TEST(TrigTransformPlan, MatchesTheDefiningSumsOnEveryAxisSubset)
{
  const std::vector<std::size_t> shape{ 7, 5, 6 };
  const TrigTransformKind N = TrigTransformKind::None;
  const std::vector<TrigTransformKind> kinds{ TrigTransformKind::DST1,
                                              TrigTransformKind::DCT2,
                                              TrigTransformKind::DCT3 };
  for (unsigned mask = 1; mask < 8; ++mask)
    for (std::size_t offset : { 0u, 1u })
    {
      std::vector<TrigTransformKind> k(3, N);
      for (unsigned d = 0; d < 3; ++d)
        if (mask & (1u << d))
          k[d] = kinds[(d + mask) % 3];
      EXPECT_LE(WorstError<double>(shape, k, offset), 1e-14) << "mask " << mask << " offset " << offset;
      EXPECT_LE(WorstError<float>(shape, k, offset), 2e-6) << "mask " << mask << " offset " << offset;
    }
  EXPECT_LE(WorstError<double>({ 33, 1 }, { TrigTransformKind::DCT2, TrigTransformKind::DST1 }, 0), 1e-14);
}

TEST(TrigTransformPlan, RoundTripsAndBadInput)
{
  for (TrigTransformKind kind : { TrigTransformKind::DST1, TrigTransformKind::DCT2, TrigTransformKind::DCT3 })
  {
    const std::size_t n = 40;
    std::vector<double> x(n), y;
    for (std::size_t i = 0; i < n; ++i)
      x[i] = std::sin(0.3 * double(i)) + 0.1 * double(i);
    y = x;
    gpur::TrigTransformPlan<double>({ n }, { kind }).Execute(y.data());
    gpur::TrigTransformPlan<double>({ n }, { gpur::InverseTrigTransform(kind) }).Execute(y.data());
    const double scale = gpur::TrigTransformRoundTripScale(kind, n);
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_NEAR(y[i] / scale, x[i], 1e-13) << gpur::ToString(kind) << " i = " << i;
  }
  EXPECT_THROW(gpur::TrigTransformPlan<double>({ 4, 4 }, { TrigTransformKind::None, TrigTransformKind::None }),
               gpur::InvalidArgument);
  EXPECT_THROW(gpur::TrigTransformPlan<double>({ 4, 0 }, { TrigTransformKind::DST1, TrigTransformKind::DST1 }),
               gpur::InvalidArgument);
  EXPECT_THROW(gpur::TrigTransformPlan<double>({ 4 }, { TrigTransformKind::DST1, TrigTransformKind::DST1 }),
               gpur::InvalidArgument);
}
