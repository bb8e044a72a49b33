// SPDX-License-Identifier: Apache-2.0
#include "gpurTVDenoiser.h"

#include "gpurAutoBackend.h"
#include "gpurDecomposition.h"
#include "gpurError.h"
#include "gpurFiniteDifference.h"
#include "gpurIterativeDriver.h"
#include "gpurTVStepper.h"
#include "gpurTVScaling.h"
#include "gpurTVSchedule.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <type_traits>

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
 * The exact rescaling the steppers work in (see gpurTVScaling.h): intensities
 * divided by S = 2^intensity, spacings by H = 2^length. Substituting u = S v,
 * f = S g and h = H h' in the ROF energy (grad = grad' / H, TV scales as S / H):
 *   P(u) = (lambda/2) ||u - f||^2 + TV_h(u)
 *        = (S / H) [ (lambda S H / 2) ||v - g||^2 + TV_h'(v) ],
 * so v solves ROF on g with lambda S H (f -> f / s requires lambda -> lambda s),
 * u = S v, and P, D are S / H times those of the working problem; the dual p
 * is the same. The steps follow with TVStep::Scaled. S keeps the working
 * intensities within [2^-20, 2^20] (S = 1 when they are, so the input is not
 * copied), H brings the voxel size near 1; the step balance itself is set by
 * lambda (TVIntensityUnit), not by S, so the iterates do not depend on S.
 */
struct TVWorkingScale
{
  int intensity = 0;
  int length = 0;

  Grid
  Apply(const Grid & grid) const
  {
    Grid g = grid;
    for (unsigned d = 0; d < 3; ++d)
      g.spacing[d] = std::ldexp(grid.spacing[d], -length);
    return g;
  }
  TVStep
  Apply(const TVStep & step) const
  {
    return step.Scaled(intensity, length);
  }
  /** The sums of the working problem in the caller's units (fidelity S^2, TV and <f, div p> S / H, |div p|^2 1 / H^2).
   */
  TVEnergySums
  ToCaller(const TVEnergySums & w) const
  {
    TVEnergySums s;
    s.fidelity = std::ldexp(w.fidelity, 2 * intensity);
    s.tv = std::ldexp(w.tv, intensity - length);
    s.fDivP = std::ldexp(w.fDivP, intensity - length);
    s.divPSquared = std::ldexp(w.divPSquared, -2 * length);
    return s;
  }
};

/** Intensities whose magnitude lies in [2^-20, 2^20] are solved as they are. */
constexpr int kIntensityWindowExponent = 20;

/**
 * S from the intensities, or, for an all-zero image, from the intensity unit
 * of the step balance (so that the steps stay O(1) whatever lambda is).
 */
TVWorkingScale
ChooseWorkingScale(double maxAbs, const Grid & grid, double unit)
{
  TVWorkingScale scale;
  const int e = maxAbs > 0.0 ? UnitExponent(maxAbs) : static_cast<int>(std::lround(std::log2(unit)));
  scale.intensity = std::abs(e) > kIntensityWindowExponent ? e : 0;
  scale.length = static_cast<int>(std::lround(std::log2(TVCharacteristicLength(grid))));
  return scale;
}

/**
 * The range of lambda max|f| l (l: TVCharacteristicLength), the intensities in
 * units of the ROF intensity scale 1 / (lambda l), that the Real arithmetic of
 * the solvers represents. The dual update squares sigma grad ubar, which
 * grows as lambda max|f| l, and the dual energy squares div p, which shrinks
 * as it (the dual at the solution is of the order of lambda l |u - f|); the
 * square of either must stay within the normal range of Real with room for
 * the 10^3..10^9 terms summed per work-group: float's 2^+-126 allows
 * 10^+-12 with margin, double's 2^+-1022 10^+-100. Outside, lambda is either
 * so large that TV changes nothing that Real represents, or so small that the
 * result is the image's mean to within Real's rounding.
 */
template<typename Real>
constexpr double kTVRangeLimit = std::is_same<Real, float>::value ? 1e12 : 1e100;

/**
 * Throws InvalidArgument when lambda max|f| l is above kTVRangeLimit, or, when
 * the energies decide the result (a gap tolerance), below its inverse. The
 * small side only costs the energies their accuracy, so runs without a gap
 * stop (streamed chunks, rounds of ContinueTV, whose blocks may hold nothing
 * but a faint background) are not refused for it.
 */
template<typename Real>
void
RequireRepresentable(double maxAbs, const Grid & grid, double lambda, bool energiesMatter)
{
  const double limit = kTVRangeLimit<Real>, l = TVCharacteristicLength(grid);
  const double k = maxAbs * lambda * l;
  if (maxAbs == 0.0 || ((k >= 1.0 / limit || !energiesMatter) && k <= limit))
    return;
  std::ostringstream message;
  message << "lambda = " << lambda << " is outside the range a " << (sizeof(Real) == 4 ? "float" : "double")
          << " solve represents for intensities up to " << maxAbs << ": lambda * max|f| * voxel size (" << l
          << ") = " << k << " must lie in [" << 1.0 / limit << ", " << limit << "]; "
          << (k > limit ? "above, TV changes nothing the pixel type represents (lower lambda)"
                        : "below, TV flattens the image to its mean (raise lambda)")
          << (sizeof(Real) == 4 ? ", or use double images, whose range is [1e-100, 1e100]" : "");
  throw InvalidArgument(message.str());
}

/**
 * Fills P, D and the relative gap (P - D) / P from the sums in the caller's
 * units. P >= D in exact arithmetic; rounding can make the gap slightly
 * negative, which is why convergence compares |gap| with the tolerance. For a
 * (nearly) constant f, P is pure rounding noise, so the denominator has a floor
 * far below any real P: 1e-8 of P(0) = (lambda/2) ||f||^2. Throws when the
 * energies are not finite: the iterates left the range of the pixel type.
 */
void
SetEnergies(TVReport & report, const TVEnergySums & s, double lambda, double dataEnergy)
{
  report.primal = 0.5 * lambda * s.fidelity + s.tv;
  report.dual = -s.fDivP - s.divPSquared / (2.0 * lambda);
  const double denominator = std::max(report.primal, 1e-8 * dataEnergy);
  report.relativeGap = denominator > 0.0 ? (report.primal - report.dual) / denominator : 0.0;
  if (!std::isfinite(report.primal) || !std::isfinite(report.dual) || !std::isfinite(report.relativeGap))
  {
    std::ostringstream message;
    message << "TV denoising: the primal-dual energies are not finite after " << report.iterations
            << " iterations (P = " << report.primal << ", D = " << report.dual
            << "): the iterates left the range of the pixel type; no result is returned";
    throw Error(message.str());
  }
}

/**
 * The rounding floor of a run's relative gap: TVGapFloor of the pixel type,
 * raised with half-precision duals on OpenCL, whose 11-bit p makes the gap
 * stop falling earlier. Measured on the noisy Shepp-Logan 256^2 (sigma 0.1,
 * lambda 8, PoCL): accelerated CP reached 9.9e-7 in 840 iterations, PDU stalled
 * near 1.9e-5 after 1500; the floors keep a margin: 2e-6 for the CP methods,
 * 5e-5 for PDU, both below the default tolerance 1e-4 (checked for every
 * request, since the backend is resolved later; the CPU, keeping float p,
 * does not need it).
 */
template<typename Real>
double
RunGapFloor(const TVParameters & parameters)
{
  const double floor = TVGapFloor<Real>(parameters.algorithm);
  if (!parameters.halfPrecisionDual)
    return floor;
  return std::max(floor, parameters.algorithm == TVAlgorithm::PDU ? 5e-5 : 2e-6);
}

/** Whether the gap meets a tolerance > 0: |gap| <= tolerance (a gap below -tolerance is no better). */
bool
WithinTolerance(double relativeGap, double tolerance)
{
  return tolerance > 0.0 && std::abs(relativeGap) <= tolerance;
}

/** The warning of a run with a gap tolerance that ended above it (see TVReport::warnings). */
template<typename Real>
std::string
NonConvergenceWarning(const TVReport & report, const TVParameters & parameters)
{
  std::ostringstream message;
  message << "TV denoising did not converge: ";
  const double floor = RunGapFloor<Real>(parameters);
  if (report.relativeGap < -floor)
  {
    message << "the relative primal-dual gap is negative (" << report.relativeGap << ") beyond the rounding floor ("
            << floor << ") after " << report.iterations << " iterations, so the energies are not "
            << "accurate enough to judge convergence";
  }
  else
  {
    message << "the relative primal-dual gap is " << report.relativeGap << " > the tolerance "
            << parameters.gapTolerance << " after " << report.iterations << " iterations (the maximum); raise the "
            << "maximum number of iterations or the tolerance";
  }
  return message.str();
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

template<typename Real>
double
MeanWeight(const Real * weight, std::size_t n)
{
  return weight ? std::accumulate(weight, weight + n, 0.0) / static_cast<double>(n) : 1.0;
}

/** The checked arguments of a run and the working problem its stepper solves. */
template<typename Real>
struct TVRun
{
  ResolvedBackend backend;
  TVWorkingScale scale;
  Grid grid;                ///< the working grid (spacing / H)
  const Real * f = nullptr; ///< the working input (f / S)
  std::vector<Real> storage;
  double maxWeight = 1.0;
  double meanWeight = 1.0;
};

/**
 * Runs iterations [first, first + count) of the schedule through the core's
 * driver; with checkGap, stops early at the gap tolerance.
 */
template<typename Real>
void
RunIterations(TVStepper<Real> & stepper,
              const TVParameters & parameters,
              const Grid & grid,
              const TVRun<Real> & run,
              unsigned first,
              unsigned count,
              bool checkGap,
              double dataEnergy,
              const ProgressCallback & callback,
              TVReport & report)
{
  TVSchedule schedule(parameters, grid, run.maxWeight, run.meanWeight); // in the caller's units
  for (unsigned k = 0; k < first; ++k)
  {
    schedule.Next(k); // the accelerated schedule's steps depend on all earlier ones
  }
  const unsigned end = first + count;
  StepLoop loop;
  loop.maximumSteps = count;
  loop.step = [&](unsigned done)
  {
    const unsigned k = first + done;
    stepper.Advance(run.scale.Apply(schedule.Next(k)));
    report.iterations = done + 1;
    if (checkGap && (k + 1) % parameters.gapCheckInterval == 0)
    {
      SetEnergies(report, run.scale.ToCaller(stepper.Measure(0, run.grid.size[2])), parameters.lambda, dataEnergy);
      report.gapHistory.emplace_back(k + 1, report.relativeGap);
      if (WithinTolerance(report.relativeGap, parameters.gapTolerance))
      {
        report.converged = true;
        return StepVerdict::Finished;
      }
    }
    return StepVerdict::Accepted;
  };
  loop.progress = [&](unsigned done) { return IterationProgress(first + done, end); };
  RunSteps(loop, callback);
}

/**
 * Checks the arguments every entry point shares, resolves the backend and sets
 * up the working problem (the input scaled when its magnitude needs it).
 */
template<typename Real>
TVRun<Real>
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
  if (parameters.halfPrecisionDual && !std::is_same<Real, float>::value)
  {
    throw InvalidArgument("half-precision duals are for float images; this image is " +
                          std::string(TVPrecisionName<Real>()) +
                          ", whose solve keeps p in its own precision (turn the option off, or use float images)");
  }
  const double floor = RunGapFloor<Real>(parameters);
  if (parameters.gapTolerance > 0.0 && parameters.gapTolerance < floor)
  {
    std::ostringstream message;
    message << "the gap tolerance " << parameters.gapTolerance << " is below what " << TVPrecisionName<Real>()
            << (parameters.halfPrecisionDual ? " arithmetic with half-precision duals" : " arithmetic")
            << " reaches: the relative gap of " << ToString(parameters.algorithm) << " in " << TVPrecisionName<Real>()
            << " stops following the exact one near " << floor << " (its rounding floor); use a tolerance >= " << floor
            << ", 0 for a fixed number of iterations" << (sizeof(Real) == 4 ? ", or double images" : "");
    throw InvalidArgument(message.str());
  }
  const std::size_t n = grid.Count();
  RequireFinite(f, n, "the input image");
  if (weight != nullptr)
  {
    RequirePositiveFinite(weight, n, "the data-term weight (noise variance)");
  }
  const double maxAbs = MaxAbs(f, n);
  RequireRepresentable<Real>(maxAbs, grid, parameters.lambda, parameters.gapTolerance > 0.0);
  TVRun<Real> run;
  run.maxWeight = MaxWeight(weight, n);
  run.meanWeight = MeanWeight(weight, n);
  run.scale = ChooseWorkingScale(maxAbs, grid, TVIntensityUnit(parameters, grid, run.meanWeight));
  run.grid = run.scale.Apply(grid);
  run.f = ScaledByPowerOfTwo(f, n, run.scale.intensity, run.storage);
  run.backend = ResolveBackend(
    execution, std::is_same<Real, double>::value, MakeAutoProbe(run, weight, grid, parameters, execution));
  return run;
}

/**
 * The stepper of a run (gpurDecomposition.h): the CPU reference, one OpenCL
 * device, or z-slabs over several devices exchanging halos every
 * exchangeInterval iterations; a device whose part does not fit in its memory
 * budget streams it through host memory. Trims backend.devices to the devices
 * used.
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
  const FieldLayout layout =
    MakeTVLayout(grid, weight != nullptr, parameters.algorithm != TVAlgorithm::PDU, sizeof(Real));
  StepperFactories<Real, TVStep, TVEnergySums> factories;
  factories.cpu = [&layout](const std::vector<const Real *> & inputs, const Grid & g, const ParallelForFunction & pf)
  { return MakeTVStepperCPU(layout, inputs, g, pf); };
  const bool halfDual = parameters.halfPrecisionDual;
  factories.device = [&layout, halfDual](DeviceContext & context)
  { return MakeTVDeviceProgram<Real>(context, layout, halfDual); };
  return MakeDecomposedStepper(
    layout, TVInputs(f, weight), grid, backend, execution, parameters.exchangeInterval, factories);
}

/**
 * Auto's speed probe (gpurExecution.h): this run's own iterations, from its
 * start, on the leading z-slices (rows in 2D) of its working input, at most
 * kAutoProbeVoxels voxels.
 */
template<typename Real>
AutoProbe
MakeAutoProbe(const TVRun<Real> & run,
              const Real * weight,
              const Grid & grid,
              const TVParameters & parameters,
              const ExecutionOptions & execution)
{
  AutoProbe probe;
  probe.family = weight != nullptr ? "weighted TV" : "TV";
  probe.precision = TVPrecisionName<Real>();
  probe.grid = LeadingPart(run.grid, kAutoProbeVoxels);
  probe.prepare = [&run, weight, grid, parameters, execution, part = probe.grid](const ResolvedBackend & candidate)
  {
    ResolvedBackend backend = candidate;
    std::shared_ptr<TVStepper<Real>> stepper = MakeStepper(run.f, weight, part, parameters, backend, execution);
    stepper->Initialize();
    auto schedule = std::make_shared<TVSchedule>(parameters, grid, run.maxWeight, run.meanWeight);
    auto k = std::make_shared<unsigned>(0);
    return [&run, stepper, schedule, k](unsigned steps)
    {
      for (unsigned i = 0; i < steps; ++i)
        stepper->Advance(run.scale.Apply(schedule->Next((*k)++)));
      stepper->Finish();
    };
  };
  return probe;
}

/**
 * Says how p was stored: half only on OpenCL (the kernels' vload_half /
 * vstore_half); the CPU reference keeps p in the pixel type (half storage
 * is not implemented there: it would need F16C conversions in its fused
 * sweep) and the report says so, since Auto may pick it for a run that asked
 * for half duals.
 */
template<typename Real>
void
SetDualStorage(TVReport & report, const TVParameters & parameters)
{
  const bool half = parameters.halfPrecisionDual && report.backend.backend == Backend::OpenCL;
  report.dualStorage = half ? "float16" : TVPrecisionName<Real>();
}

/** The TV state arrays of a caller's view (input fields absent). */
template<typename Real>
HostFields<Real>
StateFields(Real * u, Real * bar, Real * p)
{
  HostFields<Real> host;
  host.data = { nullptr, nullptr, u, bar, p };
  return host;
}

} // namespace

template<typename Real>
double
TVGapFloor(TVAlgorithm algorithm)
{
  if (!std::is_same<Real, float>::value)
    return 1e-12;
  return algorithm == TVAlgorithm::PDU ? 1e-6 : 2e-7;
}

template<typename Real>
const char *
TVPrecisionName()
{
  return std::is_same<Real, float>::value ? "float32" : "float64";
}

template<typename Real>
TVReport
DenoiseWeightedTV(const Real * f,
                  const Real * weight,
                  Real * u,
                  const Grid & grid,
                  const TVParameters & parameters,
                  const ExecutionOptions & execution,
                  const ProgressCallback & callback)
{
  TVReport report;
  TVRun<Real> run = PrepareRun(f, weight, grid, parameters, execution);
  report.backend = run.backend;
  if (u == nullptr)
  {
    throw InvalidArgument("DenoiseTV: the output array must not be null");
  }
  report.seconds = TimedRun(
    [&]
    {
      const auto stepper = MakeStepper(run.f, weight, run.grid, parameters, report.backend, execution);
      report.streamRegions = stepper->StreamRegions();
      SetDualStorage<Real>(report, parameters);
      stepper->Initialize();
      const bool checkGap = parameters.gapCheckInterval > 0 && parameters.gapTolerance > 0.0;
      const double dataEnergy = DataEnergy(f, weight, grid.Count(), parameters.lambda);
      RunIterations(
        *stepper, parameters, grid, run, 0, parameters.maxIterations, checkGap, dataEnergy, callback, report);
      if (!report.converged)
      {
        SetEnergies(report, run.scale.ToCaller(stepper->Measure(0, run.grid.size[2])), parameters.lambda, dataEnergy);
        report.converged = WithinTolerance(report.relativeGap, parameters.gapTolerance);
      }
      stepper->Store(StateFields<Real>(u, nullptr, nullptr), 0, run.grid.size[2]); // the only write to u
      MultiplyByPowerOfTwo(u, grid.Count(), run.scale.intensity);
      if (parameters.gapTolerance > 0.0 && !report.converged)
      {
        report.warnings.push_back(NonConvergenceWarning<Real>(report, parameters));
      }
    });
  return report;
}

template<typename Real>
TVReport
DenoiseTV(const Real * f,
          Real * u,
          const Grid & grid,
          const TVParameters & parameters,
          const ExecutionOptions & execution,
          const ProgressCallback & callback)
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
           const ProgressCallback & callback)
{
  TVReport report;
  TVRun<Real> run = PrepareRun(f, weight, grid, parameters, execution);
  report.backend = run.backend;
  if (state.u == nullptr || state.p == nullptr || (state.bar == nullptr && parameters.algorithm != TVAlgorithm::PDU))
  {
    throw InvalidArgument(std::string("ContinueTV: the state needs u, p") +
                          (parameters.algorithm != TVAlgorithm::PDU ? " and ubar" : "") + " arrays");
  }
  const std::size_t n = grid.Count();
  RequireFinite(state.u, n, "the state u");
  report.primal = report.dual = report.relativeGap = std::numeric_limits<double>::quiet_NaN();
  report.seconds = TimedRun(
    [&]
    {
      const auto stepper = MakeStepper(run.f, weight, run.grid, parameters, report.backend, execution);
      report.streamRegions = stepper->StreamRegions();
      SetDualStorage<Real>(report, parameters);
      // The working state: u and ubar divided by S like f (exact), p as it is.
      const int e = run.scale.intensity;
      std::vector<Real> u, bar;
      HostFields<Real> host = StateFields<Real>(state.u, state.bar, state.p);
      if (e != 0)
      {
        u.assign(state.u, state.u + n);
        MultiplyByPowerOfTwo(u.data(), n, -e);
        host.data[kTVU] = u.data();
        if (state.bar != nullptr)
        {
          bar.assign(state.bar, state.bar + n);
          MultiplyByPowerOfTwo(bar.data(), n, -e);
          host.data[kTVBar] = bar.data();
        }
      }
      stepper->Load(AsConst(host), 0, run.grid.size[2]);
      RunIterations(*stepper, parameters, grid, run, first, count, false, 0.0, callback, report);
      stepper->Store(host, 0, run.grid.size[2]);
      if (grid.dimension == 3 && grid.size[2] == 1)
      {
        // A single slice has no z difference: its p_z, which the steppers do not hold, is 0.
        std::fill_n(state.p + 2 * n, n, Real(0));
      }
      if (e != 0) // the caller's state only now, after a successful run
      {
        MultiplyByPowerOfTwo(u.data(), n, e);
        std::copy(u.begin(), u.end(), state.u);
        if (state.bar != nullptr)
        {
          MultiplyByPowerOfTwo(bar.data(), n, e);
          std::copy(bar.begin(), bar.end(), state.bar);
        }
      }
    });
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
  template double TVGapFloor<Real>(TVAlgorithm);                                                                       \
  template const char * TVPrecisionName<Real>();                                                                       \
  template TVReport DenoiseTV(                                                                                         \
    const Real *, Real *, const Grid &, const TVParameters &, const ExecutionOptions &, const ProgressCallback &);     \
  template TVReport DenoiseWeightedTV(const Real *,                                                                    \
                                      const Real *,                                                                    \
                                      Real *,                                                                          \
                                      const Grid &,                                                                    \
                                      const TVParameters &,                                                            \
                                      const ExecutionOptions &,                                                        \
                                      const ProgressCallback &);                                                       \
  template void InitializeTVState(const Real *, const Grid &, const TVStateView<Real> &);                              \
  template TVReport ContinueTV(const Real *,                                                                           \
                               const Real *,                                                                           \
                               const Grid &,                                                                           \
                               const TVParameters &,                                                                   \
                               unsigned,                                                                               \
                               unsigned,                                                                               \
                               const TVStateView<Real> &,                                                              \
                               const ExecutionOptions &,                                                               \
                               const ProgressCallback &);                                                              \
  template double ROFObjective(const Real *, const Real *, const Grid &, double);
GPUR_INSTANTIATE_TV(float)
GPUR_INSTANTIATE_TV(double)
#undef GPUR_INSTANTIATE_TV

} // namespace gpur
