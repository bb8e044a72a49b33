// SPDX-License-Identifier: Apache-2.0
#include "gpurPSCRResidual.h"

#include "gpurSeparableStencil.h"

namespace gpur
{
namespace pscr
{

namespace
{

// <X e_j, Y e_j> for column j of two symmetric tridiagonal matrices of size n
// (conjugating X: the Hermitian inner product of the columns).
template<typename Wide>
std::complex<double>
ColumnProduct(const std::vector<Wide> & xd,
              const std::vector<Wide> & xo,
              const std::vector<Wide> & yd,
              const std::vector<Wide> & yo,
              std::size_t j)
{
  const std::size_t n = xd.size();
  auto conj = [](const Wide & v)
  {
    if constexpr (IsComplex<Wide>::value)
      return std::conj(v);
    else
      return v;
  };
  Wide sum = conj(xd[j]) * yd[j];
  if (j > 0)
    sum += conj(xo[j - 1]) * yo[j - 1];
  if (j + 1 < n)
    sum += conj(xo[j]) * yo[j];
  return std::complex<double>(sum);
}

} // namespace

template<typename Scalar>
std::vector<std::vector<ColumnGram>>
MakeColumnGram(const std::vector<AxisFactors<Scalar>> & axes, Scalar shift)
{
  using Wide = WideScalar<Scalar>;
  std::vector<std::vector<ColumnGram>> gram(axes.size());
  for (std::size_t d = 0; d < axes.size(); ++d)
  {
    const AxisFactors<Wide> f = CastAxis<Wide>(axes[d]);
    const Wide c = d + 1 == axes.size() ? static_cast<Wide>(shift) : Wide(0);
    std::vector<Wide> sd = f.A.diagonal, so = f.A.offDiagonal;
    for (std::size_t i = 0; i < sd.size(); ++i)
      sd[i] += c * f.M.diagonal[i];
    for (std::size_t i = 0; i < so.size(); ++i)
      so[i] += c * f.M.offDiagonal[i];
    const std::vector<Wide> &md = f.M.diagonal, &mo = f.M.offDiagonal;
    gram[d].resize(sd.size());
    for (std::size_t j = 0; j < sd.size(); ++j)
    {
      ColumnGram & g = gram[d][j];
      g.ss = ColumnProduct(sd, so, sd, so, j).real();
      g.mm = ColumnProduct(md, mo, md, mo, j).real();
      g.sm = ColumnProduct(sd, so, md, mo, j);
    }
  }
  return gram;
}

namespace
{

// The residual sums of rows [r0, r1) into acc, and r when Store. Two
// instantiations: without a store to alias them, the sums stay in registers.
template<bool Store, typename Scalar, typename Final>
void
ResidualRows(const PSCRPlan<Scalar> & plan,
             const std::vector<std::vector<ColumnGram>> & gram,
             const Scalar * rhs,
             const Scalar * u,
             Scalar * r,
             std::size_t r0,
             std::size_t r1,
             double * acc)
{
  using Wide = WideScalar<Scalar>;
  const unsigned dims = static_cast<unsigned>(plan.axes.size());
  const std::size_t nx = plan.axes[0].Size(), ny = plan.axes[1].Size();
  const ColumnGram absent;
  // Two partial sums of each kind (even and odd x), so that consecutive
  // voxels do not wait on one another's additions.
  double residualEven = acc[0], rhsEven = acc[1], floorEven = acc[2];
  double residualOdd = 0, rhsOdd = 0, floorOdd = 0;
  const ColumnGram * gx = gram[0].data();
  ForEachStencilRow(plan.axes.data(),
                    dims,
                    static_cast<Wide>(plan.shift),
                    Wide(1),
                    u,
                    r0,
                    r1,
                    [&](std::size_t row, const Wide * au)
                    {
                      const ColumnGram & gy = gram[1][row % ny];
                      const ColumnGram & gz = dims > 2 ? gram[2][row / ny] : absent;
                      const Scalar * rhsRow = rhs + row * nx;
                      const Scalar * uRow = u + row * nx;
                      auto voxel = [&](std::size_t x, double & residual2, double & rhs2, double & floor2)
                      {
                        const Wide f = static_cast<Wide>(rhsRow[x]);
                        const Wide v = f - au[x];
                        if constexpr (Store)
                          r[row * nx + x] = static_cast<Scalar>(v);
                        residual2 += std::norm(v);
                        rhs2 += std::norm(f);
                        floor2 += ColumnNorm2(gx[x], gy, gz) * RoundingVariance<Final>(uRow[x]);
                      };
                      std::size_t x = 0;
                      for (; x + 1 < nx; x += 2)
                      {
                        voxel(x, residualEven, rhsEven, floorEven);
                        voxel(x + 1, residualOdd, rhsOdd, floorOdd);
                      }
                      if (x < nx)
                        voxel(x, residualEven, rhsEven, floorEven);
                    });
  acc[0] = residualEven + residualOdd;
  acc[1] = rhsEven + rhsOdd;
  acc[2] = floorEven + floorOdd;
}

} // namespace

template<typename Scalar, typename Final>
ResidualSums
ResidualOnCPU(const PSCRPlan<Scalar> & plan,
              const std::vector<std::vector<ColumnGram>> & gram,
              const Scalar * rhs,
              const Scalar * u,
              Scalar * r,
              const ParallelForFunction & loop)
{
  const std::vector<double> sums =
    ParallelSum(loop,
                StencilRows(plan.axes.data(), static_cast<unsigned>(plan.axes.size())),
                3,
                [&](std::size_t r0, std::size_t r1, double * acc)
                {
                  if (r != nullptr)
                    ResidualRows<true, Scalar, Final>(plan, gram, rhs, u, r, r0, r1, acc);
                  else
                    ResidualRows<false, Scalar, Final>(plan, gram, rhs, u, r, r0, r1, acc);
                });
  return { sums[0], sums[1], sums[2] };
}

#define GPUR_INSTANTIATE_PSCR_RESIDUAL(S, F)                                                                           \
  template ResidualSums ResidualOnCPU<S, F>(const PSCRPlan<S> &,                                                       \
                                            const std::vector<std::vector<ColumnGram>> &,                              \
                                            const S *,                                                                 \
                                            const S *,                                                                 \
                                            S *,                                                                       \
                                            const ParallelForFunction &);

template std::vector<std::vector<ColumnGram>>
MakeColumnGram<float>(const std::vector<AxisFactors<float>> &, float);
template std::vector<std::vector<ColumnGram>>
MakeColumnGram<double>(const std::vector<AxisFactors<double>> &, double);
template std::vector<std::vector<ColumnGram>>
MakeColumnGram<std::complex<float>>(const std::vector<AxisFactors<std::complex<float>>> &, std::complex<float>);
template std::vector<std::vector<ColumnGram>>
MakeColumnGram<std::complex<double>>(const std::vector<AxisFactors<std::complex<double>>> &, std::complex<double>);

// Scalar = Final, or the double solve of a float problem (floor for float).
GPUR_INSTANTIATE_PSCR_RESIDUAL(float, float)
GPUR_INSTANTIATE_PSCR_RESIDUAL(double, double)
GPUR_INSTANTIATE_PSCR_RESIDUAL(double, float)
GPUR_INSTANTIATE_PSCR_RESIDUAL(std::complex<float>, std::complex<float>)
GPUR_INSTANTIATE_PSCR_RESIDUAL(std::complex<double>, std::complex<double>)
GPUR_INSTANTIATE_PSCR_RESIDUAL(std::complex<double>, std::complex<float>)

} // namespace pscr
} // namespace gpur
