// SPDX-License-Identifier: Apache-2.0
// Radix-2 block cyclic reduction, partial-fraction (parallel) variant, for the
// special block form (D, -I) ([Myllykoski2015, §3.4.2, eqs. (3.43)-(3.48)]):
//
//   D u_j - u_{j-1} - u_{j+1} = f_j,   j = 1..n1,   u_0 = u_{n1+1} = 0,
//
// with n1 = 2^k - 1 block rows and D symmetric tridiagonal of size n2 (e.g.
// tridiag(-1, 4, -1), the 5-point Poisson matrix). Every matrix polynomial of
// the reduction is applied as a sum of shifted solves (D - theta I)^{-1},
// theta(j, i) = 2 cos((2j - 1) pi / 2^{i+1}), all independent. It is the
// comparison method of PSCR: with A1 = tridiag(-1, 2, -1), M1 = I, A2 = D - 2I,
// M2 = I the two solve the same system ([Myllykoski2015, Remark 3.6];
// [Myllykoski2014]). Storage as in PSCR 2D: block row j (0-based) at f + j n2.
#ifndef gpurBCR_h
#define gpurBCR_h

#include "gpurTridiagonal.h"

#include <cstddef>

namespace gpur
{

/** How BCRSolver runs. */
struct BCROptions
{
  /** The algorithm of the shifted tridiagonal solves. */
  TridiagonalOptions tridiagonal;
  /** The CPU's parallel loop; empty: the thread pool over all cores (MakeThreadParallelFor). */
  ParallelForFunction parallelFor;
};

/** BCR plan for one D and n1; Solve() may be called any number of times. */
template<typename Scalar>
class BCRSolver
{
public:
  /** Throws InvalidArgument unless D is valid and n1 = 2^k - 1 (1, 3, 7, 15, ...). */
  BCRSolver(const SymmetricTridiagonal<Scalar> & D, std::size_t blockRows, const BCROptions & options = BCROptions());

  /** Solves for u (n1 n2 values); f and u may be the same array. */
  void
  Solve(const Scalar * f, Scalar * u) const;

  /** n1, the number of block rows. */
  std::size_t
  BlockRows() const
  {
    return m_BlockRows;
  }
  /** n2, the size of D and of every block. */
  std::size_t
  BlockSize() const
  {
    return m_D.Size();
  }
  /** Shifted tridiagonal solves per right-hand side. */
  std::size_t
  TridiagonalSolveCount() const;

private:
  SymmetricTridiagonal<Scalar> m_D;
  SymmetricTridiagonal<Scalar> m_Identity;
  std::size_t m_BlockRows;
  unsigned m_Levels;
  TridiagonalOptions m_Tridiagonal;
  ParallelForFunction m_ParallelFor;
};

} // namespace gpur

#endif
