/*
 * The ITK side shared by the project's command-line tools (itkgpurestoration-tv,
 * itkgpurestoration-stv): reading an image file or a DICOM series folder,
 * writing the output atomically, the execution options on a filter, the
 * progress bar, running a filter with it,
 * and main()'s one-line error report. The option parser is gpurCommandLine.h
 * (ITK-free).
 */
#ifndef gpurCommandLineITK_h
#define gpurCommandLineITK_h

#include "gpurCommandLine.h"
#include "gpurExecution.h"
#include "itkCommand.h"
#include "itkGDCMImageIO.h"
#include "itkGDCMSeriesFileNames.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageSeriesReader.h"
#include "itkProcessObject.h"
#include "itksys/SystemTools.hxx"

#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace gpur
{
namespace cli
{

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
  Execute(itk::Object * caller, const itk::EventObject & event) override;
  void
  Execute(const itk::Object * caller, const itk::EventObject & event) override;
  /** Ends the bar's line (if one was drawn). */
  void
  Finish();

protected:
  ProgressBar() = default;
  ~ProgressBar() override = default;

private:
  int m_Percent = -1;
};

/**
 * filter->Update() with a progress bar on stderr unless quiet (the bar's line
 * is ended also when Update throws); returns the wall time in seconds.
 */
double
UpdateWithProgress(itk::ProcessObject * filter, bool quiet);

/** text with line breaks replaced by spaces and trailing spaces removed (for one-line error messages). */
std::string
OneLine(std::string text);

/**
 * Runs run(argc, argv) and returns its exit code; an exception becomes one line
 * "<program>: <reason>" on stderr and exit code 1.
 */
int
RunTool(const char * program, int argc, char * argv[], const std::function<int(int, char **)> & run);

/** The input's dimension without reading the pixels; 3 for a DICOM series directory. */
unsigned
InputDimension(const std::string & input);

/** run2() or run3() by the input's dimension; throws for other dimensions. */
int
ByInputDimension(const std::string & input, const std::function<int()> & run2, const std::function<int()> & run3);

/**
 * Writes output through write(path) atomically where the format allows it: to a
 * temporary file next to output (with output's extension, which selects the
 * format), renamed to output once complete. Formats whose header names a
 * separate data file (.mhd, .nhdr, .hdr/.img) are written in place and removed
 * again if writing fails. Throws for a name no ITK format writes.
 */
void
WriteAtomically(const std::string & output, const std::function<void(const std::string & path)> & write);

/** Backend, device and device memory limit of the tool's options on a gpur filter. */
template<typename TFilter>
void
SetExecution(TFilter * filter, const ToolOptions & o)
{
  filter->SetBackend(ParseBackend(o.backend));
  filter->SetDevice(o.device);
  filter->SetDeviceMemoryLimit(static_cast<itk::SizeValueType>(o.deviceMemoryMiB) << 20);
}

/** ", streamed through host memory in N z-regions" for the summary line, or "" when the volume fit on the device. */
template<typename TFilter>
std::string
StreamNote(const TFilter * filter)
{
  const auto regions = filter->GetStreamRegions();
  return regions > 0 ? ", streamed through host memory in " + std::to_string(regions) + " z-regions" : std::string();
}

template<typename TImage>
void
WriteOutput(const TImage * image, const std::string & output)
{
  WriteAtomically(output, [image](const std::string & path) { itk::WriteImage(image, path, /*compress=*/true); });
}

/** The file names of the first DICOM series in directory (a note on stderr if there are several). */
std::vector<std::string>
DicomSeriesFiles(const std::string & directory, const char * program);

/** Reads an image file ITK reads, or (3D only) a directory holding a DICOM series, as TImage. */
template<typename TImage>
typename TImage::Pointer
ReadInput(const std::string & input, const char * program)
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
    auto reader = itk::ImageSeriesReader<TImage>::New();
    reader->SetImageIO(itk::GDCMImageIO::New());
    reader->SetFileNames(DicomSeriesFiles(input, program));
    reader->Update();
    return reader->GetOutput();
  }
}

} // namespace cli
} // namespace gpur

#endif
