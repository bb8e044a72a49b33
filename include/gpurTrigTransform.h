// SPDX-License-Identifier: Apache-2.0
// Fast sine and cosine transforms (FFTW's real-to-real "r2r" transforms
// [Frigo2005]) along chosen axes of a 2D or 3D array, in place, on the CPU.
// They diagonalise the second difference on a uniform grid: the DST-I with
// Dirichlet conditions at both ends (unknowns at the interior nodes), the
// DCT-II with the reflecting (cell-centred) Neumann condition at both ends,
// whose inverse is the DCT-III. The fast path of the PSCR solver uses them
// (gpurPSCRSolver.h).
#ifndef gpurTrigTransform_h
#define gpurTrigTransform_h

#include <cstddef>
#include <memory>
#include <vector>

namespace gpur
{

/**
 * One axis' transform, unnormalised as FFTW defines it (n points, j, k = 0..n-1):
 * DST1 (RODFT00) y_k = 2 sum_j x_j sin(pi (j+1)(k+1) / (n+1)), its own inverse
 * up to 2 (n + 1); DCT2 (REDFT10) y_k = 2 sum_j x_j cos(pi (j+1/2) k / n) and
 * DCT3 (REDFT01) y_k = x_0 + 2 sum_{j>=1} x_j cos(pi j (k+1/2) / n), inverses
 * of each other up to 2 n; None leaves the axis untouched.
 */
enum class TrigTransformKind
{
  None,
  DST1,
  DCT2,
  DCT3
};

/** "none", "DST-I", "DCT-II" or "DCT-III". */
const char *
ToString(TrigTransformKind kind);

/** The factor by which `kind` followed by its inverse kind multiplies an axis of n points: 2 (n + 1) or 2 n (1 for
 * None). */
double
TrigTransformRoundTripScale(TrigTransformKind kind, std::size_t n);

/** The kind that inverts `kind` (up to TrigTransformRoundTripScale): DST1 -> DST1, DCT2 <-> DCT3, None -> None. */
TrigTransformKind
InverseTrigTransform(TrigTransformKind kind);

/**
 * A planned in-place transform of one array of shape (n_0, n_1[, n_2]), x
 * (axis 0) fastest, with kinds[d] along axis d. Planned with FFTW_MEASURE for
 * arrays with FFTW's alignment and for arrays 16 bytes past it (where malloc,
 * std::vector and NumPy put large arrays), within about a second of trial
 * transforms each (instantly when FFTW already has wisdom for the problem),
 * and with FFTW_ESTIMATE for other arrays.
 * Uses FFTW's threads (all cores) where the library has them, as
 * gpur::FFTPlan does. Execute may run from several threads at once.
 */
template<typename T>
class TrigTransformPlan
{
public:
  /**
   * Throws InvalidArgument unless shape has 1 to 3 axes of at least 1 point,
   * kinds has one entry per axis, and at least one kind is not None.
   */
  TrigTransformPlan(const std::vector<std::size_t> & shape, const std::vector<TrigTransformKind> & kinds);
  /** Releases the plans. */
  ~TrigTransformPlan();
  TrigTransformPlan(const TrigTransformPlan &) = delete;
  TrigTransformPlan &
  operator=(const TrigTransformPlan &) = delete;

  /** Transforms data (the product of the shape's values) in place. */
  void
  Execute(T * data) const;

private:
  struct Plans;
  std::unique_ptr<Plans> m_Plans;
};

extern template class TrigTransformPlan<float>;
extern template class TrigTransformPlan<double>;

} // namespace gpur

#endif
