#include "gpurCommandLineITK.h"

#include "itkImageIOFactory.h"
#include "itksys/SystemTools.hxx"

#include <chrono>
#include <filesystem>
#include <iomanip>

namespace gpur
{
namespace cli
{

void
ProgressBar::Execute(itk::Object * caller, const itk::EventObject & event)
{
  Execute(static_cast<const itk::Object *>(caller), event);
}

void
ProgressBar::Execute(const itk::Object * caller, const itk::EventObject & event)
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
  std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << std::setw(3) << percent
            << "%" << std::flush;
}

void
ProgressBar::Finish()
{
  if (m_Percent >= 0)
    std::cerr << "\n";
  m_Percent = -1;
}

double
UpdateWithProgress(itk::ProcessObject * filter, bool quiet)
{
  auto progress = ProgressBar::New();
  unsigned long observer = 0;
  if (!quiet)
    observer = filter->AddObserver(itk::ProgressEvent(), progress);
  const auto start = std::chrono::steady_clock::now();
  try
  {
    filter->Update();
  }
  catch (...)
  {
    progress->Finish();
    if (!quiet)
      filter->RemoveObserver(observer);
    throw;
  }
  progress->Finish();
  if (!quiet)
    filter->RemoveObserver(observer);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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

int
RunTool(const char * program, int argc, char * argv[], const std::function<int(int, char **)> & run)
{
  try
  {
    return run(argc, argv);
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << program << ": " << OneLine(e.GetDescription()) << "\n";
  }
  catch (const std::exception & e)
  {
    std::cerr << program << ": " << OneLine(e.what()) << "\n";
  }
  return 1;
}

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

int
ByInputDimension(const std::string & input, const std::function<int()> & run2, const std::function<int()> & run3)
{
  const unsigned dimension = InputDimension(input);
  if (dimension == 2)
    return run2();
  if (dimension == 3)
    return run3();
  throw std::runtime_error("input '" + input + "' is " + std::to_string(dimension) +
                           "D; only 2D and 3D images are supported");
}

namespace
{

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

} // namespace

void
WriteAtomically(const std::string & output, const std::function<void(const std::string & path)> & write)
{
  namespace fs = std::filesystem;
  const std::string extension = FormatExtension(output);
  if (itk::ImageIOFactory::CreateImageIO(output.c_str(), itk::ImageIOFactory::FileModeEnum::WriteMode).IsNull())
    throw std::runtime_error("no ITK image format writes '" + output + "' (use e.g. .nrrd, .mha, .nii.gz, .tif)");
  if (HasDetachedData(extension))
  {
    try
    {
      write(output);
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
    write(temporary);
    fs::rename(temporary, output);
  }
  catch (...)
  {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

std::vector<std::string>
DicomSeriesFiles(const std::string & directory, const char * program)
{
  auto names = itk::GDCMSeriesFileNames::New();
  names->SetUseSeriesDetails(true);
  // Without DICOM files ITK prints a multi-line warning; the exception below says it in one line.
  const bool warnings = itk::Object::GetGlobalWarningDisplay();
  itk::Object::SetGlobalWarningDisplay(false);
  std::vector<std::string> series;
  try
  {
    names->SetDirectory(directory);
    series = names->GetSeriesUIDs();
  }
  catch (...)
  {
    itk::Object::SetGlobalWarningDisplay(warnings);
    throw;
  }
  itk::Object::SetGlobalWarningDisplay(warnings);
  if (series.empty())
    throw std::runtime_error("no DICOM series in directory '" + directory + "'");
  if (series.size() > 1)
    std::cerr << program << ": " << series.size() << " DICOM series in '" << directory << "', using the first ("
              << series.front() << ")\n";
  return names->GetFileNames(series.front());
}

} // namespace cli
} // namespace gpur
