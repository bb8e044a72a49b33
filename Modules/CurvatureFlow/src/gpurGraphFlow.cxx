// SPDX-License-Identifier: Apache-2.0
#include "gpurGraphFlow.h"

#include "gpurAutoBackend.h"
#include "gpurCurvatureFlowArithmetic.h"
#include "gpurCurvatureFlowKernels.h"
#include "gpurError.h"
#include "gpurIterativeDriver.h"
#include "gpurLaunch.h"
#include "gpurProgram.h"
#include "gpurRungeKuttaMersonDevice.h"
#include "gpurStopwatch.h"
#include "gpurText.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <vector>

namespace gpur
{

const char *
ToString(GraphFlowType flow)
{
  return flow == GraphFlowType::Willmore ? "Willmore" : "MeanCurvature";
}

const char *
ToString(GraphFlowBoundary boundary)
{
  return boundary == GraphFlowBoundary::Neumann ? "Neumann" : "Dirichlet";
}

GraphFlowType
ParseGraphFlowType(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "mean" || lower == "meancurvature")
    return GraphFlowType::MeanCurvature;
  if (lower == "willmore")
    return GraphFlowType::Willmore;
  throw InvalidArgument("unknown graph flow '" + text + "'; use mean or willmore");
}

GraphFlowBoundary
ParseGraphFlowBoundary(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "dirichlet")
    return GraphFlowBoundary::Dirichlet;
  if (lower == "neumann")
    return GraphFlowBoundary::Neumann;
  throw InvalidArgument("unknown graph-flow boundary '" + text + "'; use neumann or dirichlet");
}

/**
 * The time a flow spends in its right-hand side, in all and its shortest
 * evaluation: CPU loops add their wall time; OpenCL kernels add their
 * profiled events (one or two per evaluation), read in batches (the host
 * waits for every step's error estimate, so those events are long complete
 * and reading them never stalls the queue).
 */
struct GraphFlowClock
{
  double seconds = 0.0;
  double best = 0.0;
  std::vector<cl::Event> pending;
  std::vector<std::size_t> ends; // one past each finished evaluation's last event in `pending`

  /** A CPU evaluation of `evaluation` seconds. */
  void
  AddEvaluation(double evaluation)
  {
    seconds += evaluation;
    best = best > 0.0 ? std::min(best, evaluation) : evaluation;
  }
  /** A kernel of the evaluation under way. */
  void
  Add(const cl::Event & event)
  {
    pending.push_back(event);
  }
  /** The evaluation under way has enqueued all its kernels. */
  void
  EndEvaluation()
  {
    ends.push_back(pending.size());
    if (pending.size() >= 256)
      Flush();
  }
  /** Reads the events of the finished evaluations. */
  std::array<double, 2>
  Flush()
  {
    if (!pending.empty())
    {
      cl::Event::waitForEvents(pending);
      std::size_t first = 0;
      for (const std::size_t end : ends)
      {
        double evaluation = 0.0;
        for (; first < end; ++first)
          evaluation += EventSeconds(pending[first]);
        AddEvaluation(evaluation);
      }
      pending.clear();
      ends.clear();
    }
    return { { seconds, best } };
  }
};

void
GraphFlowParameters::Validate(const Grid & grid) const
{
  const bool willmore = flow == GraphFlowType::Willmore;
  const std::string what = willmore ? "Willmore flow of graphs: " : "mean-curvature flow of graphs: ";
  if (grid.size[2] != 1 || grid.size[0] < 3 || grid.size[1] < 3)
    throw InvalidArgument(what + "the image must be 2D with at least 3 x 3 pixels (got " + grid.ToString() + ")");
  for (unsigned d = 0; d < 2; ++d)
    if (!(grid.spacing[d] > 0.0) || !std::isfinite(grid.spacing[d]))
      throw InvalidArgument(what + "the spacing must be > 0 and finite (got " + grid.ToString() + ")");
  if (!(finalTime > 0.0) || !std::isfinite(finalTime))
    throw InvalidArgument(what + "the final time must be > 0 and finite (got " + ToText(finalTime) + ")");
  if (!(tolerance > 0.0) || !std::isfinite(tolerance))
    throw InvalidArgument(what + "the tolerance must be > 0 and finite (got " + ToText(tolerance) + ")");
  if (!(initialStep >= 0.0) || !std::isfinite(initialStep))
    throw InvalidArgument(what + "the initial step must be >= 0 (0: automatic) and finite (got " + ToText(initialStep) +
                          ")");
  if (!(regularization > 0.0) || !std::isfinite(regularization))
    throw InvalidArgument(what + "the regularization must be > 0 and finite (got " + ToText(regularization) + ")");
  if (maximumSteps < 1)
    throw InvalidArgument(what + "the maximum number of steps must be >= 1");
  if (solution == GraphFlowSolution::None)
    return;
  if (boundary != GraphFlowBoundary::Dirichlet)
    throw InvalidArgument(what + "an exact solution gives Dirichlet data: use the Dirichlet boundary with it");
  if (solution == GraphFlowSolution::Manufactured &&
      (manufactured.exponent < 1 || manufactured.exponent > 16 || !(manufactured.radius > 0.0) ||
       !std::isfinite(manufactured.radius) || !(manufactured.decay >= 0.0) || !std::isfinite(manufactured.decay)))
    throw InvalidArgument(what + "the manufactured solution needs an exponent in [1, 16], a radius > 0 and a decay "
                                 ">= 0, all finite");
  if (solution != GraphFlowSolution::Manufactured && regularization != 1.0)
    throw InvalidArgument(what + "the grim reaper, Scherk's surface and the spherical cap solve the flows with "
                                 "regularization 1 only");
  if (willmore ? solution == GraphFlowSolution::GrimReaper : solution == GraphFlowSolution::SphericalCap)
    throw InvalidArgument(what + (willmore ? "the grim reaper solves mean-curvature flow only"
                                           : "the spherical cap is stationary for Willmore flow only"));
  if (solution == GraphFlowSolution::SphericalCap)
  {
    const double x = std::max(std::abs(origin[0]), std::abs(origin[0] + (grid.size[0] - 1) * grid.spacing[0]));
    const double y = std::max(std::abs(origin[1]), std::abs(origin[1] + (grid.size[1] - 1) * grid.spacing[1]));
    if (!(manufactured.radius > 0.0) || x * x + y * y >= manufactured.radius * manufactured.radius)
      throw InvalidArgument(what + "the spherical cap's radius must exceed the largest distance of a node from 0");
  }
}

namespace
{

/** What the per-node functions of curvatureflow_mcf.cl take, in Real. */
template<typename Real>
struct Stencil
{
  std::size_t nx, ny;
  Real h1, h2, ih1, ih2, eps2, x0, y0, r, sigma;
  int kind, k;
  bool neumann;

  Stencil(const Grid & grid, const GraphFlowParameters & p)
    : nx(grid.size[0])
    , ny(grid.size[1])
    , h1(static_cast<Real>(grid.spacing[0]))
    , h2(static_cast<Real>(grid.spacing[1]))
    , ih1(static_cast<Real>(1.0 / grid.spacing[0]))
    , ih2(static_cast<Real>(1.0 / grid.spacing[1]))
    , eps2(static_cast<Real>(p.regularization * p.regularization))
    , x0(static_cast<Real>(p.origin[0]))
    , y0(static_cast<Real>(p.origin[1]))
    , r(static_cast<Real>(p.manufactured.radius))
    , sigma(static_cast<Real>(p.manufactured.decay))
    , kind(static_cast<int>(p.solution))
    , k(p.manufactured.exponent)
    , neumann(p.boundary == GraphFlowBoundary::Neumann)
  {
  }
};

// The row loops below are kept out of line: inlined into the parallel loop's
// std::function, GCC (12) no longer vectorises them (-fopt-info-vec).
#if defined(__GNUC__) || defined(__clang__)
#define GPUR_ROW_LOOP __attribute__((noinline))
#else
#define GPUR_ROW_LOOP
#endif

/**
 * f = the mean-curvature speed at the nodes [first, last) of u (rows of nx):
 * a loop of its own over plain arguments, which the compiler vectorises.
 */
template<typename Real>
GPUR_ROW_LOOP void
MeanCurvatureRow(const Real * u, Real * f, std::size_t first, std::size_t last, long nx, Real ih1, Real ih2, Real eps2)
{
  for (std::size_t p = first; p < last; ++p)
    f[p] = curvatureflow::mcf_speed_at(u, long(p), nx, ih1, ih2, eps2);
}

/** f = the Willmore speed at the nodes [first, last) of u and w (rows of nx), as MeanCurvatureRow. */
GPUR_ROW_LOOP void
WillmoreRow(const double * u,
            const double * w,
            double * f,
            std::size_t first,
            std::size_t last,
            long nx,
            double ih1,
            double ih2,
            double eps2)
{
  for (std::size_t p = first; p < last; ++p)
    f[p] = curvatureflow::wf_speed_at(u, w, long(p), nx, ih1, ih2, eps2);
}

/** The CPU reference's boundary: the constraints both flows share (Dirichlet data, Neumann copies). */
template<typename Real>
class HostGraphSystem : public MethodOfLinesSystem<Real>
{
public:
  HostGraphSystem(const Grid & grid,
                  const GraphFlowParameters & p,
                  const ParallelForFunction & parallelFor,
                  std::shared_ptr<GraphFlowClock> clock)
    : m_S(grid, p)
    , m_ParallelFor(parallelFor)
    , m_Clock(std::move(clock))
  {
  }
  std::size_t
  Size() const override
  {
    return m_S.nx * m_S.ny;
  }
  void
  Constrain(double time, Real * u) override
  {
    using namespace curvatureflow;
    const Stencil<Real> & s = m_S;
    if (!s.neumann && s.kind == 0)
      return;
    const Real t = static_cast<Real>(time);
    ForBoundary(
      [&](std::size_t i, std::size_t j)
      {
        u[i + s.nx * j] = s.neumann
                            ? u[mcf_neumann_source(long(i), long(j), long(s.nx), long(s.ny))]
                            : mcf_exact(s.kind, t, s.x0 + Real(i) * s.h1, s.y0 + Real(j) * s.h2, s.k, s.r, s.sigma);
      });
  }

protected:
  /**
   * The manufactured solution's factors mcf_factor(x_i) and mcf_factor(y_j)
   * of orders 0..order for every column i and row j (GraphFlowSolution::
   * Manufactured only): they depend on x or y alone, so the forcing
   * (mcf_forcing_of, wf_forcing_of) need not recompute their exp per node.
   */
  void
  PrecomputeFactors(int order)
  {
    const Stencil<Real> & s = m_S;
    if (s.kind != 1)
      return;
    m_FactorX.resize(s.nx * kFactors);
    m_FactorY.resize(s.ny * kFactors);
    for (std::size_t i = 0; i < s.nx; ++i)
      curvatureflow::mcf_factor(s.x0 + Real(i) * s.h1, s.k, s.r, s.sigma, order, &m_FactorX[kFactors * i]);
    for (std::size_t j = 0; j < s.ny; ++j)
      curvatureflow::mcf_factor(s.y0 + Real(j) * s.h2, s.k, s.r, s.sigma, order, &m_FactorY[kFactors * j]);
  }

  /** set(i, j) on every boundary node. */
  template<typename Set>
  void
  ForBoundary(Set set) const
  {
    for (std::size_t i = 0; i < m_S.nx; ++i)
    {
      set(i, 0);
      set(i, m_S.ny - 1);
    }
    for (std::size_t j = 1; j + 1 < m_S.ny; ++j)
    {
      set(0, j);
      set(m_S.nx - 1, j);
    }
  }

  /**
   * f = 0 on the boundary, row(j, first, last) for the interior nodes
   * p = i + nx j in [first, last) of every interior row j, rows on the
   * parallel loop. A row's loop over its nodes holds the stencil alone,
   * which the compiler vectorises (not with a call to exp or cos for the
   * forcing in the same loop, nor with a test per node).
   */
  template<typename Row>
  void
  ForRows(Real * f, Row row)
  {
    ForBoundary([&](std::size_t i, std::size_t j) { f[i + m_S.nx * j] = 0; });
    RunParallel(m_ParallelFor,
                m_S.ny - 2,
                [&](std::size_t b, std::size_t e)
                {
                  for (std::size_t j = b + 1; j < e + 1; ++j)
                    row(j, 1 + m_S.nx * j, m_S.nx - 1 + m_S.nx * j);
                });
  }

  static constexpr std::size_t kFactors = MCF_FACTORS;
  Stencil<Real> m_S;
  ParallelForFunction m_ParallelFor;
  std::shared_ptr<GraphFlowClock> m_Clock;
  std::vector<Real> m_FactorX, m_FactorY; // PrecomputeFactors
};

/** Mean-curvature flow on the CPU: Scheme 3.1 (17), + F for the manufactured solution. */
template<typename Real>
class HostGraphMCF : public HostGraphSystem<Real>
{
public:
  HostGraphMCF(const Grid & grid,
               const GraphFlowParameters & p,
               const ParallelForFunction & parallelFor,
               std::shared_ptr<GraphFlowClock> clock)
    : HostGraphSystem<Real>(grid, p, parallelFor, std::move(clock))
  {
    this->PrecomputeFactors(2);
  }
  void
  Evaluate(double time, const Real * u, Real * f) override
  {
    using namespace curvatureflow;
    const Stencil<Real> & s = this->m_S;
    const Real t = static_cast<Real>(time);
    const long nx = long(s.nx);
    const Real ih1 = s.ih1, ih2 = s.ih2, eps2 = s.eps2; // locals: f's stores cannot alias them
    Real cs[2];
    mcf_time_factors(t, cs);
    const std::size_t m = this->kFactors;
    const Real *ax = this->m_FactorX.data(), *by = this->m_FactorY.data();
    const Stopwatch clock;
    this->ForRows(f,
                  [&](std::size_t j, std::size_t first, std::size_t last)
                  {
                    MeanCurvatureRow(u, f, first, last, nx, ih1, ih2, eps2);
                    // (Q H) + F, rounded as one expression would be.
                    if (s.kind == 1)
                      for (std::size_t p = first; p < last; ++p)
                        f[p] += mcf_forcing_of(ax + m * (p - first + 1), by + m * j, cs[0], cs[1], eps2);
                  });
    this->m_Clock->AddEvaluation(clock.Seconds());
  }
};

/** Willmore flow on the CPU (double): w (22)-(25) on every node, then Scheme 3.2's speed, + F_W. */
class HostGraphWillmore : public HostGraphSystem<double>
{
public:
  HostGraphWillmore(const Grid & grid,
                    const GraphFlowParameters & p,
                    const ParallelForFunction & parallelFor,
                    std::shared_ptr<GraphFlowClock> clock)
    : HostGraphSystem<double>(grid, p, parallelFor, std::move(clock))
    , m_W(grid.Count())
  {
    PrecomputeFactors(4);
  }
  void
  Evaluate(double t, const double * u, double * f) override
  {
    using namespace curvatureflow;
    const Stencil<double> & s = m_S;
    const std::size_t nx = s.nx;
    const double ih1 = s.ih1, ih2 = s.ih2, eps2 = s.eps2; // locals: the stores cannot alias them
    double cs[2];
    mcf_time_factors(t, cs);
    const double *ax = m_FactorX.data(), *by = m_FactorY.data();
    const Stopwatch clock;
    double * w = m_W.data();
    auto curvature = [&](std::size_t p) { return mcf_speed_at(u, long(p), long(nx), ih1, ih2, eps2); };
    ForRows(w,
            [&](std::size_t, std::size_t first, std::size_t last)
            { MeanCurvatureRow(u, w, first, last, long(nx), ih1, ih2, eps2); });
    ForBoundary(
      [&](std::size_t i, std::size_t j)
      {
        w[i + nx * j] = s.neumann ? curvature(std::size_t(mcf_neumann_source(long(i), long(j), long(nx), long(s.ny))))
                                  : wf_exact_w(s.kind, t, s.x0 + i * s.h1, s.y0 + j * s.h2, s.k, s.r, s.sigma, s.eps2);
      });
    ForRows(f,
            [&](std::size_t j, std::size_t first, std::size_t last)
            {
              WillmoreRow(u, w, f, first, last, long(nx), ih1, ih2, eps2);
              // The speed + F_W, rounded as one expression would be.
              if (s.kind == 1)
                for (std::size_t p = first; p < last; ++p)
                  f[p] += wf_forcing_of(ax + kFactors * (p - first + 1), by + kFactors * j, cs[0], cs[1], eps2);
            });
    m_Clock->AddEvaluation(clock.Seconds());
  }

private:
  std::vector<double> m_W;
};

/**
 * The OpenCL twins: kernels mcf_rhs, or wf_curvature and wf_rhs on a w
 * buffer of their own, and mcf_constrain; the flow, the solution and the
 * boundary in build options.
 */
template<typename Real>
class DeviceGraphSystem : public DeviceMethodOfLinesSystem<Real>
{
public:
  DeviceGraphSystem(DeviceContext & context,
                    const Grid & grid,
                    const GraphFlowParameters & p,
                    std::shared_ptr<GraphFlowClock> clock)
    : m_S(grid, p)
    , m_Range(MakeImageRange(grid, context.Info()))
    , m_Willmore(p.flow == GraphFlowType::Willmore)
    , m_Clock(std::move(clock))
  {
    ProgramSpec spec(m_Willmore ? "Willmore flow of graphs" : "mean-curvature flow of graphs",
                     std::is_same<Real, double>::value);
    spec.Core({ "gpur_common.cl" });
    if (m_Willmore)
      spec.Module(kernels::curvatureflow::Find, { "curvatureflow_mcf.cl", "curvatureflow_willmore.cl" });
    else
      spec.Module(kernels::curvatureflow::Find, { "curvatureflow_mcf.cl" });
    const Program program = BuildProgram(
      context, spec.Define("MCF_SOLUTION", std::to_string(m_S.kind)).Define("MCF_NEUMANN", m_S.neumann ? "1" : "0"));
    m_Constrain = program.MakeKernel("mcf_constrain");
    if (m_Willmore)
    {
      m_Curvature = program.MakeKernel("wf_curvature");
      m_Rhs = program.MakeKernel("wf_rhs");
      m_W = DeviceBuffer<Real>(context, grid.Count());
    }
    else
      m_Rhs = program.MakeKernel("mcf_rhs");
    // The manufactured solution's factors per column and row (mcf_forcing_of); one value each otherwise (unread).
    const bool manufactured = m_S.kind == 1;
    m_FactorX = DeviceBuffer<Real>(context, manufactured ? MCF_FACTORS * m_S.nx : 1);
    m_FactorY = DeviceBuffer<Real>(context, manufactured ? MCF_FACTORS * m_S.ny : 1);
    if (manufactured)
    {
      Kernel factors = program.MakeKernel("mcf_factors");
      const cl_int order = m_Willmore ? 4 : 2;
      for (const auto & axis :
           { std::make_tuple(&m_FactorX, m_S.nx, m_S.x0, m_S.h1), std::make_tuple(&m_FactorY, m_S.ny, m_S.y0, m_S.h2) })
      {
        factors.Set(std::get<0>(axis)->Get(),
                    static_cast<cl_long>(std::get<1>(axis)),
                    std::get<2>(axis),
                    std::get<3>(axis),
                    static_cast<cl_int>(m_S.k),
                    m_S.r,
                    m_S.sigma,
                    order);
        factors.Enqueue(context.Queue(0), cl::NDRange(std::get<1>(axis)), cl::NullRange);
      }
    }
  }
  std::size_t
  Size() const override
  {
    return m_S.nx * m_S.ny;
  }
  void
  Evaluate(const cl::CommandQueue & queue,
           double t,
           const DeviceBuffer<Real> & u,
           const DeviceBuffer<Real> & f) override
  {
    if (m_Willmore)
    {
      Launch(m_Curvature, queue, t, u.Get(), m_W.Get());
      Launch(m_Rhs, queue, t, u.Get(), m_W.Get(), f.Get(), m_FactorX.Get(), m_FactorY.Get());
    }
    else
      Launch(m_Rhs, queue, t, u.Get(), f.Get(), m_FactorX.Get(), m_FactorY.Get());
    m_Clock->EndEvaluation();
  }
  void
  Constrain(const cl::CommandQueue & queue, double t, const DeviceBuffer<Real> & u) override
  {
    const Stencil<Real> & s = m_S;
    if (!s.neumann && s.kind == 0)
      return;
    m_Constrain.Set(u.Get(),
                    static_cast<cl_long>(s.nx),
                    static_cast<cl_long>(s.ny),
                    static_cast<Real>(t),
                    s.x0,
                    s.y0,
                    s.h1,
                    s.h2,
                    static_cast<cl_int>(s.k),
                    s.r,
                    s.sigma);
    m_Constrain.Enqueue(queue, cl::NDRange(2 * s.nx + 2 * (s.ny - 2)), cl::NullRange);
  }

private:
  /** One work-item per node: the buffers, then the arguments every stencil kernel shares. */
  template<typename... Buffers>
  void
  Launch(Kernel & kernel, const cl::CommandQueue & queue, double t, const Buffers &... buffers)
  {
    const Stencil<Real> & s = m_S;
    kernel.Set(buffers...,
               static_cast<cl_long>(s.nx),
               static_cast<cl_long>(s.ny),
               s.ih1,
               s.ih2,
               s.eps2,
               static_cast<Real>(t),
               s.x0,
               s.y0,
               s.h1,
               s.h2,
               static_cast<cl_int>(s.k),
               s.r,
               s.sigma);
    cl::Event event;
    kernel.Enqueue(queue, m_Range.global, m_Range.local, &event);
    m_Clock->Add(event);
  }

  Stencil<Real> m_S;
  ImageRange m_Range;
  bool m_Willmore;
  Kernel m_Rhs;
  Kernel m_Curvature;
  Kernel m_Constrain;
  DeviceBuffer<Real> m_W;
  DeviceBuffer<Real> m_FactorX, m_FactorY;
  std::shared_ptr<GraphFlowClock> m_Clock;
};

/** The CPU system of the flow (Willmore: double only, refused before). */
template<typename Real>
std::shared_ptr<MethodOfLinesSystem<Real>>
MakeHostSystem(const Grid & grid,
               const GraphFlowParameters & p,
               const ParallelForFunction & loop,
               const std::shared_ptr<GraphFlowClock> & clock)
{
  if constexpr (std::is_same<Real, double>::value)
    if (p.flow == GraphFlowType::Willmore)
      return std::make_shared<HostGraphWillmore>(grid, p, loop, clock);
  return std::make_shared<HostGraphMCF<Real>>(grid, p, loop, clock);
}

/** The integrator's state and stages of the flow on `grid` on the resolved backend `backend`. */
template<typename Real>
std::unique_ptr<MersonStages<Real>>
MakeStages(const Grid & grid,
           const GraphFlowParameters & parameters,
           const ResolvedBackend & backend,
           const ExecutionOptions & execution,
           const std::shared_ptr<GraphFlowClock> & clock)
{
  std::unique_ptr<MersonStages<Real>> stages;
  if (backend.backend == Backend::OpenCL)
  {
    auto context = DeviceContext::Get(backend.device);
    TranslateCLErrors(
      [&]
      {
        stages = MakeDeviceMersonStages<Real>(
          *context, std::make_shared<DeviceGraphSystem<Real>>(*context, grid, parameters, clock));
      });
    return stages;
  }
  const ParallelForFunction loop = ResolveParallelFor(execution.parallelFor);
  return MakeHostMersonStages<Real>(MakeHostSystem<Real>(grid, parameters, loop, clock), loop);
}

/**
 * Auto's probe (gpurAutoBackend.h): the five stages and the error estimate
 * of one Merson step (the whole work of a step but its cheap update) on the
 * leading rows of the run's own image, at least 3 rows. A step evaluates the
 * right-hand side five times (Willmore: with its curvature pass), so the part
 * is an eighth of the TV probe's size: a few milliseconds a step on a CPU.
 */
template<typename Real>
AutoProbe
MakeAutoProbe(const Real * initial,
              const Grid & grid,
              const GraphFlowParameters & parameters,
              double firstStep,
              const ExecutionOptions & execution)
{
  AutoProbe probe;
  probe.family = parameters.flow == GraphFlowType::Willmore ? "Willmore flow" : "mean-curvature flow";
  probe.precision = std::is_same<Real, double>::value ? "float64" : "float32";
  Grid part = LeadingPart(grid, kAutoProbeVoxels / 8);
  part.size[1] = std::min(grid.size[1], std::max<std::size_t>(part.size[1], 3));
  probe.grid = part;
  probe.prepare = [initial, parameters, firstStep, execution, part](const ResolvedBackend & candidate)
  {
    std::shared_ptr<MersonStages<Real>> stages =
      MakeStages<Real>(part, parameters, candidate, execution, std::make_shared<GraphFlowClock>());
    stages->Load(0.0, initial); // the leading rows are a prefix of the image
    return [stages, firstStep](unsigned steps)
    {
      for (unsigned i = 0; i < steps; ++i)
        stages->Stages(0.0, firstStep); // returns after reading the estimate: the work is done
    };
  };
  return probe;
}

} // namespace

template<typename Real>
GraphFlow<Real>::GraphFlow(const Real * initial,
                           const Grid & grid,
                           const GraphFlowParameters & parameters,
                           const ExecutionOptions & execution)
{
  parameters.Validate(grid);
  if (parameters.flow == GraphFlowType::Willmore && !std::is_same<Real, double>::value)
    throw InvalidArgument("Willmore flow of graphs needs double precision: in float the rounding of its fourth-order "
                          "scheme swamps the flow ([Oberhuber2011, §5] found float runs unusable); use a double image");
  if (initial == nullptr)
    throw InvalidArgument("graph flow: no initial image");
  if (!std::all_of(initial, initial + grid.Count(), [](Real v) { return std::isfinite(v); }))
    throw InvalidArgument("graph flow: the initial image has values that are not finite");
  MersonParameters merson;
  // The tolerance is in units of the regularization, the unit of height: scaling the image and the regularization
  // by one factor then scales the whole run, its error estimates included, and it takes the same steps.
  merson.tolerance = parameters.tolerance * parameters.regularization;
  const double h = std::min(grid.spacing[0], grid.spacing[1]);
  // h²/4 (h⁴/16 for the fourth-order flow): about the stability limit of an explicit step of the second-order operator,
  // so the first step is rarely rejected; the step control takes over from there.
  const bool willmore = parameters.flow == GraphFlowType::Willmore;
  merson.initialStep = parameters.initialStep > 0.0 ? parameters.initialStep
                       : willmore                   ? h * h * h * h / 16
                                                    : h * h / 4;
  merson.maximumSteps = parameters.maximumSteps;
  m_Backend = ResolveBackend(execution,
                             std::is_same<Real, double>::value,
                             MakeAutoProbe(initial, grid, parameters, merson.initialStep, execution));
  m_Clock = std::make_shared<GraphFlowClock>();
  m_Integrator =
    std::make_unique<MersonIntegrator<Real>>(MakeStages<Real>(grid, parameters, m_Backend, execution, m_Clock), merson);
  m_Integrator->Load(initial);
}

template<typename Real>
GraphFlow<Real>::~GraphFlow() = default;

template<typename Real>
const MersonReport &
GraphFlow<Real>::AdvanceTo(double time, const ProgressCallback & callback)
{
  const MersonReport * report = nullptr;
  TimedRun([&] { report = &m_Integrator->AdvanceTo(time, callback); });
  return *report;
}

template<typename Real>
std::array<double, 2>
GraphFlow<Real>::RightHandSideSeconds() const
{
  return TranslateCLErrors([&] { return m_Clock->Flush(); });
}

template<typename Real>
void
GraphFlow<Real>::Read(Real * u)
{
  TimedRun([&] { m_Integrator->Store(u); });
}

template<typename Real>
GraphFlowReport
GraphFlowRun(const Real * initial,
             Real * output,
             const Grid & grid,
             const GraphFlowParameters & parameters,
             const ExecutionOptions & execution,
             const ProgressCallback & callback)
{
  GraphFlowReport report;
  report.seconds = TimedRun(
    [&]
    {
      GraphFlow<Real> flow(initial, grid, parameters, execution);
      report.backend = flow.Backend().DescribeWithReason();
      report.steps = flow.AdvanceTo(parameters.finalTime, callback);
      flow.Read(output);
      const std::array<double, 2> rhs = flow.RightHandSideSeconds();
      report.rightHandSideSeconds = rhs[0];
      report.rightHandSideBestSeconds = rhs[1];
    });
  return report;
}

double
GraphFlowExactSolution(const GraphFlowParameters & p, double t, double x, double y)
{
  if (p.solution == GraphFlowSolution::None)
    throw InvalidArgument("graph flow: no exact solution was chosen");
  return curvatureflow::mcf_exact(
    static_cast<int>(p.solution), t, x, y, p.manufactured.exponent, p.manufactured.radius, p.manufactured.decay);
}

template<typename Real>
double
GraphSurfaceArea(const Real * u, const Grid & grid, double regularization)
{
  const std::size_t nx = grid.size[0], ny = grid.size[1];
  const double h1 = grid.spacing[0], h2 = grid.spacing[1];
  double area = 0.0;
  for (std::size_t j = 0; j + 1 < ny; ++j)
    for (std::size_t i = 0; i + 1 < nx; ++i)
    {
      const std::size_t p = i + nx * j;
      const double a = u[p], b = u[p + 1], c = u[p + nx], d = u[p + nx + 1];
      const double g1 = ((b - a) + (d - c)) / (2 * h1 * regularization);
      const double g2 = ((c - a) + (d - b)) / (2 * h2 * regularization);
      area += h1 * h2 * std::sqrt(1.0 + g1 * g1 + g2 * g2);
    }
  return area;
}

template<typename Real>
double
GraphWillmoreEnergy(const Real * u, const Grid & grid, double regularization)
{
  const std::size_t nx = grid.size[0], ny = grid.size[1];
  const double ih1 = 1.0 / grid.spacing[0], ih2 = 1.0 / grid.spacing[1];
  const double eps2 = regularization * regularization;
  double energy = 0.0;
  for (std::size_t j = 1; j + 1 < ny; ++j)
    for (std::size_t i = 1; i + 1 < nx; ++i)
    {
      const std::size_t p = i + nx * j;
      double qh[2];
      curvatureflow::mcf_node_curvature(double(u[p]),
                                        double(u[p + 1]),
                                        double(u[p - 1]),
                                        double(u[p + nx]),
                                        double(u[p - nx]),
                                        double(u[p + nx + 1]),
                                        double(u[p + nx - 1]),
                                        double(u[p - nx + 1]),
                                        double(u[p - nx - 1]),
                                        ih1,
                                        ih2,
                                        eps2,
                                        qh);
      energy += qh[1] * qh[1] * qh[0];
    }
  return energy * grid.spacing[0] * grid.spacing[1] / regularization;
}

#define GPUR_INSTANTIATE_GRAPH_FLOW(Real)                                                                              \
  template class GraphFlow<Real>;                                                                                      \
  template GraphFlowReport GraphFlowRun(const Real *,                                                                  \
                                        Real *,                                                                        \
                                        const Grid &,                                                                  \
                                        const GraphFlowParameters &,                                                   \
                                        const ExecutionOptions &,                                                      \
                                        const ProgressCallback &);                                                     \
  template double GraphSurfaceArea(const Real *, const Grid &, double);                                                \
  template double GraphWillmoreEnergy(const Real *, const Grid &, double);
GPUR_INSTANTIATE_GRAPH_FLOW(float)
GPUR_INSTANTIATE_GRAPH_FLOW(double)

} // namespace gpur
