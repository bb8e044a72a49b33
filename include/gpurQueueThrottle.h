// SPDX-License-Identifier: Apache-2.0
// Bounds how far the host runs ahead of an OpenCL device (core).
#ifndef gpurQueueThrottle_h
#define gpurQueueThrottle_h

#include "gpurOpenCL.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <deque>

namespace gpur
{

/**
 * An iterative engine enqueues its kernels without waiting, so without a
 * bound the host finishes its loop (progress at 100 %, abort requests no
 * longer looked at) long before the device has run the work. The throttle
 * marks the end of each step on the queue and keeps the unfinished steps to
 * about `seconds` of device work: when 2 d steps are queued it waits until d
 * are left, with d = seconds / (measured time per step), 1 <= d <= 256. So
 * progress lags the device, and an abort takes effect, within about
 * 2 x `seconds` (or two steps, when a step takes longer), the device always has
 * d steps queued (it does not idle while the host waits), and the host wakes
 * once per d steps (a few per second), which costs no measurable throughput.
 */
class QueueThrottle
{
public:
  explicit QueueThrottle(double seconds = 0.1)
    : m_Seconds(seconds)
  {
  }

  /** Marks the end of a step on the in-order queue; waits while about 2 x `seconds` of steps are unfinished. */
  void
  Step(const cl::CommandQueue & queue)
  {
    cl::Event mark;
    queue.enqueueMarkerWithWaitList(nullptr, &mark);
    queue.flush();
    if (m_Marks.empty() && m_Finished == 0)
      m_Since = Clock::now();
    m_Marks.push_back(mark);
    if (m_Marks.size() < 2 * m_Depth)
      return;
    const std::size_t done = m_Marks.size() - m_Depth; // the steps to wait for
    m_Marks[done - 1].wait();                          // in order: the earlier ones are done too
    m_Marks.erase(m_Marks.begin(), m_Marks.begin() + static_cast<std::ptrdiff_t>(done));
    m_Finished += done;
    const double elapsed = std::chrono::duration<double>(Clock::now() - m_Since).count();
    const double perStep = elapsed / static_cast<double>(m_Finished);
    m_Depth = perStep > 0.0 ? static_cast<std::size_t>(std::min(256.0, std::max(1.0, m_Seconds / perStep))) : 256;
  }

private:
  using Clock = std::chrono::steady_clock;
  double m_Seconds;
  std::size_t m_Depth = 1;
  std::size_t m_Finished = 0; ///< steps known to be finished since m_Since
  Clock::time_point m_Since;
  std::deque<cl::Event> m_Marks;
};

} // namespace gpur

#endif
