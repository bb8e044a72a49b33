// SPDX-License-Identifier: Apache-2.0
#include "gpurNoiseGainCalibration.h"

#include <algorithm>
#include <cmath>

namespace gpur
{

namespace
{

/** What one tile holds: the mean of r^2, the plane fit's noise variance, and whether it is flat. */
struct TileStatistics
{
  double residual2 = 0.0;
  double variance = 0.0;
  bool flat = false;
};

double
Median(std::vector<double> values)
{
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

} // namespace

template<typename Real>
ResidualGain::ResidualGain(const Real * f,
                           double offset,
                           double scale,
                           const std::vector<float> & localResidual2,
                           const std::vector<std::uint8_t> & mask,
                           const Grid & grid,
                           unsigned halfWidth,
                           const ParallelForFunction & parallelFor)
{
  const unsigned D = grid.dimension;
  const std::size_t nx = grid.size[0], ny = grid.size[1];
  for (unsigned d = 0; d < D; ++d)
  {
    // Thin axes (a stack of a few slices) get thinner tiles; a tile needs 3 voxels per axis for the plane.
    // Tiles overlap by half (stride halfWidth + 1): 2^D times more of them to find between features.
    m_Size[d] = std::min<std::size_t>(2 * halfWidth + 1, grid.size[d]);
    m_Stride[d] = std::min<std::size_t>(halfWidth + 1, m_Size[d]);
    m_Count[d] = m_Size[d] >= 3 ? (grid.size[d] - m_Size[d]) / m_Stride[d] + 1 : 0;
  }
  m_Tiles = m_Count[0] * m_Count[1] * m_Count[2];
  std::vector<TileStatistics> tiles(m_Tiles);
  const double inverseScale = 1.0 / scale;
  parallelFor(
    m_Tiles,
    [&](std::size_t t0, std::size_t t1)
    {
      for (std::size_t t = t0; t < t1; ++t)
      {
        const std::size_t tile[3] = { t % m_Count[0], (t / m_Count[0]) % m_Count[1], t / (m_Count[0] * m_Count[1]) };
        std::size_t begin[3] = { 0, 0, 0 }, end[3] = { 1, 1, 1 };
        double centre[3] = { 0.0, 0.0, 0.0 };
        for (unsigned d = 0; d < D; ++d)
        {
          begin[d] = tile[d] * m_Stride[d];
          end[d] = begin[d] + m_Size[d];
          centre[d] = 0.5 * static_cast<double>(begin[d] + end[d] - 1);
        }
        // Sums of v = (f - offset) / scale - v0 (v0 its first value: no cancellation), v^2, (x - c) v.
        const double v0 = (static_cast<double>(f[(begin[2] * ny + begin[1]) * nx + begin[0]]) - offset) * inverseScale;
        double s = 0.0, s2 = 0.0, moment[3] = { 0.0, 0.0, 0.0 };
        bool flat = true;
        for (std::size_t z = begin[2]; z < end[2] && flat; ++z)
          for (std::size_t y = begin[1]; y < end[1] && flat; ++y)
            for (std::size_t x = begin[0]; x < end[0]; ++x)
            {
              const std::size_t i = (z * ny + y) * nx + x;
              if (mask[i])
              {
                flat = false;
                break;
              }
              const double v = (static_cast<double>(f[i]) - offset) * inverseScale - v0;
              s += v;
              s2 += v * v;
              moment[0] += (static_cast<double>(x) - centre[0]) * v;
              moment[1] += (static_cast<double>(y) - centre[1]) * v;
              moment[2] += (static_cast<double>(z) - centre[2]) * v;
            }
        if (!flat)
        {
          continue;
        }
        // Plane fit in a box: the constant and the centred coordinates are orthogonal,
        // RSS = sum v^2 - s^2 / N - sum_d moment_d^2 / sum (x_d - c_d)^2.
        double N = 1.0;
        for (unsigned d = 0; d < D; ++d)
          N *= static_cast<double>(m_Size[d]);
        double rss = s2 - s * s / N;
        for (unsigned d = 0; d < D; ++d)
        {
          const double m = static_cast<double>(m_Size[d]);
          const double sxx = N * (m * m - 1.0) / 12.0; // sum over the box of (x_d - c_d)^2
          rss -= moment[d] * moment[d] / sxx;
        }
        const double variance = rss / (N - static_cast<double>(D) - 1.0);
        // E[r^2] at the tile's centre voxel: the local mean of r^2 (a window larger than the tile,
        // so that it is less noisy than the tile's own mean of r^2).
        const std::size_t c = (static_cast<std::size_t>(centre[2]) * ny + static_cast<std::size_t>(centre[1])) * nx +
                              static_cast<std::size_t>(centre[0]);
        const double rr = static_cast<double>(localResidual2[c]);
        if (variance > 0.0 && rr > 0.0)
        {
          tiles[t] = { rr, variance, true };
        }
      }
    });

  std::vector<double> ratios;
  for (const auto & t : tiles)
  {
    if (t.flat)
      ratios.push_back(t.residual2 / t.variance);
  }
  m_FlatTiles = ratios.size();
  if (m_FlatTiles < kMinimumTiles)
  {
    return; // not measured: the gains of white noise
  }
  // Tiles with leftover structure have a far larger plane-fit variance, so a far smaller ratio.
  const double keepAbove = 0.5 * Median(ratios);
  std::vector<double> residual2(m_Tiles, 0.0), variance(m_Tiles, 0.0);
  for (std::size_t t = 0; t < m_Tiles; ++t)
  {
    if (tiles[t].flat && tiles[t].residual2 >= keepAbove * tiles[t].variance)
    {
      residual2[t] = tiles[t].residual2;
      variance[t] = tiles[t].variance;
    }
  }
  const TileField gain = Smooth(residual2, variance, parallelFor);
  // Outside these bounds the "flat" tiles held structure (a mask that missed it), not noise.
  if (gain.global >= kMinimumGain && gain.global <= kMaximumGain)
  {
    m_Gain = gain;
    m_Measured = true;
  }
}

ResidualGain::TileField
ResidualGain::Smooth(const std::vector<double> & a,
                     const std::vector<double> & b,
                     const ParallelForFunction & parallelFor) const
{
  // Kept tiles have b > 0; the others are 0 in both.
  TileField field;
  double sumA = 0.0, sumB = 0.0;
  for (std::size_t t = 0; t < m_Tiles; ++t)
  {
    sumA += a[t];
    sumB += b[t];
  }
  field.global = sumA / sumB;
  field.local.assign(m_Tiles, static_cast<float>(field.global));
  const long K = static_cast<long>(kNeighbourTiles);
  parallelFor(m_Tiles,
              [&](std::size_t t0, std::size_t t1)
              {
                for (std::size_t t = t0; t < t1; ++t)
                {
                  const long tile[3] = { static_cast<long>(t % m_Count[0]),
                                         static_cast<long>((t / m_Count[0]) % m_Count[1]),
                                         static_cast<long>(t / (m_Count[0] * m_Count[1])) };
                  long lo[3], hi[3];
                  for (int d = 0; d < 3; ++d)
                  {
                    lo[d] = std::max(0L, tile[d] - K);
                    hi[d] = std::min(static_cast<long>(m_Count[d]) - 1, tile[d] + K);
                  }
                  double A = 0.0, B = 0.0, C = 0.0;
                  for (long z = lo[2]; z <= hi[2]; ++z)
                    for (long y = lo[1]; y <= hi[1]; ++y)
                      for (long x = lo[0]; x <= hi[0]; ++x)
                      {
                        const std::size_t j = static_cast<std::size_t>(
                          (z * static_cast<long>(m_Count[1]) + y) * static_cast<long>(m_Count[0]) + x);
                        if (b[j] > 0.0)
                        {
                          A += a[j];
                          B += b[j];
                          C += 1.0;
                        }
                      }
                  if (C > 0.0)
                  {
                    field.local[t] = static_cast<float>((C * A / B + kPriorTiles * field.global) / (C + kPriorTiles));
                  }
                }
              });
  return field;
}

double
ResidualGain::Interpolate(const TileField & field, std::size_t x, std::size_t y, std::size_t z) const
{
  // Multilinear interpolation between tile centres, constant beyond the outer centres.
  const std::size_t coordinate[3] = { x, y, z };
  std::size_t i0[3], i1[3];
  double w[3];
  for (int d = 0; d < 3; ++d)
  {
    const double half = 0.5 * static_cast<double>(m_Size[d] - 1);
    const double u =
      std::min(std::max((static_cast<double>(coordinate[d]) - half) / static_cast<double>(m_Stride[d]), 0.0),
               static_cast<double>(m_Count[d] - 1));
    i0[d] = static_cast<std::size_t>(std::floor(u));
    i1[d] = std::min(i0[d] + 1, m_Count[d] - 1);
    w[d] = u - static_cast<double>(i0[d]);
  }
  double g = 0.0;
  for (int corner = 0; corner < 8; ++corner)
  {
    double weight = 1.0;
    std::size_t index[3];
    for (int d = 0; d < 3; ++d)
    {
      const bool upper = (corner >> d) & 1;
      index[d] = upper ? i1[d] : i0[d];
      weight *= upper ? w[d] : 1.0 - w[d];
    }
    if (weight > 0.0)
    {
      g += weight * field.local[(index[2] * m_Count[1] + index[1]) * m_Count[0] + index[0]];
    }
  }
  return g;
}

#define GPUR_INSTANTIATE_RESIDUAL_GAIN(Real)                                                                           \
  template ResidualGain::ResidualGain(const Real *,                                                                    \
                                      double,                                                                          \
                                      double,                                                                          \
                                      const std::vector<float> &,                                                      \
                                      const std::vector<std::uint8_t> &,                                               \
                                      const Grid &,                                                                    \
                                      unsigned,                                                                        \
                                      const ParallelForFunction &);
GPUR_INSTANTIATE_RESIDUAL_GAIN(float)
GPUR_INSTANTIATE_RESIDUAL_GAIN(double)
#undef GPUR_INSTANTIATE_RESIDUAL_GAIN

} // namespace gpur
