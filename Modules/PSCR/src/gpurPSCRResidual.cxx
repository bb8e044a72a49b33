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

// Whether every axis' mass factor is diagonal (finite differences, lumped
// finite elements: every operator of the fast-transform path).
template<typename Scalar>
bool
DiagonalMass(const PSCRPlan<Scalar> & plan)
{
  return std::all_of(plan.axes.begin(),
                     plan.axes.end(),
                     [](const AxisFactors<Scalar> & a)
                     {
                       return std::all_of(a.M.offDiagonal.begin(),
                                          a.M.offDiagonal.end(),
                                          [](const Scalar & v) { return v == Scalar(0); });
                     });
}

// ResidualRows for a real operator whose mass factors are diagonal: the
// stencil has five (2D) or seven (3D) points. Of ForEachStencilRow's terms
// (a neighbouring row's P (M_x u) + Q (A_x u)) only the row's own has a Q,
// the four (two) rows beside it in y and z have P = (their A entry) x (the
// other axis' mass) and M_x u = m_x u, and the diagonal ones none. The
// general stencil spends two 3-point sums on each of nine (three) rows; this
// evaluates the same terms in the same order with the exact zeros left out,
// so it rounds as the general stencil and the OpenCL kernel
// (pscr_residual_sums) do, whose residuals the tests compare; it is one
// branch-free pass per row with the sums.
template<bool Store, bool ThreeD, typename Scalar, typename Final>
void
DiagonalMassResidualRows(const PSCRPlan<Scalar> & plan,
                         const std::vector<std::vector<ColumnGram>> & gram,
                         const Scalar * rhs,
                         const Scalar * u,
                         Scalar * r,
                         std::size_t r0,
                         std::size_t r1,
                         double * acc)
{
  const AxisFactors<Scalar> &ax = plan.axes[0], &ay = plan.axes[1];
  const AxisFactors<Scalar> * az = ThreeD ? &plan.axes[2] : nullptr;
  const std::size_t nx = ax.Size(), ny = ay.Size(), nz = az ? az->Size() : 1;
  const double c = static_cast<double>(plan.shift);
  // The x factors in double, the ends' missing neighbours as zero
  // coefficients, and the floor's x column terms (ColumnNorm2 of a real
  // operator: Re sm only).
  std::vector<double> xf(7 * nx);
  double *mx = xf.data(), *al = mx + nx, *ac = al + nx, *ar = ac + nx, *xss = ar + nx, *xmm = xss + nx, *xsm = xmm + nx;
  for (std::size_t x = 0; x < nx; ++x)
  {
    mx[x] = static_cast<double>(ax.M.diagonal[x]);
    ac[x] = static_cast<double>(ax.A.diagonal[x]);
    al[x] = x > 0 ? static_cast<double>(ax.A.offDiagonal[x - 1]) : 0.0;
    ar[x] = x + 1 < nx ? static_cast<double>(ax.A.offDiagonal[x]) : 0.0;
    xss[x] = gram[0][x].ss;
    xmm[x] = gram[0][x].mm;
    xsm[x] = gram[0][x].sm.real();
  }
  const ColumnGram absent;
  constexpr std::size_t kLanes = 4;
  double residual2[kLanes] = {}, rhs2[kLanes] = {}, floor2[kLanes] = {};
  for (std::size_t row = r0; row < r1; ++row)
  {
    const std::size_t y = row % ny, z = row / ny;
    const double my = static_cast<double>(ay.M.diagonal[y]), ayc = static_cast<double>(ay.A.diagonal[y]);
    const double mz = az ? static_cast<double>(az->M.diagonal[z]) : 1.0;
    const double azc = az ? static_cast<double>(az->A.diagonal[z]) : 0.0;
    // This row's coefficients as ForEachStencilRow forms them (alpha = c, beta = 1).
    const double P = c * mz * my + (azc * my + mz * ayc), Q = mz * my;
    // The neighbouring rows in its order (z - 1, y - 1 | y + 1, z + 1); an
    // absent one adds an exact zero (this row, coefficient 0).
    const Scalar * uc = u + row * nx;
    const Scalar * nb[4] = { uc, uc, uc, uc };
    double pn[4] = { 0, 0, 0, 0 };
    if (az && z > 0)
    {
      nb[0] = uc - nx * ny;
      pn[0] = static_cast<double>(az->A.offDiagonal[z - 1]) * my;
    }
    if (y > 0)
    {
      nb[1] = uc - nx;
      pn[1] = mz * static_cast<double>(ay.A.offDiagonal[y - 1]);
    }
    if (y + 1 < ny)
    {
      nb[2] = uc + nx;
      pn[2] = mz * static_cast<double>(ay.A.offDiagonal[y]);
    }
    if (az && z + 1 < nz)
    {
      nb[3] = uc + nx * ny;
      pn[3] = static_cast<double>(az->A.offDiagonal[z]) * my;
    }
    const ColumnGram & gy = gram[1][y];
    const ColumnGram & gz = ThreeD ? gram[2][z] : absent;
    const double ga = gy.mm * gz.mm;
    const double gb = gy.ss * gz.mm + gy.mm * gz.ss + 2 * gy.sm.real() * gz.sm.real();
    const double gc = 2 * (gy.sm.real() * gz.mm + gz.sm.real() * gy.mm);
    const Scalar * f = rhs + row * nx;
    const Scalar *n0 = nb[0], *n1 = nb[1], *n2 = nb[2], *n3 = nb[3];
    const double p0 = pn[0], p1 = pn[1], p2 = pn[2], p3 = pn[3];
    auto voxel = [&](std::size_t x, double left, double right, std::size_t lane)
    {
      const double v = static_cast<double>(uc[x]), m = mx[x];
      double au = p1 * (m * static_cast<double>(n1[x]));
      if constexpr (ThreeD)
        au = p0 * (m * static_cast<double>(n0[x])) + au;
      au += P * (m * v) + Q * (al[x] * left + ac[x] * v + ar[x] * right);
      au += p2 * (m * static_cast<double>(n2[x]));
      if constexpr (ThreeD)
        au += p3 * (m * static_cast<double>(n3[x]));
      const double fx = static_cast<double>(f[x]);
      const double res = fx - au;
      if constexpr (Store)
        r[row * nx + x] = static_cast<Scalar>(res);
      residual2[lane] += res * res;
      rhs2[lane] += fx * fx;
      floor2[lane] += (xss[x] * ga + xmm[x] * gb + xsm[x] * gc) * RoundingVariance<Final>(uc[x]);
    };
    voxel(0, 0.0, nx > 1 ? static_cast<double>(uc[1]) : 0.0, 0);
    std::size_t x = 1;
    for (; x + kLanes < nx; x += kLanes)
      for (std::size_t lane = 0; lane < kLanes; ++lane)
        voxel(x + lane, static_cast<double>(uc[x + lane - 1]), static_cast<double>(uc[x + lane + 1]), lane);
    for (; x + 1 < nx; ++x)
      voxel(x, static_cast<double>(uc[x - 1]), static_cast<double>(uc[x + 1]), 0);
    if (nx > 1)
      voxel(nx - 1, static_cast<double>(uc[nx - 2]), 0.0, 0);
  }
  for (std::size_t lane = 0; lane < kLanes; ++lane)
  {
    acc[0] += residual2[lane];
    acc[1] += rhs2[lane];
    acc[2] += floor2[lane];
  }
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
  bool diagonalMass = false;
  if constexpr (!IsComplex<Scalar>::value)
    diagonalMass = plan.axes.size() >= 2 && DiagonalMass(plan);
  const std::vector<double> sums =
    ParallelSum(loop,
                StencilRows(plan.axes.data(), static_cast<unsigned>(plan.axes.size())),
                3,
                [&](std::size_t r0, std::size_t r1, double * acc)
                {
                  if constexpr (!IsComplex<Scalar>::value)
                  {
                    if (diagonalMass)
                    {
                      const bool threeD = plan.axes.size() > 2;
                      if (r != nullptr && threeD)
                        DiagonalMassResidualRows<true, true, Scalar, Final>(plan, gram, rhs, u, r, r0, r1, acc);
                      else if (r != nullptr)
                        DiagonalMassResidualRows<true, false, Scalar, Final>(plan, gram, rhs, u, r, r0, r1, acc);
                      else if (threeD)
                        DiagonalMassResidualRows<false, true, Scalar, Final>(plan, gram, rhs, u, r, r0, r1, acc);
                      else
                        DiagonalMassResidualRows<false, false, Scalar, Final>(plan, gram, rhs, u, r, r0, r1, acc);
                      return;
                    }
                  }
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
