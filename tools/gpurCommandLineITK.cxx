// SPDX-License-Identifier: Apache-2.0
#include "gpurCommandLineITK.h"

#include "gpurToolComplaints.h"
#include "gpurToolInterrupt.h"

#include "itksys/SystemTools.hxx"

#include <chrono>
#include <iomanip>
#include <new>

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
  SetProgressLineOpen(true);
}

void
ProgressBar::Finish()
{
  if (m_Percent >= 0)
    std::cerr << "\n";
  m_Percent = -1;
  SetProgressLineOpen(false);
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

namespace
{

// Turns ITK's warning display off while it lives.
class WarningDisplayOff
{
public:
  WarningDisplayOff()
    : m_Display(itk::Object::GetGlobalWarningDisplay())
  {
    itk::Object::GlobalWarningDisplayOff();
  }
  ~WarningDisplayOff() { itk::Object::SetGlobalWarningDisplay(m_Display); }
  WarningDisplayOff(const WarningDisplayOff &) = delete;
  WarningDisplayOff &
  operator=(const WarningDisplayOff &) = delete;

private:
  bool m_Display;
};

} // namespace

double
UpdateReportingWarnings(itk::ProcessObject * filter,
                        bool quiet,
                        const char * program,
                        const std::function<std::vector<std::string>()> & warnings)
{
  double wall = 0.0;
  {
    const WarningDisplayOff printedBelow;
    wall = UpdateWithProgress(filter, quiet);
  }
  for (const std::string & warning : warnings())
    std::cerr << program << ": warning: " << warning << "\n";
  return wall;
}

int
RunTool(const char * program, int argc, char * argv[], const std::function<int(int, char **)> & run)
{
  InstallInterruptHandlers(program);
  InstallComplaintWindow();
  try
  {
    return run(argc, argv);
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << program << ": " << OneLine(e.GetDescription()) << "\n";
  }
  catch (const std::bad_alloc &)
  {
    std::cerr << program << ": not enough memory for this image and these settings (an allocation failed)\n";
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
  // Trailing dimensions of size 1 (e.g. a 2D image stored as 3D with one slice) keep their dimension.
  return ReadImageHeader(input)->GetNumberOfDimensions();
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

} // namespace cli
} // namespace gpur
