// SPDX-License-Identifier: Apache-2.0
// Separable block-tridiagonal operators ([Myllykoski2015, eqs. (3.1)-(3.2)];
// [Myllykoski2018, eqs. (2.4)-(2.5)]):
//
//   2D:  A = A_y (x) M_x + M_y (x) A_x + c M_y (x) M_x
//   3D:  A = A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x + M_z (x) M_y (x) A_x + c M_z (x) M_y (x) M_x
//
// with symmetric tridiagonal factors A_d, M_d per axis and a scalar shift c
// (c = 0: Poisson; c = -k^2: Helmholtz; complex entries: absorbing terms).
// Arrays are stored as gpur::Grid stores images, x fastest:
// index = (z * ny + y) * nx + x, so axes[0] is x and the Kronecker factor of
// the slowest axis comes first. (The first factor of [Myllykoski2018,
// eq. (2.4)], the direction PSCR reduces, is therefore the slowest axis.)
#ifndef gpurSeparableOperator_h
#define gpurSeparableOperator_h

#include "gpurTridiagonal.h"

#include <cstddef>
#include <vector>

namespace gpur
{

/** The factor matrices of one axis: the "stiffness" A and the "mass" M, both of the axis' size. */
template<typename Scalar>
struct AxisFactors
{
  SymmetricTridiagonal<Scalar> A; ///< the stiffness factor
  SymmetricTridiagonal<Scalar> M; ///< the mass factor (the identity for finite differences)

  /** The axis' size. */
  std::size_t
  Size() const
  {
    return A.Size();
  }
};

/** A separable operator: factors per axis (x first) and the shift c. */
template<typename Scalar>
struct SeparableOperator
{
  std::vector<AxisFactors<Scalar>> axes; ///< 1 to 3 axes, x first
  Scalar shift = Scalar(0);              ///< c: 0 Poisson, > 0 modified Helmholtz, < 0 Helmholtz

  /** Number of unknowns, the product of the axis sizes. */
  std::size_t
  Count() const;

  /**
   * Throws InvalidArgument unless there are 1 to 3 axes, every A and M is a
   * valid symmetric tridiagonal matrix (n >= 1 and n - 1 entries, finite)
   * with A and M of the same size, and the shift is finite.
   */
  void
  Validate() const;
};

/** Converts an axis' factors to another scalar type (double -> float, real -> complex). */
template<typename To, typename From>
AxisFactors<To>
CastAxis(const AxisFactors<From> & axis)
{
  return AxisFactors<To>{ CastTridiagonal<To>(axis.A), CastTridiagonal<To>(axis.M) };
}

/** Converts the factors and the shift to another scalar type (double -> float, real -> complex). */
template<typename To, typename From>
SeparableOperator<To>
CastOperator(const SeparableOperator<From> & op)
{
  SeparableOperator<To> out;
  for (const AxisFactors<From> & axis : op.axes)
  {
    out.axes.push_back(CastAxis<To>(axis));
  }
  out.shift = static_cast<To>(op.shift);
  return out;
}

/**
 * y = (alpha M_{d-1} (x) ... (x) M_0 + beta sum_e [A_e on axis e, M on the others]) x
 * for the first `dims` axes (1 to 3), or y -= that when `subtract`. It is the
 * operator for alpha = c, beta = 1, and the PSCR coupling blocks
 * (A1_rs + c M1_rs) M_inner + M1_rs A_inner for the inner axes (T-hat, T-check,
 * K-hat, K-check of [Myllykoski2018, eqs. (2.16), (2.19)]; in 3D with the inner
 * operator of eq. (2.6)). Rows of the slowest axis run in parallel when
 * `parallelFor` is set.
 */
template<typename Scalar>
void
ApplySeparableTerms(const AxisFactors<Scalar> * axes,
                    unsigned dims,
                    Scalar alpha,
                    Scalar beta,
                    const Scalar * x,
                    Scalar * y,
                    bool subtract,
                    const ParallelForFunction * parallelFor = nullptr);

/** y = A x for the separable operator (validated), x and y of op.Count() entries, not aliased. */
template<typename Scalar>
void
ApplySeparableOperator(const SeparableOperator<Scalar> & op,
                       const Scalar * x,
                       Scalar * y,
                       const ParallelForFunction & parallelFor = ParallelForFunction());

} // namespace gpur

#endif
