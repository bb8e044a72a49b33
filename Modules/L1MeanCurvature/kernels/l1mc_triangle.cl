// SPDX-License-Identifier: Apache-2.0
// Sub #1 of the L1-mean-curvature augmented Lagrangian, the per-triangle
// non-convex minimisation [Myllykoski2015a, eqs. (3.17)-(3.25), §4.1,
// Algorithm 2, eq. (4.1)]: functions only, no kernels.
//
// One source for the OpenCL kernels and the CPU reference: the file is written
// in the common subset of OpenCL C and C++ on the scalar type REAL (float or
// double; -DREAL=... in a program, a namespace per type in gpurL1MCTriangle.h).
// Up to Newton's loop it also builds with REAL an OpenCL vector of triangles
// (l1mc_sub1_lanes.cl; the rules of l1mc_newton.cl: no branch on a value,
// masks and ?: only); Newton's loop and the whole-triangle solve are scalar.
// Hence: no pointers (small structs are returned by value), no compound
// literals, every literal cast to REAL (a float program has no double), only
// sqrt / fabs / fmin / fmax / ceil / log2, and no recursion, dynamic memory
// or unbounded loop (every loop has a fixed cap).
//
// On a triangle, with b1 = r1 grad u + lambda1 and b2 = r2 p3 - lambda2, p1 is
// the minimiser of the two-dimensional form (3.20)
//   Phi(y) = (|y|^2 / 2)(r1 + r2 / (1 + |y|^2)) - (b1 + b2 / sqrt(1 + |y|^2)) . y,
// which may have several local minima. A minimiser x is positively collinear
// with b1 + b2 / sqrt(1 + |x|^2) (3.21), so |x| minimises the one-dimensional
// form (3.25)
//   Psi(s) = (s^2 / 2)(r1 + r2 / (1 + s^2)) - s |b1 + b2 / sqrt(1 + s^2)|,  s >= 0,
// and min Phi = min Psi: Psi is the exact global reference.
//
// The solver [Myllykoski2015a, §4.1]: Newton's method on (3.20) from p1^n,
// accepted only when it converged to a local minimum that satisfies (3.21);
// otherwise Algorithm 2 on (3.25); then p1^{n+1} is the best of the Newton
// iterate, the Algorithm 2 point and p1^n for Phi (4.1). On a GPU the two
// halves run as two kernels (l1mc_newton_step over every triangle, the
// failures appended to a work list, then l1mc_fallback over the list) so that
// the rare fallback does not make whole warps wait; the CPU calls l1mc_solve
// (through a vectorised batch, gpurL1MCTriangleBatch.h), and CPU OpenCL drivers
// run Newton's half on vectors (l1mc_sub1_lanes.cl). Requires l1mc_newton.cl
// (Phi, Newton's step and acceptance test).

// Iteration cap of one bisection (a width shrinks by 2^60 > 1e18).
#define L1MC_BISECTION_CAP 60

// b1 + b2 / sqrt(1 + s^2), the direction of the minimiser [Myllykoski2015a, eq. (3.21)].
inline L1MCVec l1mc_direction(REAL s, L1MCVec b1, L1MCVec b2)
{
  const REAL w = (REAL)1 / sqrt((REAL)1 + s * s);
  return l1mc_vec(b1.x + w * b2.x, b1.y + w * b2.y);
}

// Psi(s) [Myllykoski2015a, eq. (3.25)].
inline REAL l1mc_psi(REAL s, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  return (REAL)0.5 * s * s * (r1 + r2 / ((REAL)1 + s * s)) - s * l1mc_norm(l1mc_direction(s, b1, b2));
}

// Psi'(s) = s r1 + s r2 / (1 + s^2)^2 - |c| + s^2 (c.b2) / (|c| (1 + s^2)^{3/2}),
// c = b1 + b2 / sqrt(1 + s^2). Where c = 0 Psi has a concave kink (a local
// maximum, never a minimiser); the guard gives the last term the value 0 there.
inline REAL l1mc_psi_derivative(REAL s, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  const REAL t = (REAL)1 + s * s;
  const REAL w = (REAL)1 / sqrt(t);
  const L1MCVec c = l1mc_vec(b1.x + w * b2.x, b1.y + w * b2.y);
  const REAL cn = l1mc_norm(c);
  const REAL ratio = cn > (REAL)0 ? l1mc_dot(c, b2) / cn : (REAL)0;
  return s * r1 + s * r2 / (t * t) - cn + s * s * w * w * w * ratio;
}

// The point of radius rho on the ray of (3.21): x = rho c / |c| with
// c = b1 + b2 / sqrt(1 + rho^2) [Myllykoski2015a, eqs. (3.21), (3.24)]. Where
// c = 0 every direction gives the same Phi; b1's (else the x axis) is taken.
inline L1MCVec l1mc_point_at_radius(REAL rho, L1MCVec b1, L1MCVec b2)
{
  const L1MCVec ray = l1mc_direction(rho, b1, b2);
  const REAL rayNorm = l1mc_norm(ray);
  const L1MC_MASK useB1 = !(rayNorm > (REAL)0);
  const L1MCVec c = l1mc_vec(useB1 ? b1.x : ray.x, useB1 ? b1.y : ray.y);
  const REAL cn = useB1 ? l1mc_norm(b1) : rayNorm;
  const L1MC_MASK none = !(cn > (REAL)0);
  return l1mc_vec(none ? rho : rho * c.x / cn, none ? (REAL)0 : rho * c.y / cn);
}

// bisection(Psi, [a, b], tolerance) of Algorithm 2 [Myllykoski2015a, §4.1]:
// the paper leaves open what is bisected; here it is the sign of Psi', which
// halves the bracket per evaluation (a golden-section search on Psi needs 1.44
// times as many) and whose limit is a true local minimiser of Psi: the bracket
// keeps Psi'(lo) < 0 <= Psi'(hi). When Psi' >= 0 at a the interval's
// candidate is a, when Psi' <= 0 at b it is b (the neighbouring interval, or
// the last one's bound, holds the minimiser then). The iteration count
// ceil(log2((b - a) / tolerance)) depends only on the interval, so the lanes of
// a GPU warp or of a vector run the same loop for the bounded intervals; a lane
// whose count is reached keeps its bracket (masked) while others go on.
inline REAL l1mc_bisection(REAL a, REAL b, REAL tolerance, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  const REAL da = l1mc_psi_derivative(a, b1, b2, r1, r2);
  const REAL db = l1mc_psi_derivative(b, b1, b2, r1, r2);
  const REAL width = b - a;
  const REAL steps =
    width > tolerance ? fmin(ceil(log2(width / tolerance)), (REAL)L1MC_BISECTION_CAP) : (REAL)0;
  REAL lo = a, hi = b;
  for (int k = 0; k < L1MC_BISECTION_CAP; ++k)
  {
    const L1MC_MASK active = (REAL)k < steps;
    if (!L1MC_ANY(active))
      break;
    const REAL m = (REAL)0.5 * (lo + hi);
    const L1MC_MASK down = l1mc_psi_derivative(m, b1, b2, r1, r2) < (REAL)0;
    lo = (active & down) ? m : lo;
    hi = (active & !down) ? m : hi;
  }
  const REAL inside = (REAL)0.5 * (lo + hi);
  return da >= (REAL)0 ? a : (db <= (REAL)0 ? b : inside);
}

// 2 (|b1| + |b2|) / r1 bounds every minimiser of Psi: Psi(s) >= r1 s^2/2 - s (|b1| + |b2|)
// and Psi(rho) <= Psi(0) = 0.
inline REAL l1mc_radius_bound(L1MCVec b1, L1MCVec b2, REAL r1)
{
  return (REAL)2 * (l1mc_norm(b1) + l1mc_norm(b2)) / r1;
}

// Algorithm 2 of [Myllykoski2015a]: the radius rho of p_bisection. The
// candidates are {0}, a coarse minimiser (tolerance `coarse`, the paper's 1/10)
// in each of [0, 1], [4^{k-1}, 4^k] for k = 1..eta, and [4^eta, R); the best
// of them for Psi, k, is refined on [max(0, k - coarse), k + coarse] to the
// tolerance `fine`. For the unbounded interval the paper moves the right end
// until Psi(R) > Psi(4^eta); here R = max(2 * 4^eta, l1mc_radius_bound), which
// holds every minimiser beyond 4^eta without a search loop.
inline REAL l1mc_algorithm2_radius(L1MCVec b1, L1MCVec b2, REAL r1, REAL r2, int eta, REAL coarse, REAL fine)
{
  REAL best = (REAL)0; // {0}: Psi(0) = 0
  REAL bestValue = (REAL)0;
  REAL a = (REAL)0, b = (REAL)1;
  for (int k = 0; k <= eta + 1; ++k)
  {
    if (k == eta + 1)
      b = fmax((REAL)2 * a, l1mc_radius_bound(b1, b2, r1));
    const REAL s = l1mc_bisection(a, b, coarse, b1, b2, r1, r2);
    const REAL value = l1mc_psi(s, b1, b2, r1, r2);
    const L1MC_MASK better = value < bestValue;
    best = better ? s : best;
    bestValue = better ? value : bestValue;
    a = b;
    b = (REAL)4 * b;
  }
  const REAL refined = l1mc_bisection(fmax((REAL)0, best - coarse), best + coarse, fine, b1, b2, r1, r2);
  return l1mc_psi(refined, b1, b2, r1, r2) <= bestValue ? refined : best;
}

// eq. (4.1) of [Myllykoski2015a]: the candidate of least Phi (the first on a
// tie, NaN never chosen).
inline L1MCVec l1mc_select(L1MCVec first, L1MCVec second, L1MCVec third, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2)
{
  const REAL v1 = l1mc_phi(first, b1, b2, r1, r2);
  const REAL v2 = l1mc_phi(second, b1, b2, r1, r2);
  const L1MC_MASK take2 = (v2 < v1) | !(v1 == v1);
  const REAL bestValue = take2 ? v2 : v1;
  const L1MC_MASK take3 = (l1mc_phi(third, b1, b2, r1, r2) < bestValue) | !(bestValue == bestValue);
  return l1mc_vec(take3 ? third.x : (take2 ? second.x : first.x), take3 ? third.y : (take2 ? second.y : first.y));
}

// The second half on a GPU, for the triangles whose Newton step was not
// accepted: Algorithm 2, then eq. (4.1) over the Newton iterate, the Algorithm
// 2 point and p1^n (`previous`).
inline L1MCVec l1mc_fallback(L1MCVec b1, L1MCVec b2, L1MCVec newton, L1MCVec previous, REAL r1, REAL r2, int eta,
                             REAL coarse, REAL fine)
{
  const REAL rho = l1mc_algorithm2_radius(b1, b2, r1, r2, eta, coarse, fine);
  return l1mc_select(newton, l1mc_point_at_radius(rho, b1, b2), previous, b1, b2, r1, r2);
}

#ifndef L1MC_LANE_REAL
// Newton's method on (3.20) from `start` [Myllykoski2015a, §4.1]: at most maxIterations full steps, stopping when
// l1mc_newton_converged; accepted when it stopped that way at a finite point that passes l1mc_newton_accept. The
// paper gives no tolerance or cap; gpurL1MCTriangle.h holds the defaults and why. The returned point is the last
// iterate (the start when Newton overflowed), which (4.1) still considers.
inline L1MCNewton l1mc_newton(L1MCVec start, L1MCVec b1, L1MCVec b2, REAL r1, REAL r2, REAL tolerance,
                              int maxIterations)
{
  L1MCVec x = start;
  int converged = 0;
  int k = 0;
  for (; k < maxIterations && !converged; ++k)
  {
    const L1MCVec step = l1mc_newton_direction(x, b1, b2, r1, r2);
    x = l1mc_vec(x.x + step.x, x.y + step.y);
    if (!l1mc_finite(x))
      break;
    converged = l1mc_newton_converged(step, x, tolerance);
  }
  L1MCNewton result;
  result.p = l1mc_finite(x) ? x : start;
  result.accepted = 0;
  result.value = (REAL)0;
  result.startValue = (REAL)0;
  if (converged)
    result = l1mc_newton_accept(x, start, b1, b2, r1, r2, tolerance);
  result.iterations = k;
  return result;
}

// The first half on a GPU: Newton from p1^n (`previous`). When accepted, p is
// the new p1 (the better of the Newton point and p1^n, eq. (4.1) without the
// bisection candidate, which is not computed); otherwise p is Newton's last
// iterate, which l1mc_fallback needs. b1 = b2 = 0 gives p1 = 0 (Phi >= 0 = Phi(0)).
inline L1MCNewton l1mc_newton_step(L1MCVec b1, L1MCVec b2, L1MCVec previous, REAL r1, REAL r2, REAL tolerance,
                                   int maxIterations)
{
  if (b1.x == (REAL)0 && b1.y == (REAL)0 && b2.x == (REAL)0 && b2.y == (REAL)0)
  {
    L1MCNewton zero;
    zero.p = l1mc_vec((REAL)0, (REAL)0);
    zero.accepted = 1;
    zero.iterations = 0;
    zero.value = (REAL)0;
    zero.startValue = (REAL)0;
    return zero;
  }
  L1MCNewton n = l1mc_newton(previous, b1, b2, r1, r2, tolerance, maxIterations);
  if (n.accepted && n.startValue < n.value)
    n.p = previous;
  return n;
}

// The whole of Sub #1 on one triangle (the CPU reference): the new p1 in p,
// and whether Newton was accepted.
inline L1MCNewton l1mc_solve(L1MCVec b1, L1MCVec b2, L1MCVec previous, REAL r1, REAL r2, REAL newtonTolerance,
                             int newtonIterations, int eta, REAL coarse, REAL fine)
{
  L1MCNewton n = l1mc_newton_step(b1, b2, previous, r1, r2, newtonTolerance, newtonIterations);
  if (!n.accepted)
    n.p = l1mc_fallback(b1, b2, n.p, previous, r1, r2, eta, coarse, fine);
  return n;
}
#endif
