// SPDX-License-Identifier: Apache-2.0
#include "gpurMetrics.h"

#include "gpurError.h"
#include "gpurParallel.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace gpur
{

template<typename T>
double
MeanSquaredError(const T * a, const T * b, std::size_t n)
{
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    s += d * d;
  }
  return n > 0 ? s / static_cast<double>(n) : 0.0;
}

template<typename T>
double
PeakSignalToNoiseRatio(const T * test, const T * reference, std::size_t n, double peak)
{
  const double mse = MeanSquaredError(test, reference, n);
  return mse > 0.0 ? 10.0 * std::log10(peak * peak / mse) : std::numeric_limits<double>::infinity();
}

template<typename T>
double
MaxAbsDifference(const T * a, const T * b, std::size_t n)
{
  double m = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    m = std::max(m, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return m;
}

#define GPUR_INSTANTIATE_METRICS(T)                                                                                    \
  template double MeanSquaredError(const T *, const T *, std::size_t);                                                 \
  template double PeakSignalToNoiseRatio(const T *, const T *, std::size_t, double);                                   \
  template double MaxAbsDifference(const T *, const T *, std::size_t);
GPUR_INSTANTIATE_METRICS(float)
GPUR_INSTANTIATE_METRICS(double)
#undef GPUR_INSTANTIATE_METRICS

// ---------------------------------------------------------------------------
// SSIM

void
SSIMParameters::Validate() const
{
  auto positive = [](double v, const char * name)
  {
    if (!(v > 0.0) || !std::isfinite(v))
    {
      throw InvalidArgument(std::string("SSIM: ") + name + " is " + std::to_string(v) + "; it must be finite and > 0");
    }
  };
  positive(dataRange, "dataRange");
  positive(k1, "k1");
  positive(k2, "k2");
  positive(sigma, "sigma");
  if (!(truncate >= 0.0) || !std::isfinite(truncate) || truncate * sigma > 1.0e6)
  {
    throw InvalidArgument("SSIM: truncate is " + std::to_string(truncate) +
                          "; it must be finite, >= 0 and give a radius of at most 1e6 voxels");
  }
}

unsigned
SSIMParameters::Radius() const
{
  return static_cast<unsigned>(truncate * sigma + 0.5);
}

namespace
{

// scipy.ndimage mode "reflect" (half-sample symmetric: d c b a | a b c d | d c b a), any offset.
inline std::size_t
ReflectIndex(long long i, std::size_t n)
{
  const long long period = 2 * static_cast<long long>(n);
  long long m = i % period;
  if (m < 0)
  {
    m += period;
  }
  return static_cast<std::size_t>(m < static_cast<long long>(n) ? m : period - 1 - m);
}

// Normalised Gaussian weights w[0 .. 2r], as scipy.ndimage.gaussian_filter1d.
std::vector<double>
GaussianWeights(double sigma, unsigned radius)
{
  std::vector<double> w(2 * static_cast<std::size_t>(radius) + 1);
  double sum = 0.0;
  for (std::size_t k = 0; k < w.size(); ++k)
  {
    const double x = static_cast<double>(k) - static_cast<double>(radius);
    w[k] = std::exp(-0.5 / (sigma * sigma) * x * x);
    sum += w[k];
  }
  for (auto & v : w)
  {
    v /= sum;
  }
  return w;
}

constexpr unsigned kFields = 5; // a, b, a^2, b^2, a b

/**
 * Computes the local SSIM slice by slice: each source slice is filtered in x and
 * y into 5 fields (a, b, aa, bb, ab) kept in a ring of 2 rz + 1 slices, and the z
 * filter combines them. Memory: (2 rz + 1) * 5 slices of doubles. `sink(z, s)`
 * receives every output slice s (nx * ny values).
 */
template<typename T>
void
SSIMSlices(const Grid & grid,
           const T * a,
           const T * b,
           const SSIMParameters & parameters,
           const std::function<void(std::size_t, const std::vector<double> &)> & sink)
{
  parameters.Validate();
  if (grid.dimension != 2 && grid.dimension != 3)
  {
    throw InvalidArgument("SSIM: image dimension " + std::to_string(grid.dimension) + " is not supported (2 or 3)");
  }
  const std::size_t nx = grid.size[0], ny = grid.size[1], nz = grid.dimension == 3 ? grid.size[2] : 1;
  if (nx == 0 || ny == 0 || nz == 0)
  {
    throw InvalidArgument("SSIM: the image is empty (size " + grid.ToString() + ")");
  }
  if (a == nullptr || b == nullptr)
  {
    throw InvalidArgument("SSIM: null image pointer");
  }
  const unsigned r = parameters.Radius();
  const bool windowZ = grid.dimension == 3 && !parameters.sliceBySlice;
  const unsigned rz = windowZ ? r : 0;
  if (parameters.excludeBorder)
  {
    const std::size_t need = 2 * static_cast<std::size_t>(r) + 1;
    if (nx < need || ny < need || (windowZ && nz < need))
    {
      throw InvalidArgument(
        "SSIM: the image (size " + grid.ToString() + ") is smaller than the " + std::to_string(need) +
        "-voxel window along a windowed axis; excludeBorder needs at least " + std::to_string(need) +
        " voxels (use sliceBySlice for thin 3D stacks, or excludeBorder = false)");
    }
  }
  const std::vector<double> w = GaussianWeights(parameters.sigma, r);
  const std::vector<double> wz = GaussianWeights(parameters.sigma, rz);
  const std::size_t sliceSize = nx * ny;
  const std::size_t ringSize = 2 * static_cast<std::size_t>(rz) + 1;
  std::vector<std::vector<double>> ring(ringSize, std::vector<double>(kFields * sliceSize));
  std::vector<double> rowFiltered(kFields * sliceSize);
  const auto parallelFor = MakeThreadParallelFor(sliceSize >= 16384 ? 0u : 1u);

  const double c1 = (parameters.k1 * parameters.dataRange) * (parameters.k1 * parameters.dataRange);
  const double c2 = (parameters.k2 * parameters.dataRange) * (parameters.k2 * parameters.dataRange);

  auto filterSlice = [&](std::size_t z, std::vector<double> & out)
  {
    const T * sa = a + z * sliceSize;
    const T * sb = b + z * sliceSize;
    // x pass: rows of the 5 products, reflected at the ends.
    parallelFor(ny,
                [&](std::size_t y0, std::size_t y1)
                {
                  std::vector<double> padded(kFields * (nx + 2 * r));
                  const std::size_t np = nx + 2 * r;
                  for (std::size_t y = y0; y < y1; ++y)
                  {
                    for (std::size_t i = 0; i < np; ++i)
                    {
                      const std::size_t x = ReflectIndex(static_cast<long long>(i) - r, nx);
                      const double va = static_cast<double>(sa[y * nx + x]);
                      const double vb = static_cast<double>(sb[y * nx + x]);
                      padded[0 * np + i] = va;
                      padded[1 * np + i] = vb;
                      padded[2 * np + i] = va * va;
                      padded[3 * np + i] = vb * vb;
                      padded[4 * np + i] = va * vb;
                    }
                    for (unsigned f = 0; f < kFields; ++f)
                    {
                      const double * in = &padded[f * np];
                      double * o = &rowFiltered[f * sliceSize + y * nx];
                      for (std::size_t x = 0; x < nx; ++x)
                      {
                        double s = 0.0;
                        for (std::size_t k = 0; k < w.size(); ++k)
                        {
                          s += w[k] * in[x + k];
                        }
                        o[x] = s;
                      }
                    }
                  }
                });
    // y pass.
    parallelFor(ny,
                [&](std::size_t y0, std::size_t y1)
                {
                  for (std::size_t y = y0; y < y1; ++y)
                  {
                    for (unsigned f = 0; f < kFields; ++f)
                    {
                      double * o = &out[f * sliceSize + y * nx];
                      std::fill(o, o + nx, 0.0);
                      for (std::size_t k = 0; k < w.size(); ++k)
                      {
                        const std::size_t yy = ReflectIndex(static_cast<long long>(y + k) - r, ny);
                        const double * in = &rowFiltered[f * sliceSize + yy * nx];
                        const double wk = w[k];
                        for (std::size_t x = 0; x < nx; ++x)
                        {
                          o[x] += wk * in[x];
                        }
                      }
                    }
                  }
                });
  };

  std::vector<double> ssim(sliceSize);
  long long computed = -1; // highest source slice filtered so far
  for (std::size_t z = 0; z < nz; ++z)
  {
    const long long last = std::min<long long>(static_cast<long long>(nz) - 1, static_cast<long long>(z + rz));
    while (computed < last)
    {
      ++computed;
      filterSlice(static_cast<std::size_t>(computed), ring[static_cast<std::size_t>(computed) % ringSize]);
    }
    // Sources of output slice z lie in [z - rz, z + rz] clipped to the volume: distinct ring slots.
    std::vector<const double *> source(wz.size());
    for (std::size_t k = 0; k < wz.size(); ++k)
    {
      source[k] = ring[ReflectIndex(static_cast<long long>(z + k) - rz, nz) % ringSize].data();
    }
    parallelFor(ny,
                [&](std::size_t y0, std::size_t y1)
                {
                  for (std::size_t i = y0 * nx; i < y1 * nx; ++i)
                  {
                    double m[kFields] = { 0.0, 0.0, 0.0, 0.0, 0.0 };
                    for (std::size_t k = 0; k < wz.size(); ++k)
                    {
                      for (unsigned f = 0; f < kFields; ++f)
                      {
                        m[f] += wz[k] * source[k][f * sliceSize + i];
                      }
                    }
                    const double va = m[2] - m[0] * m[0];
                    const double vb = m[3] - m[1] * m[1];
                    const double cov = m[4] - m[0] * m[1];
                    ssim[i] = ((2.0 * m[0] * m[1] + c1) * (2.0 * cov + c2)) /
                              ((m[0] * m[0] + m[1] * m[1] + c1) * (va + vb + c2));
                  }
                });
    sink(z, ssim);
  }
}

} // namespace

template<typename T>
std::vector<float>
StructuralSimilarityMap(const Grid & grid, const T * a, const T * b, const SSIMParameters & parameters)
{
  std::vector<float> map;
  SSIMSlices<T>(grid,
                a,
                b,
                parameters,
                [&](std::size_t z, const std::vector<double> & s)
                {
                  if (map.empty())
                  {
                    map.resize(s.size() * (grid.dimension == 3 ? grid.size[2] : 1));
                  }
                  std::transform(
                    s.begin(), s.end(), map.begin() + z * s.size(), [](double v) { return static_cast<float>(v); });
                });
  return map;
}

template<typename T>
double
MeanStructuralSimilarity(const Grid & grid, const T * a, const T * b, const SSIMParameters & parameters)
{
  const std::size_t nx = grid.size[0], ny = grid.size[1], nz = grid.dimension == 3 ? grid.size[2] : 1;
  const std::size_t r = parameters.excludeBorder ? parameters.Radius() : 0;
  const std::size_t rz = (grid.dimension == 3 && !parameters.sliceBySlice) ? r : 0;
  double sum = 0.0;
  std::size_t count = 0;
  SSIMSlices<T>(grid,
                a,
                b,
                parameters,
                [&](std::size_t z, const std::vector<double> & s)
                {
                  if (z < rz || z + rz >= nz)
                  {
                    return;
                  }
                  double sliceSum = 0.0;
                  for (std::size_t y = r; y + r < ny; ++y)
                  {
                    for (std::size_t x = r; x + r < nx; ++x)
                    {
                      sliceSum += s[y * nx + x];
                    }
                  }
                  sum += sliceSum;
                  count += (ny - 2 * r) * (nx - 2 * r);
                });
  return sum / static_cast<double>(count);
}

// ---------------------------------------------------------------------------
// Region statistics and SNR

template<typename T>
RegionStatistics
ComputeRegionStatistics(const T * image, const std::uint8_t * mask, std::size_t n)
{
  RegionStatistics r;
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    if (mask[i] != 0)
    {
      sum += static_cast<double>(image[i]);
      ++r.count;
    }
  }
  if (r.count < 2)
  {
    throw InvalidArgument("region statistics: the mask selects " + std::to_string(r.count) +
                          " voxel(s); at least 2 are needed");
  }
  r.mean = sum / static_cast<double>(r.count);
  double ss = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    if (mask[i] != 0)
    {
      const double d = static_cast<double>(image[i]) - r.mean;
      ss += d * d;
    }
  }
  r.standardDeviation = std::sqrt(ss / static_cast<double>(r.count));
  if (r.standardDeviation > 0.0)
  {
    r.snr = r.mean / r.standardDeviation;
  }
  else
  {
    r.snr = r.mean > 0.0 ? std::numeric_limits<double>::infinity()
                         : (r.mean < 0.0 ? -std::numeric_limits<double>::infinity() : 0.0);
  }
  return r;
}

template<typename T>
double
RegionSignalToNoiseRatio(const T * image, const std::uint8_t * mask, std::size_t n)
{
  return ComputeRegionStatistics(image, mask, n).snr;
}

std::vector<std::uint8_t>
BoxMask(const Grid & grid, const std::array<std::size_t, 3> & begin, const std::array<std::size_t, 3> & end)
{
  std::vector<std::uint8_t> mask(grid.Count(), 0);
  const std::size_t nx = grid.size[0], ny = grid.size[1], nz = grid.size[2];
  const std::size_t z0 = grid.dimension == 3 ? begin[2] : 0;
  const std::size_t z1 = grid.dimension == 3 ? std::min(end[2], nz) : nz;
  for (std::size_t z = z0; z < z1; ++z)
  {
    for (std::size_t y = begin[1]; y < std::min(end[1], ny); ++y)
    {
      for (std::size_t x = begin[0]; x < std::min(end[0], nx); ++x)
      {
        mask[(z * ny + y) * nx + x] = 1;
      }
    }
  }
  return mask;
}

#define GPUR_INSTANTIATE_QUALITY(T)                                                                                    \
  template std::vector<float> StructuralSimilarityMap(const Grid &, const T *, const T *, const SSIMParameters &);     \
  template double MeanStructuralSimilarity(const Grid &, const T *, const T *, const SSIMParameters &);                \
  template RegionStatistics ComputeRegionStatistics(const T *, const std::uint8_t *, std::size_t);                     \
  template double RegionSignalToNoiseRatio(const T *, const std::uint8_t *, std::size_t);
GPUR_INSTANTIATE_QUALITY(float)
GPUR_INSTANTIATE_QUALITY(double)
#undef GPUR_INSTANTIATE_QUALITY

} // namespace gpur
