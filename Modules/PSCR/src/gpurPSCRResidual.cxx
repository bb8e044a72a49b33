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
  // ColumnNorm2(x, y, z) = x.ss a + x.mm b + Re x.sm c + Im x.sm d, with a..d
  // fixed within a row: the x entries as arrays, the row's four factors once.
  std::vector<double> xg(4 * nx);
  double *xss = xg.data(), *xmm = xss + nx, *xre = xmm + nx, *xim = xre + nx;
  for (std::size_t x = 0; x < nx; ++x)
  {
    const ColumnGram & g = gram[0][x];
    xss[x] = g.ss;
    xmm[x] = g.mm;
    xre[x] = g.sm.real();
    xim[x] = g.sm.imag();
  }
  // kLanes partial sums of each kind (x modulo kLanes): no voxel waits on
  // the previous one's addition, and the lanes vectorise.
  constexpr std::size_t kLanes = 4;
  double residual2[kLanes] = {}, rhs2[kLanes] = {}, floor2[kLanes] = {};
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
                      const double a = gy.mm * gz.mm;
                      const double b =
                        gy.ss * gz.mm + gy.mm * gz.ss + 2 * (gy.sm.real() * gz.sm.real() + gy.sm.imag() * gz.sm.imag());
                      const double c = 2 * (gy.sm.real() * gz.mm + gz.sm.real() * gy.mm);
                      const double d = 2 * (gy.sm.imag() * gz.mm + gz.sm.imag() * gy.mm);
                      const Scalar * rhsRow = rhs + row * nx;
                      const Scalar * uRow = u + row * nx;
                      auto voxel = [&](std::size_t x, std::size_t lane)
                      {
                        const Wide f = static_cast<Wide>(rhsRow[x]);
                        const Wide v = f - au[x];
                        if constexpr (Store)
                          r[row * nx + x] = static_cast<Scalar>(v);
                        residual2[lane] += std::norm(v);
                        rhs2[lane] += std::norm(f);
                        floor2[lane] +=
                          (xss[x] * a + xmm[x] * b + xre[x] * c + xim[x] * d) * RoundingVariance<Final>(uRow[x]);
                      };
                      std::size_t x = 0;
                      for (; x + kLanes <= nx; x += kLanes)
                        for (std::size_t lane = 0; lane < kLanes; ++lane)
                          voxel(x + lane, lane);
                      for (; x < nx; ++x)
                        voxel(x, 0);
                    });
  double sums[3] = { acc[0], acc[1], acc[2] };
  for (std::size_t lane = 0; lane < kLanes; ++lane)
  {
    sums[0] += residual2[lane];
    sums[1] += rhs2[lane];
    sums[2] += floor2[lane];
  }
  acc[0] = sums[0];
  acc[1] = sums[1];
  acc[2] = sums[2];
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
