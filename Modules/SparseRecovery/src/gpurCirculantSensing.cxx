// SPDX-License-Identifier: Apache-2.0
// The sensing description (gpurSparseRecovery.h): its checks, and the
// reproducible Gaussian partial circulant operator of [Fiandrotti2018, §4.2].
#include "gpurSparseRecovery.h"

#include <cmath>
#include <sstream>

namespace gpur
{

namespace
{

std::string
SizeText(const std::vector<std::size_t> & size)
{
  std::ostringstream text;
  for (std::size_t d = 0; d < size.size(); ++d)
    text << (d ? "x" : "") << size[d];
  return text.str();
}

/** Throws InvalidArgument unless `size` has one or two axes, each >= 2. */
void
ValidateSize(const std::vector<std::size_t> & size)
{
  if (size.empty() || size.size() > 2)
  {
    throw InvalidArgument("circulant sensing: the signal has " + std::to_string(size.size()) +
                          " axes; it must have 1 (a signal of n values) or 2 (an nx x ny image)");
  }
  for (std::size_t d = 0; d < size.size(); ++d)
  {
    if (size[d] < 2)
    {
      throw InvalidArgument("circulant sensing: axis " + std::to_string(d) + " of the signal (size " + SizeText(size) +
                            ") has " + std::to_string(size[d]) + " values; each axis needs >= 2");
    }
  }
}

template<typename T>
void
RequireFiniteValues(const std::vector<T> & values, const char * what)
{
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    if (!std::isfinite(values[i]))
    {
      throw InvalidArgument(std::string("circulant sensing: the ") + what + " holds a non-finite value at index " +
                            std::to_string(i) + "; NaN and Inf are not allowed");
    }
  }
}

/**
 * SplitMix64 (Steele, Lea and Flood's generator, as in Vigna's reference
 * splitmix64.c): a 64-bit state advanced by the golden-ratio increment and
 * mixed by two xor-shift-multiply rounds. Chosen because it is a few lines
 * that every language reproduces exactly with 64-bit unsigned arithmetic.
 */
class SplitMix64
{
public:
  explicit SplitMix64(std::uint64_t seed)
    : m_State(seed)
  {
  }
  std::uint64_t
  Next()
  {
    std::uint64_t z = (m_State += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /** A uniform double in (0, 1]: the top 53 bits plus one, times 2^-53 (never 0, so log() is finite). */
  double
  Uniform()
  {
    return double((Next() >> 11) + 1) * 0x1.0p-53;
  }

private:
  std::uint64_t m_State;
};

} // namespace

std::size_t
CirculantSensing::Count() const
{
  std::size_t n = size.empty() ? 0 : 1;
  for (std::size_t s : size)
    n *= s;
  return n;
}

std::size_t
CirculantSensing::Measurements() const
{
  std::size_t m = 0;
  for (std::uint8_t v : mask)
    m += v != 0;
  return m;
}

void
CirculantSensing::Validate() const
{
  ValidateSize(size);
  const std::size_t n = Count();
  if (generator.size() != n)
  {
    throw InvalidArgument("circulant sensing: the generator (first row of C) has " + std::to_string(generator.size()) +
                          " values; the signal of size " + SizeText(size) + " needs " + std::to_string(n));
  }
  RequireFiniteValues(generator, "generator");
  bool nonzero = false;
  for (double g : generator)
    nonzero = nonzero || g != 0.0;
  if (!nonzero)
    throw InvalidArgument("circulant sensing: the generator (first row of C) is all 0; C would be 0");
  if (mask.size() != n)
  {
    throw InvalidArgument("circulant sensing: the mask has " + std::to_string(mask.size()) +
                          " values; the signal of size " + SizeText(size) + " needs " + std::to_string(n));
  }
  for (std::size_t i = 0; i < n; ++i)
  {
    if (mask[i] > 1)
    {
      throw InvalidArgument("circulant sensing: the mask is " + std::to_string(int(mask[i])) + " at index " +
                            std::to_string(i) + "; it must be 1 (measured) or 0");
    }
  }
  if (Measurements() == 0)
    throw InvalidArgument("circulant sensing: the mask is empty (no measured position); at least one 1 is needed");
  if (psf.empty())
  {
    if (!psfSize.empty())
      throw InvalidArgument("circulant sensing: psfSize is " + SizeText(psfSize) + " but the PSF is empty");
    return;
  }
  if (psfSize.size() != size.size())
  {
    throw InvalidArgument("circulant sensing: the PSF has " + std::to_string(psfSize.size()) +
                          " axes (psfSize); the signal has " + std::to_string(size.size()));
  }
  std::size_t count = 1;
  for (std::size_t d = 0; d < size.size(); ++d)
  {
    if (psfSize[d] < 1 || psfSize[d] > size[d])
    {
      throw InvalidArgument("circulant sensing: the PSF's size " + SizeText(psfSize) + " must be >= 1 and at most " +
                            "the signal's size " + SizeText(size) + " on every axis");
    }
    count *= psfSize[d];
  }
  if (psf.size() != count)
  {
    throw InvalidArgument("circulant sensing: the PSF has " + std::to_string(psf.size()) + " values; its size " +
                          SizeText(psfSize) + " needs " + std::to_string(count));
  }
  RequireFiniteValues(psf, "PSF");
  double sum = 0.0;
  for (double p : psf)
    sum += p;
  if (sum == 0.0)
    throw InvalidArgument("circulant sensing: the PSF sums to 0; a point-spread function needs a nonzero sum");
}

// The draw, in this order from one SplitMix64 stream started at `seed`:
//  1. the generator v_0 .. v_(n-1): pairs of uniforms u1, u2 in (0, 1] give the
//     Box-Muller normals sqrt(-2 ln u1) cos(2 pi u2) (-> v_i) and
//     sqrt(-2 ln u1) sin(2 pi u2) (-> v_(i+1); dropped for the last value of an
//     odd n), each times 1 / sqrt(m);
//  2. Omega, by a partial Fisher-Yates shuffle of the indices 0 .. n-1: for
//     i = 0 .. m-1, j = i + Next() mod (n - i), swap(index_i, index_j), and
//     index_i is sampled (the modulo's bias is below 2^-39 for n < 2^25).
// m = round(ratio * n) clamped to [1, n]. Bindings that draw operators
// themselves must follow these steps exactly.
CirculantSensing
MakeGaussianCirculantSensing(const std::vector<std::size_t> & size, double ratio, std::uint64_t seed)
{
  ValidateSize(size);
  if (!std::isfinite(ratio) || !(ratio > 0.0) || ratio > 1.0)
  {
    std::ostringstream message;
    message << "circulant sensing: the sampling ratio m/n is " << ratio << "; it must be in (0, 1]";
    throw InvalidArgument(message.str());
  }
  CirculantSensing sensing;
  sensing.size = size;
  const std::size_t n = sensing.Count();
  const std::size_t m = std::min(n, std::max<std::size_t>(1, std::size_t(std::llround(ratio * double(n)))));
  const double scale = 1.0 / std::sqrt(double(m));
  const double twoPi = 6.283185307179586476925286766559;
  SplitMix64 random(seed);
  sensing.generator.resize(n);
  for (std::size_t i = 0; i < n; i += 2)
  {
    const double u1 = random.Uniform(), u2 = random.Uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    sensing.generator[i] = radius * std::cos(twoPi * u2) * scale;
    if (i + 1 < n)
      sensing.generator[i + 1] = radius * std::sin(twoPi * u2) * scale;
  }
  std::vector<std::size_t> index(n);
  for (std::size_t i = 0; i < n; ++i)
    index[i] = i;
  sensing.mask.assign(n, 0);
  for (std::size_t i = 0; i < m; ++i)
  {
    const std::size_t j = i + std::size_t(random.Next() % std::uint64_t(n - i));
    std::swap(index[i], index[j]);
    sensing.mask[index[i]] = 1;
  }
  return sensing;
}

} // namespace gpur
