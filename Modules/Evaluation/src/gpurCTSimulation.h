// SPDX-License-Identifier: Apache-2.0
// Internal building blocks of the CT simulations (gpurCTPhantom.cxx: parallel
// beam, gpurConeBeamCT.cxx: cone beam): portable random numbers, the counting
// statistics of one detector reading, and the ramp filter with the kernels that
// propagate the projection noise variance through it.
#ifndef gpurCTSimulation_h
#define gpurCTSimulation_h

#include "gpurCTPhantom.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gpur
{
namespace ct
{

constexpr double kPi = 3.14159265358979323846;

// Portable random numbers: mt19937_64 is specified bit-exactly by the standard,
// the distributions are not, so they are written out here.

inline std::uint64_t
SplitMix64(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Random
{
public:
  explicit Random(std::uint64_t seed)
    : m_Engine(seed)
  {
  }

  /** Uniform in the open interval (0, 1). */
  double
  Uniform()
  {
    return (static_cast<double>(m_Engine() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  }

  /** Standard normal (Box-Muller, one value per call). */
  double
  Normal()
  {
    const double u = Uniform(), v = Uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * kPi * v);
  }

  /** Poisson(mean): multiplication method below 10, Hormann's PTRS (1993) above. */
  double
  Poisson(double mean)
  {
    if (mean <= 0.0)
    {
      return 0.0;
    }
    if (mean < 10.0)
    {
      const double limit = std::exp(-mean);
      double product = Uniform();
      double k = 0.0;
      while (product > limit)
      {
        product *= Uniform();
        k += 1.0;
      }
      return k;
    }
    const double slam = std::sqrt(mean);
    const double loglam = std::log(mean);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;)
    {
      const double u = Uniform() - 0.5;
      const double v = Uniform();
      const double us = 0.5 - std::abs(u);
      const double k = std::floor((2.0 * a / us + b) * u + mean + 0.43);
      if (us >= 0.07 && v <= vr)
      {
        return k;
      }
      if (k < 0.0 || (us < 0.013 && v > us))
      {
        continue;
      }
      if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <= -mean + k * loglam - LogFactorial(k))
      {
        return k;
      }
    }
  }

private:
  // log(k!) without std::lgamma (which is not thread-safe everywhere): exact
  // table below 16, Stirling's series (error < 1e-12) above.
  static double
  LogFactorial(double k)
  {
    if (k < 16.0)
    {
      double f = 0.0;
      for (int i = 2; i <= static_cast<int>(k); ++i)
      {
        f += std::log(static_cast<double>(i));
      }
      return f;
    }
    const double x = k + 1.0;
    const double x2 = x * x;
    return (x - 0.5) * std::log(x) - x + 0.5 * std::log(2.0 * kPi) + 1.0 / (12.0 * x) - 1.0 / (360.0 * x * x2) +
           1.0 / (1260.0 * x * x2 * x2);
  }

  std::mt19937_64 m_Engine;
};

/**
 * One detector reading of a ray with noise-free line integral `line` (already
 * multiplied by the attenuation, dimensionless): counts N ~ Poisson(I0 e^-line)
 * + N(0, e^2), clamped to minimumCount, and the post-log value -log(N / I0).
 * `variance` receives the first-order (delta method) post-log variance
 * (I + e^2) / I^2 of the expected count I.
 */
inline double
NoisyLineIntegral(double line, const CTScanParameters & parameters, Random & random, double & variance)
{
  const double i0 = parameters.photonsPerRay, e = parameters.electronicNoise;
  const double expected = i0 * std::exp(-line);
  double counts = random.Poisson(expected);
  if (e > 0.0)
  {
    counts += e * random.Normal();
  }
  counts = std::max(counts, parameters.minimumCount);
  variance = (expected + e * e) / (expected * expected);
  return std::log(i0 / counts);
}

/**
 * The attenuation of intensity 1 (1/mm): the parameter, or, when it is <= 0,
 * the one that makes the largest of the noise-free line integrals (intensity x
 * mm) maximumLineIntegral (1/mm for an all-zero volume).
 */
inline double
AttenuationPerUnit(const CTScanParameters & parameters, const std::vector<float> & lineIntegrals)
{
  if (parameters.attenuationPerUnit > 0.0)
  {
    return parameters.attenuationPerUnit;
  }
  const float largest = lineIntegrals.empty() ? 0.0f : *std::max_element(lineIntegrals.begin(), lineIntegrals.end());
  return largest > 0.0f ? parameters.maximumLineIntegral / static_cast<double>(largest) : 1.0;
}

/** Kak & Slaney's band-limited ramp, h(m) for bin offset m (units 1/mm^2). */
inline double
RamLak(long long m, double ds)
{
  if (m == 0)
  {
    return 1.0 / (4.0 * ds * ds);
  }
  if (m % 2 == 0)
  {
    return 0.0;
  }
  const double md = static_cast<double>(m);
  return -1.0 / (kPi * kPi * md * md * ds * ds);
}

/** out[j] = scale * sum_k kernelAtZero[k - j] in[k] for j, k in [0, n). */
inline void
Correlate(const double * kernelAtZero, const double * in, double * out, std::size_t n, double scale)
{
  for (std::size_t j = 0; j < n; ++j)
  {
    const double * kj = kernelAtZero - static_cast<std::ptrdiff_t>(j);
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k)
    {
      sum += kj[k] * in[k];
    }
    out[j] = scale * sum;
  }
}

/**
 * The ramp filter of a detector row of `bins` bins of width ds, as a direct
 * spatial convolution, and its action on the variance of independent bins:
 * with q = ds (h * p) and Var(p_k) = v_k,
 *   Var(q_j) = ds^2 sum_k h(j - k)^2 v_k,
 *   Cov(q_j, q_{j+1}) = ds^2 sum_k h(j - k) h(j + 1 - k) v_k,
 * which linear interpolation between bins j and j + 1 needs.
 */
class RampRowFilter
{
public:
  RampRowFilter(std::size_t bins, double ds, RampFilter filter)
    : m_Bins(bins)
    , m_Ds(ds)
    , m_H(2 * bins + 1)
    , m_H2(2 * bins + 1)
    , m_HH(2 * bins + 1)
  {
    const long long n = static_cast<long long>(bins);
    auto h = [&](long long m)
    {
      if (filter == RampFilter::Hann)
      {
        return 0.25 * RamLak(m - 1, ds) + 0.5 * RamLak(m, ds) + 0.25 * RamLak(m + 1, ds);
      }
      return RamLak(m, ds);
    };
    for (long long m = -n; m <= n; ++m)
    {
      const std::size_t i = static_cast<std::size_t>(m + n);
      m_H[i] = h(m);
      m_H2[i] = h(m) * h(m);
      m_HH[i] = h(m) * h(m + 1);
    }
  }

  /** q = ds (h * p). */
  void
  Filter(const double * p, double * q) const
  {
    Correlate(&m_H[m_Bins], p, q, m_Bins, m_Ds);
  }

  /** Var(q_j) and Cov(q_j, q_{j+1}) of the filtered row for independent bins of variance v. */
  void
  FilterVariance(const double * v, double * variance, double * covariance) const
  {
    Correlate(&m_H2[m_Bins], v, variance, m_Bins, m_Ds * m_Ds);
    // kernelAtZero[m] = h(m - 1) h(m): sum_k h(k - j - 1) h(k - j) v_k = sum_k h(j - k) h(j + 1 - k) v_k (h is even).
    Correlate(&m_HH[m_Bins - 1], v, covariance, m_Bins, m_Ds * m_Ds);
  }

private:
  std::size_t m_Bins;
  double m_Ds;
  std::vector<double> m_H, m_H2, m_HH;
};

/**
 * Variance of (1 - f) q_j + f q_{j+1} (linear interpolation between two bins of
 * a filtered row) from Var(q) and Cov(q_j, q_{j+1}).
 */
template<typename T>
double
InterpolatedVariance(const T * variance, const T * covariance, std::size_t j, double f)
{
  return (1.0 - f) * (1.0 - f) * static_cast<double>(variance[j]) + f * f * static_cast<double>(variance[j + 1]) +
         2.0 * f * (1.0 - f) * static_cast<double>(covariance[j]);
}

/** SimulateCT for CTGeometry::ConeBeam (gpurConeBeamCT.cxx); grid, truth and parameters are already validated. */
CTSimulation
SimulateConeBeam(const Grid & grid, const std::vector<float> & truth, const CTScanParameters & parameters);

} // namespace ct
} // namespace gpur

#endif
