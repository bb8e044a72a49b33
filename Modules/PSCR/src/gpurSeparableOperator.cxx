// SPDX-License-Identifier: Apache-2.0
#include "gpurSeparableOperator.h"

#include "gpurError.h"
#include "gpurPSCRInternal.h"
#include "gpurSeparableStencil.h"

#include <complex>
#include <string>

namespace gpur
{

template<typename Scalar>
std::size_t
SeparableOperator<Scalar>::Count() const
{
  std::size_t count = axes.empty() ? 0 : 1;
  for (const AxisFactors<Scalar> & axis : axes)
  {
    count *= axis.Size();
  }
  return count;
}

template<typename Scalar>
void
SeparableOperator<Scalar>::Validate() const
{
  if (axes.empty() || axes.size() > 3)
  {
    throw InvalidArgument("separable operator has " + std::to_string(axes.size()) + " axes; 1 to 3 are allowed");
  }
  for (std::size_t d = 0; d < axes.size(); ++d)
  {
    const std::string name = "axis " + std::to_string(d);
    ValidateTridiagonal(axes[d].A, name + " A");
    ValidateTridiagonal(axes[d].M, name + " M");
    if (axes[d].A.Size() != axes[d].M.Size())
    {
      throw InvalidArgument(name + ": A has " + std::to_string(axes[d].A.Size()) + " rows but M has " +
                            std::to_string(axes[d].M.Size()) + "; they must be the same size");
    }
  }
  RequireFiniteScalars(&shift, 1, "separable operator shift c");
}

template<typename Scalar>
void
ApplySeparableTerms(const AxisFactors<Scalar> * axes,
                    unsigned dims,
                    Scalar alpha,
                    Scalar beta,
                    const Scalar * x,
                    Scalar * y,
                    bool subtract,
                    const ParallelForFunction * parallelFor)
{
  const std::size_t nx = axes[0].Size();
  pscr::ForEachRange(parallelFor,
                     pscr::StencilRows(axes, dims),
                     [&](std::size_t r0, std::size_t r1)
                     {
                       pscr::ForEachStencilValue(axes,
                                                 dims,
                                                 alpha,
                                                 beta,
                                                 x,
                                                 r0,
                                                 r1,
                                                 [&](std::size_t row, std::size_t xx, const Scalar & acc)
                                                 {
                                                   Scalar & out = y[row * nx + xx];
                                                   out = subtract ? out - acc : acc;
                                                 });
                     });
}

template<typename Scalar>
void
ApplySeparableOperator(const SeparableOperator<Scalar> & op,
                       const Scalar * x,
                       Scalar * y,
                       const ParallelForFunction & parallelFor)
{
  op.Validate();
  if (x == nullptr || y == nullptr)
  {
    throw InvalidArgument("ApplySeparableOperator: the input or output pointer is null");
  }
  const ParallelForFunction loop = ResolveParallelFor(parallelFor);
  ApplySeparableTerms(op.axes.data(), static_cast<unsigned>(op.axes.size()), op.shift, Scalar(1), x, y, false, &loop);
}

#define GPUR_INSTANTIATE_SEPARABLE(T)                                                                                  \
  template struct SeparableOperator<T>;                                                                                \
  template void ApplySeparableTerms<T>(                                                                                \
    const AxisFactors<T> *, unsigned, T, T, const T *, T *, bool, const ParallelForFunction *);                        \
  template void ApplySeparableOperator<T>(const SeparableOperator<T> &, const T *, T *, const ParallelForFunction &);

GPUR_INSTANTIATE_SEPARABLE(float)
GPUR_INSTANTIATE_SEPARABLE(double)
GPUR_INSTANTIATE_SEPARABLE(std::complex<float>)
GPUR_INSTANTIATE_SEPARABLE(std::complex<double>)

} // namespace gpur
