// SPDX-License-Identifier: Apache-2.0
// itkgpurestoration-levellines: level-line (isoline) denoising, PI-PD [Perrot2013], of a 2D image file or of
// the slices of a 3D file (video frames, or a volume's slices along z).
//
//   itkgpurestoration-levellines [options] <input> <output>
//
// <input> is any 2D or 3D image ITK reads (NRRD, MHA/MHD, NIfTI, TIFF, PNG, a DICOM series folder, ...), read
// as float (8- and 16-bit files are cast), denoised by itk::LevelLinesDenoiseImageFilter (a 3D image as a
// stack of independent 2D frames, in one call) and written to <output> in the format its extension selects,
// with the input's origin, spacing and direction. Progress, the 3D Slicer progress lines and --xml, the
// one-line errors with exit code 1, the warnings (exit 0), the atomic output and the signal handling are
// those of itkgpurestoration-tv (see there and gpurCommandLineITK.h).
//
// The summary line gives the noise sigma used (given or estimated), the mean number of pixels averaged, why
// the lines stopped growing, the hybrid classes (--mode hybrid) and the seconds of the run and of its kernels.
#include "gpurCommandLine.h"
#include "gpurCommandLineITK.h"
#include "itkLevelLinesDenoiseImageFilter.h"

#include "itkImage.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

namespace
{

constexpr const char * kProgram = "itkgpurestoration-levellines";

/** The tool's settings; backend, device, memory limit, quiet, xml and the file names are every tool's. */
struct Options : gpur::cli::ToolOptions
{
  unsigned segmentLength = gpur::LevelLinesParameters().segmentLength;
  unsigned maximumLength = gpur::LevelLinesParameters().maximumLength;
  double lengtheningThreshold = gpur::LevelLinesParameters().lengtheningThreshold;
  double edgeThreshold = gpur::LevelLinesParameters().edgeThreshold;
  std::string mode = "pipd";
  std::string test = "pooled";
  std::string turnBack = "flip";
  bool thick = false;
  bool excludeCenter = false; // the engine's includeCenter, default on
  bool oneArm = false;        // the engine's bidirectional, default on
  double varianceFloor = gpur::LevelLinesParameters().varianceFloor;
  double sigma = 0.0; // estimated
};

/** Fills parser with the options, storing into options (both must outlive parsing). */
void
DeclareOptions(gpur::cli::Parser & parser, Options & o)
{
  using gpur::cli::ParsePositiveDouble;
  auto & segment = parser.AddUnsigned(
    "--segment-length", "L", "Segment length l in pixels (2 to 12; the paper uses 4 and 5).", o.segmentLength, 2, 12);
  segment.label = "Segment length l";
  segment.constraints = gpur::cli::Constraints{ 2.0, 12.0, 1.0 };
  auto & maximum = parser.AddUnsigned("--maximum-length",
                                      "N",
                                      "Maximum poly-isoline length n in pixels per arm (l to 64; a multiple of l is "
                                      "natural). Longer lines smooth more.",
                                      o.maximumLength,
                                      2,
                                      64);
  maximum.label = "Maximum line length n";
  maximum.constraints = gpur::cli::Constraints{ 2.0, 64.0, 1.0 };
  parser
    .AddDouble("--lengthening-threshold",
               "T",
               "T_max of the lengthening test (> 0): a segment is added while the likelihood-ratio statistic is "
               "below it. Larger: longer lines, more smoothing.",
               o.lengtheningThreshold,
               ParsePositiveDouble)
    .label = "Lengthening threshold T_max";
  parser
    .AddDouble("--edge-threshold",
               "T2",
               "T2_max of the hybrid edge test (> 0, --mode hybrid): an edge along a direction when the statistic "
               "exceeds it.",
               o.edgeThreshold,
               ParsePositiveDouble)
    .label = "Edge threshold T2_max";
  parser
    .AddChoice("--mode",
               "pipd: the mean along each pixel's level line; hybrid: classify first (flat region: star mean, "
               "single edge: half-plane mean, complex: the level-line mean).",
               { "pipd", "hybrid" },
               o.mode)
    .label = "Mode";
  parser
    .AddChoice("--test",
               "Variance model of the lengthening test: pooled (two means, one variance) or separate (a variance "
               "per part).",
               { "pooled", "separate" },
               o.test)
    .label = "Lengthening test";
  parser
    .AddChoice("--turn-back",
               "When the direction at a segment's end points back: flip (continue along the opposite direction) "
               "or stop.",
               { "flip", "stop" },
               o.turnBack)
    .label = "Turn-back rule";
  parser
    .AddSwitch("--thick",
               "Thicken the lines from 1 to 3 pixels: more pixels per mean, more smoothing, finer details lost.",
               o.thick)
    .label = "Thick lines";
  parser
    .AddSwitch("--exclude-center",
               "Leave the pixel itself out of the first segment's variance and of the mean (the paper's Algorithm "
               "2 as printed).",
               o.excludeCenter)
    .label = "Exclude the centre pixel";
  parser
    .AddSwitch("--one-arm", "Grow the line one way from the pixel, as the paper does (default: both ways).", o.oneArm)
    .label = "One arm";
  parser
    .AddDouble("--variance-floor",
               "F",
               "The tests' variances are floored at F sigma^2 (0 < F <= 4).",
               o.varianceFloor,
               ParsePositiveDouble)
    .label = "Variance floor";
  parser
    .AddDouble("--sigma",
               "S",
               "Noise standard deviation in the image's intensity units; 0 estimates it (the median of the "
               "frames' estimates for a 3D image).",
               o.sigma,
               gpur::cli::ParseNonNegativeDouble)
    .label = "Noise sigma (0: estimated)";
  gpur::cli::AddToolOptions(parser, o, gpur::cli::DeviceMemoryLimit::Offered);
}

/** What the Slicer description says besides the options (which come from the option table). */
gpur::cli::SlicerModule
SlicerDescription()
{
  gpur::cli::SlicerModule module;
  module.category = "Filtering.Denoising";
  module.title = "GPU Level-Line Denoising";
  module.description =
    "Level-line (isoline) denoising, PI-PD (Perrot, Domas, Couturier and Bertaux 2013): each pixel becomes the "
    "mean grey level along an estimated level line through it, a poly-line of short straight segments lengthened "
    "while a likelihood-ratio test accepts them, so noise is averaged out along edges, not across them. A 3D "
    "image is filtered as a stack of 2D slices. On an OpenCL device (GPU, or the CPU through PoCL) or the "
    "multithreaded CPU backend; the noise level is estimated unless given.";
  module.groups = { { "Level lines", "Model parameters." }, { "Execution", "Where the filter runs." } };
  module.images = { { "inputVolume", "Input image", "input", "Noisy 2D image or stack of slices (read as float)." },
                    { "outputVolume", "Output image", "output", "Denoised image (float)." } };
  return module;
}

template<unsigned Dimension>
int
Denoise(const Options & o)
{
  using ImageType = itk::Image<float, Dimension>;
  using FilterType = itk::LevelLinesDenoiseImageFilter<ImageType>;
  using itk::GPURestoration::FromEngine;
  typename ImageType::Pointer input = gpur::cli::ReadInput<ImageType>(o.input, kProgram);

  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->SetSegmentLength(o.segmentLength);
  filter->SetMaximumLength(o.maximumLength);
  filter->SetLengtheningThreshold(o.lengtheningThreshold);
  filter->SetEdgeThreshold(o.edgeThreshold);
  filter->SetMode(FromEngine<typename FilterType::ModeEnum>(gpur::ParseLevelLinesMode(o.mode)));
  filter->SetLengtheningTest(FromEngine<typename FilterType::TestEnum>(gpur::ParseLevelLinesTest(o.test)));
  filter->SetTurnBack(FromEngine<typename FilterType::TurnBackEnum>(gpur::ParseLevelLinesTurnBack(o.turnBack)));
  filter->SetThick(o.thick);
  filter->SetIncludeCenter(!o.excludeCenter);
  filter->SetBidirectional(!o.oneArm);
  filter->SetVarianceFloor(o.varianceFloor);
  filter->SetNoiseSigma(o.sigma);
  gpur::cli::SetExecution(filter.GetPointer(), o);
  const double wall =
    gpur::cli::UpdateReportingWarnings(filter, o.quiet, kProgram, [&] { return filter->GetReport().warnings; });
  gpur::cli::WriteOutput(filter->GetOutput(), o.output);
  if (!o.quiet)
  {
    std::ostringstream line;
    line << kProgram << ": " << filter->GetBackendUsed() << " (" << filter->GetBackendReason() << "), "
         << filter->GetNumberOfFrames() << (filter->GetNumberOfFrames() == 1 ? " frame" : " frames") << ", "
         << filter->GetMode() << ", noise sigma " << std::setprecision(4) << filter->GetNoiseSigmaUsed()
         << (filter->GetNoiseSigmaEstimated() ? " estimated" : " given") << ", mean line " << std::setprecision(3)
         << filter->GetMeanLength() << " pixels (stopped by the test " << std::fixed << std::setprecision(0)
         << 100.0 * filter->GetStoppedByTest() << " %, turn-back " << 100.0 * filter->GetStoppedByTurnBack()
         << " %, border " << 100.0 * filter->GetStoppedByBorder() << " %, length "
         << 100.0 * filter->GetStoppedByLength() << " %)";
    if (filter->GetMode() == FilterType::ModeEnum::Hybrid)
      line << ", classes low-slope " << 100.0 * filter->GetLowSlopeShare() << " % single-edge "
           << 100.0 * filter->GetSingleEdgeShare() << " % complex " << 100.0 * filter->GetComplexShare() << " %";
    line << std::setprecision(4) << ", " << filter->GetElapsedSeconds() << " s (kernels " << filter->GetKernelSeconds()
         << " s, " << wall << " s with setup), wrote " << o.output;
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
                           "Level-line (isoline) denoising, PI-PD [Perrot2013], with "
                           "itk::LevelLinesDenoiseImageFilter.\n<input>: a 2D image, or a 3D image filtered as a "
                           "stack of 2D slices along z, in any format ITK reads (NRRD, MHA, NIfTI, TIFF, PNG, a DICOM "
                           "folder, ...); <output>: any format ITK writes, chosen by the extension.\nThe output is "
                           "written only on success (via a verified temporary file).");
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
