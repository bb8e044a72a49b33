// SPDX-License-Identifier: Apache-2.0
// Engine of total-variation (ROF) denoising: plain arrays in, plain arrays out.
//
//   min_u  (lambda/2) ||u - f||^2 + TV(u),   TV(u) = sum_voxels |grad u|   (isotropic)
//
// grad: forward differences divided by the voxel spacing, Neumann boundary;
// div = -grad^T: backward differences (kernels/gpur_stencils.cl of the core).
// Larger lambda keeps more of f (less smoothing); lambda has units
// 1 / (intensity * length) because the differences are divided by the spacing.
#ifndef gpurTVDenoiser_h
#define gpurTVDenoiser_h

#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurGrid.h"

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gpur
{

/** The primal-dual method that solves ROF. */
enum class TVAlgorithm
{
  /** Chambolle-Pock [Chambolle2011, Alg. 1], constant steps tau = sigma = 1/||grad||, theta = 1. */
  ChambollePock,
  /** Chambolle-Pock [Chambolle2011, Alg. 2], O(1/k^2) for the strongly convex ROF; the default. */
  AcceleratedChambollePock,
  /**
   * PDU of [Huang2023, Algorithm 1] (the PDHG of [Zhu2008] with the step schedule of
   * [Huang2023, eqs. (3.6)-(3.7)], after [Knoll2010]): update u then p (Gauss-Seidel,
   * as the GPU workflow [Huang2023, Algorithm 4] runs it; Algorithm 1 prints the
   * dual step with u^k), tau_D = 0.3 + 0.02 (k + k0), tau_P = (1/tau_D)(1/6 - 5/(15 + k + k0)).
   */
  PDU
};

/** "ChambollePock", "AcceleratedChambollePock" or "PDU". */
const char *
ToString(TVAlgorithm algorithm);
/** Writes ToString(algorithm). */
std::ostream &
operator<<(std::ostream & os, TVAlgorithm algorithm);
/** "cp", "accelerated" (or "acp") or "pdu"; throws InvalidArgument otherwise. */
TVAlgorithm
ParseTVAlgorithm(const std::string & text);

/** Parameters of a TV denoising run. */
struct TVParameters
{
  double lambda = 8.0; ///< fidelity weight, > 0
  /** The method. */
  TVAlgorithm algorithm = TVAlgorithm::AcceleratedChambollePock;
  /**
   * The iteration budget, >= 1; the gap stop ends a run earlier. The default
   * meets the default gap tolerance with room to spare on the test volumes:
   * noisy Shepp-Logan 256^2 and 64^3 (sigma 0.1) and the simulated CT machined
   * part 96^3, for lambda from 2 (heavy smoothing) up, with every method. The
   * most measured (float, accelerated CP at lambda 2) was 1470 iterations;
   * lambda >= 4 took at most 760, lambda >= 12 at most 480 (see docs/total-variation.md).
   */
  unsigned maxIterations = 2000;
  /**
   * Stop when the relative gap |(P - D) / P| <= gapTolerance (checked every
   * gapCheckInterval iterations); 0 runs maxIterations. Must be 0 or at least
   * TVGapFloor of the pixel type and method.
   */
  double gapTolerance = 1e-4;
  /** Iterations between gap evaluations (one extra pass each); 0 never checks. */
  unsigned gapCheckInterval = 10;
  /**
   * k0 of the PDU schedule. The literal schedule of [Huang2023, eqs. (3.6)-(3.7)]
   * (k0 = 0) has tau_P < 0 for k < 15, which makes the error rise first (the
   * initial rise of [Huang2023, §6.2.1, Fig. 6.3]); the default 15
   * starts where tau_P = 0 and converges to the same minimiser without the transient.
   */
  unsigned pduOffset = 15;
  /**
   * Several OpenCL devices (a device selection such as "all") split a 3D
   * volume into z-slabs, one per device, each padded by exchangeInterval + 1
   * slices of its neighbours and refreshed every exchangeInterval iterations:
   * the result equals a single-device run. Larger values exchange less often
   * but compute more redundant slices. >= 1.
   */
  unsigned exchangeInterval = 8;
  /**
   * Store the dual variable p in IEEE half precision (16 bits) on OpenCL
   * devices, arithmetic staying in float: the iterations move 2d bytes per
   * voxel less (d = dimension). float images only (double images are
   * refused); the CPU reference keeps p in float (TVReport::dualStorage
   * says which storage ran). Off by default: see
   * docs/benchmarks.md for the objective excess and the speed-up measured.
   */
  bool halfPrecisionDual = false;

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;
};

/** What a run did. */
struct TVReport
{
  ResolvedBackend backend;  ///< what ran
  unsigned iterations = 0;  ///< iterations run
  bool converged = false;   ///< the gap tolerance was reached
  double primal = 0.0;      ///< P(u) = lambda/2 ||u-f||^2 + TV(u) at the end
  double dual = 0.0;        ///< D(p) = -<f, div p> - ||div p||^2 / (2 lambda)
  double relativeGap = 0.0; ///< (P - D) / P at the end; converged means |relativeGap| <= gapTolerance
  double seconds = 0.0;     ///< wall time of the solve (upload to download)
  /**
   * z-regions per device when the volume did not fit in the device memory
   * budget (ExecutionOptions::deviceMemoryLimit) and streamed through host
   * memory; 0 when it stayed in device memory (or ran on the CPU).
   */
  std::size_t streamRegions = 0;
  /** How p was stored: "float16" (TVParameters::halfPrecisionDual on OpenCL), else the pixel type's name. */
  std::string dualStorage;
  /** (iteration, relative gap) at every check, for convergence plots and tests. */
  std::vector<std::pair<unsigned, double>> gapHistory;
  /**
   * What the caller should be told about the result, one sentence each: that a
   * run with a gap tolerance ended without meeting it (the iteration budget ran
   * out, or the gap went negative beyond rounding). The ITK filters show them
   * with itkWarningMacro, Python with ConvergenceWarning, the tools on stderr.
   */
  std::vector<std::string> warnings;
};

/**
 * The rounding floor of the relative gap of a method in Real arithmetic: the
 * smallest gap tolerance accepted (a smaller one throws InvalidArgument). The
 * gap of a Real solve stops following the exact one there, so a smaller
 * tolerance would only run the iteration budget out. Measured as the largest
 * |gap(float) - gap(double)| of the same solve over 3000 iterations (noisy
 * Shepp-Logan 256^2 and 64^3, lambda 4, 12, 45, CPU and OpenCL): 1.3e-7 for
 * the Chambolle-Pock methods, 7.7e-7 for PDU (whose dual step grows with k);
 * double solves reach gaps of 1e-15. The floors: float 2e-7 (CP methods) and
 * 1e-6 (PDU), double 1e-12.
 */
template<typename Real>
double
TVGapFloor(TVAlgorithm algorithm);

/** "float32" or "float64". */
template<typename Real>
const char *
TVPrecisionName();

/**
 * Denoises f into u (both grid.Count() values, x fastest). u is written only
 * when the run succeeds. Throws InvalidArgument for a bad grid, parameters or
 * non-finite input, Aborted when the callback returns false, OpenCLError for a
 * device failure, Error when the energies become non-finite.
 *
 * Scale-covariant: (s f, lambda / s) gives s u to rounding (the step balance
 * is set by lambda, see gpurTVSchedule.h, and the steppers work on f divided
 * by a power of two when max|f| is outside [2^-20, 2^20], which is exact).
 * lambda max|f| l (l the voxel size 2 sqrt(d) / ||grad||) above 1e12 for
 * float (1e100 for double), or below the inverse with a gap tolerance, is
 * refused with InvalidArgument: the solver's squares would leave Real's range.
 * A gap tolerance below TVGapFloor<Real> is refused too. On OpenCL the host
 * stays within about 0.2 s of the device, so the callback sees finished work.
 */
template<typename Real>
TVReport
DenoiseTV(const Real * f,
          Real * u,
          const Grid & grid,
          const TVParameters & parameters,
          const ExecutionOptions & execution = ExecutionOptions(),
          const ProgressCallback & callback = ProgressCallback());

/**
 * The whole state of a primal-dual run, so that it can be continued later or
 * elsewhere. Chunked (dask) and multi-device runs advance padded blocks by a
 * round of B iterations, keep the blocks' interiors and exchange them between
 * rounds; because every voxel update only reads its neighbours, this is exact
 * when the padding is at least B + 1 voxels.
 */
template<typename Real>
struct TVStateView
{
  Real * u = nullptr;   ///< grid.Count() values
  Real * bar = nullptr; ///< the extrapolated ubar, grid.Count() values; needed by the CP methods, unused by PDU
  /** The dual field: grid.dimension components of grid.Count() values, component-major (p_x, p_y[, p_z]). */
  Real * p = nullptr;
};

/** The state every run starts from: u = ubar = f, p = 0. */
template<typename Real>
void
InitializeTVState(const Real * f, const Grid & grid, const TVStateView<Real> & state);

/**
 * Runs iterations [first, first + count) of the method's schedule on the state,
 * in place, without gap checks. Consecutive calls give exactly (bit for bit)
 * the same state as one call over the whole range, and the same u as DenoiseTV
 * with gapTolerance = 0 and maxIterations = first + count (also on blocks of a
 * volume whose intensities differ in magnitude: the rescaling is by powers of
 * two). With a weight, the step balance uses the mean weight of the grid
 * given, so blocks of a weighted volume agree with one run when their weights
 * have the same mean (e.g. normalised per block). The report's energies and
 * gap are not evaluated (NaN); the callback sees (k, first + count). `weight`:
 * the data-term weight as in DenoiseWeightedTV, or null.
 */
template<typename Real>
TVReport
ContinueTV(const Real * f,
           const Real * weight,
           const Grid & grid,
           const TVParameters & parameters,
           unsigned first,
           unsigned count,
           const TVStateView<Real> & state,
           const ExecutionOptions & execution = ExecutionOptions(),
           const ProgressCallback & callback = ProgressCallback());

/**
 * The padding, in voxels per side, that keeps a block's interior exact, bit
 * for bit, through `iterations` iterations without an exchange: iterations + 1
 * (the TV layout's stencil radius of one voxel per iteration, see
 * FieldLayout::Halo). Rounds of ContinueTV on chunks (dask) and ITK streaming
 * of a fixed iteration count pad by it.
 */
std::size_t
TVHalo(unsigned iterations);

/**
 * The fewest bytes per voxel that one iteration of a ROF primal-dual method
 * must move between memory and the processor: the state (u and the d = dimension
 * components of p) read and written once, and the inputs f (and the
 * data-term weight w when weighted) read once, i.e. 3 + 2d values
 * (+1 weighted); p at 2 bytes with half-precision duals. The same for
 * (accelerated) Chambolle-Pock, whose extrapolated ubar is recomputed from
 * the old and new u instead of stored, and for PDU, whose dual step reads the
 * new u. float: 28 bytes in 2D, 36 in 3D (weighted 32, 40); double twice
 * that; half duals 20 and 24. The OpenCL iteration (one fused pass) moves
 * exactly this between gap checks; tv_bench reports speeds against the copy
 * bandwidth divided by it.
 */
std::size_t
TVMinimalBytesPerVoxel(TVAlgorithm algorithm,
                       unsigned dimension,
                       bool weighted,
                       std::size_t realSize,
                       bool halfPrecisionDual = false);

/**
 * Statistical (noise-weighted) TV, the S-PDU model of [Huang2023, eq. (2.5)]:
 *   min_u  (lambda/2) sum_i (u_i - f_i)^2 / w_i + TV(u),
 * with w_i > 0 the noise variance of voxel i (or a power of it, normalised):
 * noisier voxels are smoothed more; the local fidelity is lambda / w_i. Every
 * algorithm takes the weight (PDU becomes S-PDU, [Huang2023, eq. (3.11)]; the CP methods use
 * the weighted prox). The energies in the report are the weighted ones:
 * P = (lambda/2) sum (u-f)^2/w + TV(u), D = -<f, div p> - sum w (div p)^2 / (2 lambda).
 * weight = null is DenoiseTV. Throws InvalidArgument for a weight that is not
 * finite and > 0 everywhere.
 */
template<typename Real>
TVReport
DenoiseWeightedTV(const Real * f,
                  const Real * weight,
                  Real * u,
                  const Grid & grid,
                  const TVParameters & parameters,
                  const ExecutionOptions & execution = ExecutionOptions(),
                  const ProgressCallback & callback = ProgressCallback());

/** ROF objective P(u) = lambda/2 ||u - f||^2 + TV(u), evaluated on the CPU in double. */
template<typename Real>
double
ROFObjective(const Real * f, const Real * u, const Grid & grid, double lambda);

} // namespace gpur

#endif
