// SPDX-License-Identifier: Apache-2.0
// Tests of radix-2 BCR on the (D, -I) form ([Myllykoski2015, §3.4.2]): exact
// discrete eigenvectors, random round trips for n1 = 2^k - 1 (k = 1..7) in
// double, float and complex, agreement with PSCR (q = 2 and 4) on the same
// system, the solve count, and the size check.
#include "gpurBCR.h"
#include "gpurError.h"
#include "gpurPSCRSolver.h"
#include "gpurPSCRTesting.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

using gpur::BCRSolver;
using gpur::SymmetricTridiagonal;
using namespace gpur::testing;

namespace
{

const double kPi = std::acos(-1.0);

template<typename T>
SymmetricTridiagonal<T>
FivePoint(std::size_t n2)
{
  return SymmetricTridiagonal<T>{ std::vector<T>(n2, T(4)), std::vector<T>(n2 - 1, T(-1)) };
}

// f_j = D u_j - u_{j-1} - u_{j+1}, written out independently of the solvers.
template<typename T>
std::vector<T>
ApplyBlockForm(const SymmetricTridiagonal<T> & D, std::size_t n1, const std::vector<T> & u)
{
  const std::size_t n2 = D.Size();
  std::vector<T> f(n1 * n2);
  for (std::size_t j = 0; j < n1; ++j)
  {
    for (std::size_t i = 0; i < n2; ++i)
    {
      T v = D.diagonal[i] * u[j * n2 + i];
      if (i > 0)
        v += D.offDiagonal[i - 1] * u[j * n2 + i - 1];
      if (i + 1 < n2)
        v += D.offDiagonal[i] * u[j * n2 + i + 1];
      if (j > 0)
        v -= u[(j - 1) * n2 + i];
      if (j + 1 < n1)
        v -= u[(j + 1) * n2 + i];
      f[j * n2 + i] = v;
    }
  }
  return f;
}

gpur::BCROptions
Serial()
{
  gpur::BCROptions o;
  o.parallelFor = gpur::MakeThreadParallelFor(1);
  return o;
}

// PSCR on the same system: A1 = tridiag(-1, 2, -1), M1 = I, A2 = D - 2I, M2 = I
// ([Myllykoski2015, Remark 3.6]).
template<typename T>
gpur::SeparableOperator<T>
AsSeparable(const SymmetricTridiagonal<T> & D, std::size_t n1)
{
  gpur::AxisFactors<T> x{ D, gpur::MakeIdentityTridiagonal<T>(D.Size()) };
  for (T & d : x.A.diagonal)
    d -= T(2);
  gpur::AxisFactors<T> y{ SymmetricTridiagonal<T>{ std::vector<T>(n1, T(2)), std::vector<T>(n1 - 1, T(-1)) },
                          gpur::MakeIdentityTridiagonal<T>(n1) };
  return gpur::SeparableOperator<T>{ { x, y }, T(0) };
}

} // namespace

// u = sin(p pi j / (n1 + 1)) sin(q pi i / (n2 + 1)) has
// mu = 4 - 2 cos(p pi / (n1 + 1)) - 2 cos(q pi / (n2 + 1)): a discrete
// eigenfunction of the five-point operator of [Myllykoski2015, eq. (3.10)].
TEST(BCR, ExactDiscreteEigenvectors)
{
  const std::size_t n1 = 31, n2 = 20;
  const BCRSolver<double> solver(FivePoint<double>(n2), n1, Serial());
  double worst = 0;
  for (const auto & [p, q] : { std::make_pair(1.0, 1.0), std::make_pair(5.0, 13.0), std::make_pair(31.0, 20.0) })
  {
    const double mu = 4 - 2 * std::cos(p * kPi / (n1 + 1)) - 2 * std::cos(q * kPi / (n2 + 1));
    std::vector<double> u(n1 * n2), f(n1 * n2), x(n1 * n2);
    for (std::size_t j = 0; j < n1; ++j)
      for (std::size_t i = 0; i < n2; ++i)
        u[j * n2 + i] = std::sin(p * kPi * static_cast<double>(j + 1) / (n1 + 1)) *
                        std::sin(q * kPi * static_cast<double>(i + 1) / (n2 + 1));
    for (std::size_t k = 0; k < u.size(); ++k)
      f[k] = mu * u[k];
    solver.Solve(f.data(), x.data());
    const double err = RelativeDifference(x, u);
    worst = std::max(worst, err);
    EXPECT_LE(err, 1e-13) << "mode " << p << ", " << q;
  }
  std::printf("  BCR eigenvector right-hand sides: max error %.2e\n", worst);
}

TEST(BCR, RoundTripsAndAgreementWithPSCR)
{
  const std::size_t n2 = 17;
  double worst = 0, worstAgreement = 0;
  for (unsigned k = 1; k <= 7; ++k)
  {
    const std::size_t n1 = (std::size_t(1) << k) - 1;
    SymmetricTridiagonal<double> D = FivePoint<double>(n2);
    D.diagonal[3] = 4.5; // any symmetric D with a diagonally dominant block system
    const std::vector<double> u0 = RandomVector<double>(n1 * n2, k);
    const std::vector<double> f = ApplyBlockForm(D, n1, u0);
    std::vector<double> u(n1 * n2);
    const BCRSolver<double> bcr(D, n1, Serial());
    bcr.Solve(f.data(), u.data());
    const double err = RelativeDifference(u, u0);
    worst = std::max(worst, err);
    EXPECT_LE(err, 1e-13) << "n1 = " << n1;
    for (unsigned radix : { 2u, 4u })
    {
      gpur::PSCROptions options;
      options.radix = radix;
      options.execution.backend = gpur::Backend::CPU;
      std::vector<double> v(n1 * n2);
      gpur::PSCRSolver<double>(AsSeparable(D, n1), options).Solve(f.data(), v.data());
      const double agreement = RelativeDifference(v, u);
      worstAgreement = std::max(worstAgreement, agreement);
      EXPECT_LE(agreement, 1e-13) << "PSCR q = " << radix << ", n1 = " << n1;
    }
  }
  std::printf("  BCR k = 1..7: max error %.2e, max |BCR - PSCR| / |BCR| %.2e\n", worst, worstAgreement);
}

TEST(BCR, FloatAndComplex)
{
  const std::size_t n1 = 63, n2 = 12;
  const SymmetricTridiagonal<float> Df = FivePoint<float>(n2);
  const std::vector<float> uf = RandomVector<float>(n1 * n2, 2);
  std::vector<float> xf(n1 * n2);
  BCRSolver<float>(Df, n1).Solve(ApplyBlockForm(Df, n1, uf).data(), xf.data());
  EXPECT_LE(RelativeDifference(xf, uf), 1e-5);

  using cd = std::complex<double>;
  SymmetricTridiagonal<cd> Dc = FivePoint<cd>(n2);
  for (cd & d : Dc.diagonal)
    d += cd(0, 0.5); // an absorbing term: complex symmetric
  const std::vector<cd> uc = RandomVector<cd>(n1 * n2, 3);
  std::vector<cd> xc(n1 * n2);
  BCRSolver<cd>(Dc, n1).Solve(ApplyBlockForm(Dc, n1, uc).data(), xc.data());
  EXPECT_LE(RelativeDifference(xc, uc), 1e-13);
}

TEST(BCR, SolveCountAndSizeCheck)
{
  // k = 3: reduction 3 x 1 + 1 x 2 = 5 solves, back substitution 3 levels x 4 = 12.
  EXPECT_EQ(BCRSolver<double>(FivePoint<double>(4), 7).TridiagonalSolveCount(), 17u);
  for (std::size_t bad : { 0, 2, 10, 64 })
  {
    try
    {
      BCRSolver<double> solver(FivePoint<double>(4), bad);
      FAIL() << "n1 = " << bad << " was accepted";
    }
    catch (const gpur::InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find("2^k - 1"), std::string::npos) << e.what();
    }
  }
}
