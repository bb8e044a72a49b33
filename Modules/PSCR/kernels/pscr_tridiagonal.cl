// SPDX-License-Identifier: Apache-2.0
// Batched shifted tridiagonal solves ([Myllykoski2015, §3.3]; [Myllykoski2018,
// §3.3]): system p is (A + shifts[p] M) x_p = b_p with one symmetric
// tridiagonal pair A, M of size n and x_p at x + p n, solved in place. These
// are the innermost solves of PSCR ([Myllykoski2018, eqs. (2.17) and (2.19)]),
// many systems with different shifts.
//
// The factors are one array f of 4 n entries: diag A, off A, diag M, off M
// (off[i] = (i, i + 1); the last entry of each off-diagonal is unused).
// `singular` names the system (or -1) whose last equation is dropped and whose
// last unknown is set to 0: the singular system at the end of a null vector's
// path, whose right-hand side is compatible (see gpurPSCRSolver.h).
//
// The eliminations run in WIDE (pscr_scalar.cl: double for float data on
// devices with fp64), as on the CPU (gpur::TridiagonalWork): in float the
// small shift of a nearly singular subproblem is lost in the ulp of the
// diagonal A_ii + shift M_ii. The kernels, the same arithmetic as the CPU
// reference (gpurTridiagonal.cxx):
// - pscr_thomas: one work-item per system (Thomas [Thomas1949]), for many systems.
//   The c' and the forward-eliminated right-hand side go to a workspace
//   interleaved by system, so neighbouring work-items touch neighbouring addresses.
//   pscr_thomas_grouped, for CPU drivers: PSCR_THOMAS_GROUP (set by the host)
//   systems per work-item, side by side.
// - pscr_tridiagonal_local: one work-group per system in local memory, the
//   CR -> PCR -> Thomas hybrid of [Myllykoski2018, §3.3] (its stages C and
//   D): CR while more than crStop rows remain, then pcrSteps PCR steps, then
//   Thomas on the interleaved subsystems, then CR back substitution. CR is
//   (crStop 1, no PCR) and PCR is (no CR, ceil(log2 n) steps).
// Requires gpur_common.cl and pscr_scalar.cl.

// Entry i of the shifted matrix part `part` (0: diagonal, 1: off-diagonal).
inline WIDE pscr_shifted(__global const SCALAR * f, int n, int part, int i, WIDE shift)
{
  return pscr_widen(f[part * n + i]) + pscr_w_mul(shift, pscr_widen(f[(2 + part) * n + i]));
}

// One Thomas elimination step, as the CPU's ThomasStep (gpurTridiagonal.cxx):
// CP = C / D and XO = X / D, real scalars with one division (R = 1 / D, then
// two products; the divisions are the recurrence's bottleneck), complex ones
// with two. D and X are evaluated before CP and XO are written.
#ifdef PSCR_COMPLEX
#define PSCR_THOMAS_STEP(D, C, X, CP, XO)                                                                              \
  {                                                                                                                    \
    const WIDE d_ = (D), x_ = (X);                                                                                     \
    CP = pscr_w_div((C), d_);                                                                                          \
    XO = pscr_w_div(x_, d_);                                                                                           \
  }
#else
#define PSCR_THOMAS_STEP(D, C, X, CP, XO)                                                                              \
  {                                                                                                                    \
    const WIDE r_ = (WIDE)1 / (D), x_ = (X);                                                                           \
    CP = (C) * r_;                                                                                                     \
    XO = x_ * r_;                                                                                                      \
  }
#endif

// Thomas on `group` systems side by side, first, first + 1, ... (those from `count` on skipped; at most
// PSCR_THOMAS_GROUP): per system the arithmetic of one at a time, interleaved row by row. A CPU driver runs a
// work-item as one scalar thread, where one system's recurrence waits on each division; several side by side
// overlap them (gpurTridiagonal.cxx's ThomasInterleaved does the same on the CPU). `group` is a literal at
// each call, so the loops over it unroll.
inline void pscr_thomas_systems(__global SCALAR * x,
                                int n,
                                int count,
                                __global const SCALAR * shifts,
                                __global const SCALAR * f,
                                __global WIDE * work,
                                long singular,
                                int first,
                                int group)
{
  // Row k of system p: c'_k at work[k count + p], the forward-eliminated
  // right-hand side at work[(n + k) count + p].
  __global WIDE * cp = work;
  __global WIDE * xw = work + (long)n * count;
  WIDE shift[PSCR_THOMAS_GROUP], c[PSCR_THOMAS_GROUP], cprev[PSCR_THOMAS_GROUP], xprev[PSCR_THOMAS_GROUP];
  int rows[PSCR_THOMAS_GROUP];
  for (int j = 0; j < group; ++j)
  {
    const int p = first + j;
    rows[j] = p < count ? (p == singular ? n - 1 : n) : 0;
    if (p < count && rows[j] < n)
      x[(long)p * n + n - 1] = 0;
    if (rows[j] == 0)
      continue;
    shift[j] = pscr_widen(shifts[p]);
    c[j] = rows[j] > 1 ? pscr_shifted(f, n, 1, 0, shift[j]) : 0;
    PSCR_THOMAS_STEP(pscr_shifted(f, n, 0, 0, shift[j]), c[j], pscr_widen(x[(long)p * n]), cprev[j], xprev[j]);
    cp[p] = cprev[j];
    xw[p] = xprev[j];
  }
  for (int i = 1; i < n; ++i)
    for (int j = 0; j < group; ++j)
    {
      if (i >= rows[j])
        continue;
      const long p = first + j;
      const WIDE a = c[j]; // symmetric: (i, i - 1) = (i - 1, i)
      c[j] = i + 1 < rows[j] ? pscr_shifted(f, n, 1, i, shift[j]) : 0;
      PSCR_THOMAS_STEP(pscr_shifted(f, n, 0, i, shift[j]) - pscr_w_mul(a, cprev[j]),
                       c[j],
                       pscr_widen(x[p * n + i]) - pscr_w_mul(a, xprev[j]),
                       cprev[j],
                       xprev[j]);
      cp[(long)i * count + p] = cprev[j];
      xw[(long)i * count + p] = xprev[j];
    }
  for (int j = 0; j < group; ++j)
    if (rows[j] > 0)
      x[(long)(first + j) * n + rows[j] - 1] = pscr_narrow(xprev[j]);
  for (int i = n - 1; i-- > 0;)
    for (int j = 0; j < group; ++j)
    {
      if (i + 1 >= rows[j])
        continue;
      const long p = first + j;
      xprev[j] = xw[(long)i * count + p] - pscr_w_mul(cp[(long)i * count + p], xprev[j]);
      x[p * n + i] = pscr_narrow(xprev[j]);
    }
}

// One work-item per system (GPUs: many systems, coalesced workspace).
__kernel void pscr_thomas(__global SCALAR * x,
                          int n,
                          int count,
                          __global const SCALAR * shifts,
                          __global const SCALAR * f,
                          __global WIDE * work,
                          long singular)
{
  pscr_thomas_systems(x, n, count, shifts, f, work, singular, get_global_id(0), 1);
}

// PSCR_THOMAS_GROUP systems per work-item (CPU drivers; see pscr_thomas_systems).
__kernel void pscr_thomas_grouped(__global SCALAR * x,
                                  int n,
                                  int count,
                                  __global const SCALAR * shifts,
                                  __global const SCALAR * f,
                                  __global WIDE * work,
                                  long singular)
{
  pscr_thomas_systems(x, n, count, shifts, f, work, singular, get_global_id(0) * PSCR_THOMAS_GROUP, PSCR_THOMAS_GROUP);
}

// Rows of the local-memory solver: a system of m rows stored at stride st
// (row j at st (j + 1) - 1) in the arrays a, b, c, r (sub-, main, super-diagonal,
// right-hand side); a couples to row j - d, c to row j + d at coupling distance d.
typedef struct
{
  __local WIDE * a;
  __local WIDE * b;
  __local WIDE * c;
  __local WIDE * r;
  int st;
} pscr_rows;

inline int pscr_at(pscr_rows s, int j)
{
  return s.st * (j + 1) - 1;
}

// One PCR step at distance d on m rows from `in` to `out` ([Myllykoski2015,
// eqs. (3.33)-(3.39)]): every row eliminates its neighbours at distance d,
// which doubles it.
inline void pscr_pcr_step(pscr_rows in, pscr_rows out, int m, int d)
{
  for (int j = get_local_id(0); j < m; j += get_local_size(0))
  {
    const int i = pscr_at(in, j);
    WIDE bi = in.b[i], ri = in.r[i], ai = 0, ci = 0;
    if (j >= d)
    {
      const int l = pscr_at(in, j - d);
      const WIDE alpha = pscr_w_div(-in.a[i], in.b[l]);
      ai = pscr_w_mul(alpha, in.a[l]);
      bi += pscr_w_mul(alpha, in.c[l]);
      ri += pscr_w_mul(alpha, in.r[l]);
    }
    if (j + d < m)
    {
      const int h = pscr_at(in, j + d);
      const WIDE beta = pscr_w_div(-in.c[i], in.b[h]);
      ci = pscr_w_mul(beta, in.c[h]);
      bi += pscr_w_mul(beta, in.a[h]);
      ri += pscr_w_mul(beta, in.r[h]);
    }
    const int o = pscr_at(out, j);
    out.a[o] = ai;
    out.b[o] = bi;
    out.c[o] = ci;
    out.r[o] = ri;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Thomas on the d interleaved subsystems j = t, t + d, ... of s (one
// work-item each); c' goes to the a array of `spare` at the same rows.
inline void pscr_thomas_interleaved(pscr_rows s, pscr_rows spare, int m, int d)
{
  for (int t = get_local_id(0); t < min(d, m); t += get_local_size(0))
  {
    int i = pscr_at(s, t);
    PSCR_THOMAS_STEP(s.b[i], s.c[i], s.r[i], spare.a[pscr_at(spare, t)], s.r[i]);
    int prev = t;
    for (int j = t + d; j < m; j += d)
    {
      i = pscr_at(s, j);
      const int ip = pscr_at(s, prev);
      PSCR_THOMAS_STEP(s.b[i] - pscr_w_mul(s.a[i], spare.a[pscr_at(spare, prev)]),
                       s.c[i],
                       s.r[i] - pscr_w_mul(s.a[i], s.r[ip]),
                       spare.a[pscr_at(spare, j)],
                       s.r[i]);
      prev = j;
    }
    for (int j = prev - d; j >= t; j -= d)
      s.r[pscr_at(s, j)] -= pscr_w_mul(spare.a[pscr_at(spare, j)], s.r[pscr_at(s, j + d)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Local memory: 4 (n + remainder) wide scalars, where `remainder` is the most rows
// CR leaves (the host computes it for n and, with a singular system, n - 1).
__kernel void pscr_tridiagonal_local(__global SCALAR * x,
                                     int n,
                                     __global const SCALAR * shifts,
                                     __global const SCALAR * f,
                                     int crStop,
                                     int pcrSteps,
                                     long singular,
                                     int remainder,
                                     __local WIDE * scratch)
{
  const int p = get_group_id(0);
  const int lid = get_local_id(0), wg = get_local_size(0);
  __global SCALAR * xp = x + (long)p * n;
  const WIDE shift = pscr_widen(shifts[p]);
  const int rows = p == singular ? n - 1 : n;
  if (rows < n && lid == 0)
    xp[n - 1] = 0;
  if (rows == 0)
    return;
  // The system in full length (a[i] couples to i - 1, c[i] to i + 1, zero
  // outside), CR reduces it in place: the rows of a level are every st-th.
  pscr_rows sys = { scratch, scratch + n, scratch + 2 * n, scratch + 3 * n, 1 };
  pscr_rows compact = { scratch + 4 * n, scratch + 4 * n + remainder, scratch + 4 * n + 2 * remainder,
                        scratch + 4 * n + 3 * remainder, 1 };
  for (int i = lid; i < rows; i += wg)
  {
    sys.a[i] = i > 0 ? pscr_shifted(f, n, 1, i - 1, shift) : 0;
    sys.b[i] = pscr_shifted(f, n, 0, i, shift);
    sys.c[i] = i + 1 < rows ? pscr_shifted(f, n, 1, i, shift) : 0;
    sys.r[i] = pscr_widen(xp[i]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // CR for arbitrary m ([Myllykoski2018, eqs. (3.3)-(3.4)]): row j of the
  // reduced system is row 2j + 1 of the current one; a missing right neighbour
  // counts as zero. Only the new rows are written, so the eliminated rows keep
  // their level's coefficients for the back substitution.
  int m = rows, levels = 0;
  while (m > crStop && m >= 2)
  {
    const int st = sys.st;
    for (int j = lid; j < m / 2; j += wg)
    {
      const int i = 2 * st * (j + 1) - 1, l = i - st;
      const WIDE alpha = pscr_w_div(-sys.a[i], sys.b[l]);
      WIDE bj = sys.b[i] + pscr_w_mul(alpha, sys.c[l]);
      WIDE rj = sys.r[i] + pscr_w_mul(alpha, sys.r[l]);
      WIDE cj = 0;
      if (2 * j + 2 < m)
      {
        const int h = i + st;
        const WIDE beta = pscr_w_div(-sys.c[i], sys.b[h]);
        cj = pscr_w_mul(beta, sys.c[h]);
        bj += pscr_w_mul(beta, sys.a[h]);
        rj += pscr_w_mul(beta, sys.r[h]);
      }
      sys.a[i] = pscr_w_mul(alpha, sys.a[l]);
      sys.b[i] = bj;
      sys.c[i] = cj;
      sys.r[i] = rj;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    sys.st *= 2;
    m /= 2;
    ++levels;
  }

  // PCR on the remainder, alternating between its rows in place and the
  // compact copy, then Thomas on the 2^steps interleaved subsystems.
  int steps = 0;
  while (steps < pcrSteps && (1 << steps) < m)
    ++steps;
  pscr_rows cur = sys, other = compact;
  int d = 1;
  for (int k = 0; k < steps; ++k, d *= 2)
  {
    pscr_pcr_step(cur, other, m, d);
    const pscr_rows t = cur;
    cur = other;
    other = t;
  }
  pscr_thomas_interleaved(cur, other, m, d);
  if (steps % 2 == 1)
  {
    for (int j = lid; j < m; j += wg)
      sys.r[pscr_at(sys, j)] = compact.r[j];
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // CR back substitution: the even rows of each level from their own equation.
  for (int level = levels - 1; level >= 0; --level)
  {
    const int st = 1 << level, ml = rows >> level;
    for (int j = 2 * lid; j < ml; j += 2 * wg)
    {
      const int i = st * (j + 1) - 1;
      WIDE v = sys.r[i];
      if (j > 0)
        v -= pscr_w_mul(sys.a[i], sys.r[i - st]);
      if (j + 1 < ml)
        v -= pscr_w_mul(sys.c[i], sys.r[i + st]);
      sys.r[i] = pscr_w_div(v, sys.b[i]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = lid; i < rows; i += wg)
    xp[i] = pscr_narrow(sys.r[i]);
}
