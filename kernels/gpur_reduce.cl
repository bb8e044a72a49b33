// SPDX-License-Identifier: Apache-2.0
// Reductions: a work-group tree in local memory (sequential addressing,
// barriers only, portable to any SIMD width) plus grid-stride kernels whose
// per-group partials the host sums in double (gpur::Reducer).
// Requires gpur_common.cl. The local size must be a power of two.

// Work-group reduction of a value of type TYPE with the binary operation OP
// (a macro argument); every work-item gets the result. Defines
// gpur_group_<NAME>. (NAME goes straight to ##: forwarded through another
// macro it would be expanded first, and some OpenCL headers define `max`.)
#define GPUR_DEFINE_GROUP_REDUCTION_OF(NAME, TYPE, OP)                                                 \
  inline TYPE gpur_group_##NAME(TYPE v, __local TYPE * scratch)                                       \
  {                                                                                                   \
    const int lid = get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)); \
    const int n = get_local_size(0) * get_local_size(1) * get_local_size(2);                          \
    scratch[lid] = v;                                                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    for (int s = n / 2; s > 0; s >>= 1)                                                               \
    {                                                                                                 \
      if (lid < s)                                                                                    \
        scratch[lid] = OP(scratch[lid], scratch[lid + s]);                                            \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
    }                                                                                                 \
    const TYPE r = scratch[0];                                                                        \
    barrier(CLK_LOCAL_MEM_FENCE); /* scratch may be reused right after */                             \
    return r;                                                                                         \
  }

#define GPUR_ADD(a, b) ((a) + (b))
GPUR_DEFINE_GROUP_REDUCTION_OF(sum, REAL, GPUR_ADD)
GPUR_DEFINE_GROUP_REDUCTION_OF(max, REAL, fmax)

// Compensated (Kahan) accumulation for the grid-stride loops.
inline void gpur_kahan_add(REAL * sum, REAL * c, REAL v)
{
  const REAL y = v - *c;
  const REAL t = *sum + y;
  *c = (t - *sum) - y;
  *sum = t;
}

#define GPUR_GRID_STRIDE_SUM(EXPR)                                               \
  REAL acc = 0, comp = 0;                                                        \
  for (long i = get_global_id(0); i < n; i += get_global_size(0))               \
    gpur_kahan_add(&acc, &comp, (EXPR));                                         \
  const REAL r = gpur_group_sum(acc, scratch);                                   \
  if (get_local_id(0) == 0)                                                      \
    partials[get_group_id(0)] = r;

__kernel void gpur_reduce_sum(__global const REAL * x, long n, __global REAL * partials, __local REAL * scratch)
{
  GPUR_GRID_STRIDE_SUM(x[i])
}

__kernel void gpur_reduce_sumsq(__global const REAL * x, long n, __global REAL * partials, __local REAL * scratch)
{
  GPUR_GRID_STRIDE_SUM(x[i] * x[i])
}

__kernel void gpur_reduce_dot(__global const REAL * x,
                              __global const REAL * y,
                              long n,
                              __global REAL * partials,
                              __local REAL * scratch)
{
  GPUR_GRID_STRIDE_SUM(x[i] * y[i])
}

__kernel void gpur_reduce_max(__global const REAL * x, long n, __global REAL * partials, __local REAL * scratch)
{
  REAL m = -INFINITY;
  for (long i = get_global_id(0); i < n; i += get_global_size(0))
    m = fmax(m, x[i]);
  const REAL r = gpur_group_max(m, scratch);
  if (get_local_id(0) == 0)
    partials[get_group_id(0)] = r;
}
