// SPDX-License-Identifier: Apache-2.0
// PSCR, the partial solution variant of cyclic reduction ([Myllykoski2015,
// §3.5]; radix q as in [Myllykoski2018, §2]): a fast direct solver for
// separable block-tridiagonal systems
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
// eigenvector entries at the q + 1 rows PSCR reads: [Myllykoski2018,
// eq. (2.15), §2.2]) and Solve() reuses it for any number of right-hand sides,
// from several threads if wanted (on OpenCL the solves of one solver are
// serialised: it has one device workspace).
//
// The method: the slowest axis is reduced by radix-q PSCR with the sets
// J_i = {multiples of q^i <= n}, which works for every size, not only
// q^k - 1 ([Myllykoski2018, eq. (2.14)] gives the sets for n = q^k - 1 only;
// these satisfy its conditions (i)-(iii) of §2.1 for any n); each partial
// solution ([Myllykoski2018, §2.2, eq. (2.10)]) is a shifted problem of one
// dimension less, (A_inner + (c + lambda) M_inner), solved recursively
// (3D -> 2D, [Myllykoski2018, eqs. (2.5)-(2.6)]) down to tridiagonal systems
// along x (gpurTridiagonal.h).
//
// Singular operators (pure-Neumann Poisson, c = 0; or c = -lambda for a sum of
// axis eigenvalues): the plan detects a (near-)zero eigenvalue of the whole
// operator, |c + sum_d lambda_d| <= 1e-10 (|c| + sum_d max |lambda_d|), from
// the axis eigenvalues. With a one-dimensional null space spanned by
// e = e_z (x) e_y (x) e_x (for Neumann Poisson, the constants) it solves
// instead of refusing, because such systems arise with right-hand sides that
// are compatible up to rounding (gradient-domain reconstruction, pressure
// projection): Solve() checks |e^T f| / (|e| |f|) <= compatibilityTolerance
// (and throws IncompatibleRightHandSide otherwise), removes that rounding-level component,
// f <- f - (e^T f) M e, and returns the solution with e^T M u = 0 (the
// M-weighted mean, i.e. the integral of u, is zero). A null space of dimension
// >= 2 is refused in the constructor.
//
// Accuracy. Every solve checks itself and reports what it reached
// (PSCRSolveReport): the relative residual ||f - A u|| / ||f||, evaluated in
// double, against a target, by default 8 (float data) or 32 (double data)
// times the rounding floor (AutomaticTargetFactor in gpurPSCRCheckedSolve.h):
// the residual that the exact solution has once rounded to the scalar type
// (its expected value, from the column norms of A and the ulps of u; see
// gpurPSCRResidual.h). A solve above its target is refined,
// u += A^-1 (f - A u), until it meets it; when it cannot, the solve throws
// NumericalError instead of returning a wrong answer.
//
// What limits a solve, measured (the figures of the accuracy sweep test):
// - Positive (semi)definite operators with real data: every partial solve is
//   at least as well conditioned as A (Cauchy interlacing: a block's
//   eigenvalues lie within its axis' spectrum). Two roundings used to
//   dominate, and are avoided: the shift of a nearly singular subproblem
//   lost in the ulp of its diagonal (A_ii + s M_ii; pure-Neumann 257 x 4097
//   with spacing (0.5, 1) needs s = 5.9e-7 on a diagonal of 8, whose half
//   ulp in float is 4.8e-7, and the float solve broke down), and the long
//   sums over a block's eigenpairs; both now run in double for float data
//   (TridiagonalWork in gpurTridiagonal.h). And in double, the
//   M-orthogonality of the plan's eigenvectors (about eps |A| / gap), which
//   held double solves at 100-500x their floor; double plans now finish
//   their eigenvectors in long double (gpurTridiagonalEigen.h). Float solves
//   then land at 1-6x their floor and double ones at 2-17x, without refinement.
// - Indefinite operators (Helmholtz, c < -sum_d lambda_min,d) and complex
//   ones: the shifted subproblems of the reduction (c + lambda_B +
//   lambda_inner) are spread across zero; the partial solutions, large where
//   a subproblem is nearly singular, cancel in the next level, and the error
//   grows like eps kappa(A) times that growth. On 64^3 with c = -0.2 the
//   float solve's residual was 276 (its floor 3e-6), and rounding only the
//   plan's eigenvalues and eigenvectors to float, all arithmetic in double,
//   gives 0.51 already, while pivoting or double-precision tridiagonal solves
//   change nothing (339, 307): float arithmetic cannot solve such operators.
//   In double they land at 1e-11 - 1e-6, and refinement (1-6 steps)
//   brings them to the target.
//
// So float problems that float arithmetic cannot solve are solved in double
// (PSCROptions::precision, Automatic): the float solve and its refinement
// run first, and when they stop short of the target (or give non-finite
// values) the solve is redone in double, refined there, and rounded to float;
// the solver then stays in double for later solves (ComputesInDouble()).
// Double problems have no wider type and throw NumericalError when
// refinement cannot reach the target.
//
// Fast transforms (PSCROptions::fastTransforms, on by default). An axis whose
// factors are the second difference on a uniform grid (M = m I, A = w
// tridiag(-1, 2, -1)) with Dirichlet at both ends, or the reflecting Neumann
// condition at both ends (gpurSeparableProblems.h), is diagonalised by a fast
// sine or cosine transform (the DST-I or the DCT-II; [Strang1999]), computed
// by FFTW [Frigo2005] on the CPU backend and by real FFTs of the extended
// lines (VkFFT [Tolmachev2023]) on OpenCL. Real operators with such axes
// transform them and solve the independent problems left per transform mode
// ([Myllykoski2018, eqs. (2.5)-(2.6)] with the axis eigenvalue in the shift):
// a division when every axis is transformed (the classical FFT Poisson
// solver, O(N log N)), tridiagonal solves along the one axis left, or 2D PSCR
// on the two left. Other axes (non-uniform meshes, finite-element mass
// matrices, mixed Dirichlet-Neumann ends) and complex operators stay with
// PSCR, and so does an axis whose FFT length (2(n + 1) points for the DST-I,
// 2n for the DCT-II) has a prime factor above 13: FFT libraries run such
// lengths by generic prime algorithms, measured 1.6x (n = 510: 1022 = 2 7 73)
// to 120x (n = 382: 766 = 2 383) slower than PSCR on the same axis, so a
// 512^2 image's 510 interior unknowns per axis solve faster by PSCR. On
// OpenCL PSCR also keeps operators with an axis whose FFT exceeds
// FFTDeviceAxisLimit. The result is the same to rounding;
// the solve is checked and refined as any other, and its report says which
// path ran (PSCRSolveReport::path, Path()). Singular operators take the fast
// path when their null vector is the constants (pure Neumann, c = 0).
//
// Backends (PSCROptions::execution): the CPU reference above, or OpenCL, where
// the plan's arrays (eigenvalues, eigenvector entries, block tables, factors)
// are uploaded once by the constructor and a solve runs entirely on the device
// (kernels/pscr_*.cl): the levels of every axis as batches of partial solves,
// down to batched tridiagonal solves along x. Solve(f, u) on host arrays
// uploads f and downloads u; Solve on DeviceBuffers of the solver's device
// keeps the data there (it waits for the residual check), and EnqueueSolve
// enqueues an unchecked solve of a well-posed operator, so another engine can
// chain solves with its own kernels and no host round trip. The OpenCL backend needs fp64 on the device
// whatever the scalar (the checks and the double solves of float data); Auto
// picks a GPU with fp64, else the faster of the CPU and a CPU OpenCL driver as
// measured on unchecked solves of the operator's leading part (about 2^18
// unknowns, each backend on the path it would run; gpurExecution.h);
// BackendUsed() says which one runs and why.
#ifndef gpurPSCRSolver_h
#define gpurPSCRSolver_h

#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurSeparableOperator.h"
#include "gpurTridiagonal.h"

#include <cstddef>
#include <memory>
#include <string>

namespace gpur
{

/**
 * The operator is singular and the right-hand side has a component along its
 * null vector above PSCROptions::compatibilityTolerance, so no solution exists
 * (see "Singular operators" above). An InvalidArgument; its own type lets a
 * caller (the ITK filter, the Python package) say how to fix it in its terms.
 */
class IncompatibleRightHandSide : public InvalidArgument
{
public:
  using InvalidArgument::InvalidArgument;
};

// The device-buffer overloads below take the core's device-side types; a
// program that calls them includes gpurBuffer.h (which brings the OpenCL C++
// bindings) and links OpenCL. The rest of this header needs neither.
class DeviceContext;
template<typename T>
class DeviceBuffer;

/** Where a float (or complex<float>) solve computes; double solves always compute in double. */
enum class PSCRPrecision
{
  /** In the scalar type; redone in double when that cannot reach the residual target (see above). */
  Automatic,
  /** In the scalar type only; throws NumericalError when it cannot reach the target. */
  Scalar,
  /** Always in double (the result rounded to the scalar type): for operators known to need it. */
  Double
};

/** "Automatic", "Scalar" or "Double". */
const char *
ToString(PSCRPrecision precision);

/** What one solve reached; every PSCRSolver::Solve returns it (see "Accuracy" above). */
struct PSCRSolveReport
{
  /** ||f - A u|| / ||f|| of the returned u, evaluated in double (singular operators: f projected). */
  double relativeResidual = 0;
  /** The target it met: PSCROptions::residualTolerance, or 8 (float) or 32 (double) x roundingFloor. */
  double residualTarget = 0;
  /** The expected relative residual of the exact solution rounded to the scalar type. */
  double roundingFloor = 0;
  /** Refinement steps taken, in the scalar type and in double together. */
  unsigned refinementSteps = 0;
  /** True when a float solve ran in double (PSCRPrecision::Double, or Automatic found float insufficient). */
  bool computedInDouble = false;
  /** Singular operators: |e^T f| / (|e| |f|), the share of f that was projected out (0 otherwise). */
  double incompatibility = 0;
  /** The method that ran: "PSCR", or the fast transforms per axis and what solved the rest (see Path()). */
  std::string path;
};

/** Settings of a PSCRSolver. */
struct PSCROptions
{
  /** The radix q of the reduction: 4 (default, half the levels of radix 2) or 2. */
  unsigned radix = 4;
  /**
   * The algorithm of the innermost tridiagonal solves along x. On OpenCL,
   * Thomas runs one work-item per system (four on CPU drivers; suits many systems: 3D, large
   * batches); CR, PCR and the hybrid run one work-group per system in local
   * memory (suits fewer, longer systems: the GPU choice of [Myllykoski2018,
   * §3.3]), and fall back to Thomas for a system too large for the device's
   * local memory.
   */
  TridiagonalOptions tridiagonal;
  /**
   * Singular operators only: the largest |e^T f| / (|e| |f|) accepted (see
   * above); 0 selects sqrt(machine epsilon) of the scalar type (1.5e-8 in
   * double, 3.5e-4 in float); 1 accepts any f (always projects).
   */
  double compatibilityTolerance = 0;
  /**
   * Most steps of iterative refinement per solve, u += A^-1 (f - A u), each
   * one more solve and one operator product: -1 (default) selects 8; 0 to 16
   * sets the number (0: no refinement; the solve is still checked).
   */
  int refinementSteps = -1;
  /**
   * The relative residual ||f - A u|| / ||f|| a solve must reach; 0
   * (default) selects 8 (float data) or 32 (double data) x the rounding
   * floor of its solution (see above). A
   * target below the floor cannot be met and throws NumericalError.
   */
  double residualTolerance = 0;
  /** Where float and complex<float> solves compute (see above). */
  PSCRPrecision precision = PSCRPrecision::Automatic;
  /**
   * Diagonalise the axes that allow it with fast sine/cosine transforms (see
   * "Fast transforms" above; default true). False runs PSCR on every axis.
   */
  bool fastTransforms = true;
  /**
   * The CPU's parallel loop (plan setup, and solves on the CPU backend); empty:
   * execution.parallelFor, and when that is empty too the thread pool over all
   * cores. Kept for existing callers; execution.parallelFor is the same setting.
   */
  ParallelForFunction parallelFor;
  /** Backend (Auto, CPU, OpenCL) and OpenCL device; see above. */
  ExecutionOptions execution;

  /**
   * Throws InvalidArgument for a radix other than 2 or 4, bad tridiagonal
   * options, a compatibility tolerance outside [0, 1], refinementSteps
   * outside -1..16 or a residual tolerance that is negative or not finite.
   */
  void
  Validate() const;
};

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
   * Solves A u = f and returns what the solve reached (see "Accuracy"
   * above). f and u hold Count() values in the storage order of
   * gpurSeparableOperator.h and may be the same array. Throws
   * InvalidArgument for a null pointer, a non-finite f or an incompatible f
   * (singular operators), and NumericalError when the solution cannot reach
   * its residual target (u then holds no usable result).
   */
  PSCRSolveReport
  Solve(const Scalar * f, Scalar * u) const;

  /**
   * Solve on device buffers of this solver's device (OpenCL backend only;
   * allocate them on Context()), each of at least Count() values; f and u may
   * be the same buffer. The work runs on Context().Queue(0), the in-order
   * compute queue, after whatever the caller enqueued there; the call waits
   * for the residual check, as the host Solve does. Throws like the host
   * Solve, and InvalidArgument on the CPU backend or for a buffer that is too
   * small or of another context. Calls on one solver from several threads are
   * serialised (one device workspace).
   */
  PSCRSolveReport
  Solve(const DeviceBuffer<Scalar> & f, DeviceBuffer<Scalar> & u) const;

  /**
   * Enqueues the solve on device buffers without checking it and returns
   * without waiting, so that another engine can chain solves with its own
   * kernels and no host round trip. Only for operators on which PSCR is
   * stable in the scalar type: real, positive definite or semidefinite
   * (IsWellPosed()), where a solve lands within a small multiple of the
   * rounding floor (1-6x in float, 2-17x in double, measured; check with
   * Solve when in doubt).
   * Singular operators read back a few sums (the compatibility check, which
   * can throw). Throws InvalidArgument for other operators, on the CPU
   * backend, and for buffers as in Solve.
   */
  void
  EnqueueSolve(const DeviceBuffer<Scalar> & f, DeviceBuffer<Scalar> & u) const;

  /**
   * The host twin of EnqueueSolve, for an engine that checks the residual of
   * a larger system itself (L1-mean-curvature denoising measures its
   * subproblems' residuals every iteration): Solve on the CPU backend without
   * the residual check and the pass over f for non-finite values, which would
   * repeat that work (an operator product and a reduction in double, about
   * 12 % of a solve). A non-finite f gives a non-finite u. Only for positive
   * definite operators with real factors, in their own precision
   * (IsWellPosed(), not singular, not ComputesInDouble()). Throws
   * InvalidArgument for other operators, on the OpenCL backend (use
   * EnqueueSolve) and for a null pointer.
   */
  void
  SolveUnchecked(const Scalar * f, Scalar * u) const;

  /** The backend that runs the solves: Describe() gives "CPU" or "OpenCL: <device>". */
  const ResolvedBackend &
  BackendUsed() const;

  /**
   * The method of the solves: "PSCR", or e.g. "fast transforms (x: DST-I, y:
   * DST-I)", "fast transforms (x: DCT-II) + tridiagonal (y)", "fast transforms
   * (z: DST-I) + PSCR (x, y)" (see "Fast transforms" above).
   */
  const std::string &
  Path() const;

  /** The OpenCL context of the solver's device; throws InvalidArgument on the CPU backend. */
  DeviceContext &
  Context() const;

  /** 2 or 3, the number of axes. */
  unsigned
  Dimension() const;
  /** Size of axis d (0 = x). */
  std::size_t
  Size(unsigned axis) const;
  /** Number of unknowns, the product of the axis sizes. */
  std::size_t
  Count() const;
  /** The radix q of the reduction. */
  unsigned
  Radix() const;
  /**
   * Number of PSCR levels k = floor(log_q n_d) + 1 of a reduced axis (d >= 1):
   * of PSCR's reduction of the whole operator, on the fast-transform path too
   * (which runs none of it; Path() says which ran).
   */
  unsigned
  Levels(unsigned axis) const;
  /** True when the operator has a null vector (see above). */
  bool
  IsSingular() const;
  /** Most refinement steps per solve (PSCROptions::refinementSteps; the automatic choice resolved). */
  unsigned
  RefinementSteps() const;
  /**
   * True for real operators with c + sum_d lambda_min,d >= 0 (positive
   * definite or semidefinite), on which PSCR is stable in any precision;
   * false for indefinite and complex ones (see "Accuracy" above).
   */
  bool
  IsWellPosed() const;
  /** True when float solves now run in double (PSCRPrecision::Double, or Automatic after a float solve fell short). */
  bool
  ComputesInDouble() const;
  /**
   * Tridiagonal solves along x per PSCR solve (e.g. 279 for q = 4, n_y = 63 in
   * 2D); a solve with k refinement steps runs 1 + k times as many. Like
   * Levels(), it counts PSCR's reduction of the whole operator whichever path
   * runs: the cost the fast-transform path (Path()) avoids.
   */
  std::size_t
  TridiagonalSolveCount() const;
  /**
   * Wall time of the constructor: mostly the eigenproblems; on OpenCL also the
   * upload and, the first time in the process, the kernel build. The
   * fast-transform path solves no eigenproblem (its eigenvalues are in closed
   * form; a remainder of two axes has its own small plan): there it is mostly
   * FFTW's planning, instant once FFTW has wisdom for the grid.
   */
  double
  SetupSeconds() const;

private:
  struct Solvers;
  std::shared_ptr<Solvers> m_Solvers;
  ResolvedBackend m_Backend;
  double m_SetupSeconds = 0;
};

} // namespace gpur

#endif
