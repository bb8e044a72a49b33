// SPDX-License-Identifier: Apache-2.0
#include "gpurPhantom.h"

#include <cmath>
#include <random>

namespace gpur
{
namespace
{

struct Ellipsoid
{
  double value, a, b, c, x0, y0, z0, phiDegrees;
};

// Modified 3D Shepp-Logan head (Kak & Slaney's ellipsoids with Toft's higher
// contrast), rotations about z only. Intensities add up to values in [0, 1].
const Ellipsoid kSheppLogan[] = {
  { 1.0, 0.6900, 0.920, 0.810, 0.00, 0.0000, 0.00, 0 },    { -0.8, 0.6624, 0.874, 0.780, 0.00, -0.0184, 0.00, 0 },
  { -0.2, 0.1100, 0.310, 0.220, 0.22, 0.0000, 0.00, -18 }, { -0.2, 0.1600, 0.410, 0.280, -0.22, 0.0000, 0.00, 18 },
  { 0.1, 0.2100, 0.250, 0.410, 0.00, 0.3500, -0.15, 0 },   { 0.1, 0.0460, 0.046, 0.050, 0.00, 0.1000, 0.25, 0 },
  { 0.1, 0.0460, 0.046, 0.050, 0.00, -0.1000, 0.25, 0 },   { 0.1, 0.0460, 0.023, 0.050, -0.08, -0.6050, 0.00, 0 },
  { 0.1, 0.0230, 0.023, 0.020, 0.00, -0.6060, 0.00, 0 },   { 0.1, 0.0230, 0.046, 0.020, 0.06, -0.6050, 0.00, 0 },
};

double
Coordinate(std::size_t i, std::size_t n)
{
  return n > 1 ? -1.0 + 2.0 * (static_cast<double>(i) + 0.5) / static_cast<double>(n) : 0.0;
}

} // namespace

std::vector<float>
SheppLoganPhantom(const Grid & grid)
{
  std::vector<float> f(grid.Count(), 0.0f);
  const double pi = 3.14159265358979323846;
  std::size_t i = 0;
  for (std::size_t z = 0; z < grid.size[2]; ++z)
  {
    const double pz = grid.dimension == 3 ? Coordinate(z, grid.size[2]) : 0.0;
    for (std::size_t y = 0; y < grid.size[1]; ++y)
    {
      // Image rows go down, the phantom's y axis goes up.
      const double py = -Coordinate(y, grid.size[1]);
      for (std::size_t x = 0; x < grid.size[0]; ++x, ++i)
      {
        const double px = Coordinate(x, grid.size[0]);
        double v = 0.0;
        for (const auto & e : kSheppLogan)
        {
          const double phi = e.phiDegrees * pi / 180.0;
          const double dx = px - e.x0, dy = py - e.y0, dz = pz - e.z0;
          const double rx = dx * std::cos(phi) + dy * std::sin(phi);
          const double ry = -dx * std::sin(phi) + dy * std::cos(phi);
          if ((rx * rx) / (e.a * e.a) + (ry * ry) / (e.b * e.b) + (dz * dz) / (e.c * e.c) <= 1.0)
          {
            v += e.value;
          }
        }
        f[i] = static_cast<float>(v);
      }
    }
  }
  return f;
}

std::vector<float>
AddGaussianNoise(const std::vector<float> & f, double sigma, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<float> g(f.size());
  for (std::size_t i = 0; i < f.size(); ++i)
  {
    g[i] = static_cast<float>(f[i] + noise(rng));
  }
  return g;
}

} // namespace gpur
