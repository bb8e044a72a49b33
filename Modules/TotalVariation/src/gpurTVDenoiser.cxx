#include "gpurTVDenoiser.h"

#include "gpurError.h"
#include "gpurFiniteDifference.h"
#include "gpurTVStepper.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>

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

template<typename Real>
double
DataEnergy(const Real * f, std::size_t n, double lambda)
{
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    s += static_cast<double>(f[i]) * f[i];
  }
  return 0.5 * lambda * s;
}

template<typename Real>
void
RunIterations(TVStepper<Real> & stepper,
              const TVParameters & parameters,
              const Grid & grid,
              double dataEnergy,
              const IterationCallback & callback,
              TVReport & report)
{
  TVSchedule schedule(parameters, grid);
  stepper.Initialize();
  const bool checkGap = parameters.gapCheckInterval > 0 && parameters.gapTolerance > 0.0;
  for (unsigned k = 0; k < parameters.maxIterations; ++k)
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
    report.iterations = k + 1;
    if (callback && !callback(k + 1, parameters.maxIterations))
    {
      throw Aborted();
    }
    if (checkGap && (k + 1) % parameters.gapCheckInterval == 0)
    {
      SetEnergies(report, stepper.Energies(), parameters.lambda, dataEnergy);
      report.gapHistory.emplace_back(k + 1, report.relativeGap);
      if (report.relativeGap <= parameters.gapTolerance)
      {
        report.converged = true;
        return;
      }
    }
  }
  SetEnergies(report, stepper.Energies(), parameters.lambda, dataEnergy);
  report.converged = parameters.gapTolerance > 0.0 && report.relativeGap <= parameters.gapTolerance;
}

} // namespace

template<typename Real>
TVReport
DenoiseTV(const Real * f,
          Real * u,
          const Grid & grid,
          const TVParameters & parameters,
          const ExecutionOptions & execution,
          const IterationCallback & callback)
{
  grid.Validate();
  parameters.Validate();
  if (f == nullptr || u == nullptr)
  {
    throw InvalidArgument("DenoiseTV: the input and output arrays must not be null");
  }
  RequireFinite(f, grid.Count(), "the input image");

  TVReport report;
  report.backend = ResolveBackend(execution, std::is_same<Real, double>::value);
  const auto start = std::chrono::steady_clock::now();
  const bool usesBar = parameters.algorithm != TVAlgorithm::PDU;
  TranslateCLErrors(
    [&]
    {
      std::unique_ptr<TVStepper<Real>> stepper;
      if (report.backend.backend == Backend::OpenCL)
      {
        stepper = MakeTVStepperOpenCL(f, grid, usesBar, report.backend.device);
      }
      else
      {
        stepper =
          MakeTVStepperCPU(f, grid, usesBar, execution.parallelFor ? execution.parallelFor : MakeThreadParallelFor());
      }
      RunIterations(*stepper, parameters, grid, DataEnergy(f, grid.Count(), parameters.lambda), callback, report);
      stepper->Read(u); // the only write to u: never half-written
    });
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  template double ROFObjective(const Real *, const Real *, const Grid &, double);
GPUR_INSTANTIATE_TV(float)
GPUR_INSTANTIATE_TV(double)
#undef GPUR_INSTANTIATE_TV

} // namespace gpur
