// SPDX-License-Identifier: Apache-2.0
// The engine of the curvature flows of graphs: a 2D image u seen as the
// surface z = u(x, y) moves with a normal velocity given by its curvatures,
// the mean curvature (mean-curvature flow, second order,
// ∂t u = Q ∇·(∇u / Q), Q = sqrt(ε² + |∇u|²)) or minus the first variation of
// the Willmore energy (Willmore flow, fourth order), discretised in space by
// the complementary finite volumes of [Oberhuber2011, Schemes 3.1 and 3.2]
// and in time by the Runge-Kutta-Merson method of lines with automatic steps
// [Oberhuber2011, Algorithm 4.1] (gpurRungeKuttaMerson.h), on the CPU
// reference or OpenCL.
#ifndef gpurGraphFlow_h
#define gpurGraphFlow_h

#include "gpurExecution.h"
#include "gpurGrid.h"
#include "gpurProgress.h"
#include "gpurRungeKuttaMerson.h"

#include <array>
#include <memory>
#include <string>

namespace gpur
{

/** Which flow. */
enum class GraphFlowType
{
  /** V = H: ∂t u = Q ∇·(∇u / Q) [Oberhuber2011, Problem 2.1 with the sign of Scheme 3.1]; float or double. */
  MeanCurvature,
  /**
   * V = -Δ_Γ H - H³/2 + 2KH: ∂t u = -Q ∇·((1/Q) P ∇w - (w² / 2Q³) ∇u),
   * w = Q ∇·(∇u / Q), P = I - ∇u ⊗ ∇u / Q² [Oberhuber2011, Problem 2.2];
   * double only (in float the fourth-order scheme's rounding swamps it, as
   * the paper found, §5).
   */
  Willmore
};

/** The boundary condition of a graph flow. */
enum class GraphFlowBoundary
{
  /** The boundary values stay as given, eq. (18) of [Oberhuber2011] (or follow the exact solution); Willmore: w = 0
     there (eq. (23)), or the exact solution's w. */
  Dirichlet,
  /** Zero normal derivative: each boundary node copies its interior neighbour, eqs. (19)-(20) (and (24)-(25) for
     w). */
  Neumann
};

/** "MeanCurvature" or "Willmore". */
const char *
ToString(GraphFlowType flow);
/** "Dirichlet" or "Neumann". */
const char *
ToString(GraphFlowBoundary boundary);
/** Parses "mean" (or "meancurvature") or "willmore" (case-insensitive); throws InvalidArgument otherwise. */
GraphFlowType
ParseGraphFlowType(const std::string & text);
/** Parses "dirichlet" or "neumann" (case-insensitive); throws InvalidArgument otherwise. */
GraphFlowBoundary
ParseGraphFlowBoundary(const std::string & text);

/** The exact solutions the flow's tests are measured against (their values are the Dirichlet data). */
enum class GraphFlowSolution
{
  None,          ///< no exact solution: the flow of the image given
  Manufactured,  ///< (30) of [Oberhuber2011] with its forcing term added to the flow
  GrimReaper,    ///< u = t - ln cos x, a translating solution of mean-curvature flow (|x| < π/2)
  ScherkSurface, ///< u = ln cos y - ln cos x, a minimal surface: stationary for both flows (|x|, |y| < π/2)
  SphericalCap,  ///< u = sqrt(R² - x² - y²), R = ManufacturedGraph::radius: stationary for Willmore flow
};

/** The parameters of the manufactured solution (30) of [Oberhuber2011]: n, r and σ. */
struct ManufacturedGraph
{
  /**
   * The exponent n of (30). The paper does not state n, r, σ; n = r = σ = 1
   * reproduce its Tables 2-4 (our reproduction), so they are the defaults.
   */
  int exponent = 1;
  double radius = 1.0; ///< r of (30), or R of the spherical cap (> 0)
  double decay = 1.0;  ///< σ of (30) (>= 0)
};

/** The settings of a curvature flow of a graph. */
struct GraphFlowParameters
{
  GraphFlowType flow = GraphFlowType::MeanCurvature; ///< which flow
  /** The time T the flow runs to from 0 (> 0), in units of the spacing squared (Willmore: to the fourth). */
  double finalTime = 0.1;
  /**
   * ε of the step control [Oberhuber2011, Algorithm 4.1]: the largest error
   * estimate of an accepted step (> 0), in units of the regularization (the
   * unit of height, see there).
   */
  double tolerance = 1e-5;
  /**
   * τ of the first step; 0: h²/4 (mean curvature) or h⁴/16 (Willmore) with h
   * the smaller spacing (later steps follow the step control).
   */
  double initialStep = 0.0;
  /**
   * ε of Q = sqrt(ε² + |∇u|²) (> 0). 1 is the graph's Q of [Oberhuber2011,
   * eq. (5)]; the flow with ε is the graph flow of u/ε scaled back by ε, so ε
   * is the unit of height against the spacing: scaling the image and ε by
   * the same factor scales the result by it. As ε tends to 0 the flow tends
   * to the level-set mean-curvature flow of u's isolines, of which the
   * graph flow is the usual regularisation.
   */
  double regularization = 1.0;
  GraphFlowBoundary boundary = GraphFlowBoundary::Dirichlet; ///< the boundary condition
  GraphFlowSolution solution = GraphFlowSolution::None;      ///< an exact solution to follow (tests)
  ManufacturedGraph manufactured; ///< n, r, σ of GraphFlowSolution::Manufactured (R of SphericalCap)
  /** The physical position of node (0, 0), where the exact solutions are evaluated. */
  std::array<double, 2> origin{ { 0.0, 0.0 } };
  /** Accepted steps at most (>= 1); a run that needs more fails with NumericalError. */
  unsigned maximumSteps = 10000000;

  /** Throws InvalidArgument naming the setting and its allowed range (a 2D grid of at least 3 x 3 nodes). */
  void
  Validate(const Grid & grid) const;
};

/** What a run did. */
struct GraphFlowReport
{
  MersonReport steps;   ///< accepted and rejected steps, the time reached, the last step and error estimate
  std::string backend;  ///< "CPU" or "OpenCL: <device>", with why (ResolvedBackend::DescribeWithReason)
  double seconds = 0.0; ///< wall time of the run
  /**
   * The part of the run spent evaluating the right-hand side f (the
   * scheme's stencils, all stages, accepted and rejected steps): on OpenCL
   * the profiled time of its kernels, on the CPU reference the wall time of
   * its loops (what a benchmark divides the stencils' bytes and FLOPs by).
   */
  double rightHandSideSeconds = 0.0;
  /**
   * The shortest single evaluation of f in the run (0 before the first): a
   * benchmark's best-of-many figure, which time-sharing of the processors
   * inflates far less than the sum.
   */
  double rightHandSideBestSeconds = 0.0;
};

struct GraphFlowClock;

/**
 * A curvature flow in progress: the image's state on one backend,
 * advanced to output times one after the other (AdvanceTo) and read out
 * (Read) between them.
 */
template<typename Real>
class GraphFlow
{
public:
  /**
   * The flow of `initial` (grid.Count() values, x fastest) at time 0; throws
   * InvalidArgument for bad parameters, a grid that is not 2D or smaller
   * than 3 x 3, an initial image that is not finite, or
   * Willmore flow in float.
   */
  GraphFlow(const Real * initial,
            const Grid & grid,
            const GraphFlowParameters & parameters,
            const ExecutionOptions & execution = ExecutionOptions());
  /** Releases the backend's state. */
  ~GraphFlow();

  /** Integrates to `time` (>= the time reached), with progress in simulated time; the counts so far. */
  const MersonReport &
  AdvanceTo(double time, const ProgressCallback & callback = ProgressCallback());
  /** The image at the time reached (grid.Count() values). */
  void
  Read(Real * u);
  /** The backend that runs, with why. */
  const ResolvedBackend &
  Backend() const
  {
    return m_Backend;
  }
  /**
   * The seconds spent evaluating the right-hand side so far and the shortest
   * evaluation (see GraphFlowReport::rightHandSideSeconds and
   * rightHandSideBestSeconds), in that order.
   */
  std::array<double, 2>
  RightHandSideSeconds() const;

private:
  ResolvedBackend m_Backend;
  std::shared_ptr<GraphFlowClock> m_Clock;
  std::unique_ptr<MersonIntegrator<Real>> m_Integrator;
};

/** The flow of `initial` to parameters.finalTime into `output` (both grid.Count() values; they may be the same). */
template<typename Real>
GraphFlowReport
GraphFlowRun(const Real * initial,
             Real * output,
             const Grid & grid,
             const GraphFlowParameters & parameters,
             const ExecutionOptions & execution = ExecutionOptions(),
             const ProgressCallback & callback = ProgressCallback());

/** The exact solution `solution` (not None) of `parameters` at time t and point (x, y), in double. */
double
GraphFlowExactSolution(const GraphFlowParameters & parameters, double t, double x, double y);

/**
 * The area of the graph of u/ε over the grid's rectangle (ε the
 * regularization), which the flow decreases [Oberhuber2011, eqs. (1)-(2)]:
 * the sum over cells of h1 h2 sqrt(1 + |∇u/ε|²), the cell's gradient from
 * the means of its opposite edges' differences.
 */
template<typename Real>
double
GraphSurfaceArea(const Real * u, const Grid & grid, double regularization = 1.0);

/**
 * The Willmore energy ∫ H² dS of the graph of u/ε over the grid's interior
 * nodes (ε the regularization), which the Willmore flow decreases
 * [Oberhuber2011, eqs. (3)-(4)]: the sum of h1 h2 H² Q / ε with the scheme's
 * node curvature H (48) and Q (49), in double.
 */
template<typename Real>
double
GraphWillmoreEnergy(const Real * u, const Grid & grid, double regularization = 1.0);

} // namespace gpur

#endif
