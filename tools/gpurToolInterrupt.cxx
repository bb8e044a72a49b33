// SPDX-License-Identifier: Apache-2.0
#include "gpurToolInterrupt.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <pthread.h>
#include <stdexcept>
#include <unistd.h>

namespace gpur
{
namespace cli
{

namespace
{

constexpr int kSignals[] = { SIGINT, SIGTERM, SIGHUP };
constexpr const char * kSignalNames[] = { "SIGINT", "SIGTERM", "SIGHUP" };
constexpr std::size_t kNumberOfSignals = sizeof(kSignals) / sizeof(kSignals[0]);

// Everything the handler reads is prepared beforehand: no allocation, no locks.
pthread_t g_MainThread;
char g_Messages[kNumberOfSignals][256]; // "<program>: interrupted by SIGINT\n"
std::size_t g_MessageLengths[kNumberOfSignals] = {};
char g_Paths[kMaxTemporaryPaths][PATH_MAX]; // removed in this order
bool g_PathIsFolder[kMaxTemporaryPaths] = {};
volatile sig_atomic_t g_NumberOfPaths = 0;
volatile sig_atomic_t g_MessageDescriptor = STDERR_FILENO;
volatile sig_atomic_t g_ProgressLineOpen = 0;

void
WriteAll(int descriptor, const char * text, std::size_t length)
{
  while (length > 0)
  {
    const ssize_t n = write(descriptor, text, length);
    if (n <= 0)
      return;
    text += n;
    length -= static_cast<std::size_t>(n);
  }
}

extern "C" void
OnInterrupt(int signo)
{
  if (!pthread_equal(pthread_self(), g_MainThread))
  {
    // The list may be changing on the main thread (with the signal held there): let it act.
    const int saved = errno;
    pthread_kill(g_MainThread, signo);
    errno = saved;
    return;
  }
  for (sig_atomic_t i = 0; i < g_NumberOfPaths; ++i)
  {
    if (g_PathIsFolder[i])
      rmdir(g_Paths[i]);
    else
      unlink(g_Paths[i]);
  }
  const int descriptor = g_MessageDescriptor;
  if (g_ProgressLineOpen)
    WriteAll(descriptor, "\n", 1);
  for (std::size_t s = 0; s < kNumberOfSignals; ++s)
    if (kSignals[s] == signo)
      WriteAll(descriptor, g_Messages[s], g_MessageLengths[s]);
  _exit(128 + signo);
}

sigset_t
HandledSignals()
{
  sigset_t set;
  sigemptyset(&set);
  for (const int signo : kSignals)
    sigaddset(&set, signo);
  return set;
}

} // namespace

void
InstallInterruptHandlers(const char * program)
{
  g_MainThread = pthread_self();
  for (std::size_t s = 0; s < kNumberOfSignals; ++s)
  {
    const int length =
      std::snprintf(g_Messages[s], sizeof(g_Messages[s]), "%s: interrupted by %s\n", program, kSignalNames[s]);
    g_MessageLengths[s] = length < 0 ? 0 : std::min(static_cast<std::size_t>(length), sizeof(g_Messages[s]) - 1);
  }
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = OnInterrupt;
  action.sa_mask = HandledSignals(); // one handler at a time
  action.sa_flags = SA_RESTART;
  for (const int signo : kSignals)
    sigaction(signo, &action, nullptr);
}

void
SetTemporaryPaths(const std::vector<std::string> & paths)
{
  if (paths.size() > kMaxTemporaryPaths)
    throw std::logic_error("SetTemporaryPaths: more than " + std::to_string(kMaxTemporaryPaths) + " paths");
  for (const auto & path : paths)
    if (path.size() >= PATH_MAX)
      throw std::runtime_error("the temporary path '" + path + "' is too long");
  const InterruptHold hold;
  g_NumberOfPaths = 0;
  for (std::size_t i = 0; i < paths.size(); ++i)
  {
    const bool folder = !paths[i].empty() && paths[i].back() == '/';
    std::memcpy(g_Paths[i], paths[i].c_str(), paths[i].size() + 1);
    g_PathIsFolder[i] = folder;
  }
  g_NumberOfPaths = static_cast<sig_atomic_t>(paths.size());
}

void
SetInterruptMessageDescriptor(int descriptor)
{
  g_MessageDescriptor = descriptor;
}

void
SetProgressLineOpen(bool open)
{
  g_ProgressLineOpen = open ? 1 : 0;
}

InterruptHold::InterruptHold()
{
  const sigset_t set = HandledSignals();
  pthread_sigmask(SIG_BLOCK, &set, &m_Previous);
}

InterruptHold::~InterruptHold()
{
  pthread_sigmask(SIG_SETMASK, &m_Previous, nullptr);
}

} // namespace cli
} // namespace gpur
