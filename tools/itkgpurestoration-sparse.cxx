// SPDX-License-Identifier: Apache-2.0
// itkgpurestoration-sparse: compressed sensing of 2D images with partial circulant matrices [Fiandrotti2018]:
// simulate compressed measurements, recover a sparse image from them, or deblur a sparse image directly from
// compressed, blurred measurements.
//
//   itkgpurestoration-sparse --mode measure [--ratio R --seed S | --mask M --generator G] [--psf P]
//                            [--mask-output M --generator-output G] <image> <measurements>
//   itkgpurestoration-sparse [--mode recover] [--ratio R --seed S | --mask M --generator G] <measurements> <image>
//   itkgpurestoration-sparse --mode deblur --psf P [...] <measurements> <image>
//
// Measurements are zero-filled images: the measured values on the mask, 0 elsewhere. The sensing operator is
// given as files (--mask: 0 and 1, --generator: the first row of the circulant matrix) or drawn from --seed with
// --ratio measurements per pixel, exactly as itk::CirculantSensingImageFilter and Python's circulant_sensing
// draw it; --mask-output and --generator-output save the operator of a measure run. The files are read as float
// (the mask as 8-bit), computed in double, written as float, and must lie on the input's grid; the PSF is centred at
// index size / 2 and sampled at the input's spacing. Recover and deblur run itk::CompressedSensingRecoveryImageFilter
// and itk::CompressedSensingDeblurImageFilter (FISTA, CPISTA or CPADMM on the LASSO); measure runs
// itk::CirculantSensingImageFilter. Progress, the 3D Slicer progress lines and --xml, the one-line errors with
// exit code 1, the warnings (a run that ends before its tolerance: exit 0), the atomic outputs and the signal
// handling are those of itkgpurestoration-tv (see there and gpurCommandLineITK.h).
#include "gpurCommandLine.h"
#include "gpurCommandLineITK.h"
#include "itkCirculantSensingImageFilter.h"
#include "itkCompressedSensingDeblurImageFilter.h"

#include "itkCastImageFilter.h"
#include "itkImage.h"

#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

constexpr const char * kProgram = "itkgpurestoration-sparse";

// Computed in double (in float the duality gap is only known to about 5e-7 / the relative alpha, see
// gpur::SparseRecoveryParameters), written as float as the other tools write.
using ImageType = itk::Image<double, 2>;
using OutputImageType = itk::Image<float, 2>;
using MaskImageType = itk::Image<unsigned char, 2>;

/** The tool's settings; backend, device, quiet, xml and the file names are every tool's. */
struct Options : gpur::cli::ToolOptions
{
  std::string mode = "recover";
  std::string mask;
  std::string generator;
  double ratio = 0.0;
  unsigned long long seed = 0;
  std::string psf;
  bool keepPSFScale = false; // the filters' NormalizePSF, default on
  std::string maskOutput;
  std::string generatorOutput;
  std::string solver = "fista";
  double alpha = 0.0;
  double relativeAlpha = gpur::SparseRecoveryParameters().relativeAlpha;
  double step = 0.0;
  std::string threshold = "proximal";
  double rho = gpur::SparseRecoveryParameters().rho;
  double relativeSigma = gpur::SparseRecoveryParameters().relativeSigma;
  double dualStep = gpur::SparseRecoveryParameters().dualStep;
  bool nonnegative = false;
  double tolerance = gpur::SparseRecoveryParameters().tolerance;
  double gapTolerance = gpur::SparseRecoveryParameters().gapTolerance;
  unsigned iterations = gpur::SparseRecoveryParameters().maximumIterations;
  unsigned checkInterval = gpur::SparseRecoveryParameters().checkInterval;
};

/** A ratio in [0, 1]; 0: the --mask file. */
double
ParseRatio(const std::string & option, const std::string & value)
{
  const double ratio = gpur::cli::ParseNonNegativeDouble(option, value);
  if (ratio > 1.0)
    throw gpur::cli::UsageError(option + " needs a number in [0, 1] (m / n; 0: the --mask file), got '" + value + "'");
  return ratio;
}

/** Fills parser with the options, storing into options (both must outlive parsing). */
void
DeclareOptions(gpur::cli::Parser & parser, Options & o)
{
  using gpur::cli::ParseNonNegativeDouble;
  using gpur::cli::ParsePositiveDouble;
  parser
    .AddChoice("--mode",
               "measure: simulate the zero-filled measurements of the input image; recover: the sparse image from "
               "measurements; deblur: the sparse image before the blur (--psf) from blurred measurements.",
               { "recover", "deblur", "measure" },
               o.mode)
    .label = "Mode";
  auto & mask = parser.AddInputImage("--mask",
                                     "FILE",
                                     "The sampling set: 1 where a measurement is taken, 0 elsewhere, on the input's "
                                     "grid; without it --ratio and --seed draw one.",
                                     o.mask);
  mask.label = "Mask";
  mask.group = "Sensing";
  auto & generator = parser.AddInputImage("--generator",
                                          "FILE",
                                          "The first row of the circulant sensing matrix, on the input's grid; "
                                          "without it --seed draws a Gaussian one.",
                                          o.generator);
  generator.label = "Generator";
  generator.group = "Sensing";
  gpur::cli::Option ratio;
  ratio.flag = "--ratio";
  ratio.valueName = "R";
  ratio.help = "Measurements per pixel m / n of a mask drawn from --seed, in (0, 1]; 0: the --mask file.";
  ratio.type = gpur::cli::ValueType::Double;
  ratio.label = "Sampling ratio m / n";
  ratio.group = "Sensing";
  ratio.defaultValue = "0";
  ratio.constraints = gpur::cli::Constraints{ 0.0, 1.0, 0.05 };
  ratio.parse = [&o](const std::string & value) { o.ratio = ParseRatio("--ratio", value); };
  parser.Add(ratio);
  gpur::cli::Option seed;
  seed.flag = "--seed";
  seed.valueName = "S";
  seed.help = "Seed of the drawn mask and generator: the same seed draws the same operator in the ITK filters and "
              "Python's circulant_sensing.";
  seed.type = gpur::cli::ValueType::Integer;
  seed.label = "Seed";
  seed.group = "Sensing";
  seed.defaultValue = "0";
  seed.parse = [&o](const std::string & value) { o.seed = gpur::cli::ParseUnsigned("--seed", value); };
  parser.Add(seed);
  auto & psf = parser.AddInputImage("--psf",
                                    "FILE",
                                    "The point-spread function of the blur (--mode deblur, or measure), centred at "
                                    "index size / 2, sampled at the input's spacing.",
                                    o.psf);
  psf.label = "Point-spread function";
  psf.group = "Sensing";
  parser
    .AddSwitch("--keep-psf-scale",
               "Use the PSF as given; by default it is scaled to a unit sum (the blur keeps the total flux).",
               o.keepPSFScale)
    .group = "Sensing";
  parser
    .AddString("--mask-output",
               "FILE",
               "--mode measure: also write the mask used (given or drawn), 8-bit 0 and 1.",
               o.maskOutput)
    .group = "Sensing";
  parser
    .AddString("--generator-output",
               "FILE",
               "--mode measure: also write the generator used (given or drawn).",
               o.generatorOutput)
    .group = "Sensing";

  parser
    .AddChoice("--solver",
               "fista (accelerated, the default), cpista (iterative soft thresholding) or cpadmm (the partial "
               "circulant ADMM).",
               { "fista", "cpista", "cpadmm" },
               o.solver)
    .label = "Solver";
  parser
    .AddDouble("--alpha",
               "A",
               "The l1 weight alpha of the LASSO in the units of A^T y; 0: --relative-alpha times the smallest alpha "
               "whose solution is 0.",
               o.alpha,
               ParseNonNegativeDouble)
    .label = "Alpha (0: relative)";
  auto & relative = parser.AddDouble("--relative-alpha",
                                     "F",
                                     "alpha as a fraction of ||A^T y||_inf, in (0, 1), when --alpha is 0. Smaller: "
                                     "closer fit, more nonzeros.",
                                     o.relativeAlpha,
                                     ParsePositiveDouble);
  relative.label = "Relative alpha";
  relative.constraints = gpur::cli::Constraints{ 1e-8, 0.99, 1e-4 };
  parser
    .AddDouble(
      "--step", "T", "CPISTA/FISTA step, below 2 / ||A||^2; 0: 1 / ||A||^2's bound.", o.step, ParseNonNegativeDouble)
    .label = "Step (0: automatic)";
  parser
    .AddChoice("--threshold",
               "CPISTA/FISTA threshold: proximal (alpha times the step, the LASSO's proximal step) or paper (alpha, "
               "as printed in Fiandrotti et al.'s Algorithm 1).",
               { "proximal", "paper" },
               o.threshold)
    .label = "Threshold";
  parser
    .AddDouble("--rho",
               "R",
               "CPADMM penalty rho of v = C x (>= 0; 0: automatic, 100 alpha / alpha_max).",
               o.rho,
               ParseNonNegativeDouble)
    .label = "CPADMM rho";
  parser
    .AddDouble("--relative-sigma",
               "S",
               "CPADMM penalty sigma of z = x relative to ||A||^2 (>= 0; 0: automatic, 10 alpha / alpha_max).",
               o.relativeSigma,
               ParseNonNegativeDouble)
    .label = "CPADMM relative sigma";
  parser.AddDouble("--dual-step", "T", "CPADMM dual steps, in (0, (1 + sqrt 5) / 2).", o.dualStep, ParsePositiveDouble)
    .label = "CPADMM dual step";
  parser.AddSwitch("--nonnegative", "Constrain the image to x >= 0 (light sources, densities).", o.nonnegative).label =
    "Nonnegative";
  parser
    .AddDouble("--tolerance",
               "TOL",
               "Stop when the relative change of the image falls below this (> 0)...",
               o.tolerance,
               ParsePositiveDouble)
    .label = "Tolerance";
  parser
    .AddDouble("--gap-tolerance",
               "TOL",
               "...and the relative duality gap of the LASSO is below this (> 0): converged.",
               o.gapTolerance,
               ParsePositiveDouble)
    .label = "Gap tolerance";
  auto & iterations =
    parser.AddUnsigned("--iterations", "N", "The iteration budget (>= 1).", o.iterations, 1, 100000000);
  iterations.label = "Maximum iterations";
  iterations.constraints = gpur::cli::Constraints{ 1.0, 100000.0, 100.0 };
  parser
    .AddUnsigned("--check-interval",
                 "K",
                 "Iterations between evaluations of the objective and the duality gap (>= 1).",
                 o.checkInterval,
                 1,
                 1000000)
    .label = "Check interval";
  gpur::cli::AddToolOptions(parser, o, gpur::cli::DeviceMemoryLimit::NotOffered);
}

/** What the Slicer description says besides the options (which come from the option table). */
gpur::cli::SlicerModule
SlicerDescription()
{
  gpur::cli::SlicerModule module;
  module.category = "Filtering.Deconvolution";
  module.title = "Compressed Sensing Recovery (circulant)";
  module.description =
    "Compressed sensing with partial circulant matrices (Fiandrotti, Fosson and Magli 2018): recovers a sparse 2D "
    "image (stars on a dark sky, spikes) from a fraction of its circulant measurements by the LASSO, solved by "
    "FISTA, CPISTA or CPADMM with FFTs on an OpenCL device or the CPU; deblur mode also undoes a known blur "
    "(point-spread function), measure mode simulates the measurements. Measurements are zero-filled images.";
  module.groups = { { "Recovery", "The LASSO and its solver." },
                    { "Sensing", "The sensing operator: files, or drawn from a seed." },
                    { "Execution", "Where the filter runs." } };
  module.images = {
    { "inputVolume", "Input image", "input", "Measurements (recover, deblur) or the image to measure (measure)." },
    { "outputVolume", "Output image", "output", "The recovered image (recover, deblur) or the measurements." }
  };
  return module;
}

/** The filters' message with their setters' names replaced by this tool's options. */
std::string
InToolTerms(std::string reason)
{
  static const char * const terms[][2] = {
    { "the named input \"Mask\", or draw one with SetSamplingRatio(m / n) in (0, 1] and SetSeed",
      "--mask, or draw one with --ratio (in (0, 1]) and --seed" },
    { "the Mask, or SamplingRatio (with Seed) to draw the mask", "--mask, or --ratio (with --seed) to draw one" },
    { "a Mask input and SamplingRatio", "--mask and --ratio" },
    { "the Mask ", "the mask " },
  };
  for (const auto & term : terms)
    if (const std::size_t at = reason.find(term[0]); at != std::string::npos)
      reason.replace(at, std::string(term[0]).size(), term[1]);
  return reason;
}

/** Reads a 2D image named by an option (a reader would take the first slice of a 3D file: refused instead). */
template<typename TImage>
typename TImage::Pointer
Read2D(const std::string & file, const char * what)
{
  const unsigned dimension = gpur::cli::InputDimension(file);
  if (dimension != 2)
    throw std::runtime_error(std::string(what) + " '" + file + "' is " + std::to_string(dimension) +
                             "D; the images of sparse recovery are 2D");
  return gpur::cli::ReadInput<TImage>(file, kProgram);
}

/** Writes a computed image as float, atomically (gpur::cli::WriteOutput). */
void
WriteFloat(const ImageType * image, const std::string & file)
{
  auto cast = itk::CastImageFilter<ImageType, OutputImageType>::New();
  cast->SetInput(image);
  cast->Update();
  gpur::cli::WriteOutput(cast->GetOutput(), file);
}

/** The sensing inputs and settings of the options on a filter (any of the three). */
template<typename TFilter>
void
SetSensing(TFilter * filter, const Options & o)
{
  if (!o.mask.empty())
    filter->SetMask(Read2D<MaskImageType>(o.mask, "the mask"));
  if (!o.generator.empty())
    filter->SetGenerator(Read2D<ImageType>(o.generator, "the generator"));
  filter->SetSamplingRatio(o.ratio);
  filter->SetSeed(o.seed);
  filter->SetBackend(itk::GPURestoration::FromEngine<typename TFilter::BackendEnum>(gpur::ParseBackend(o.backend)));
  filter->SetDevice(o.device);
}

/** filter->Update() with progress and warnings, the filters' terms replaced by the options; the wall seconds. */
template<typename TFilter>
double
UpdateFilter(TFilter * filter, const Options & o, const std::function<std::vector<std::string>()> & warnings)
{
  try
  {
    return gpur::cli::UpdateReportingWarnings(filter, o.quiet, kProgram, warnings);
  }
  catch (const itk::ProcessAborted &)
  {
    throw;
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error(InToolTerms(e.GetDescription()));
  }
}

/** ", m of n measurements (drawn from seed S|given)" for the summary line. */
template<typename TFilter>
std::string
SensingNote(const TFilter * filter, const Options & o)
{
  std::ostringstream note;
  const auto size = filter->GetInput()->GetLargestPossibleRegion().GetSize();
  note << ", " << filter->GetNumberOfMeasurements() << " of " << size[0] * size[1] << " measured (mask "
       << (o.mask.empty() ? "drawn from seed " + std::to_string(o.seed) : std::string("given")) << ", generator "
       << (o.generator.empty() ? "drawn from seed " + std::to_string(o.seed) : std::string("given")) << ")";
  return note.str();
}

int
Measure(const Options & o)
{
  auto filter = itk::CirculantSensingImageFilter<ImageType>::New();
  filter->SetInput(gpur::cli::ReadInput<ImageType>(o.input, kProgram));
  SetSensing(filter.GetPointer(), o);
  if (!o.psf.empty())
    filter->SetPSF(Read2D<ImageType>(o.psf, "the PSF"));
  filter->SetNormalizePSF(!o.keepPSFScale);
  const double wall = UpdateFilter(filter.GetPointer(), o, [] { return std::vector<std::string>(); });
  WriteFloat(filter->GetOutput(), o.output);
  if (!o.maskOutput.empty())
    gpur::cli::WriteOutput(filter->GetMaskOutput(), o.maskOutput);
  if (!o.generatorOutput.empty())
    WriteFloat(filter->GetGeneratorOutput(), o.generatorOutput);
  if (!o.quiet)
  {
    std::ostringstream line;
    line << kProgram << ": " << filter->GetBackendUsed() << " (" << filter->GetBackendReason() << "), measure"
         << SensingNote(filter.GetPointer(), o) << (o.psf.empty() ? "" : ", blurred by the PSF") << std::fixed
         << std::setprecision(3) << ", " << wall << " s, wrote " << o.output;
    for (const std::string * extra : { &o.maskOutput, &o.generatorOutput })
      if (!extra->empty())
        line << ", " << *extra;
    gpur::cli::Summary() << line.str() << "\n";
  }
  return 0;
}

int
Recover(const Options & o)
{
  using Recovery = itk::CompressedSensingRecoveryImageFilter<ImageType>;
  using Deblur = itk::CompressedSensingDeblurImageFilter<ImageType>;
  const bool deblur = o.mode == "deblur";
  Recovery::Pointer filter;
  if (deblur)
  {
    auto d = Deblur::New();
    d->SetPSF(Read2D<ImageType>(o.psf, "the PSF"));
    d->SetNormalizePSF(!o.keepPSFScale);
    filter = d.GetPointer();
  }
  else
    filter = Recovery::New();
  filter->SetInput(gpur::cli::ReadInput<ImageType>(o.input, kProgram));
  SetSensing(filter.GetPointer(), o);
  using itk::GPURestoration::FromEngine;
  filter->SetSolver(FromEngine<Recovery::SolverEnum>(gpur::ParseSparseSolver(o.solver)));
  filter->SetAlpha(o.alpha);
  filter->SetRelativeAlpha(o.relativeAlpha);
  filter->SetStep(o.step);
  filter->SetThreshold(FromEngine<Recovery::ThresholdEnum>(gpur::ParseSparseThreshold(o.threshold)));
  filter->SetRho(o.rho);
  filter->SetRelativeSigma(o.relativeSigma);
  filter->SetDualStep(o.dualStep);
  filter->SetNonnegative(o.nonnegative);
  filter->SetTolerance(o.tolerance);
  filter->SetGapTolerance(o.gapTolerance);
  filter->SetMaximumNumberOfIterations(o.iterations);
  filter->SetCheckInterval(o.checkInterval);
  const double wall = UpdateFilter(filter.GetPointer(), o, [&] { return filter->GetReport().warnings; });
  WriteFloat(filter->GetOutput(), o.output);
  if (!o.quiet)
  {
    const gpur::SparseRecoveryReport & report = filter->GetReport();
    std::ostringstream line;
    line << kProgram << ": " << filter->GetBackendUsed() << " (" << filter->GetBackendReason() << "), "
         << (deblur ? "deblur" : "recover") << SensingNote(filter.GetPointer(), o) << ", " << filter->GetSolver()
         << std::setprecision(3) << ", alpha " << filter->GetAlphaUsed();
    if (o.alpha == 0.0)
      line << " (" << o.relativeAlpha << " of alpha_max " << report.alphaMax << ")";
    line << ", " << filter->GetNumberOfIterations() << " iterations" << (filter->GetConverged() ? " (converged)" : "")
         << std::scientific << std::setprecision(2) << ", relative gap " << filter->GetRelativeGap()
         << ", relative residual " << filter->GetRelativeResidual() << ", " << filter->GetNumberOfNonzeros()
         << " nonzeros" << std::fixed << std::setprecision(3) << ", " << filter->GetElapsedSeconds() << " s solve ("
         << wall << " s in all), wrote " << o.output;
    gpur::cli::Summary() << line.str() << "\n";
  }
  return 0;
}

/** The combinations of options that cannot work, refused before any file is read. */
void
CheckCombinations(const Options & o)
{
  const bool measure = o.mode == "measure";
  if (o.mode == "deblur" && o.psf.empty())
    throw gpur::cli::UsageError("--mode deblur needs --psf (the point-spread function of the blur)");
  if (o.mode == "recover" && !o.psf.empty())
    throw gpur::cli::UsageError("--psf is the blur of --mode deblur (or measure); --mode recover has none");
  if (!measure && !(o.maskOutput.empty() && o.generatorOutput.empty()))
    throw gpur::cli::UsageError("--mask-output and --generator-output save the operator of --mode measure");
  if (!o.mask.empty() && o.ratio != 0.0)
    throw gpur::cli::UsageError("--mask and --ratio both give the sampling set: give one");
  if (o.mask.empty() && o.ratio == 0.0)
    throw gpur::cli::UsageError("no sampling set: give --mask, or --ratio (in (0, 1]) and --seed to draw one");
  for (const std::string * output : { &o.maskOutput, &o.generatorOutput })
    if (!output->empty())
      gpur::cli::CheckOutputName(*output);
}

int
Run(int argc, char * argv[])
{
  Options o;
  gpur::cli::Parser parser(kProgram,
                           "<input> <output>",
                           "Compressed sensing of 2D images with partial circulant matrices [Fiandrotti2018].\n"
                           "--mode recover (default): <input> the zero-filled measurements, <output> the sparse image "
                           "(itk::CompressedSensingRecoveryImageFilter); --mode deblur: the same with the blur --psf "
                           "undone (itk::CompressedSensingDeblurImageFilter); --mode measure: <input> an image, "
                           "<output> its measurements (itk::CirculantSensingImageFilter).\nThe sensing: --mask and "
                           "--generator files, or drawn from --seed with --ratio. Any 2D format ITK reads and writes; "
                           "the outputs are written only on success (via verified temporary files).");
  DeclareOptions(parser, o);
  if (!gpur::cli::ParseToolCommandLine(parser, argc, argv, o, SlicerDescription(), std::cout))
    return 0;
  CheckCombinations(o);
  gpur::cli::CheckOutputName(o.output); // before the work, not after it
  return gpur::cli::ByInputDimension(
    o.input,
    [&o] { return o.mode == "measure" ? Measure(o) : Recover(o); },
    [&o]() -> int
    { throw std::runtime_error("'" + o.input + "' is a 3D image; sparse recovery with circulant sensing is 2D"); });
}

} // namespace

int
main(int argc, char * argv[])
{
  return gpur::cli::RunTool(kProgram, argc, argv, Run);
}
