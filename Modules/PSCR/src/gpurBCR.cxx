// SPDX-License-Identifier: Apache-2.0
#include "gpurBCR.h"

#include "gpurError.h"
#include "gpurPSCRInternal.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

namespace gpur
{

namespace
{

constexpr double kPi = 3.14159265358979323846;

// theta(j, i) = 2 cos((2j - 1) pi / 2^{i+1}) and the partial-fraction weight
// (-1)^{j-1} sin((2j - 1) pi / 2^{i+1}) of T^{(i)} (D^{(i)})^{-1}
// ([Myllykoski2015, eq. (3.47)], by Lemma 3.6).
double
Theta(std::size_t j, unsigned i)
{
  return 2 * std::cos(static_cast<double>(2 * j - 1) * kPi / std::ldexp(1.0, static_cast<int>(i) + 1));
}
double
Weight(std::size_t j, unsigned i)
{
  const double s = std::sin(static_cast<double>(2 * j - 1) * kPi / std::ldexp(1.0, static_cast<int>(i) + 1));
  return (j % 2 == 1) ? s : -s;
}

} // namespace

template<typename Scalar>
BCRSolver<Scalar>::BCRSolver(const SymmetricTridiagonal<Scalar> & D, std::size_t blockRows, const BCROptions & options)
  : m_D(D)
  , m_BlockRows(blockRows)
  , m_Levels(0)
  , m_Tridiagonal(options.tridiagonal)
  , m_ParallelFor(ResolveParallelFor(options.parallelFor))
{
  ValidateTridiagonal(D, "BCR diagonal block D");
  m_Tridiagonal.Validate();
  while (m_Levels < 40 && (std::size_t(1) << m_Levels) - 1 < blockRows)
  {
    ++m_Levels;
  }
  if (blockRows == 0 || (std::size_t(1) << m_Levels) - 1 != blockRows)
  {
    throw InvalidArgument("BCR needs n1 = 2^k - 1 block rows (1, 3, 7, 15, ...), got " + std::to_string(blockRows) +
                          "; PSCRSolver handles any size");
  }
  m_Identity = MakeIdentityTridiagonal<Scalar>(D.Size());
}

template<typename Scalar>
std::size_t
BCRSolver<Scalar>::TridiagonalSolveCount() const
{
  const unsigned k = m_Levels;
  std::size_t count = 0;
  for (unsigned i = 1; i < k; ++i)
  {
    count += ((std::size_t(1) << (k - i)) - 1) << (i - 1);
  }
  for (unsigned i = 0; i < k; ++i)
  {
    count += std::size_t(1) << (k - 1); // 2^{k-i-1} odd rows times 2^i shifts
  }
  return count;
}

template<typename Scalar>
void
BCRSolver<Scalar>::Solve(const Scalar * f, Scalar * u) const
{
  if (f == nullptr || u == nullptr)
  {
    throw InvalidArgument("BCRSolver::Solve: the right-hand side or solution pointer is null");
  }
  const std::size_t n1 = m_BlockRows, n2 = m_D.Size();
  RequireFiniteScalars(f, n1 * n2, "BCR right-hand side f");
  if (u != f)
  {
    std::copy(f, f + n1 * n2, u);
  }
  const unsigned k = m_Levels;
  auto row = [&](std::size_t r) { return u + (r - 1) * n2; }; // 1-based block rows as in [Myllykoski2015, eq. (3.41)]
  std::vector<Scalar> Z((std::size_t(1) << (k - 1)) * n2);
  const ParallelForFunction * loop = &m_ParallelFor;
  // Runs `jobs` shifted solves (D - theta(job) I) z_job = rhs(job) into Z.
  auto solves = [&](std::size_t jobs, const auto & rhs, const auto & theta)
  {
    pscr::ForEachRange(loop,
                       jobs,
                       [&](std::size_t j0, std::size_t j1)
                       {
                         std::vector<TridiagonalWork<Scalar>> workspace;
                         for (std::size_t job = j0; job < j1; ++job)
                         {
                           Scalar * z = Z.data() + job * n2;
                           rhs(job, z);
                           SolveShiftedTridiagonalUnchecked(
                             m_D, m_Identity, Scalar(-theta(job)), n2, z, m_Tridiagonal, workspace);
                         }
                       });
  };

  // Reduction ([Myllykoski2015, eq. (3.43)] with T^{(i-1)} (D^{(i-1)})^{-1} in
  // partial fractions, eq. (3.47)): f^{(i)}_j = f_{2j} + T (D)^{-1}
  // (f_{2j-1} + f_{2j+1}), in place at row 2^i j.
  for (unsigned i = 1; i < k; ++i)
  {
    const std::size_t half = std::size_t(1) << (i - 1), shifts = half;
    const std::size_t rows = (std::size_t(1) << (k - i)) - 1;
    const Scalar scale = Scalar(std::ldexp(1.0, -static_cast<int>(i - 1)));
    solves(
      rows * shifts,
      [&](std::size_t job, Scalar * z)
      {
        const std::size_t r = (job / shifts + 1) << i;
        const Scalar w = scale * Scalar(Weight(job % shifts + 1, i - 1));
        const Scalar *left = row(r - half), *right = row(r + half);
        for (std::size_t s = 0; s < n2; ++s)
          z[s] = w * (left[s] + right[s]);
      },
      [&](std::size_t job) { return Theta(job % shifts + 1, i - 1); });
    pscr::ForEachRange(loop,
                       rows,
                       [&](std::size_t j0, std::size_t j1)
                       {
                         for (std::size_t j = j0; j < j1; ++j)
                         {
                           Scalar * target = row((j + 1) << i);
                           for (std::size_t t = 0; t < shifts; ++t)
                           {
                             const Scalar * z = Z.data() + (j * shifts + t) * n2;
                             for (std::size_t s = 0; s < n2; ++s)
                               target[s] += z[s];
                           }
                         }
                       });
  }

  // Back substitution ([Myllykoski2015, eq. (3.44)]; the dissertation gives
  // only the partial fractions (3.47)-(3.48), and since T^{(i)} and D^{(i)}
  // commute, (3.44) becomes 2^i independent shifted solves per odd row): at
  // level i the odd rows j get u_j = 2^{-i} sum_j' (D - theta(j', i) I)^{-1}
  // [f_j + w(j', i) (u_left + u_right)], level k - 1 (one row, no neighbours)
  // being the top solve.
  for (unsigned i = k; i-- > 0;)
  {
    const std::size_t step = std::size_t(1) << i, shifts = step;
    const std::size_t rows = std::size_t(1) << (k - i - 1); // odd j in 1..2^{k-i} - 1
    solves(
      rows * shifts,
      [&](std::size_t job, Scalar * z)
      {
        const std::size_t r = (2 * (job / shifts) + 1) * step;
        const Scalar w = Scalar(Weight(job % shifts + 1, i));
        const Scalar * f_r = row(r);
        const Scalar * left = r > step ? row(r - step) : nullptr;
        const Scalar * right = r + step <= n1 ? row(r + step) : nullptr;
        for (std::size_t s = 0; s < n2; ++s)
        {
          Scalar neighbours = Scalar(0);
          if (left != nullptr)
            neighbours += left[s];
          if (right != nullptr)
            neighbours += right[s];
          z[s] = f_r[s] + w * neighbours;
        }
      },
      [&](std::size_t job) { return Theta(job % shifts + 1, i); });
    const Scalar scale = Scalar(std::ldexp(1.0, -static_cast<int>(i)));
    pscr::ForEachRange(loop,
                       rows,
                       [&](std::size_t j0, std::size_t j1)
                       {
                         for (std::size_t j = j0; j < j1; ++j)
                         {
                           Scalar * target = row((2 * j + 1) * step);
                           std::fill(target, target + n2, Scalar(0));
                           for (std::size_t t = 0; t < shifts; ++t)
                           {
                             const Scalar * z = Z.data() + (j * shifts + t) * n2;
                             for (std::size_t s = 0; s < n2; ++s)
                               target[s] += z[s];
                           }
                           for (std::size_t s = 0; s < n2; ++s)
                             target[s] *= scale;
                         }
                       });
  }
}

template class BCRSolver<float>;
template class BCRSolver<double>;
template class BCRSolver<std::complex<float>>;
template class BCRSolver<std::complex<double>>;

} // namespace gpur
