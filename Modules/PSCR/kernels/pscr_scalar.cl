// The scalar type of the PSCR programs: REAL, or with -DPSCR_COMPLEX a
// complex number stored as a REAL2 (re, im), the layout of std::complex. One
// codebase serves both, as in [PIII] (digest seed 000, section 5.1): sums and
// differences are the vector type's own, products and quotients go through
// pscr_mul / pscr_div. Requires gpur_common.cl.
#ifdef PSCR_COMPLEX
#ifdef GPUR_DOUBLE
typedef double2 SCALAR;
#else
typedef float2 SCALAR;
#endif

inline SCALAR pscr_scalar(REAL re)
{
  return (SCALAR)(re, 0);
}

inline SCALAR pscr_mul(SCALAR a, SCALAR b)
{
  return (SCALAR)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Smith's algorithm: scales by the larger part of b, so |b|^2 cannot overflow
// (float complex systems with entries near 1e20 would otherwise break down).
inline SCALAR pscr_div(SCALAR a, SCALAR b)
{
  if (fabs(b.x) >= fabs(b.y))
  {
    const REAL r = b.y / b.x;
    const REAL d = b.x + b.y * r;
    return (SCALAR)((a.x + a.y * r) / d, (a.y - a.x * r) / d);
  }
  const REAL r = b.x / b.y;
  const REAL d = b.x * r + b.y;
  return (SCALAR)((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}

inline REAL pscr_real(SCALAR a)
{
  return a.x;
}

inline REAL pscr_imag(SCALAR a)
{
  return a.y;
}

inline REAL pscr_norm(SCALAR a)
{
  return a.x * a.x + a.y * a.y;
}

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
#endif
