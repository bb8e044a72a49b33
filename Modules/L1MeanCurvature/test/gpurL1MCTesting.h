// SPDX-License-Identifier: Apache-2.0
// Test images of the L1-mean-curvature tests: a piecewise-constant synthetic
// image with simple shapes and a five-pointed star (like the "Test9" image of
// [Myllykoski2015a, §5]), and uniform noise on [-p, p] as in its experiments.
#ifndef gpurL1MCTesting_h
#define gpurL1MCTesting_h

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gpur
{
namespace l1mctest
{

/** Is (x, y) (in units of the image's side) inside the five-pointed star of outer radius R centred at (cx, cy)? */
inline bool
InStar(double x, double y, double cx, double cy, double R)
{
  const double pi = 3.14159265358979323846;
  const double dx = x - cx, dy = y - cy, r = std::sqrt(dx * dx + dy * dy);
  if (r > R)
    return false;
  // The star's boundary radius at angle a: between the outer points (R) and the inner corners (0.382 R).
  double a = std::atan2(dy, dx) + pi / 2.0;
  const double sector = 2.0 * pi / 5.0;
  a = std::fmod(std::fmod(a, sector) + sector, sector);         // angle from the nearest point, in [0, sector)
  const double t = std::abs(a - sector / 2.0) / (sector / 2.0); // 1 at a point, 0 midway between two
  const double inner = 0.382 * R;
  // Straight edges between a point (R, angle 0) and an inner corner (inner, angle sector/2), in polar form.
  const double phi = (1.0 - t) * sector / 2.0;
  const double px = R, py = 0.0, qx = inner * std::cos(sector / 2.0), qy = inner * std::sin(sector / 2.0);
  // Distance from the origin to the line PQ along the direction phi.
  const double ex = qx - px, ey = qy - py, c = std::cos(phi), s = std::sin(phi);
  const double denominator = c * ey - s * ex;
  const double boundary = (px * ey - py * ex) / denominator;
  return r <= boundary;
}

/** The piecewise-constant test image of n x n pixels, values in [0, 1]. */
inline std::vector<double>
ShapesImage(std::size_t n)
{
  std::vector<double> image(n * n, 0.2);
  for (std::size_t j = 0; j < n; ++j)
  {
    for (std::size_t i = 0; i < n; ++i)
    {
      const double x = (i + 0.5) / n, y = (j + 0.5) / n;
      double v = 0.2;
      if (x > 0.08 && x < 0.42 && y > 0.08 && y < 0.38)
        v = 0.9; // rectangle
      if ((x - 0.72) * (x - 0.72) + (y - 0.25) * (y - 0.25) < 0.16 * 0.16)
        v = 0.6; // disc
      if (x > 0.1 && x < 0.45 && y > 0.55 && y < 0.9 && (y - 0.55) > (x - 0.1))
        v = 0.45; // triangle
      if (InStar(x, y, 0.7, 0.7, 0.22))
        v = 1.0; // star
      if ((x - 0.72) * (x - 0.72) + (y - 0.25) * (y - 0.25) < 0.06 * 0.06)
        v = 0.0; // a hole in the disc
      image[j * n + i] = v;
    }
  }
  return image;
}

/** image + uniform noise on [-p, p] (the noise of [Myllykoski2015a, §5]), reproducible for a seed. */
inline std::vector<double>
AddUniformNoise(const std::vector<double> & image, double p, std::uint32_t seed)
{
  std::mt19937 engine(seed);
  std::vector<double> noisy(image.size());
  for (std::size_t i = 0; i < image.size(); ++i)
    noisy[i] = image[i] + p * (2.0 * (double(engine()) / 4294967296.0) - 1.0);
  return noisy;
}

/** ||a - b||_2 over all pixels (the "residual" of [Myllykoski2015a, §5]). */
inline double
Residual(const std::vector<double> & a, const std::vector<double> & b)
{
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

/** PSNR (peak 1) from the residual of an image of `count` pixels. */
inline double
PSNRFromResidual(double residual, std::size_t count)
{
  return 10.0 * std::log10(double(count) / (residual * residual));
}

} // namespace l1mctest
} // namespace gpur

#endif
