// SPDX-License-Identifier: Apache-2.0
// RecoverSparse (gpurSparseRecovery.h): checks, units, the backend, the run
// loop (RunSteps) with the stopping rule, and the report.
//
// The stopping rule. Every checkInterval iterations (and at the last one) the
// run measures the relative change of the output over that iteration and,
// at the same point, the LASSO objective P(x) and the relative duality gap
// (P(x) - D(theta)) / P(x) with the dual point theta = (y - A x) / s,
// s = max(1, ||A^T (y - A x)||_inf / alpha), the scaling that makes theta
// feasible (||A^T theta||_inf <= alpha; max(A^T theta) <= alpha with x >= 0),
// and D(theta) = 1/2 ||y||^2 - 1/2 ||y - theta||^2, the LASSO's dual. The gap
// bounds P(x) - P(x*) from above, so "converged" certifies the objective,
// which a small change alone does not (FISTA and CPADMM pause on plateaus).
// Measuring only at these iterations keeps the device free of host
// synchronisations in between; both backends measure at the same iterations,
// so they stop at the same one.
#include "gpurAutoBackend.h"
#include "gpurIterativeDriver.h"
#include "gpurSparseSolver.h"
#include "gpurStopwatch.h"
#include "gpurValidate.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace gpur
{
namespace
{

/** What a check measured, in the units of the report. */
struct Checked
{
  double objective = 0.0;
  double relativeGap = 0.0;
  double relativeResidual = 0.0;
  double relativeError = std::numeric_limits<double>::quiet_NaN();
};

/** The objective and duality gap of the LASSO with weight `weight` from a check's reductions (see above). */
Checked
Evaluate(const sparse::Measures & m, double weight, double y2, double truth2)
{
  Checked c;
  c.objective = 0.5 * m.residual2 + weight * m.l1;
  // With r = A x - y: theta = -r / s, <y, theta> = -<y, r> / s, ||theta||^2 = ||r||^2 / s^2.
  const double s = std::max(1.0, m.gradientMax / weight);
  const double dual = -m.yDotR / s - 0.5 * m.residual2 / (s * s);
  c.relativeGap = c.objective > 0.0 ? (c.objective - dual) / c.objective : 0.0;
  c.relativeResidual = std::sqrt(m.residual2 / y2);
  if (truth2 > 0.0)
    c.relativeError = std::sqrt(m.error2 / truth2);
  return c;
}

double
RelativeChange(const sparse::Change & change)
{
  if (change.norm2 > 0.0)
    return std::sqrt(change.difference2 / change.norm2);
  return change.difference2 > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
}

template<typename Real>
const char *
PrecisionName()
{
  return sizeof(Real) == 8 ? "float64" : "float32";
}

/**
 * Auto's probe: FISTA iterations (4 FFTs and the fused step each) on the run's
 * own problem when it is small, else on a Gaussian sensing of 2^16 values
 * (256 x 256 in 2D) at the same sampling ratio: the FFTs dominate, so the
 * per-value speed carries over to the run's size well enough to rank the two
 * backends.
 */
template<typename Real>
AutoProbe
MakeAutoProbe(const CirculantSensing & sensing, const std::vector<Real> & y, const ExecutionOptions & execution)
{
  constexpr std::size_t probeValues = std::size_t(1) << 16;
  AutoProbe probe;
  probe.family = "sparse recovery";
  probe.precision = PrecisionName<Real>();
  std::shared_ptr<CirculantSensing> small;
  std::shared_ptr<std::vector<Real>> values;
  if (sensing.Count() <= probeValues)
  {
    small = std::make_shared<CirculantSensing>(sensing);
    values = std::make_shared<std::vector<Real>>(y);
  }
  else
  {
    const std::vector<std::size_t> size =
      sensing.size.size() == 1 ? std::vector<std::size_t>{ probeValues } : std::vector<std::size_t>{ 256, 256 };
    small = std::make_shared<CirculantSensing>(
      MakeGaussianCirculantSensing(size, double(sensing.Measurements()) / double(sensing.Count()), 1));
    values = std::make_shared<std::vector<Real>>(small->Count());
    for (std::size_t i = 0; i < small->Count(); ++i)
      (*values)[i] = small->mask[i] ? Real(small->generator[i]) : Real(0);
  }
  probe.grid = small->size.size() == 1 ? MakeGrid2D(small->size[0], 1) : MakeGrid2D(small->size[0], small->size[1]);
  probe.prepare = [small, values, execution](const ResolvedBackend & candidate)
  {
    const sparse::SensingSpectrum spectrum = sparse::ComputeSensingSpectrum(*small);
    std::shared_ptr<sparse::Vectors<Real>> vectors = sparse::MakeVectors<Real>(spectrum, candidate, execution);
    auto iteration = std::make_shared<sparse::Iteration<Real>>(*vectors, SparseSolver::FISTA, values->data(), nullptr);
    sparse::IterationConstants constants;
    constants.step = 1.0 / spectrum.normSquared;
    constants.threshold = 1e-3 * iteration->AlphaMax() * constants.step;
    iteration->SetConstants(constants);
    return [vectors, iteration](unsigned steps)
    {
      for (unsigned i = 0; i < steps; ++i)
        iteration->Step(i + 1 == steps); // the last step measures, which waits for the device
    };
  };
  return probe;
}

/** The warning of a run that did not converge. */
std::string
NotConvergedWarning(const SparseRecoveryReport & report, const SparseRecoveryParameters & parameters)
{
  std::ostringstream message;
  message << "not converged after " << report.iterations << " iterations: the relative change is "
          << report.relativeChange << " (tolerance " << parameters.tolerance << ") and the relative duality gap "
          << report.relativeGap << " (gapTolerance " << parameters.gapTolerance
          << "); raise maximumIterations, or relativeAlpha (a larger alpha converges faster)";
  return message.str();
}

} // namespace

template<typename Real>
SparseRecoveryReport
RecoverSparse(const CirculantSensing & sensing,
              const Real * y,
              Real * x,
              const SparseRecoveryParameters & parameters,
              const ExecutionOptions & execution,
              const ProgressCallback & progress,
              const SparseIterationCallback & iteration,
              const SparseRecoveryTruth<Real> & truth)
{
  if (y == nullptr || x == nullptr)
    throw InvalidArgument("sparse recovery: the measurement or output array is null");
  sensing.Validate();
  parameters.Validate();
  const std::size_t n = sensing.Count();
  // Zero-filled: values outside the mask are ignored (also NaN there: a masked-out pixel may hold anything).
  std::vector<Real> measured(n);
  double y2 = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    measured[i] = sensing.mask[i] ? y[i] : Real(0);
    y2 += double(measured[i]) * double(measured[i]);
  }
  RequireFinite(measured.data(), n, "sparse recovery: the measurements (inside the mask)");
  double truth2 = 0.0;
  if (truth.truth != nullptr)
  {
    RequireFinite(truth.truth, n, "sparse recovery: the truth");
    for (std::size_t i = 0; i < n; ++i)
      truth2 += double(truth.truth[i]) * double(truth.truth[i]);
    if (!(truth2 > 0.0))
      throw InvalidArgument("sparse recovery: the truth is all 0; a relative error needs a nonzero truth");
  }
  if (!std::isfinite(truth.targetRelativeError) || truth.targetRelativeError < 0.0)
  {
    std::ostringstream message;
    message << "sparse recovery: targetRelativeError is " << truth.targetRelativeError
            << "; it must be finite and >= 0 (0: do not stop by the truth)";
    throw InvalidArgument(message.str());
  }

  SparseRecoveryReport report;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  report.relativeError = nan;
  const bool isDouble = sizeof(Real) == 8;
  std::vector<Real> result(n, Real(0));
  report.seconds = TimedRun(
    [&]
    {
      const Stopwatch setup;
      const sparse::SensingSpectrum spectrum = sparse::ComputeSensingSpectrum(sensing);
      report.normSquaredBound = spectrum.normSquared;
      report.backend = sparse::ResolveSparseBackend(
        sensing.size, execution, isDouble, MakeAutoProbe<Real>(sensing, measured, execution));
      std::unique_ptr<sparse::Vectors<Real>> vectors = sparse::MakeVectors<Real>(spectrum, report.backend, execution);
      sparse::Iteration<Real> run(*vectors, parameters.solver, measured.data(), truth.truth);
      report.alphaMax = run.AlphaMax();
      report.setupSeconds = setup.Seconds();
      if (!(report.alphaMax > 0.0))
      {
        // A^T y = 0: x = 0 satisfies the optimality condition 0 in A^T (A x - y) + alpha d||x||_1 for every alpha.
        report.stop = SparseStop::Converged;
        report.converged = true;
        report.alpha = parameters.alpha;
        report.objective = 0.5 * y2;
        report.relativeResidual = y2 > 0.0 ? 1.0 : 0.0;
        report.warnings.push_back(y2 > 0.0 ? "A^T y is 0 (the measurements are orthogonal to the sensed signals): "
                                             "the solution is 0"
                                           : "the measurements are all 0: the solution is 0");
        report.bytes = vectors->Bytes();
        return;
      }
      report.alpha = parameters.alpha > 0.0 ? parameters.alpha : parameters.relativeAlpha * report.alphaMax;
      sparse::IterationConstants constants;
      constants.solver = parameters.solver;
      constants.nonnegative = parameters.nonnegative;
      // The weight of the LASSO the iteration minimises: the objective and gap are measured for it.
      double weight = report.alpha;
      if (parameters.solver == SparseSolver::CPADMM)
      {
        // Automatic penalties (0): they scale with the resolved relative weight a = alpha / alpha_max, rho = 100 a
        // and sigma = 10 a ||A||^2, the fastest settings of the calibration in docs/benchmarks.md
        // ("Calibrating CPADMM"); fixed penalties slow down by 30x at a = 1e-5.
        const double relative = report.alpha / report.alphaMax;
        report.rho = parameters.rho > 0.0 ? parameters.rho : 100.0 * relative;
        report.sigma =
          (parameters.relativeSigma > 0.0 ? parameters.relativeSigma : 10.0 * relative) * report.normSquaredBound;
        constants.rho = report.rho;
        constants.sigma = report.sigma;
        constants.dualStep = parameters.dualStep;
        // z = argmin alpha ||z||_1 + sigma/2 ||x + nu - z||^2 [Fiandrotti2018, Algorithm 3].
        constants.threshold = report.alpha / report.sigma;
      }
      else
      {
        report.step = parameters.step > 0.0 ? parameters.step : 1.0 / report.normSquaredBound;
        if (!(report.step < 2.0 / report.normSquaredBound))
        {
          std::ostringstream message;
          message << "sparse recovery: step is " << report.step << "; it must be in (0, 2 / ||A||^2) = (0, "
                  << 2.0 / report.normSquaredBound << ") for this sensing (0: 1 / ||A||^2)";
          throw InvalidArgument(message.str());
        }
        constants.step = report.step;
        constants.threshold =
          parameters.threshold == SparseThreshold::Proximal ? report.alpha * report.step : report.alpha;
        if (parameters.threshold == SparseThreshold::PaperLiteral)
          weight = report.alpha / report.step;
      }
      run.SetConstants(constants);

      Checked last;
      double lastChange = nan;
      StepLoop loop;
      loop.maximumSteps = parameters.maximumIterations;
      loop.step = [&](unsigned accepted)
      {
        const unsigned k = accepted + 1;
        const bool measure = k % parameters.checkInterval == 0 || k == parameters.maximumIterations;
        const sparse::Change change = run.Step(measure);
        SparseIterationInfo info;
        info.iteration = k;
        info.relativeChange = info.objective = info.relativeGap = info.relativeError = nan;
        bool finished = false;
        if (measure)
        {
          info.relativeChange = RelativeChange(change);
          last = Evaluate(run.Check(), weight, y2, truth2);
          info.objective = last.objective;
          info.relativeGap = last.relativeGap;
          info.relativeError = last.relativeError;
          lastChange = info.relativeChange;
          if (!std::isfinite(info.relativeChange) || !std::isfinite(last.objective) || !std::isfinite(last.relativeGap))
          {
            throw NumericalError(std::string("sparse recovery: ") + ToString(parameters.solver) +
                                 " produced non-finite values at iteration " + std::to_string(k) +
                                 "; no result is returned");
          }
          if (truth.truth != nullptr && truth.targetRelativeError > 0.0 &&
              last.relativeError <= truth.targetRelativeError)
          {
            report.stop = SparseStop::TruthReached;
            finished = true;
          }
          else if (info.relativeChange < parameters.tolerance && last.relativeGap < parameters.gapTolerance)
          {
            report.stop = SparseStop::Converged;
            finished = true;
          }
        }
        report.history.push_back(info);
        if (iteration && !iteration(info))
          throw Aborted();
        return finished ? StepVerdict::Finished : StepVerdict::Accepted;
      };
      loop.progress = [&](unsigned accepted) { return IterationProgress(accepted, parameters.maximumIterations); };
      const LoopOutcome outcome = RunSteps(loop, progress);
      report.iterations = outcome.steps;
      if (!outcome.finished)
        report.stop = SparseStop::MaximumIterations;
      report.objective = last.objective;
      report.relativeGap = last.relativeGap;
      report.relativeResidual = last.relativeResidual;
      report.relativeError = last.relativeError;
      report.relativeChange = lastChange;
      report.converged = report.stop == SparseStop::Converged ||
                         (report.stop == SparseStop::TruthReached && last.relativeGap < parameters.gapTolerance);
      run.Store(result.data());
      report.bytes = vectors->Bytes();
    });
  if (report.stop == SparseStop::MaximumIterations)
    report.warnings.push_back(NotConvergedWarning(report, parameters));
  if (report.stop == SparseStop::TruthReached && !report.converged)
  {
    std::ostringstream message;
    message << "stopped at the target error against the truth (" << report.relativeError
            << ") before the relative duality gap (" << report.relativeGap << ") fell below gapTolerance ("
            << parameters.gapTolerance << "): not a converged LASSO solution";
    report.warnings.push_back(message.str());
  }
  for (std::size_t i = 0; i < n; ++i)
  {
    x[i] = result[i];
    report.nonzeros += result[i] != Real(0);
  }
  return report;
}

template SparseRecoveryReport
RecoverSparse(const CirculantSensing &,
              const float *,
              float *,
              const SparseRecoveryParameters &,
              const ExecutionOptions &,
              const ProgressCallback &,
              const SparseIterationCallback &,
              const SparseRecoveryTruth<float> &);
template SparseRecoveryReport
RecoverSparse(const CirculantSensing &,
              const double *,
              double *,
              const SparseRecoveryParameters &,
              const ExecutionOptions &,
              const ProgressCallback &,
              const SparseIterationCallback &,
              const SparseRecoveryTruth<double> &);

} // namespace gpur
