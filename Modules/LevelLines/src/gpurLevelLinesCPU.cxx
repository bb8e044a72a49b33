// SPDX-License-Identifier: Apache-2.0
// The CPU reference of level-line denoising [Perrot2013]: stage 1 (each
// pixel's minimum-variance segment, [Perrot2013, Algorithm 1]), stage 2 (the
// lengthening, [Perrot2013, Algorithm 2]) and the hybrid classifier
// ([Perrot2013, Algorithm 3]), each a parallel loop over rows.
//
// Fast in its own right: the frame is copied once into a border-replicated
// (clamp-to-edge) copy, so the inner loops have no bounds checks, and stage
// 1 runs per row with the direction outermost and the column innermost, which
// the compiler vectorises; every pixel still sums its pattern in pattern
// order, as the OpenCL kernels do. The per-pixel decisions are the shared
// functions of kernels/levellines_common.cl.
#include "gpurLevelLinesArithmetic.h"
#include "gpurLevelLinesEngine.h"

#include <algorithm>
#include <mutex>

namespace gpur
{
namespace levellines
{

namespace
{

/** A frame with `halo` border pixels on every side replicating the nearest edge pixel (clamp-to-edge reads). */
struct PaddedFrame
{
  std::size_t width = 0, halo = 0;
  std::vector<float> values;

  /** The value at frame row i, column j (both may be up to halo outside the frame). */
  const float *
  Row(std::ptrdiff_t i) const
  {
    return values.data() + std::size_t(i + std::ptrdiff_t(halo)) * width + halo;
  }
};

PaddedFrame
Pad(const float * f, std::size_t nx, std::size_t ny, std::size_t halo, const ParallelForFunction & parallelFor)
{
  PaddedFrame padded;
  padded.width = nx + 2 * halo;
  padded.halo = halo;
  padded.values.resize(padded.width * (ny + 2 * halo));
  RunParallel(parallelFor,
              ny + 2 * halo,
              [&](std::size_t begin, std::size_t end)
              {
                for (std::size_t r = begin; r < end; ++r)
                {
                  const std::ptrdiff_t i =
                    std::clamp<std::ptrdiff_t>(std::ptrdiff_t(r) - std::ptrdiff_t(halo), 0, std::ptrdiff_t(ny) - 1);
                  const float * source = f + std::size_t(i) * nx;
                  float * row = padded.values.data() + r * padded.width;
                  std::fill(row, row + halo, source[0]);
                  std::copy(source, source + nx, row + halo);
                  std::fill(row + halo + nx, row + padded.width, source[nx - 1]);
                }
              });
  return padded;
}

/**
 * Stage 1 on rows [begin, end): per pixel, the direction of minimum variance
 * (the pixel included when includeCenter; strict '<', ties to the lowest d)
 * and the sums (S, Q) of that direction and of its opposite.
 */
void
Precompute(const Setup & setup,
           const PaddedFrame & z,
           std::size_t nx,
           std::size_t begin,
           std::size_t end,
           std::uint8_t * dir,
           float * sums)
{
  const int m = setup.m;
  const float n = float(m + (setup.parameters.includeCenter ? 1 : 0));
  std::vector<float> s(kLevelLinesDirections * nx), q(kLevelLinesDirections * nx), best(nx);
  std::vector<std::uint8_t> chosen(nx);
  for (std::size_t i = begin; i < end; ++i)
  {
    const float * zc = z.Row(std::ptrdiff_t(i));
    for (unsigned d = 0; d < kLevelLinesDirections; ++d)
    {
      float * sd = s.data() + d * nx;
      float * qd = q.data() + d * nx;
      std::fill(sd, sd + nx, 0.0f);
      std::fill(qd, qd + nx, 0.0f);
      for (int k = 0; k < m; ++k)
      {
        const int * offset = setup.table.data() + 2 * (int(d) * m + k);
        const float * source = z.Row(std::ptrdiff_t(i) + offset[0]) + offset[1];
        for (std::size_t j = 0; j < nx; ++j)
        {
          const float t = source[j] - zc[j];
          sd[j] += t;
          qd[j] += t * t;
        }
      }
      for (std::size_t j = 0; j < nx; ++j)
      {
        const float v = ll_variance(sd[j], qd[j], n);
        if (d == 0 || v < best[j])
        {
          best[j] = v;
          chosen[j] = std::uint8_t(d);
        }
      }
    }
    for (std::size_t j = 0; j < nx; ++j)
    {
      const std::size_t p = i * nx + j;
      const std::size_t b = chosen[j] * nx + j;
      const std::size_t o = ((chosen[j] + kLevelLinesDirections / 2) % kLevelLinesDirections) * nx + j;
      dir[p] = chosen[j];
      sums[4 * p] = s[b];
      sums[4 * p + 1] = q[b];
      sums[4 * p + 2] = s[o];
      sums[4 * p + 3] = q[o];
    }
  }
}

/** Stage 2 and the hybrid decision on rows [begin, end) of one frame; adds to counts. */
void
Lengthen(const Setup & setup,
         const float * f,
         const PaddedFrame & z,
         const std::uint8_t * dir,
         const float * sums,
         std::size_t nx,
         std::size_t ny,
         std::size_t begin,
         std::size_t end,
         float * u,
         std::uint16_t * length,
         std::uint8_t * pixelClass,
         Counts & counts)
{
  const LevelLinesParameters & p = setup.parameters;
  const bool hybrid = p.mode == LevelLinesMode::Hybrid;
  const int * ends = setup.table.data() + 2 * kLevelLinesDirections * setup.m;
  const float tmax = float(p.lengtheningThreshold);
  for (std::size_t i = begin; i < end; ++i)
  {
    for (std::size_t j = 0; j < nx; ++j)
    {
      const std::size_t index = i * nx + j;
      int stops[4] = { 0, 0, 0, 0 };
      int count = 0;
      float value = ll_poly_isoline(f,
                                    dir,
                                    sums,
                                    ends,
                                    int(nx),
                                    int(ny),
                                    int(i),
                                    int(j),
                                    setup.m,
                                    setup.segments,
                                    p.test == LevelLinesTest::SeparateVariances,
                                    p.turnBack == LevelLinesTurnBack::Flip,
                                    p.includeCenter,
                                    p.bidirectional,
                                    setup.floor,
                                    tmax,
                                    setup.bounds.data(),
                                    &count,
                                    stops);
      for (int r = 0; r < 4; ++r)
        counts.stops[r] += std::uint64_t(stops[r]);
      if (hybrid)
      {
        const float zc = f[index];
        float rs[8], rq[8];
        for (int r = 0; r < 8; ++r)
        {
          rs[r] = 0.0f;
          rq[r] = 0.0f;
          for (int k = 1; k <= setup.l; ++k)
          {
            const float t = z.Row(std::ptrdiff_t(i) + k * ll_ray_di[r])[std::ptrdiff_t(j) + k * ll_ray_dj[r]] - zc;
            rs[r] += t;
            rq[r] += t * t;
          }
        }
        int cls = 0;
        value = ll_hybrid_value(rs, rq, zc, setup.l, setup.floor, setup.edgeBound, value, count, &cls, &count);
        counts.classes[std::size_t(cls)] += 1;
        if (pixelClass)
          pixelClass[index] = std::uint8_t(cls);
      }
      counts.lengthSum += std::uint64_t(count);
      u[index] = value;
      if (length)
        length[index] = std::uint16_t(count);
    }
  }
}

} // namespace

Counts
FilterCPU(const Setup & setup,
          const Frames & frames,
          const ParallelForFunction & parallelFor,
          const ProgressCallback & progress)
{
  const std::size_t nx = frames.nx, ny = frames.ny, pixels = nx * ny;
  std::vector<std::uint8_t> dir(pixels);
  std::vector<float> sums(4 * pixels);
  Counts total;
  std::mutex mutex;
  for (std::size_t frame = 0; frame < frames.nz; ++frame)
  {
    const std::size_t offset = frame * pixels;
    const float * f = frames.f + offset;
    const PaddedFrame z = Pad(f, nx, ny, std::size_t(setup.halo), parallelFor);
    RunParallel(parallelFor,
                ny,
                [&](std::size_t begin, std::size_t end)
                { Precompute(setup, z, nx, begin, end, dir.data(), sums.data()); });
    RunParallel(parallelFor,
                ny,
                [&](std::size_t begin, std::size_t end)
                {
                  Counts counts;
                  Lengthen(setup,
                           f,
                           z,
                           dir.data(),
                           sums.data(),
                           nx,
                           ny,
                           begin,
                           end,
                           frames.u + offset,
                           frames.length ? frames.length + offset : nullptr,
                           frames.pixelClass ? frames.pixelClass + offset : nullptr,
                           counts);
                  const std::lock_guard<std::mutex> lock(mutex);
                  total.Add(counts);
                });
    if (frames.direction)
      std::copy(dir.begin(), dir.end(), frames.direction + offset);
    ReportFrames(progress, frame + 1, frames.nz);
  }
  return total;
}

} // namespace levellines
} // namespace gpur
