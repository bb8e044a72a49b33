// SPDX-License-Identifier: Apache-2.0
#include "gpurNoiseEstimation.h"

#include "gpurError.h"
#include "gpurNoiseGainCalibration.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace gpur
{

void
NoiseEstimationOptions::Validate() const
{
  if (windowRadius > 4096)
  {
    throw InvalidArgument("noise estimation: windowRadius is " + std::to_string(windowRadius) +
                          "; allowed: 0 (automatic) to 4096 voxels");
  }
  if (!(edgeSmoothingSigma >= 0.5 && edgeSmoothingSigma <= 10.0))
  {
    throw InvalidArgument("noise estimation: edgeSmoothingSigma is " + std::to_string(edgeSmoothingSigma) +
                          "; allowed: 0.5 to 10 voxels");
  }
  if (!(edgeThreshold > 0.0) || !std::isfinite(edgeThreshold))
  {
    throw InvalidArgument("noise estimation: edgeThreshold is " + std::to_string(edgeThreshold) +
                          "; it must be finite and > 0 (noise standard deviations)");
  }
  if (!(outlierClip >= 1.5 && outlierClip <= 100.0))
  {
    throw InvalidArgument("noise estimation: outlierClip is " + std::to_string(outlierClip) +
                          "; allowed: 1.5 to 100 (local standard deviations)");
  }
  if (iterations < 1 || iterations > 100)
  {
    throw InvalidArgument("noise estimation: iterations is " + std::to_string(iterations) + "; allowed: 1 to 100");
  }
  if (!(floorFraction > 0.0 && floorFraction <= 1.0))
  {
    throw InvalidArgument("noise estimation: floorFraction is " + std::to_string(floorFraction) +
                          "; allowed: (0, 1] (a fraction of the median variance)");
  }
  if (spectrum != NoiseSpectrum::Measured && spectrum != NoiseSpectrum::White)
  {
    throw InvalidArgument("noise estimation: spectrum is " + std::to_string(static_cast<int>(spectrum)) +
                          "; allowed: Measured or White");
  }
  if (calibrationRadius > 64)
  {
    throw InvalidArgument("noise estimation: calibrationRadius is " + std::to_string(calibrationRadius) +
                          "; allowed: 0 (automatic) to 64 voxels");
  }
}

unsigned
NoiseEstimationOptions::WindowRadius(unsigned dimension) const
{
  if (windowRadius > 0)
  {
    return windowRadius;
  }
  return dimension == 2 ? 16u : 6u;
}

unsigned
NoiseEstimationOptions::CalibrationRadius(unsigned dimension) const
{
  if (calibrationRadius > 0)
  {
    return calibrationRadius;
  }
  // 7^3 = 343 and 13^2 = 169 voxels: enough for a plane fit to lose < 2 % of a ramp-filtered noise's
  // variance (measured with a Hann window: 9 % at 5^3, 2 % at 7^3), small enough to find flat tiles
  // between the features of a machined part.
  return dimension == 2 ? 6u : 3u;
}

namespace
{

// 1 / Phi^{-1}(3/4): sigma = kMADToSigma * median|x| for a zero-mean normal.
constexpr double kMADToSigma = 1.482602218505602;

template<typename Real>
void
ValidateInput(const Real * f, const Grid & grid)
{
  grid.Validate();
  if (f == nullptr)
  {
    throw InvalidArgument("noise estimation: the image pointer is null");
  }
  for (unsigned d = 0; d < grid.dimension; ++d)
  {
    if (grid.size[d] < 3)
    {
      throw InvalidArgument("noise estimation: the image (" + grid.ToString() + ") has " +
                            std::to_string(grid.size[d]) + " voxel(s) along axis " + std::to_string(d) +
                            "; the residual stencil needs at least 3 along every axis of a " +
                            std::to_string(grid.dimension) + "D grid (use a 2D grid for a single slice)");
    }
  }
  RequireFinite(f, grid.Count(), "the image");
}

/** The lines of a grid along one axis: count lines of `length` voxels, `stride` apart in memory. */
struct Lines
{
  std::size_t count = 0;
  std::size_t length = 0;
  std::size_t stride = 1;
  std::size_t nx = 1, ny = 1;

  Lines(const Grid & grid, unsigned axis)
    : length(grid.size[axis])
    , nx(grid.size[0])
    , ny(grid.size[1])
  {
    count = grid.Count() / length;
    stride = axis == 0 ? 1 : (axis == 1 ? nx : nx * ny);
    m_Axis = axis;
  }

  /** Index of the first voxel of line l. */
  std::size_t
  Start(std::size_t l) const
  {
    switch (m_Axis)
    {
      case 0:
        return l * nx;
      case 1:
        return (l / nx) * nx * ny + l % nx;
      default:
        return l;
    }
  }

private:
  unsigned m_Axis = 0;
};

/**
 * Applies `lineOp(in, out, n)` to every line of the grid along `axis`: `in`
 * holds the line's values read by `read(index)` (as double), `out` receives
 * n values written back by `write(index, value)`.
 */
template<typename Read, typename Write, typename LineOp>
void
TransformLines(const Grid & grid,
               unsigned axis,
               const ParallelForFunction & parallelFor,
               const Read & read,
               const Write & write,
               const LineOp & lineOp)
{
  const Lines lines(grid, axis);
  parallelFor(lines.count,
              [&](std::size_t l0, std::size_t l1)
              {
                std::vector<double> in(lines.length), out(lines.length);
                for (std::size_t l = l0; l < l1; ++l)
                {
                  const std::size_t start = lines.Start(l);
                  for (std::size_t i = 0; i < lines.length; ++i)
                  {
                    in[i] = read(start + i * lines.stride);
                  }
                  lineOp(in.data(), out.data(), lines.length);
                  for (std::size_t i = 0; i < lines.length; ++i)
                  {
                    write(start + i * lines.stride, out[i]);
                  }
                }
              });
}

/** out[i] = in[c-1] - 2 in[c] + in[c+1], c = clamp(i, 1, n-2) (n >= 3). */
void
SecondDifference(const double * in, double * out, std::size_t n)
{
  for (std::size_t i = 0; i < n; ++i)
  {
    const std::size_t c = std::min(std::max<std::size_t>(i, 1), n - 2);
    out[i] = in[c - 1] - 2.0 * in[c] + in[c + 1];
  }
}

/** The residual r = (M * f) / sqrt(6^D), computed in double and stored as T. */
template<typename T, typename Real>
std::vector<T>
Residual(const Real * f, const Grid & grid, const ParallelForFunction & parallelFor)
{
  std::vector<T> r(grid.Count());
  const double norm = 1.0 / std::sqrt(std::pow(6.0, static_cast<double>(grid.dimension)));
  for (unsigned d = 0; d < grid.dimension; ++d)
  {
    const bool first = d == 0, last = d + 1 == grid.dimension;
    TransformLines(
      grid,
      d,
      parallelFor,
      [&](std::size_t i) { return first ? static_cast<double>(f[i]) : static_cast<double>(r[i]); },
      [&](std::size_t i, double v) { r[i] = static_cast<T>(last ? v * norm : v); },
      SecondDifference);
  }
  return r;
}

/** Normalised discrete Gaussian taps g[-K..K], K = ceil(3 sigma). */
std::vector<double>
GaussianTaps(double sigma)
{
  const int K = static_cast<int>(std::ceil(3.0 * sigma));
  std::vector<double> g(2 * K + 1);
  double s = 0.0;
  for (int k = -K; k <= K; ++k)
  {
    g[k + K] = std::exp(-0.5 * k * k / (sigma * sigma));
    s += g[k + K];
  }
  for (auto & v : g)
  {
    v /= s;
  }
  return g;
}

/**
 * Variance, for white noise of unit variance, of one component of the central
 * difference of the Gaussian-smoothed image: sum (dg)^2 * (sum g^2)^(D-1).
 */
double
SmoothedGradientNoiseGain(const std::vector<double> & g, unsigned dimension)
{
  const int n = static_cast<int>(g.size());
  double sg2 = 0.0, sdg2 = 0.0;
  for (int j = -1; j <= n; ++j)
  {
    // (g * [1/2, 0, -1/2])_j = (g_{j-1} - g_{j+1}) / 2 on the padded support.
    const double a = (j - 1 >= 0 && j - 1 < n) ? g[j - 1] : 0.0;
    const double b = (j + 1 >= 0 && j + 1 < n) ? g[j + 1] : 0.0;
    sdg2 += 0.25 * (a - b) * (a - b);
  }
  for (double v : g)
  {
    sg2 += v * v;
  }
  return sdg2 * std::pow(sg2, static_cast<double>(dimension - 1));
}

/**
 * |grad(G * f)|^2 / scale^2 per voxel (central differences, one-sided on the
 * border), with the image mean subtracted first so that float storage keeps
 * the precision of the small differences.
 */
template<typename Real>
std::vector<float>
SmoothedGradientSquared(const Real * f,
                        const Grid & grid,
                        const std::vector<double> & taps,
                        double mean,
                        double scale,
                        const ParallelForFunction & parallelFor)
{
  const std::size_t n = grid.Count();
  const double inv = 1.0 / scale;
  const int K = static_cast<int>(taps.size() / 2);
  std::vector<float> s(n);
  for (unsigned d = 0; d < grid.dimension; ++d)
  {
    const bool first = d == 0;
    TransformLines(
      grid,
      d,
      parallelFor,
      [&](std::size_t i) { return first ? (static_cast<double>(f[i]) - mean) * inv : static_cast<double>(s[i]); },
      [&](std::size_t i, double v) { s[i] = static_cast<float>(v); },
      [&](const double * in, double * out, std::size_t len)
      {
        const long last = static_cast<long>(len) - 1;
        for (long i = 0; i <= last; ++i)
        {
          double acc = 0.0;
          for (int k = -K; k <= K; ++k)
          {
            acc += taps[k + K] * in[std::min(std::max(i + k, 0L), last)];
          }
          out[i] = acc;
        }
      });
  }
  std::vector<float> g2(n);
  const std::size_t nx = grid.size[0], ny = grid.size[1], nz = grid.size[2];
  const std::size_t strides[3] = { 1, nx, nx * ny };
  parallelFor(ny * nz,
              [&](std::size_t r0, std::size_t r1)
              {
                for (std::size_t row = r0; row < r1; ++row)
                {
                  const std::size_t coord[3] = { 0, row % ny, row / ny };
                  for (std::size_t x = 0; x < nx; ++x)
                  {
                    const std::size_t i = row * nx + x;
                    const std::size_t c[3] = { x, coord[1], coord[2] };
                    double sum = 0.0;
                    for (unsigned d = 0; d < grid.dimension; ++d)
                    {
                      const std::size_t m = grid.size[d], st = strides[d];
                      double diff;
                      if (c[d] == 0)
                      {
                        diff = static_cast<double>(s[i + st]) - s[i];
                      }
                      else if (c[d] + 1 == m)
                      {
                        diff = static_cast<double>(s[i]) - s[i - st];
                      }
                      else
                      {
                        diff = 0.5 * (static_cast<double>(s[i + st]) - s[i - st]);
                      }
                      sum += diff * diff;
                    }
                    g2[i] = static_cast<float>(sum);
                  }
                }
              });
  return g2;
}

/** Dilates a 0/1 mask by one voxel along every axis of the grid (a 3^D box). */
void
DilateByOne(std::vector<std::uint8_t> & mask, const Grid & grid, const ParallelForFunction & parallelFor)
{
  for (unsigned d = 0; d < grid.dimension; ++d)
  {
    TransformLines(
      grid,
      d,
      parallelFor,
      [&](std::size_t i) { return static_cast<double>(mask[i]); },
      [&](std::size_t i, double v) { mask[i] = static_cast<std::uint8_t>(v); },
      [](const double * in, double * out, std::size_t len)
      {
        for (std::size_t i = 0; i < len; ++i)
        {
          double m = in[i];
          if (i > 0)
            m = std::max(m, in[i - 1]);
          if (i + 1 < len)
            m = std::max(m, in[i + 1]);
          out[i] = m;
        }
      });
  }
}

/** Sums of a over the (2R + 1)^D box around every voxel, clipped to the grid (running sums). */
void
BoxSum(std::vector<float> & a, const Grid & grid, unsigned R, const ParallelForFunction & parallelFor)
{
  for (unsigned d = 0; d < grid.dimension; ++d)
  {
    TransformLines(
      grid,
      d,
      parallelFor,
      [&](std::size_t i) { return static_cast<double>(a[i]); },
      [&](std::size_t i, double v) { a[i] = static_cast<float>(v); },
      [R](const double * in, double * out, std::size_t len)
      {
        // out[i] = sum of in[max(0, i - R) .. min(len - 1, i + R)].
        double window = 0.0;
        for (std::size_t j = 0; j < std::min<std::size_t>(R, len); ++j)
        {
          window += in[j];
        }
        for (std::size_t i = 0; i < len; ++i)
        {
          if (i + R < len)
            window += in[i + R];
          if (i > R)
            window -= in[i - R - 1];
          out[i] = window;
        }
      });
  }
}

/** Variance of a unit normal truncated to [-c, c]: 1 - 2 c phi(c) / (2 Phi(c) - 1). */
double
TruncatedNormalVariance(double c)
{
  const double pi = 3.14159265358979323846;
  const double phi = std::exp(-0.5 * c * c) / std::sqrt(2.0 * pi);
  const double mass = std::erf(c / std::sqrt(2.0));
  return 1.0 - 2.0 * c * phi / mass;
}

/** The q-quantile (0 <= q < 1) of the values (by copy); 0 for none. */
double
Quantile(std::vector<float> values, double q)
{
  if (values.empty())
  {
    return 0.0;
  }
  auto at = values.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(values.size()));
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

/** Median of the values (by copy). */
double
Median(std::vector<float> values)
{
  return Quantile(std::move(values), 0.5);
}

/** max |r| over the residual (the scale that keeps the float statistics far from overflow). */
template<typename T>
double
MaxAbs(const std::vector<T> & r)
{
  double m = 0.0;
  for (const T & v : r)
  {
    m = std::max(m, std::abs(static_cast<double>(v)));
  }
  return m;
}

/** The residual divided by `scale`, in float. */
template<typename T>
std::vector<float>
Scaled(const std::vector<T> & r, double scale, const ParallelForFunction & parallelFor)
{
  std::vector<float> out(r.size());
  const double inv = 1.0 / scale;
  parallelFor(r.size(),
              [&](std::size_t b, std::size_t e)
              {
                for (std::size_t i = b; i < e; ++i)
                {
                  out[i] = static_cast<float>(static_cast<double>(r[i]) * inv);
                }
              });
  return out;
}

/** The image's residual and smoothed gradient, divided by the residual's max |r|. */
struct ScaledImage
{
  double scale = 0.0; ///< max |r|; 0: the image has no measurable noise (r and g2 are then empty)
  double mean = 0.0;  ///< of the image
  std::vector<float> r, g2;
};

template<typename Real>
ScaledImage
ScaledResidualAndGradient(const Real * f,
                          const Grid & grid,
                          double edgeSmoothingSigma,
                          const ParallelForFunction & parallelFor)
{
  ScaledImage out;
  {
    const std::vector<Real> raw = Residual<Real>(f, grid, parallelFor);
    out.scale = MaxAbs(raw);
    if (!(out.scale > 0.0))
    {
      return out;
    }
    out.r = Scaled(raw, out.scale, parallelFor);
  }
  const std::size_t n = grid.Count();
  const std::vector<double> sums = ParallelSum(parallelFor,
                                               n,
                                               1,
                                               [f](std::size_t b, std::size_t e, double * acc)
                                               {
                                                 for (std::size_t i = b; i < e; ++i)
                                                 {
                                                   acc[0] += static_cast<double>(f[i]);
                                                 }
                                               });
  out.mean = sums[0] / static_cast<double>(n);
  out.g2 = SmoothedGradientSquared(f, grid, GaussianTaps(edgeSmoothingSigma), out.mean, out.scale, parallelFor);
  return out;
}

/** Medians and lower quartiles of chi-square laws with 1, 2 and 3 degrees of freedom (index = degrees). */
constexpr double kChiSquareMedian[4] = { 0.0, 0.45493642311957283, 1.3862943611198906, 2.3659738843753377 };
constexpr double kChiSquareQuartile[4] = { 0.0, 0.10153104426762156, 0.5753641449035618, 1.2125329030456691 };
/**
 * The mask gain read at the median is capped at this multiple of the one read
 * at the lower quartile: on noise both agree within 35 % (the ratio is not
 * exactly chi-square), but where structure fills more than half of the voxels
 * (a small volume of a machined part) the median reads up to 1000 times the
 * noise's ratio and the quartile far less.
 */
constexpr double kMaskGainQuartileSlack = 2.0;

/**
 * g^2 of the structure mask (step 2 of NoiseEstimationOptions): the noise
 * variance of one smoothed-gradient component per unit variance of r. White:
 * the exact gain for white noise. Measured: the median over the voxels of
 * |grad(G * f)|^2 / v0, divided by that of chi-square with D degrees of
 * freedom (at most kMaskGainQuartileSlack times the same read at the lower
 * quartile), where v0 is the unmasked local mean of r^2 (pass 0 of step 3):
 * normalising each voxel by its local level keeps this right where the noise
 * level varies. The white gain where it is not positive.
 */
double
MaskGain(const NoiseEstimationOptions & options,
         unsigned dimension,
         const std::vector<float> & g2,
         const std::vector<float> & v0,
         const ParallelForFunction & parallelFor)
{
  const double white = SmoothedGradientNoiseGain(GaussianTaps(options.edgeSmoothingSigma), dimension);
  if (options.spectrum == NoiseSpectrum::White)
  {
    return white;
  }
  std::vector<float> ratio(g2.size());
  parallelFor(g2.size(),
              [&](std::size_t b, std::size_t e)
              {
                for (std::size_t i = b; i < e; ++i)
                {
                  ratio[i] = v0[i] > 0.0f ? g2[i] / v0[i] : 0.0f;
                }
              });
  const double quartile = Quantile(ratio, 0.25) / kChiSquareQuartile[dimension];
  const double median = Median(std::move(ratio)) / kChiSquareMedian[dimension];
  const double measured = std::min(median, kMaskGainQuartileSlack * quartile);
  return measured > 0.0 ? measured : white;
}

/**
 * The mean of r^2 over the voxels of the (2R + 1)^D box around every voxel,
 * clipped to the grid, that `mask` does not flag (all of them when it is
 * empty: pass 0 of step 3); 0 where the box has none.
 */
std::vector<float>
LocalMeanSquare(const std::vector<float> & r,
                const std::vector<std::uint8_t> & mask,
                const Grid & grid,
                unsigned R,
                const ParallelForFunction & parallelFor)
{
  const std::size_t n = r.size();
  std::vector<float> sum(n), count(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    const bool valid = mask.empty() || !mask[i];
    sum[i] = valid ? r[i] * r[i] : 0.0f;
    count[i] = valid ? 1.0f : 0.0f;
  }
  BoxSum(sum, grid, R, parallelFor);
  BoxSum(count, grid, R, parallelFor);
  for (std::size_t i = 0; i < n; ++i)
  {
    sum[i] = count[i] > 0.0f ? sum[i] / count[i] : 0.0f;
  }
  return sum;
}

/** Step 4 for the final mask (a gain of 1 for NoiseSpectrum::White); fills the report's gain fields. */
template<typename Real>
ResidualGain
MeasureGain(const Real * f,
            const ScaledImage & image,
            const std::vector<float> & localResidual2,
            const std::vector<std::uint8_t> & mask,
            const Grid & grid,
            const NoiseEstimationOptions & options,
            const ParallelForFunction & parallelFor,
            NoiseEstimationReport & report)
{
  ResidualGain gain; // White: 1
  if (options.spectrum == NoiseSpectrum::Measured)
  {
    gain = ResidualGain(
      f, image.mean, image.scale, localResidual2, mask, grid, options.CalibrationRadius(grid.dimension), parallelFor);
  }
  report.residualGain = gain.Global();
  report.gainMeasured = gain.Measured();
  report.tiles = gain.Tiles();
  report.flatTiles = gain.FlatTiles();
  return gain;
}

/** mask[i] = g2[i] > threshold2 * v(i), dilated by one voxel. */
template<typename VarianceAt>
std::vector<std::uint8_t>
StructureMask(const std::vector<float> & g2,
              double threshold2,
              const VarianceAt & varianceAt,
              const Grid & grid,
              const ParallelForFunction & parallelFor)
{
  std::vector<std::uint8_t> mask(g2.size());
  parallelFor(g2.size(),
              [&](std::size_t b, std::size_t e)
              {
                for (std::size_t i = b; i < e; ++i)
                {
                  mask[i] = static_cast<double>(g2[i]) > threshold2 * varianceAt(i) ? 1 : 0;
                }
              });
  DilateByOne(mask, grid, parallelFor);
  return mask;
}

} // namespace

template<typename Real>
std::vector<Real>
NoiseResidual(const Real * f, const Grid & grid, const ParallelForFunction & parallelFor)
{
  ValidateInput(f, grid);
  return Residual<Real>(f, grid, ResolveParallelFor(parallelFor));
}

template<typename Real>
std::vector<Real>
EstimateNoiseVariance(const Real * f,
                      const Grid & grid,
                      const NoiseEstimationOptions & options,
                      const ParallelForFunction & parallelFor,
                      NoiseEstimationReport * report)
{
  ValidateInput(f, grid);
  options.Validate();
  const ParallelForFunction pf = ResolveParallelFor(parallelFor);
  const std::size_t n = grid.Count();
  const unsigned R = options.WindowRadius(grid.dimension);

  const ScaledImage image = ScaledResidualAndGradient(f, grid, options.edgeSmoothingSigma, pf);
  if (!(image.scale > 0.0))
  {
    throw InvalidArgument("noise estimation: the image (" + grid.ToString() +
                          ") has no measurable noise (its high-pass residual is 0 everywhere, e.g. a constant or "
                          "linear image), so no positive variance map exists; give the variance volume explicitly");
  }
  const std::vector<float> & r = image.r;
  NoiseEstimationReport local;
  NoiseEstimationReport & out = report ? *report : local;
  out = NoiseEstimationReport();
  const double clip2 = options.outlierClip * options.outlierClip;
  const double eta = TruncatedNormalVariance(options.outlierClip);

  // Pass 0: every residual, no clipping; then `iterations` passes with mask and clipping.
  std::vector<float> v = LocalMeanSquare(r, {}, grid, R, pf), count(n), sum(n);
  out.maskGain = MaskGain(options, grid.dimension, image.g2, v, pf);
  const double threshold2 = options.edgeThreshold * options.edgeThreshold * out.maskGain;
  std::vector<std::uint8_t> mask;
  const std::size_t nx = grid.size[0], ny = grid.size[1];
  for (unsigned pass = 1; pass <= options.iterations; ++pass)
  {
    mask = StructureMask(
      image.g2, threshold2, [&v](std::size_t i) { return static_cast<double>(v[i]); }, grid, pf);
    pf(n,
       [&](std::size_t b, std::size_t e)
       {
         for (std::size_t i = b; i < e; ++i)
         {
           const double r2 = static_cast<double>(r[i]) * r[i];
           const bool valid = !mask[i] && r2 <= clip2 * v[i];
           count[i] = valid ? 1.0f : 0.0f;
           sum[i] = valid ? static_cast<float>(r2) : 0.0f;
         }
       });
    BoxSum(count, grid, R, pf);
    BoxSum(sum, grid, R, pf);
    pf(n,
       [&](std::size_t b, std::size_t e)
       {
         for (std::size_t i = b; i < e; ++i)
         {
           // The clipped window's volume, for the "at least 5 % of the window" rule.
           const std::size_t c[3] = { i % nx, (i / nx) % ny, i / (nx * ny) };
           double volume = 1.0;
           for (unsigned d = 0; d < grid.dimension; ++d)
           {
             const std::size_t lo = c[d] > R ? c[d] - R : 0;
             const std::size_t hi = std::min(grid.size[d] - 1, c[d] + R);
             volume *= static_cast<double>(hi - lo + 1);
           }
           if (count[i] >= std::max(1.0, 0.05 * volume))
           {
             v[i] = static_cast<float>(std::max(0.0, static_cast<double>(sum[i]) / count[i] / eta));
           }
         }
       });
  }

  // v estimates E[r^2] = G s^2: divide by the residual's gain (1 for white noise).
  const ResidualGain gain = MeasureGain(f, image, v, mask, grid, options, pf, out);
  if (gain.Measured())
  {
    pf(n,
       [&](std::size_t b, std::size_t e)
       {
         for (std::size_t i = b; i < e; ++i)
         {
           v[i] = static_cast<float>(static_cast<double>(v[i]) / gain.At(i % nx, (i / nx) % ny, i / (nx * ny)));
         }
       });
  }

  // Floor at a fraction of the median (of the mean when more than half the map is 0).
  double floor = options.floorFraction * Median(v);
  if (!(floor > 0.0))
  {
    const std::vector<double> total = ParallelSum(pf,
                                                  n,
                                                  1,
                                                  [&v](std::size_t b, std::size_t e, double * acc)
                                                  {
                                                    for (std::size_t i = b; i < e; ++i)
                                                    {
                                                      acc[0] += v[i];
                                                    }
                                                  });
    floor = options.floorFraction * total[0] / static_cast<double>(n);
  }
  if (!(floor > 0.0))
  {
    throw InvalidArgument("noise estimation: the image (" + grid.ToString() +
                          ") has no measurable noise, so no positive variance map exists; give the variance volume "
                          "explicitly");
  }
  std::vector<Real> result(n);
  const double scale2 = image.scale * image.scale;
  pf(n,
     [&](std::size_t b, std::size_t e)
     {
       for (std::size_t i = b; i < e; ++i)
       {
         result[i] = static_cast<Real>(std::max(static_cast<double>(v[i]), floor) * scale2);
       }
     });
  return result;
}

template<typename Real>
double
EstimateNoiseSigma(const Real * f,
                   const Grid & grid,
                   const NoiseEstimationOptions & options,
                   const ParallelForFunction & parallelFor,
                   NoiseEstimationReport * report)
{
  ValidateInput(f, grid);
  options.Validate();
  const ParallelForFunction pf = ResolveParallelFor(parallelFor);
  NoiseEstimationReport local;
  NoiseEstimationReport & out = report ? *report : local;
  out = NoiseEstimationReport();
  const ScaledImage image = ScaledResidualAndGradient(f, grid, options.edgeSmoothingSigma, pf);
  if (!(image.scale > 0.0))
  {
    return 0.0;
  }
  const std::size_t n = image.r.size();
  std::vector<float> absR(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    absR[i] = std::abs(image.r[i]);
  }
  double sigma = kMADToSigma * Median(absR);
  const unsigned R = options.WindowRadius(grid.dimension);
  out.maskGain = MaskGain(options, grid.dimension, image.g2, LocalMeanSquare(image.r, {}, grid, R, pf), pf);
  const double threshold2 = options.edgeThreshold * options.edgeThreshold * out.maskGain;
  std::vector<std::uint8_t> mask(n, 0);
  // Two refinements of the mask (threshold: the global estimate) and of sigma, as MAD of the unflagged |r|.
  for (int pass = 0; pass < 2 && sigma > 0.0; ++pass)
  {
    const double variance = sigma * sigma;
    auto next = StructureMask(
      image.g2, threshold2, [variance](std::size_t) { return variance; }, grid, pf);
    std::vector<float> kept;
    kept.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      if (!next[i])
      {
        kept.push_back(absR[i]);
      }
    }
    if (kept.size() < std::max<std::size_t>(27, n / 100))
    {
      break; // (almost) everything is structure: keep the unmasked estimate
    }
    sigma = kMADToSigma * Median(std::move(kept));
    mask = std::move(next);
  }
  // The calibration's E[r^2]: the local mean of the unflagged r^2.
  const ResidualGain gain =
    MeasureGain(f, image, LocalMeanSquare(image.r, mask, grid, R, pf), mask, grid, options, pf, out);
  return sigma / std::sqrt(gain.Global()) * image.scale;
}

#define GPUR_INSTANTIATE_NOISE_ESTIMATION(T)                                                                           \
  template std::vector<T> NoiseResidual(const T *, const Grid &, const ParallelForFunction &);                         \
  template std::vector<T> EstimateNoiseVariance(                                                                       \
    const T *, const Grid &, const NoiseEstimationOptions &, const ParallelForFunction &, NoiseEstimationReport *);    \
  template double EstimateNoiseSigma(                                                                                  \
    const T *, const Grid &, const NoiseEstimationOptions &, const ParallelForFunction &, NoiseEstimationReport *);
GPUR_INSTANTIATE_NOISE_ESTIMATION(float)
GPUR_INSTANTIATE_NOISE_ESTIMATION(double)
#undef GPUR_INSTANTIATE_NOISE_ESTIMATION

} // namespace gpur
