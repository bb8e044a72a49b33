// SPDX-License-Identifier: Apache-2.0
// PSCR's kernels for CPU OpenCL drivers, where a work-item runs as one scalar thread: the work of several
// work-items on the lanes of OpenCL vectors.
// - pscr_partial_solves_lanes: the partial solves of a level of axis y, pscr_gather and the Thomas solves along x
//   (pscr_thomas_grouped) fused, PSCR_LANES systems per work-item ([Myllykoski2018, eqs. (2.17) and (2.19)], the
//   systems (A_x + (shift + lambda_{B,l}) M_x) z = rhs(B, l)). Gathered and solved apart, every right-hand side
//   is written to Z and read back, its elimination goes through a workspace as large as Z, and each system's
//   recurrence waits on a scalar division per row. Here a work-item forms the right-hand sides of its systems
//   row by row and eliminates them at once, one vector division per row for all lanes, its workspace (c' and the
//   eliminated right-hand side, 2 S vectors) in local memory, which the driver reuses from work-group to
//   work-group, so it stays in cache; only the solutions reach Z. Per lane the arithmetic is pscr_gather's (the
//   sum in SCALAR, the same terms in the same order, with exact zeros between them) and pscr_thomas_systems'
//   (in WIDE).
// - pscr_block_ends_lanes, pscr_back_update_lanes: the sums over a block's eigenpairs on PSCR_LANES consecutive
//   inner values per work-item.
//
// Compiled with PSCR_LANES (8), PSCR_LANE_SCALAR (double8 or float8: SCALAR's vector), PSCR_LANE_NARROW
// (convert_double8 or convert_float8) for real scalars on devices with fp64 (WIDE = double); the host runs them
// where UsesPSCRLanes (gpurPSCRDevice.h). Requires gpur_common.cl, pscr_scalar.cl and pscr_solve.cl (pscr_block).
#ifdef PSCR_LANES

#define PSCR_LANE_PASTE_(a, b) a##b
#define PSCR_LANE_PASTE(a, b) PSCR_LANE_PASTE_(a, b)
#define PSCR_LANE_LOAD PSCR_LANE_PASTE(vload, PSCR_LANES)
#define PSCR_LANE_STORE PSCR_LANE_PASTE(vstore, PSCR_LANES)
#define PSCR_LANE_WIDEN PSCR_LANE_PASTE(convert_double, PSCR_LANES)

typedef PSCR_LANE_SCALAR pscr_lane_scalar;
typedef PSCR_LANE_PASTE(double, PSCR_LANES) pscr_lane_wide;

// Right-hand-side rows of a block: q - 1 at most, and the plan's radix q is 2 or 4 (BuildPSCRPlan).
#define PSCR_LANE_RHS 3

// Entry i of the shifted x factor part `part` (0: diagonal, 1: off-diagonal) for every lane's shift:
// pscr_shifted's arithmetic.
inline pscr_lane_wide pscr_lane_shifted(__global const SCALAR * f, int n, int part, int i, pscr_lane_wide shift)
{
  return (pscr_lane_wide)pscr_widen(f[part * n + i]) + shift * (pscr_lane_wide)pscr_widen(f[(2 + part) * n + i]);
}

// Blocks one work-item of pscr_partial_solves_lanes may span: eight lanes cover at most eight blocks.
#define PSCR_LANE_BLOCKS PSCR_LANES

// The partial solves first .. first + PSCR_LANES - 1 of the level (8 get_global_id(0), of `jobs`; those past it
// repeat the last and store nothing), problem get_global_id(1): what pscr_gather and pscr_thomas_grouped do for
// them, the solutions into Z. The lanes may span several blocks (a level's first blocks have q - 1 rows): each
// block's right-hand-side rows and couplings are loaded once per row for all lanes and weighted by a vector that
// is zero in the other blocks' lanes, which adds exactly nothing there, so each lane sums its own terms in
// pscr_gather's order. pscr_gather's arguments (S: `inner`, the x axis; innerShifts unused: each lane adds its
// shift itself), then the x factors (F + factorsX, as PSCR_INNER_ARGS); the partial solve `singular` (p jobs + j,
// or -1) drops its last equation and gets 0 there. `work`: 2 S lane vectors. Work-groups of one work-item.
__kernel void pscr_partial_solves_lanes(__global const SCALAR * X,
                                        int n,
                                        long inner,
                                        __global SCALAR * Z,
                                        int jobs,
                                        __global const pscr_block * blocks,
                                        __global const int * jobBlock,
                                        int blockCount,
                                        __global const SCALAR * values,
                                        __global const SCALAR * vectors,
                                        __global const SCALAR * shifts,
                                        __global SCALAR * innerShifts,
                                        __global const SCALAR * V,
                                        int withCouplings,
                                        __global const SCALAR * F,
                                        int factorsX,
                                        long singular,
                                        __local double * work)
{
  const int S = (int)inner, first = PSCR_LANES * (int)get_global_id(0); // the host checks that a block row fits
  const long p = get_global_id(1);
  const int lanes = min(PSCR_LANES, jobs - first), b0 = jobBlock[first];
  const int blockSpan = jobBlock[first + lanes - 1] - b0 + 1;
  __global const SCALAR * fx = F + factorsX;
  __global const SCALAR * Xp = X + p * n * (long)S;
  __global SCALAR * Zp = Z + (p * jobs + first) * (long)S;
  // Per lane: its block (relative to b0), eigenpair, shift and last row (S - 1, or S - 2 for the singular system).
  int laneBlock[PSCR_LANES], laneL[PSCR_LANES];
  double shift[PSCR_LANES], lastRow[PSCR_LANES];
  for (int k = 0; k < PSCR_LANES; ++k)
  {
    const int j = first + min(k, lanes - 1), b = jobBlock[j];
    const pscr_block B = blocks[b];
    laneBlock[k] = b - b0;
    laneL[k] = j - B.job;
    shift[k] = pscr_widen(shifts[p] + values[B.values + laneL[k]]);
    lastRow[k] = p * jobs + j == singular ? S - 2 : S - 1;
  }
  // Per block of the span: its right-hand-side rows, their weights in its lanes, the end couplings likewise (0
  // where the block touches the end of the axis).
  __global const SCALAR * rhsRow[PSCR_LANE_BLOCKS][PSCR_LANE_RHS];
  __global const SCALAR * vRow[PSCR_LANE_BLOCKS];
  pscr_lane_scalar wt[PSCR_LANE_BLOCKS][PSCR_LANE_RHS], wv[PSCR_LANE_BLOCKS][2];
  int rhsCount[PSCR_LANE_BLOCKS];
  for (int kb = 0; kb < blockSpan; ++kb)
  {
    const pscr_block B = blocks[b0 + kb];
    __global const SCALAR * w = vectors + B.vectors;
    rhsCount[kb] = B.rhsCount;
    vRow[kb] = V + (p * blockCount + b0 + kb) * 2 * (long)S;
    SCALAR weight[PSCR_LANE_RHS + 2][PSCR_LANES];
    for (int k = 0; k < PSCR_LANES; ++k)
    {
      const bool mine = laneBlock[k] == kb;
      const int l = laneL[k];
      for (int t = 0; t < PSCR_LANE_RHS; ++t)
        weight[t][k] = mine && t < B.rhsCount ? w[(2 + t) * B.size + l] : 0;
      weight[PSCR_LANE_RHS][k] = mine && B.first > 0 ? w[l] : 0;
      weight[PSCR_LANE_RHS + 1][k] = mine && B.first + B.size < n ? w[B.size + l] : 0;
    }
    for (int t = 0; t < PSCR_LANE_RHS; ++t)
    {
      wt[kb][t] = PSCR_LANE_LOAD(0, weight[t]);
      rhsRow[kb][t] = Xp + (long)(B.rhsFirst + min(t, B.rhsCount - 1) * B.rhsStride) * S;
    }
    wv[kb][0] = PSCR_LANE_LOAD(0, weight[PSCR_LANE_RHS]);
    wv[kb][1] = PSCR_LANE_LOAD(0, weight[PSCR_LANE_RHS + 1]);
  }
  const pscr_lane_wide s = PSCR_LANE_LOAD(0, shift), last = PSCR_LANE_LOAD(0, lastRow);

  // Forward elimination, the right-hand side of row i formed on the way (pscr_gather's sum: the rows, then the
  // couplings in the back substitution).
  pscr_lane_wide c = 0, cp = 0, xw = 0;
  for (int i = 0; i < S; ++i)
  {
    pscr_lane_scalar z = 0;
    for (int kb = 0; kb < blockSpan; ++kb)
      for (int t = 0; t < rhsCount[kb]; ++t)
        z += wt[kb][t] * rhsRow[kb][t][i];
    if (withCouplings)
      for (int kb = 0; kb < blockSpan; ++kb)
      {
        z += wv[kb][0] * vRow[kb][i];
        z += wv[kb][1] * vRow[kb][S + i];
      }
    const pscr_lane_wide a = c; // symmetric: (i, i - 1) = (i - 1, i)
    c = i + 1 < S ? pscr_lane_shifted(fx, S, 1, i, s) : (pscr_lane_wide)0;
    c = (pscr_lane_wide)(double)i < last ? c : (pscr_lane_wide)0;
    const pscr_lane_wide d = pscr_lane_shifted(fx, S, 0, i, s) - a * cp;
    const pscr_lane_wide r = (pscr_lane_wide)1 / d;
    cp = c * r;
    xw = (PSCR_LANE_WIDEN(z) - a * xw) * r;
    PSCR_LANE_STORE(cp, 2 * i, work);
    PSCR_LANE_STORE(xw, 2 * i + 1, work);
  }

  // Back substitution (the singular system's last unknown is 0), the solutions into Z.
  pscr_lane_wide x = 0;
  for (int i = S - 1; i >= 0; --i)
  {
    x = PSCR_LANE_LOAD(2 * i + 1, work) - PSCR_LANE_LOAD(2 * i, work) * x;
    x = (pscr_lane_wide)(double)i <= last ? x : (pscr_lane_wide)0;
    SCALAR out[PSCR_LANES];
    PSCR_LANE_STORE(PSCR_LANE_NARROW(x), 0, out);
    for (int k = 0; k < lanes; ++k)
      Zp[(long)k * S + i] = out[k];
  }
}

// Inner values s0 .. s0 + PSCR_LANES - 1 of row `row` (S values) of a, those at or past S read as 0.
inline pscr_lane_scalar pscr_lane_span(__global const SCALAR * a, long row, int s0, int S)
{
  if (s0 + PSCR_LANES <= S)
    return PSCR_LANE_LOAD(0, a + row * S + s0);
  SCALAR v[PSCR_LANES];
  for (int k = 0; k < PSCR_LANES; ++k)
    v[k] = s0 + k < S ? a[row * S + s0 + k] : 0;
  return PSCR_LANE_LOAD(0, v);
}

// Stores v at inner values s0 .. of row `row` of a, up to S.
inline void pscr_lane_span_store(pscr_lane_scalar v, __global SCALAR * a, long row, int s0, int S)
{
  if (s0 + PSCR_LANES <= S)
  {
    PSCR_LANE_STORE(v, 0, a + row * S + s0);
    return;
  }
  SCALAR out[PSCR_LANES];
  PSCR_LANE_STORE(v, 0, out);
  for (int k = 0; k < PSCR_LANES; ++k)
    if (s0 + k < S)
      a[row * S + s0 + k] = out[k];
}

// pscr_block_ends and pscr_back_update for CPU drivers, with their arguments (S: `inner`): PSCR_LANES consecutive
// inner values per work-item (dimension 0 counts spans of them), so that the sums over a block's eigenpairs read
// the partial solutions row by row. One value per work-item walks its column of Z, a row (S values) apart at each
// eigenpair, which a CPU driver runs as that many cache and TLB misses per value. Same arithmetic per value.
__kernel void pscr_block_ends_lanes(__global const SCALAR * Z,
                                    long inner,
                                    int jobs,
                                    __global const pscr_block * blocks,
                                    int blockCount,
                                    __global const SCALAR * vectors,
                                    __global SCALAR * V)
{
  const int S = (int)inner, s0 = PSCR_LANES * (int)get_global_id(0); // the host checks that a block row fits
  const int b = get_global_id(1);
  const long p = get_global_id(2);
  if (s0 >= S)
    return;
  const pscr_block B = blocks[b];
  __global const SCALAR * w = vectors + B.vectors;
  const long row = p * jobs + B.job;
  pscr_lane_scalar first = 0, last = 0;
  for (int l = 0; l < B.size; ++l)
  {
    const pscr_lane_scalar zl = pscr_lane_span(Z, row + l, s0, S);
    first += w[l] * zl;
    last += w[B.size + l] * zl;
  }
  pscr_lane_span_store(first, V, (p * blockCount + b) * 2, s0, S);
  pscr_lane_span_store(last, V, (p * blockCount + b) * 2 + 1, s0, S);
}

__kernel void pscr_back_update_lanes(__global SCALAR * X,
                                     int n,
                                     long inner,
                                     __global const SCALAR * Z,
                                     int jobs,
                                     __global const pscr_block * blocks,
                                     __global const SCALAR * vectors)
{
  const int S = (int)inner, s0 = PSCR_LANES * (int)get_global_id(0); // the host checks that a block row fits
  const int b = get_global_id(1);
  const long p = get_global_id(2);
  if (s0 >= S)
    return;
  const pscr_block B = blocks[b];
  const long row = p * jobs + B.job;
  // As pscr_back_update: the rows' sums side by side, a block with fewer rows summing its last again.
  __global const SCALAR * w0 = vectors + B.vectors + 2 * B.size;
  __global const SCALAR * w1 = w0 + min(1, B.rhsCount - 1) * B.size;
  __global const SCALAR * w2 = w0 + min(2, B.rhsCount - 1) * B.size;
  pscr_lane_wide u0 = 0, u1 = 0, u2 = 0;
  for (int l = 0; l < B.size; ++l)
  {
    const pscr_lane_wide zl = PSCR_LANE_WIDEN(pscr_lane_span(Z, row + l, s0, S));
    u0 += (double)pscr_widen(w0[l]) * zl;
    u1 += (double)pscr_widen(w1[l]) * zl;
    u2 += (double)pscr_widen(w2[l]) * zl;
  }
  const pscr_lane_wide u[3] = { u0, u1, u2 };
  for (int t = 0; t < B.rhsCount; ++t)
    pscr_lane_span_store(PSCR_LANE_NARROW(u[t]), X, p * n + B.rhsFirst + t * B.rhsStride, s0, S);
}

#endif
