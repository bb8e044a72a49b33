// SPDX-License-Identifier: Apache-2.0
// The cone-beam scan of SimulateCT: a circular orbit, a flat detector,
// Poisson counts and the Feldkamp-Davis-Kress reconstruction ([Feldkamp1984];
// [KakSlaney1988, §3.6]), with the analytic variance of every voxel. See
// CTScanParameters in gpurCTPhantom.h.
#include "gpurCTSimulation.h"

#include "gpurError.h"
#include "gpurParallel.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace gpur
{
namespace ct
{
namespace
{

/**
 * The scan, with the detector described at the rotation axis (a "virtual"
 * detector through the axis, the real one divided by the magnification):
 * bin j of row r is at u = (j - centreU) du, v = (r - centreV) dv.
 */
struct ConeGeometry
{
  std::size_t nx = 0, ny = 0, nz = 0;
  double hx = 1.0, hy = 1.0, hz = 1.0;
  double cx = 0.0, cy = 0.0, cz = 0.0; ///< index of the volume's centre (the origin)
  double D = 0.0;                      ///< source to axis, mm
  double sourceToDetector = 0.0;
  std::size_t angles = 0, bins = 0, rows = 0;
  double du = 1.0, dv = 1.0;
  std::vector<double> cosines, sines;

  double
  CentreU() const
  {
    return 0.5 * static_cast<double>(bins - 1);
  }
  double
  CentreV() const
  {
    return 0.5 * static_cast<double>(rows - 1);
  }
  std::size_t
  ViewSize() const
  {
    return bins * rows;
  }
};

ConeGeometry
MakeConeGeometry(const Grid & grid, const CTScanParameters & parameters)
{
  if (grid.dimension != 3)
  {
    throw InvalidArgument("CT simulation: the cone beam needs a 3D grid, got " + grid.ToString() +
                          " (a 2D grid is one slice: use the parallel beam)");
  }
  ConeGeometry g;
  g.nx = grid.size[0];
  g.ny = grid.size[1];
  g.nz = grid.size[2];
  g.hx = grid.spacing[0];
  g.hy = grid.spacing[1];
  g.hz = grid.spacing[2];
  g.cx = 0.5 * static_cast<double>(g.nx - 1);
  g.cy = 0.5 * static_cast<double>(g.ny - 1);
  g.cz = 0.5 * static_cast<double>(g.nz - 1);
  // The volume's shadow, with one voxel of margin (trilinear sampling reaches half a voxel beyond the centres).
  const double radius =
    0.5 * std::hypot(static_cast<double>(g.nx) * g.hx, static_cast<double>(g.ny) * g.hy) + std::max(g.hx, g.hy);
  const double halfHeight = 0.5 * static_cast<double>(g.nz) * g.hz + g.hz;
  g.D = parameters.sourceToAxis > 0.0 ? parameters.sourceToAxis : 4.0 * radius;
  g.sourceToDetector = parameters.sourceToDetector > 0.0 ? parameters.sourceToDetector : 2.0 * g.D;
  if (!(g.D > 1.05 * radius))
  {
    throw InvalidArgument("CT simulation: sourceToAxis is " + std::to_string(g.D) +
                          " mm; the source must stay outside the volume: more than " + std::to_string(1.05 * radius) +
                          " mm (the half diagonal of a slice plus a voxel, with 5 % margin)");
  }
  if (!(g.sourceToDetector >= g.D + radius))
  {
    throw InvalidArgument("CT simulation: sourceToDetector is " + std::to_string(g.sourceToDetector) +
                          " mm; the detector must lie behind the volume: at least sourceToAxis + " +
                          std::to_string(radius) + " mm");
  }
  g.du = std::min(g.hx, g.hy);
  g.dv = g.hz;
  const double uMax = radius * g.D / std::sqrt(g.D * g.D - radius * radius); // tangent to the bounding cylinder
  const double vMax = halfHeight * g.D / (g.D - radius);                     // its nearest top edge
  g.bins = 2 * static_cast<std::size_t>(std::ceil(uMax / g.du)) + 3;
  g.rows = 2 * static_cast<std::size_t>(std::ceil(vMax / g.dv)) + 3;
  g.angles = parameters.numberOfAngles > 0
               ? parameters.numberOfAngles
               : 2 * static_cast<std::size_t>(std::ceil(0.5 * kPi * static_cast<double>(std::max(g.nx, g.ny))));
  g.cosines.resize(g.angles);
  g.sines.resize(g.angles);
  for (std::size_t a = 0; a < g.angles; ++a)
  {
    const double beta = 2.0 * kPi * static_cast<double>(a) / static_cast<double>(g.angles);
    g.cosines[a] = std::cos(beta);
    g.sines[a] = std::sin(beta);
  }
  return g;
}

/** The volume copied into a zero border of 2 voxels, so that trilinear samples need no bounds checks. */
struct PaddedVolume
{
  std::size_t px, py, pz;
  std::vector<double> values;

  PaddedVolume(const ConeGeometry & g, const std::vector<float> & truth)
    : px(g.nx + 4)
    , py(g.ny + 4)
    , pz(g.nz + 4)
    , values(px * py * pz, 0.0)
  {
    for (std::size_t z = 0; z < g.nz; ++z)
      for (std::size_t y = 0; y < g.ny; ++y)
        for (std::size_t x = 0; x < g.nx; ++x)
          values[((z + 2) * py + y + 2) * px + x + 2] = static_cast<double>(truth[(z * g.ny + y) * g.nx + x]);
  }

  /** Trilinear value at padded fractional indices (each in [1, n + 2]). */
  double
  Sample(double fx, double fy, double fz) const
  {
    const double flx = std::floor(fx), fly = std::floor(fy), flz = std::floor(fz);
    const double ax = fx - flx, ay = fy - fly, az = fz - flz;
    const double * p = &values[(static_cast<std::size_t>(flz) * py + static_cast<std::size_t>(fly)) * px +
                               static_cast<std::size_t>(flx)];
    const std::size_t sy = px, sz = px * py;
    const double lower = (1.0 - ay) * ((1.0 - ax) * p[0] + ax * p[1]) + ay * ((1.0 - ax) * p[sy] + ax * p[sy + 1]);
    const double upper =
      (1.0 - ay) * ((1.0 - ax) * p[sz] + ax * p[sz + 1]) + ay * ((1.0 - ax) * p[sz + sy] + ax * p[sz + sy + 1]);
    return (1.0 - az) * lower + az * upper;
  }
};

/**
 * Line integral (intensity x mm) from the source of view a to the detector
 * position (u, v) at the axis: trilinear samples every dt inside the box where
 * the padded volume can be nonzero.
 */
double
LineIntegral(const ConeGeometry & g, const PaddedVolume & volume, std::size_t a, double u, double v)
{
  const double c = g.cosines[a], s = g.sines[a];
  // Source (D c, D s, 0); direction to (u e_u + v e_z) with e_u = (-s, c, 0), normalised.
  const double dx0 = -g.D * c - u * s, dy0 = -g.D * s + u * c, dz0 = v;
  const double length = std::sqrt(dx0 * dx0 + dy0 * dy0 + dz0 * dz0);
  const double dir[3] = { dx0 / length, dy0 / length, dz0 / length };
  const double origin[3] = { g.D * c, g.D * s, 0.0 };
  // The box of fractional (unpadded) indices [-1, n] per axis, in mm.
  const double h[3] = { g.hx, g.hy, g.hz }, centre[3] = { g.cx, g.cy, g.cz };
  const double n[3] = { static_cast<double>(g.nx), static_cast<double>(g.ny), static_cast<double>(g.nz) };
  double t0 = 0.0, t1 = 1e300;
  for (int k = 0; k < 3; ++k)
  {
    const double lo = (-1.0 - centre[k]) * h[k], hi = (n[k] - centre[k]) * h[k];
    if (dir[k] == 0.0)
    {
      if (origin[k] < lo || origin[k] > hi)
        return 0.0;
      continue;
    }
    const double ta = (lo - origin[k]) / dir[k], tb = (hi - origin[k]) / dir[k];
    t0 = std::max(t0, std::min(ta, tb));
    t1 = std::min(t1, std::max(ta, tb));
  }
  if (!(t1 > t0))
  {
    return 0.0;
  }
  const double dt = 0.5 * std::min({ g.hx, g.hy, g.hz });
  const std::size_t samples = static_cast<std::size_t>(std::ceil((t1 - t0) / dt));
  const double step = (t1 - t0) / static_cast<double>(samples);
  double sum = 0.0;
  for (std::size_t m = 0; m < samples; ++m)
  {
    const double t = t0 + (static_cast<double>(m) + 0.5) * step;
    // +2: the padding; clamp against rounding at the box faces.
    const double fx = std::min(std::max((origin[0] + t * dir[0]) / g.hx + g.cx + 2.0, 1.0), n[0] + 2.0);
    const double fy = std::min(std::max((origin[1] + t * dir[1]) / g.hy + g.cy + 2.0, 1.0), n[1] + 2.0);
    const double fz = std::min(std::max((origin[2] + t * dir[2]) / g.hz + g.cz + 2.0, 1.0), n[2] + 2.0);
    sum += volume.Sample(fx, fy, fz);
  }
  return sum * step;
}

} // namespace

CTSimulation
SimulateConeBeam(const Grid & grid, const std::vector<float> & truth, const CTScanParameters & parameters)
{
  const ConeGeometry g = MakeConeGeometry(grid, parameters);
  const auto parallelFor = MakeThreadParallelFor(parameters.threads);
  const std::size_t viewSize = g.ViewSize();

  CTSimulation out;
  out.grid = grid;
  out.truth = truth;
  out.numberOfAngles = g.angles;
  out.numberOfBins = g.bins;
  out.numberOfRows = g.rows;
  out.binSpacing = g.du;
  out.sourceToAxis = g.D;
  out.sourceToDetector = g.sourceToDetector;

  // 1. Noise-free line integrals of every view.
  std::vector<float> lines(g.angles * viewSize);
  {
    const PaddedVolume volume(g, truth);
    parallelFor(g.angles,
                [&](std::size_t a0, std::size_t a1)
                {
                  for (std::size_t a = a0; a < a1; ++a)
                    for (std::size_t r = 0; r < g.rows; ++r)
                      for (std::size_t j = 0; j < g.bins; ++j)
                        lines[a * viewSize + r * g.bins + j] =
                          static_cast<float>(LineIntegral(g,
                                                          volume,
                                                          a,
                                                          (static_cast<double>(j) - g.CentreU()) * g.du,
                                                          (static_cast<double>(r) - g.CentreV()) * g.dv));
                });
  }
  const double mu = AttenuationPerUnit(parameters, lines);
  out.attenuationPerUnit = mu;

  // 2. Per view (each with its own random stream): counts, log, the FDK weight
  //    D / sqrt(D^2 + u^2 + v^2), the ramp filter along every row; the same for
  //    the variance (weights squared) and the noise-free data.
  const RampRowFilter filter(g.bins, g.du, parameters.filter);
  std::vector<float> q(g.angles * viewSize), qv, qx, qFree;
  if (parameters.computeVariance)
  {
    qv.resize(q.size());
    qx.resize(q.size());
  }
  if (parameters.computeNoiseFree)
  {
    qFree.resize(q.size());
  }
  parallelFor(g.angles,
              [&](std::size_t a0, std::size_t a1)
              {
                std::vector<double> p(g.bins), v(g.bins), fq(g.bins), fv(g.bins), fx(g.bins);
                for (std::size_t a = a0; a < a1; ++a)
                {
                  Random random(SplitMix64(parameters.seed ^ SplitMix64(0xC0DE0000ull + a)));
                  for (std::size_t r = 0; r < g.rows; ++r)
                  {
                    const std::size_t row = a * viewSize + r * g.bins;
                    const double vr = (static_cast<double>(r) - g.CentreV()) * g.dv;
                    auto weight = [&](std::size_t j)
                    {
                      const double u = (static_cast<double>(j) - g.CentreU()) * g.du;
                      return g.D / std::sqrt(g.D * g.D + u * u + vr * vr);
                    };
                    for (std::size_t j = 0; j < g.bins; ++j)
                    {
                      const double w = weight(j);
                      p[j] = w * NoisyLineIntegral(mu * static_cast<double>(lines[row + j]), parameters, random, v[j]);
                      v[j] *= w * w;
                    }
                    filter.Filter(p.data(), fq.data());
                    std::copy(fq.begin(), fq.end(), q.begin() + static_cast<std::ptrdiff_t>(row));
                    if (parameters.computeVariance)
                    {
                      filter.FilterVariance(v.data(), fv.data(), fx.data());
                      std::copy(fv.begin(), fv.end(), qv.begin() + static_cast<std::ptrdiff_t>(row));
                      std::copy(fx.begin(), fx.end(), qx.begin() + static_cast<std::ptrdiff_t>(row));
                    }
                    if (parameters.computeNoiseFree)
                    {
                      for (std::size_t j = 0; j < g.bins; ++j)
                        p[j] = weight(j) * static_cast<double>(lines[row + j]);
                      filter.Filter(p.data(), fq.data());
                      std::copy(fq.begin(), fq.end(), qFree.begin() + static_cast<std::ptrdiff_t>(row));
                    }
                  }
                }
              });

  // 3. Back-projection, slice by slice: mu(x) = (pi / A) sum_a (D / U)^2 q_a(u(x), v(x)),
  //    bilinear in (u, v); Var = (pi / A)^2 sum_a (D / U)^4 [(1 - g)^2 B(r) + g^2 B(r + 1)],
  //    B(r) the variance of the linear interpolation within row r (rows are independent).
  const std::size_t sliceSize = g.nx * g.ny;
  out.noisy.resize(truth.size());
  if (parameters.computeVariance)
    out.variance.resize(truth.size());
  if (parameters.computeNoiseFree)
    out.noiseFree.resize(truth.size());
  const double viewWeight = kPi / static_cast<double>(g.angles);
  parallelFor(
    g.nz,
    [&](std::size_t z0, std::size_t z1)
    {
      std::vector<double> sum(sliceSize), sumVariance(sliceSize), sumFree(sliceSize);
      for (std::size_t z = z0; z < z1; ++z)
      {
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(sumVariance.begin(), sumVariance.end(), 0.0);
        std::fill(sumFree.begin(), sumFree.end(), 0.0);
        const double pz = (static_cast<double>(z) - g.cz) * g.hz;
        for (std::size_t a = 0; a < g.angles; ++a)
        {
          const double c = g.cosines[a], s = g.sines[a];
          const float * view = &q[a * viewSize];
          for (std::size_t y = 0; y < g.ny; ++y)
          {
            const double py = (static_cast<double>(y) - g.cy) * g.hy;
            for (std::size_t x = 0; x < g.nx; ++x)
            {
              const double px = (static_cast<double>(x) - g.cx) * g.hx;
              const double U = g.D - (px * c + py * s); // distance from the source along the central ray
              const double magnify = g.D / U;
              const double fu = (-px * s + py * c) * magnify / g.du + g.CentreU();
              const double fv = pz * magnify / g.dv + g.CentreV();
              const double flu = std::floor(fu), flv = std::floor(fv);
              const std::size_t j = static_cast<std::size_t>(flu), r = static_cast<std::size_t>(flv);
              const double au = fu - flu, av = fv - flv;
              const std::size_t i0 = r * g.bins + j, i1 = i0 + g.bins;
              const double w = magnify * magnify;
              const std::size_t i = y * g.nx + x;
              auto bilinear = [&](const float * d) {
                return (1.0 - av) * ((1.0 - au) * d[i0] + au * d[i0 + 1]) + av * ((1.0 - au) * d[i1] + au * d[i1 + 1]);
              };
              sum[i] += w * bilinear(view);
              if (parameters.computeVariance)
              {
                const float * var = &qv[a * viewSize];
                const float * cov = &qx[a * viewSize];
                sumVariance[i] += w * w *
                                  ((1.0 - av) * (1.0 - av) * InterpolatedVariance(var, cov, i0, au) +
                                   av * av * InterpolatedVariance(var, cov, i1, au));
              }
              if (parameters.computeNoiseFree)
              {
                sumFree[i] += w * bilinear(&qFree[a * viewSize]);
              }
            }
          }
        }
        for (std::size_t i = 0; i < sliceSize; ++i)
        {
          out.noisy[z * sliceSize + i] = static_cast<float>(viewWeight / mu * sum[i]);
          if (parameters.computeVariance)
            out.variance[z * sliceSize + i] = static_cast<float>(viewWeight * viewWeight / (mu * mu) * sumVariance[i]);
          if (parameters.computeNoiseFree)
            out.noiseFree[z * sliceSize + i] = static_cast<float>(viewWeight * sumFree[i]);
        }
      }
    });
  if (parameters.keepSinogram)
  {
    out.sinogram = std::move(lines);
  }
  return out;
}

} // namespace ct
} // namespace gpur
