// SPDX-License-Identifier: Apache-2.0
// Mean-curvature flow of graphs by complementary finite volumes
// [Oberhuber2011, Scheme 3.1, eqs. (17)-(20), with the edge quantities of
// eqs. (36)-(50)], and the exact solutions its tests are measured against.
// The per-node functions are compiled as C++ by the CPU reference
// (src/gpurCurvatureFlowArithmetic.h): both backends do the same operations
// in the same order. Build options: MCF_SOLUTION (0 none, 1 the manufactured
// solution (30) with its forcing, 2 the grim reaper, 3 Scherk's surface, 4
// the spherical cap of the Willmore flow's tests) and MCF_NEUMANN (the
// boundary copies (19)-(20); else Dirichlet). curvatureflow_willmore.cl
// follows this file in the Willmore flow's program and uses its functions.

#ifdef __OPENCL_VERSION__
#pragma OPENCL FP_CONTRACT OFF
#define MCF_GLOBAL __global
#endif

#define MCF_PI ((REAL)3.14159265358979323846)

// The edge functions and the Willmore speed are forced inline: PoCL
// otherwise keeps them calls per work-item (their private arrays passed by
// pointer). Measured on PoCL (AVX-512, one thread): the Willmore right-hand
// side 1.3x faster; forcing mcf_node_curvature inline too made the
// mean-curvature kernel 2x slower, so that one is left to the compiler.
#ifndef MCF_INLINE
#if defined(__clang__) || defined(__GNUC__)
#define MCF_INLINE inline __attribute__((always_inline))
#else
#define MCF_INLINE inline
#endif
#endif

// The edge gradients of a grid function at a node from its 3x3
// neighbourhood (c the node, e/w/n/s its x1/x2 neighbours, ne/nw/se/sw the
// diagonal ones), ih1 = 1/h1, ih2 = 1/h2, into g = (∂1, ∂2) at the edges E, W,
// N, S in that order: normal derivatives (40)-(41), tangential ones from the
// corner averages (42)-(47) of [Oberhuber2011].
MCF_INLINE void mcf_edge_gradients(REAL c, REAL e, REAL w, REAL n, REAL s, REAL ne, REAL nw, REAL se, REAL sw, REAL ih1,
                               REAL ih2, REAL * g)
{
  const REAL pne = (c + e + n + ne) / 4;
  const REAL pse = (c + e + s + se) / 4;
  const REAL pnw = (c + w + n + nw) / 4;
  const REAL psw = (c + w + s + sw) / 4;
  g[0] = (e - c) * ih1;
  g[1] = (pne - pse) * ih2;
  g[2] = (c - w) * ih1;
  g[3] = (pnw - psw) * ih2;
  g[4] = (pne - pnw) * ih1;
  g[5] = (n - c) * ih2;
  g[6] = (pse - psw) * ih1;
  g[7] = (c - s) * ih2;
}

// The edge Q's (36)-(39), Q_e = sqrt(ε² + |∇φ_e|²) with eps2 = ε² (ε = 1:
// the graph's Q of [Oberhuber2011, eq. (5)]), from mcf_edge_gradients' g.
MCF_INLINE void mcf_edge_q(const REAL * g, REAL eps2, REAL * q)
{
  for (int m = 0; m < 4; ++m)
    q[m] = sqrt(eps2 + g[2 * m] * g[2 * m] + g[2 * m + 1] * g[2 * m + 1]);
}

// The node's Q (49) and mean curvature H (48) into qh[0], qh[1].
inline void mcf_node_curvature(REAL c, REAL e, REAL w, REAL n, REAL s, REAL ne, REAL nw, REAL se, REAL sw, REAL ih1,
                               REAL ih2, REAL eps2, REAL * qh)
{
  REAL g[8], q[4];
  mcf_edge_gradients(c, e, w, n, s, ne, nw, se, sw, ih1, ih2, g);
  mcf_edge_q(g, eps2, q);
  qh[0] = (q[0] + q[1] + q[2] + q[3]) / 4;
  qh[1] = (g[0] / q[0] - g[2] / q[1]) * ih1 + (g[5] / q[2] - g[7] / q[3]) * ih2;
}

// dφ/dt = w = Q H at a node (50), the right-hand side of Scheme 3.1 (17). Its
// sign is the scheme's: the printed eq. (6) has the opposite one, which would
// make the problem backward-parabolic.
inline REAL mcf_speed(REAL c, REAL e, REAL w, REAL n, REAL s, REAL ne, REAL nw, REAL se, REAL sw, REAL ih1, REAL ih2,
                      REAL eps2)
{
  REAL qh[2];
  mcf_node_curvature(c, e, w, n, s, ne, nw, se, sw, ih1, ih2, eps2, qh);
  return qh[0] * qh[1];
}

// mcf_speed at node p of a grid function u with rows of nx values.
inline REAL mcf_speed_at(MCF_GLOBAL const REAL * u, long p, long nx, REAL ih1, REAL ih2, REAL eps2)
{
  return mcf_speed(u[p], u[p + 1], u[p - 1], u[p + nx], u[p - nx], u[p + nx + 1], u[p + nx - 1], u[p - nx + 1],
                   u[p - nx - 1], ih1, ih2, eps2);
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
// (30) of [Oberhuber2011] and its derivatives of orders 0..order (<= 4) into
// d[0..order] (Leibniz's rule on the polynomial and the Gaussian).
inline void mcf_factor(REAL x, int k, REAL r, REAL sigma, int order, REAL * d)
{
  const REAL rk = mcf_pow(r, k);
  REAL p[5], gauss[5];
  p[0] = mcf_pow(x, k) - rk;
  REAL falling = 1;
  for (int i = 1; i <= order; ++i)
  {
    falling *= k - (i - 1);
    p[i] = i <= k ? falling * mcf_pow(x, k - i) : 0;
  }
  const REAL s2 = sigma * sigma, x2 = x * x;
  gauss[0] = 1;
  gauss[1] = -2 * sigma * x;
  gauss[2] = 4 * s2 * x2 - 2 * sigma;
  gauss[3] = (12 * s2 - 8 * s2 * sigma * x2) * x;
  gauss[4] = 16 * s2 * s2 * x2 * x2 - 48 * s2 * sigma * x2 + 12 * s2;
  const REAL g = exp(-sigma * x2) / rk;
  const REAL binomial[5][5] = { { 1, 0, 0, 0, 0 }, { 1, 1, 0, 0, 0 }, { 1, 2, 1, 0, 0 }, { 1, 3, 3, 1, 0 }, { 1, 4, 6, 4, 1 } };
  for (int m = 0; m <= order; ++m)
  {
    REAL v = 0;
    for (int i = 0; i <= m; ++i)
      v += binomial[m][i] * p[i] * gauss[m - i];
    d[m] = v * g;
  }
}

// w = Q ∇·(∇ζ / Q) = Δζ - (ζx² ζxx + 2 ζx ζy ζxy + ζy² ζyy) / Q² of a
// function with those derivatives, Q² = ε² + ζx² + ζy².
inline REAL mcf_exact_curvature(REAL zx, REAL zy, REAL zxx, REAL zxy, REAL zyy, REAL eps2)
{
  const REAL q2 = eps2 + zx * zx + zy * zy;
  return zxx + zyy - (zx * zx * zxx + 2 * zx * zy * zxy + zy * zy * zyy) / q2;
}

// The exact solution `kind` at (t, x, y): 1 the manufactured solution (30)
// ζ = cos(πt) r^(-2k) (x^k - r^k)(y^k - r^k) exp(-σ(x² + y²)); 2 the grim
// reaper t - ln cos x (translating, |x| < π/2); 3 Scherk's minimal surface
// ln cos y - ln cos x (stationary, |x|, |y| < π/2); 4 the spherical cap
// sqrt(r² - x² - y²) (stationary for Willmore flow).
inline REAL mcf_exact(int kind, REAL t, REAL x, REAL y, int k, REAL r, REAL sigma)
{
  if (kind == 2)
    return t - log(cos(x));
  if (kind == 3)
    return log(cos(y)) - log(cos(x));
  if (kind == 4)
    return sqrt(r * r - x * x - y * y);
  REAL a[3], b[3];
  mcf_factor(x, k, r, sigma, 0, a);
  mcf_factor(y, k, r, sigma, 0, b);
  return cos(MCF_PI * t) * a[0] * b[0];
}

// The time factors of (30) and of its time derivative: cs[0] = cos(πt),
// cs[1] = -π sin(πt).
inline void mcf_time_factors(REAL t, REAL * cs)
{
  cs[0] = cos(MCF_PI * t);
  cs[1] = -MCF_PI * sin(MCF_PI * t);
}

// Values per column (row) of the factors mcf_factor(x_i) (mcf_factor(y_j)) of
// the manufactured solution that its forcing terms read: orders 0..4. They
// depend on x or y alone, so both backends compute them once per column and
// row (kernel mcf_factors, HostGraphSystem::PrecomputeFactors) instead of two
// exp per node and evaluation.
#ifndef MCF_FACTORS
#define MCF_FACTORS 5
#endif

// The forcing F = ∂t ζ - Q ∇·(∇ζ / Q) that makes (30) a solution of
// ∂t φ = Q ∇·(∇φ / Q) + F, with Q = sqrt(ε² + |∇ζ|²), from
// Q ∇·(∇ζ / Q) = Δζ - (ζx² ζxx + 2 ζx ζy ζxy + ζy² ζyy) / Q² (our derivation:
// [Oberhuber2011] evaluates F from the thesis it cites without printing it),
// at the node whose column and row have the factors a = mcf_factor(x, .., 2)
// and b = mcf_factor(y, .., 2), at the time of c = cos(πt), st = -π sin(πt).
inline REAL mcf_forcing_of(MCF_GLOBAL const REAL * a, MCF_GLOBAL const REAL * b, REAL c, REAL st, REAL eps2)
{
  const REAL zt = st * a[0] * b[0];
  return zt - mcf_exact_curvature(c * a[1] * b[0], c * a[0] * b[1], c * a[2] * b[0], c * a[1] * b[1],
                                  c * a[0] * b[2], eps2);
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

// The arguments of every grid kernel of the flows after its buffers: the
// grid, the scheme's constants and what the exact solutions take (the host
// sets them in this order, DeviceGraphSystem::Launch).
#define MCF_GRID_ARGUMENTS                                                                                             \
  long nx, long ny, REAL ih1, REAL ih2, REAL eps2, REAL t, REAL x0, REAL y0, REAL h1, REAL h2, int k, REAL r, REAL sigma

// The factors of mcf_forcing_of for the n columns (or rows) at x0 + i h:
// MCF_FACTORS values apiece, orders 0..order of mcf_factor.
__kernel void mcf_factors(__global REAL * factors, long n, REAL x0, REAL h, int k, REAL r, REAL sigma, int order)
{
  const long i = get_global_id(0);
  if (i >= n)
    return;
  REAL d[MCF_FACTORS];
  mcf_factor(x0 + i * h, k, r, sigma, order, d);
  for (int m = 0; m < MCF_FACTORS; ++m)
    factors[MCF_FACTORS * i + m] = m <= order ? d[m] : 0;
}

// f = dφ/dt on every node: Q H (+ F, from the factors ax and by of
// mcf_factors) inside, 0 on the boundary, whose values the constraint sets.
__kernel void mcf_rhs(__global const REAL * u, __global REAL * f, __global const REAL * ax, __global const REAL * by,
                      MCF_GRID_ARGUMENTS)
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
  REAL v = mcf_speed_at(u, p, nx, ih1, ih2, eps2);
#if MCF_SOLUTION == 1
  REAL cs[2];
  mcf_time_factors(t, cs);
  v += mcf_forcing_of(ax + MCF_FACTORS * i, by + MCF_FACTORS * j, cs[0], cs[1], eps2);
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
