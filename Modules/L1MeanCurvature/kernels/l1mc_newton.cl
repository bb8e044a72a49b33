// SPDX-License-Identifier: Apache-2.0
// Newton's half of Sub #1 of the L1-mean-curvature augmented Lagrangian
// [Myllykoski2015a, eqs. (3.17)-(3.21), §4.1]: the form Phi (3.20), its
// derivatives, Newton's step and its acceptance test, and the triangle
// gradients they start from; functions only, no kernels. l1mc_triangle.cl
// states the problem and holds the rest of the solver (Psi, Algorithm 2, the
// choice (4.1), Newton's loop).
//
// One source for three builds: the CPU reference (C++ on float and double,
// gpurL1MCTriangle.h), OpenCL programs on the scalar REAL, and the vectorised
// Newton kernel of CPU drivers (l1mc_sub1_lanes.cl), whose program defines
// L1MC_LANE_REAL (an OpenCL vector of triangles, "lanes", e.g. double8) and
// L1MC_LANE_MASK (its comparison type, long8: each lane 0 or -1). Hence,
// besides the rules of l1mc_triangle.cl: no branch and no loop on a value (a
// vector has no truth value); conditions are L1MC_MASK values combined with
// & | and ! (never ~: a scalar truth is 1, not -1) and used only in ?:, which on
// vectors selects per lane; and no identifier OpenCL C reserves (local, ...).
// L1MC_ANY(mask): whether any lane's mask is set (a uniform loop exit).
#ifdef L1MC_LANE_REAL
#  undef REAL
#  define REAL L1MC_LANE_REAL
#  define L1MC_MASK L1MC_LANE_MASK
#  define L1MC_ANY(mask) any(mask)
#endif
#ifndef L1MC_MASK
#  define L1MC_MASK int
#  define L1MC_ANY(mask) (mask)
#endif
// L1MC_UNROLL: a full-unroll pragma for the loop of l1mc_lanes_steps where the includer has one (GCC needs the
// loop gone to vectorise the CPU reference's loop over lanes around it); none otherwise.
#ifndef L1MC_UNROLL
#  define L1MC_UNROLL
#endif

// A 2-vector (OpenCL's REAL2 is not C++).
typedef struct
{
  REAL x;
  REAL y;
} L1MCVec;

// The symmetric Hessian of Phi.
typedef struct
{
  REAL xx;
  REAL xy;
  REAL yy;
} L1MCSym;

// grad Phi and its Hessian at one point, and w = (1 + |y|^2)^{-1/2} there (Phi and the direction (3.21)
// at the point follow from w without another square root).
typedef struct
{
  L1MCVec g;
  L1MCSym h;
  REAL w;
} L1MCDerivatives;

// What Newton's method gave: the point, whether it passes the acceptance test, the steps taken, and (where it
// converged) Phi at the point and at the start, which the choice (4.1) compares without evaluating them again.
typedef struct
{
  L1MCVec p;
  L1MC_MASK accepted;
  int iterations;
  REAL value;
  REAL startValue;
} L1MCNewton;

// Values at or beyond this magnitude count as overflow (Newton diverging on a
// singular Hessian); no meaningful |p1| or Phi comes near it in either type.
#define L1MC_HUGE ((REAL)1e30)

// At a converged stationary point of Phi, grad Phi = 0 reads
// y (r1 + r2/s^2 + (b2.y)/s^{3/2}) = b1 + b2/sqrt(s), so y is collinear with
// b1 + b2/sqrt(s) up to rounding, either positively (3.21 holds) or negatively
// (it does not, the distance of l1mc_on_ray is then about 2). Any threshold between
// the two separates them; 1e-3 is far above float rounding.
#define L1MC_COLLINEARITY_TOLERANCE ((REAL)1e-3)

inline L1MCVec l1mc_vec(REAL x, REAL y)
{
  L1MCVec v;
  v.x = x;
  v.y = y;
  return v;
}

inline REAL l1mc_dot(L1MCVec a, L1MCVec b)
{
  return a.x * b.x + a.y * b.y;
}

inline REAL l1mc_norm(L1MCVec a)
{
  return sqrt(a.x * a.x + a.y * a.y);
}

inline L1MC_MASK l1mc_finite(L1MCVec a)
{
  // NaN fails both comparisons.
  return (fabs(a.x) < L1MC_HUGE) & (fabs(a.y) < L1MC_HUGE);
}

// Phi(y) [Myllykoski2015a, eq. (3.20)] given w = (1 + |y|^2)^{-1/2}.
inline REAL l1mc_phi_given_w(L1MCVec y, REAL w, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  return (REAL)0.5 * l1mc_dot(y, y) * (r1 + r2 * w * w) - (l1mc_dot(b1, y) + w * l1mc_dot(b2, y));
}

// Phi(y) [Myllykoski2015a, eq. (3.20)].
inline REAL l1mc_phi(L1MCVec y, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  return l1mc_phi_given_w(y, (REAL)1 / sqrt((REAL)1 + l1mc_dot(y, y)), b1, b2, r1, r2);
}

// Differentiating eq. (3.20) of [Myllykoski2015a], with s = 1 + |y|^2 and a = r1 + r2/s^2 + (b2.y)/s^{3/2}:
//   grad Phi(y) = a y - b1 - b2/sqrt(s),
//   Hessian     = a I - (4 r2/s^3 + 3 (b2.y)/s^{5/2}) y y^T + (b2 y^T + y b2^T)/s^{3/2}.
// Together, from one square root and one division (s^{-1/2}; the other powers are its products): Newton's
// step costs about half of evaluating the two apart.
inline L1MCDerivatives l1mc_phi_derivatives(L1MCVec y, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  const REAL s = (REAL)1 + l1mc_dot(y, y);
  const REAL w = (REAL)1 / sqrt(s); // s^{-1/2}
  const REAL is = w * w;            // s^{-1}
  const REAL w3 = w * is;           // s^{-3/2}
  const REAL by = l1mc_dot(b2, y);
  const REAL a = r1 + r2 * is * is + by * w3;
  const REAL outer = (REAL)4 * r2 * is * is * is + (REAL)3 * by * w3 * is;
  L1MCDerivatives d;
  d.g = l1mc_vec(a * y.x - b1.x - w * b2.x, a * y.y - b1.y - w * b2.y);
  d.h.xx = a - outer * y.x * y.x + (REAL)2 * w3 * b2.x * y.x;
  d.h.xy = -outer * y.x * y.y + w3 * (b2.x * y.y + b2.y * y.x);
  d.h.yy = a - outer * y.y * y.y + (REAL)2 * w3 * b2.y * y.y;
  d.w = w;
  return d;
}

// Psi(|b1| / r1), the rival of Newton's point in l1mc_newton, with |b1| / r1 and |c| entering only as
// their squares and product (two square roots where Psi at a given radius takes three).
inline REAL l1mc_psi_at_gradient_radius(L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  const REAL s2 = l1mc_dot(b1, b1) / (r1 * r1);
  const REAL w = (REAL)1 / sqrt((REAL)1 + s2);
  const L1MCVec c = l1mc_vec(b1.x + w * b2.x, b1.y + w * b2.y);
  return (REAL)0.5 * s2 * (r1 + r2 * w * w) - sqrt(s2 * l1mc_dot(c, c));
}

// Whether x lies on the ray of c = b1 + b2 / sqrt(1 + |x|^2) (3.21): the
// relative distance |x/|x| - c/|c|| = sqrt(2 - 2 cos theta) at most
// L1MC_COLLINEARITY_TOLERANCE tau, i.e. cos theta >= 1 - tau^2 / 2, which is
// x.c > 0 and sin^2 theta = cross^2 / (|x|^2 |c|^2) <= tau^2 (1 - tau^2 / 4):
// no square root or division. True at x = 0 (alpha = 0 in (3.21)), false
// where c = 0 and x != 0.
inline L1MC_MASK l1mc_on_ray(L1MCVec x, L1MCVec c)
{
  const REAL xx = l1mc_dot(x, x);
  const REAL cross = x.x * c.y - x.y * c.x;
  const REAL tau2 = L1MC_COLLINEARITY_TOLERANCE * L1MC_COLLINEARITY_TOLERANCE;
  return (xx == (REAL)0) |
         ((l1mc_dot(x, c) > (REAL)0) & (cross * cross <= tau2 * ((REAL)1 - (REAL)0.25 * tau2) * xx * l1mc_dot(c, c)));
}

// Newton's step on (3.20) at x, -H^{-1} grad Phi [Myllykoski2015a, §4.1].
inline L1MCVec l1mc_newton_direction(L1MCVec x, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  const L1MCDerivatives d = l1mc_phi_derivatives(x, b1, b2, r1, r2);
  const REAL inverse = (REAL)1 / (d.h.xx * d.h.yy - d.h.xy * d.h.xy);
  return l1mc_vec((d.h.xy * d.g.y - d.h.yy * d.g.x) * inverse, (d.h.xy * d.g.x - d.h.xx * d.g.y) * inverse);
}

// Whether Newton has converged: the step that led to x is below tolerance * sqrt(2 (1 + |x|^2)), compared squared
// (no square root). That bound is at least tolerance (1 + |x|) ((1 + |x|)^2 <= 2 (1 + |x|^2)) and at most sqrt(2)
// times it: never tighter, as float needs (a tighter bound sends triangles whose steps stall at rounding to the
// fallback), and Newton's quadratic convergence makes the point no less accurate.
inline L1MC_MASK l1mc_newton_converged(L1MCVec step, L1MCVec x, REAL tolerance)
{
  return l1mc_dot(step, step) <= (REAL)2 * tolerance * tolerance * ((REAL)1 + l1mc_dot(x, x));
}

// The acceptance test of Newton's converged, finite point x from `start` [Myllykoski2015a, §4.1]: the Hessian is
// positive definite there (a local minimum), (3.21) holds, and Phi is not above Phi(start) nor above
// Psi(|b1| / r1). A local minimum worse than either (beyond the rounding of Phi, taken as tolerance times its
// size: the start or |b1| / r1 may be the minimiser itself) is not the global one, so the fallback must look
// further: the first guards against a step into a worse basin, the second against the basin near 0 when the
// global minimiser has the length of a gradient (|b1| / r1 minimises the terms of Psi that dominate for large s,
// r1 s^2 / 2 - s |b1|; from p1 = 0, the start of (4.3), Newton would otherwise settle in the basin near 0 on ~3 %
// of the triangles). Every part is evaluated (no branch; a failing part is rare after convergence, so nothing is
// saved by skipping the rest); the one square root of the Hessian at x also gives the direction (3.21) and Phi
// there. The smaller rival by a comparison, not fmin (the same but where one is NaN, which then fails the test).
inline L1MCNewton l1mc_newton_accept(L1MCVec x, L1MCVec start, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2,
                                     REAL tolerance)
{
  const L1MCDerivatives d = l1mc_phi_derivatives(x, b1, b2, r1, r2);
  const L1MC_MASK minimum = (d.h.xx > (REAL)0) & (d.h.xx * d.h.yy - d.h.xy * d.h.xy > (REAL)0);
  const L1MC_MASK onRay = l1mc_on_ray(x, l1mc_vec(b1.x + d.w * b2.x, b1.y + d.w * b2.y));
  L1MCNewton result;
  result.p = x;
  result.iterations = 0;
  result.value = l1mc_phi_given_w(x, d.w, b1, b2, r1, r2);
  result.startValue = l1mc_phi(start, b1, b2, r1, r2);
  const REAL gradientRival = l1mc_psi_at_gradient_radius(b1, b2, r1, r2);
  const REAL rival = result.startValue < gradientRival ? result.startValue : gradientRival;
  result.accepted = minimum & onRay & (result.value <= rival + tolerance * (fabs(result.value) + fabs(rival)));
  return result;
}

// The gradients of a vertex field on the two triangles of a square from its corners u00 (lower left), u10, u01
// and u11: g = (Lx, Ly, Ux, Uy), the lower triangle's then the upper one's (the mesh of gpurL1MCMesh.h).
inline void l1mc_square_gradients(REAL u00, REAL u10, REAL u01, REAL u11, REAL ihx, REAL ihy, REAL g[4])
{
  g[0] = (u10 - u00) * ihx;
  g[1] = (u11 - u10) * ihy;
  g[2] = (u11 - u01) * ihx;
  g[3] = (u01 - u00) * ihy;
}

// Newton on many triangles at once ("lanes": the CPU reference's vectorised batch, whose REAL is a scalar in a
// loop the compiler vectorises, and CPU drivers' kernels, whose REAL is an OpenCL vector): every lane takes the
// same instructions, a converged lane a zero step, so that l1mc_newton's data-dependent loop becomes
// straight-line code. Passes of at most L1MC_LANE_STEPS steps: from the previous p1, Newton converges within 5
// on about 96 % of an image's triangles (3 steps 16 %, 4 steps 66 %, 5 steps 13 %, natural image at 512^2); the
// runs still going continue in a further pass.
#define L1MC_LANE_STEPS 5

// A run of Newton on lanes: the point and whether it has converged.
typedef struct
{
  L1MCVec x;
  L1MC_MASK converged;
} L1MCLaneRun;

// What the run came to (l1mc_lanes_outcome): p, the answer where settled, else Newton's point (the start where
// it overflowed); settled: Newton accepted, or b1 = b2 = 0 (whose minimiser is 0); running: not converged yet.
typedef struct
{
  L1MCVec p;
  L1MC_MASK settled;
  L1MC_MASK running;
} L1MCLanes;

// `steps` (at most L1MC_LANE_STEPS) further steps of l1mc_newton on every lane of the run, with its arithmetic.
inline L1MCLaneRun l1mc_lanes_steps(L1MCLaneRun run, int steps, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2,
                                    REAL tolerance)
{
  L1MC_UNROLL
  for (int k = 0; k < L1MC_LANE_STEPS; ++k)
  {
    const L1MC_MASK active = k < steps ? !run.converged : (L1MC_MASK)0;
    const L1MCVec step = l1mc_newton_direction(run.x, b1, b2, r1, r2);
    const L1MCVec taken = l1mc_vec(active ? step.x : (REAL)0, active ? step.y : (REAL)0);
    run.x = l1mc_vec(run.x.x + taken.x, run.x.y + taken.y);
    run.converged |= active & l1mc_newton_converged(taken, run.x, tolerance);
  }
  return run;
}

// The acceptance test of the run's point against `start` (p1^n) and the choice of l1mc_newton_step (eq. (4.1)
// without the bisection candidate: the better of Newton's point and p1^n), with their arithmetic.
inline L1MCLanes l1mc_lanes_outcome(L1MCLaneRun run, L1MCVec start, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2,
                                    REAL tolerance)
{
  const L1MC_MASK finite = l1mc_finite(run.x);
  const L1MCNewton a = l1mc_newton_accept(run.x, start, b1, b2, r1, r2, tolerance);
  const L1MC_MASK zero = (b1.x == (REAL)0) & (b1.y == (REAL)0) & (b2.x == (REAL)0) & (b2.y == (REAL)0);
  const L1MC_MASK accepted = run.converged & finite & a.accepted;
  const L1MC_MASK keepStart = (accepted & (a.startValue < a.value)) | !finite;
  L1MCLanes r;
  r.p = l1mc_vec(zero ? (REAL)0 : (keepStart ? start.x : run.x.x), zero ? (REAL)0 : (keepStart ? start.y : run.x.y));
  r.settled = zero | accepted;
  r.running = finite & !run.converged;
  return r;
}
