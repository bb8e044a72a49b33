#include "gpurSeparableOperator.h"

#include "gpurError.h"
#include "gpurPSCRInternal.h"

#include <array>
#include <complex>
#include <string>

namespace gpur
{

namespace
{

// Entries (i, i + o) of A and M of one axis, o in {-1, 0, 1}; zero outside.
// An absent axis (size 1, M = 1, A = 0) pads 1D and 2D operators to 3D.
template<typename Scalar>
struct AxisStencil
{
  std::size_t n = 1;
  const AxisFactors<Scalar> * factors = nullptr;

  bool
  Entries(std::size_t i, int o, Scalar & m, Scalar & a) const
  {
    if (factors == nullptr)
    {
      m = Scalar(1);
      a = Scalar(0);
      return o == 0;
    }
    if (o == 0)
    {
      m = factors->M.diagonal[i];
      a = factors->A.diagonal[i];
      return true;
    }
    if (o < 0)
    {
      if (i == 0)
        return false;
      m = factors->M.offDiagonal[i - 1];
      a = factors->A.offDiagonal[i - 1];
      return true;
    }
    if (i + 1 >= n)
      return false;
    m = factors->M.offDiagonal[i];
    a = factors->A.offDiagonal[i];
    return true;
  }
};

} // namespace

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
  std::array<AxisStencil<Scalar>, 3> s;
  for (unsigned d = 0; d < dims; ++d)
  {
    s[d].n = axes[d].Size();
    s[d].factors = &axes[d];
  }
  const std::size_t nx = s[0].n, ny = s[1].n, nz = s[2].n;
  pscr::ForEachRange(parallelFor,
                     nz * ny,
                     [&](std::size_t r0, std::size_t r1)
                     {
                       for (std::size_t row = r0; row < r1; ++row)
                       {
                         const std::size_t z = row / ny, yy = row % ny;
                         for (std::size_t xx = 0; xx < nx; ++xx)
                         {
                           Scalar acc = Scalar(0);
                           Scalar mz, az, my, ay, mx, ax;
                           for (int oz = -1; oz <= 1; ++oz)
                           {
                             if (!s[2].Entries(z, oz, mz, az))
                               continue;
                             for (int oy = -1; oy <= 1; ++oy)
                             {
                               if (!s[1].Entries(yy, oy, my, ay))
                                 continue;
                               const std::size_t base = ((z + oz) * ny + (yy + oy)) * nx + xx;
                               for (int ox = -1; ox <= 1; ++ox)
                               {
                                 if (!s[0].Entries(xx, ox, mx, ax))
                                   continue;
                                 const Scalar coefficient =
                                   alpha * mz * my * mx + beta * (az * my * mx + mz * ay * mx + mz * my * ax);
                                 acc += coefficient * x[base + ox];
                               }
                             }
                           }
                           Scalar & out = y[(z * ny + yy) * nx + xx];
                           out = subtract ? out - acc : acc;
                         }
                       }
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
  const ParallelForFunction loop = pscr::ResolveParallelFor(parallelFor);
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
