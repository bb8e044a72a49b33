// SPDX-License-Identifier: Apache-2.0
/*
 * What ITK and the format libraries under it say while a command-line tool
 * reads or writes a file. ITK 5.2's readers and writers report some failures
 * only as text: MetaIO's "data not read completely" and "file stream is fail
 * after write" (std::cerr), niftilib's short writes and libtiff's read errors
 * (C stderr), GDCM's parse errors, and ITK's own warnings (itk::OutputWindow,
 * e.g. ImageSeriesReader's "non uniform sampling or missing slices"). While a
 * ComplaintCapture exists, all of that is collected instead of printed, so the
 * tool can treat it as the failure it is.
 */
#ifndef gpurToolComplaints_h
#define gpurToolComplaints_h

#include <cstdio>
#include <string>
#include <vector>

namespace gpur
{
namespace cli
{

/**
 * Installs, for the rest of the program, an itk::OutputWindow that hands ITK's
 * warnings and errors to the active ComplaintCapture (and prints them as ITK's
 * default window does when none is active).
 */
void
InstallComplaintWindow();

/**
 * Collects, from construction to Finish(), ITK's warnings and errors and every
 * message written to the process's stderr (file descriptor 2: C and C++ streams
 * alike). One at a time; not to be nested.
 */
class ComplaintCapture
{
public:
  ComplaintCapture();
  ~ComplaintCapture();
  ComplaintCapture(const ComplaintCapture &) = delete;
  ComplaintCapture &
  operator=(const ComplaintCapture &) = delete;

  /**
   * Stops collecting and returns the complaints in one line ("" if none). Text
   * written to stderr counts as a complaint unless the message says it is a
   * warning (libtiff's "Warning, unknown field ...", GDCM's "Warning: In ...",
   * niftilib's "** WARNING"): those are printed on stderr as they were. ITK's
   * own warnings count as complaints (they report a wrong image: missing
   * slices, an unsupported orientation).
   */
  std::string
  Finish();

  /** Finish(), then throws std::runtime_error("<context>: <complaints>") if there were any. */
  void
  ThrowIfAny(const std::string & context);

private:
  std::FILE * m_File = nullptr; // where stderr goes meanwhile
  int m_SavedStderr = -1;       // the real stderr
  bool m_Finished = false;
};

/**
 * A message as one readable line: the source-location lines of ITK's and
 * GDCM's message headers ("WARNING: In <file>, line <n>", "<file>:<n> ():")
 * dropped, "Object (0x55d...): " shortened to "Object: ", line breaks and runs
 * of white space made one space.
 */
std::string
OneLine(const std::string & message);

/**
 * Splits text written to stderr into messages and returns those that are not
 * warnings (exposed for the tests of the rule). A message starts at a line that
 * is not indented; indented lines continue it, a blank line ends it, and GDCM's
 * "Warning: In <file>, line <n>, function <f>" / "Error: In ..." headers
 * continue up to the next blank line (their second line is the message).
 */
std::vector<std::string>
ErrorMessages(const std::string & text, std::string & warnings);

} // namespace cli
} // namespace gpur

#endif
