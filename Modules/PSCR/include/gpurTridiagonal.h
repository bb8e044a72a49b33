// SPDX-License-Identifier: Apache-2.0
// Tridiagonal matrices and batched tridiagonal solvers ([Myllykoski2015,
// §3.3]): Thomas [Thomas1949], cyclic reduction (CR) for arbitrary sizes,
// parallel cyclic reduction (PCR) and the CR -> PCR -> Thomas hybrid of
// [Myllykoski2018, §3.3], for real and complex-symmetric systems. These are the
// innermost solves of PSCR and BCR; the OpenCL kernels follow the same three
// stages.
//
// One code path serves every algorithm: CR reduces while the system has more
// than `crStopSize` rows, PCR then runs `pcrSteps` steps on what is left, which
// splits it into 2^pcrSteps interleaved independent systems, and Thomas solves
// those; CR back-substitutes at the end. Thomas is (no CR, no PCR), CR is
// (reduce to one row), PCR is (no CR, ceil(log2 n) steps). No pivoting: the
// systems PSCR produces are shifted versions of symmetric tridiagonal factors,
// diagonally dominant in the Poisson case.
#ifndef gpurTridiagonal_h
#define gpurTridiagonal_h

#include "gpurParallel.h"

#include <complex>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace gpur
{

/** The real type of a scalar: float for float and std::complex<float>, and so on. */
template<typename T>
struct RealTypeOf
{
  using type = T; ///< the real type
};
/** The real type of std::complex<T>: T. */
template<typename T>
struct RealTypeOf<std::complex<T>>
{
  using type = T; ///< the real type
};
/** RealTypeOf<T>::type. */
template<typename T>
using RealType = typename RealTypeOf<T>::type;

template<typename T>
struct IsComplex : std::false_type
{
};
template<typename T>
struct IsComplex<std::complex<T>> : std::true_type
{
};

/**
 * A symmetric tridiagonal matrix of size n (for complex scalars: complex
 * symmetric, A^T = A, not Hermitian): n diagonal entries and n - 1
 * off-diagonal entries, offDiagonal[i] = A(i, i + 1) = A(i + 1, i).
 */
template<typename T>
struct SymmetricTridiagonal
{
  std::vector<T> diagonal;    ///< A(i, i), n entries
  std::vector<T> offDiagonal; ///< A(i, i + 1), n - 1 entries

  /** The size n. */
  std::size_t
  Size() const
  {
    return diagonal.size();
  }
};

/** The identity of size n as a SymmetricTridiagonal. */
template<typename T>
SymmetricTridiagonal<T>
MakeIdentityTridiagonal(std::size_t n)
{
  return SymmetricTridiagonal<T>{ std::vector<T>(n, T(1)), std::vector<T>(n > 0 ? n - 1 : 0, T(0)) };
}

/** Converts the entries to another scalar type (double -> float, real -> complex). */
template<typename To, typename From>
SymmetricTridiagonal<To>
CastTridiagonal(const SymmetricTridiagonal<From> & m)
{
  SymmetricTridiagonal<To> out;
  out.diagonal.assign(m.diagonal.begin(), m.diagonal.end());
  out.offDiagonal.assign(m.offDiagonal.begin(), m.offDiagonal.end());
  return out;
}

/**
 * Throws InvalidArgument unless the matrix has n >= 1 diagonal and n - 1
 * off-diagonal entries, all finite (`what` names the matrix in the message).
 */
template<typename T>
void
ValidateTridiagonal(const SymmetricTridiagonal<T> & m, const std::string & what);

/** Throws InvalidArgument naming the first non-finite entry (real and imaginary parts are checked). */
template<typename T>
void
RequireFiniteScalars(const T * values, std::size_t count, const std::string & what);

/** The tridiagonal solvers (see the top of this file). */
enum class TridiagonalAlgorithm
{
  Thomas,
  CR,
  PCR,
  Hybrid
};

/** "Thomas", "CR", "PCR" or "Hybrid". */
const char *
ToString(TridiagonalAlgorithm algorithm);

/**
 * The stages every algorithm is made of (see above): CR while the system has
 * more than `crStop` rows, then `pcrSteps` PCR steps (at most ceil(log2) of
 * what is left), then Thomas on the interleaved subsystems.
 */
struct TridiagonalStages
{
  std::size_t crStop = 0; ///< CR reduces while the system has more rows than this
  unsigned pcrSteps = 0;  ///< PCR steps on what CR leaves
};

/** Which tridiagonal algorithm runs, and the switch points of the hybrid. */
struct TridiagonalOptions
{
  TridiagonalAlgorithm algorithm = TridiagonalAlgorithm::Thomas; ///< Thomas, CR, PCR or Hybrid
  /** Hybrid: CR reduces while the system has more rows than this (>= 1). */
  std::size_t crStopSize = 32;
  /** Hybrid: PCR steps on the CR remainder before Thomas (at most 31; more than log2(size) acts as pure PCR). */
  unsigned pcrSteps = 2;

  /** Throws InvalidArgument for crStopSize = 0 or pcrSteps > 31. */
  void
  Validate() const;

  /**
   * The stages of the algorithm: Thomas (no CR, no PCR), CR (down to 1 row),
   * PCR (no CR, 64 steps) or the hybrid's (crStopSize, pcrSteps).
   */
  TridiagonalStages
  Stages() const;
};

/**
 * A batch of `count` general tridiagonal systems of size n. System k has
 * lower[i] = A_k(i + 1, i), diagonal[i] = A_k(i, i), upper[i] = A_k(i, i + 1)
 * at lower + k (n - 1), diagonal + k n, upper + k (n - 1), or, with
 * sharedCoefficients, every system uses the first set (one matrix, many
 * right-hand sides).
 */
template<typename T>
struct TridiagonalBatch
{
  std::size_t size = 0;            ///< n, the size of every system
  std::size_t count = 0;           ///< number of systems
  const T * lower = nullptr;       ///< sub-diagonals, n - 1 per system
  const T * diagonal = nullptr;    ///< diagonals, n per system
  const T * upper = nullptr;       ///< super-diagonals, n - 1 per system
  bool sharedCoefficients = false; ///< every system uses the first set of coefficients
};

/**
 * Solves every system of the batch in place: x holds the right-hand side of
 * system k at x + k n on entry and its solution on return. Systems run in
 * parallel with `parallelFor` (empty: all cores).
 */
template<typename T>
void
SolveTridiagonalBatch(const TridiagonalBatch<T> & batch,
                      T * x,
                      const TridiagonalOptions & options = TridiagonalOptions(),
                      const ParallelForFunction & parallelFor = ParallelForFunction());

/**
 * Solves (A + shifts[k] M) x_k = b_k for k < count in place (x_k at x + k n):
 * the batch PSCR produces, one matrix pair and a different shift per system,
 * eliminated in TridiagonalWork<T> (see below).
 */
template<typename T>
void
SolveShiftedTridiagonalBatch(const SymmetricTridiagonal<T> & A,
                             const SymmetricTridiagonal<T> & M,
                             const T * shifts,
                             std::size_t count,
                             T * x,
                             const TridiagonalOptions & options = TridiagonalOptions(),
                             const ParallelForFunction & parallelFor = ParallelForFunction());

/**
 * The scalar the shifted solves eliminate in: double (complex<double>) for
 * every scalar. In float, the diagonal A_ii + shift M_ii of a nearly singular
 * shifted system loses the shift in its ulp (2/h^2 + 5.9e-7 is 2/h^2 + 9.5e-7
 * for h = 0.5): the solves PSCR makes for its smallest eigenvalues then fail
 * (non-finite, pure-Neumann 257 x 4097) or lose most of float's accuracy
 * (6x the rounding floor of a 2047^2 Poisson solve). Solved in double and
 * rounded to float, they cost no more on the CPU (Thomas is sequential either way).
 */
template<typename T>
using TridiagonalWork = std::conditional_t<IsComplex<T>::value, std::complex<double>, double>;

/**
 * One shifted solve (A + shift M) x = b on the leading `rows` rows of A and M
 * (rows <= A.Size(); the full size for an ordinary solve), in place and
 * without input checks, computed in TridiagonalWork<T>: the building block of
 * the batches, PSCR and BCR. `workspace` is resized as needed and may be
 * reused across calls.
 */
template<typename T>
void
SolveShiftedTridiagonalUnchecked(const SymmetricTridiagonal<T> & A,
                                 const SymmetricTridiagonal<T> & M,
                                 T shift,
                                 std::size_t rows,
                                 T * x,
                                 const TridiagonalOptions & options,
                                 std::vector<TridiagonalWork<T>> & workspace);

/**
 * SolveShiftedTridiagonalUnchecked for `count` systems of the same A and M
 * and their own shifts, x[k] solved in place with shifts[k] (the partial
 * solves of one PSCR level). With the Thomas algorithm the systems run
 * interleaved, a few at a time, with each system's arithmetic exactly that of
 * SolveShiftedTridiagonalUnchecked (same results, bit for bit): Thomas' recurrence is a chain of dependent
 * divisions, and independent chains side by side fill the pipeline and SIMD
 * lanes that one chain leaves idle. Other algorithms solve them one by one.
 */
template<typename T>
void
SolveShiftedTridiagonalGroupUnchecked(const SymmetricTridiagonal<T> & A,
                                      const SymmetricTridiagonal<T> & M,
                                      const T * shifts,
                                      std::size_t count,
                                      T * const * x,
                                      const TridiagonalOptions & options,
                                      std::vector<TridiagonalWork<T>> & workspace);

} // namespace gpur

#endif
