// SPDX-License-Identifier: Apache-2.0
// Mean-curvature flow of graphs by complementary finite volumes
// [Oberhuber2011, Scheme 3.1, eqs. (17)-(20), with the edge quantities of
// eqs. (36)-(50)], and the exact solutions its tests are measured against.
// The per-node functions are compiled as C++ by the CPU reference
// (src/gpurCurvatureFlowArithmetic.h): both backends do the same operations
// in the same order. Build options: MCF_SOLUTION (0 none, 1 the manufactured
// solution (30) with its forcing, 2 the grim reaper, 3 Scherk's surface) and
// MCF_NEUMANN (the boundary copies (19)-(20); else Dirichlet).

#ifdef __OPENCL_VERSION__
#pragma OPENCL FP_CONTRACT OFF
#endif

#define MCF_PI ((REAL)3.14159265358979323846)

// dφ/dt = Q H at a node from its 3x3 neighbourhood (c the node, e/w/n/s its
// x1/x2 neighbours, ne/nw/se/sw the diagonal ones), ih1 = 1/h1, ih2 = 1/h2,
// eps2 = ε² of the regularised Q = sqrt(ε² + |∇φ|²) (ε = 1: the graph's Q of
// [Oberhuber2011, eq. (5)]). Edge gradients with corner averages (40)-(47),
// edge Q's (36)-(39), H (48), node Q the mean of the edge Q's (49), and the
// sign of the scheme (17): the printed eq. (6) has the opposite sign, which
// would make the problem backward-parabolic.
inline REAL mcf_speed(REAL c, REAL e, REAL w, REAL n, REAL s, REAL ne, REAL nw, REAL se, REAL sw, REAL ih1, REAL ih2,
                      REAL eps2)
{
  const REAL pne = (c + e + n + ne) / 4;
  const REAL pse = (c + e + s + se) / 4;
  const REAL pnw = (c + w + n + nw) / 4;
  const REAL psw = (c + w + s + sw) / 4;
  const REAL d1e = (e - c) * ih1, d1w = (c - w) * ih1, d2n = (n - c) * ih2, d2s = (c - s) * ih2;
  const REAL d2e = (pne - pse) * ih2, d2w = (pnw - psw) * ih2, d1n = (pne - pnw) * ih1, d1s = (pse - psw) * ih1;
  const REAL qe = sqrt(eps2 + d1e * d1e + d2e * d2e);
  const REAL qw = sqrt(eps2 + d1w * d1w + d2w * d2w);
  const REAL qn = sqrt(eps2 + d1n * d1n + d2n * d2n);
  const REAL qs = sqrt(eps2 + d1s * d1s + d2s * d2s);
  const REAL h = (d1e / qe - d1w / qw) * ih1 + (d2n / qn - d2s / qs) * ih2;
  return (qe + qw + qn + qs) / 4 * h;
}

// x^k for k >= 0.
inline REAL mcf_pow(REAL x, int k)
{
  REAL p = 1;
  for (int i = 0; i < k; ++i)
    p *= x;
  return p;
}

// The factor a(x) = (x^k - r^k) exp(-σ x²) / r^k of the manufactured solution
// (30) of [Oberhuber2011] and its first two derivatives, into d[0..2].
inline void mcf_factor(REAL x, int k, REAL r, REAL sigma, REAL * d)
{
  const REAL rk = mcf_pow(r, k);
  const REAL p = mcf_pow(x, k) - rk;
  const REAL p1 = k * mcf_pow(x, k - 1);
  const REAL p2 = k >= 2 ? k * (k - 1) * mcf_pow(x, k - 2) : 0;
  const REAL g = exp(-sigma * x * x) / rk;
  d[0] = p * g;
  d[1] = (p1 - 2 * sigma * x * p) * g;
  d[2] = (p2 - 2 * sigma * p - 4 * sigma * x * p1 + 4 * sigma * sigma * x * x * p) * g;
}

// The exact solution `kind` at (t, x, y): 1 the manufactured solution (30)
// ζ = cos(πt) r^(-2k) (x^k - r^k)(y^k - r^k) exp(-σ(x² + y²)); 2 the grim
// reaper t - ln cos x (translating, |x| < π/2); 3 Scherk's minimal surface
// ln cos y - ln cos x (stationary, |x|, |y| < π/2).
inline REAL mcf_exact(int kind, REAL t, REAL x, REAL y, int k, REAL r, REAL sigma)
{
  if (kind == 2)
    return t - log(cos(x));
  if (kind == 3)
    return log(cos(y)) - log(cos(x));
  REAL a[3], b[3];
  mcf_factor(x, k, r, sigma, a);
  mcf_factor(y, k, r, sigma, b);
  return cos(MCF_PI * t) * a[0] * b[0];
}

// The forcing F = ∂t ζ - Q ∇·(∇ζ / Q) that makes (30) a solution of
// ∂t φ = Q ∇·(∇φ / Q) + F, with Q = sqrt(ε² + |∇ζ|²), from
// Q ∇·(∇ζ / Q) = Δζ - (ζx² ζxx + 2 ζx ζy ζxy + ζy² ζyy) / Q² (our derivation:
// [Oberhuber2011] evaluates F from the thesis it cites without printing it).
inline REAL mcf_forcing(REAL t, REAL x, REAL y, int k, REAL r, REAL sigma, REAL eps2)
{
  REAL a[3], b[3];
  mcf_factor(x, k, r, sigma, a);
  mcf_factor(y, k, r, sigma, b);
  const REAL c = cos(MCF_PI * t);
  const REAL zt = -MCF_PI * sin(MCF_PI * t) * a[0] * b[0];
  const REAL zx = c * a[1] * b[0], zy = c * a[0] * b[1];
  const REAL zxx = c * a[2] * b[0], zyy = c * a[0] * b[2], zxy = c * a[1] * b[1];
  const REAL q2 = eps2 + zx * zx + zy * zy;
  return zt - (zxx + zyy - (zx * zx * zxx + 2 * zx * zy * zxy + zy * zy * zyy) / q2);
}

// The interior node a boundary node of an nx x ny grid copies under Neumann
// conditions (19)-(20): the nearest interior node, the diagonal one at the
// corners (the scheme's sequential copies leave the corners to the order of
// the loops; this choice keeps the copies independent and symmetric).
// Without a REAL in its signature: defined once when the CPU reference
// includes this file for each precision.
#ifndef MCF_INDEX_FUNCTIONS
#define MCF_INDEX_FUNCTIONS
inline long mcf_neumann_source(long i, long j, long nx, long ny)
{
  const long si = i < 1 ? 1 : (i > nx - 2 ? nx - 2 : i);
  const long sj = j < 1 ? 1 : (j > ny - 2 ? ny - 2 : j);
  return si + nx * sj;
}
#endif

#ifdef __OPENCL_VERSION__

// f = dφ/dt on every node: Q H (+ F) inside, 0 on the boundary, whose
// values the constraint sets.
__kernel void mcf_rhs(__global const REAL * u,
                      __global REAL * f,
                      long nx,
                      long ny,
                      REAL ih1,
                      REAL ih2,
                      REAL eps2,
                      REAL t,
                      REAL x0,
                      REAL y0,
                      REAL h1,
                      REAL h2,
                      int k,
                      REAL r,
                      REAL sigma)
{
  const long i = get_global_id(0), j = get_global_id(1);
  if (i >= nx || j >= ny)
    return;
  const long p = i + nx * j;
  if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1)
  {
    f[p] = 0;
    return;
  }
  REAL v = mcf_speed(u[p], u[p + 1], u[p - 1], u[p + nx], u[p - nx], u[p + nx + 1], u[p + nx - 1], u[p - nx + 1],
                     u[p - nx - 1], ih1, ih2, eps2);
#if MCF_SOLUTION == 1
  v += mcf_forcing(t, x0 + i * h1, y0 + j * h2, k, r, sigma, eps2);
#endif
  f[p] = v;
}

// The boundary values at time t on the perimeter's 2 nx + 2 (ny - 2) nodes:
// Neumann copies, or the exact solution's values under Dirichlet conditions
// with MCF_SOLUTION; kept as they are otherwise (f = 0 there).
__kernel void mcf_constrain(__global REAL * u,
                            long nx,
                            long ny,
                            REAL t,
                            REAL x0,
                            REAL y0,
                            REAL h1,
                            REAL h2,
                            int k,
                            REAL r,
                            REAL sigma)
{
  const long m = get_global_id(0);
  long i, j;
  if (m < 2 * nx)
  {
    i = m % nx;
    j = m < nx ? 0 : ny - 1;
  }
  else if (m < 2 * nx + 2 * (ny - 2))
  {
    const long q = m - 2 * nx;
    i = q < ny - 2 ? 0 : nx - 1;
    j = 1 + q % (ny - 2);
  }
  else
    return;
#if MCF_NEUMANN
  u[i + nx * j] = u[mcf_neumann_source(i, j, nx, ny)];
#elif MCF_SOLUTION
  u[i + nx * j] = mcf_exact(MCF_SOLUTION, t, x0 + i * h1, y0 + j * h2, k, r, sigma);
#endif
}

#endif
