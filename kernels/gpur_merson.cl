// SPDX-License-Identifier: Apache-2.0
// The Runge-Kutta-Merson combinations of the method of lines
// [Oberhuber2011, Algorithm 4.1]: the stage arguments of step 1, the error
// estimate of eq. (27) and the update of eq. (28), per unknown. The stage
// values k_i hold f (the τ is applied here), so the CPU reference
// (src/gpurMersonArithmetic.h compiles these functions as C++) and the
// kernels do the same operations in the same order.
// Requires gpur_common.cl and gpur_reduce.cl (kernels only).

#ifdef __OPENCL_VERSION__
#pragma OPENCL FP_CONTRACT OFF
#endif

// u + τ k1/3: the argument of k2.
inline REAL gpur_merson_argument2(REAL u, REAL k1, REAL tau)
{
  return u + tau * (k1 / 3);
}

// u + τ (k1 + k2)/6: the argument of k3.
inline REAL gpur_merson_argument3(REAL u, REAL k1, REAL k2, REAL tau)
{
  return u + tau * ((k1 + k2) / 6);
}

// u + τ (k1 + 3 k3)/8: the argument of k4.
inline REAL gpur_merson_argument4(REAL u, REAL k1, REAL k3, REAL tau)
{
  return u + tau * ((k1 + 3 * k3) / 8);
}

// u + τ (k1/2 - 3 k3/2 + 2 k4): the argument of k5.
inline REAL gpur_merson_argument5(REAL u, REAL k1, REAL k3, REAL k4, REAL tau)
{
  return u + tau * ((k1 - 3 * k3) / 2 + 2 * k4);
}

// |2 k1 - 9 k3 + 8 k4 - k5|: eq. (27) without its factor τ/30.
inline REAL gpur_merson_error(REAL k1, REAL k3, REAL k4, REAL k5)
{
  return fabs(2 * k1 - 9 * k3 + 8 * k4 - k5);
}

// u + τ (k1 + 4 k4 + k5)/6: eq. (28).
inline REAL gpur_merson_update(REAL u, REAL k1, REAL k4, REAL k5, REAL tau)
{
  return u + tau * ((k1 + 4 * k4 + k5) / 6);
}

#ifdef __OPENCL_VERSION__

// gpur_merson_stageN: the argument of stage N (2..5) into `out`; one kernel
// per stage, so that no stage number is tested per unknown.
__kernel void gpur_merson_stage2(__global const REAL * u, __global const REAL * k1, __global REAL * out, REAL tau, long n)
{
  const long i = get_global_id(0);
  if (i < n)
    out[i] = gpur_merson_argument2(u[i], k1[i], tau);
}

__kernel void gpur_merson_stage3(__global const REAL * u, __global const REAL * k1, __global const REAL * k2,
                                 __global REAL * out, REAL tau, long n)
{
  const long i = get_global_id(0);
  if (i < n)
    out[i] = gpur_merson_argument3(u[i], k1[i], k2[i], tau);
}

__kernel void gpur_merson_stage4(__global const REAL * u, __global const REAL * k1, __global const REAL * k3,
                                 __global REAL * out, REAL tau, long n)
{
  const long i = get_global_id(0);
  if (i < n)
    out[i] = gpur_merson_argument4(u[i], k1[i], k3[i], tau);
}

__kernel void gpur_merson_stage5(__global const REAL * u, __global const REAL * k1, __global const REAL * k3,
                                 __global const REAL * k4, __global REAL * out, REAL tau, long n)
{
  const long i = get_global_id(0);
  if (i < n)
    out[i] = gpur_merson_argument5(u[i], k1[i], k3[i], k4[i], tau);
}

// The work-group maxima of gpur_merson_error over a grid-stride loop (the
// host takes the max of the few partials and multiplies by τ/30). A NaN
// anywhere makes the partial NaN (fmax would drop it), so a step whose
// stages overflowed is rejected rather than accepted on the other values.
__kernel void gpur_merson_error_max(__global const REAL * k1,
                                    __global const REAL * k3,
                                    __global const REAL * k4,
                                    __global const REAL * k5,
                                    long n,
                                    __global REAL * partials,
                                    __local REAL * scratch)
{
  REAL m = 0;
  int bad = 0;
  for (long i = get_global_id(0); i < n; i += get_global_size(0))
  {
    const REAL e = gpur_merson_error(k1[i], k3[i], k4[i], k5[i]);
    bad |= isnan(e);
    m = fmax(m, e);
  }
  const REAL r = gpur_group_max(bad ? (REAL)INFINITY : m, scratch);
  if (get_local_id(0) == 0)
    partials[get_group_id(0)] = r;
}

// u <- u + τ (k1 + 4 k4 + k5)/6.
__kernel void gpur_merson_accept(__global REAL * u,
                                 __global const REAL * k1,
                                 __global const REAL * k4,
                                 __global const REAL * k5,
                                 REAL tau,
                                 long n)
{
  const long i = get_global_id(0);
  if (i < n)
    u[i] = gpur_merson_update(u[i], k1[i], k4[i], k5[i], tau);
}

#endif
