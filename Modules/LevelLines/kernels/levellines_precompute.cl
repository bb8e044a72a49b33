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
  const int li = get_local_id(1), lj = get_local_id(0);
  const int i0 = get_group_id(1) * LL_TILE - LL_HALO, j0 = get_group_id(0) * LL_TILE - LL_HALO;
  __global const float * zf = z + frame;
  for (int t = li * LL_TILE + lj; t < LL_SIDE * LL_SIDE; t += LL_TILE * LL_TILE)
  {
    const int gi = clamp(i0 + t / LL_SIDE, 0, ny - 1);
    const int gj = clamp(j0 + t % LL_SIDE, 0, nx - 1);
    tile[t] = zf[gi * nx + gj];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int i = get_global_id(1), j = get_global_id(0);
  if (i < ny && j < nx)
  {
    const int c = (li + LL_HALO) * LL_SIDE + lj + LL_HALO;
    const float zc = tile[c];
#ifdef LL_CENTER
    const float n = (float)(LL_M + 1);
#else
    const float n = (float)LL_M;
#endif
    float s[LL_D];
    float q[LL_D];
    int best = 0;
    float bestVariance = 0.0f;
    for (int d = 0; d < LL_D; ++d)
    {
      float sd = 0.0f, qd = 0.0f;
      for (int k = 0; k < LL_M; ++k)
      {
        const int2 o = table[d * LL_M + k];
        const float t = tile[c + o.x * LL_SIDE + o.y] - zc;
        sd += t;
        qd += t * t;
      }
      s[d] = sd;
      q[d] = qd;
      const float v = ll_variance(sd, qd, n);
      if (d == 0 || v < bestVariance)
      {
        bestVariance = v;
        best = d;
      }
    }
    const int p = i * nx + j;
    const int o = (best + LL_D / 2) % LL_D;
    dir[frame + p] = (uchar)best;
    vstore4((float4)(s[best], q[best], s[o], q[o]), 0, sums + 4 * (frame + p));
  }
}
