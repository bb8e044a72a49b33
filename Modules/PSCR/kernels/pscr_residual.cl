// SPDX-License-Identifier: Apache-2.0
// The checks of a PSCR solve (gpurPSCRSolver.h, "Accuracy"; the host side is
// gpurPSCRResidual.h): the residual r = f - A u evaluated in double whatever
// the scalar, its norm, the norm of f and the rounding floor's sum, and the
// refinement update; in the double program of a float solver also the
// conversions between the float data and the double solve. They need fp64:
// the host defines PSCR_CHECKS on devices that have it (the PSCR solver
// requires it; a float tridiagonal solver runs without). Requires
// gpur_common.cl, gpur_reduce.cl, pscr_scalar.cl and pscr_solve.cl (pscr_entries).
#ifdef PSCR_CHECKS

GPUR_DEFINE_GROUP_REDUCTION_OF(sum_double, double, GPUR_ADD)

// ulp(v)^2 / 12 for v rounded to a type of `digits` significand bits: the
// variance of its rounding error (gpur::pscr::RoundingVariance).
inline double pscr_rounding_variance(double v, int digits)
{
  if (v == 0)
    return 0;
  const double ulp = ldexp(1.0, ilogb(v) + 1 - digits);
  return ulp * ulp / 12;
}

// ||A e_j||^2 from the axes' column Gram entries (ss, mm, Re sm, Im sm) at
// x, y, z (gpur::pscr::ColumnNorm2; an absent z axis: g == 0).
inline double pscr_column_norm2(__global const double * gx, __global const double * gy, __global const double * gz)
{
  const double zss = gz ? gz[0] : 0, zmm = gz ? gz[1] : 1, zr = gz ? gz[2] : 0, zi = gz ? gz[3] : 0;
  const double diagonal = gx[0] * gy[1] * zmm + gx[1] * gy[0] * zmm + gx[1] * gy[1] * zss;
  const double cross = (gx[2] * gy[2] + gx[3] * gy[3]) * zmm + (gx[2] * zr + gx[3] * zi) * gy[1] +
                       (gy[2] * zr + gy[3] * zi) * gx[1];
  return diagonal + 2 * cross;
}

// r = f - A u for the whole operator, A = sum_d [A_d on axis d, M elsewhere] +
// c M_z (x) M_y (x) M_x, evaluated in double with the 27-point (9-point in 2D:
// factorsZ < 0, nz = 1) stencil in the order of the CPU's
// ForEachStencilValue (gpurSeparableStencil.h), so both backends round alike;
// r is stored in SCALAR. Per work-group partial sums (grid-stride loop; the
// host adds them): ||r||^2, ||f||^2 and sum_j ||A e_j||^2 ulp(u_j)^2 / 12 for
// u rounded to `floorDigits` bits. The gram array holds 4 doubles per index of
// each axis, at gramX, gramY and gramZ (< 0: absent). The local size must be
// a power of two.
__kernel void pscr_residual_sums(__global const SCALAR * f,
                                 __global const SCALAR * u,
                                 __global SCALAR * r,
                                 SCALAR shift,
                                 __global const SCALAR * F,
                                 int factorsX,
                                 int nx,
                                 int factorsY,
                                 int ny,
                                 int factorsZ,
                                 int nz,
                                 __global const double * gram,
                                 int gramX,
                                 int gramY,
                                 int gramZ,
                                 int floorDigits,
                                 __global double * partials,
                                 __local double * scratch)
{
  __global const SCALAR * fx = F + factorsX;
  __global const SCALAR * fy = F + factorsY;
  __global const SCALAR * fz = factorsZ < 0 ? (__global const SCALAR *)0 : F + factorsZ;
  const WIDE c = pscr_widen(shift);
  const WIDE one = pscr_widen(pscr_scalar(1)); // beta: the operator is c M + sum_d [A_d, M elsewhere]
  const long count = (long)nx * ny * nz;
  double residual2 = 0, rhs2 = 0, floor2 = 0;
  for (long i = get_global_id(0); i < count; i += get_global_size(0))
  {
    const int x = i % nx;
    const long yz = i / nx;
    const int y = yz % ny, z = yz / ny;
    WIDE acc = 0; // grouped by the x entries as on the CPU (ForEachStencilValue)
    for (int oz = -1; oz <= 1; ++oz)
    {
      SCALAR mzs, azs;
      if (!pscr_entries(fz, nz, z, oz, &mzs, &azs))
        continue;
      const WIDE mz = pscr_widen(mzs), az = pscr_widen(azs);
      for (int oy = -1; oy <= 1; ++oy)
      {
        SCALAR mys, ays;
        if (!pscr_entries(fy, ny, y, oy, &mys, &ays))
          continue;
        const WIDE my = pscr_widen(mys), ay = pscr_widen(ays);
        const WIDE p = pscr_w_mul(pscr_w_mul(c, mz), my) + pscr_w_mul(one, pscr_w_mul(az, my) + pscr_w_mul(mz, ay));
        const WIDE q = pscr_w_mul(pscr_w_mul(one, mz), my);
        __global const SCALAR * row = u + ((long)(z + oz) * ny + (y + oy)) * nx;
        WIDE mu = 0, au = 0;
        for (int ox = -1; ox <= 1; ++ox)
        {
          SCALAR mxs, axs;
          if (!pscr_entries(fx, nx, x, ox, &mxs, &axs))
            continue;
          const WIDE v = pscr_widen(row[x + ox]);
          mu += pscr_w_mul(pscr_widen(mxs), v);
          au += pscr_w_mul(pscr_widen(axs), v);
        }
        acc += pscr_w_mul(p, mu) + pscr_w_mul(q, au);
      }
    }
    const WIDE fi = pscr_widen(f[i]);
    const WIDE ri = fi - acc;
    r[i] = pscr_narrow(ri);
    residual2 += pscr_w_norm(ri);
    rhs2 += pscr_w_norm(fi);
    const WIDE ui = pscr_widen(u[i]);
#ifdef PSCR_COMPLEX
    const double variance =
      pscr_rounding_variance(ui.x, floorDigits) + pscr_rounding_variance(ui.y, floorDigits);
#else
    const double variance = pscr_rounding_variance(ui, floorDigits);
#endif
    floor2 += pscr_column_norm2(gram + gramX + 4 * x, gram + gramY + 4 * y, gramZ < 0 ? 0 : gram + gramZ + 4 * z) *
              variance;
  }
  residual2 = gpur_group_sum_double(residual2, scratch);
  rhs2 = gpur_group_sum_double(rhs2, scratch);
  floor2 = gpur_group_sum_double(floor2, scratch);
  if (get_local_id(0) == 0)
  {
    partials[3 * get_group_id(0)] = residual2;
    partials[3 * get_group_id(0) + 1] = rhs2;
    partials[3 * get_group_id(0) + 2] = floor2;
  }
}

// Iterative refinement: u += d, the correction A^-1 (f - A u).
__kernel void pscr_add(__global SCALAR * u, __global const SCALAR * d, long count)
{
  const long i = get_global_id(0);
  if (i < count)
    u[i] += d[i];
}

// The double program of a float solver (-DPSCR_NARROW=float or float2): the
// float data in and the solution out.
#ifdef PSCR_NARROW
__kernel void pscr_widen_data(__global const PSCR_NARROW * in, __global SCALAR * out, long count)
{
  const long i = get_global_id(0);
  if (i < count)
#ifdef PSCR_COMPLEX
    out[i] = convert_double2(in[i]);
#else
    out[i] = (double)in[i];
#endif
}

__kernel void pscr_narrow_data(__global const SCALAR * in, __global PSCR_NARROW * out, long count)
{
  const long i = get_global_id(0);
  if (i < count)
#ifdef PSCR_COMPLEX
    out[i] = convert_float2(in[i]);
#else
    out[i] = (float)in[i];
#endif
}
#endif
#endif // PSCR_CHECKS
