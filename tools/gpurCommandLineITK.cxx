// SPDX-License-Identifier: Apache-2.0
#include "gpurCommandLineITK.h"

#include "gpurToolComplaints.h"
#include "gpurToolInterrupt.h"

#include "itksys/SystemTools.hxx"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <new>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

namespace gpur
{
namespace cli
{

namespace
{

bool
IsTerminal(std::FILE * stream)
{
#ifdef _WIN32
  return _isatty(_fileno(stream)) != 0;
#else
  return isatty(fileno(stream)) != 0;
#endif
}

double
Now()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

ProgressOutput
ChooseProgressOutput(bool quiet)
{
  ProgressOutput output;
  if (!quiet)
  {
    output.slicer = !IsTerminal(stdout);
    output.bar = IsTerminal(stderr);
  }
  return output;
}

std::ostream &
Summary()
{
  return IsTerminal(stdout) ? std::cerr : std::cout;
}

void
ProgressDisplay::Start(const ProgressOutput & output, const std::string & name, const std::string & comment)
{
  m_Output = output;
  m_Name = XMLEscape(name);
  if (m_Output.slicer)
    std::cout << "<filter-start><filter-name>" << m_Name << "</filter-name><filter-comment>" << XMLEscape(comment)
              << "</filter-comment></filter-start>" << std::endl;
}

void
ProgressDisplay::Execute(itk::Object * caller, const itk::EventObject & event)
{
  Execute(static_cast<const itk::Object *>(caller), event);
}

void
ProgressDisplay::Execute(const itk::Object * caller, const itk::EventObject & event)
{
  const auto * process = dynamic_cast<const itk::ProcessObject *>(caller);
  if (process && itk::ProgressEvent().CheckEvent(&event))
    Show(std::clamp(static_cast<double>(process->GetProgress()), 0.0, 1.0));
}

void
ProgressDisplay::Show(double fraction)
{
  const int percent = static_cast<int>(100.0 * fraction + 0.5);
  if (m_Output.bar && percent != m_Percent)
  {
    m_Percent = percent;
    constexpr int width = 40;
    const int filled = percent * width / 100;
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << std::setw(3)
              << percent << "%" << std::flush;
    SetProgressLineOpen(true);
  }
  // Slicer: a line per 1 % or 0.1 s, whichever comes first, and only forward (a
  // filter's progress restarting at 0, as ITK's pipeline does, is not shown as a
  // step back); the final 1 always gets its line.
  const double now = Now();
  if (m_Output.slicer && fraction > m_Fraction &&
      (fraction >= 1.0 || fraction - m_Fraction >= 0.01 || now - m_PrintedAt >= 0.1))
  {
    m_Fraction = fraction;
    m_PrintedAt = now;
    std::cout << "<filter-progress>" << std::setprecision(4) << fraction << "</filter-progress>" << std::endl;
  }
}

void
ProgressDisplay::Finish(double seconds)
{
  if (m_Percent >= 0)
    std::cerr << "\n";
  m_Percent = -1;
  SetProgressLineOpen(false);
  if (m_Output.slicer && seconds >= 0.0)
    std::cout << "<filter-end><filter-name>" << m_Name << "</filter-name><filter-time>" << std::setprecision(6)
              << seconds << "</filter-time></filter-end>" << std::endl;
}

double
UpdateWithProgress(itk::ProcessObject * filter, bool quiet, const std::string & comment)
{
  const ProgressOutput output = ChooseProgressOutput(quiet);
  auto display = ProgressDisplay::New();
  display->Start(output, filter->GetNameOfClass(), comment.empty() ? filter->GetNameOfClass() : comment);
  unsigned long observer = 0;
  const bool observed = output.bar || output.slicer;
  if (observed)
    observer = filter->AddObserver(itk::ProgressEvent(), display);
  const auto start = std::chrono::steady_clock::now();
  try
  {
    filter->Update();
  }
  catch (...)
  {
    display->Finish(-1.0);
    if (observed)
      filter->RemoveObserver(observer);
    throw;
  }
  if (observed)
    filter->RemoveObserver(observer);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  display->Finish(seconds);
  return seconds;
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
    wall = UpdateWithProgress(filter, quiet, program);
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
