// SPDX-License-Identifier: Apache-2.0
// Wall-clock timing of engine runs (the reports' `seconds`).
#ifndef gpurStopwatch_h
#define gpurStopwatch_h

#include <chrono>

namespace gpur
{

/** Starts at construction; Seconds() is the wall time since. */
class Stopwatch
{
public:
  /** Seconds since construction (steady clock). */
  double
  Seconds() const
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_Start).count();
  }

private:
  std::chrono::steady_clock::time_point m_Start = std::chrono::steady_clock::now();
};

} // namespace gpur

#endif
