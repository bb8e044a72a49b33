// SPDX-License-Identifier: Apache-2.0
#include "gpurGraphMeanCurvatureFlow.h"

#include "gpurCurvatureFlowArithmetic.h"
#include "gpurCurvatureFlowKernels.h"
#include "gpurError.h"
#include "gpurIterativeDriver.h"
#include "gpurLaunch.h"
#include "gpurProgram.h"
#include "gpurRungeKuttaMersonDevice.h"
#include "gpurText.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace gpur
{

void
GraphMeanCurvatureFlowParameters::Validate(const Grid & grid) const
{
  const std::string what = "mean-curvature flow of graphs: ";
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
    throw InvalidArgument(what + "the grim reaper and Scherk's surface solve the flow with regularization 1 only");
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

  Stencil(const Grid & grid, const GraphMeanCurvatureFlowParameters & p)
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

/** The CPU reference: Scheme 3.1 row by row on the parallel loop. */
template<typename Real>
class HostGraphMCF : public MethodOfLinesSystem<Real>
{
public:
  HostGraphMCF(const Grid & grid, const GraphMeanCurvatureFlowParameters & p, const ParallelForFunction & parallelFor)
    : m_S(grid, p)
    , m_ParallelFor(parallelFor)
  {
  }
  std::size_t
  Size() const override
  {
    return m_S.nx * m_S.ny;
  }
  void
  Evaluate(double time, const Real * u, Real * f) override
  {
    using namespace curvatureflow;
    const Stencil<Real> & s = m_S;
    const Real t = static_cast<Real>(time);
    const std::size_t nx = s.nx;
    std::fill(f, f + nx, Real(0));
    std::fill(f + (s.ny - 1) * nx, f + s.ny * nx, Real(0));
    RunParallel(m_ParallelFor,
                s.ny - 2,
                [&](std::size_t b, std::size_t e)
                {
                  for (std::size_t j = b + 1; j < e + 1; ++j)
                  {
                    f[nx * j] = f[nx * j + nx - 1] = 0;
                    for (std::size_t i = 1; i + 1 < nx; ++i)
                    {
                      const std::size_t p = i + nx * j;
                      Real v = mcf_speed(u[p],
                                         u[p + 1],
                                         u[p - 1],
                                         u[p + nx],
                                         u[p - nx],
                                         u[p + nx + 1],
                                         u[p + nx - 1],
                                         u[p - nx + 1],
                                         u[p - nx - 1],
                                         s.ih1,
                                         s.ih2,
                                         s.eps2);
                      if (s.kind == 1)
                        v += mcf_forcing(t, s.x0 + Real(i) * s.h1, s.y0 + Real(j) * s.h2, s.k, s.r, s.sigma, s.eps2);
                      f[p] = v;
                    }
                  }
                });
  }
  void
  Constrain(double time, Real * u) override
  {
    using namespace curvatureflow;
    const Stencil<Real> & s = m_S;
    if (!s.neumann && s.kind == 0)
      return;
    const Real t = static_cast<Real>(time);
    auto set = [&](std::size_t i, std::size_t j)
    {
      u[i + s.nx * j] = s.neumann
                          ? u[mcf_neumann_source(long(i), long(j), long(s.nx), long(s.ny))]
                          : mcf_exact(s.kind, t, s.x0 + Real(i) * s.h1, s.y0 + Real(j) * s.h2, s.k, s.r, s.sigma);
    };
    for (std::size_t i = 0; i < s.nx; ++i)
    {
      set(i, 0);
      set(i, s.ny - 1);
    }
    for (std::size_t j = 1; j + 1 < s.ny; ++j)
    {
      set(0, j);
      set(s.nx - 1, j);
    }
  }

private:
  Stencil<Real> m_S;
  ParallelForFunction m_ParallelFor;
};

/** The OpenCL twin: kernels mcf_rhs and mcf_constrain, the mode in build options. */
template<typename Real>
class DeviceGraphMCF : public DeviceMethodOfLinesSystem<Real>
{
public:
  DeviceGraphMCF(DeviceContext & context, const Grid & grid, const GraphMeanCurvatureFlowParameters & p)
    : m_S(grid, p)
    , m_Range(MakeImageRange(grid, context.Info()))
  {
    const Program program = BuildProgram(context,
                                         ProgramSpec("mean-curvature flow of graphs", std::is_same<Real, double>::value)
                                           .Core({ "gpur_common.cl" })
                                           .Module(kernels::curvatureflow::Find, { "curvatureflow_mcf.cl" })
                                           .Define("MCF_SOLUTION", std::to_string(m_S.kind))
                                           .Define("MCF_NEUMANN", m_S.neumann ? "1" : "0"));
    m_Rhs = program.MakeKernel("mcf_rhs");
    m_Constrain = program.MakeKernel("mcf_constrain");
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
    const Stencil<Real> & s = m_S;
    m_Rhs.Launch(queue,
                 m_Range,
                 u.Get(),
                 f.Get(),
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
  Stencil<Real> m_S;
  ImageRange m_Range;
  Kernel m_Rhs;
  Kernel m_Constrain;
};

} // namespace

template<typename Real>
GraphMeanCurvatureFlow<Real>::GraphMeanCurvatureFlow(const Real * initial,
                                                     const Grid & grid,
                                                     const GraphMeanCurvatureFlowParameters & parameters,
                                                     const ExecutionOptions & execution)
{
  parameters.Validate(grid);
  if (initial == nullptr)
    throw InvalidArgument("mean-curvature flow of graphs: no initial image");
  if (!std::all_of(initial, initial + grid.Count(), [](Real v) { return std::isfinite(v); }))
    throw InvalidArgument("mean-curvature flow of graphs: the initial image has values that are not finite");
  MersonParameters merson;
  // The tolerance is in units of the regularization, the unit of height: scaling the image and the regularization
  // by one factor then scales the whole run, its error estimates included, and it takes the same steps.
  merson.tolerance = parameters.tolerance * parameters.regularization;
  const double h = std::min(grid.spacing[0], grid.spacing[1]);
  // h²/4: about the stability limit of an explicit step of the second-order operator, so the first step is rarely
  // rejected; the step control takes over from there.
  merson.initialStep = parameters.initialStep > 0.0 ? parameters.initialStep : h * h / 4;
  merson.maximumSteps = parameters.maximumSteps;
  m_Backend = ResolveBackend(execution, std::is_same<Real, double>::value);
  std::unique_ptr<MersonStages<Real>> stages;
  if (m_Backend.backend == Backend::OpenCL)
  {
    auto context = DeviceContext::Get(m_Backend.device);
    TranslateCLErrors(
      [&]
      {
        stages =
          MakeDeviceMersonStages<Real>(*context, std::make_shared<DeviceGraphMCF<Real>>(*context, grid, parameters));
      });
  }
  else
  {
    const ParallelForFunction loop = ResolveParallelFor(execution.parallelFor);
    stages = MakeHostMersonStages<Real>(std::make_shared<HostGraphMCF<Real>>(grid, parameters, loop), loop);
  }
  m_Integrator = std::make_unique<MersonIntegrator<Real>>(std::move(stages), merson);
  m_Integrator->Load(initial);
}

template<typename Real>
GraphMeanCurvatureFlow<Real>::~GraphMeanCurvatureFlow() = default;

template<typename Real>
const MersonReport &
GraphMeanCurvatureFlow<Real>::AdvanceTo(double time, const ProgressCallback & callback)
{
  const MersonReport * report = nullptr;
  TimedRun([&] { report = &m_Integrator->AdvanceTo(time, callback); });
  return *report;
}

template<typename Real>
void
GraphMeanCurvatureFlow<Real>::Read(Real * u)
{
  TimedRun([&] { m_Integrator->Store(u); });
}

template<typename Real>
GraphFlowReport
GraphMeanCurvatureFlowRun(const Real * initial,
                          Real * output,
                          const Grid & grid,
                          const GraphMeanCurvatureFlowParameters & parameters,
                          const ExecutionOptions & execution,
                          const ProgressCallback & callback)
{
  GraphFlowReport report;
  report.seconds = TimedRun(
    [&]
    {
      GraphMeanCurvatureFlow<Real> flow(initial, grid, parameters, execution);
      report.backend = flow.Backend().DescribeWithReason();
      report.steps = flow.AdvanceTo(parameters.finalTime, callback);
      flow.Read(output);
    });
  return report;
}

double
GraphFlowExactSolution(const GraphMeanCurvatureFlowParameters & p, double t, double x, double y)
{
  if (p.solution == GraphFlowSolution::None)
    throw InvalidArgument("mean-curvature flow of graphs: no exact solution was chosen");
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

#define GPUR_INSTANTIATE_GRAPH_MCF(Real)                                                                               \
  template class GraphMeanCurvatureFlow<Real>;                                                                         \
  template GraphFlowReport GraphMeanCurvatureFlowRun(const Real *,                                                     \
                                                     Real *,                                                           \
                                                     const Grid &,                                                     \
                                                     const GraphMeanCurvatureFlowParameters &,                         \
                                                     const ExecutionOptions &,                                         \
                                                     const ProgressCallback &);                                        \
  template double GraphSurfaceArea(const Real *, const Grid &, double);
GPUR_INSTANTIATE_GRAPH_MCF(float)
GPUR_INSTANTIATE_GRAPH_MCF(double)

} // namespace gpur
