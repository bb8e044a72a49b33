// SPDX-License-Identifier: Apache-2.0
/*
 * SIGINT, SIGTERM and SIGHUP for the command-line tools: the temporary files of
 * an output being written are removed, one line says what happened, and the
 * tool exits with 128 + the signal's number. The handler does only what is
 * async-signal-safe (unlink/rmdir of a list of paths prepared beforehand,
 * write, _exit), and acts on the main thread only (another thread that
 * receives the signal passes it on), so the list changes while the main thread
 * holds interruptions (InterruptHold) and the handler never sees it half done.
 */
#ifndef gpurToolInterrupt_h
#define gpurToolInterrupt_h

#include <csignal>
#include <string>
#include <vector>

namespace gpur
{
namespace cli
{

/** Installs the handlers for the rest of the program; call once, from the main thread. */
void
InstallInterruptHandlers(const char * program);

/** The most paths SetTemporaryPaths takes. */
constexpr std::size_t kMaxTemporaryPaths = 16;

/**
 * Sets the paths an interruption removes, in this order (files, then the
 * folder holding them: a path ending in '/' is removed as a folder), replacing
 * the previous list; an empty list disarms. Main thread only.
 */
void
SetTemporaryPaths(const std::vector<std::string> & paths);

/** Where the handler writes its line (the real stderr while stderr is being captured). */
void
SetInterruptMessageDescriptor(int descriptor);

/** Whether a progress bar's line is open on stderr (the handler's line then starts on a new one). */
void
SetProgressLineOpen(bool open);

/**
 * While one exists, SIGINT, SIGTERM and SIGHUP wait: they act when it is gone.
 * For steps that must not be cut in two (moving an output's files into place).
 */
class InterruptHold
{
public:
  InterruptHold();
  ~InterruptHold();
  InterruptHold(const InterruptHold &) = delete;
  InterruptHold &
  operator=(const InterruptHold &) = delete;

private:
  sigset_t m_Previous;
};

} // namespace cli
} // namespace gpur

#endif
