// SPDX-License-Identifier: Apache-2.0
// Generalised eigenproblems of symmetric tridiagonal pencils, A w = lambda M w,
// as PSCR needs them ([Myllykoski2018, eqs. (2.11)-(2.13) and (2.15)]):
// eigenvalues, and eigenvectors normalised by w^T M w = 1 (transpose also in
// the complex case), so that W^T A W = Lambda and W^T M W = I. Only the entries
// of each eigenvector at a few requested rows are kept (PSCR needs at most
// q + 1).
//
// Real pencils (M positive definite): the eigenvalues are isolated by Sturm
// counts (the inertia of the LDL^T factorisation of A - sigma M) and refined by
// Laguerre's method on det(A - sigma M) inside the isolating interval (cubic,
// and monotone because every root is real); this works directly on
// tridiagonal M (consistent mass), where [Myllykoski2018, §3.2] used Crawford's
// reduction and the LR algorithm. Complex-symmetric pencils (Helmholtz with
// absorbing boundaries, [Myllykoski2015, eq. (3.18)]): the Aberth-Ehrlich
// iteration [Aberth1973, Ehrlich1967] on det(A - lambda M), started from the
// eigenvalues of the real parts. Both evaluate det'/det with the pivot
// recurrence in O(n), so n eigenvalues cost O(n^2). Eigenvectors come from
// inverse iteration with partial pivoting, re-orthogonalised (in the M-bilinear
// form) within clusters of nearly equal eigenvalues.
#ifndef gpurTridiagonalEigen_h
#define gpurTridiagonalEigen_h

#include "gpurTridiagonal.h"

#include <complex>
#include <cstddef>
#include <vector>

namespace gpur
{

/** Eigenvalues and selected eigenvector entries of a tridiagonal pencil. */
template<typename T>
struct TridiagonalPencilEigen
{
  /** m eigenvalues: ascending for real pencils, by real part for complex ones. */
  std::vector<T> values;
  /** The rows whose eigenvector entries are kept. */
  std::vector<std::size_t> rows;
  /** vectors[r * m + l] = w_l[rows[r]], with w_l^T M w_l = 1. */
  std::vector<T> vectors;
};

/** How accurate the eigenvectors of SolveTridiagonalPencil must be. */
enum class EigenvectorAccuracy
{
  /** M-orthogonality of close eigenvectors ~ eps |A| / gap: enough for float data. */
  Double,
  /**
   * The final Rayleigh-quotient step and twisted factorisation in long double
   * (about 2.5x the time): the accuracy double PSCR solves need to reach a
   * few times their rounding floor without refinement.
   */
  Extended
};

/**
 * Solves A w = lambda M w for symmetric tridiagonal A and M of the same size
 * and keeps the eigenvector entries at `rows`. T is double or
 * std::complex<double>. Real pencils need M positive definite; complex ones
 * need the pencil to be diagonalisable with w^T M w != 0 (true for the
 * Helmholtz factors). Throws InvalidArgument for bad input, Error if an
 * iteration does not converge.
 */
template<typename T>
TridiagonalPencilEigen<T>
SolveTridiagonalPencil(const SymmetricTridiagonal<T> & A,
                       const SymmetricTridiagonal<T> & M,
                       const std::vector<std::size_t> & rows,
                       const ParallelForFunction & parallelFor = ParallelForFunction(),
                       EigenvectorAccuracy accuracy = EigenvectorAccuracy::Extended);

/** The eigenvalues only (same order as SolveTridiagonalPencil). */
template<typename T>
std::vector<T>
TridiagonalPencilEigenvalues(const SymmetricTridiagonal<T> & A,
                             const SymmetricTridiagonal<T> & M,
                             const ParallelForFunction & parallelFor = ParallelForFunction());

/** The whole eigenvector of a simple eigenvalue lambda (from the functions above), w^T M w = 1. */
template<typename T>
std::vector<T>
TridiagonalPencilEigenvector(const SymmetricTridiagonal<T> & A, const SymmetricTridiagonal<T> & M, T lambda);

} // namespace gpur

#endif
