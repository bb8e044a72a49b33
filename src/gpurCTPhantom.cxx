#include "gpurCTPhantom.h"

#include "gpurError.h"
#include "gpurParallel.h"
#include "gpurPhantom.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>

namespace gpur
{
namespace
{

constexpr double kPi = 3.14159265358979323846;

std::size_t
Slices(const Grid & grid)
{
  return grid.dimension == 3 ? grid.size[2] : 1;
}

// ---------------------------------------------------------------------------
// Portable random numbers: mt19937_64 is specified bit-exactly by the standard,
// the distributions are not, so they are written out here.

std::uint64_t
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

// ---------------------------------------------------------------------------
// Parallel-beam geometry of one slice.

struct SliceGeometry
{
  std::size_t nx = 0, ny = 0, bins = 0, angles = 0;
  double hx = 1.0, hy = 1.0, ds = 1.0;
  double radius = 0.0; // half diagonal plus a margin, mm
  std::vector<double> cosines, sines;

  double
  BinCentre() const
  {
    return 0.5 * static_cast<double>(bins - 1);
  }
};

SliceGeometry
MakeSliceGeometry(const Grid & grid, std::size_t numberOfAngles)
{
  SliceGeometry g;
  g.nx = grid.size[0];
  g.ny = grid.size[1];
  g.hx = grid.spacing[0];
  g.hy = grid.spacing[1];
  g.ds = std::min(g.hx, g.hy);
  const double halfDiagonal =
    0.5 * std::sqrt(std::pow(static_cast<double>(g.nx) * g.hx, 2) + std::pow(static_cast<double>(g.ny) * g.hy, 2));
  const std::size_t halfBins = static_cast<std::size_t>(std::ceil(halfDiagonal / g.ds)) + 1;
  g.bins = 2 * halfBins + 1;
  g.radius = halfDiagonal + g.ds;
  g.angles = numberOfAngles > 0
               ? numberOfAngles
               : static_cast<std::size_t>(std::ceil(0.5 * kPi * static_cast<double>(std::max(g.nx, g.ny))));
  g.cosines.resize(g.angles);
  g.sines.resize(g.angles);
  for (std::size_t a = 0; a < g.angles; ++a)
  {
    const double theta = kPi * static_cast<double>(a) / static_cast<double>(g.angles);
    g.cosines[a] = std::cos(theta);
    g.sines[a] = std::sin(theta);
  }
  return g;
}

// Range of j with lo <= f0 + j df <= hi (real-valued bounds; empty: first > second).
std::pair<double, double>
SampleRange(double f0, double df, double lo, double hi)
{
  if (df == 0.0)
  {
    return (f0 >= lo && f0 <= hi) ? std::make_pair(-1.0e300, 1.0e300) : std::make_pair(1.0, 0.0);
  }
  const double a = (lo - f0) / df, b = (hi - f0) / df;
  return { std::min(a, b), std::max(a, b) };
}

/** Line integrals (in mm x intensity) of one slice: sinogram[a * bins + k]. */
void
ForwardProject(const SliceGeometry & g, const float * slice, float * sinogram)
{
  // Bilinear sampling every dt along the ray; the slice is copied into a zero border
  // of 2 voxels so that the samples, clipped to [-1, n] per axis, need no checks.
  const double dt = 0.5 * g.ds;
  const double cx = 0.5 * static_cast<double>(g.nx - 1), cy = 0.5 * static_cast<double>(g.ny - 1);
  const std::size_t px = g.nx + 4;
  std::vector<double> padded(px * (g.ny + 4), 0.0);
  for (std::size_t y = 0; y < g.ny; ++y)
  {
    for (std::size_t x = 0; x < g.nx; ++x)
    {
      padded[(y + 2) * px + x + 2] = static_cast<double>(slice[y * g.nx + x]);
    }
  }
  for (std::size_t a = 0; a < g.angles; ++a)
  {
    const double c = g.cosines[a], s = g.sines[a];
    for (std::size_t k = 0; k < g.bins; ++k)
    {
      const double sk = (static_cast<double>(k) - g.BinCentre()) * g.ds;
      const double half2 = g.radius * g.radius - sk * sk;
      double sum = 0.0;
      if (half2 > 0.0)
      {
        const double half = std::sqrt(half2);
        const std::size_t samples = static_cast<std::size_t>(std::ceil(2.0 * half / dt));
        const double t0 = -0.5 * dt * static_cast<double>(samples - 1);
        // Point on the ray: (sk c - t s, sk s + t c) mm, in fractional voxel indices (+2: the border).
        const double fx0 = (sk * c - t0 * s) / g.hx + cx + 2.0, fy0 = (sk * s + t0 * c) / g.hy + cy + 2.0;
        const double dfx = -dt * s / g.hx, dfy = dt * c / g.hy;
        const auto rx = SampleRange(fx0, dfx, 1.0, static_cast<double>(g.nx) + 2.0);
        const auto ry = SampleRange(fy0, dfy, 1.0, static_cast<double>(g.ny) + 2.0);
        const double lo = std::max({ 0.0, rx.first, ry.first });
        const double hi = std::min({ static_cast<double>(samples) - 1.0, rx.second, ry.second });
        if (lo <= hi)
        {
          const std::size_t j0 = static_cast<std::size_t>(std::ceil(lo)), j1 = static_cast<std::size_t>(std::floor(hi));
          for (std::size_t j = j0; j <= j1; ++j)
          {
            const double fx = fx0 + static_cast<double>(j) * dfx, fy = fy0 + static_cast<double>(j) * dfy;
            const double flx = std::floor(fx), fly = std::floor(fy);
            const double ax = fx - flx, ay = fy - fly;
            const double * p = &padded[static_cast<std::size_t>(fly) * px + static_cast<std::size_t>(flx)];
            sum += (1.0 - ay) * ((1.0 - ax) * p[0] + ax * p[1]) + ay * ((1.0 - ax) * p[px] + ax * p[px + 1]);
          }
        }
        sum *= dt;
      }
      sinogram[a * g.bins + k] = static_cast<float>(sum);
    }
  }
}

// Kak & Slaney's band-limited ramp, h(m) for bin offset m (units 1/mm^2).
double
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

/** The FBP kernels on offsets -bins .. bins (index m + bins): h, h^2 and h(m) h(m + 1). */
struct FilterKernels
{
  std::vector<double> h, h2, hh;
};

FilterKernels
MakeFilterKernels(const SliceGeometry & g, RampFilter filter)
{
  const long long n = static_cast<long long>(g.bins);
  auto h = [&](long long m)
  {
    if (filter == RampFilter::Hann)
    {
      return 0.25 * RamLak(m - 1, g.ds) + 0.5 * RamLak(m, g.ds) + 0.25 * RamLak(m + 1, g.ds);
    }
    return RamLak(m, g.ds);
  };
  FilterKernels k;
  k.h.resize(2 * g.bins + 1);
  k.h2.resize(2 * g.bins + 1);
  k.hh.resize(2 * g.bins + 1);
  for (long long m = -n; m <= n; ++m)
  {
    const std::size_t i = static_cast<std::size_t>(m + n);
    k.h[i] = h(m);
    k.h2[i] = h(m) * h(m);
    k.hh[i] = h(m) * h(m + 1);
  }
  return k;
}

// out[j] = scale * sum_k kernelAtZero[k - j] in[k] for j, k in [0, n).
void
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
 * Back-projection: out(x, y) = scale * sum_a accumulate(a, j, f), where the ray of
 * view a through the voxel centre hits the detector at fractional bin j + f.
 */
template<typename Accumulate>
void
BackProject(const SliceGeometry & g, double scale, float * out, Accumulate accumulate)
{
  const double cx = 0.5 * static_cast<double>(g.nx - 1), cy = 0.5 * static_cast<double>(g.ny - 1);
  std::vector<double> sum(g.nx * g.ny, 0.0);
  const long long bins = static_cast<long long>(g.bins);
  for (std::size_t a = 0; a < g.angles; ++a)
  {
    const double du = g.cosines[a] * g.hx / g.ds;
    for (std::size_t y = 0; y < g.ny; ++y)
    {
      const double py = (static_cast<double>(y) - cy) * g.hy;
      const double u0 = (-cx * g.hx * g.cosines[a] + py * g.sines[a]) / g.ds + g.BinCentre();
      double * row = &sum[y * g.nx];
      for (std::size_t x = 0; x < g.nx; ++x)
      {
        const double u = u0 + static_cast<double>(x) * du;
        const double fl = std::floor(u);
        const long long j = static_cast<long long>(fl);
        if (j < 0 || j + 1 >= bins)
        {
          continue; // outside the detector: cannot happen with the diagonal margin
        }
        row[x] += accumulate(a, static_cast<std::size_t>(j), u - fl);
      }
    }
  }
  for (std::size_t i = 0; i < sum.size(); ++i)
  {
    out[i] = static_cast<float>(scale * sum[i]);
  }
}

} // namespace

// ---------------------------------------------------------------------------
// Machined part

MachinedPartLayout
MakeMachinedPartLayout(const Grid & grid, const MachinedPartParameters & parameters)
{
  if (grid.dimension != 2 && grid.dimension != 3)
  {
    throw InvalidArgument("MachinedPartPhantom: dimension " + std::to_string(grid.dimension) + " (allowed: 2 or 3)");
  }
  const std::size_t nx = grid.size[0], ny = grid.size[1], nz = Slices(grid);
  if (nx < 32 || ny < 32 || nz < 1)
  {
    throw InvalidArgument("MachinedPartPhantom: the slice is " + std::to_string(nx) + "x" + std::to_string(ny) +
                          "; at least 32x32 voxels are needed to keep its features apart");
  }
  if (!std::isfinite(parameters.blockValue) || !std::isfinite(parameters.pinValue))
  {
    throw InvalidArgument("MachinedPartPhantom: blockValue and pinValue must be finite");
  }
  MachinedPartLayout l;
  l.blockValue = parameters.blockValue;
  l.pinValue = parameters.pinValue;
  const std::size_t mx = static_cast<std::size_t>(std::lround(0.125 * static_cast<double>(nx)));
  const std::size_t my = static_cast<std::size_t>(std::lround(0.1875 * static_cast<double>(ny)));
  l.blockBegin = { { mx, my } };
  l.blockEnd = { { nx - mx, ny - my } };
  l.zBegin = nz / 16;
  l.zEnd = nz - l.zBegin;
  const double width = static_cast<double>(l.blockEnd[0] - l.blockBegin[0]);
  const double height = static_cast<double>(l.blockEnd[1] - l.blockBegin[1]);
  const double n = static_cast<double>(std::min(nx, ny));
  auto centre = [](std::size_t begin, double offset) { return static_cast<double>(begin) + std::floor(offset) + 0.5; };
  const double boreY = centre(l.blockBegin[1], 0.3 * height);
  const double boreFractions[3] = { 0.2, 0.45, 0.7 };
  const double boreDiameters[3] = { 0.16, 0.10, 0.06 };
  for (int i = 0; i < 3; ++i)
  {
    l.bores.push_back(
      { centre(l.blockBegin[0], boreFractions[i] * width), boreY, std::max(2.0, boreDiameters[i] * n) });
  }
  l.pin = { centre(l.blockBegin[0], 0.78 * width), centre(l.blockBegin[1], 0.62 * height), std::max(2.0, 0.14 * n) };
  const std::size_t depth = static_cast<std::size_t>(std::lround(0.35 * height));
  const double slotFractions[3] = { 0.15, 0.3, 0.45 };
  for (std::size_t i = 0; i < 3; ++i)
  {
    const std::size_t x0 = l.blockBegin[0] + static_cast<std::size_t>(std::lround(slotFractions[i] * width));
    l.slots.push_back({ x0, i + 1, l.blockEnd[1] - depth, l.blockEnd[1] });
  }
  return l;
}

std::vector<float>
MachinedPartPhantom(const Grid & grid, const MachinedPartParameters & parameters)
{
  const MachinedPartLayout l = MakeMachinedPartLayout(grid, parameters);
  const std::size_t nx = grid.size[0], ny = grid.size[1], nz = Slices(grid);
  auto inside = [](const MachinedPartLayout::Circle & c, double x, double y)
  {
    const double dx = x - c.cx, dy = y - c.cy;
    return dx * dx + dy * dy <= 0.25 * c.diameter * c.diameter;
  };
  std::vector<float> slice(nx * ny, 0.0f);
  for (std::size_t y = l.blockBegin[1]; y < l.blockEnd[1]; ++y)
  {
    for (std::size_t x = l.blockBegin[0]; x < l.blockEnd[0]; ++x)
    {
      const double px = static_cast<double>(x) + 0.5, py = static_cast<double>(y) + 0.5;
      double v = l.blockValue;
      if (inside(l.pin, px, py))
      {
        v = l.pinValue;
      }
      for (const auto & b : l.bores)
      {
        if (inside(b, px, py))
        {
          v = 0.0;
        }
      }
      for (const auto & s : l.slots)
      {
        if (x >= s.xBegin && x < s.xBegin + s.width && y >= s.yBegin && y < s.yEnd)
        {
          v = 0.0;
        }
      }
      slice[y * nx + x] = static_cast<float>(v);
    }
  }
  std::vector<float> f(nx * ny * nz, 0.0f);
  for (std::size_t z = l.zBegin; z < l.zEnd; ++z)
  {
    std::copy(slice.begin(), slice.end(), f.begin() + static_cast<std::ptrdiff_t>(z * nx * ny));
  }
  return f;
}

// ---------------------------------------------------------------------------
// CT simulation

void
CTScanParameters::Validate() const
{
  auto require = [](bool ok, const std::string & what)
  {
    if (!ok)
    {
      throw InvalidArgument("CT simulation: " + what);
    }
  };
  require(photonsPerRay > 0.0 && std::isfinite(photonsPerRay),
          "photonsPerRay is " + std::to_string(photonsPerRay) + "; it must be finite and > 0");
  require(electronicNoise >= 0.0 && std::isfinite(electronicNoise),
          "electronicNoise is " + std::to_string(electronicNoise) + "; it must be finite and >= 0");
  require(std::isfinite(attenuationPerUnit),
          "attenuationPerUnit must be finite (> 0, or <= 0 for the automatic choice)");
  require(attenuationPerUnit > 0.0 || (maximumLineIntegral > 0.0 && std::isfinite(maximumLineIntegral)),
          "maximumLineIntegral is " + std::to_string(maximumLineIntegral) + "; it must be finite and > 0");
  require(minimumCount > 0.0 && std::isfinite(minimumCount),
          "minimumCount is " + std::to_string(minimumCount) + "; it must be finite and > 0");
  require(numberOfAngles <= 1000000, "numberOfAngles is " + std::to_string(numberOfAngles) + "; at most 1e6");
}

CTSimulation
SimulateCT(const Grid & grid, const std::vector<float> & truth, const CTScanParameters & parameters)
{
  grid.Validate();
  parameters.Validate();
  if (truth.size() != grid.Count())
  {
    throw InvalidArgument("CT simulation: the ground truth has " + std::to_string(truth.size()) +
                          " values but the grid " + grid.ToString() + " has " + std::to_string(grid.Count()));
  }
  RequireFinite(truth.data(), truth.size(), "CT simulation ground truth");
  const SliceGeometry g = MakeSliceGeometry(grid, parameters.numberOfAngles);
  const std::size_t nz = Slices(grid), sliceSize = g.nx * g.ny, sinoSize = g.angles * g.bins;
  const auto parallelFor = MakeThreadParallelFor(parameters.threads);

  CTSimulation out;
  out.grid = grid;
  out.truth = truth;
  out.numberOfAngles = g.angles;
  out.numberOfBins = g.bins;
  out.binSpacing = g.ds;

  // 1. Noise-free line integrals of every slice (intensity x mm).
  std::vector<float> sinograms(nz * sinoSize);
  parallelFor(nz,
              [&](std::size_t z0, std::size_t z1)
              {
                for (std::size_t z = z0; z < z1; ++z)
                {
                  ForwardProject(g, &truth[z * sliceSize], &sinograms[z * sinoSize]);
                }
              });
  double mu = parameters.attenuationPerUnit;
  if (!(mu > 0.0))
  {
    const float largest = *std::max_element(sinograms.begin(), sinograms.end());
    mu = largest > 0.0f ? parameters.maximumLineIntegral / static_cast<double>(largest) : 1.0;
  }
  out.attenuationPerUnit = mu;

  // 2. Per slice: counts, log, filter, back-project (and the variance).
  const FilterKernels kernels = MakeFilterKernels(g, parameters.filter);
  const double * h = &kernels.h[g.bins];
  const double * h2 = &kernels.h2[g.bins];
  const double * hhShifted = &kernels.hh[g.bins - 1]; // kernelAtZero[m] = h(m - 1) h(m): X(j) = sum_k g(k - j - 1) v(k)
  const double viewWeight = kPi / static_cast<double>(g.angles);
  out.noisy.resize(truth.size());
  if (parameters.computeVariance)
  {
    out.variance.resize(truth.size());
  }
  if (parameters.computeNoiseFree)
  {
    out.noiseFree.resize(truth.size());
  }
  const double i0 = parameters.photonsPerRay, e2 = parameters.electronicNoise * parameters.electronicNoise;
  parallelFor(nz,
              [&](std::size_t z0, std::size_t z1)
              {
                std::vector<double> p(g.bins), v(g.bins), q(sinoSize), qv(sinoSize), qx(sinoSize);
                for (std::size_t z = z0; z < z1; ++z)
                {
                  Random random(SplitMix64(parameters.seed ^ SplitMix64(static_cast<std::uint64_t>(z) + 1)));
                  const float * sino = &sinograms[z * sinoSize];
                  auto interpolate = [](const std::vector<double> & r, std::size_t bins)
                  {
                    return [&r, bins](std::size_t a, std::size_t j, double f)
                    { return (1.0 - f) * r[a * bins + j] + f * r[a * bins + j + 1]; };
                  };
                  // Noisy reconstruction (in units of mu), then divided by mu.
                  for (std::size_t a = 0; a < g.angles; ++a)
                  {
                    for (std::size_t k = 0; k < g.bins; ++k)
                    {
                      const double expected = i0 * std::exp(-mu * static_cast<double>(sino[a * g.bins + k]));
                      double counts = random.Poisson(expected);
                      if (e2 > 0.0)
                      {
                        counts += parameters.electronicNoise * random.Normal();
                      }
                      counts = std::max(counts, parameters.minimumCount);
                      p[k] = std::log(i0 / counts);
                      v[k] = (expected + e2) / (expected * expected);
                    }
                    Correlate(h, p.data(), &q[a * g.bins], g.bins, g.ds);
                    if (parameters.computeVariance)
                    {
                      Correlate(h2, v.data(), &qv[a * g.bins], g.bins, g.ds * g.ds);
                      Correlate(hhShifted, v.data(), &qx[a * g.bins], g.bins, g.ds * g.ds);
                    }
                  }
                  BackProject(g, viewWeight / mu, &out.noisy[z * sliceSize], interpolate(q, g.bins));
                  if (parameters.computeVariance)
                  {
                    BackProject(g,
                                viewWeight * viewWeight / (mu * mu),
                                &out.variance[z * sliceSize],
                                [&](std::size_t a, std::size_t j, double f)
                                {
                                  const std::size_t i = a * g.bins + j;
                                  return (1.0 - f) * (1.0 - f) * qv[i] + f * f * qv[i + 1] +
                                         2.0 * f * (1.0 - f) * qx[i];
                                });
                  }
                  if (parameters.computeNoiseFree)
                  {
                    for (std::size_t a = 0; a < g.angles; ++a)
                    {
                      for (std::size_t k = 0; k < g.bins; ++k)
                      {
                        p[k] = static_cast<double>(sino[a * g.bins + k]);
                      }
                      Correlate(h, p.data(), &q[a * g.bins], g.bins, g.ds);
                    }
                    BackProject(g, viewWeight, &out.noiseFree[z * sliceSize], interpolate(q, g.bins));
                  }
                }
              });
  return out;
}

CTSimulation
MakeCTPhantom(const Grid & grid, CTPhantomShape shape, const CTScanParameters & parameters)
{
  grid.Validate();
  return SimulateCT(
    grid, shape == CTPhantomShape::SheppLogan ? SheppLoganPhantom(grid) : MachinedPartPhantom(grid), parameters);
}

} // namespace gpur
