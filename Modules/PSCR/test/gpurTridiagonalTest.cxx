// SPDX-License-Identifier: Apache-2.0
// Tests of the batched tridiagonal solvers (Thomas, CR, PCR, CR-PCR-Thomas
// hybrid with several switch points) against a dense solve and each other for
// every size 1..300, batches with different shifts, and the tridiagonal pencil
// eigensolver (closed forms, W^T M W = I, complex Helmholtz pencils).
#include "gpurError.h"
#include "gpurPSCRTesting.h"
#include "gpurSeparableProblems.h"
#include "gpurTridiagonal.h"
#include "gpurTridiagonalEigen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

using gpur::SymmetricTridiagonal;
using gpur::TridiagonalAlgorithm;
using gpur::TridiagonalOptions;
using namespace gpur::testing;

namespace
{

using cd = std::complex<double>;
using cf = std::complex<float>;

const gpur::ParallelForFunction kSerial = gpur::MakeThreadParallelFor(1);

TridiagonalOptions
Options(TridiagonalAlgorithm a, std::size_t crStop = 32, unsigned pcr = 2)
{
  TridiagonalOptions o;
  o.algorithm = a;
  o.crStopSize = crStop;
  o.pcrSteps = pcr;
  return o;
}

// Every algorithm, and hybrids whose switch points fall at many sizes.
std::vector<TridiagonalOptions>
AllConfigurations()
{
  return { Options(TridiagonalAlgorithm::Thomas),       Options(TridiagonalAlgorithm::CR),
           Options(TridiagonalAlgorithm::PCR),          Options(TridiagonalAlgorithm::Hybrid, 32, 2),
           Options(TridiagonalAlgorithm::Hybrid, 1, 0), Options(TridiagonalAlgorithm::Hybrid, 3, 1),
           Options(TridiagonalAlgorithm::Hybrid, 7, 3), Options(TridiagonalAlgorithm::Hybrid, 64, 31) };
}

std::string
Name(const TridiagonalOptions & o)
{
  return std::string(gpur::ToString(o.algorithm)) + "(" + std::to_string(o.crStopSize) + "," +
         std::to_string(o.pcrSteps) + ")";
}

// A random general (nonsymmetric) row-diagonally-dominant system, as arrays
// of the TridiagonalBatch layout.
template<typename T>
struct General
{
  std::vector<T> lower, diagonal, upper;
};

template<typename T>
General<T>
RandomGeneral(std::size_t n, unsigned seed)
{
  General<T> g{ RandomVector<T>(n - 1, seed), RandomVector<T>(n, seed + 1), RandomVector<T>(n - 1, seed + 2) };
  for (std::size_t i = 0; i < n; ++i)
  {
    g.diagonal[i] += T(i % 2 ? 5 : -5); // |b_i| > 5 - sqrt(2) > |a_i| + |c_i| (complex entries too)
  }
  return g;
}

template<typename T>
gpur::testing::Dense<T>
DenseOf(const General<T> & g)
{
  const std::size_t n = g.diagonal.size();
  gpur::testing::Dense<T> d(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    d(i, i) = g.diagonal[i];
    if (i + 1 < n)
    {
      d(i + 1, i) = g.lower[i];
      d(i, i + 1) = g.upper[i];
    }
  }
  return d;
}

template<typename T>
std::vector<T>
Solve(const General<T> & g, std::vector<T> x, const TridiagonalOptions & o)
{
  gpur::TridiagonalBatch<T> batch;
  batch.size = g.diagonal.size();
  batch.count = 1;
  batch.lower = g.lower.data();
  batch.diagonal = g.diagonal.data();
  batch.upper = g.upper.data();
  gpur::SolveTridiagonalBatch(batch, x.data(), o, kSerial);
  return x;
}

template<typename T>
void
CheckAgainstDense(double tolerance)
{
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 40; ++n)
    sizes.push_back(n);
  for (std::size_t n : { 63, 64, 65, 127, 128, 129, 300 })
    sizes.push_back(n);
  double worst = 0;
  for (std::size_t n : sizes)
  {
    const General<T> g = RandomGeneral<T>(n, static_cast<unsigned>(n));
    const std::vector<T> b = RandomVector<T>(n, static_cast<unsigned>(1000 + n));
    const std::vector<T> reference = DenseSolve(DenseOf(g), b);
    for (const TridiagonalOptions & o : AllConfigurations())
    {
      const double err = RelativeDifference(Solve(g, b, o), reference);
      worst = std::max(worst, err);
      ASSERT_LE(err, tolerance) << Name(o) << " n = " << n;
    }
  }
  std::printf("  max relative error vs dense solve: %.2e\n", worst);
}

} // namespace

TEST(Tridiagonal, EveryAlgorithmMatchesADenseSolve)
{
  CheckAgainstDense<double>(1e-13);
  CheckAgainstDense<cd>(1e-13);
  CheckAgainstDense<float>(2e-6);
}

// Sizes 1..300, so that every CR remainder and PCR split occurs: all
// configurations agree with Thomas, and the residual is at rounding level.
TEST(Tridiagonal, EverySizeFrom1To300AgreesWithThomas)
{
  double worstDouble = 0, worstFloat = 0, worstResidual = 0;
  for (std::size_t n = 1; n <= 300; ++n)
  {
    const General<double> g = RandomGeneral<double>(n, static_cast<unsigned>(7 * n));
    const std::vector<double> b = RandomVector<double>(n, static_cast<unsigned>(3 * n + 1));
    const std::vector<double> thomas = Solve(g, b, Options(TridiagonalAlgorithm::Thomas));
    // residual of Thomas itself
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      r[i] = g.diagonal[i] * thomas[i] - b[i];
      if (i > 0)
        r[i] += g.lower[i - 1] * thomas[i - 1];
      if (i + 1 < n)
        r[i] += g.upper[i] * thomas[i + 1];
    }
    worstResidual = std::max(worstResidual, Norm(r) / Norm(b));
    const General<float> gf{ std::vector<float>(g.lower.begin(), g.lower.end()),
                             std::vector<float>(g.diagonal.begin(), g.diagonal.end()),
                             std::vector<float>(g.upper.begin(), g.upper.end()) };
    const std::vector<float> bf(b.begin(), b.end());
    for (const TridiagonalOptions & o : AllConfigurations())
    {
      const double ed = RelativeDifference(Solve(g, b, o), thomas);
      const double ef = RelativeDifference(Solve(gf, bf, o), thomas);
      worstDouble = std::max(worstDouble, ed);
      worstFloat = std::max(worstFloat, ef);
      ASSERT_LE(ed, 1e-13) << Name(o) << " n = " << n;
      ASSERT_LE(ef, 2e-6) << Name(o) << " float, n = " << n;
    }
  }
  EXPECT_LE(worstResidual, 1e-15);
  std::printf("  Thomas residual <= %.2e; max difference to Thomas: double %.2e, float %.2e\n",
              worstResidual,
              worstDouble,
              worstFloat);
}

// The PSCR form: one pair (A, M) and a different shift per system, solved as a
// batch, each system checked against its own dense solve. Mesh steps ~1 and
// positive shifts keep the systems well conditioned, so float is tested at 1e-4.
template<typename T>
void
CheckShiftedBatch(double tolerance)
{
  const std::size_t n = 97, count = 23;
  const gpur::AxisFactors<double> f = gpur::MakeP1Axis(RandomMesh(n, static_cast<double>(n), 5),
                                                       gpur::BoundaryCondition::Dirichlet,
                                                       gpur::BoundaryCondition::Neumann,
                                                       gpur::MassMatrix::Consistent);
  const SymmetricTridiagonal<T> A = gpur::CastTridiagonal<T>(f.A), M = gpur::CastTridiagonal<T>(f.M);
  std::vector<T> shifts(count);
  for (std::size_t k = 0; k < count; ++k)
    shifts[k] = static_cast<T>(0.37 * static_cast<double>(k) + 0.5); // condition number < 30
  const std::vector<T> b = RandomVector<T>(n * count, 11);
  std::vector<std::vector<T>> references;
  for (std::size_t k = 0; k < count; ++k)
  {
    gpur::testing::Dense<T> d = ToDense(A);
    const gpur::testing::Dense<T> m = ToDense(M);
    for (std::size_t i = 0; i < d.a.size(); ++i)
      d.a[i] += shifts[k] * m.a[i];
    references.push_back(DenseSolve(d, std::vector<T>(b.begin() + k * n, b.begin() + (k + 1) * n)));
  }
  for (const TridiagonalOptions & o : AllConfigurations())
  {
    std::vector<T> x = b;
    gpur::SolveShiftedTridiagonalBatch(A, M, shifts.data(), count, x.data(), o);
    for (std::size_t k = 0; k < count; ++k)
    {
      const std::vector<T> xk(x.begin() + k * n, x.begin() + (k + 1) * n);
      ASSERT_LE(RelativeDifference(xk, references[k]), tolerance) << Name(o) << " system " << k;
    }
  }
}

TEST(Tridiagonal, ShiftedBatchMatchesDenseSolves)
{
  CheckShiftedBatch<double>(1e-12);
  CheckShiftedBatch<cd>(1e-12);
  CheckShiftedBatch<float>(1e-4);
  CheckShiftedBatch<cf>(1e-4);
}

// The grouped shifted solves (PSCR's partial solves; Thomas runs eight side
// by side) give the one-by-one solves' results bit for bit, for counts that
// leave a remainder, sizes 1, 2 and 61, every precision.
template<typename T>
void
CheckShiftedGroup()
{
  for (const std::size_t n : { std::size_t(1), std::size_t(2), std::size_t(61) })
  {
    const gpur::AxisFactors<double> f = gpur::MakeP1Axis(RandomMesh(n + 1, static_cast<double>(n), 3),
                                                         gpur::BoundaryCondition::Dirichlet,
                                                         gpur::BoundaryCondition::Dirichlet,
                                                         gpur::MassMatrix::Consistent);
    const SymmetricTridiagonal<T> A = gpur::CastTridiagonal<T>(f.A), M = gpur::CastTridiagonal<T>(f.M);
    const std::size_t count = 19;
    std::vector<T> shifts(count);
    for (std::size_t k = 0; k < count; ++k)
      shifts[k] = static_cast<T>(0.29 * static_cast<double>(k) + 0.25);
    const std::vector<T> b = RandomVector<T>(n * count, 17);
    for (const TridiagonalOptions & o : AllConfigurations())
    {
      std::vector<T> grouped = b, single = b;
      std::vector<T *> rows(count);
      std::vector<gpur::TridiagonalWork<T>> work;
      for (std::size_t k = 0; k < count; ++k)
      {
        rows[k] = grouped.data() + k * n;
        gpur::SolveShiftedTridiagonalUnchecked(A, M, shifts[k], n, single.data() + k * n, o, work);
      }
      gpur::SolveShiftedTridiagonalGroupUnchecked(A, M, shifts.data(), count, rows.data(), o, work);
      EXPECT_EQ(grouped, single) << Name(o) << ", n = " << n;
    }
  }
}

TEST(Tridiagonal, GroupedShiftedSolvesEqualOneByOne)
{
  CheckShiftedGroup<double>();
  CheckShiftedGroup<float>();
  CheckShiftedGroup<cd>();
  CheckShiftedGroup<cf>();
}

TEST(Tridiagonal, BatchWithPerSystemAndSharedCoefficients)
{
  const std::size_t n = 45, count = 9;
  std::vector<double> lower, diagonal, upper;
  for (std::size_t k = 0; k < count; ++k)
  {
    const General<double> g = RandomGeneral<double>(n, static_cast<unsigned>(50 + k));
    lower.insert(lower.end(), g.lower.begin(), g.lower.end());
    diagonal.insert(diagonal.end(), g.diagonal.begin(), g.diagonal.end());
    upper.insert(upper.end(), g.upper.begin(), g.upper.end());
  }
  const std::vector<double> b = RandomVector<double>(n * count, 77);
  for (bool shared : { false, true })
  {
    gpur::TridiagonalBatch<double> batch{ n, count, lower.data(), diagonal.data(), upper.data(), shared };
    std::vector<double> x = b;
    gpur::SolveTridiagonalBatch(batch, x.data(), Options(TridiagonalAlgorithm::Hybrid, 5, 2));
    for (std::size_t k = 0; k < count; ++k)
    {
      const std::size_t set = shared ? 0 : k;
      const General<double> g{ std::vector<double>(lower.begin() + set * (n - 1), lower.begin() + (set + 1) * (n - 1)),
                               std::vector<double>(diagonal.begin() + set * n, diagonal.begin() + (set + 1) * n),
                               std::vector<double>(upper.begin() + set * (n - 1),
                                                   upper.begin() + (set + 1) * (n - 1)) };
      const std::vector<double> bk(b.begin() + k * n, b.begin() + (k + 1) * n);
      const std::vector<double> xk(x.begin() + k * n, x.begin() + (k + 1) * n);
      EXPECT_LE(RelativeDifference(xk, DenseSolve(DenseOf(g), bk)), 1e-13) << "shared " << shared << " k " << k;
    }
  }
}

TEST(Tridiagonal, RejectsBadInput)
{
  const SymmetricTridiagonal<double> A{ { 2, 2, 2 }, { -1, -1 } };
  const SymmetricTridiagonal<double> M = gpur::MakeIdentityTridiagonal<double>(3);
  std::vector<double> x(3, 1.0);
  const double shift = 0.5;
  auto expectMessage = [](const auto & call, const std::string & part)
  {
    try
    {
      call();
      FAIL() << "no exception; expected one mentioning \"" << part << "\"";
    }
    catch (const gpur::InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  TridiagonalOptions bad;
  bad.crStopSize = 0;
  expectMessage([&] { gpur::SolveShiftedTridiagonalBatch(A, M, &shift, 1, x.data(), bad); }, "crStopSize");
  bad = TridiagonalOptions();
  bad.pcrSteps = 40;
  expectMessage([&] { gpur::SolveShiftedTridiagonalBatch(A, M, &shift, 1, x.data(), bad); }, "at most 31");
  const SymmetricTridiagonal<double> wrong{ { 2, 2, 2 }, { -1 } };
  expectMessage([&] { gpur::SolveShiftedTridiagonalBatch(wrong, M, &shift, 1, x.data()); }, "n - 1");
  const SymmetricTridiagonal<double> small = gpur::MakeIdentityTridiagonal<double>(2);
  expectMessage([&] { gpur::SolveShiftedTridiagonalBatch(A, small, &shift, 1, x.data()); }, "same size");
  const SymmetricTridiagonal<double> nan{ { 2, std::nan(""), 2 }, { -1, -1 } };
  expectMessage([&] { gpur::SolveShiftedTridiagonalBatch(nan, M, &shift, 1, x.data()); }, "non-finite");
  gpur::TridiagonalBatch<double> empty;
  expectMessage([&] { gpur::SolveTridiagonalBatch(empty, x.data()); }, "size is 0");
}

// ---------------------------------------------------------------------------
// The pencil eigensolver.

// A = tridiag(-1, 2, -1) / h, M = h I: lambda_l = (2 - 2 cos(l pi / (m + 1))) / h^2 and
// w_l(t) = sqrt(2 / ((m + 1) h)) sin(l t pi / (m + 1)), the classical
// eigenpairs of tridiag(-1, 2, -1).
TEST(TridiagonalEigen, UniformDirichletClosedForm)
{
  const std::size_t m = 50;
  const double h = 0.1, pi = std::acos(-1.0);
  const gpur::AxisFactors<double> f = gpur::MakeP1Axis(gpur::MakeUniformNodes(m + 2, 0, h * (m + 1)),
                                                       gpur::BoundaryCondition::Dirichlet,
                                                       gpur::BoundaryCondition::Dirichlet);
  const std::vector<std::size_t> rows{ 0, 7, m - 1 };
  const gpur::TridiagonalPencilEigen<double> e = gpur::SolveTridiagonalPencil(f.A, f.M, rows);
  ASSERT_EQ(e.values.size(), m);
  double worstValue = 0, worstVector = 0;
  for (std::size_t l = 1; l <= m; ++l)
  {
    const double theta = static_cast<double>(l) * pi / static_cast<double>(m + 1);
    const double lambda = (2 - 2 * std::cos(theta)) / (h * h);
    worstValue = std::max(worstValue, std::abs(e.values[l - 1] - lambda) / lambda);
    const double sign = e.vectors[l - 1] > 0 ? 1 : -1; // row 0: sin(theta) > 0
    for (std::size_t r = 0; r < rows.size(); ++r)
    {
      const double w =
        std::sqrt(2 / (static_cast<double>(m + 1) * h)) * std::sin(static_cast<double>(rows[r] + 1) * theta);
      worstVector = std::max(worstVector, std::abs(sign * e.vectors[r * m + l - 1] - w));
    }
  }
  EXPECT_LE(worstValue, 1e-13);
  EXPECT_LE(worstVector, 1e-12);
  std::printf("  closed form: eigenvalues %.1e, eigenvector entries %.1e\n", worstValue, worstVector);
}

template<typename T>
void
CheckDiagonalisation(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M, double tolerance)
{
  const std::size_t m = A.Size();
  std::vector<std::size_t> all(m);
  for (std::size_t i = 0; i < m; ++i)
    all[i] = i;
  const gpur::TridiagonalPencilEigen<T> e = gpur::SolveTridiagonalPencil(A, M, all);
  const gpur::testing::Dense<T> a = ToDense(A), mm = ToDense(M);
  // W^T M W = I and W^T A W = Lambda (transpose, not conjugate).
  double worstM = 0, worstA = 0, scale = 0;
  for (const T & v : e.values)
    scale = std::max(scale, std::abs(v));
  std::vector<T> mw(m), aw(m);
  for (std::size_t l = 0; l < m; ++l)
  {
    for (std::size_t i = 0; i < m; ++i)
    {
      mw[i] = aw[i] = T(0);
      for (std::size_t j = 0; j < m; ++j)
      {
        mw[i] += mm(i, j) * e.vectors[j * m + l];
        aw[i] += a(i, j) * e.vectors[j * m + l];
      }
    }
    for (std::size_t k = 0; k < m; ++k)
    {
      T wm = T(0), wa = T(0);
      for (std::size_t i = 0; i < m; ++i)
      {
        wm += e.vectors[i * m + k] * mw[i];
        wa += e.vectors[i * m + k] * aw[i];
      }
      worstM = std::max(worstM, std::abs(wm - T(k == l ? 1 : 0)));
      worstA = std::max(worstA, std::abs(wa - (k == l ? e.values[l] : T(0))) / scale);
    }
  }
  EXPECT_LE(worstM, tolerance);
  EXPECT_LE(worstA, tolerance);
  std::printf("  m = %zu: |W^T M W - I| = %.1e, |W^T A W - Lambda| / |Lambda| = %.1e\n", m, worstM, worstA);
}

TEST(TridiagonalEigen, NonUniformConsistentMassIsDiagonalised)
{
  const gpur::AxisFactors<double> f = gpur::MakeP1Axis(RandomMesh(81, 2.0, 3),
                                                       gpur::BoundaryCondition::Neumann,
                                                       gpur::BoundaryCondition::Dirichlet,
                                                       gpur::MassMatrix::Consistent);
  CheckDiagonalisation(f.A, f.M, 1e-11);
}

TEST(TridiagonalEigen, NeumannPencilHasAZeroEigenvalue)
{
  const gpur::AxisFactors<double> f =
    gpur::MakeSecondDifferenceAxis(40, 0.5, gpur::BoundaryCondition::Neumann, gpur::BoundaryCondition::Neumann);
  const std::vector<double> values = gpur::TridiagonalPencilEigenvalues(f.A, f.M);
  EXPECT_LE(std::abs(values.front()), 1e-14);
  CheckDiagonalisation(f.A, f.M, 1e-11);
}

// Helmholtz with the absorbing boundary ([Myllykoski2015, eqs. (3.14)-(3.18)]):
// complex-symmetric, tridiagonal M.
TEST(TridiagonalEigen, ComplexHelmholtzPencilIsDiagonalised)
{
  const gpur::AxisFactors<cd> f = gpur::MakeHelmholtzABCAxis(gpur::MakeUniformNodes(60, 0, 1), 10.0);
  CheckDiagonalisation(f.A, f.M, 1e-10);
  const gpur::AxisFactors<cd> g = gpur::MakeHelmholtzABCAxis(RandomMesh(45, 1.0, 9), 25.0);
  CheckDiagonalisation(g.A, g.M, 1e-10);
}

TEST(TridiagonalEigen, RealPencilNeedsPositiveDefiniteM)
{
  const SymmetricTridiagonal<double> A{ { 2, 2, 2 }, { -1, -1 } };
  const SymmetricTridiagonal<double> M{ { 1, -1, 1 }, { 0, 0 } };
  try
  {
    gpur::TridiagonalPencilEigenvalues(A, M);
    FAIL() << "an indefinite M was accepted";
  }
  catch (const gpur::InvalidArgument & e)
  {
    EXPECT_NE(std::string(e.what()).find("positive definite"), std::string::npos) << e.what();
  }
}
