// SPDX-License-Identifier: Apache-2.0
// Stage 1 of PI-PD level-line denoising [Perrot2013, Algorithm 1]: per pixel,
// the direction whose segment pattern (with the pixel itself when
// LL_CENTER) has the smallest variance, and the sums of that direction and of
// its opposite, relative to the pixel. A work-group reads its tile with a
// halo of LL_HALO pixels into local memory once (clamp-to-edge at the frame's
// border) and every work-item sums its 32 patterns from there.
//
// Defines: LL_TILE (work-group side), LL_HALO (l, +1 when thick), LL_M
// (pixels per pattern), LL_CENTER.

#define LL_SIDE (LL_TILE + 2 * LL_HALO)

// (S, Q) of one pattern around tile[c], relative to zc, in pattern order.
inline float2
ll_pattern_sums(__local const float * tile, int c, __constant const int2 * pattern, float zc)
{
  float s = 0.0f, q = 0.0f;
  for (int k = 0; k < LL_M; ++k)
  {
    const int2 o = pattern[k];
    const float t = tile[c + o.x * LL_SIDE + o.y] - zc;
    s += t;
    q += t * t;
  }
  return (float2)(s, q);
}

__kernel void
ll_precompute(__global const float * z,
              __global uchar * dir,
              __global float * sums,
              __constant int2 * table,
              int nx,
              int ny,
              ulong frame)
{
  __local float tile[LL_SIDE * LL_SIDE];
  const int c = ll_load_tile(tile, z + frame, LL_HALO, nx, ny);
  barrier(CLK_LOCAL_MEM_FENCE);
  const int i = get_global_id(1), j = get_global_id(0);
  if (i < ny && j < nx)
  {
    const float zc = tile[c];
#ifdef LL_CENTER
    const float n = (float)(LL_M + 1);
#else
    const float n = (float)LL_M;
#endif
    int best = 0;
    float bestVariance = 0.0f;
    for (int d = 0; d < LL_D; ++d)
    {
      const float2 sq = ll_pattern_sums(tile, c, table + d * LL_M, zc);
      const float v = ll_variance(sq.x, sq.y, n);
      if (d == 0 || v < bestVariance)
      {
        bestVariance = v;
        best = d;
      }
    }
    // The two directions' sums again (the same additions in the same order)
    // rather than 64 values per work-item kept through the loop.
    const float2 b = ll_pattern_sums(tile, c, table + best * LL_M, zc);
    const float2 o = ll_pattern_sums(tile, c, table + ((best + LL_D / 2) % LL_D) * LL_M, zc);
    const int p = i * nx + j;
    dir[frame + p] = (uchar)best;
    vstore4((float4)(b.x, b.y, o.x, o.y), 0, sums + 4 * (frame + p));
  }
}
