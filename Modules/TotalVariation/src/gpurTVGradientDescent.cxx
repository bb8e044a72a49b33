// SPDX-License-Identifier: Apache-2.0
// Driver of the TV-GD engine: validation, the iteration loop with the global
// L2 normalisation, the stopping rule and progress. The backends (steppers)
// execute the two halves of an iteration, see gpurTVGDStepper.h.
#include "gpurTVGradientDescent.h"
#include "gpurOpenCL.h" // TranslateCLErrors

#include "gpurAutoBackend.h"
#include "gpurTVDenoiser.h" // TVPrecisionName
#include "gpurIterativeDriver.h"
#include "gpurTVGDStepper.h"
#include "gpurTVScaling.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <vector>

namespace gpur
{

const char *
ToString(TVGDVariant variant)
{
  switch (variant)
  {
    case TVGDVariant::TV:
      return "TV";
    case TVGDVariant::AdaptiveWeightedTV:
      return "AdaptiveWeightedTV";
  }
  return "unknown";
}

std::ostream &
operator<<(std::ostream & os, TVGDVariant variant)
{
  return os << ToString(variant);
}

const char *
ToString(TVGDStepUnit unit)
{
  switch (unit)
  {
    case TVGDStepUnit::L2Norm:
      return "L2Norm";
    case TVGDStepUnit::RMS:
      return "RMS";
  }
  return "unknown";
}

std::ostream &
operator<<(std::ostream & os, TVGDStepUnit unit)
{
  return os << ToString(unit);
}

namespace
{

std::string
Lower(const std::string & text)
{
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return t;
}

std::string
Number(double v)
{
  std::ostringstream os;
  os << v;
  return os.str();
}

} // namespace

TVGDVariant
ParseTVGDVariant(const std::string & text)
{
  const std::string t = Lower(text);
  if (t == "tv" || t == "plain")
    return TVGDVariant::TV;
  if (t == "awtv" || t == "aw" || t == "aw-tv" || t == "adaptive" || t == "adaptiveweightedtv")
    return TVGDVariant::AdaptiveWeightedTV;
  throw InvalidArgument("unknown TV gradient-descent variant '" + text + "' (allowed: tv, awtv)");
}

TVGDStepUnit
ParseTVGDStepUnit(const std::string & text)
{
  const std::string t = Lower(text);
  if (t == "l2" || t == "l2norm")
    return TVGDStepUnit::L2Norm;
  if (t == "rms")
    return TVGDStepUnit::RMS;
  throw InvalidArgument("unknown TV gradient-descent step unit '" + text + "' (allowed: l2, rms)");
}

void
TVGDParameters::Validate() const
{
  if (!(lambda > 0.0) || !std::isfinite(lambda))
  {
    throw InvalidArgument("TV gradient descent: lambda (the step length) is " + Number(lambda) +
                          "; it must be finite and > 0");
  }
  if (iterations == 0)
  {
    throw InvalidArgument("TV gradient descent: the number of iterations is 0; it must be >= 1");
  }
  if (!(targetResidual >= 0.0) || !std::isfinite(targetResidual))
  {
    throw InvalidArgument("TV gradient descent: the target residual ||u - f|| is " + Number(targetResidual) +
                          "; it must be finite and >= 0 (0 runs all iterations)");
  }
  if (variant != TVGDVariant::TV && variant != TVGDVariant::AdaptiveWeightedTV)
  {
    throw InvalidArgument("TV gradient descent: unknown variant");
  }
  if (stepUnit != TVGDStepUnit::L2Norm && stepUnit != TVGDStepUnit::RMS)
  {
    throw InvalidArgument("TV gradient descent: unknown step unit");
  }
  if (variant == TVGDVariant::AdaptiveWeightedTV && !(delta > 0.0))
  {
    throw InvalidArgument("TV gradient descent: delta (the AW-TV weight scale) is " + Number(delta) +
                          "; it must be > 0 (+inf gives plain TV)");
  }
}

double
TVGDParameters::StepLength(const Grid & grid) const
{
  return stepUnit == TVGDStepUnit::RMS ? lambda * std::sqrt(static_cast<double>(grid.Count())) : lambda;
}

namespace
{

TVGDStencilConstants
StencilConstants(const TVGDParameters & parameters)
{
  TVGDStencilConstants c;
  if (parameters.variant == TVGDVariant::AdaptiveWeightedTV)
  {
    c.inverseDeltaSquared = 1.0 / (parameters.delta * parameters.delta); // 0 for delta = +inf
  }
  return c;
}

template<typename Real>
ResolvedBackend
PrepareRun(const Real * f,
           const Real * u,
           const Grid & grid,
           const TVGDParameters & parameters,
           const ExecutionOptions & execution,
           bool uIsInput,
           const AutoProbe & probe)
{
  grid.Validate();
  parameters.Validate();
  if (f == nullptr)
  {
    throw InvalidArgument("TV gradient descent: the input array f must not be null");
  }
  if (u == nullptr)
  {
    throw InvalidArgument("TV gradient descent: the output array u must not be null");
  }
  RequireFinite(f, grid.Count(), "the input image");
  if (uIsInput)
  {
    RequireFinite(u, grid.Count(), "the starting image u");
  }
  ResolvedBackend backend = ResolveBackend(execution, std::is_same<Real, double>::value, probe);
  // TV-GD runs on the first selected device (no slabs): report only that one.
  if (backend.devices.size() > 1)
  {
    backend.devices.resize(1);
  }
  return backend;
}

template<typename Real>
std::unique_ptr<TVGDStepper<Real>>
MakeStepper(const Real * f,
            const Grid & grid,
            const TVGDParameters & parameters,
            const ResolvedBackend & backend,
            const ExecutionOptions & execution)
{
  const TVGDStencilConstants constants = StencilConstants(parameters);
  if (backend.backend == Backend::OpenCL)
  {
    return MakeTVGDStepperOpenCL(f, grid, constants, backend.device);
  }
  return MakeTVGDStepperCPU(f, grid, constants, ResolveParallelFor(execution.parallelFor));
}

/**
 * Auto's speed probe (gpurExecution.h): iterations of this descent (gradient,
 * its global norm, update) from f on the leading z-slices (rows in 2D) of f,
 * at most kAutoProbeVoxels voxels.
 */
template<typename Real>
AutoProbe
MakeAutoProbe(const Real * f, const Grid & grid, const TVGDParameters & parameters, const ExecutionOptions & execution)
{
  AutoProbe probe;
  probe.family = "TV-GD";
  probe.precision = TVPrecisionName<Real>();
  probe.grid = LeadingPart(grid, kAutoProbeVoxels);
  probe.prepare = [f, parameters, execution, part = probe.grid](const ResolvedBackend & candidate)
  {
    std::shared_ptr<TVGDStepper<Real>> stepper = MakeStepper(f, part, parameters, candidate, execution);
    stepper->Initialize();
    const double length = parameters.StepLength(part);
    return [stepper, length, slices = part.size[2]](unsigned steps)
    {
      for (unsigned i = 0; i < steps; ++i)
      {
        const double norm = std::sqrt(stepper->Gradient(0, slices)); // waits for the device
        stepper->Update(norm > 0.0 ? length / norm : 0.0, 0, slices, false);
      }
    };
  };
  return probe;
}

/** Throws when a norm of the descent is not finite: u left the range of the pixel type. */
void
RequireFiniteDescent(double value, const char * what, unsigned iterations)
{
  if (!std::isfinite(value))
  {
    throw Error(std::string("TV gradient descent: ") + what + " is not finite after " + std::to_string(iterations) +
                " iterations: u left the range of the pixel type (is the step lambda far larger than the "
                "image's intensities?); no result is returned");
  }
}

/**
 * The parameters in the units of the working image f / 2^e (see gpurTVScaling.h):
 * the step, delta and the target residual are intensities (per length for
 * delta) and scale with it. The flux's epsilon does not, so normalising makes
 * the descent scale-covariant: (s f, s lambda, s delta) gives s u.
 */
TVGDParameters
WorkingParameters(const TVGDParameters & parameters, int e)
{
  TVGDParameters w = parameters;
  w.lambda = std::ldexp(parameters.lambda, -e);
  w.delta = std::ldexp(parameters.delta, -e);
  w.targetResidual = std::ldexp(parameters.targetResidual, -e);
  return w;
}

/** The iterations of one run on a stepper holding u; fills the report. */
template<typename Real>
void
Iterate(TVGDStepper<Real> & stepper,
        const Grid & grid,
        const TVGDParameters & parameters,
        bool checkStartResidual,
        const ProgressCallback & callback,
        TVGDReport & report)
{
  const std::size_t slices = grid.size[2];
  const double target = parameters.targetResidual;
  report.stepLength = parameters.StepLength(grid);
  if (checkStartResidual && target > 0.0)
  {
    report.residual = std::sqrt(stepper.Residual(0, slices));
    if (report.residual >= target)
    {
      report.targetReached = true;
      return;
    }
  }
  StepLoop loop;
  loop.maximumSteps = parameters.iterations;
  loop.step = [&](unsigned k)
  {
    report.gradientNorm = std::sqrt(stepper.Gradient(0, slices));
    RequireFiniteDescent(report.gradientNorm, "the TV gradient norm", report.iterations);
    if (report.gradientNorm == 0.0)
    {
      // du = 0: u is a stationary point of TV (e.g. constant); further iterations change nothing.
      report.stationary = true;
      report.residual = std::sqrt(stepper.Residual(0, slices));
      return StepVerdict::Halted;
    }
    const bool withResidual = target > 0.0 || k + 1 == parameters.iterations;
    const double r2 = stepper.Update(report.stepLength / report.gradientNorm, 0, slices, withResidual);
    report.iterations = k + 1;
    if (withResidual)
    {
      report.residual = std::sqrt(r2);
      RequireFiniteDescent(report.residual, "the residual ||u - f||", report.iterations);
    }
    report.targetReached = target > 0.0 && report.residual >= target;
    return report.targetReached ? StepVerdict::Finished : StepVerdict::Accepted;
  };
  RunSteps(loop, callback);
}

template<typename Real>
TVGDReport
Run(const Real * f,
    Real * u,
    bool continueFromU,
    const Grid & grid,
    const TVGDParameters & parameters,
    const ExecutionOptions & execution,
    const ProgressCallback & callback)
{
  TVGDReport report;
  report.backend =
    PrepareRun(f, u, grid, parameters, execution, continueFromU, MakeAutoProbe(f, grid, parameters, execution));
  const std::size_t n = grid.Count();
  // Solve on f / 2^e in [-1, 1] (exact; e depends on f only, so continued runs agree bit for bit).
  const int e = UnitExponent(MaxAbs(f, n));
  std::vector<Real> scaledF, scaledU;
  const Real * g = ScaledByPowerOfTwo(f, n, e, scaledF);
  const TVGDParameters working = WorkingParameters(parameters, e);
  report.seconds = TimedRun(
    [&]
    {
      const auto stepper = MakeStepper(g, grid, working, report.backend, execution);
      if (continueFromU)
      {
        stepper->Load(ScaledByPowerOfTwo(u, n, e, scaledU), 0, grid.size[2]);
      }
      else
      {
        stepper->Initialize();
      }
      Iterate(*stepper, grid, working, continueFromU, callback, report);
      stepper->Store(u, 0, grid.size[2]); // the only write to u: never half-written
      MultiplyByPowerOfTwo(u, n, e);
    });
  report.stepLength = parameters.StepLength(grid);
  report.residual = std::ldexp(report.residual, e);
  return report;
}

} // namespace

template<typename Real>
TVGDReport
DenoiseTVGD(const Real * f,
            Real * u,
            const Grid & grid,
            const TVGDParameters & parameters,
            const ExecutionOptions & execution,
            const ProgressCallback & callback)
{
  return Run(f, u, false, grid, parameters, execution, callback);
}

template<typename Real>
TVGDReport
ContinueTVGD(const Real * f,
             Real * u,
             const Grid & grid,
             const TVGDParameters & parameters,
             const ExecutionOptions & execution,
             const ProgressCallback & callback)
{
  return Run(f, u, true, grid, parameters, execution, callback);
}

template<typename Real>
double
TotalVariationBackward(const Real * u, const Grid & grid)
{
  grid.Validate();
  const StencilGeometry<Real> g(grid);
  double tv = 0.0;
  std::size_t i = 0;
  for (std::size_t z = 0; z < g.nz; ++z)
    for (std::size_t y = 0; y < g.ny; ++y)
      for (std::size_t x = 0; x < g.nx; ++x, ++i)
      {
        const double dx = x > 0 ? (static_cast<double>(u[i]) - u[i - 1]) / grid.spacing[0] : 0.0;
        const double dy = y > 0 ? (static_cast<double>(u[i]) - u[i - g.sy]) / grid.spacing[1] : 0.0;
        const double dz = z > 0 ? (static_cast<double>(u[i]) - u[i - g.sz]) / grid.spacing[2] : 0.0;
        tv += std::sqrt(dx * dx + dy * dy + dz * dz);
      }
  return tv;
}

template<typename Real>
void
TVGradient(const Real * u, Real * du, const Grid & grid, const TVGDParameters & parameters)
{
  grid.Validate();
  parameters.Validate();
  if (u == nullptr || du == nullptr)
  {
    throw InvalidArgument("TVGradient: the arrays must not be null");
  }
  const StencilGeometry<Real> g(grid);
  const TVGDStencilConstants c = StencilConstants(parameters);
  const Real inverseDelta2 = static_cast<Real>(c.inverseDeltaSquared), eps = static_cast<Real>(c.epsilon);
  std::size_t i = 0;
  for (std::size_t z = 0; z < g.nz; ++z)
    for (std::size_t y = 0; y < g.ny; ++y)
      for (std::size_t x = 0; x < g.nx; ++x, ++i)
        du[i] = TVGDGradientAt(u, g, inverseDelta2, eps, x, y, z, i);
}

#define GPUR_INSTANTIATE_TVGD(Real)                                                                                    \
  template TVGDReport DenoiseTVGD(                                                                                     \
    const Real *, Real *, const Grid &, const TVGDParameters &, const ExecutionOptions &, const ProgressCallback &);   \
  template TVGDReport ContinueTVGD(                                                                                    \
    const Real *, Real *, const Grid &, const TVGDParameters &, const ExecutionOptions &, const ProgressCallback &);   \
  template double TotalVariationBackward(const Real *, const Grid &);                                                  \
  template void TVGradient(const Real *, Real *, const Grid &, const TVGDParameters &);
GPUR_INSTANTIATE_TVGD(float)
GPUR_INSTANTIATE_TVGD(double)
#undef GPUR_INSTANTIATE_TVGD

} // namespace gpur
