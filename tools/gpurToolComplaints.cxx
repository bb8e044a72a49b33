// SPDX-License-Identifier: Apache-2.0
#include "gpurToolComplaints.h"

#include "gpurText.h"
#include "gpurToolInterrupt.h"

#include "itkObjectFactory.h"
#include "itkOutputWindow.h"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <unistd.h>

namespace gpur
{
namespace cli
{

namespace
{

std::mutex g_Mutex;
bool g_Capturing = false;               // a ComplaintCapture is active (guarded by g_Mutex)
std::vector<std::string> g_ITKMessages; // ITK's warnings and errors meanwhile (guarded by g_Mutex)

/** ITK's output window, with warnings and errors handed to the active ComplaintCapture. */
class ComplaintWindow : public itk::OutputWindow
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ComplaintWindow);
  using Self = ComplaintWindow;
  using Superclass = itk::OutputWindow;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  void
  DisplayErrorText(const char * text) override
  {
    if (!Record(text))
      Superclass::DisplayErrorText(text);
  }
  void
  DisplayWarningText(const char * text) override
  {
    if (!Record(text))
      Superclass::DisplayWarningText(text);
  }

protected:
  ComplaintWindow() = default;
  ~ComplaintWindow() override = default;

private:
  static bool
  Record(const char * text)
  {
    const std::lock_guard<std::mutex> lock(g_Mutex);
    if (!g_Capturing)
      return false;
    g_ITKMessages.emplace_back(text);
    return true;
  }
};

bool
StartsWith(const std::string & text, const char * prefix)
{
  return text.rfind(prefix, 0) == 0;
}

bool
SaysWarning(const std::string & line)
{
  return ToLower(line).find("warning") != std::string::npos;
}

} // namespace

void
InstallComplaintWindow()
{
  itk::OutputWindow::SetInstance(ComplaintWindow::New());
}

std::vector<std::string>
ErrorMessages(const std::string & text, std::string & warnings)
{
  // Split into messages (see the header), then keep the ones that are not warnings.
  std::vector<std::string> messages;
  bool open = false;     // a message is being continued
  bool gdcmLike = false; // it has a "Warning: In ..." header: it runs to the next blank line
  std::size_t begin = 0;
  while (begin < text.size())
  {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    if (blank)
    {
      open = false;
      continue;
    }
    const bool indented = line[0] == ' ' || line[0] == '\t';
    if (open && (indented || gdcmLike))
    {
      messages.back() += "\n" + line;
      continue;
    }
    messages.push_back(line);
    open = true;
    gdcmLike = StartsWith(line, "Warning: In ") || StartsWith(line, "Error: In ") || StartsWith(line, "Debug: In ");
  }
  std::vector<std::string> errors;
  for (const auto & message : messages)
  {
    const std::string first = message.substr(0, message.find('\n'));
    if (SaysWarning(first))
      warnings += message + "\n";
    else
      errors.push_back(message);
  }
  return errors;
}

std::string
OneLine(const std::string & message)
{
  static const std::regex location("^(WARNING|ERROR|Warning|Error|Debug): In .*$|^\\S+:[0-9]+ \\(\\):$");
  static const std::regex address(" ?\\(0x[0-9a-fA-F]+\\)");
  std::string kept;
  std::size_t begin = 0;
  while (begin <= message.size())
  {
    const std::size_t end = std::min(message.find('\n', begin), message.size());
    const std::string line = message.substr(begin, end - begin);
    if (!std::regex_match(line, location))
      kept += line + " ";
    begin = end + 1;
  }
  kept = std::regex_replace(kept, address, "");
  std::string tidy;
  for (const char c : kept)
  {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (!space || (!tidy.empty() && tidy.back() != ' '))
      tidy += space ? ' ' : c;
  }
  while (!tidy.empty() && tidy.back() == ' ')
    tidy.pop_back();
  return tidy;
}

ComplaintCapture::ComplaintCapture()
{
  {
    const std::lock_guard<std::mutex> lock(g_Mutex);
    if (g_Capturing)
      throw std::logic_error("ComplaintCapture: already capturing");
    g_Capturing = true;
    g_ITKMessages.clear();
  }
  // Redirect file descriptor 2 into an anonymous temporary file. Without one
  // (no writable temporary folder) stderr stays as it is and only ITK's own
  // warnings and errors are collected.
  std::cerr.flush();
  std::fflush(stderr);
  m_File = std::tmpfile();
  if (m_File != nullptr)
  {
    m_SavedStderr = dup(STDERR_FILENO);
    if (m_SavedStderr < 0 || dup2(fileno(m_File), STDERR_FILENO) < 0)
    {
      if (m_SavedStderr >= 0)
        close(m_SavedStderr);
      m_SavedStderr = -1;
      std::fclose(m_File);
      m_File = nullptr;
    }
    else
      SetInterruptMessageDescriptor(m_SavedStderr); // an interruption is still reported on the real stderr
  }
}

ComplaintCapture::~ComplaintCapture()
{
  if (!m_Finished)
    Finish();
}

std::string
ComplaintCapture::Finish()
{
  if (m_Finished)
    return {};
  m_Finished = true;
  std::string printed;
  if (m_File != nullptr)
  {
    std::cerr.flush();
    std::fflush(stderr);
    dup2(m_SavedStderr, STDERR_FILENO);
    SetInterruptMessageDescriptor(STDERR_FILENO);
    close(m_SavedStderr);
    std::rewind(m_File);
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), m_File)) > 0)
      printed.append(buffer, n);
    std::fclose(m_File);
    m_File = nullptr;
  }
  std::vector<std::string> itkMessages;
  {
    const std::lock_guard<std::mutex> lock(g_Mutex);
    g_Capturing = false;
    itkMessages.swap(g_ITKMessages);
  }
  std::string warnings;
  std::vector<std::string> complaints = ErrorMessages(printed, warnings);
  if (!warnings.empty())
    std::cerr << warnings << std::flush;
  complaints.insert(complaints.begin(), itkMessages.begin(), itkMessages.end());
  std::string line;
  for (const auto & complaint : complaints)
  {
    const std::string tidy = OneLine(complaint);
    if (!tidy.empty())
      line += (line.empty() ? "" : "; ") + tidy;
  }
  return line;
}

void
ComplaintCapture::ThrowIfAny(const std::string & context)
{
  const std::string complaints = Finish();
  if (!complaints.empty())
    throw std::runtime_error(context + ": " + complaints);
}

} // namespace cli
} // namespace gpur
