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

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gpur
{

/** The primal-dual method that solves ROF. */
enum class TVAlgorithm
{
  /** Chambolle-Pock 2011 (Alg. 1), constant steps tau = sigma = 1/||grad||, theta = 1. */
  ChambollePock,
  /** Chambolle-Pock 2011 (Alg. 2), O(1/k^2) for the strongly convex ROF; the default. */
  AcceleratedChambollePock,
  /**
   * The thesis' PDU (Zhu-Chan PDHG with the Knoll schedule): update u then p
   * (Gauss-Seidel), tau_D = 0.3 + 0.02 (k + k0), tau_P = (1/tau_D)(1/6 - 5/(15 + k + k0)).
   */
  PDU
};

const char *
ToString(TVAlgorithm algorithm);
std::ostream &
operator<<(std::ostream & os, TVAlgorithm algorithm);
/** "cp", "accelerated" (or "acp") or "pdu"; throws InvalidArgument otherwise. */
TVAlgorithm
ParseTVAlgorithm(const std::string & text);

/** Parameters of a TV denoising run. */
struct TVParameters
{
  double lambda = 8.0; ///< fidelity weight, > 0
  TVAlgorithm algorithm = TVAlgorithm::AcceleratedChambollePock;
  unsigned maxIterations = 500; ///< >= 1
  /** Stop when (P - D) / P <= gapTolerance; 0 runs maxIterations. */
  double gapTolerance = 1e-4;
  /** Iterations between gap evaluations (one extra pass each); 0 never checks. */
  unsigned gapCheckInterval = 10;
  /**
   * k0 of the PDU schedule. The thesis' literal schedule (k0 = 0) has tau_P < 0
   * for k < 15, which makes the error rise first (digest 0.3a); the default 15
   * starts where tau_P = 0 and converges to the same minimiser without the transient.
   */
  unsigned pduOffset = 15;

  /** Throws InvalidArgument naming the bad parameter and the allowed range. */
  void
  Validate() const;
};

/** What a run did. */
struct TVReport
{
  ResolvedBackend backend;
  unsigned iterations = 0;
  bool converged = false;   ///< the gap tolerance was reached
  double primal = 0.0;      ///< P(u) = lambda/2 ||u-f||^2 + TV(u) at the end
  double dual = 0.0;        ///< D(p) = -<f, div p> - ||div p||^2 / (2 lambda)
  double relativeGap = 0.0; ///< (P - D) / P at the end
  double seconds = 0.0;     ///< wall time of the solve (upload to download)
  /** (iteration, relative gap) at every check, for convergence plots and tests. */
  std::vector<std::pair<unsigned, double>> gapHistory;
};

/**
 * Denoises f into u (both grid.Count() values, x fastest). u is written only
 * when the run succeeds. Throws InvalidArgument for a bad grid, parameters or
 * non-finite input, Aborted when the callback returns false, OpenCLError for a
 * device failure.
 */
template<typename Real>
TVReport
DenoiseTV(const Real * f,
          Real * u,
          const Grid & grid,
          const TVParameters & parameters,
          const ExecutionOptions & execution = ExecutionOptions(),
          const IterationCallback & callback = IterationCallback());

/** ROF objective P(u) = lambda/2 ||u - f||^2 + TV(u), evaluated on the CPU in double. */
template<typename Real>
double
ROFObjective(const Real * f, const Real * u, const Grid & grid, double lambda);

} // namespace gpur

#endif
