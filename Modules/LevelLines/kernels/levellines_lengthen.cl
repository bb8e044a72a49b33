// SPDX-License-Identifier: Apache-2.0
// Stage 2 of PI-PD level-line denoising [Perrot2013, Algorithm 2]: one
// work-item per pixel lengthens its poly-isoline (ll_poly_isoline, reading stage
// 1's results at the segments' ends from global memory) and writes the mean,
// the pixel count and, per work-group, how its arms stopped and the lengths'
// sum (slots 0-4 of the group's 8 counters, the groups of frame `slot` of the batch
// after those of the frames before it; summed on the host).
//
// Defines: LL_TILE, LL_M, LL_K (segments per arm), LL_CENTER, LL_BIDIR,
// LL_FLIP, LL_TEST_SEPARATE, LL_HYBRID (the length sum is then the hybrid
// kernel's).

#ifdef LL_CENTER
#define LL_CENTER_ON 1
#else
#define LL_CENTER_ON 0
#endif
#ifdef LL_BIDIR
#define LL_BIDIR_ON 1
#else
#define LL_BIDIR_ON 0
#endif
#ifdef LL_FLIP
#define LL_FLIP_ON 1
#else
#define LL_FLIP_ON 0
#endif
#ifdef LL_TEST_SEPARATE
#define LL_SEPARATE_ON 1
#else
#define LL_SEPARATE_ON 0
#endif

__kernel void
ll_lengthen(__global const float * z,
            __global const uchar * dir,
            __global const float * sums,
            __constant int2 * table,
            __global float * u,
            __global ushort * length,
            __global uint * counters,
            int nx,
            int ny,
            ulong frame,
            uint slot,
            float fl,
            float tmax,
            __constant float * bounds)
{
  __local uint group[5];
  const int l = get_local_id(1) * LL_TILE + get_local_id(0);
  if (l < 5)
    group[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const int i = get_global_id(1), j = get_global_id(0);
  if (i < ny && j < nx)
  {
    int stops[4] = { 0, 0, 0, 0 };
    int count = 0;
    const float value = ll_poly_isoline(z + frame,
                                    dir + frame,
                                    sums + 4 * frame,
                                    (__constant const int *)(table + LL_D * LL_M),
                                    nx,
                                    ny,
                                    i,
                                    j,
                                    LL_M,
                                    LL_K,
                                    LL_SEPARATE_ON,
                                    LL_FLIP_ON,
                                    LL_CENTER_ON,
                                    LL_BIDIR_ON,
                                    fl,
                                    tmax,
                                    bounds,
                                    &count,
                                    stops);
    const ulong p = frame + (ulong)(i * nx + j);
    u[p] = value;
    length[p] = (ushort)count;
    for (int r = 0; r < 4; ++r)
    {
      if (stops[r] > 0)
        atomic_add(&group[r], (uint)stops[r]);
    }
#ifndef LL_HYBRID
    atomic_add(&group[4], (uint)count);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 5)
  {
    const size_t g = (slot * get_num_groups(1) + get_group_id(1)) * get_num_groups(0) + get_group_id(0);
    counters[8 * g + l] = group[l];
  }
}
