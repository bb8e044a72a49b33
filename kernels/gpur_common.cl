// SPDX-License-Identifier: Apache-2.0
// Common definitions of every ITKGPURestoration program.
// The host builds each program with -DREAL=float or -DREAL=double
// (gpur::DeviceContext::RealOptions); REAL3 is the matching 3-vector.
#ifndef REAL
#define REAL float
#define REAL3 float3
#endif
#ifdef GPUR_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// No FMA contraction: results then match the CPU reference closely; the
// kernels are memory-bound, so this costs nothing measurable.
#pragma OPENCL FP_CONTRACT OFF

// Forced inlining, for helpers that a CPU driver would otherwise keep as a call per work-item: PoCL does not
// vectorise a work-group's loop around a call (pscr_apply_coupling: the coupling kernels 3x slower).
#if defined(__clang__) || defined(__GNUC__)
#define GPUR_INLINE inline __attribute__((always_inline))
#else
#define GPUR_INLINE inline
#endif

// 64-bit linear index (x fastest), so chunks beyond 2^31 voxels are addressed correctly.
inline long gpur_index(int x, int y, int z, int nx, int ny)
{
  return ((long)z * ny + y) * nx + x;
}
