// SPDX-License-Identifier: Apache-2.0
// itkgpurestoration-tv: total-variation (ROF) denoising of an image file.
//
//   itkgpurestoration-tv [options] <input> <output>
//
// <input> is any image ITK reads (NRRD, MHA/MHD, NIfTI, TIFF, PNG, ...) or a
// directory holding a DICOM series (the first series GDCM finds). It is read as
// float, 2D or 3D according to the file, denoised by
// itk::TotalVariationDenoisingImageFilter and written to <output> in the format
// its extension selects, with the input's origin, spacing and direction.
// A progress bar goes to stderr when it is a terminal; when stdout is not one
// (3D Slicer), <filter-progress> lines and the summary go to stdout
// (gpurCommandLineITK.h; --quiet turns progress and the summary line off);
// --xml prints the 3D Slicer Execution Model description, so Slicer can load
// this program as a CLI module. Run with --help for the options.
//
// Without --lambda (or with --lambda 0) lambda is chosen by the discrepancy
// principle from the noise level: --sigma, or estimated from the input; the
// summary line gives the lambda chosen, the noise sigma and the solves.
//
// Errors (unreadable, truncated or corrupt input, RGB or vector pixels, a bad
// option value, NaN/Inf pixels, a failed write, ...) exit with 1 and one line
// on stderr. A run that ends without meeting --tolerance (the --iterations
// budget ran out) prints "itkgpurestoration-tv: warning: ..." on stderr, also
// with --quiet, writes the output and exits with 0: the output is the last
// iterate and the summary line gives its gap, so the run did what was asked;
// scripts that need convergence can look for the warning line. A partial
// output file is never left behind: the output is written only after
// denoising succeeded, into a temporary folder next to <output> (with the
// format's companion files, e.g. the .zraw of a .mhd), read back, and renamed
// into place once complete; SIGINT/SIGTERM/SIGHUP remove the temporaries and
// exit with 128 + the signal's number (gpurCommandLineITK.h).
#include "gpurCommandLine.h"
#include "gpurCommandLineITK.h"
#include "itkTotalVariationDenoisingImageFilter.h"

#include "itkImage.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

namespace
{

constexpr const char * kProgram = "itkgpurestoration-tv";

/** The tool's settings; backend, device, quiet, xml and the file names are every tool's. */
struct Options : gpur::cli::ToolOptions
{
  double lambda = 0.0;      // automatic
  double sigma = 0.0;       // estimated
  double discrepancy = 0.0; // calibrated
  std::string algorithm = "accelerated";
  unsigned iterations = gpur::TVParameters().maxIterations;
  double tolerance = 1e-4;
  bool halfDual = false;
};

/** Fills parser with the options, storing into options (both must outlive parsing). */
void
DeclareOptions(gpur::cli::Parser & parser, Options & o)
{
  using gpur::cli::ParseNonNegativeDouble;
  auto & lambda =
    parser.AddDouble("--lambda",
                     "L",
                     "Fidelity weight lambda of the ROF model; larger keeps more of the input. 0 chooses it by the "
                     "discrepancy principle, mean (u - f)^2 = F sigma^2, from the noise sigma (--sigma, or estimated). "
                     "Units 1/(intensity * length): lambda * sigma * spacing is what matters, about 1 (10 for sigma "
                     "0.1 at unit spacing, 0.057 for sigma 25 HU at 0.7 mm).",
                     o.lambda,
                     ParseNonNegativeDouble);
  lambda.label = "Lambda (0: automatic)";
  lambda.constraints = gpur::cli::Constraints{ 0.0, 1000.0, 0.5 };
  auto & sigma = parser.AddDouble("--sigma",
                                  "S",
                                  "Noise standard deviation in the image's intensity units, for the automatic "
                                  "lambda; 0 estimates it from the input.",
                                  o.sigma,
                                  ParseNonNegativeDouble);
  sigma.label = "Noise sigma (0: estimated)";
  parser
    .AddDouble("--discrepancy",
               "F",
               "Target F of mean (u - f)^2 / sigma^2 for the automatic lambda; 0 calibrates it from the noise's "
               "spectrum (0.9 for white noise, about 0.7 for CT).",
               o.discrepancy,
               ParseNonNegativeDouble)
    .label = "Discrepancy factor (0: calibrated)";
  auto & algorithm = parser.AddChoice("--algorithm",
                                      "Solver: cp (Chambolle-Pock, constant steps), accelerated (Chambolle-Pock "
                                      "2011 Alg. 2, O(1/k^2)) or pdu (Zhu-Chan/Knoll schedule).",
                                      { "cp", "accelerated", "pdu" },
                                      o.algorithm);
  algorithm.label = "Algorithm";
  auto & iterations =
    parser.AddUnsigned("--iterations", "N", "Maximum number of iterations (>= 1).", o.iterations, 1, 1000000000u);
  iterations.label = "Maximum iterations";
  iterations.constraints = gpur::cli::Constraints{ 1.0, 100000.0, 10.0 };
  auto & tolerance = parser.AddDouble("--tolerance",
                                      "T",
                                      "Stop when the relative primal-dual gap is <= T; 0 runs all iterations.",
                                      o.tolerance,
                                      ParseNonNegativeDouble);
  tolerance.label = "Gap tolerance";
  auto & half = parser.AddSwitch("--half-dual",
                                 "Store the dual variable in IEEE half precision on OpenCL devices (arithmetic "
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
  module.title = "GPU Total Variation Denoising";
  module.description = "Total-variation (ROF) denoising, min_u (lambda/2)|u - f|^2 + TV(u), of a 2D or 3D image on an "
                       "OpenCL device (GPU, or the CPU through PoCL) or the multithreaded CPU backend. Lambda 0 (the "
                       "default) chooses lambda from the noise level (given, or estimated from the image) by the "
                       "discrepancy principle, whatever the intensity unit (e.g. HU) and voxel size. The gradient is "
                       "divided by the voxel spacing, so anisotropic voxels are handled correctly.";
  module.groups = { { "Total variation", "Model and solver parameters." }, { "Execution", "Where the filter runs." } };
  module.images = { { "inputVolume", "Input volume", "input", "Noisy image (2D or 3D, read as float)." },
                    { "outputVolume", "Output volume", "output", "Denoised image (float)." } };
  return module;
}

template<unsigned Dimension>
int
Denoise(const Options & o)
{
  using ImageType = itk::Image<float, Dimension>;
  using FilterType = itk::TotalVariationDenoisingImageFilter<ImageType>;
  typename ImageType::Pointer input = gpur::cli::ReadInput<ImageType>(o.input, kProgram);

  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->SetLambda(o.lambda);
  filter->SetNoiseSigma(o.sigma);
  filter->SetDiscrepancyFactor(o.discrepancy);
  filter->SetAlgorithm(
    itk::GPURestoration::FromEngine<typename FilterType::AlgorithmEnum>(gpur::ParseTVAlgorithm(o.algorithm)));
  filter->SetMaximumNumberOfIterations(o.iterations);
  filter->SetGapTolerance(o.tolerance);
  filter->SetHalfPrecisionDual(o.halfDual);
  gpur::cli::SetExecution(filter.GetPointer(), o);
  const double wall =
    gpur::cli::UpdateReportingWarnings(filter, o.quiet, kProgram, [&] { return filter->GetReport().warnings; });
  gpur::cli::WriteOutput(filter->GetOutput(), o.output);
  if (!o.quiet)
  {
    std::ostringstream line;
    std::ostringstream noise;
    noise << std::setprecision(3) << "noise sigma " << filter->GetNoiseSigmaUsed()
          << (filter->GetNoiseSigmaEstimated() ? " estimated" : " given") << ", ";
    line << kProgram << ": " << filter->GetBackendUsed() << " (" << filter->GetBackendReason() << "), lambda "
         << filter->GetLambdaUsed()
         << gpur::cli::AutomaticLambdaNote(filter.GetPointer(), noise.str(), o.discrepancy > 0.0);
    if (filter->GetDiscrepancy() > 0.0)
      line << ", discrepancy " << std::setprecision(4) << filter->GetDiscrepancy() << std::setprecision(6);
    line << ", " << filter->GetNumberOfIterations() << " iterations" << (filter->GetConverged() ? " (converged)" : "")
         << ", relative gap " << std::scientific << std::setprecision(2) << filter->GetRelativeGap() << std::fixed
         << std::setprecision(3) << ", " << filter->GetElapsedSeconds() << " s solve (" << wall << " s with setup)"
         << gpur::cli::StreamNote(filter.GetPointer()) << gpur::cli::DualStorageNote(filter.GetPointer()) << ", wrote "
         << o.output;
    gpur::cli::Summary() << line.str() << "\n";
  }
  return 0;
}

int
Run(int argc, char * argv[])
{
  Options o;
  gpur::cli::Parser parser(kProgram,
                           "<input> <output>",
                           "Total-variation (ROF) denoising of a 2D or 3D image with "
                           "itk::TotalVariationDenoisingImageFilter.\n<input>: an image file ITK reads (NRRD, MHA, "
                           "NIfTI, TIFF, ...) or a DICOM series directory; <output>: any format ITK writes, chosen "
                           "by the extension.\nThe output is written only on success (via a verified temporary file).");
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
