// SPDX-License-Identifier: Apache-2.0
// Per-pixel arithmetic of PI-PD level-line denoising [Perrot2013]: functions
// only, no kernels. One source for the OpenCL kernels and the CPU reference
// (compiled as C++ in src/gpurLevelLinesArithmetic.h), so that both backends
// do the same float operations in the same order.
//
// Written in the common subset of OpenCL C and C++: inline functions on
// float only, every literal a float, log only, private arrays and
// pointers, and three macros for the address spaces: LL_GLOBAL (image-sized arrays), LL_CONSTANT (the pattern
// table) and LL_TABLE (program-scope tables). A pixel's sums are kept relative
// to its own grey level zc: S = sum (z - zc), Q = sum (z - zc)^2, so that
// 16-bit or HU data lose no precision in float and the centre adds (0, 0).

#ifdef __OPENCL_VERSION__
// No fused multiply-adds: the CPU reference does not use them either.
#pragma OPENCL FP_CONTRACT OFF
#endif

// The number of directions D [Perrot2013, §IV-B].
#define LL_D 32
// Why an arm of a poly-isoline stopped (indices of the stop counters).
#define LL_STOP_TEST 0
#define LL_STOP_TURN_BACK 1
#define LL_STOP_BORDER 2
#define LL_STOP_LENGTH 3

// The larger of two finite values (fmax without its NaN handling, which
// costs a library call on the CPU).
inline float
ll_max(float a, float b)
{
  return a > b ? a : b;
}

// The variance of n values from their sums s = sum x and q = sum x^2.
inline float
ll_variance(float s, float q, float n)
{
  const float a = s / n;
  return q / n - a * a;
}

// The two variances of the generalised likelihood-ratio test of merging part 2
// (n2 values, sums s2, q2) into part 1 [Perrot2013, eq. (8)]: *v1 the variance
// of the union around one mean, *v2 the pooled variance around the two parts'
// means, both floored at fl (our addition: the variance along a level line is
// at least the noise's).
inline void
ll_pooled_variances(float s1, float q1, float n1, float s2, float q2, float n2, float fl, float * v1, float * v2)
{
  const float n = n1 + n2;
  *v1 = ll_max(ll_variance(s1 + s2, q1 + q2, n), fl);
  *v2 = ll_max(((q1 - s1 * s1 / n1) + (q2 - s2 * s2 / n2)) / n, fl);
}

// The statistic of that test, N log(v1 / v2) with N = n1 + n2: >= 0 up to
// rounding, 0 for equal means.
inline float
ll_test_pooled(float s1, float q1, float n1, float s2, float q2, float n2, float fl)
{
  float v1, v2;
  ll_pooled_variances(s1, q1, n1, s2, q2, n2, fl, &v1, &v2);
  return (n1 + n2) * (log(v1) - log(v2));
}

// The same decision without logarithms: N log(v1 / v2) < t exactly when
// v1 < v2 exp(t / N), and the host tabulates bound = exp(t / N) for every N
// a run meets (ll_test_pooled below t, to rounding; the logarithm was half of
// the CPU reference's lengthening time).
inline int
ll_pooled_below(float s1, float q1, float n1, float s2, float q2, float n2, float fl, float bound)
{
  float v1, v2;
  ll_pooled_variances(s1, q1, n1, s2, q2, n2, fl, &v1, &v2);
  return v1 < v2 * bound;
}

// The same test with separate variances for the two parts (the reading of
// [Perrot2013, Algorithm 2]'s GLRT signature): N log s1^2 - n1 log sn^2 - n2 log sp^2.
inline float
ll_test_separate(float s1, float q1, float n1, float s2, float q2, float n2, float fl)
{
  const float n = n1 + n2;
  const float v1 = ll_max(ll_variance(s1 + s2, q1 + q2, n), fl);
  const float vn = ll_max(ll_variance(s1, q1, n1), fl);
  const float vp = ll_max(ll_variance(s2, q2, n2), fl);
  return n * log(v1) - n1 * log(vn) - n2 * log(vp);
}

// Whether the lengthening test accepts the merge: the statistic below tmax,
// with bound = exp(tmax / N) for the pooled form (ll_pooled_below).
inline int
ll_accepts(int separate, float s1, float q1, float n1, float s2, float q2, float n2, float fl, float tmax, float bound)
{
  return separate ? ll_test_separate(s1, q1, n1, s2, q2, n2, fl) < tmax
                  : ll_pooled_below(s1, q1, n1, s2, q2, n2, fl, bound);
}

// Sums of m values relative to z(e) made relative to zc: delta = z(e) - zc,
// sum (x + delta) = s + m delta, sum (x + delta)^2 = q + 2 delta s + m delta^2.
inline float
ll_shift_sum(float s, float m, float delta)
{
  return s + m * delta;
}

inline float
ll_shift_square(float q, float s, float m, float delta)
{
  return q + 2.0f * delta * s + m * delta * delta;
}

// True when direction d2 turns back from d1: more than 90 degrees (8 steps) apart on the circle of D directions.
inline int
ll_turns_back(int d2, int d1)
{
  int difference = d2 > d1 ? d2 - d1 : d1 - d2;
  if (difference > LL_D / 2)
    difference = LL_D - difference;
  return difference > LL_D / 4;
}

// Stage 2 of PI-PD at pixel (i, j) of an nx x ny frame [Perrot2013, Algorithm 2]:
// the poly-isoline from stage 1's segment, lengthened at each segment's end e
// by the segment stage 1 found at e while the test accepts it, at most
// `segments` segments per arm. dir holds stage 1's directions, sums four
// values per pixel (S, Q of the chosen direction, S, Q of the opposite one,
// relative to the pixel), ends the D end offsets (di, dj) of the thin
// patterns, m the pixels of a pattern. Options (ours, see LevelLinesParameters):
// center counts the pixel itself; bidir grows a second arm from the opposite
// direction, tested like a lengthening; flip continues a turning-back
// segment along its opposite direction (else the arm stops). Arms alternate,
// the first one first. bounds[k] = exp(tmax / N) for the test of a line of k
// segments, N = its pixels + m (ll_pooled_below). Returns the mean along the line; *length its pixel
// count; stops[LL_STOP_*] counts why each arm ended.
inline float
ll_poly_isoline(LL_GLOBAL const float * z,
            LL_GLOBAL const uchar * dir,
            LL_GLOBAL const float * sums,
            LL_CONSTANT const int * ends,
            int nx,
            int ny,
            int i,
            int j,
            int m,
            int segments,
            int separate,
            int flip,
            int center,
            int bidir,
            float fl,
            float tmax,
            LL_CONSTANT const float * bounds,
            int * length,
            int * stops)
{
  const int p = i * nx + j;
  const float zc = z[p];
  const float mf = (float)m;
  const int best = dir[p];
  const int opposite = (best + LL_D / 2) % LL_D;
  float cs = sums[4 * p];
  float cq = sums[4 * p + 1];
  int count = m + (center ? 1 : 0);
  int segs = 1;
  int ai[2];
  int aj[2];
  int ad[2];
  int used[2];
  int alive[2];
  ai[0] = i + ends[2 * best];
  aj[0] = j + ends[2 * best + 1];
  ad[0] = best;
  used[0] = 1;
  alive[0] = 1;
  ai[1] = i + ends[2 * opposite];
  aj[1] = j + ends[2 * opposite + 1];
  ad[1] = opposite;
  used[1] = 1;
  alive[1] = 0;
  if (bidir)
  {
    const float s = sums[4 * p + 2];
    const float q = sums[4 * p + 3];
    if (ll_accepts(separate, cs, cq, (float)count, s, q, mf, fl, tmax, bounds[segs]))
    {
      cs += s;
      cq += q;
      count += m;
      segs += 1;
      alive[1] = 1;
    }
    else
    {
      stops[LL_STOP_TEST] += 1;
    }
  }
  for (int step = 0; step < segments; ++step)
  {
    for (int a = 0; a < 2; ++a)
    {
      if (!alive[a])
        continue;
      if (used[a] >= segments)
      {
        stops[LL_STOP_LENGTH] += 1;
        alive[a] = 0;
        continue;
      }
      if (ai[a] < 0 || ai[a] >= ny || aj[a] < 0 || aj[a] >= nx)
      {
        stops[LL_STOP_BORDER] += 1;
        alive[a] = 0;
        continue;
      }
      const int e = ai[a] * nx + aj[a];
      int d2 = dir[e];
      int slot = 0;
      if (ll_turns_back(d2, ad[a]))
      {
        if (!flip)
        {
          stops[LL_STOP_TURN_BACK] += 1;
          alive[a] = 0;
          continue;
        }
        d2 = (d2 + LL_D / 2) % LL_D;
        slot = 2;
      }
      const float delta = z[e] - zc;
      const float se = sums[4 * e + slot];
      const float s = ll_shift_sum(se, mf, delta);
      const float q = ll_shift_square(sums[4 * e + slot + 1], se, mf, delta);
      if (ll_accepts(separate, cs, cq, (float)count, s, q, mf, fl, tmax, bounds[segs]))
      {
        cs += s;
        cq += q;
        count += m;
        segs += 1;
        used[a] += 1;
        ad[a] = d2;
        ai[a] += ends[2 * d2];
        aj[a] += ends[2 * d2 + 1];
      }
      else
      {
        stops[LL_STOP_TEST] += 1;
        alive[a] = 0;
      }
    }
  }
  *length = count;
  return zc + cs / (float)count;
}

// The hybrid decision at a pixel of grey level zc [Perrot2013, Algorithm 3]:
// rs, rq the sums of the 8 thin rays of l pixels at 0, 45, ..., 315 degrees
// (directions 0, 4, ..., 28), relative to zc. For each base ray k, the
// half-plane H (the centre and rays k..k+4, 5l + 1 pixels) against the rest
// (rays k+5..k+7, 3l pixels) by the pooled test [Perrot2013, eq. (11)]; an
// edge along k when the statistic exceeds t2, i.e. when v1 > v2 t2bound with
// t2bound = exp(t2 / (8l + 1)) (as ll_pooled_below). No edge: the mean of the star
// (8l + 1 pixels), class 0; one: the mean of that H, class 1; more: the PI-PD
// value pipd (pipdLength pixels), class 2.
inline float
ll_hybrid_value(const float * rs,
          const float * rq,
          float zc,
          int l,
          float fl,
          float t2bound,
          float pipd,
          int pipdLength,
          int * pixelClass,
          int * length)
{
  const float nh = (float)(5 * l + 1);
  const float nl = (float)(3 * l);
  int edges = 0;
  float edge = 0.0f;
  for (int k = 0; k < 8; ++k)
  {
    float hs = 0.0f;
    float hq = 0.0f;
    for (int r = 0; r < 5; ++r)
    {
      hs += rs[(k + r) % 8];
      hq += rq[(k + r) % 8];
    }
    float ls = 0.0f;
    float lq = 0.0f;
    for (int r = 5; r < 8; ++r)
    {
      ls += rs[(k + r) % 8];
      lq += rq[(k + r) % 8];
    }
    float v1, v2;
    ll_pooled_variances(hs, hq, nh, ls, lq, nl, fl, &v1, &v2);
    if (v1 > v2 * t2bound)
    {
      edges += 1;
      edge = hs;
    }
  }
  if (edges == 0)
  {
    float star = 0.0f;
    for (int r = 0; r < 8; ++r)
      star += rs[r];
    *pixelClass = 0;
    *length = 8 * l + 1;
    return zc + star / (float)(8 * l + 1);
  }
  if (edges == 1)
  {
    *pixelClass = 1;
    *length = 5 * l + 1;
    return zc + edge / nh;
  }
  *pixelClass = 2;
  *length = pipdLength;
  return pipd;
}

// The unit steps (di, dj) of the 8 thin rays of directions 0, 4, ..., 28 (row i down): ray r's pixel k is k times it.
LL_TABLE int ll_ray_di[8] = { 0, -1, -1, -1, 0, 1, 1, 1 };
LL_TABLE int ll_ray_dj[8] = { 1, 1, 0, -1, -1, -1, 0, 1 };

#ifdef __OPENCL_VERSION__
// Loads the work-group's tile of get_local_size(0) x get_local_size(1)
// pixels with a halo of `halo` on every side from an nx x ny frame into
// local memory, reads outside the frame clamped to its border
// (clamp-to-edge); every work-item takes its share. Returns the index of the
// work-item's own pixel in the tile. The caller puts the barrier after it.
inline int
ll_load_tile(__local float * tile, __global const float * frame, int halo, int nx, int ny)
{
  const int width = (int)get_local_size(0) + 2 * halo, height = (int)get_local_size(1) + 2 * halo;
  const int i0 = (int)(get_group_id(1) * get_local_size(1)) - halo;
  const int j0 = (int)(get_group_id(0) * get_local_size(0)) - halo;
  const int items = (int)(get_local_size(0) * get_local_size(1));
  for (int t = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)); t < width * height; t += items)
  {
    const int gi = clamp(i0 + t / width, 0, ny - 1);
    const int gj = clamp(j0 + t % width, 0, nx - 1);
    tile[t] = frame[gi * nx + gj];
  }
  return ((int)get_local_id(1) + halo) * width + (int)get_local_id(0) + halo;
}
#endif
