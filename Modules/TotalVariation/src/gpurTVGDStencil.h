// SPDX-License-Identifier: Apache-2.0
// CPU twin of the TV-GD stencil of kernels/tv_gd.cl (internal): the same
// formulas in the same order of operations, so the two backends differ only by
// the rounding of exp/sqrt. See gpurTVGradientDescent.h for the discretisation.
#ifndef gpurTVGDStencil_h
#define gpurTVGDStencil_h

#include "gpurFiniteDifference.h"

#include <array>
#include <cmath>
#include <cstddef>

namespace gpur
{

/** The constants of the TV-GD gradient. */
struct TVGDStencilConstants
{
  /** 1 / delta^2 of the AW-TV weights; 0 is plain TV (w = 1 exactly). */
  double inverseDeltaSquared = 0.0;
  /** Added to the (weighted) gradient norm in the flux denominator (TIGRE's 1e-8). */
  double epsilon = 1e-8;
};

/**
 * exp(-x) for x >= 0 from +, -, *, / and floor only, so that the CPU and the
 * OpenCL weights are bit-identical wherever the device rounds those operations
 * correctly (libm's exp and OpenCL's exp differ by an ulp, and AW-TV's fluxes,
 * near-singular where the weights suppress the large differences, amplify that
 * to 4e-3 after 30 float iterations). x = k + r with k = floor(x), r in [0, 1):
 * exp(-r) from its Taylor series in Horner form (degree 11 in float, 17 in
 * double: truncation below the rounding), e^-k = (e^-1)^k by binary powering.
 * Relative error: a few ulps for x < 10, about k ulps beyond; 0 for x >= 1024.
 */
template<typename Real>
inline Real
TVGDExpNeg(Real x)
{
  const int degree = sizeof(Real) == 8 ? 17 : 11;
  if (!(x < Real(1024)))
    return Real(0);
  const Real k = std::floor(x);
  const Real r = x - k;
  Real s = Real(1), e1 = Real(1);
  for (int n = degree; n >= 1; --n)
  {
    s = Real(1) - r / Real(n) * s;
    e1 = Real(1) - Real(1) / Real(n) * e1;
  }
  Real result = s;
  for (unsigned m = static_cast<unsigned>(k); m != 0; m >>= 1)
  {
    if (m & 1u)
      result *= e1;
    e1 *= e1;
  }
  return result;
}

/** phi_d = w_d d_d / (sqrt(sum w_d d_d^2) + eps), w_d = exp(-d_d^2 / delta^2) (1 when inverseDelta2 == 0). */
template<typename Real>
inline std::array<Real, 3>
TVGDFlux(const std::array<Real, 3> & d, Real inverseDelta2, Real eps)
{
  Real wx = Real(1), wy = Real(1), wz = Real(1);
  if (inverseDelta2 > Real(0))
  {
    wx = TVGDExpNeg(d[0] * d[0] * inverseDelta2);
    wy = TVGDExpNeg(d[1] * d[1] * inverseDelta2);
    wz = TVGDExpNeg(d[2] * d[2] * inverseDelta2);
  }
  const Real ax = wx * d[0], ay = wy * d[1], az = wz * d[2];
  const Real denominator = std::sqrt(ax * d[0] + ay * d[1] + az * d[2]) + eps;
  return { { ax / denominator, ay / denominator, az / denominator } };
}

/** du(n) = sum_d (phi_d(n) - phi_d(n + e_d)) / h_d, phi_d(n + e_d) := 0 past the last index. */
template<typename Real>
inline Real
TVGDGradientAt(const Real * u,
               const StencilGeometry<Real> & g,
               Real inverseDelta2,
               Real eps,
               std::size_t x,
               std::size_t y,
               std::size_t z,
               std::size_t i)
{
  const std::array<Real, 3> phi = TVGDFlux(BackwardGradient(u, g, x, y, z, i), inverseDelta2, eps);
  Real ax = phi[0], ay = phi[1], az = phi[2];
  if (x + 1 < g.nx)
    ax -= TVGDFlux(BackwardGradient(u, g, x + 1, y, z, i + 1), inverseDelta2, eps)[0];
  if (y + 1 < g.ny)
    ay -= TVGDFlux(BackwardGradient(u, g, x, y + 1, z, i + g.sy), inverseDelta2, eps)[1];
  if (z + 1 < g.nz)
    az -= TVGDFlux(BackwardGradient(u, g, x, y, z + 1, i + g.sz), inverseDelta2, eps)[2];
  return ax * g.ihx + ay * g.ihy + az * g.ihz;
}

} // namespace gpur

#endif
