// SPDX-License-Identifier: Apache-2.0
// itkgpurestoration-stv: statistical (noise-weighted) TV denoising of a CT image
// file, or TV gradient descent, with itk::StatisticalTVImageFilter.
//
//   itkgpurestoration-stv [options] <input> <output>
//
// <input> and <output> are handled as by itkgpurestoration-tv (any ITK format or
// a DICOM series folder in, corrupt input refused; the output written only on
// success, through a temporary folder, and read back). --variance names the per-voxel noise variance (an image on
// the input's grid, e.g. from FBP noise propagation); without it the variance
// is estimated from the input. The smoothing is chosen by the discrepancy
// principle unless set: --lambda 0 (the default) picks lambda for the
// primal-dual methods, and the gradient-descent methods (--method tvgd|awtv)
// stop when ||u - f||^2 reaches --discrepancy * sum(var). Progress and the
// summary line go to a terminal's stderr or, for 3D Slicer, to stdout
// (gpurCommandLineITK.h; --quiet: neither); --xml prints the 3D Slicer
// description. Errors exit with 1 and one line on stderr.
#include "gpurCommandLine.h"
#include "gpurCommandLineITK.h"
#include "itkStatisticalTVImageFilter.h"

#include "itkImage.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

namespace
{

constexpr const char * kProgram = "itkgpurestoration-stv";

/** The tool's settings; backend, device, quiet, xml and the file names are every tool's. */
struct Options : gpur::cli::ToolOptions
{
  std::string variance;
  std::string method = "accelerated";
  double lambda = 0.0; // automatic
  double weightExponent = 1.0;
  double discrepancy = 0.0;                                 // calibrated
  unsigned iterations = gpur::TVParameters().maxIterations; // the TV default: the gap stop ends most solves early
  double tolerance = 1e-4;
  bool halfDual = false;
  double step = 0.004;
  std::string stepUnit = "rms";
  double delta = 0.1;
  double targetResidual = 0.0; // the discrepancy target
  bool allIterations = false;
};

bool
IsGradientDescent(const std::string & method)
{
  return method == "tvgd" || method == "awtv";
}

/** Fills parser with the options, storing into options (both must outlive parsing). */
void
DeclareOptions(gpur::cli::Parser & parser, Options & o)
{
  using gpur::cli::ParseNonNegativeDouble;
  using gpur::cli::ParsePositiveDouble;
  parser
    .AddInputImage("--variance",
                   "FILE",
                   "Per-voxel noise variance of the input (finite, > 0), on the input's grid; without it the "
                   "variance is estimated from the input.",
                   o.variance)
    .label = "Noise variance";
  parser
    .AddChoice("--method",
               "accelerated (Chambolle-Pock, converges at the default tolerance), cp or pdu (S-PDU of Huang 2023) "
               "solve the noise-weighted ROF model; tvgd (TV gradient descent) and awtv (adaptive-weighted TV) "
               "descend from the input until ||u - f|| reaches a target.",
               { "accelerated", "cp", "pdu", "tvgd", "awtv" },
               o.method)
    .label = "Method";
  auto & lambda =
    parser.AddDouble("--lambda",
                     "L",
                     "accelerated/cp/pdu: fidelity weight lambda; 0 chooses it by the discrepancy principle, "
                     "sum (u - f)^2 / var = discrepancy * N, on converged solves.",
                     o.lambda,
                     ParseNonNegativeDouble);
  lambda.label = "Lambda (0: automatic)";
  lambda.constraints = gpur::cli::Constraints{ 0.0, 1000.0, 0.5 };
  parser
    .AddDouble("--weight-exponent",
               "G",
               "accelerated/cp/pdu: gamma of the weights var^gamma (normalised by their mean), 0 to 2; 1 is the "
               "model of Huang 2023, 0.5 weights by sigma, 0 is plain TV.",
               o.weightExponent,
               ParseNonNegativeDouble)
    .label = "Weight exponent";
  parser
    .AddDouble("--discrepancy",
               "F",
               "Target of the mean normalised residual: the automatic lambda and the gradient-descent stop make "
               "the residual F times the noise variance. 0: calibrated from the noise's spectrum for the automatic "
               "lambda (0.9 for white noise, about 0.7 for CT), 1 for the gradient-descent stop.",
               o.discrepancy,
               ParseNonNegativeDouble)
    .label = "Discrepancy factor";
  auto & iterations = parser.AddUnsigned("--iterations",
                                         "N",
                                         "Maximum number of iterations (>= 1): per lambda solve, or of the descent.",
                                         o.iterations,
                                         1,
                                         1000000000u);
  iterations.label = "Maximum iterations";
  iterations.constraints = gpur::cli::Constraints{ 1.0, 100000.0, 10.0 };
  parser
    .AddDouble("--tolerance",
               "T",
               "accelerated/cp/pdu: stop a solve when the relative primal-dual gap is <= T; 0 runs all iterations "
               "(not with the automatic lambda, which needs converged solves).",
               o.tolerance,
               ParseNonNegativeDouble)
    .label = "Gap tolerance";
  auto & step = parser.AddDouble("--step",
                                 "S",
                                 "tvgd/awtv: step length in --step-unit; about sigma / 25 (rms) reaches the "
                                 "discrepancy target in 25-40 iterations.",
                                 o.step,
                                 ParsePositiveDouble);
  step.label = "Step length";
  step.group = "Gradient descent";
  auto & unit = parser.AddChoice("--step-unit",
                                 "tvgd/awtv: rms (change per voxel, independent of the size) or l2 (the lambda "
                                 "of Huang 2023, in the global L2 norm).",
                                 { "rms", "l2" },
                                 o.stepUnit);
  unit.label = "Step unit";
  unit.group = "Gradient descent";
  auto & delta = parser.AddDouble("--delta",
                                  "D",
                                  "awtv: weight scale (intensity / length); differences much larger are kept as "
                                  "edges. Between the noise's differences and the edge contrast.",
                                  o.delta,
                                  ParsePositiveDouble);
  delta.label = "AW-TV delta";
  delta.group = "Gradient descent";
  auto & target = parser.AddDouble("--target-residual",
                                   "R",
                                   "tvgd/awtv: stop when ||u - f|| >= R; 0 stops at ||u - f||^2 = discrepancy * "
                                   "sum(var).",
                                   o.targetResidual,
                                   ParseNonNegativeDouble);
  target.label = "Target ||u - f|| (0: discrepancy)";
  target.group = "Gradient descent";
  auto & all =
    parser.AddSwitch("--all-iterations", "tvgd/awtv: run all --iterations, with no target.", o.allIterations);
  all.label = "All iterations";
  all.group = "Gradient descent";
  auto & half = parser.AddSwitch(
    "--half-dual",
    "Primal-dual methods: store the dual variable in IEEE half precision on OpenCL devices (arithmetic "
    "stays float): fewer bytes per iteration, a small objective excess.",
    o.halfDual);
  half.label = "Half-precision dual";
  gpur::cli::AddToolOptions(parser, o, gpur::cli::DeviceMemoryLimit::Offered);
}

/** What the Slicer description says besides the options (which come from the option table). */
gpur::cli::SlicerModule
SlicerDescription()
{
  gpur::cli::SlicerModule module;
  module.category = "Filtering.Denoising";
  module.title = "GPU Statistical TV Denoising for CT";
  module.description = "Noise-weighted total-variation denoising of CT images, min_u (lambda/2) sum (u - f)^2 / w + "
                       "TV(u) with w from the per-voxel noise variance (given, or estimated from the image) and "
                       "lambda by the discrepancy principle; or TV gradient descent (TV-GD, AW-TV) stopped at the "
                       "noise level. On an OpenCL device (GPU, or the CPU through PoCL) or the CPU backend.";
  module.groups = { { "Statistical TV", "Model and solver parameters." },
                    { "Gradient descent", "Parameters of the tvgd and awtv methods." },
                    { "Execution", "Where the filter runs." } };
  module.images = { { "inputVolume", "Input volume", "input", "Noisy CT image (2D or 3D, read as float)." },
                    { "outputVolume", "Output volume", "output", "Denoised image (float)." } };
  return module;
}

template<unsigned Dimension>
int
Denoise(const Options & o)
{
  using ImageType = itk::Image<float, Dimension>;
  using FilterType = itk::StatisticalTVImageFilter<ImageType>;
  using Method = typename FilterType::MethodEnum;

  auto filter = FilterType::New();
  filter->SetInput(gpur::cli::ReadInput<ImageType>(o.input, kProgram));
  if (!o.variance.empty())
  {
    // A reader would take the first slice of a 3D file as a 2D image: refuse instead.
    const unsigned dimension = gpur::cli::InputDimension(o.variance);
    if (dimension != Dimension)
      throw std::runtime_error("the variance '" + o.variance + "' is " + std::to_string(dimension) +
                               "D but the input " + std::to_string(Dimension) + "D; it must be on the input's grid");
    filter->SetNoiseVariance(gpur::cli::ReadInput<ImageType>(o.variance, kProgram));
  }
  filter->SetDiscrepancyFactor(o.discrepancy);
  filter->SetMaximumNumberOfIterations(o.iterations);
  const bool descent = IsGradientDescent(o.method);
  if (descent)
  {
    filter->SetMethod(o.method == "tvgd" ? Method::GradientDescent : Method::AdaptiveWeightedGradientDescent);
    filter->SetStepLength(o.step);
    filter->SetStepUnit(
      itk::GPURestoration::FromEngine<typename FilterType::StepUnitEnum>(gpur::ParseTVGDStepUnit(o.stepUnit)));
    filter->SetDelta(o.delta);
    filter->SetTargetResidual(o.allIterations ? 0.0 : o.targetResidual);
    filter->SetStopAtDiscrepancy(!o.allIterations && o.targetResidual == 0.0);
  }
  else
  {
    filter->SetAlgorithm(
      itk::GPURestoration::FromEngine<typename FilterType::AlgorithmEnum>(gpur::ParseTVAlgorithm(o.method)));
    filter->SetAutomaticLambda(o.lambda == 0.0);
    if (o.lambda > 0.0)
      filter->SetLambda(o.lambda);
    filter->SetWeightExponent(o.weightExponent);
    filter->SetGapTolerance(o.tolerance);
    filter->SetHalfPrecisionDual(o.halfDual);
  }
  gpur::cli::SetExecution(filter.GetPointer(), o);
  const double wall =
    gpur::cli::UpdateReportingWarnings(filter, o.quiet, kProgram, [&] { return filter->GetReport().warnings; });
  gpur::cli::WriteOutput(filter->GetOutput(), o.output);
  if (!o.quiet)
  {
    std::ostringstream line;
    line << kProgram << ": " << filter->GetBackendUsed() << " (" << filter->GetBackendReason() << "), " << o.method
         << ", ";
    if (descent)
    {
      line << filter->GetNumberOfIterations() << " iterations, ||u - f|| " << filter->GetResidual();
      if (filter->GetTargetResidualUsed() > 0.0)
        line << (filter->GetTargetReached() ? " reached the target " : " did NOT reach the target ")
             << filter->GetTargetResidualUsed();
    }
    else
    {
      line << "lambda " << filter->GetLambdaUsed()
           << gpur::cli::AutomaticLambdaNote(filter.GetPointer(), "", o.discrepancy > 0.0) << ", "
           << filter->GetNumberOfIterations() << " iterations"
           << (filter->GetConverged() ? "" : " (NOT converged: raise --iterations)");
    }
    if (filter->GetDiscrepancy() > 0.0)
      line << ", discrepancy " << std::setprecision(4) << filter->GetDiscrepancy() << " (variance "
           << (filter->GetVarianceEstimated() ? "estimated" : "given") << ")";
    line << std::fixed << std::setprecision(3) << ", " << wall << " s" << gpur::cli::StreamNote(filter.GetPointer())
         << gpur::cli::DualStorageNote(filter.GetPointer()) << ", wrote " << o.output;
    gpur::cli::Summary() << line.str() << "\n";
    if (!descent && filter->GetAutomaticLambda() && o.discrepancy == 0.0 && !filter->GetResidualGainMeasured())
      std::cerr << kProgram
                << ": warning: the noise spectrum could not be measured on the image (too busy or too small): "
                << (filter->GetVarianceEstimated() ? "the variance estimate and " : "")
                << "the discrepancy factor assume white noise; for a CT reconstruction give --variance (and "
                   "--discrepancy 0.7)\n";
  }
  return 0;
}

int
Run(int argc, char * argv[])
{
  Options o;
  gpur::cli::Parser parser(kProgram,
                           "<input> <output>",
                           "Statistical (noise-weighted) TV denoising of a 2D or 3D CT image with "
                           "itk::StatisticalTVImageFilter, or TV gradient descent (--method tvgd|awtv); the "
                           "smoothing follows the noise variance (--variance, or estimated).\n<input>: an image file "
                           "ITK reads or a DICOM series directory; <output>: any format ITK writes, chosen by the "
                           "extension.\nOptions marked with a method apply to it only. The output is written only "
                           "on success (via a verified temporary file).");
  DeclareOptions(parser, o);
  if (!gpur::cli::ParseToolCommandLine(parser, argc, argv, o, SlicerDescription(), std::cout))
    return 0;
  gpur::cli::CheckOutputName(o.output); // before the work, not after it
  return gpur::cli::ByInputDimension(
    o.input, [&o] { return Denoise<2>(o); }, [&o] { return Denoise<3>(o); });
}

} // namespace

int
main(int argc, char * argv[])
{
  return gpur::cli::RunTool(kProgram, argc, argv, Run);
}
