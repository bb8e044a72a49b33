#include "gpurTVDenoiser.h"

#include "gpurError.h"
#include "gpurFiniteDifference.h"
#include "gpurTVSlabStepper.h"
#include "gpurTVStepper.h"
#include "gpurTVStreamStepper.h"
#include "gpurStopwatch.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>

namespace gpur
{

const char *
ToString(TVAlgorithm algorithm)
{
  switch (algorithm)
  {
    case TVAlgorithm::ChambollePock:
      return "ChambollePock";
    case TVAlgorithm::AcceleratedChambollePock:
      return "AcceleratedChambollePock";
    case TVAlgorithm::PDU:
      return "PDU";
  }
  return "unknown";
}

std::ostream &
operator<<(std::ostream & os, TVAlgorithm algorithm)
{
  return os << ToString(algorithm);
}

TVAlgorithm
ParseTVAlgorithm(const std::string & text)
{
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (t == "cp" || t == "chambollepock")
    return TVAlgorithm::ChambollePock;
  if (t == "accelerated" || t == "acp" || t == "acceleratedchambollepock")
    return TVAlgorithm::AcceleratedChambollePock;
  if (t == "pdu")
    return TVAlgorithm::PDU;
  throw InvalidArgument("unknown TV algorithm '" + text + "' (allowed: cp, accelerated, pdu)");
}

void
TVParameters::Validate() const
{
  if (!(lambda > 0.0) || !std::isfinite(lambda))
  {
    throw InvalidArgument("lambda is " + std::to_string(lambda) + "; it must be finite and > 0");
  }
  if (maxIterations == 0)
  {
    throw InvalidArgument("the maximum number of iterations is 0; it must be >= 1");
  }
  if (exchangeInterval == 0)
  {
    throw InvalidArgument("the halo exchange interval is 0; it must be >= 1");
  }
  if (!(gapTolerance >= 0.0) || !std::isfinite(gapTolerance))
  {
    throw InvalidArgument("the gap tolerance is " + std::to_string(gapTolerance) +
                          "; it must be finite and >= 0 (0 runs the maximum number of iterations)");
  }
}

namespace
{

/**
 * Fills P, D and the relative gap (P - D) / P. P >= D >= 0 in exact arithmetic.
 * For a (nearly) constant f, P is pure rounding noise, so the denominator has
 * a floor far below any real P: 1e-8 of P(0) = (lambda/2) ||f||^2.
 */
void
SetEnergies(TVReport & report, const TVEnergySums & s, double lambda, double dataEnergy)
{
  report.primal = 0.5 * lambda * s.fidelity + s.tv;
  report.dual = -s.fDivP - s.divPSquared / (2.0 * lambda);
  const double denominator = std::max(report.primal, 1e-8 * dataEnergy);
  report.relativeGap = denominator > 0.0 ? (report.primal - report.dual) / denominator : 0.0;
}

/** P(0) = (lambda/2) sum f^2 / w, the scale of the energies. */
template<typename Real>
double
DataEnergy(const Real * f, const Real * weight, std::size_t n, double lambda)
{
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    s += static_cast<double>(f[i]) * f[i] / (weight ? static_cast<double>(weight[i]) : 1.0);
  }
  return 0.5 * lambda * s;
}

template<typename Real>
double
MaxWeight(const Real * weight, std::size_t n)
{
  return weight ? static_cast<double>(*std::max_element(weight, weight + n)) : 1.0;
}

/** Runs iterations [first, first + count); with checkGap, stops early at the gap tolerance. */
template<typename Real>
void
RunIterations(TVStepper<Real> & stepper,
              const TVParameters & parameters,
              const Grid & grid,
              double maxWeight,
              unsigned first,
              unsigned count,
              bool checkGap,
              double dataEnergy,
              const IterationCallback & callback,
              TVReport & report)
{
  TVSchedule schedule(parameters, grid, maxWeight);
  for (unsigned k = 0; k < first; ++k)
  {
    schedule.Next(k); // the accelerated schedule's steps depend on all earlier ones
  }
  const unsigned end = first + count;
  for (unsigned k = first; k < end; ++k)
  {
    const TVStep step = schedule.Next(k);
    if (step.primalFirst)
    {
      stepper.Primal(step);
      stepper.Dual(step);
    }
    else
    {
      stepper.Dual(step);
      stepper.Primal(step);
    }
    stepper.EndIteration();
    report.iterations = k + 1 - first;
    if (callback && !callback(k + 1, end))
    {
      throw Aborted();
    }
    if (checkGap && (k + 1) % parameters.gapCheckInterval == 0)
    {
      SetEnergies(report, stepper.Energies(0, grid.size[2]), parameters.lambda, dataEnergy);
      report.gapHistory.emplace_back(k + 1, report.relativeGap);
      if (report.relativeGap <= parameters.gapTolerance)
      {
        report.converged = true;
        return;
      }
    }
  }
}

/** Checks the arguments every entry point shares and resolves the backend. */
template<typename Real>
ResolvedBackend
PrepareRun(const Real * f,
           const Real * weight,
           const Grid & grid,
           const TVParameters & parameters,
           const ExecutionOptions & execution)
{
  grid.Validate();
  parameters.Validate();
  if (f == nullptr)
  {
    throw InvalidArgument("TV denoising: the input array must not be null");
  }
  RequireFinite(f, grid.Count(), "the input image");
  if (weight != nullptr)
  {
    RequirePositiveFinite(weight, grid.Count(), "the data-term weight (noise variance)");
  }
  return ResolveBackend(execution, std::is_same<Real, double>::value);
}

/**
 * The stepper of a run: the CPU reference, one OpenCL device, or z-slabs over
 * several devices (3D volumes thick enough for slabs of exchangeInterval + 1
 * slices). A device whose part does not fit in its memory budget
 * (execution.deviceMemoryLimit) streams it through host memory. Trims
 * backend.devices to the devices used.
 */
template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeStepper(const Real * f,
            const Real * weight,
            const Grid & grid,
            const TVParameters & parameters,
            ResolvedBackend & backend,
            const ExecutionOptions & execution)
{
  const bool usesBar = parameters.algorithm != TVAlgorithm::PDU;
  if (backend.backend != Backend::OpenCL)
  {
    return MakeTVStepperCPU(
      f, weight, grid, usesBar, execution.parallelFor ? execution.parallelFor : MakeThreadParallelFor());
  }
  const std::size_t slabs = TVSlabCount(grid, backend.devices.size(), parameters.exchangeInterval + 1);
  backend.devices.resize(slabs);
  const auto devices = backend.devices;
  const std::uint64_t limit = execution.deviceMemoryLimit;
  const unsigned interval = parameters.exchangeInterval;
  if (slabs < 2)
  {
    return MakeTVDeviceStepper(f, weight, grid, usesBar, backend.device, limit, interval);
  }
  return MakeTVSlabStepper<Real>(
    f,
    weight,
    grid,
    slabs,
    interval,
    [&devices, usesBar, limit, interval](std::size_t s, const Real * sf, const Real * sw, const Grid & sub)
    { return MakeTVDeviceStepper(sf, sw, sub, usesBar, devices[s], limit, interval); });
}

} // namespace

template<typename Real>
TVReport
DenoiseWeightedTV(const Real * f,
                  const Real * weight,
                  Real * u,
                  const Grid & grid,
                  const TVParameters & parameters,
                  const ExecutionOptions & execution,
                  const IterationCallback & callback)
{
  TVReport report;
  report.backend = PrepareRun(f, weight, grid, parameters, execution);
  if (u == nullptr)
  {
    throw InvalidArgument("DenoiseTV: the output array must not be null");
  }
  const Stopwatch stopwatch;
  TranslateCLErrors(
    [&]
    {
      const auto stepper = MakeStepper(f, weight, grid, parameters, report.backend, execution);
      report.streamRegions = stepper->StreamRegions();
      stepper->Initialize();
      const bool checkGap = parameters.gapCheckInterval > 0 && parameters.gapTolerance > 0.0;
      const double dataEnergy = DataEnergy(f, weight, grid.Count(), parameters.lambda);
      RunIterations(*stepper,
                    parameters,
                    grid,
                    MaxWeight(weight, grid.Count()),
                    0,
                    parameters.maxIterations,
                    checkGap,
                    dataEnergy,
                    callback,
                    report);
      if (!report.converged)
      {
        SetEnergies(report, stepper->Energies(0, grid.size[2]), parameters.lambda, dataEnergy);
        report.converged = parameters.gapTolerance > 0.0 && report.relativeGap <= parameters.gapTolerance;
      }
      HostTVState<Real> output;
      output.view.u = u;
      stepper->Store(output, 0, grid.size[2]); // the only write to u: never half-written
    });
  report.seconds = stopwatch.Seconds();
  return report;
}

template<typename Real>
TVReport
DenoiseTV(const Real * f,
          Real * u,
          const Grid & grid,
          const TVParameters & parameters,
          const ExecutionOptions & execution,
          const IterationCallback & callback)
{
  return DenoiseWeightedTV(f, static_cast<const Real *>(nullptr), u, grid, parameters, execution, callback);
}

template<typename Real>
void
InitializeTVState(const Real * f, const Grid & grid, const TVStateView<Real> & state)
{
  const std::size_t n = grid.Count();
  std::copy(f, f + n, state.u);
  if (state.bar != nullptr)
  {
    std::copy(f, f + n, state.bar);
  }
  std::fill(state.p, state.p + grid.dimension * n, Real(0));
}

template<typename Real>
TVReport
ContinueTV(const Real * f,
           const Real * weight,
           const Grid & grid,
           const TVParameters & parameters,
           unsigned first,
           unsigned count,
           const TVStateView<Real> & state,
           const ExecutionOptions & execution,
           const IterationCallback & callback)
{
  TVReport report;
  report.backend = PrepareRun(f, weight, grid, parameters, execution);
  if (state.u == nullptr || state.p == nullptr || (state.bar == nullptr && parameters.algorithm != TVAlgorithm::PDU))
  {
    throw InvalidArgument(std::string("ContinueTV: the state needs u, p") +
                          (parameters.algorithm != TVAlgorithm::PDU ? " and ubar" : "") + " arrays");
  }
  RequireFinite(state.u, grid.Count(), "the state u");
  report.primal = report.dual = report.relativeGap = std::numeric_limits<double>::quiet_NaN();
  const Stopwatch stopwatch;
  TranslateCLErrors(
    [&]
    {
      const auto stepper = MakeStepper(f, weight, grid, parameters, report.backend, execution);
      report.streamRegions = stepper->StreamRegions();
      HostTVState<Real> host;
      host.view = state;
      stepper->Load(AsConst(host), 0, grid.size[2]);
      RunIterations(
        *stepper, parameters, grid, MaxWeight(weight, grid.Count()), first, count, false, 0.0, callback, report);
      stepper->Store(host, 0, grid.size[2]);
    });
  report.seconds = stopwatch.Seconds();
  return report;
}

template<typename Real>
double
ROFObjective(const Real * f, const Real * u, const Grid & grid, double lambda)
{
  const StencilGeometry<Real> g(grid);
  double fidelity = 0.0, tv = 0.0;
  std::size_t i = 0;
  for (std::size_t z = 0; z < g.nz; ++z)
    for (std::size_t y = 0; y < g.ny; ++y)
      for (std::size_t x = 0; x < g.nx; ++x, ++i)
      {
        const auto gr = ForwardGradient(u, g, x, y, z, i);
        const double d = static_cast<double>(u[i]) - f[i];
        fidelity += d * d;
        tv += std::sqrt(double(gr[0]) * gr[0] + double(gr[1]) * gr[1] + double(gr[2]) * gr[2]);
      }
  return 0.5 * lambda * fidelity + tv;
}

#define GPUR_INSTANTIATE_TV(Real)                                                                                      \
  template TVReport DenoiseTV(                                                                                         \
    const Real *, Real *, const Grid &, const TVParameters &, const ExecutionOptions &, const IterationCallback &);    \
  template TVReport DenoiseWeightedTV(const Real *,                                                                    \
                                      const Real *,                                                                    \
                                      Real *,                                                                          \
                                      const Grid &,                                                                    \
                                      const TVParameters &,                                                            \
                                      const ExecutionOptions &,                                                        \
                                      const IterationCallback &);                                                      \
  template void InitializeTVState(const Real *, const Grid &, const TVStateView<Real> &);                              \
  template TVReport ContinueTV(const Real *,                                                                           \
                               const Real *,                                                                           \
                               const Grid &,                                                                           \
                               const TVParameters &,                                                                   \
                               unsigned,                                                                               \
                               unsigned,                                                                               \
                               const TVStateView<Real> &,                                                              \
                               const ExecutionOptions &,                                                               \
                               const IterationCallback &);                                                             \
  template double ROFObjective(const Real *, const Real *, const Grid &, double);
GPUR_INSTANTIATE_TV(float)
GPUR_INSTANTIATE_TV(double)
#undef GPUR_INSTANTIATE_TV

} // namespace gpur
