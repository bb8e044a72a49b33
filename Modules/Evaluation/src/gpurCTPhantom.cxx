// SPDX-License-Identifier: Apache-2.0
#include "gpurCTPhantom.h"

#include "gpurCTSimulation.h"
#include "gpurError.h"
#include "gpurParallel.h"
#include "gpurPhantom.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace gpur
{
namespace
{

using ct::kPi;

std::size_t
Slices(const Grid & grid)
{
  return grid.dimension == 3 ? grid.size[2] : 1;
}

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
  require(std::isfinite(sourceToAxis) && sourceToAxis >= 0.0,
          "sourceToAxis is " + std::to_string(sourceToAxis) + "; it must be finite and >= 0 (0: automatic)");
  require(std::isfinite(sourceToDetector) && sourceToDetector >= 0.0,
          "sourceToDetector is " + std::to_string(sourceToDetector) + "; it must be finite and >= 0 (0: automatic)");
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
  if (parameters.geometry == CTGeometry::ConeBeam)
  {
    return ct::SimulateConeBeam(grid, truth, parameters);
  }
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
  const double mu = ct::AttenuationPerUnit(parameters, sinograms);
  out.attenuationPerUnit = mu;

  // 2. Per slice: counts, log, filter, back-project (and the variance).
  const ct::RampRowFilter filter(g.bins, g.ds, parameters.filter);
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
  parallelFor(
    nz,
    [&](std::size_t z0, std::size_t z1)
    {
      std::vector<double> p(g.bins), v(g.bins), q(sinoSize), qv(sinoSize), qx(sinoSize);
      for (std::size_t z = z0; z < z1; ++z)
      {
        ct::Random random(ct::SplitMix64(parameters.seed ^ ct::SplitMix64(static_cast<std::uint64_t>(z) + 1)));
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
            p[k] = ct::NoisyLineIntegral(mu * static_cast<double>(sino[a * g.bins + k]), parameters, random, v[k]);
          }
          filter.Filter(p.data(), &q[a * g.bins]);
          if (parameters.computeVariance)
          {
            filter.FilterVariance(v.data(), &qv[a * g.bins], &qx[a * g.bins]);
          }
        }
        BackProject(g, viewWeight / mu, &out.noisy[z * sliceSize], interpolate(q, g.bins));
        if (parameters.computeVariance)
        {
          BackProject(g,
                      viewWeight * viewWeight / (mu * mu),
                      &out.variance[z * sliceSize],
                      [&](std::size_t a, std::size_t j, double f)
                      { return ct::InterpolatedVariance(&qv[a * g.bins], &qx[a * g.bins], j, f); });
        }
        if (parameters.computeNoiseFree)
        {
          for (std::size_t a = 0; a < g.angles; ++a)
          {
            for (std::size_t k = 0; k < g.bins; ++k)
            {
              p[k] = static_cast<double>(sino[a * g.bins + k]);
            }
            filter.Filter(p.data(), &q[a * g.bins]);
          }
          BackProject(g, viewWeight, &out.noiseFree[z * sliceSize], interpolate(q, g.bins));
        }
      }
    });
  if (parameters.keepSinogram)
  {
    out.sinogram = std::move(sinograms);
  }
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
