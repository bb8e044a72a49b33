// SPDX-License-Identifier: Apache-2.0
// itkgpurestoration-l1mc: L1-mean-curvature denoising of a 2D image file.
//
//   itkgpurestoration-l1mc [options] <input> <output>
//
// <input> is any 2D image ITK reads (NRRD, MHA/MHD, NIfTI, TIFF, PNG, ...),
// read as float, denoised by itk::L1MeanCurvatureDenoiseImageFilter and
// written to <output> in the format its extension selects, with the input's
// origin, spacing and direction. Progress, the 3D Slicer progress lines and
// --xml, the one-line errors with exit code 1, the warning (exit 0) when the
// --iterations budget ran out before --tolerance was met, the atomic output
// and the signal handling are those of itkgpurestoration-tv (see there and
// gpurCommandLineITK.h).
//
// Without --r0 (or with --r0 0) r0 is chosen from the noise level (--sigma, or
// estimated from the input) relative to the data range; the summary line
// gives the r0 used, the noise sigma, the iterations, the final relative change
// of the augmented Lagrangian and the constraint residuals R1-R3.
#include "gpurCommandLine.h"
#include "gpurCommandLineITK.h"
#include "itkL1MeanCurvatureDenoiseImageFilter.h"

#include "itkImage.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace
{

constexpr const char * kProgram = "itkgpurestoration-l1mc";

/** The tool's settings; backend, device, quiet, xml and the file names are every tool's. */
struct Options : gpur::cli::ToolOptions
{
  double r0 = 0.0;        // from the noise level
  double sigma = 0.0;     // estimated
  double meshSize = 0.0;  // 1 / (max(width, height) - 1)
  double dataRange = 0.0; // max - min of the input
  double epsilon = 0.0;   // r0 h
  double r1 = 0.0;        // 10 r0 h
  double r2 = 0.0;        // 5 r0
  double r3 = 0.0;        // 5 r0 h^2
  unsigned iterations = gpur::L1MCParameters().maxIterations;
  double tolerance = gpur::L1MCParameters().tolerance;
  std::string initialization = "zero";
  std::string cornerMass = "exact";
  std::string sub2Solver = "direct";
};

/** Fills parser with the options, storing into options (both must outlive parsing). */
void
DeclareOptions(gpur::cli::Parser & parser, Options & o)
{
  using gpur::cli::ParseNonNegativeDouble;
  auto & r0 =
    parser.AddDouble("--r0",
                     "R",
                     "The regularisation knob r0 of the model (larger smooths more); eps = r0 h, r1 = 10 r0 h, "
                     "r2 = 5 r0, r3 = 5 r0 h^2. 0 chooses it from the noise sigma relative to the data range "
                     "(--sigma, or estimated): about 0.002 for sigma 0.06 on a [0, 1] image.",
                     o.r0,
                     ParseNonNegativeDouble);
  r0.label = "r0 (0: from the noise level)";
  r0.constraints = gpur::cli::Constraints{ 0.0, 1.0, 0.0005 };
  parser
    .AddDouble("--sigma",
               "S",
               "Noise standard deviation in the image's intensity units, for choosing r0; 0 estimates it.",
               o.sigma,
               ParseNonNegativeDouble)
    .label = "Noise sigma (0: estimated)";
  parser
    .AddDouble(
      "--data-range",
      "D",
      "The intensity span the model treats as 1 (the model is not scale-invariant); 0: max - min of the input.",
      o.dataRange,
      ParseNonNegativeDouble)
    .label = "Data range (0: max - min)";
  parser
    .AddDouble("--mesh-size",
               "H",
               "Mesh step h of the normalised domain; 0: 1 / (max(width, height) - 1), the longer side of length 1.",
               o.meshSize,
               ParseNonNegativeDouble)
    .label = "Mesh size h (0: automatic)";
  parser.AddDouble("--epsilon", "E", "Weight eps of the curvature term; 0: r0 h.", o.epsilon, ParseNonNegativeDouble)
    .label = "Epsilon (0: r0 h)";
  parser.AddDouble("--r1", "R1", "Penalty r1 of grad u = p1; 0: 10 r0 h.", o.r1, ParseNonNegativeDouble).label =
    "r1 (0: 10 r0 h)";
  parser.AddDouble("--r2", "R2", "Penalty r2 of p2 = p3; 0: 5 r0.", o.r2, ParseNonNegativeDouble).label =
    "r2 (0: 5 r0)";
  parser.AddDouble("--r3", "R3", "Penalty r3 of div p3 = psi; 0: 5 r0 h^2.", o.r3, ParseNonNegativeDouble).label =
    "r3 (0: 5 r0 h^2)";
  auto & iterations =
    parser.AddUnsigned("--iterations", "N", "Maximum number of outer iterations (>= 1).", o.iterations, 1, 1000000000u);
  iterations.label = "Maximum iterations";
  iterations.constraints = gpur::cli::Constraints{ 1.0, 100000.0, 10.0 };
  parser
    .AddDouble("--tolerance",
               "T",
               "Stop when the relative change of the augmented Lagrangian is < T (> 0) and R1-R3 < 0.05.",
               o.tolerance,
               gpur::cli::ParsePositiveDouble)
    .label = "Tolerance";
  parser
    .AddChoice("--initialization",
               "Starting point: zero (every variable 0, the paper's choice) or data (u = f).",
               { "zero", "data" },
               o.initialization)
    .label = "Initialization";
  parser
    .AddChoice("--corner-mass",
               "Lumped mass at the image corners in the u-subproblem: exact (a rank-4 correction of the separable "
               "solve) or separable (h^2/4).",
               { "exact", "separable" },
               o.cornerMass)
    .label = "Corner mass";
  parser
    .AddChoice("--sub2-solver",
               "How the p3-subproblem is solved: direct (one fast Dirichlet Helmholtz solve, exact) or cg (the "
               "paper's conjugate gradients).",
               { "direct", "cg" },
               o.sub2Solver)
    .label = "p3 solver";
  gpur::cli::AddToolOptions(parser, o, gpur::cli::DeviceMemoryLimit::NotOffered);
}

/** What the Slicer description says besides the options (which come from the option table). */
gpur::cli::SlicerModule
SlicerDescription()
{
  gpur::cli::SlicerModule module;
  module.category = "Filtering.Denoising";
  module.title = "GPU L1 Mean Curvature Denoising";
  module.description =
    "L1-mean-curvature denoising, min_u eps |div(grad u / sqrt(1 + |grad u|^2))|_1 + 1/2 |u - f|^2, of a 2D image by "
    "the augmented Lagrangian method on an OpenCL device (GPU, or the CPU through PoCL) or the multithreaded CPU "
    "backend. Unlike total variation it keeps the contrast of small features and does not turn ramps into "
    "staircases. r0 0 (the default) chooses the regularisation from the noise level (given, or estimated).";
  module.groups = { { "L1 mean curvature", "Model and solver parameters." },
                    { "Execution", "Where the filter runs." } };
  module.images = { { "inputVolume", "Input image", "input", "Noisy 2D image (read as float)." },
                    { "outputVolume", "Output image", "output", "Denoised image (float)." } };
  return module;
}

int
Denoise(const Options & o)
{
  using ImageType = itk::Image<float, 2>;
  using FilterType = itk::L1MeanCurvatureDenoiseImageFilter<ImageType>;
  typename ImageType::Pointer input = gpur::cli::ReadInput<ImageType>(o.input, kProgram);

  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->SetR0(o.r0);
  filter->SetNoiseSigma(o.sigma);
  filter->SetMeshSize(o.meshSize);
  filter->SetDataRange(o.dataRange);
  filter->SetEpsilon(o.epsilon);
  filter->SetR1(o.r1);
  filter->SetR2(o.r2);
  filter->SetR3(o.r3);
  filter->SetMaximumNumberOfIterations(o.iterations);
  filter->SetTolerance(o.tolerance);
  filter->SetInitialization(
    itk::GPURestoration::FromEngine<FilterType::InitializationEnum>(gpur::ParseL1MCInitialization(o.initialization)));
  filter->SetCornerMass(o.cornerMass == "separable" ? FilterType::CornerMassEnum::Separable
                                                    : FilterType::CornerMassEnum::Exact);
  filter->SetSub2Solver(
    itk::GPURestoration::FromEngine<FilterType::Sub2SolverEnum>(gpur::ParseL1MCSub2Solver(o.sub2Solver)));
  filter->SetBackend(itk::GPURestoration::FromEngine<FilterType::BackendEnum>(gpur::ParseBackend(o.backend)));
  filter->SetDevice(o.device);
  const double wall =
    gpur::cli::UpdateReportingWarnings(filter, o.quiet, kProgram, [&] { return filter->GetReport().warnings; });
  gpur::cli::WriteOutput(filter->GetOutput(), o.output);
  if (!o.quiet)
  {
    std::ostringstream line;
    line << kProgram << ": " << filter->GetBackendUsed() << " (" << filter->GetBackendReason() << "), r0 "
         << std::setprecision(4) << filter->GetR0Used();
    if (o.r0 == 0.0)
      line << " (from noise sigma " << filter->GetNoiseSigmaUsed()
           << (filter->GetNoiseSigmaEstimated() ? " estimated" : " given") << ")";
    line << ", data range " << filter->GetDataRangeUsed() << ", h " << filter->GetMeshSizeUsed() << ", "
         << filter->GetNumberOfIterations() << " iterations" << (filter->GetConverged() ? " (converged)" : "")
         << std::scientific << std::setprecision(2) << ", relative change " << filter->GetRelativeChange()
         << ", residuals R1 " << filter->GetR1Residual() << " R2 " << filter->GetR2Residual() << " R3 "
         << filter->GetR3Residual() << std::fixed << std::setprecision(3) << ", " << filter->GetElapsedSeconds()
         << " s solve (" << wall << " s with setup), wrote " << o.output;
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
                           "L1-mean-curvature denoising of a 2D image with itk::L1MeanCurvatureDenoiseImageFilter.\n"
                           "<input>: a 2D image file ITK reads (NRRD, MHA, NIfTI, TIFF, PNG, ...); <output>: any "
                           "format ITK writes, chosen by the extension.\nThe output is written only on success (via a "
                           "verified temporary file).");
  DeclareOptions(parser, o);
  if (!gpur::cli::ParseToolCommandLine(parser, argc, argv, o, SlicerDescription(), std::cout))
    return 0;
  gpur::cli::CheckOutputName(o.output); // before the work, not after it
  return gpur::cli::ByInputDimension(
    o.input,
    [&o] { return Denoise(o); },
    [&o]() -> int
    {
      throw std::runtime_error("'" + o.input +
                               "' is a 3D image; L1-mean-curvature denoising is 2D (denoise its slices, or use "
                               "itkgpurestoration-tv for volumes)");
    });
}

} // namespace

int
main(int argc, char * argv[])
{
  return gpur::cli::RunTool(kProgram, argc, argv, Run);
}
