// PSCR, the partial solution variant of cyclic reduction (digest seed 000,
// §4): a fast direct solver for separable block-tridiagonal systems
//
//   (A_y (x) M_x + M_y (x) A_x + c M_y (x) M_x) u = f          (2D)
//   (A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x + M_z (x) M_y (x) A_x + c M_z (x) M_y (x) M_x) u = f   (3D)
//
// with symmetric tridiagonal factors (see gpurSeparableOperator.h for the
// storage order), real or complex symmetric: Poisson, Helmholtz, implicit
// diffusion steps, the denoising subproblems. Cost O(N log n) per solve in 2D
// and O(N log n_z log n_y) in 3D.
//
// Plan / execute: the constructor builds the plan once (the radix-q reduction
// sets for each size, the generalised eigenproblems of every block, their
// eigenvector entries at the q + 1 rows PSCR reads, §4.5) and Solve() reuses
// it for any number of right-hand sides, from several threads if wanted (on
// OpenCL the solves of one solver are serialised: it has one device workspace).
//
// The method: the slowest axis is reduced by radix-q PSCR with the sets
// J_i = {multiples of q^i} (§4.4), which works for every size, not only
// q^k - 1; each partial solution (§4.2) is a shifted problem of one dimension
// less, (A_inner + (c + lambda) M_inner), solved recursively (3D -> 2D, §4.6)
// down to tridiagonal systems along x (gpurTridiagonal.h).
//
// Singular operators (pure-Neumann Poisson, c = 0; or c = -lambda for a sum of
// axis eigenvalues): the plan detects a (near-)zero eigenvalue of the whole
// operator, |c + sum_d lambda_d| <= 1e-10 (|c| + sum_d max |lambda_d|), from
// the axis eigenvalues. With a one-dimensional null space spanned by
// e = e_z (x) e_y (x) e_x (for Neumann Poisson, the constants) it solves
// instead of refusing, because such systems arise with right-hand sides that
// are compatible up to rounding (gradient-domain reconstruction, pressure
// projection): Solve() checks |e^T f| / (|e| |f|) <= compatibilityTolerance
// (and throws InvalidArgument otherwise), removes that rounding-level component,
// f <- f - (e^T f) M e, and returns the solution with e^T M u = 0 (the
// M-weighted mean, i.e. the integral of u, is zero). A null space of dimension
// >= 2 is refused in the constructor.
//
// Indefinite and complex operators (Helmholtz, c < -sum_d lambda_min,d): a
// block of the reduction can be much closer to singular than the operator,
// since the eigenvalues of a block's shifted subproblems (c + lambda_B +
// lambda_inner) need not avoid the ones of A, and PSCR then loses accuracy in
// the cancellation of the partial solutions' large components (up to 6e-9 for
// 1e-12 possible on a 21 x 16 x 11 Helmholtz problem with radix 2). One step of
// iterative refinement (PSCROptions::refinementSteps) brings the residual down
// to rounding (5e-14 there); positive (semi)definite operators with real data
// skip it, since every block's eigenvalues lie within its axis' spectrum.
//
// Backends (PSCROptions::execution): the CPU reference above, or OpenCL, where
// the plan's arrays (eigenvalues, eigenvector entries, block tables, factors)
// are uploaded once by the constructor and a solve runs entirely on the device
// (kernels/pscr_*.cl): the levels of every axis as batches of partial solves,
// down to batched tridiagonal solves along x. Solve(f, u) on host arrays
// uploads f and downloads u; Solve on DeviceBuffers of the solver's device
// keeps everything there, so another engine can chain solves with its own
// kernels and no host round trip. Auto picks OpenCL when a device (with fp64
// for double and complex<double>) exists, else the CPU; BackendUsed() says
// which one runs.
#ifndef gpurPSCRSolver_h
#define gpurPSCRSolver_h

#include "gpurBuffer.h"
#include "gpurExecution.h"
#include "gpurSeparableOperator.h"
#include "gpurTridiagonal.h"

#include <cstddef>
#include <memory>

namespace gpur
{

/** Settings of a PSCRSolver. */
struct PSCROptions
{
  /** The radix q of the reduction: 4 (default, half the levels of radix 2) or 2. */
  unsigned radix = 4;
  /**
   * The algorithm of the innermost tridiagonal solves along x. On OpenCL,
   * Thomas runs one work-item per system (suits many systems: 3D, large
   * batches); CR, PCR and the hybrid run one work-group per system in local
   * memory (suits fewer, longer systems: [PIII]'s GPU choice, digest §2.4), and
   * fall back to Thomas for a system too large for the device's local memory.
   */
  TridiagonalOptions tridiagonal;
  /**
   * Singular operators only: the largest |e^T f| / (|e| |f|) accepted (see
   * above); 0 selects sqrt(machine epsilon) of the scalar type (1.5e-8 in
   * double, 3.5e-4 in float); 1 accepts any f (always projects).
   */
  double compatibilityTolerance = 0;
  /**
   * Steps of iterative refinement after the PSCR solve, u += A^-1 (f - A u),
   * each one more solve and one operator product: -1 (default) selects 0 for
   * operators with real data and c + sum_d lambda_min,d >= 0 (every partial
   * solve is then at least as well conditioned as A) and 1 otherwise
   * (indefinite or complex; see above); 0 to 8 sets the number.
   */
  int refinementSteps = -1;
  /**
   * The CPU's parallel loop (plan setup, and solves on the CPU backend); empty:
   * execution.parallelFor, and when that is empty too std::thread over all
   * cores. Kept for existing callers; execution.parallelFor is the same setting.
   */
  ParallelForFunction parallelFor;
  /** Backend (Auto, CPU, OpenCL) and OpenCL device; see above. */
  ExecutionOptions execution;

  /**
   * Throws InvalidArgument for a radix other than 2 or 4, bad tridiagonal
   * options, a tolerance outside [0, 1] or refinementSteps outside -1..8.
   */
  void
  Validate() const;
};

template<typename Scalar>
struct PSCRPlan;
template<typename Scalar>
class PSCRDeviceSolver;

/**
 * The PSCR solver for one separable operator with 2 or 3 axes. Scalar is
 * float, double, std::complex<float> or std::complex<double>; the
 * eigenproblems are solved in double (complex double) either way. Real scalars
 * need positive-definite M_d; complex ones a diagonalisable pencil per axis
 * (true for the Helmholtz factors).
 */
template<typename Scalar>
class PSCRSolver
{
public:
  /**
   * Builds the plan, and on OpenCL uploads it and builds the kernels. Throws
   * InvalidArgument naming what is wrong with the operator or the options (an
   * unknown device; double or complex<double> with an explicit OpenCL backend
   * on a device without fp64; a problem larger than the device memory),
   * BuildError with the compiler's log when a kernel does not build.
   */
  explicit PSCRSolver(const SeparableOperator<Scalar> & op, const PSCROptions & options = PSCROptions());

  /**
   * Solves A u = f. f and u hold Count() values in the storage order of
   * gpurSeparableOperator.h and may be the same array. Throws
   * InvalidArgument for a null pointer, a non-finite f, an incompatible f
   * (singular operators), or when a subsystem of the reduction turns out
   * singular (non-finite result).
   */
  void
  Solve(const Scalar * f, Scalar * u) const;

  /**
   * Solves A u = f on device buffers of this solver's device (OpenCL backend
   * only; allocate them on Context()), each of at least Count() values; f and u
   * may be the same buffer. The work is enqueued on Context().Queue(0), the
   * in-order compute queue, after whatever the caller enqueued there, and the
   * call returns without waiting, so solves chain with other kernels on that
   * queue without host round trips. Singular operators are the exception:
   * the compatibility check and the null-space projections read back a few
   * sums (and the check can throw). Unlike the host Solve, f and u are not
   * checked for non-finite values. Throws InvalidArgument on the CPU backend
   * or for a buffer that is too small or of another context. Calls on one
   * solver from several threads are serialised (one device workspace).
   */
  void
  Solve(const DeviceBuffer<Scalar> & f, DeviceBuffer<Scalar> & u) const;

  /** The backend that runs the solves: Describe() gives "CPU" or "OpenCL: <device>". */
  const ResolvedBackend &
  BackendUsed() const;

  /** The OpenCL context of the solver's device; throws InvalidArgument on the CPU backend. */
  DeviceContext &
  Context() const;

  unsigned
  Dimension() const;
  /** Size of axis d (0 = x). */
  std::size_t
  Size(unsigned axis) const;
  std::size_t
  Count() const;
  unsigned
  Radix() const;
  /** Number of PSCR levels k = floor(log_q n_d) + 1 of a reduced axis (d >= 1). */
  unsigned
  Levels(unsigned axis) const;
  /** True when the operator has a null vector (see above). */
  bool
  IsSingular() const;
  /** Steps of iterative refinement per solve (PSCROptions::refinementSteps; the automatic choice resolved). */
  unsigned
  RefinementSteps() const;
  /**
   * Tridiagonal solves along x per PSCR solve (e.g. 279 for q = 4, n_y = 63 in
   * 2D, digest §4.3); a solve with refinement runs 1 + RefinementSteps() of them.
   */
  std::size_t
  TridiagonalSolveCount() const;
  /**
   * Wall time of the constructor: mostly the eigenproblems; on OpenCL also the
   * upload and, the first time in the process, the kernel build.
   */
  double
  SetupSeconds() const;

private:
  std::shared_ptr<const PSCRPlan<Scalar>> m_Plan;
  ParallelForFunction m_ParallelFor;
  ResolvedBackend m_Backend;
  std::shared_ptr<PSCRDeviceSolver<Scalar>> m_Device; ///< OpenCL backend only
  double m_SetupSeconds = 0;
};

} // namespace gpur

#endif
