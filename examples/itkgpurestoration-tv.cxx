// itkgpurestoration-tv: total-variation (ROF) denoising of an image file.
//
//   itkgpurestoration-tv [options] <input> <output>
//
// <input> is any image ITK reads (NRRD, MHA/MHD, NIfTI, TIFF, PNG, ...) or a
// directory holding a DICOM series (the first series GDCM finds). It is read as
// float, 2D or 3D according to the file, denoised by
// itk::TotalVariationDenoisingImageFilter and written to <output> in the format
// its extension selects, with the input's origin, spacing and direction.
// A progress bar goes to stderr (--quiet turns it and the summary line off);
// --xml prints the 3D Slicer Execution Model description, so Slicer can load
// this program as a CLI module. Run with --help for the options.
//
// Errors (unreadable input, bad option value, NaN/Inf pixels, ...) exit with 1
// and one line on stderr. A partial output file is never left behind: the output
// is written only after denoising succeeded, to a temporary file next to
// <output> that is renamed to <output> once complete. Formats with a detached
// data file (.mhd, .nhdr, .hdr/.img) name that file inside the header, so they
// are written in place instead, and removed again if writing fails.
#include "gpurCommandLine.h"
#include "itkTotalVariationDenoisingImageFilter.h"

#include "itkCommand.h"
#include "itkGDCMImageIO.h"
#include "itkGDCMSeriesFileNames.h"
#include "itkImage.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageIOFactory.h"
#include "itkImageSeriesReader.h"
#include "itksys/SystemTools.hxx"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace
{

constexpr const char * kProgram = "itkgpurestoration-tv";

struct Options
{
  double lambda = 8.0;
  std::string algorithm = "accelerated";
  unsigned iterations = 500;
  double tolerance = 1e-4;
  std::string backend = "auto";
  std::string device;
  bool quiet = false;
  bool xml = false;
  std::string input;
  std::string output;
};

/** Fills parser with the options, storing into options (both must outlive parsing). */
void
DeclareOptions(gpur::cli::Parser & parser, Options & o)
{
  using gpur::cli::ParseNonNegativeDouble;
  using gpur::cli::ParsePositiveDouble;
  auto & lambda =
    parser.AddDouble("--lambda",
                     "L",
                     "Fidelity weight lambda > 0 of the ROF model; larger keeps more of the input. Units "
                     "1/(intensity * length): for intensities in [0, 1], unit spacing and noise sigma 0.1, "
                     "10-15 is a good start.",
                     o.lambda,
                     ParsePositiveDouble);
  lambda.label = "Lambda (fidelity weight)";
  auto & algorithm = parser.AddChoice("--algorithm",
                                      "Solver: cp (Chambolle-Pock, constant steps), accelerated (Chambolle-Pock "
                                      "2011 Alg. 2, O(1/k^2)) or pdu (Zhu-Chan/Knoll schedule).",
                                      { "cp", "accelerated", "pdu" },
                                      o.algorithm);
  algorithm.label = "Algorithm";
  auto & iterations =
    parser.AddUnsigned("--iterations", "N", "Maximum number of iterations (>= 1).", o.iterations, 1, 1000000000u);
  iterations.label = "Maximum iterations";
  auto & tolerance = parser.AddDouble("--tolerance",
                                      "T",
                                      "Stop when the relative primal-dual gap is <= T; 0 runs all iterations.",
                                      o.tolerance,
                                      ParseNonNegativeDouble);
  tolerance.label = "Gap tolerance";
  auto & backend = parser.AddChoice("--backend",
                                    "Where to run: auto (OpenCL if a device is available, else CPU), cpu or opencl.",
                                    { "auto", "cpu", "opencl" },
                                    o.backend);
  backend.label = "Backend";
  backend.group = "Execution";
  auto & device = parser.AddString("--device",
                                   "SELECTION",
                                   "OpenCL device selection, e.g. 'gpu', '0' or a name substring (see "
                                   "itkgpurestoration-devices); empty: $ITKGPUR_DEVICE or the default device.",
                                   o.device);
  device.label = "OpenCL device";
  device.group = "Execution";
  parser.AddSwitch("--quiet", "No progress bar and no summary line.", o.quiet).hidden = true;
  parser.AddSwitch("--xml", "Print the 3D Slicer CLI module description (XML) and exit.", o.xml).hidden = true;
}

std::string
XMLEscape(const std::string & text)
{
  std::string out;
  for (const char c : text)
  {
    switch (c)
    {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

const char *
SlicerType(gpur::cli::ValueType type)
{
  switch (type)
  {
    case gpur::cli::ValueType::Switch:
      return "boolean";
    case gpur::cli::ValueType::Double:
      return "double";
    case gpur::cli::ValueType::Integer:
      return "integer";
    case gpur::cli::ValueType::String:
      return "string";
    case gpur::cli::ValueType::Enumeration:
      return "string-enumeration";
  }
  return "string";
}

/** The Slicer Execution Model description, generated from the option table (so the flags always match). */
void
PrintSlicerXML(const gpur::cli::Parser & parser, std::ostream & os)
{
  os << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        "<executable>\n"
        "  <category>Filtering.Denoising</category>\n"
        "  <title>GPU Total Variation Denoising</title>\n"
        "  <description>Total-variation (ROF) denoising, min_u (lambda/2)|u - f|^2 + TV(u), of a 2D or 3D image "
        "on an OpenCL device (GPU, or the CPU through PoCL) or the multithreaded CPU backend. The gradient is "
        "divided by the voxel spacing, so anisotropic voxels are handled correctly.</description>\n"
        "  <version>0.1.0</version>\n"
        "  <documentation-url></documentation-url>\n"
        "  <license>Apache 2.0</license>\n"
        "  <contributor>ITKGPURestoration developers</contributor>\n"
        "  <acknowledgements>Built on the Insight Toolkit (ITK).</acknowledgements>\n";
  // Groups in order of first appearance; an empty group name means the first group.
  std::vector<std::string> groups{ "Total variation" };
  for (const auto & o : parser.Options())
    if (!o.hidden && !o.group.empty() && std::find(groups.begin(), groups.end(), o.group) == groups.end())
      groups.push_back(o.group);
  for (std::size_t g = 0; g < groups.size(); ++g)
  {
    os << "  <parameters>\n"
       << "    <label>" << XMLEscape(groups[g]) << "</label>\n"
       << "    <description>" << (g == 0 ? "Model and solver parameters." : "Where the filter runs.")
       << "</description>\n";
    for (const auto & o : parser.Options())
    {
      if (o.hidden || (o.group.empty() ? 0 : std::find(groups.begin(), groups.end(), o.group) - groups.begin()) !=
                        static_cast<std::ptrdiff_t>(g))
        continue;
      const char * type = SlicerType(o.type);
      const std::string name = o.flag.substr(2);
      os << "    <" << type << ">\n"
         << "      <name>" << name << "</name>\n"
         << "      <longflag>" << name << "</longflag>\n"
         << "      <label>" << XMLEscape(o.label) << "</label>\n"
         << "      <description>" << XMLEscape(o.help) << "</description>\n"
         << "      <default>" << XMLEscape(o.defaultValue) << "</default>\n";
      for (const auto & choice : o.choices)
        os << "      <element>" << XMLEscape(choice) << "</element>\n";
      if (o.flag == "--lambda")
        os << "      <constraints><minimum>0.001</minimum><maximum>1000</maximum><step>0.5</step></constraints>\n";
      if (o.flag == "--iterations")
        os << "      <constraints><minimum>1</minimum><maximum>100000</maximum><step>10</step></constraints>\n";
      os << "    </" << type << ">\n";
    }
    os << "  </parameters>\n";
  }
  os << "  <parameters>\n"
        "    <label>IO</label>\n"
        "    <description>Input and output images.</description>\n"
        "    <image>\n"
        "      <name>inputVolume</name>\n"
        "      <label>Input volume</label>\n"
        "      <channel>input</channel>\n"
        "      <index>0</index>\n"
        "      <description>Noisy image (2D or 3D, read as float).</description>\n"
        "    </image>\n"
        "    <image>\n"
        "      <name>outputVolume</name>\n"
        "      <label>Output volume</label>\n"
        "      <channel>output</channel>\n"
        "      <index>1</index>\n"
        "      <description>Denoised image (float).</description>\n"
        "    </image>\n"
        "  </parameters>\n"
        "</executable>\n";
}

/** Draws "[#####.....]  45%" on stderr, redrawing in place, whenever the whole percentage changes. */
class ProgressBar : public itk::Command
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ProgressBar);
  using Self = ProgressBar;
  using Superclass = itk::Command;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  void
  Execute(itk::Object * caller, const itk::EventObject & event) override
  {
    Execute(static_cast<const itk::Object *>(caller), event);
  }
  void
  Execute(const itk::Object * caller, const itk::EventObject & event) override
  {
    const auto * process = dynamic_cast<const itk::ProcessObject *>(caller);
    if (!process || !itk::ProgressEvent().CheckEvent(&event))
      return;
    const int percent = static_cast<int>(100.0f * process->GetProgress() + 0.5f);
    if (percent == m_Percent)
      return;
    m_Percent = percent;
    constexpr int width = 40;
    const int filled = percent * width / 100;
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << std::setw(3)
              << percent << "%" << std::flush;
  }
  /** Ends the bar's line (if one was drawn). */
  void
  Finish()
  {
    if (m_Percent >= 0)
      std::cerr << "\n";
    m_Percent = -1;
  }

protected:
  ProgressBar() = default;
  ~ProgressBar() override = default;

private:
  int m_Percent = -1;
};

std::string
OneLine(std::string text)
{
  for (auto & c : text)
    if (c == '\n' || c == '\r')
      c = ' ';
  while (!text.empty() && text.back() == ' ')
    text.pop_back();
  return text;
}

/** The extension that selects the format, e.g. ".nii.gz", ".nrrd"; empty if none. */
std::string
FormatExtension(const std::string & path)
{
  const std::string name = itksys::SystemTools::GetFilenameName(path);
  const std::string lower = itksys::SystemTools::LowerCase(name);
  for (const char * doubleExt : { ".nii.gz", ".hdr.gz", ".img.gz" })
  {
    const std::string e = doubleExt;
    if (lower.size() > e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0)
      return name.substr(name.size() - e.size());
  }
  const std::size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? std::string() : name.substr(dot);
}

/** Formats whose header names a separate data file: writing under a temporary name would break that link. */
bool
HasDetachedData(const std::string & extension)
{
  const std::string e = itksys::SystemTools::LowerCase(extension);
  return e == ".mhd" || e == ".nhdr" || e == ".hdr" || e == ".img" || e == ".hdr.gz" || e == ".img.gz";
}

/** Writes image to output atomically where the format allows it (see the header comment). */
template<typename TImage>
void
WriteOutput(const TImage * image, const std::string & output)
{
  namespace fs = std::filesystem;
  const std::string extension = FormatExtension(output);
  if (itk::ImageIOFactory::CreateImageIO(output.c_str(), itk::ImageIOFactory::FileModeEnum::WriteMode).IsNull())
    throw std::runtime_error("no ITK image format writes '" + output + "' (use e.g. .nrrd, .mha, .nii.gz, .tif)");
  if (HasDetachedData(extension))
  {
    try
    {
      itk::WriteImage(image, output, /*compress=*/true);
    }
    catch (...)
    {
      std::error_code ignored;
      fs::remove(output, ignored); // the data file's name is format-specific: best effort on the header
      throw;
    }
    return;
  }
  const std::string stem = output.substr(0, output.size() - extension.size());
  // A name no one else uses at the same time, with the output's extension (it selects the format).
  const auto tag = std::chrono::steady_clock::now().time_since_epoch().count() % 1000000007;
  const std::string temporary = stem + ".partial-" + std::to_string(tag) + extension;
  try
  {
    itk::WriteImage(image, temporary, /*compress=*/true);
    fs::rename(temporary, output);
  }
  catch (...)
  {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

/** Reads the input's dimension without reading the pixels; 3 for a DICOM series directory. */
unsigned
InputDimension(const std::string & input)
{
  if (itksys::SystemTools::FileIsDirectory(input))
    return 3;
  if (!itksys::SystemTools::FileExists(input, true))
    throw std::runtime_error("input '" + input + "' does not exist");
  auto io = itk::ImageIOFactory::CreateImageIO(input.c_str(), itk::ImageIOFactory::FileModeEnum::ReadMode);
  if (io.IsNull())
    throw std::runtime_error("no ITK image format reads '" + input + "'");
  io->SetFileName(input);
  io->ReadImageInformation();
  // Trailing dimensions of size 1 (e.g. a 2D image stored as 3D with one slice) keep their dimension.
  return io->GetNumberOfDimensions();
}

template<typename TImage>
typename TImage::Pointer
ReadInput(const std::string & input)
{
  if (!itksys::SystemTools::FileIsDirectory(input))
  {
    auto reader = itk::ImageFileReader<TImage>::New();
    reader->SetFileName(input);
    reader->Update();
    return reader->GetOutput();
  }
  if constexpr (TImage::ImageDimension != 3)
  {
    throw std::logic_error("a DICOM series is read as a 3D image");
  }
  else
  {
    auto names = itk::GDCMSeriesFileNames::New();
    names->SetUseSeriesDetails(true);
    // Without DICOM files ITK prints a multi-line warning; the exception below says it in one line.
    const bool warnings = itk::Object::GetGlobalWarningDisplay();
    itk::Object::SetGlobalWarningDisplay(false);
    std::vector<std::string> series;
    try
    {
      names->SetDirectory(input);
      series = names->GetSeriesUIDs();
    }
    catch (...)
    {
      itk::Object::SetGlobalWarningDisplay(warnings);
      throw;
    }
    itk::Object::SetGlobalWarningDisplay(warnings);
    if (series.empty())
      throw std::runtime_error("no DICOM series in directory '" + input + "'");
    auto reader = itk::ImageSeriesReader<TImage>::New();
    reader->SetImageIO(itk::GDCMImageIO::New());
    reader->SetFileNames(names->GetFileNames(series.front()));
    reader->Update();
    if (series.size() > 1)
      std::cerr << kProgram << ": " << series.size() << " DICOM series in '" << input << "', using the first ("
                << series.front() << ")\n";
    return reader->GetOutput();
  }
}

template<unsigned Dimension>
int
Denoise(const Options & o)
{
  using ImageType = itk::Image<float, Dimension>;
  using FilterType = itk::TotalVariationDenoisingImageFilter<ImageType>;
  typename ImageType::Pointer input = ReadInput<ImageType>(o.input);

  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->SetLambda(o.lambda);
  filter->SetAlgorithm(gpur::ParseTVAlgorithm(o.algorithm));
  filter->SetMaximumNumberOfIterations(o.iterations);
  filter->SetGapTolerance(o.tolerance);
  filter->SetBackend(gpur::ParseBackend(o.backend));
  filter->SetDevice(o.device);
  auto progress = ProgressBar::New();
  if (!o.quiet)
    filter->AddObserver(itk::ProgressEvent(), progress);
  const auto start = std::chrono::steady_clock::now();
  try
  {
    filter->Update();
  }
  catch (...)
  {
    progress->Finish();
    throw;
  }
  progress->Finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WriteOutput(filter->GetOutput(), o.output);
  if (!o.quiet)
  {
    std::ostringstream line;
    line << kProgram << ": " << filter->GetBackendUsed() << ", " << filter->GetNumberOfIterations() << " iterations"
         << (filter->GetConverged() ? " (converged)" : "") << ", relative gap " << std::scientific
         << std::setprecision(2) << filter->GetRelativeGap() << std::fixed << std::setprecision(3) << ", "
         << filter->GetElapsedSeconds() << " s solve (" << wall << " s with setup), wrote " << o.output;
    std::cerr << line.str() << "\n";
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
                           "by the extension.\nThe output is written only on success (via a temporary file, renamed).");
  DeclareOptions(parser, o);
  // --xml needs no positional arguments (Slicer runs "tool --xml").
  if (!parser.Parse(argc, argv, std::cout, 0, 2))
    return 0;
  if (o.xml)
  {
    PrintSlicerXML(parser, std::cout);
    return 0;
  }
  if (parser.Positionals().size() != 2)
    throw gpur::cli::UsageError("expected <input> <output> (see --help)");
  o.input = parser.Positionals()[0];
  o.output = parser.Positionals()[1];
  if (o.output.empty())
    throw gpur::cli::UsageError("the output file name is empty");
  switch (InputDimension(o.input))
  {
    case 2:
      return Denoise<2>(o);
    case 3:
      return Denoise<3>(o);
    default:
      throw std::runtime_error("input '" + o.input + "' is " + std::to_string(InputDimension(o.input)) +
                               "D; only 2D and 3D images are supported");
  }
}

} // namespace

int
main(int argc, char * argv[])
{
  try
  {
    return Run(argc, argv);
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << kProgram << ": " << OneLine(e.GetDescription()) << "\n";
  }
  catch (const std::exception & e)
  {
    std::cerr << kProgram << ": " << OneLine(e.what()) << "\n";
  }
  return 1;
}
