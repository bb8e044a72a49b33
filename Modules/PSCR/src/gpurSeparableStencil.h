// SPDX-License-Identifier: Apache-2.0
// The stencil of a separable operator, voxel by voxel (internal): the product
// alpha M_z (x) M_y (x) M_x + beta sum_d [A_d on axis d, M elsewhere] at each
// voxel as a sum over its 27 (9 in 2D) neighbours, with the arithmetic done in
// a chosen type. ApplySeparableTerms uses it in the scalar type; the residual
// checks of the solver (gpurPSCRResidual.cxx) in double, so that a float
// solution's residual is not buried under the rounding of its own evaluation.
#ifndef gpurSeparableStencil_h
#define gpurSeparableStencil_h

#include "gpurPSCRInternal.h"
#include "gpurSeparableOperator.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace gpur
{
namespace pscr
{

/**
 * Entries (i, i + o) of A and M of one axis, o in {-1, 0, 1}, converted to
 * Acc; false outside the axis. An absent axis (factors == nullptr, n = 1: M =
 * 1, A = 0) pads 1D and 2D operators to 3D.
 */
template<typename Scalar, typename Acc = Scalar>
struct AxisStencil
{
  std::size_t n = 1;
  const AxisFactors<Scalar> * factors = nullptr;

  bool
  Entries(std::size_t i, int o, Acc & m, Acc & a) const
  {
    if (factors == nullptr)
    {
      m = Acc(1);
      a = Acc(0);
      return o == 0;
    }
    if (o == 0)
    {
      m = static_cast<Acc>(factors->M.diagonal[i]);
      a = static_cast<Acc>(factors->A.diagonal[i]);
      return true;
    }
    if (o < 0)
    {
      if (i == 0)
        return false;
      m = static_cast<Acc>(factors->M.offDiagonal[i - 1]);
      a = static_cast<Acc>(factors->A.offDiagonal[i - 1]);
      return true;
    }
    if (i + 1 >= n)
      return false;
    m = static_cast<Acc>(factors->M.offDiagonal[i]);
    a = static_cast<Acc>(factors->A.offDiagonal[i]);
    return true;
  }
};

/** One neighbouring row of a voxel's stencil: its values and coefficients P, Q (see below). */
template<typename Scalar, typename Acc>
struct StencilTerm
{
  const Scalar * u = nullptr;
  Acc p = Acc(0), q = Acc(0);
};

/** The x factors of each voxel: M and A entries to the left, centre and right. */
template<typename Acc>
struct StencilFactors
{
  const Acc *ml, *mc, *mr, *al, *ac, *ar;
};

/**
 * values[x] for the interior x = 1..nx-2 from N neighbouring rows: one pass,
 * the terms unrolled (N is a constant), each voxel summed in the terms'
 * order; the loop over x vectorises.
 */
template<unsigned N, typename Scalar, typename Acc>
void
StencilInterior(const StencilTerm<Scalar, Acc> * terms, const StencilFactors<Acc> & f, std::size_t nx, Acc * values)
{
  const Scalar * u[N];
  Acc p[N], q[N];
  for (unsigned t = 0; t < N; ++t)
  {
    u[t] = terms[t].u;
    p[t] = terms[t].p;
    q[t] = terms[t].q;
  }
  for (std::size_t x = 1; x + 1 < nx; ++x)
  {
    Acc acc = Acc(0);
    for (unsigned t = 0; t < N; ++t)
    {
      const Acc vl = static_cast<Acc>(u[t][x - 1]), vc = static_cast<Acc>(u[t][x]), vr = static_cast<Acc>(u[t][x + 1]);
      Acc mu = f.ml[x] * vl, au = f.al[x] * vl;
      mu += f.mc[x] * vc;
      au += f.ac[x] * vc;
      mu += f.mr[x] * vr;
      au += f.ar[x] * vr;
      acc += p[t] * mu + q[t] * au;
    }
    values[x] = acc;
  }
}

/** StencilInterior<1>..<9>: entry count - 1 serves count terms. */
template<typename Scalar, typename Acc, std::size_t... N>
constexpr std::array<void (*)(const StencilTerm<Scalar, Acc> *, const StencilFactors<Acc> &, std::size_t, Acc *),
                     sizeof...(N)>
StencilInteriorTable(std::index_sequence<N...>)
{
  return { &StencilInterior<unsigned(N + 1), Scalar, Acc>... };
}

/**
 * Calls visit(row, values) for every row of [r0, r1) (a row is one (z, y)
 * pair, x runs fastest), with values[x] the operator's value at voxel x of
 * that row applied to `input`, accumulated in Acc. The coefficient of
 * neighbour (oz, oy, ox) is alpha mz my mx + beta (az my mx + mz ay mx + mz my
 * ax) = P mx + Q ax with P = alpha mz my + beta (az my + mz ay) and Q = beta
 * mz my, so each neighbouring row adds P (M_x u) + Q (A_x u) of two 3-point
 * sums. Per voxel, the order (oz, oy, then ox = -1, 0, 1) is that of the
 * OpenCL kernels (pscr_apply_coupling, pscr_residual_sums), so both backends
 * round alike; the interior of a row is one branch-free pass over x
 * (StencilInterior), which vectorises.
 */
template<typename Scalar, typename Acc, typename Visit>
void
ForEachStencilRow(const AxisFactors<Scalar> * axes,
                  unsigned dims,
                  Acc alpha,
                  Acc beta,
                  const Scalar * input,
                  std::size_t r0,
                  std::size_t r1,
                  Visit && visit)
{
  std::array<AxisStencil<Scalar, Acc>, 3> s;
  for (unsigned d = 0; d < dims; ++d)
  {
    s[d].n = axes[d].Size();
    s[d].factors = &axes[d];
  }
  const std::size_t nx = s[0].n, ny = s[1].n;
  // The x factors in Acc, and the row being built: one buffer per thread,
  // kept (PSCR's couplings call this for short rows many thousand times per
  // solve); visit must not call back into this function.
  thread_local std::vector<Acc> buffer;
  if (buffer.size() < 7 * nx)
    buffer.resize(7 * nx);
  Acc *ml = buffer.data(), *mc = ml + nx, *mr = mc + nx, *al = mr + nx, *ac = al + nx, *ar = ac + nx, *values = ar + nx;
  for (std::size_t x = 0; x < nx; ++x)
  {
    Acc m, a;
    ml[x] = s[0].Entries(x, -1, m, a) ? m : Acc(0);
    al[x] = s[0].Entries(x, -1, m, a) ? a : Acc(0);
    s[0].Entries(x, 0, mc[x], ac[x]);
    mr[x] = s[0].Entries(x, 1, m, a) ? m : Acc(0);
    ar[x] = s[0].Entries(x, 1, m, a) ? a : Acc(0);
  }
  StencilTerm<Scalar, Acc> terms[9];
  for (std::size_t row = r0; row < r1; ++row)
  {
    const std::size_t z = row / ny, yy = row % ny;
    unsigned count = 0;
    Acc mz, az, my, ay;
    for (int oz = -1; oz <= 1; ++oz)
    {
      if (!s[2].Entries(z, oz, mz, az))
        continue;
      for (int oy = -1; oy <= 1; ++oy)
      {
        if (!s[1].Entries(yy, oy, my, ay))
          continue;
        const Acc p = alpha * mz * my + beta * (az * my + mz * ay), q = beta * mz * my;
        // A neighbouring row with no coefficient (the diagonal neighbours when
        // M is diagonal) would add exactly +0: left out.
        if (p == Acc(0) && q == Acc(0))
          continue;
        terms[count++] = StencilTerm<Scalar, Acc>{ input + ((z + oz) * ny + (yy + oy)) * nx, p, q };
      }
    }
    // The ends, where a neighbour is missing, as Entries has them: the
    // missing term is not added (0 + m v for the first one present).
    auto end = [&](std::size_t x)
    {
      Acc acc = Acc(0);
      for (unsigned t = 0; t < count; ++t)
      {
        Acc mu = Acc(0), au = Acc(0), m, a;
        for (int ox = -1; ox <= 1; ++ox)
        {
          if (!s[0].Entries(x, ox, m, a))
            continue;
          const Acc v = static_cast<Acc>(terms[t].u[x + ox]);
          mu += m * v;
          au += a * v;
        }
        acc += terms[t].p * mu + terms[t].q * au;
      }
      values[x] = acc;
    };
    end(0);
    const StencilFactors<Acc> f{ ml, mc, mr, al, ac, ar };
    if (count > 0)
      StencilInteriorTable<Scalar, Acc>(std::make_index_sequence<9>())[count - 1](terms, f, nx, values);
    else if (nx > 2)
      std::fill(values + 1, values + nx - 1, Acc(0));
    if (nx > 1)
      end(nx - 1);
    visit(row, static_cast<const Acc *>(values));
  }
}

/** Calls visit(row, x, value) for every voxel of the rows [r0, r1) (ForEachStencilRow, voxel by voxel). */
template<typename Scalar, typename Acc, typename Visit>
void
ForEachStencilValue(const AxisFactors<Scalar> * axes,
                    unsigned dims,
                    Acc alpha,
                    Acc beta,
                    const Scalar * input,
                    std::size_t r0,
                    std::size_t r1,
                    Visit && visit)
{
  const std::size_t nx = axes[0].Size();
  ForEachStencilRow(axes,
                    dims,
                    alpha,
                    beta,
                    input,
                    r0,
                    r1,
                    [&](std::size_t row, const Acc * values)
                    {
                      for (std::size_t x = 0; x < nx; ++x)
                        visit(row, x, values[x]);
                    });
}

/** Rows (z, y pairs) of the first `dims` axes. */
template<typename Scalar>
std::size_t
StencilRows(const AxisFactors<Scalar> * axes, unsigned dims)
{
  return (dims > 1 ? axes[1].Size() : 1) * (dims > 2 ? axes[2].Size() : 1);
}

} // namespace pscr
} // namespace gpur

#endif
