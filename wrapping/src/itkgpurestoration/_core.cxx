// SPDX-License-Identifier: Apache-2.0
// pybind11 module itkgpurestoration._core: the thin layer between NumPy arrays
// and the ITK-free engines (gpur::DenoiseTVAtNoiseLevel, gpur::DenoiseStatisticalTV,
// gpur::DenoiseStatisticalTVGD, gpur::DenoiseL1MeanCurvature, gpur::DenoiseLevelLines,
// gpur::GraphFlow (curvature flows of graphs), gpur::RecoverSparse and gpur::CirculantOperator, gpur::PSCRSolver with
// the factor builders of gpurSeparableProblems.h) and the CT phantom generator. Argument checking that needs Python
// types (SimpleITK/itk images, dtype policy) lives in the Python package.
#include "gpurCTPhantom.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurExecution.h"
#include "gpurGraphFlow.h"
#include "gpurGrid.h"
#include "gpurIterativeDriver.h"
#include "gpurL1MeanCurvature.h"
#include "gpurLevelLines.h"
#include "gpurNoiseEstimation.h"
#include "gpurPSCRSolver.h"
#include "gpurParallel.h"
#include "gpurPhantom.h"
#include "gpurSeparableProblems.h"
#include "gpurSparseRecovery.h"
#include "gpurStatisticalTV.h"
#include "gpurStopwatch.h"
#include "gpurTVDenoiser.h"
#include "gpurTVNoiseLevel.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace
{

/**
 * What ran and why, the first entries of every report: backend ("CPU" or
 * "OpenCL"), device, description, backend_reason, and measured_mvox_per_s
 * ({"cpu": ..., "opencl": ...} when Auto measured the two, else empty).
 */
py::dict
BackendFields(const gpur::ResolvedBackend & used)
{
  py::dict d;
  const bool opencl = used.backend == gpur::Backend::OpenCL;
  d["backend"] = opencl ? "OpenCL" : "CPU";
  d["device"] = opencl ? used.device.name : std::string();
  d["description"] = used.Describe();
  d["backend_reason"] = used.reason;
  py::dict speeds;
  if (used.cpuVoxelsPerSecond > 0.0)
    speeds["cpu"] = used.cpuVoxelsPerSecond / 1e6;
  if (used.openclVoxelsPerSecond > 0.0)
    speeds["opencl"] = used.openclVoxelsPerSecond / 1e6;
  d["measured_mvox_per_s"] = speeds;
  return d;
}

py::dict
ReportToDict(const gpur::TVReport & report)
{
  py::dict d = BackendFields(report.backend);
  d["iterations"] = report.iterations;
  d["converged"] = report.converged;
  d["relative_gap"] = report.relativeGap;
  d["primal"] = report.primal;
  d["dual"] = report.dual;
  d["seconds"] = report.seconds;
  d["gap_history"] = report.gapHistory;
  d["stream_regions"] = report.streamRegions;
  d["dual_storage"] = report.dualStorage;
  d["warnings"] = report.warnings;
  return d;
}

/** The engine's grid of an image whose NumPy shape is shape[0..ndim); spacing in the same axis order. */
gpur::Grid
GridOf(const py::ssize_t * shape, std::size_t ndim, const std::vector<double> & spacing)
{
  if (ndim != 2 && ndim != 3)
  {
    throw gpur::InvalidArgument("image must be 2D or 3D, got " + std::to_string(ndim) + " dimensions");
  }
  if (spacing.size() != ndim)
  {
    throw gpur::InvalidArgument("spacing needs " + std::to_string(ndim) + " values, got " +
                                std::to_string(spacing.size()));
  }
  // NumPy's last axis is the engine's x (fastest); reverse shape and spacing.
  gpur::Grid grid;
  grid.dimension = static_cast<unsigned>(ndim);
  for (std::size_t a = 0; a < ndim; ++a)
  {
    grid.size[a] = static_cast<std::size_t>(shape[ndim - 1 - a]);
    grid.spacing[a] = spacing[ndim - 1 - a];
  }
  return grid;
}

/** The grid of an image that `method` takes in 2D only; InvalidArgument naming it for another dimension. */
gpur::Grid
PlanarGridOf(const py::array & f, const std::vector<double> & spacing, const std::string & method)
{
  if (f.ndim() != 2)
  {
    throw gpur::InvalidArgument(method + " takes a 2D image, got " + std::to_string(f.ndim()) + " dimensions");
  }
  return GridOf(f.shape(), 2, spacing);
}

gpur::TVParameters
Parameters(double lambda, const std::string & algorithm)
{
  gpur::TVParameters parameters;
  parameters.lambda = lambda;
  parameters.algorithm = gpur::ParseTVAlgorithm(algorithm);
  return parameters;
}

/**
 * The CPU loop of `threads` threads (Python's num_threads) on the engines'
 * persistent pool; 0 (None): empty, the engines' default over every core.
 * The chunks are cut by `threads`, and the sums the engines reduce have a fixed
 * chunking (gpur::ParallelSum), so the result does not depend on it.
 */
gpur::ParallelForFunction
ThreadLoop(unsigned threads)
{
  return threads == 0 ? gpur::ParallelForFunction{} : gpur::MakeThreadParallelFor(threads);
}

gpur::ExecutionOptions
Execution(const std::string & backend,
          const std::string & device,
          unsigned threads,
          std::uint64_t deviceMemoryLimit = 0)
{
  gpur::ExecutionOptions execution;
  execution.backend = gpur::ParseBackend(backend);
  execution.device = device;
  execution.deviceMemoryLimit = deviceMemoryLimit;
  execution.parallelFor = ThreadLoop(threads);
  execution.threads = threads;
  return execution;
}

/** What a progress callable receives from a run counted in steps: (done, maximum). */
py::tuple
StepArguments(const gpur::Progress & step)
{
  return py::make_tuple(step.done, step.maximum);
}

/**
 * Runs solve(callback) without the GIL, with `progress` (None or a Python
 * callable) as the engine's iteration callback, called with arguments(step)
 * (default StepArguments); the callback takes the GIL back for each call. A Python exception raised by the callback is
 * kept and re-raised after the engine has unwound (through gpur::Aborted), so it reaches the caller as is.
 *
 * Ctrl-C: while the solve runs without the GIL, Python's SIGINT handler only
 * sets a flag; the callback runs the pending handlers (PyErr_CheckSignals,
 * which acts in the main thread only) after every iteration with a progress
 * callable, else at most every 0.1 s, so a KeyboardInterrupt (or whatever a
 * user's signal handler raises) aborts the solve and is raised in its place.
 * The engines' steppers keep the OpenCL queue within about 0.2 s of the host,
 * so the solve stops within about a second.
 */
template<typename Solve, typename Arguments = decltype(&StepArguments)>
void
SolveWithProgress(const py::object & progress, const Solve & solve, const Arguments & arguments = &StepArguments)
{
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kSignalCheckInterval{ 100 };
  std::exception_ptr callbackError;
  Clock::time_point lastCheck = Clock::now();
  const gpur::ProgressCallback callback =
    [&progress, &arguments, &callbackError, &lastCheck](const gpur::Progress & step)
  {
    const bool report = !progress.is_none();
    if (!report && Clock::now() - lastCheck < kSignalCheckInterval)
    {
      return true;
    }
    lastCheck = Clock::now();
    py::gil_scoped_acquire gil;
    try
    {
      if (PyErr_CheckSignals() != 0)
      {
        throw py::error_already_set();
      }
      if (!report)
      {
        return true;
      }
      const py::object result = progress(*arguments(step));
      // None (no return statement) continues; False or another falsy value aborts.
      return result.is_none() || py::bool_(result);
    }
    catch (...)
    {
      callbackError = std::current_exception();
      return false;
    }
  };
  {
    py::gil_scoped_release release;
    try
    {
      solve(callback);
    }
    catch (const gpur::Aborted &)
    {
      if (!callbackError)
      {
        throw;
      }
    }
  }
  if (callbackError)
  {
    std::rethrow_exception(callbackError);
  }
}

/** An output array of f's shape. */
template<typename Real>
py::array_t<Real>
LikeArray(const py::array_t<Real, py::array::c_style> & f)
{
  return py::array_t<Real>(std::vector<py::ssize_t>(f.shape(), f.shape() + f.ndim()));
}

/**
 * The fields of a report whose lambda may come from the discrepancy search
 * (gpur::TVNoiseLevelReport, gpur::StatisticalTVReport): lam, automatic_lam,
 * discrepancy, maximum_discrepancy, discrepancy_target, residual_gain(_measured),
 * solves, lam_history [(lam, discrepancy)] and solve_history (dicts).
 */
template<typename Report>
void
AddLambdaFields(py::dict & d, const Report & report, bool automatic)
{
  d["lam"] = report.lambda;
  d["automatic_lam"] = automatic;
  d["discrepancy"] = report.discrepancy;
  d["maximum_discrepancy"] = report.maximumDiscrepancy;
  d["discrepancy_target"] = report.discrepancyTarget;
  d["residual_gain"] = report.residualGain;
  d["residual_gain_measured"] = report.residualGainMeasured;
  d["solves"] = report.solves;
  py::list lamHistory, solveHistory;
  for (const auto & s : report.lambdaHistory)
  {
    lamHistory.append(py::make_tuple(s.lambda, s.discrepancy));
    py::dict solve;
    solve["lam"] = s.lambda;
    solve["discrepancy"] = s.discrepancy;
    solve["iterations"] = s.iterations;
    solve["relative_gap"] = s.relativeGap;
    solve["converged"] = s.converged;
    solveHistory.append(solve);
  }
  d["lam_history"] = lamHistory;
  d["solve_history"] = solveHistory;
}

/**
 * The settings of a TV front with a discrepancy search (gpur::TVNoiseLevelParameters,
 * gpur::StatisticalTVParameters): the algorithm, lambda (None: the automatic one),
 * the iteration budget and gap tolerance of every solve, the discrepancy factor.
 */
template<typename Parameters>
Parameters
FrontParameters(std::optional<double> lambda,
                const std::string & algorithm,
                unsigned maxIterations,
                double tolerance,
                double discrepancyFactor)
{
  Parameters parameters;
  parameters.tv.algorithm = gpur::ParseTVAlgorithm(algorithm);
  if (lambda)
  {
    parameters.tv.lambda = *lambda;
  }
  parameters.automaticLambda = !lambda;
  parameters.tv.maxIterations = maxIterations;
  parameters.tv.gapTolerance = tolerance;
  parameters.discrepancyFactor = discrepancyFactor;
  return parameters;
}

py::dict
NoiseReportToDict(const gpur::NoiseEstimationReport & report)
{
  py::dict d;
  d["residual_gain"] = report.residualGain;
  d["gain_measured"] = report.gainMeasured;
  d["tiles"] = report.tiles;
  d["flat_tiles"] = report.flatTiles;
  d["mask_gain"] = report.maskGain;
  return d;
}

// f must already be C-contiguous with the right dtype (the Python layer makes
// sure, copying only when needed); noconvert() below forbids a silent copy here.
// spacing is in array-axis order ((z,) y, x), like the array's shape.
// gpur::DenoiseTVAtNoiseLevel: lambda None chooses it by the discrepancy principle
// from sigma (0: estimated from the image); sigma and the factor come last, with
// defaults, so the earlier positional calls still work.
template<typename Real>
py::tuple
DenoiseTV(py::array_t<Real, py::array::c_style> f,
          const std::vector<double> & spacing,
          std::optional<double> lambda,
          const std::string & algorithm,
          unsigned maxIterations,
          double tolerance,
          const std::string & backend,
          const std::string & device,
          std::uint64_t deviceMemoryLimit,
          unsigned threads,
          const py::object & progress,
          double sigma,
          double discrepancyFactor,
          bool halfPrecisionDual)
{
  const gpur::Grid grid = GridOf(f.shape(), static_cast<std::size_t>(f.ndim()), spacing);
  auto parameters =
    FrontParameters<gpur::TVNoiseLevelParameters>(lambda, algorithm, maxIterations, tolerance, discrepancyFactor);
  parameters.sigma = sigma;
  parameters.tv.halfPrecisionDual = halfPrecisionDual;
  const gpur::ExecutionOptions execution = Execution(backend, device, threads, deviceMemoryLimit);
  py::array_t<Real> u = LikeArray(f);
  const Real * in = f.data();
  Real * out = u.mutable_data();
  gpur::TVNoiseLevelReport report;
  SolveWithProgress(progress,
                    [&](const gpur::ProgressCallback & callback)
                    { report = gpur::DenoiseTVAtNoiseLevel<Real>(in, out, grid, parameters, execution, callback); });
  py::dict d = ReportToDict(report.tv);
  AddLambdaFields(d, report, parameters.automaticLambda);
  d["sigma"] = report.sigma;
  d["sigma_estimated"] = report.sigmaEstimated;
  d["noise_estimation"] = report.sigmaEstimated ? py::object(NoiseReportToDict(report.noise)) : py::object(py::none());
  return py::make_tuple(u, d);
}

/** One outer iteration of an L1-mean-curvature run as a dict (what the Python callback receives). */
py::dict
L1MCIterationToDict(const gpur::L1MCIterationInfo & info)
{
  py::dict d;
  d["iteration"] = info.iteration;
  d["objective"] = info.objective;
  d["lagrangian"] = info.lagrangian;
  d["relative_change"] = info.relativeChange;
  d["r1_residual"] = info.r1Residual;
  d["r2_residual"] = info.r2Residual;
  d["r3_residual"] = info.r3Residual;
  d["newton_success"] = info.newtonSuccess;
  d["cg_iterations"] = info.cgIterations;
  return d;
}

py::dict
ReportToDict(const gpur::L1MCReport & report)
{
  py::dict d = BackendFields(report.backend);
  d["iterations"] = report.iterations;
  d["converged"] = report.converged;
  d["objective"] = report.last.objective;
  d["lagrangian"] = report.last.lagrangian;
  d["relative_change"] = report.last.relativeChange;
  d["r1_residual"] = report.last.r1Residual;
  d["r2_residual"] = report.last.r2Residual;
  d["r3_residual"] = report.last.r3Residual;
  d["objective_of_data"] = report.objectiveOfData;
  d["r0"] = report.r0;
  d["h"] = report.meshSize;
  d["data_range"] = report.dataRange;
  d["epsilon"] = report.epsilon;
  d["r1"] = report.r1;
  d["r2"] = report.r2;
  d["r3"] = report.r3;
  d["sigma"] = report.noiseSigma;
  d["sigma_estimated"] = report.sigmaEstimated;
  d["sub2_residual"] = report.sub2Residual;
  d["sub4_residual"] = report.sub4Residual;
  py::dict timings;
  timings["sub1"] = report.timings.sub1;
  timings["sub2"] = report.timings.sub2;
  timings["sub3"] = report.timings.sub3;
  timings["sub4"] = report.timings.sub4;
  timings["misc"] = report.timings.misc;
  d["timings"] = timings;
  d["seconds"] = report.seconds;
  py::list history;
  for (const auto & info : report.history)
    history.append(L1MCIterationToDict(info));
  d["history"] = history;
  d["warnings"] = report.warnings;
  return d;
}

/**
 * gpur::DenoiseL1MeanCurvature of a 2D image. A parameter 0 is the engine's
 * automatic choice (see gpur::L1MCParameters). callback (None or a callable)
 * receives every outer iteration as a dict (L1MCIterationToDict) with the GIL
 * held; a falsy return other than None aborts (itkgpurestoration.Aborted), an
 * exception it raises is re-raised as is. Ctrl-C works as in SolveWithProgress.
 */
template<typename Real>
py::tuple
DenoiseL1MeanCurvature(py::array_t<Real, py::array::c_style> f,
                       const std::vector<double> & spacing,
                       const gpur::L1MCParameters & parameters,
                       const std::string & backend,
                       const std::string & device,
                       unsigned threads,
                       const py::object & callback)
{
  const gpur::Grid grid = PlanarGridOf(f, spacing, "L1-mean-curvature denoising");
  const gpur::ExecutionOptions execution = Execution(backend, device, threads);
  py::array_t<Real> u = LikeArray(f);
  const Real * in = f.data();
  Real * out = u.mutable_data();
  std::exception_ptr callbackError;
  const gpur::L1MCIterationCallback iterate = [&callback, &callbackError](const gpur::L1MCIterationInfo & info)
  {
    if (callback.is_none())
      return true;
    py::gil_scoped_acquire gil;
    try
    {
      const py::object result = callback(L1MCIterationToDict(info));
      return result.is_none() || py::bool_(result);
    }
    catch (...)
    {
      callbackError = std::current_exception();
      return false;
    }
  };
  gpur::L1MCReport report;
  try
  {
    // No progress callable: SolveWithProgress only checks for Ctrl-C.
    SolveWithProgress(py::none(),
                      [&](const gpur::ProgressCallback & progress) {
                        report =
                          gpur::DenoiseL1MeanCurvature<Real>(in, out, grid, parameters, execution, progress, iterate);
                      });
  }
  catch (const gpur::Aborted &)
  {
    if (callbackError)
      std::rethrow_exception(callbackError);
    throw;
  }
  return py::make_tuple(u, ReportToDict(report));
}

/**
 * gpur::GraphFlow of a 2D image to parameters.finalTime: (u, report dict).
 * The progress callable receives (t, T) after every accepted step: the
 * simulated time reached and the final time. The flow object is driven here
 * (rather than through gpur::GraphFlowRun, whose report holds the backend as
 * text) so that the report has the backend fields every other report has.
 */
template<typename Real>
py::tuple
GraphFlow(py::array_t<Real, py::array::c_style> f,
          const std::vector<double> & spacing,
          const gpur::GraphFlowParameters & parameters,
          const std::string & backend,
          const std::string & device,
          unsigned threads,
          const py::object & progress)
{
  const gpur::Grid grid = PlanarGridOf(f, spacing, "curvature flows of graphs");
  const gpur::ExecutionOptions execution = Execution(backend, device, threads);
  py::array_t<Real> u = LikeArray(f);
  const Real * in = f.data();
  Real * out = u.mutable_data();
  gpur::ResolvedBackend used;
  gpur::MersonReport steps;
  double seconds = 0.0;
  const double finalTime = parameters.finalTime;
  SolveWithProgress(
    progress,
    [&](const gpur::ProgressCallback & callback)
    {
      seconds = gpur::TimedRun(
        [&]
        {
          gpur::GraphFlow<Real> flow(in, grid, parameters, execution);
          used = flow.Backend();
          steps = flow.AdvanceTo(finalTime, callback);
          flow.Read(out);
        });
    },
    // TimeProgress's fraction is t / T; its last report is exactly 1, so the last call receives (T, T).
    [finalTime](const gpur::Progress & step) { return py::make_tuple(step.fraction * finalTime, finalTime); });
  py::dict d = BackendFields(used);
  d["flow"] = parameters.flow == gpur::GraphFlowType::Willmore ? "willmore" : "mean_curvature";
  d["accepted_steps"] = steps.accepted;
  d["rejected_steps"] = steps.rejected;
  d["time_reached"] = steps.time;
  d["final_time"] = finalTime;
  d["next_step"] = steps.step;
  d["error_estimate"] = steps.error;
  d["tolerance"] = parameters.tolerance;
  d["regularization"] = parameters.regularization;
  d["boundary"] = parameters.boundary == gpur::GraphFlowBoundary::Neumann ? "neumann" : "dirichlet";
  d["seconds"] = seconds;
  return py::make_tuple(u, d);
}

py::dict
ReportToDict(const gpur::LevelLinesReport & report)
{
  py::dict d = BackendFields(report.backend);
  d["frames"] = report.frames;
  d["sigma"] = report.noiseSigma;
  d["sigma_estimated"] = report.sigmaEstimated;
  d["mean_length"] = report.meanLength;
  d["stopped_by_test"] = report.stoppedByTest;
  d["stopped_by_turn_back"] = report.stoppedByTurnBack;
  d["stopped_by_border"] = report.stoppedByBorder;
  d["stopped_by_length"] = report.stoppedByLength;
  py::dict shares;
  shares["low_slope"] = report.classShares[0];
  shares["single_edge"] = report.classShares[1];
  shares["complex"] = report.classShares[2];
  d["class_shares"] = shares;
  d["seconds"] = report.seconds;
  d["kernel_seconds"] = report.kernelSeconds;
  d["warnings"] = report.warnings;
  return d;
}

/**
 * gpur::DenoiseLevelLines of a 2D image or a stack of 2D frames (3D, frames
 * along the first axis): (u, report dict, maps dict or None). With maps, the
 * dict holds "direction" (uint8), "length" (uint16) and, in Hybrid mode,
 * "class" (uint8), each of f's shape. Ctrl-C works as in SolveWithProgress.
 */
py::tuple
DenoiseLevelLines(py::array_t<float, py::array::c_style> f,
                  const gpur::LevelLinesParameters & parameters,
                  const std::string & backend,
                  const std::string & device,
                  std::uint64_t deviceMemoryLimit,
                  unsigned threads,
                  bool returnMaps)
{
  // The method works on the pixel lattice: the spacing does not enter.
  const auto ndim = static_cast<std::size_t>(f.ndim());
  const gpur::Grid grid = GridOf(f.shape(), ndim, std::vector<double>(ndim, 1.0));
  const gpur::ExecutionOptions execution = Execution(backend, device, threads, deviceMemoryLimit);
  const std::vector<py::ssize_t> shape(f.shape(), f.shape() + f.ndim());
  py::array_t<float> u(shape);
  std::optional<py::array_t<std::uint8_t>> direction, pixelClass;
  std::optional<py::array_t<std::uint16_t>> length;
  gpur::LevelLinesMaps maps;
  if (returnMaps)
  {
    direction.emplace(shape);
    length.emplace(shape);
    maps.direction = direction->mutable_data();
    maps.length = length->mutable_data();
    if (parameters.mode == gpur::LevelLinesMode::Hybrid)
    {
      pixelClass.emplace(shape);
      maps.pixelClass = pixelClass->mutable_data();
    }
  }
  const float * in = f.data();
  float * out = u.mutable_data();
  gpur::LevelLinesReport report;
  SolveWithProgress(py::none(),
                    [&](const gpur::ProgressCallback & progress)
                    { report = gpur::DenoiseLevelLines(in, out, grid, parameters, execution, progress, maps); });
  py::object mapsDict = py::none();
  if (returnMaps)
  {
    py::dict m;
    m["direction"] = *direction;
    m["length"] = *length;
    if (pixelClass)
      m["class"] = *pixelClass;
    mapsDict = m;
  }
  return py::make_tuple(u, ReportToDict(report), mapsDict);
}

/**
 * gpur::LevelLinesParameters as a Python class whose fields are the engine's
 * (snake_case); the enumerations read and write as the engine's parse/print
 * strings ("pipd"/"hybrid", "pooled"/"separate", "flip"/"stop").
 */
void
DefineLevelLines(py::module_ & m)
{
  using P = gpur::LevelLinesParameters;
  py::class_<P>(m, "LevelLinesParameters")
    .def(py::init<>())
    .def_readwrite("segment_length", &P::segmentLength)
    .def_readwrite("maximum_length", &P::maximumLength)
    .def_readwrite("lengthening_threshold", &P::lengtheningThreshold)
    .def_readwrite("edge_threshold", &P::edgeThreshold)
    .def_property(
      "mode",
      [](const P & p) { return std::string(gpur::ToString(p.mode)); },
      [](P & p, const std::string & text) { p.mode = gpur::ParseLevelLinesMode(text); })
    .def_property(
      "test",
      [](const P & p) { return std::string(gpur::ToString(p.test)); },
      [](P & p, const std::string & text) { p.test = gpur::ParseLevelLinesTest(text); })
    .def_property(
      "turn_back",
      [](const P & p) { return std::string(gpur::ToString(p.turnBack)); },
      [](P & p, const std::string & text) { p.turnBack = gpur::ParseLevelLinesTurnBack(text); })
    .def_readwrite("thick", &P::thick)
    .def_readwrite("include_center", &P::includeCenter)
    .def_readwrite("bidirectional", &P::bidirectional)
    .def_readwrite("variance_floor", &P::varianceFloor)
    .def_readwrite("noise_sigma", &P::noiseSigma)
    .def("validate", &P::Validate, "throws ValueError naming the bad parameter (gpur::LevelLinesParameters::Validate)");
  m.def("denoise_level_lines",
        &DenoiseLevelLines,
        py::arg("f").noconvert(),
        py::arg("parameters"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("device_memory_limit"),
        py::arg("threads"),
        py::arg("return_maps"),
        "gpur::DenoiseLevelLines of a float32 2D image or stack of 2D frames: (u, report, maps or None)");
  m.def("level_lines_radius",
        &gpur::LevelLinesRadius,
        py::arg("parameters"),
        "the radius in pixels an output pixel depends on (gpur::LevelLinesRadius)");
  m.def("level_lines_pattern",
        &gpur::LevelLinesPattern,
        py::arg("direction"),
        py::arg("segment_length"),
        "the segment pattern p_{l,d} as [(di, dj)] (gpur::LevelLinesPattern)");
  m.def(
    "estimate_noise_sigma_float32",
    [](py::array_t<float, py::array::c_style> f, unsigned threads)
    {
      const auto ndim = static_cast<std::size_t>(f.ndim());
      const gpur::Grid grid = GridOf(f.shape(), ndim, std::vector<double>(ndim, 1.0));
      py::gil_scoped_release release;
      return gpur::EstimateNoiseSigma(f.data(), grid, gpur::NoiseEstimationOptions(), ThreadLoop(threads));
    },
    py::arg("f").noconvert(),
    py::arg("threads"),
    "gpur::EstimateNoiseSigma of a float32 image (0 for an image without measurable noise)");
}

/** The variance's data (null for None); it must have f's shape (dtype and layout: noconvert at the binding). */
template<typename Real>
const Real *
VarianceData(const std::optional<py::array_t<Real, py::array::c_style>> & variance,
             const py::array_t<Real, py::array::c_style> & f)
{
  if (!variance)
  {
    return nullptr;
  }
  if (variance->ndim() != f.ndim() || !std::equal(f.shape(), f.shape() + f.ndim(), variance->shape()))
  {
    throw gpur::InvalidArgument("the variance must have the image's shape");
  }
  return variance->data();
}

/** The variance fields of a statistical TV report: given or estimated (and how), its mean and range. */
template<typename Report>
void
AddVarianceFields(py::dict & d, const Report & report)
{
  d["variance_estimated"] = report.varianceEstimated;
  d["mean_variance"] = report.meanVariance;
  d["variance_range"] = report.varianceRange;
  d["noise_estimation"] =
    report.varianceEstimated ? py::object(NoiseReportToDict(report.noise)) : py::object(py::none());
}

/** Primal-dual statistical TV (weighted CP or S-PDU): gpur::DenoiseStatisticalTV. lambda None: automatic. */
template<typename Real>
py::tuple
DenoiseStatisticalTV(py::array_t<Real, py::array::c_style> f,
                     const std::optional<py::array_t<Real, py::array::c_style>> & variance,
                     const std::vector<double> & spacing,
                     std::optional<double> lambda,
                     const std::string & algorithm,
                     double weightExponent,
                     double discrepancyFactor,
                     unsigned maxIterations,
                     double tolerance,
                     const std::string & backend,
                     const std::string & device,
                     std::uint64_t deviceMemoryLimit,
                     unsigned threads,
                     const py::object & progress,
                     bool halfPrecisionDual)
{
  const gpur::Grid grid = GridOf(f.shape(), static_cast<std::size_t>(f.ndim()), spacing);
  auto parameters =
    FrontParameters<gpur::StatisticalTVParameters>(lambda, algorithm, maxIterations, tolerance, discrepancyFactor);
  parameters.weightExponent = weightExponent;
  parameters.tv.halfPrecisionDual = halfPrecisionDual;
  const gpur::ExecutionOptions execution = Execution(backend, device, threads, deviceMemoryLimit);
  const Real * var = VarianceData(variance, f);
  py::array_t<Real> u = LikeArray(f);
  const Real * in = f.data();
  Real * out = u.mutable_data();
  gpur::StatisticalTVReport report;
  SolveWithProgress(progress,
                    [&](const gpur::ProgressCallback & callback) {
                      report = gpur::DenoiseStatisticalTV<Real>(in, var, out, grid, parameters, execution, callback);
                    });
  py::dict d = ReportToDict(report.tv);
  d["method"] = algorithm;
  AddLambdaFields(d, report, parameters.automaticLambda);
  AddVarianceFields(d, report);
  return py::make_tuple(u, d);
}

/**
 * TV gradient descent (variant "tv" or "awtv"): gpur::DenoiseStatisticalTVGD.
 * targetResidual None: stop at the discrepancy target; 0: run maxIterations.
 */
template<typename Real>
py::tuple
DenoiseStatisticalTVGD(py::array_t<Real, py::array::c_style> f,
                       const std::optional<py::array_t<Real, py::array::c_style>> & variance,
                       const std::vector<double> & spacing,
                       const std::string & variant,
                       double step,
                       const std::string & stepUnit,
                       double delta,
                       unsigned maxIterations,
                       std::optional<double> targetResidual,
                       double discrepancyFactor,
                       const std::string & backend,
                       const std::string & device,
                       unsigned threads,
                       const py::object & progress)
{
  const gpur::Grid grid = GridOf(f.shape(), static_cast<std::size_t>(f.ndim()), spacing);
  gpur::StatisticalTVGDParameters parameters;
  parameters.gd.variant = gpur::ParseTVGDVariant(variant);
  parameters.gd.lambda = step;
  parameters.gd.stepUnit = gpur::ParseTVGDStepUnit(stepUnit);
  parameters.gd.delta = delta;
  parameters.gd.iterations = maxIterations;
  parameters.gd.targetResidual = targetResidual.value_or(0.0);
  parameters.stopAtDiscrepancy = !targetResidual;
  parameters.discrepancyFactor = discrepancyFactor;
  const gpur::ExecutionOptions execution = Execution(backend, device, threads);
  const Real * var = VarianceData(variance, f);
  py::array_t<Real> u = LikeArray(f);
  const Real * in = f.data();
  Real * out = u.mutable_data();
  gpur::StatisticalTVGDReport report;
  SolveWithProgress(progress,
                    [&](const gpur::ProgressCallback & callback) {
                      report = gpur::DenoiseStatisticalTVGD<Real>(in, var, out, grid, parameters, execution, callback);
                    });
  py::dict d = BackendFields(report.gd.backend);
  d["method"] = parameters.gd.variant == gpur::TVGDVariant::TV ? "tvgd" : "awtv";
  d["iterations"] = report.gd.iterations;
  d["seconds"] = report.gd.seconds;
  d["step_length"] = report.gd.stepLength;
  d["residual"] = report.gd.residual;
  d["gradient_norm"] = report.gd.gradientNorm;
  d["target_residual"] = report.targetResidual;
  d["target_reached"] = report.gd.targetReached;
  d["stationary"] = report.gd.stationary;
  d["discrepancy"] = report.discrepancy;
  AddVarianceFields(d, report);
  return py::make_tuple(u, d);
}

/** gpur::EstimateNoiseVariance of f (spectrum "measured" or "white"): (map, report dict). */
template<typename Real>
py::tuple
EstimateNoiseVariance(py::array_t<Real, py::array::c_style> f, const std::string & spectrum, unsigned threads)
{
  // A noise variance is a per-voxel property of the intensities: the spacing does not enter.
  const gpur::Grid grid =
    GridOf(f.shape(), static_cast<std::size_t>(f.ndim()), std::vector<double>(static_cast<std::size_t>(f.ndim()), 1.0));
  gpur::NoiseEstimationOptions options;
  if (spectrum == "white")
    options.spectrum = gpur::NoiseSpectrum::White;
  else if (spectrum != "measured")
    throw gpur::InvalidArgument("spectrum must be 'measured' or 'white', got '" + spectrum + "'");
  gpur::NoiseEstimationReport report;
  std::vector<Real> map;
  {
    py::gil_scoped_release release;
    map = gpur::EstimateNoiseVariance(f.data(), grid, options, ThreadLoop(threads), &report);
  }
  py::array_t<Real> out = LikeArray(f);
  std::copy(map.begin(), map.end(), out.mutable_data());
  return py::make_tuple(out, NoiseReportToDict(report));
}

/** The phantom `name` ("shepp-logan" or "machined-part") on a unit-spacing grid of NumPy shape (y, x) or (z, y, x). */
py::array_t<float>
Phantom(const std::vector<py::ssize_t> & shape, const std::string & name)
{
  if (shape.size() != 2 && shape.size() != 3)
  {
    throw gpur::InvalidArgument("shape must have 2 or 3 values, got " + std::to_string(shape.size()));
  }
  if (std::any_of(shape.begin(), shape.end(), [](py::ssize_t n) { return n < 1; }))
  {
    throw gpur::InvalidArgument("every size of shape must be >= 1");
  }
  const gpur::Grid grid = GridOf(shape.data(), shape.size(), std::vector<double>(shape.size(), 1.0));
  std::vector<float> values;
  if (name == "shepp-logan")
    values = gpur::SheppLoganPhantom(grid);
  else if (name == "machined-part")
    values = gpur::MachinedPartPhantom(grid);
  else
    throw gpur::InvalidArgument("unknown phantom '" + name + "' (allowed: shepp-logan, machined-part)");
  py::array_t<float> a(shape);
  std::copy(values.begin(), values.end(), a.mutable_data());
  return a;
}

/**
 * gpur::SimulateCT of `truth` (float32, C order, spacing in array-axis order):
 * a dict of the noisy reconstruction, its analytic variance, optionally the
 * noise-free one and the sinogram, and the scan's geometry.
 */
py::dict
SimulateCT(py::array_t<float, py::array::c_style> truth,
           const std::vector<double> & spacing,
           const std::string & geometry,
           std::size_t views,
           const std::string & filter,
           double photonsPerRay,
           double electronicNoise,
           double attenuation,
           double sourceToAxis,
           double sourceToDetector,
           std::uint64_t seed,
           bool noiseFree,
           bool sinogram)
{
  const std::size_t ndim = static_cast<std::size_t>(truth.ndim());
  const gpur::Grid grid = GridOf(truth.shape(), ndim, spacing);
  gpur::CTScanParameters parameters;
  if (geometry == "parallel")
    parameters.geometry = gpur::CTGeometry::ParallelBeam;
  else if (geometry == "cone")
    parameters.geometry = gpur::CTGeometry::ConeBeam;
  else
    throw gpur::InvalidArgument("geometry must be 'parallel' or 'cone', got '" + geometry + "'");
  if (filter == "ram-lak")
    parameters.filter = gpur::RampFilter::RamLak;
  else if (filter == "hann")
    parameters.filter = gpur::RampFilter::Hann;
  else
    throw gpur::InvalidArgument("filter must be 'ram-lak' or 'hann', got '" + filter + "'");
  parameters.numberOfAngles = views;
  parameters.photonsPerRay = photonsPerRay;
  parameters.electronicNoise = electronicNoise;
  parameters.attenuationPerUnit = attenuation;
  parameters.sourceToAxis = sourceToAxis;
  parameters.sourceToDetector = sourceToDetector;
  parameters.seed = seed;
  parameters.computeNoiseFree = noiseFree;
  parameters.keepSinogram = sinogram;
  const std::vector<float> values(truth.data(), truth.data() + truth.size());
  gpur::CTSimulation simulation;
  {
    py::gil_scoped_release release;
    simulation = gpur::SimulateCT(grid, values, parameters);
  }
  const auto array = [](const std::vector<float> & v, std::vector<py::ssize_t> shape)
  {
    py::array_t<float> a(shape);
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
  };
  const std::vector<py::ssize_t> shape(truth.shape(), truth.shape() + ndim);
  py::dict d;
  d["noisy"] = array(simulation.noisy, shape);
  d["variance"] = array(simulation.variance, shape);
  d["noise_free"] = noiseFree ? py::object(array(simulation.noiseFree, shape)) : py::object(py::none());
  const auto views_ = static_cast<py::ssize_t>(simulation.numberOfAngles);
  const auto bins = static_cast<py::ssize_t>(simulation.numberOfBins);
  std::vector<py::ssize_t> sinogramShape;
  if (parameters.geometry == gpur::CTGeometry::ConeBeam)
    sinogramShape = { views_, static_cast<py::ssize_t>(simulation.numberOfRows), bins };
  else if (ndim == 3)
    sinogramShape = { shape[0], views_, bins };
  else
    sinogramShape = { views_, bins };
  d["sinogram"] = sinogram ? py::object(array(simulation.sinogram, sinogramShape)) : py::object(py::none());
  d["attenuation_per_unit"] = simulation.attenuationPerUnit;
  d["views"] = simulation.numberOfAngles;
  d["bins"] = simulation.numberOfBins;
  d["rows"] = simulation.numberOfRows;
  d["bin_spacing"] = simulation.binSpacing;
  d["source_to_axis"] = simulation.sourceToAxis;
  d["source_to_detector"] = simulation.sourceToDetector;
  return d;
}

/**
 * One round of a chunked run: `state` stacks [f, u, ubar, p_x, p_y(, p_z)] of
 * one padded block along axis 0 (p in the engine's x, y, z order); returns the
 * state after iterations [first, first + count). See _chunked.py.
 */
template<typename Real>
py::array_t<Real>
ContinueTV(py::array_t<Real, py::array::c_style> state,
           const std::vector<double> & spacing,
           double lambda,
           const std::string & algorithm,
           unsigned first,
           unsigned count,
           const std::string & backend,
           const std::string & device,
           unsigned threads)
{
  const std::size_t ndim = state.ndim() > 0 ? static_cast<std::size_t>(state.ndim()) - 1 : 0;
  const gpur::Grid grid = GridOf(state.shape() + 1, ndim, spacing);
  if (static_cast<std::size_t>(state.shape(0)) != 3 + ndim)
  {
    throw gpur::InvalidArgument("a chunked-TV state of a " + std::to_string(ndim) + "D block stacks " +
                                std::to_string(3 + ndim) + " arrays, got " + std::to_string(state.shape(0)));
  }
  const gpur::TVParameters parameters = Parameters(lambda, algorithm);
  const gpur::ExecutionOptions execution = Execution(backend, device, threads);
  py::array_t<Real> out(std::vector<py::ssize_t>(state.shape(), state.shape() + state.ndim()));
  const std::size_t n = grid.Count();
  Real * data = out.mutable_data();
  std::copy(state.data(), state.data() + (3 + ndim) * n, data);
  gpur::TVStateView<Real> view;
  view.u = data + n;
  view.bar = data + 2 * n;
  view.p = data + 3 * n;
  SolveWithProgress(py::none(),
                    [&](const gpur::ProgressCallback & callback) {
                      gpur::ContinueTV<Real>(data, nullptr, grid, parameters, first, count, view, execution, callback);
                    });
  return out;
}

/** (A diagonal, A off-diagonal, M diagonal, M off-diagonal) of one axis' factors, as NumPy float64 arrays. */
py::tuple
AxisArrays(const gpur::AxisFactors<double> & axis)
{
  return py::make_tuple(py::array_t<double>(axis.A.diagonal.size(), axis.A.diagonal.data()),
                        py::array_t<double>(axis.A.offDiagonal.size(), axis.A.offDiagonal.data()),
                        py::array_t<double>(axis.M.diagonal.size(), axis.M.diagonal.data()),
                        py::array_t<double>(axis.M.offDiagonal.size(), axis.M.offDiagonal.data()));
}

gpur::BoundaryCondition
Condition(bool neumann)
{
  return neumann ? gpur::BoundaryCondition::Neumann : gpur::BoundaryCondition::Dirichlet;
}

/** The engine's precision named by gpur::ToString ("Automatic", "Scalar", "Double"). */
gpur::PSCRPrecision
ParsePrecision(const std::string & name)
{
  for (gpur::PSCRPrecision p :
       { gpur::PSCRPrecision::Automatic, gpur::PSCRPrecision::Scalar, gpur::PSCRPrecision::Double })
  {
    if (name == gpur::ToString(p))
    {
      return p;
    }
  }
  throw gpur::InvalidArgument("unknown PSCR precision '" + name + "'");
}

/** What one solve reached (gpur::PSCRSolveReport), with Python's names. */
py::dict
SolveReportToDict(const gpur::PSCRSolveReport & report, double seconds)
{
  py::dict d;
  d["relative_residual"] = report.relativeResidual;
  d["residual_target"] = report.residualTarget;
  d["rounding_floor"] = report.roundingFloor;
  d["refinement_steps"] = report.refinementSteps;
  d["computed_in_double"] = report.computedInDouble;
  d["incompatibility"] = report.incompatibility;
  d["path"] = report.path;
  d["solve_seconds"] = seconds;
  return d;
}

/**
 * A PSCR plan (gpur::PSCRSolver) for a separable operator with 2 or 3 axes,
 * built once and solved any number of times. `axes` holds each axis' factors
 * as (A diagonal, A off-diagonal, M diagonal, M off-diagonal) in array-axis
 * order ((z,) y, x), the engine's x last; the Python layer has validated them
 * with messages in its terms, the engine validates again.
 */
template<typename Real>
class SeparablePlan
{
public:
  using AxisVectors = std::array<std::vector<double>, 4>;

  SeparablePlan(const std::vector<AxisVectors> & axes,
                double shift,
                unsigned radix,
                bool fastTransforms,
                bool project,
                const std::string & precision,
                double residualTolerance,
                int refinementSteps,
                const std::string & backend,
                const std::string & device,
                unsigned threads)
  {
    gpur::SeparableOperator<double> op;
    for (auto axis = axes.rbegin(); axis != axes.rend(); ++axis)
    {
      gpur::AxisFactors<double> factors;
      factors.A.diagonal = (*axis)[0];
      factors.A.offDiagonal = (*axis)[1];
      factors.M.diagonal = (*axis)[2];
      factors.M.offDiagonal = (*axis)[3];
      op.axes.push_back(std::move(factors));
      m_Shape.insert(m_Shape.begin(), static_cast<py::ssize_t>(op.axes.back().Size()));
    }
    op.shift = shift;
    op.Validate();
    gpur::PSCROptions options;
    options.radix = radix;
    options.fastTransforms = fastTransforms;
    // 1 accepts any right-hand side of a singular problem and projects it; 0: the engine's sqrt(epsilon).
    options.compatibilityTolerance = project ? 1.0 : 0.0;
    options.precision = ParsePrecision(precision);
    options.residualTolerance = residualTolerance;
    options.refinementSteps = refinementSteps;
    options.execution = Execution(backend, device, threads);
    options.Validate();
    py::gil_scoped_release release;
    m_Solver = std::make_unique<gpur::PSCRSolver<Real>>(gpur::CastOperator<Real>(op), options);
  }

  /** (u, report dict) for f of the plan's shape (dtype and layout: noconvert at the binding). */
  py::tuple
  Solve(py::array_t<Real, py::array::c_style> f) const
  {
    if (static_cast<std::size_t>(f.ndim()) != m_Shape.size() || !std::equal(m_Shape.begin(), m_Shape.end(), f.shape()))
    {
      throw gpur::InvalidArgument("the right-hand side's shape differs from the plan's");
    }
    py::array_t<Real> u = LikeArray(f);
    const Real * in = f.data();
    Real * out = u.mutable_data();
    gpur::PSCRSolveReport report;
    double seconds = 0;
    {
      py::gil_scoped_release release;
      const gpur::Stopwatch watch;
      report = m_Solver->Solve(in, out);
      seconds = watch.Seconds();
    }
    return py::make_tuple(u, SolveReportToDict(report, seconds));
  }

  const gpur::PSCRSolver<Real> &
  Solver() const
  {
    return *m_Solver;
  }

private:
  std::vector<py::ssize_t> m_Shape;
  std::unique_ptr<const gpur::PSCRSolver<Real>> m_Solver;
};

template<typename Real>
void
DefineSeparablePlan(py::module_ & m, const std::string & suffix)
{
  using Plan = SeparablePlan<Real>;
  py::class_<Plan>(m, ("SeparablePlan_" + suffix).c_str())
    .def(py::init<const std::vector<typename Plan::AxisVectors> &,
                  double,
                  unsigned,
                  bool,
                  bool,
                  const std::string &,
                  double,
                  int,
                  const std::string &,
                  const std::string &,
                  unsigned>(),
         py::arg("axes"),
         py::arg("shift"),
         py::arg("radix"),
         py::arg("fast_transforms"),
         py::arg("project"),
         py::arg("precision"),
         py::arg("residual_tolerance"),
         py::arg("refinement_steps"),
         py::arg("backend"),
         py::arg("device"),
         py::arg("threads"))
    .def("solve", &Plan::Solve, py::arg("f").noconvert())
    .def_property_readonly("backend", [](const Plan & p) { return BackendFields(p.Solver().BackendUsed()); })
    .def_property_readonly("singular", [](const Plan & p) { return p.Solver().IsSingular(); })
    .def_property_readonly("path", [](const Plan & p) { return p.Solver().Path(); })
    .def_property_readonly("well_posed", [](const Plan & p) { return p.Solver().IsWellPosed(); })
    .def_property_readonly("computes_in_double", [](const Plan & p) { return p.Solver().ComputesInDouble(); })
    .def_property_readonly("refinement_steps", [](const Plan & p) { return p.Solver().RefinementSteps(); })
    .def_property_readonly("setup_seconds", [](const Plan & p) { return p.Solver().SetupSeconds(); })
    .def_property_readonly("tridiagonal_solves", [](const Plan & p) { return p.Solver().TridiagonalSolveCount(); });
}

py::list
ListDevices()
{
  py::list devices;
  for (const gpur::DeviceInfo & info : gpur::ListDevices())
  {
    py::dict d;
    d["index"] = info.index;
    d["name"] = info.name;
    d["platform"] = info.platformName;
    d["vendor"] = info.vendor;
    d["type"] = info.TypeName();
    d["version"] = info.version;
    d["driver_version"] = info.driverVersion;
    d["global_memory"] = info.globalMemory;
    d["max_allocation"] = info.maxAllocation;
    d["local_memory"] = info.localMemory;
    d["compute_units"] = info.computeUnits;
    d["max_work_group_size"] = info.maxWorkGroupSize;
    d["fp64"] = info.fp64;
    d["description"] = info.Describe();
    devices.append(d);
  }
  return devices;
}

/**
 * Binds the engine's functions for one dtype as denoise_tv_<suffix> and
 * continue_tv_<suffix>; noconvert: a wrong dtype or layout is refused, never copied silently.
 */
template<typename Real>
void
DefineEngine(py::module_ & m, const std::string & suffix)
{
  m.def(("denoise_tv_" + suffix).c_str(),
        &DenoiseTV<Real>,
        py::arg("f").noconvert(),
        py::arg("spacing"),
        py::arg("lam"),
        py::arg("algorithm"),
        py::arg("max_iterations"),
        py::arg("tolerance"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("device_memory_limit"),
        py::arg("threads"),
        py::arg("progress"),
        py::arg("sigma") = 0.0,
        py::arg("discrepancy_factor") = 0.0,
        py::arg("half_precision_dual") = false);
  m.def(("denoise_statistical_tv_" + suffix).c_str(),
        &DenoiseStatisticalTV<Real>,
        py::arg("f").noconvert(),
        py::arg("variance").noconvert(),
        py::arg("spacing"),
        py::arg("lam"),
        py::arg("algorithm"),
        py::arg("weight_exponent"),
        py::arg("discrepancy_factor"),
        py::arg("max_iterations"),
        py::arg("tolerance"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("device_memory_limit"),
        py::arg("threads"),
        py::arg("progress"),
        py::arg("half_precision_dual") = false);
  m.def(("denoise_statistical_tvgd_" + suffix).c_str(),
        &DenoiseStatisticalTVGD<Real>,
        py::arg("f").noconvert(),
        py::arg("variance").noconvert(),
        py::arg("spacing"),
        py::arg("variant"),
        py::arg("step"),
        py::arg("step_unit"),
        py::arg("delta"),
        py::arg("max_iterations"),
        py::arg("target_residual"),
        py::arg("discrepancy_factor"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("threads"),
        py::arg("progress"));
  m.def(("estimate_noise_variance_" + suffix).c_str(),
        &EstimateNoiseVariance<Real>,
        py::arg("f").noconvert(),
        py::arg("spectrum"),
        py::arg("threads"));
  m.def(("denoise_l1_mean_curvature_" + suffix).c_str(),
        [](py::array_t<Real, py::array::c_style> f,
           const std::vector<double> & spacing,
           double r0,
           double sigma,
           double meshSize,
           double dataRange,
           double epsilon,
           double r1,
           double r2,
           double r3,
           unsigned maxIterations,
           double tolerance,
           const std::string & initialization,
           const std::string & cornerMass,
           const std::string & sub2Solver,
           const std::string & backend,
           const std::string & device,
           unsigned threads,
           const py::object & callback)
        {
          gpur::L1MCParameters p;
          p.r0 = r0;
          p.noiseSigma = sigma;
          p.meshSize = meshSize;
          p.dataRange = dataRange;
          p.epsilon = epsilon;
          p.r1 = r1;
          p.r2 = r2;
          p.r3 = r3;
          p.maxIterations = maxIterations;
          p.tolerance = tolerance;
          p.initialization = gpur::ParseL1MCInitialization(initialization);
          if (cornerMass == "separable")
            p.cornerMass = gpur::L1MCCornerMass::Separable;
          else if (cornerMass != "exact")
            throw gpur::InvalidArgument("corner_mass must be 'exact' or 'separable', got '" + cornerMass + "'");
          p.sub2Solver = gpur::ParseL1MCSub2Solver(sub2Solver);
          return DenoiseL1MeanCurvature<Real>(f, spacing, p, backend, device, threads, callback);
        },
        py::arg("f").noconvert(),
        py::arg("spacing"),
        py::arg("r0"),
        py::arg("sigma"),
        py::arg("h"),
        py::arg("data_range"),
        py::arg("epsilon"),
        py::arg("r1"),
        py::arg("r2"),
        py::arg("r3"),
        py::arg("max_iterations"),
        py::arg("tolerance"),
        py::arg("initialization"),
        py::arg("corner_mass"),
        py::arg("sub2_solver"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("threads"),
        py::arg("callback"));
  m.def(("graph_flow_" + suffix).c_str(),
        [](py::array_t<Real, py::array::c_style> f,
           const std::vector<double> & spacing,
           const std::string & flow,
           double time,
           double tolerance,
           double regularization,
           const std::string & boundary,
           double initialStep,
           unsigned maxSteps,
           const std::string & backend,
           const std::string & device,
           unsigned threads,
           const py::object & progress)
        {
          gpur::GraphFlowParameters p;
          if (flow == "willmore")
            p.flow = gpur::GraphFlowType::Willmore;
          else if (flow != "mean_curvature")
            throw gpur::InvalidArgument("flow must be 'mean_curvature' or 'willmore', got '" + flow + "'");
          if (boundary == "dirichlet")
            p.boundary = gpur::GraphFlowBoundary::Dirichlet;
          else if (boundary == "neumann")
            p.boundary = gpur::GraphFlowBoundary::Neumann;
          else
            throw gpur::InvalidArgument("boundary must be 'neumann' or 'dirichlet', got '" + boundary + "'");
          p.finalTime = time;
          p.tolerance = tolerance;
          p.regularization = regularization;
          p.initialStep = initialStep;
          p.maximumSteps = maxSteps;
          return GraphFlow<Real>(f, spacing, p, backend, device, threads, progress);
        },
        py::arg("f").noconvert(),
        py::arg("spacing"),
        py::arg("flow"),
        py::arg("time"),
        py::arg("tolerance"),
        py::arg("regularization"),
        py::arg("boundary"),
        py::arg("initial_step"),
        py::arg("max_steps"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("threads"),
        py::arg("progress"),
        "gpur::GraphFlow of a 2D image to `time`: (u, report); progress(t, T) after every accepted step");
  m.def(("continue_tv_" + suffix).c_str(),
        &ContinueTV<Real>,
        py::arg("state").noconvert(),
        py::arg("spacing"),
        py::arg("lam"),
        py::arg("algorithm"),
        py::arg("first"),
        py::arg("count"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("threads"));
}

/**
 * The engine's sensing operator from NumPy arrays (1D signal or 2D image, NumPy axis order, so that the C-order
 * index is the engine's x-fastest index): generator and mask of shape `shape`, psf None or an array of the same
 * number of dimensions.
 */
gpur::CirculantSensing
SensingOf(const std::vector<py::ssize_t> & shape,
          const py::array_t<double, py::array::c_style | py::array::forcecast> & generator,
          const py::array_t<std::uint8_t, py::array::c_style> & mask,
          const std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> & psf,
          bool normalizePSF)
{
  const auto sameShape = [&shape](const py::array & a, const char * name)
  {
    if (static_cast<std::size_t>(a.ndim()) != shape.size() || !std::equal(shape.begin(), shape.end(), a.shape()))
    {
      throw gpur::InvalidArgument(std::string(name) + " must have the measurements' shape");
    }
  };
  sameShape(generator, "the generator");
  sameShape(mask, "the mask");
  gpur::CirculantSensing sensing;
  sensing.size.assign(shape.rbegin(), shape.rend());
  sensing.generator.assign(generator.data(), generator.data() + generator.size());
  sensing.mask.assign(mask.data(), mask.data() + mask.size());
  if (psf)
  {
    if (static_cast<std::size_t>(psf->ndim()) != shape.size())
    {
      throw gpur::InvalidArgument("the psf must have as many dimensions as the measurements (" +
                                  std::to_string(shape.size()) + "), got " + std::to_string(psf->ndim()));
    }
    sensing.psf.assign(psf->data(), psf->data() + psf->size());
    sensing.psfSize.assign(psf->shape(), psf->shape() + psf->ndim());
    std::reverse(sensing.psfSize.begin(), sensing.psfSize.end());
    sensing.normalizePSF = normalizePSF;
  }
  sensing.Validate();
  return sensing;
}

/** One iteration of a sparse recovery as a dict (what the Python callback receives). */
py::dict
SparseIterationToDict(const gpur::SparseIterationInfo & info)
{
  py::dict d;
  d["iteration"] = info.iteration;
  d["relative_change"] = info.relativeChange;
  d["objective"] = info.objective;
  d["relative_gap"] = info.relativeGap;
  d["relative_error"] = info.relativeError;
  return d;
}

py::dict
ReportToDict(const gpur::SparseRecoveryReport & report)
{
  py::dict d = BackendFields(report.backend);
  d["stop"] = report.stop == gpur::SparseStop::Converged      ? "converged"
              : report.stop == gpur::SparseStop::TruthReached ? "truth_reached"
                                                              : "maximum_iterations";
  d["converged"] = report.converged;
  d["iterations"] = report.iterations;
  d["alpha"] = report.alpha;
  d["alpha_max"] = report.alphaMax;
  d["step"] = report.step;
  d["rho"] = report.rho;
  d["sigma"] = report.sigma;
  d["norm_squared_bound"] = report.normSquaredBound;
  d["objective"] = report.objective;
  d["relative_gap"] = report.relativeGap;
  d["relative_residual"] = report.relativeResidual;
  d["nonzeros"] = report.nonzeros;
  d["relative_change"] = report.relativeChange;
  d["relative_error"] = report.relativeError;
  py::list history;
  for (const auto & info : report.history)
    history.append(SparseIterationToDict(info));
  d["history"] = history;
  d["bytes"] = report.bytes;
  d["setup_seconds"] = report.setupSeconds;
  d["seconds"] = report.seconds;
  d["warnings"] = report.warnings;
  return d;
}

/** The shape of a 1D signal or 2D image as a vector; ValueError for other dimensions. */
std::vector<py::ssize_t>
SignalShape(const py::array & a)
{
  if (a.ndim() != 1 && a.ndim() != 2)
  {
    throw gpur::InvalidArgument("sparse recovery takes a 1D signal or a 2D image, got " + std::to_string(a.ndim()) +
                                " dimensions");
  }
  return std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim());
}

/** y = P C B x, zero-filled (gpur::CirculantOperator::Apply), and the backend it ran on. */
template<typename Real>
py::tuple
MeasureCirculant(py::array_t<Real, py::array::c_style> x,
                 const py::array_t<double, py::array::c_style | py::array::forcecast> & generator,
                 const py::array_t<std::uint8_t, py::array::c_style> & mask,
                 const std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> & psf,
                 bool normalizePSF,
                 const std::string & backend,
                 const std::string & device,
                 unsigned threads)
{
  const std::vector<py::ssize_t> shape = SignalShape(x);
  const gpur::CirculantSensing sensing = SensingOf(shape, generator, mask, psf, normalizePSF);
  const gpur::ExecutionOptions execution = Execution(backend, device, threads);
  py::array_t<Real> y(shape);
  const Real * in = x.data();
  Real * out = y.mutable_data();
  gpur::ResolvedBackend used;
  {
    py::gil_scoped_release release;
    const gpur::CirculantOperator<Real> op(sensing, execution);
    op.Apply(in, out);
    used = op.Backend();
  }
  return py::make_tuple(y, BackendFields(used));
}

/**
 * gpur::RecoverSparse of zero-filled measurements y (1D or 2D): (x, report dict). callback (None or a callable)
 * receives every iteration as a dict (SparseIterationToDict) with the GIL held; a falsy return other than None
 * aborts (itkgpurestoration.Aborted), an exception it raises is re-raised as is. truth (None or an array of y's
 * shape): the relative error is reported, and the run stops at target_relative_error (0: never by it). Ctrl-C
 * works as in SolveWithProgress.
 */
template<typename Real>
py::tuple
RecoverSparse(py::array_t<Real, py::array::c_style> y,
              const py::array_t<double, py::array::c_style | py::array::forcecast> & generator,
              const py::array_t<std::uint8_t, py::array::c_style> & mask,
              const std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> & psf,
              bool normalizePSF,
              const gpur::SparseRecoveryParameters & parameters,
              const std::string & backend,
              const std::string & device,
              unsigned threads,
              const py::object & callback,
              const std::optional<py::array_t<Real, py::array::c_style>> & truth,
              double targetRelativeError)
{
  const std::vector<py::ssize_t> shape = SignalShape(y);
  const gpur::CirculantSensing sensing = SensingOf(shape, generator, mask, psf, normalizePSF);
  parameters.Validate();
  const gpur::ExecutionOptions execution = Execution(backend, device, threads);
  gpur::SparseRecoveryTruth<Real> known;
  if (truth)
  {
    if (truth->ndim() != y.ndim() || !std::equal(shape.begin(), shape.end(), truth->shape()))
      throw gpur::InvalidArgument("truth must have the measurements' shape");
    known.truth = truth->data();
    known.targetRelativeError = targetRelativeError;
  }
  py::array_t<Real> x(shape);
  const Real * in = y.data();
  Real * out = x.mutable_data();
  std::exception_ptr callbackError;
  const gpur::SparseIterationCallback iterate = [&callback, &callbackError](const gpur::SparseIterationInfo & info)
  {
    if (callback.is_none())
      return true;
    py::gil_scoped_acquire gil;
    try
    {
      const py::object result = callback(SparseIterationToDict(info));
      return result.is_none() || py::bool_(result);
    }
    catch (...)
    {
      callbackError = std::current_exception();
      return false;
    }
  };
  gpur::SparseRecoveryReport report;
  try
  {
    // No progress callable: SolveWithProgress only checks for Ctrl-C.
    SolveWithProgress(py::none(),
                      [&](const gpur::ProgressCallback & progress) {
                        report =
                          gpur::RecoverSparse<Real>(sensing, in, out, parameters, execution, progress, iterate, known);
                      });
  }
  catch (const gpur::Aborted &)
  {
    if (callbackError)
      std::rethrow_exception(callbackError);
    throw;
  }
  py::dict d = ReportToDict(report);
  d["solver"] = gpur::ToString(parameters.solver);
  d["measurements"] = sensing.Measurements();
  return py::make_tuple(x, d);
}

/**
 * gpur::SparseRecoveryParameters as a Python class whose fields are the engine's (snake_case); the enumerations
 * read and write as the engine's parse/print strings; circulant_sensing, measure_circulant_<suffix> and
 * recover_sparse_<suffix>.
 */
void
DefineSparseRecovery(py::module_ & m)
{
  using P = gpur::SparseRecoveryParameters;
  py::class_<P>(m, "SparseRecoveryParameters")
    .def(py::init<>())
    .def_property(
      "solver",
      [](const P & p) { return std::string(gpur::ToString(p.solver)); },
      [](P & p, const std::string & text) { p.solver = gpur::ParseSparseSolver(text); })
    .def_readwrite("alpha", &P::alpha)
    .def_readwrite("relative_alpha", &P::relativeAlpha)
    .def_readwrite("step", &P::step)
    .def_property(
      "threshold",
      [](const P & p) { return std::string(gpur::ToString(p.threshold)); },
      [](P & p, const std::string & text) { p.threshold = gpur::ParseSparseThreshold(text); })
    .def_readwrite("rho", &P::rho)
    .def_readwrite("relative_sigma", &P::relativeSigma)
    .def_readwrite("dual_step", &P::dualStep)
    .def_readwrite("nonnegative", &P::nonnegative)
    .def_readwrite("tolerance", &P::tolerance)
    .def_readwrite("gap_tolerance", &P::gapTolerance)
    .def_readwrite("maximum_iterations", &P::maximumIterations)
    .def_readwrite("check_interval", &P::checkInterval)
    .def("validate", &P::Validate, "throws ValueError naming the bad parameter (gpur::SparseRecoveryParameters)");
  m.def(
    "circulant_sensing",
    [](const std::vector<std::size_t> & shape, double ratio, std::uint64_t seed)
    {
      // NumPy's shape is the engine's size reversed (x fastest).
      const gpur::CirculantSensing s =
        gpur::MakeGaussianCirculantSensing(std::vector<std::size_t>(shape.rbegin(), shape.rend()), ratio, seed);
      const std::vector<py::ssize_t> numpyShape(shape.begin(), shape.end());
      py::array_t<double> generator(numpyShape);
      py::array_t<std::uint8_t> mask(numpyShape);
      std::copy(s.generator.begin(), s.generator.end(), generator.mutable_data());
      std::copy(s.mask.begin(), s.mask.end(), mask.mutable_data());
      return py::make_tuple(generator, mask);
    },
    py::arg("shape"),
    py::arg("ratio"),
    py::arg("seed"),
    "gpur::MakeGaussianCirculantSensing for a NumPy shape: (generator float64, mask uint8)");
}

/** measure_circulant_<suffix> and recover_sparse_<suffix>; noconvert: a wrong dtype or layout is refused. */
template<typename Real>
void
DefineSparseEngine(py::module_ & m, const std::string & suffix)
{
  m.def(("measure_circulant_" + suffix).c_str(),
        &MeasureCirculant<Real>,
        py::arg("x").noconvert(),
        py::arg("generator"),
        py::arg("mask").noconvert(),
        py::arg("psf"),
        py::arg("normalize_psf"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("threads"));
  m.def(("recover_sparse_" + suffix).c_str(),
        &RecoverSparse<Real>,
        py::arg("y").noconvert(),
        py::arg("generator"),
        py::arg("mask").noconvert(),
        py::arg("psf"),
        py::arg("normalize_psf"),
        py::arg("parameters"),
        py::arg("backend"),
        py::arg("device"),
        py::arg("threads"),
        py::arg("callback"),
        py::arg("truth").noconvert(),
        py::arg("target_relative_error"));
}

} // namespace

PYBIND11_MODULE(_core, m)
{
  m.doc() = "C++ engine of itkgpurestoration (use the functions of the package instead)";
  m.attr("__version__") = GPUR_VERSION; // from the root CMakeLists.txt (wrapping/CMakeLists.txt)

  // The module lives until the interpreter ends, so the type object is kept forever.
  static py::handle abortedType = py::exception<gpur::Aborted>(m, "Aborted", PyExc_RuntimeError).release();
  static py::handle numericalErrorType =
    py::exception<gpur::NumericalError>(m, "NumericalError", PyExc_ArithmeticError).release();
  // A ValueError of its own type, so that the package can add how to fix the right-hand side.
  static py::handle incompatibleType =
    py::exception<gpur::IncompatibleRightHandSide>(m, "IncompatibleRightHandSide", PyExc_ValueError).release();
  // One translator, so the order is explicit: most derived engine errors first.
  py::register_exception_translator(
    [](std::exception_ptr p)
    {
      try
      {
        if (p)
        {
          std::rethrow_exception(p);
        }
      }
      catch (const gpur::Aborted & e)
      {
        PyErr_SetString(abortedType.ptr(), e.what());
      }
      catch (const gpur::IncompatibleRightHandSide & e)
      {
        PyErr_SetString(incompatibleType.ptr(), e.what());
      }
      catch (const gpur::InvalidArgument & e)
      {
        PyErr_SetString(PyExc_ValueError, e.what());
      }
      catch (const gpur::NumericalError & e)
      {
        PyErr_SetString(numericalErrorType.ptr(), e.what());
      }
      catch (const gpur::Error & e)
      {
        PyErr_SetString(PyExc_RuntimeError, e.what());
      }
    });

  DefineEngine<float>(m, "float32");
  DefineEngine<double>(m, "float64");
  DefineLevelLines(m);
  DefineSparseRecovery(m);
  DefineSparseEngine<float>(m, "float32");
  DefineSparseEngine<double>(m, "float64");
  m.attr("TV_DEFAULT_MAX_ITERATIONS") = gpur::TVParameters().maxIterations;
  m.attr("TV_DEFAULT_TOLERANCE") = gpur::TVParameters().gapTolerance;
  m.attr("GRAPH_FLOW_DEFAULT_TOLERANCE") = gpur::GraphFlowParameters().tolerance;
  m.attr("GRAPH_FLOW_DEFAULT_MAX_STEPS") = gpur::GraphFlowParameters().maximumSteps;
  m.attr("L1MC_DEFAULT_MAX_ITERATIONS") = gpur::L1MCParameters().maxIterations;
  m.attr("L1MC_DEFAULT_TOLERANCE") = gpur::L1MCParameters().tolerance;
  m.def("l1mc_r0_for_noise",
        &gpur::L1MCR0ForNoise,
        py::arg("normalized_sigma"),
        "r0 for a noise level sigma / data_range (gpur::L1MCR0ForNoise)");
  DefineSeparablePlan<float>(m, "float32");
  DefineSeparablePlan<double>(m, "float64");
  m.def(
    "second_difference_axis",
    [](std::size_t n, double spacing, bool leftNeumann, bool rightNeumann)
    { return AxisArrays(gpur::MakeSecondDifferenceAxis(n, spacing, Condition(leftNeumann), Condition(rightNeumann))); },
    py::arg("n"),
    py::arg("spacing"),
    py::arg("left_neumann"),
    py::arg("right_neumann"),
    "gpur::MakeSecondDifferenceAxis as (A diagonal, A off-diagonal, M diagonal, M off-diagonal)");
  m.def(
    "poisson_axes",
    [](const std::vector<py::ssize_t> & shape, const std::vector<double> & spacing, const std::vector<bool> & neumann)
    {
      // gpur::MakePoissonOperator, the operator of itk::PSCRPoissonSolver; the engine's axes are x first.
      std::vector<gpur::BoundaryCondition> conditions;
      for (auto axis = neumann.rbegin(); axis != neumann.rend(); ++axis)
      {
        conditions.push_back(Condition(*axis));
      }
      const gpur::SeparableOperator<double> op =
        gpur::MakePoissonOperator(GridOf(shape.data(), shape.size(), spacing), conditions);
      py::list axes;
      for (auto axis = op.axes.rbegin(); axis != op.axes.rend(); ++axis)
      {
        axes.append(AxisArrays(*axis));
      }
      return axes;
    },
    py::arg("shape"),
    py::arg("spacing"),
    py::arg("neumann"),
    "the axes of gpur::MakePoissonOperator for an array's shape, spacing and per-axis Neumann flags (array-axis "
    "order), each as (A diagonal, A off-diagonal, M diagonal, M off-diagonal)");
  m.def(
    "p1_axis",
    [](const std::vector<double> & nodes, bool leftNeumann, bool rightNeumann, bool consistent)
    {
      return AxisArrays(gpur::MakeP1Axis(nodes,
                                         Condition(leftNeumann),
                                         Condition(rightNeumann),
                                         consistent ? gpur::MassMatrix::Consistent : gpur::MassMatrix::Lumped));
    },
    py::arg("nodes"),
    py::arg("left_neumann"),
    py::arg("right_neumann"),
    py::arg("consistent_mass"),
    "gpur::MakeP1Axis as (A diagonal, A off-diagonal, M diagonal, M off-diagonal)");
  m.def("list_devices", &ListDevices, "Every OpenCL device, as dicts");
  m.def("tv_halo",
        &gpur::TVHalo,
        py::arg("iterations"),
        "voxels of padding that keep a block exact through `iterations` TV iterations (iterations + 1)");
  m.def("phantom", &Phantom, py::arg("shape"), py::arg("name"), "a phantom (float32) on a unit-spacing grid");
  m.def("simulate_ct",
        &SimulateCT,
        py::arg("truth").noconvert(),
        py::arg("spacing"),
        py::arg("geometry"),
        py::arg("views"),
        py::arg("filter"),
        py::arg("photons_per_ray"),
        py::arg("electronic_noise"),
        py::arg("attenuation"),
        py::arg("source_to_axis"),
        py::arg("source_to_detector"),
        py::arg("seed"),
        py::arg("noise_free"),
        py::arg("sinogram"),
        "a simulated CT scan of truth (gpur::SimulateCT), as a dict");
}
