// SPDX-License-Identifier: Apache-2.0
// The scalar types of the PSCR programs. SCALAR is REAL, or with
// -DPSCR_COMPLEX a complex number stored as a REAL2 (re, im), the layout of
// std::complex. One codebase serves both, as in [Myllykoski2018, §3.2]: sums
// and differences are the vector type's own, products and quotients go through
// pscr_mul / pscr_div.
//
// WIDE is the scalar in double (double or double2) on devices with fp64
// (PSCR_CHECKS, which the PSCR solver requires), else SCALAR. What float data
// need wider than float runs in it, as on the CPU: the residual checks
// (gpurPSCRResidual.h), the tridiagonal eliminations (gpur::TridiagonalWork,
// gpurTridiagonal.h) and the back-substitution sums; its arithmetic is
// pscr_w_mul / pscr_w_div, and pscr_widen / pscr_narrow convert.
// Requires gpur_common.cl.
#ifdef PSCR_CHECKS
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifdef PSCR_COMPLEX
// Complex arithmetic on a 2-vector type T with real type R, as PREFIX_mul,
// PREFIX_div and PREFIX_norm. Division is Smith's algorithm: it scales by the
// larger part of b, so |b|^2 cannot overflow (float complex systems with
// entries near 1e20 would otherwise break down).
#define PSCR_COMPLEX_ARITHMETIC(PREFIX, T, R)                                                                          \
  inline T PREFIX##_mul(T a, T b)                                                                                      \
  {                                                                                                                    \
    return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);                                                          \
  }                                                                                                                    \
  inline T PREFIX##_div(T a, T b)                                                                                      \
  {                                                                                                                    \
    if (fabs(b.x) >= fabs(b.y))                                                                                        \
    {                                                                                                                  \
      const R r = b.y / b.x;                                                                                           \
      const R d = b.x + b.y * r;                                                                                       \
      return (T)((a.x + a.y * r) / d, (a.y - a.x * r) / d);                                                            \
    }                                                                                                                  \
    const R r = b.x / b.y;                                                                                             \
    const R d = b.x * r + b.y;                                                                                         \
    return (T)((a.x * r + a.y) / d, (a.y * r - a.x) / d);                                                              \
  }                                                                                                                    \
  inline R PREFIX##_norm(T a)                                                                                          \
  {                                                                                                                    \
    return a.x * a.x + a.y * a.y;                                                                                      \
  }

#ifdef GPUR_DOUBLE
typedef double2 SCALAR;
#else
typedef float2 SCALAR;
#endif
PSCR_COMPLEX_ARITHMETIC(pscr, SCALAR, REAL)

inline SCALAR pscr_scalar(REAL re)
{
  return (SCALAR)(re, 0);
}

inline REAL pscr_real(SCALAR a)
{
  return a.x;
}

inline REAL pscr_imag(SCALAR a)
{
  return a.y;
}

#ifdef PSCR_CHECKS
typedef double2 WIDE;
PSCR_COMPLEX_ARITHMETIC(pscr_w, WIDE, double)
inline WIDE pscr_widen(SCALAR a)
{
  return convert_double2(a);
}
inline SCALAR pscr_narrow(WIDE a)
{
#ifdef GPUR_DOUBLE
  return a;
#else
  return convert_float2(a);
#endif
}
#endif

#else
typedef REAL SCALAR;

inline SCALAR pscr_scalar(REAL re)
{
  return re;
}

inline SCALAR pscr_mul(SCALAR a, SCALAR b)
{
  return a * b;
}

inline SCALAR pscr_div(SCALAR a, SCALAR b)
{
  return a / b;
}

inline REAL pscr_real(SCALAR a)
{
  return a;
}

inline REAL pscr_imag(SCALAR a)
{
  return 0;
}

inline REAL pscr_norm(SCALAR a)
{
  return a * a;
}

#ifdef PSCR_CHECKS
typedef double WIDE;
inline WIDE pscr_w_mul(WIDE a, WIDE b)
{
  return a * b;
}
inline WIDE pscr_w_div(WIDE a, WIDE b)
{
  return a / b;
}
inline double pscr_w_norm(WIDE a)
{
  return a * a;
}
inline WIDE pscr_widen(SCALAR a)
{
  return (double)a;
}
inline SCALAR pscr_narrow(WIDE a)
{
  return (SCALAR)a;
}
#endif
#endif

// Without fp64 the wide scalar is the scalar itself.
#ifndef PSCR_CHECKS
typedef SCALAR WIDE;
#define pscr_w_mul pscr_mul
#define pscr_w_div pscr_div
#define pscr_w_norm pscr_norm
#define pscr_widen(a) (a)
#define pscr_narrow(a) (a)
#endif
