// SPDX-License-Identifier: Apache-2.0
// Willmore flow of graphs by complementary finite volumes [Oberhuber2011,
// Scheme 3.2, eqs. (21)-(25), with the edge quantities of eqs. (36)-(53)],
// in double only (see GraphFlowType::Willmore). Follows curvatureflow_mcf.cl
// in the program (its edge gradients, node curvature, exact solutions and
// boundary copies); the CPU reference compiles both as C++
// (src/gpurCurvatureFlowArithmetic.h). Build options as there, WF_NEUMANN
// for the Neumann copies of w (24)-(25).

// dφ/dt = -Q [(G_E,1 - G_W,1)/h1 + (G_N,2 - G_S,2)/h2] at a node, from φ's
// and w's 3x3 neighbourhoods (p* and w*, named as in mcf_edge_gradients),
// with the flux G_e = 𝔼_e ∇w_e - (w̄_e² / 2Q_e³) ∇φ_e at each edge, w̄_e the
// mean of w at the edge's two nodes (51)-(52), ∇w_e the same stencil as ∇φ_e,
// and 𝔼_e = (1/Q_e)(I - ∇φ_e ⊗ ∇φ_e / Q_e²), (1/Q)P at the edge. The printed
// (53) lacks the 1/Q² inside, which is inconsistent with P = I - ∇φ⊗∇φ/Q²
// of eq. (10) and not positive definite for |∇φ| > 1; the printed (21) also
// mixes up its edge subscripts and has the opposite overall sign to (10).
// This form is (10)'s, and with it the scheme reproduces the paper's Table 4
// (our reproduction).
MCF_INLINE REAL wf_speed(REAL pc, REAL pe, REAL pw, REAL pn, REAL ps, REAL pne, REAL pnw, REAL pse, REAL psw, REAL wc,
                     REAL we, REAL ww, REAL wn, REAL ws, REAL wne, REAL wnw, REAL wse, REAL wsw, REAL ih1, REAL ih2,
                     REAL eps2)
{
  REAL g[8], gw[8], q[4];
  mcf_edge_gradients(pc, pe, pw, pn, ps, pne, pnw, pse, psw, ih1, ih2, g);
  mcf_edge_gradients(wc, we, ww, wn, ws, wne, wnw, wse, wsw, ih1, ih2, gw);
  mcf_edge_q(g, eps2, q);
  const REAL wbar[4] = { (wc + we) / 2, (wc + ww) / 2, (wc + wn) / 2, (wc + ws) / 2 };
  REAL flux[4]; // G_E,1, G_W,1, G_N,2, G_S,2
  for (int m = 0; m < 4; ++m)
  {
    const REAL a = g[2 * m], b = g[2 * m + 1], Q = q[m], Q2 = Q * Q, Q3 = Q2 * Q;
    const REAL e12 = -a * b / Q3;
    const REAL lower = wbar[m] * wbar[m] / (2 * Q3);
    if (m < 2)
      flux[m] = (1 - a * a / Q2) / Q * gw[2 * m] + e12 * gw[2 * m + 1] - lower * a;
    else
      flux[m] = e12 * gw[2 * m] + (1 - b * b / Q2) / Q * gw[2 * m + 1] - lower * b;
  }
  return -(q[0] + q[1] + q[2] + q[3]) / 4 * ((flux[0] - flux[1]) * ih1 + (flux[2] - flux[3]) * ih2);
}

// wf_speed at node p of grid functions u and w with rows of nx values.
MCF_INLINE REAL wf_speed_at(MCF_GLOBAL const REAL * u, MCF_GLOBAL const REAL * w, long p, long nx, REAL ih1, REAL ih2,
                        REAL eps2)
{
  return wf_speed(u[p], u[p + 1], u[p - 1], u[p + nx], u[p - nx], u[p + nx + 1], u[p + nx - 1], u[p - nx + 1],
                  u[p - nx - 1], w[p], w[p + 1], w[p - 1], w[p + nx], w[p - nx], w[p + nx + 1], w[p + nx - 1],
                  w[p - nx + 1], w[p - nx - 1], ih1, ih2, eps2);
}

// The exact solution's w = Q H at (t, x, y) for the Dirichlet data of w
// (kind as in mcf_exact; 0 gives eq. (23)'s w = 0, Scherk's surface has w = 0).
inline REAL wf_exact_w(int kind, REAL t, REAL x, REAL y, int k, REAL r, REAL sigma, REAL eps2)
{
  if (kind == 1)
  {
    REAL a[3], b[3];
    mcf_factor(x, k, r, sigma, 2, a);
    mcf_factor(y, k, r, sigma, 2, b);
    const REAL c = cos(MCF_PI * t);
    return mcf_exact_curvature(c * a[1] * b[0], c * a[0] * b[1], c * a[2] * b[0], c * a[1] * b[1], c * a[0] * b[2],
                               eps2);
  }
  if (kind == 4)
    return -2 / sqrt(r * r - x * x - y * y);
  return 0;
}

// Q ∇·((1/Q) P ∇w - (w² / 2Q³) ∇ζ), w = Q ∇·(∇ζ / Q), Q² = e2 + ζx² + ζy²,
// of a function with the derivatives zx ... zyyyy (zxxy = ∂x∂x∂y ζ, ...):
// the operator of [Oberhuber2011, eq. (10)] applied to an exact solution,
// expanded and common subexpressions eliminated by a computer-algebra
// system (sympy's cse), the only change by hand being integer powers
// written as products.
inline REAL wf_operator(REAL zx, REAL zy, REAL zxx, REAL zxy, REAL zyy, REAL zxxx, REAL zxxy, REAL zxyy, REAL zyyy,
                        REAL zxxxx, REAL zxxxy, REAL zxxyy, REAL zxyyy, REAL zyyyy, REAL e2)
{
  const REAL x0 = (zx * zx);
  const REAL x1 = (zy * zy);
  const REAL x2 = e2 + x0 + x1;
  const REAL x3 = sqrt(x2);
  const REAL x4 = 1 / x3;
  const REAL x5 = x4*zxx;
  const REAL x6 = x4*zyy;
  const REAL x7 = zx*zxx;
  const REAL x8 = zxy*zy;
  const REAL x9 = x7 + x8;
  const REAL x10 = -x9;
  const REAL x11 = (1 / (x2 * x3));
  const REAL x12 = x11*zx;
  const REAL x13 = x10*x12;
  const REAL x14 = zx*zxy;
  const REAL x15 = zy*zyy;
  const REAL x16 = x14 + x15;
  const REAL x17 = -x16;
  const REAL x18 = x11*x17;
  const REAL x19 = x18*zy;
  const REAL x20 = x13 + x19 + x5 + x6;
  const REAL x21 = (REAL)0.5*(x20 * x20);
  const REAL x22 = x4*zxxx;
  const REAL x23 = x4*zxyy;
  const REAL x24 = x10*x11;
  const REAL x25 = x18*zxy;
  const REAL x26 = x11*zyy;
  const REAL x27 = x10*x26;
  const REAL x28 = zx*zxxy;
  const REAL x29 = zxx*zxy;
  const REAL x30 = zxy*zyy;
  const REAL x31 = zxyy*zy;
  const REAL x32 = x28 + x29 + x30 + x31;
  const REAL x33 = -x32;
  const REAL x34 = x11*zy;
  const REAL x35 = x33*x34;
  const REAL x36 = x10*zx;
  const REAL x37 = (1 / (x2 * x2 * x3));
  const REAL x38 = -3*x7 - 3*x8;
  const REAL x39 = x37*x38;
  const REAL x40 = x36*x39;
  const REAL x41 = x17*zy;
  const REAL x42 = x39*x41;
  const REAL x43 = (zxx * zxx);
  const REAL x44 = (zxy * zxy);
  const REAL x45 = zx*zxxx;
  const REAL x46 = zxxy*zy;
  const REAL x47 = x43 + x44 + x45 + x46;
  const REAL x48 = -x47;
  const REAL x49 = x12*x48;
  const REAL x50 = x20*x4;
  const REAL x51 = (REAL)0.5*x50;
  const REAL x52 = x4*zxxy;
  const REAL x53 = x4*zyyy;
  const REAL x54 = 2*zxx;
  const REAL x55 = x11*zxy;
  const REAL x56 = x10*x55;
  const REAL x57 = x18*zyy;
  const REAL x58 = x12*x33;
  const REAL x59 = -3*x14 - 3*x15;
  const REAL x60 = x37*x59;
  const REAL x61 = x36*x60;
  const REAL x62 = x41*x60;
  const REAL x63 = (zyy * zyy);
  const REAL x64 = zx*zxyy;
  const REAL x65 = zy*zyyy;
  const REAL x66 = x44 + x63 + x64 + x65;
  const REAL x67 = -x66;
  const REAL x68 = x34*x67;
  const REAL x69 = 1 / x2;
  const REAL x70 = x18*zxx + x52 + x53 + x56 + 2*x57 + x58 + x61 + x62 + x68;
  const REAL x71 = x16*x50 + x3*x70;
  const REAL x72 = x69*x71;
  const REAL x73 = x72*zy;
  const REAL x74 = -x0*x69 + 1;
  const REAL x75 = x22 + x23 + x24*x54 + x25 + x27 + x35 + x40 + x42 + x49;
  const REAL x76 = x3*x75 + x50*x9;
  const REAL x77 = x69*zx;
  const REAL x78 = x77*zy;
  const REAL x79 = -x1*x69 + 1;
  const REAL x80 = (1 / (x2 * x2));
  const REAL x81 = 2*x7;
  const REAL x82 = x80*(-2*x8 - x81);
  const REAL x83 = zx*zy;
  const REAL x84 = x20*x24;
  const REAL x85 = x4*x9;
  const REAL x86 = 3*zxx;
  const REAL x87 = zxxy*zxy;
  const REAL x88 = x18*zxxy;
  const REAL x89 = 2*zxyy;
  const REAL x90 = -x54*zxxy - x89*zxy - zx*zxxxy - zxxx*zxy - zxxy*zyy - zxxyy*zy;
  const REAL x91 = 3*x44;
  const REAL x92 = x37*(-3*x43 - 3*x45 - 3*x46 - x91);
  const REAL x93 = x10*x39;
  const REAL x94 = x39*zx;
  const REAL x95 = x17*x39;
  const REAL x96 = 2*x33;
  const REAL x97 = x39*zy;
  const REAL x98 = (1 / (x2 * x2 * x2 * x3));
  const REAL x99 = x98*(-5*x7 - 5*x8);
  const REAL x100 = x38*x99;
  const REAL x101 = x4*zxxyy + x55*x96;
  const REAL x102 = x60*zxx;
  const REAL x103 = x95*zyy;
  const REAL x104 = x59*x99;
  const REAL x105 = -2*x87 - x89*zyy - zx*zxxyy - zxx*zxyy - zxy*zyyy - zxyyy*zy;
  const REAL x106 = x37*(-3*x28 - 3*x29 - 3*x30 - 3*x31);
  const REAL x107 = x60*zx;
  const REAL x108 = x60*zxy;
  const REAL x109 = x60*zy;
  const REAL x110 = x105*x34 + x106*x36 + x106*x41 + x107*x48 + x108*x17 + x109*x33 + x11*x33*x54 + x12*x90 + x18*x89 + x18*zxxx + 2*x24*zxxy + x24*zyyy + x26*x96 + x33*x94 + x4*zxxxy + x4*zxyyy + x48*x55 + x55*x67 + x67*x97 + x93*zxy;
  const REAL x111 = x16*x4;
  const REAL x112 = x111*x75 + x32*x50 + x70*x85;
  const REAL x113 = 2*x15;
  const REAL x114 = x80*(-x113 - 2*x14);
  const REAL x115 = x18*x20;
  const REAL x116 = 3*zyyy;
  const REAL x117 = x37*(-3*x63 - 3*x64 - 3*x65 - x91);
  const REAL x118 = x60*zyy;
  const REAL x119 = x98*(-5*x14 - 5*x15);
  const REAL x120 = x119*x59;
  const REAL x121 = x119*x38;
  return x3*(x10*x11*(-x73*zx + x74*x76) + x11*x17*(x71*x79 - x76*x78) - x13*x21 - x19*x21 - x21*x5 - x21*x6 + x4*(-x14*x72 - x71*x82*x83 - x73*zxx + x74*(x3*(x100*x36 + x100*x41 + x101 + x11*x48*x86 + x12*(-x86*zxxx - 3*x87 - zx*zxxxx - zxxxy*zy) + x24*x89 + 3*x24*zxxx + x26*x48 + x34*x90 + x36*x92 + x4*zxxxx + x41*x92 + 2*x48*x94 + x86*x93 + x88 + x93*zyy + 2*x95*zxy + x96*x97) + x47*x50 + 2*x75*x85 + x84*x9) + x76*(-x0*x82 - x69*x81) - x78*(x112 + x16*x84 + x3*(x10*x102 + 2*x103 + x104*x36 + x104*x41 + x110 + x95*zxx))) + x4*(-x114*x76*x83 - x69*x76*x8 + x71*(-x1*x114 - x113*x69) - x76*x77*zyy - x78*(x112 + x115*x9 + x3*(x10*x118 + x10*x54*x60 + x103 + x110 + x121*x36 + x121*x41)) + x79*(2*x111*x70 + x115*x16 + x3*(2*x10*x108 + x101 + x102*x17 + x105*x12 + x107*x96 + 2*x109*x67 + x11*x67*zxx + x116*x18 + x117*x36 + x117*x41 + 3*x118*x17 + x120*x36 + x120*x41 + x24*zxyy + 3*x26*x67 + x34*(-x116*zyy - zx*zxyyy - 3*zxy*zxyy - zy*zyyyy) + x4*zyyyy + 2*x88) + x50*x66)) - x51*zx*(2*x22 + 2*x23 + 4*x24*zxx + 2*x25 + 2*x27 + 2*x35 + 2*x40 + 2*x42 + 2*x49) - x51*zy*(x18*x54 + 2*x52 + 2*x53 + 2*x56 + 4*x57 + 2*x58 + 2*x61 + 2*x62 + 2*x68)) ;
}

// The forcing F_W = ∂t ζ + wf_operator(ζ) that makes the manufactured
// solution (30) a solution of ∂t φ = -Q ∇·(...) + F (the paper evaluates it
// from the thesis it cites without printing it), from the factors of
// mcf_factor of orders 0..4 of the node's column (a) and row (b), at the time
// of c = cos(πt), st = -π sin(πt) (see mcf_forcing_of).
inline REAL wf_forcing_of(MCF_GLOBAL const REAL * a, MCF_GLOBAL const REAL * b, REAL c, REAL st, REAL eps2)
{
  const REAL zt = st * a[0] * b[0];
  return zt + wf_operator(c * a[1] * b[0], c * a[0] * b[1], c * a[2] * b[0], c * a[1] * b[1], c * a[0] * b[2],
                          c * a[3] * b[0], c * a[2] * b[1], c * a[1] * b[2], c * a[0] * b[3], c * a[4] * b[0],
                          c * a[3] * b[1], c * a[2] * b[2], c * a[1] * b[3], c * a[0] * b[4], eps2);
}

#ifdef __OPENCL_VERSION__

// w = Q H on every node: the scheme's w (22) inside; on the boundary the
// Neumann copy (24)-(25) of the interior neighbour's w (recomputed there, so
// the kernel needs no second pass) or the Dirichlet value (23) / the exact
// solution's w.
__kernel void wf_curvature(__global const REAL * u, __global REAL * w, MCF_GRID_ARGUMENTS)
{
  const long i = get_global_id(0), j = get_global_id(1);
  if (i >= nx || j >= ny)
    return;
  const bool boundary = i == 0 || j == 0 || i == nx - 1 || j == ny - 1;
#if !MCF_NEUMANN
  if (boundary)
  {
    w[i + nx * j] = wf_exact_w(MCF_SOLUTION, t, x0 + i * h1, y0 + j * h2, k, r, sigma, eps2);
    return;
  }
#endif
  const long p = boundary ? mcf_neumann_source(i, j, nx, ny) : i + nx * j;
  w[i + nx * j] = mcf_speed_at(u, p, nx, ih1, ih2, eps2);
}

// f = dφ/dt: the Willmore speed (+ F_W, from the factors of mcf_factors)
// inside, 0 on the boundary.
__kernel void wf_rhs(__global const REAL * u, __global const REAL * w, __global REAL * f, __global const REAL * ax,
                     __global const REAL * by, MCF_GRID_ARGUMENTS)
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
  REAL v = wf_speed_at(u, w, p, nx, ih1, ih2, eps2);
#if MCF_SOLUTION == 1
  REAL cs[2];
  mcf_time_factors(t, cs);
  v += wf_forcing_of(ax + MCF_FACTORS * i, by + MCF_FACTORS * j, cs[0], cs[1], eps2);
#endif
  f[p] = v;
}

#endif
