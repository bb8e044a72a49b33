// SPDX-License-Identifier: Apache-2.0
// The hybrid mode of level-line denoising [Perrot2013, Algorithm 3]: per
// pixel, the 8 thin rays of l pixels from a tile with a halo of l in local
// memory (clamp-to-edge), the half-plane tests (ll_hybrid), and the output:
// star mean, half-plane mean or the PI-PD value already in u. Writes the
// class, the pixel count, and per work-group the lengths' sum and the class
// counts (slots 4-7 of the group's 8 counters).
//
// Defines: LL_TILE, LL_L.

#define LL_HSIDE (LL_TILE + 2 * LL_L)

__kernel void
ll_hybrid(__global const float * z,
                 __global float * u,
                 __global ushort * length,
                 __global uchar * pixelClass,
                 __global uint * counters,
                 int nx,
                 int ny,
                 ulong frame,
                 uint slot,
                 float fl,
                 float t2bound)
{
  __local float tile[LL_HSIDE * LL_HSIDE];
  __local uint group[4];
  const int l = get_local_id(1) * LL_TILE + get_local_id(0);
  if (l < 4)
    group[l] = 0;
  const int c = ll_load_tile(tile, z + frame, LL_L, nx, ny);
  barrier(CLK_LOCAL_MEM_FENCE);
  const int i = get_global_id(1), j = get_global_id(0);
  if (i < ny && j < nx)
  {
    const float zc = tile[c];
    float rs[8];
    float rq[8];
    for (int r = 0; r < 8; ++r)
    {
      float s = 0.0f, q = 0.0f;
      for (int k = 1; k <= LL_L; ++k)
      {
        const float t = tile[c + k * (ll_ray_di[r] * LL_HSIDE + ll_ray_dj[r])] - zc;
        s += t;
        q += t * t;
      }
      rs[r] = s;
      rq[r] = q;
    }
    const ulong p = frame + (ulong)(i * nx + j);
    int cls = 0;
    int count = 0;
    u[p] = ll_hybrid_value(rs, rq, zc, LL_L, fl, t2bound, u[p], length[p], &cls, &count);
    length[p] = (ushort)count;
    pixelClass[p] = (uchar)cls;
    atomic_add(&group[0], (uint)count);
    atomic_inc(&group[1 + cls]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 4)
  {
    const size_t g = (slot * get_num_groups(1) + get_group_id(1)) * get_num_groups(0) + get_group_id(0);
    counters[8 * g + 4 + l] = group[l];
  }
}
