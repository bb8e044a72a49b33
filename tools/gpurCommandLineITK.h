// SPDX-License-Identifier: Apache-2.0
/*
 * The ITK side shared by the project's command-line tools (itkgpurestoration-tv,
 * -stv, -poisson): reading an image file or a DICOM series folder with every
 * check that keeps corrupt input out (gpurToolInput.h, gpurToolDicom.h),
 * writing the output verified and atomically (gpurToolOutput.h), the execution
 * options on a filter, the progress displays (a terminal's bar, 3D Slicer's
 * progress lines), running a filter with them, and main()'s
 * one-line error report, interruption handling (gpurToolInterrupt.h) and
 * capture of ITK's complaints (gpurToolComplaints.h). The option parser is
 * gpurCommandLine.h (ITK-free).
 */
#ifndef gpurCommandLineITK_h
#define gpurCommandLineITK_h

#include "gpurCommandLine.h"
#include "gpurExecution.h"
#include "gpurToolDicom.h"
#include "gpurToolInput.h"
#include "gpurToolOutput.h"
#include "itkGPURestorationEnums.h"
#include "itkCommand.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageSeriesReader.h"
#include "itkProcessObject.h"
#include "itksys/SystemTools.hxx"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gpur
{
namespace cli
{

/**
 * Where a tool's progress and summary line go. Two displays, each chosen by
 * what its stream is connected to, so that neither needs an option:
 * - 3D Slicer's progress lines on stdout when stdout is not a terminal.
 *   Slicer runs an executable CLI module with stdout and stderr on pipes and
 *   reads its progress only from <filter-start>, <filter-progress> and
 *   <filter-end> lines on stdout (Slicer Execution Model); it passes
 *   --processinformationaddress only to shared-library modules, and no
 *   environment variable, so "stdout is not a terminal" is the one signal an
 *   executable gets. It is also what the Execution Model's own
 *   itk::PluginFilterWatcher does (it prints these lines always). Scripts
 *   capturing stdout see the lines too; --quiet turns them off.
 * - The "\r" bar on stderr only when stderr is a terminal: Slicer logs every
 *   stderr line as an error, and a log file has no use for carriage returns.
 * In Slicer mode the summary line goes to stdout as well (Summary()), so stderr
 * carries only real warnings and errors.
 */
struct ProgressOutput
{
  bool slicer = false; ///< <filter-...> lines on stdout
  bool bar = false;    ///< "[#####.....]  45%" on stderr
};

/** The displays for this run: none when quiet, else by the streams as described above. */
ProgressOutput
ChooseProgressOutput(bool quiet);

/** The stream for the summary line: stdout in Slicer mode (stdout not a terminal), else stderr. */
std::ostream &
Summary();

/**
 * Observes a filter's ProgressEvents and shows them as ProgressOutput says: the
 * bar, redrawn in place whenever the whole percentage changes, and/or
 * <filter-progress> lines, throttled to a change of at least 1 % or 0.1 s
 * since the last line, never decreasing, in [0, 1].
 */
class ProgressDisplay : public itk::Command
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ProgressDisplay);
  using Self = ProgressDisplay;
  using Superclass = itk::Command;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  /** Prints <filter-start> (Slicer mode) naming the filter, with comment as the text Slicer shows. */
  void
  Start(const ProgressOutput & output, const std::string & name, const std::string & comment);
  void
  Execute(itk::Object * caller, const itk::EventObject & event) override;
  void
  Execute(const itk::Object * caller, const itk::EventObject & event) override;
  /** Ends the bar's line (if one was drawn); after a success (seconds >= 0), <filter-end> with the time. */
  void
  Finish(double seconds);

protected:
  ProgressDisplay() = default;
  ~ProgressDisplay() override = default;

private:
  void
  Show(double fraction);

  ProgressOutput m_Output;
  std::string m_Name;
  int m_Percent = -1;          ///< bar: the percentage drawn, -1 none
  double m_Fraction = -1.0;    ///< Slicer: the fraction printed last, -1 none
  double m_PrintedAt = -1.0e9; ///< Slicer: when (steady clock, s)
};

/**
 * filter->Update() with the progress displays of ChooseProgressOutput(quiet)
 * (the bar's line is ended also when Update throws; <filter-end> only after a
 * success); returns the wall time in seconds. comment: the text Slicer shows
 * for the run, e.g. the program's name (empty: the filter's class name).
 */
double
UpdateWithProgress(itk::ProcessObject * filter, bool quiet, const std::string & comment = {});

/**
 * UpdateWithProgress for a filter that reports its own warnings (the TV
 * filters' GetReport().warnings, given by `warnings`): ITK's display of them
 * (a multi-line text with the source file) is off during the update, and each
 * is printed afterwards as one line "<program>: warning: <text>" on stderr,
 * also when quiet. A warning is not a failure: the tool goes on and exits 0.
 */
double
UpdateReportingWarnings(itk::ProcessObject * filter,
                        bool quiet,
                        const char * program,
                        const std::function<std::vector<std::string>()> & warnings);

/**
 * Runs run(argc, argv) and returns its exit code; an exception becomes one line
 * "<program>: <reason>" on stderr and exit code 1. Installs, first, the
 * interruption handlers (SIGINT/SIGTERM/SIGHUP: temporaries removed, exit 128 +
 * the signal's number) and the output window that lets reads and writes
 * capture ITK's warnings.
 */
int
RunTool(const char * program, int argc, char * argv[], const std::function<int(int, char **)> & run);

/** The input's dimension without reading the pixels; 3 for a DICOM series directory. */
unsigned
InputDimension(const std::string & input);

/** run2() or run3() by the input's dimension; throws for other dimensions. */
int
ByInputDimension(const std::string & input, const std::function<int()> & run2, const std::function<int()> & run3);

/** Backend, device and device memory limit of the tool's options on a gpur filter. */
template<typename TFilter>
void
SetExecution(TFilter * filter, const ToolOptions & o)
{
  filter->SetBackend(itk::GPURestoration::FromEngine<typename TFilter::BackendEnum>(ParseBackend(o.backend)));
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

/** ", dual p stored as <type>" for the summary line of a TV filter run with half-precision duals asked, else "". */
template<typename TFilter>
std::string
DualStorageNote(const TFilter * filter)
{
  return filter->GetHalfPrecisionDual() ? ", dual p stored as " + filter->GetReport().dualStorage : std::string();
}

/**
 * " (automatic: <noise>discrepancy target T[ calibrated], N converged solves, largest gap G)" for the
 * summary line of a TV filter whose lambda the discrepancy principle chose (noise: what the tool says
 * about the noise level, e.g. "noise sigma 25 estimated, "; factorGiven: the target was given, not
 * calibrated), or "" for a fixed lambda.
 */
template<typename TFilter>
std::string
AutomaticLambdaNote(const TFilter * filter, const std::string & noise, bool factorGiven)
{
  if (filter->GetDiscrepancyTarget() == 0.0)
    return std::string();
  double worstGap = 0.0;
  for (const auto & solve : filter->GetLambdaHistory())
    worstGap = std::max(worstGap, solve.relativeGap);
  std::ostringstream note;
  note << std::setprecision(3) << " (automatic: " << noise << "discrepancy target " << filter->GetDiscrepancyTarget()
       << (factorGiven ? "" : " calibrated") << ", " << filter->GetNumberOfLambdaSolves()
       << " converged solves, largest gap " << worstGap << ")";
  return note.str();
}

/** reader->Update() through ReadPixels (what: the input's name); returns the image read. */
template<typename TReader>
typename TReader::OutputImageType::Pointer
UpdateReader(TReader * reader, const std::string & what, const std::string & description, std::uint64_t pixels)
{
  ReadPixels(what,
             description,
             pixels,
             [reader]() -> std::uint64_t
             {
               reader->Update();
               return reader->GetOutput()->GetBufferedRegion().GetNumberOfPixels();
             });
  return reader->GetOutput();
}

/** Reads an image file as TImage, after OpenImageFile's checks; what was read is checked too (ReadPixels). */
template<typename TImage>
typename TImage::Pointer
ReadImageFile(const std::string & path)
{
  const itk::ImageIOBase::Pointer io = OpenImageFile(path);
  auto reader = itk::ImageFileReader<TImage>::New();
  reader->SetImageIO(io);
  reader->SetFileName(path);
  return UpdateReader(reader.GetPointer(), path, DescribePixels(*io), io->GetImageSizeInPixels());
}

/** Reads the first DICOM series in directory as a 3D TImage, after OpenDicomSeries' checks. */
template<typename TImage>
typename TImage::Pointer
ReadDicomSeries(const std::string & directory, const char * program)
{
  const DicomSeries series = OpenDicomSeries(directory, program);
  auto reader = itk::ImageSeriesReader<TImage>::New();
  reader->SetImageIO(series.io);
  reader->SetFileNames(series.files);
  reader->SetSpacingWarningRelThreshold(kSliceSpacingTolerance);
  return UpdateReader(reader.GetPointer(),
                      directory,
                      DescribePixels(*series.io, series.files.size()),
                      series.io->GetImageSizeInPixels() * series.files.size());
}

/** Reads an image file ITK reads, or (3D only) a directory holding a DICOM series, as TImage. */
template<typename TImage>
typename TImage::Pointer
ReadInput(const std::string & input, const char * program)
{
  if (!itksys::SystemTools::FileIsDirectory(input))
    return ReadImageFile<TImage>(input);
  if constexpr (TImage::ImageDimension != 3)
    throw std::logic_error("a DICOM series is read as a 3D image");
  else
    return ReadDicomSeries<TImage>(input, program);
}

/**
 * Writes image to output (compressed where the format allows) through
 * WriteVerified: it appears under that name only complete, after reading it
 * back gave the same size and pixels.
 */
template<typename TImage>
void
WriteOutput(const TImage * image, const std::string & output)
{
  WriteVerified(
    output,
    [image](const std::string & path) { itk::WriteImage(image, path, /*compress=*/true); },
    [image](const std::string & path)
    {
      const auto back = ReadImageFile<TImage>(path);
      const auto region = image->GetBufferedRegion();
      CheckReadBack(back->GetBufferedRegion().GetSize() == region.GetSize(),
                    image->GetBufferPointer(),
                    back->GetBufferPointer(),
                    region.GetNumberOfPixels() * sizeof(typename TImage::PixelType));
    });
}

} // namespace cli
} // namespace gpur

#endif
