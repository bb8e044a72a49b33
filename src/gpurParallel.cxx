// SPDX-License-Identifier: Apache-2.0
#include "gpurParallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace gpur
{
namespace
{

/** The first exception thrown by the chunks of one loop, kept for the caller. */
class FirstError
{
public:
  void
  Keep(std::exception_ptr error)
  {
    const std::lock_guard<std::mutex> lock(m_Mutex);
    if (!m_Error)
      m_Error = std::move(error);
    m_Failed.store(true, std::memory_order_relaxed);
  }
  bool
  Failed() const
  {
    return m_Failed.load(std::memory_order_relaxed);
  }
  void
  Rethrow()
  {
    if (m_Error)
      std::rethrow_exception(m_Error);
  }

private:
  std::mutex m_Mutex;
  std::atomic<bool> m_Failed{ false };
  std::exception_ptr m_Error;
};

/**
 * Workers started once and kept for the life of the process: spawning threads
 * on every loop costs tens of microseconds per call, which the CPU references
 * pay several times per iteration. A loop is a job of `chunks` chunks that the
 * workers and the caller claim one at a time under the pool's mutex; the job is
 * shared (std::shared_ptr) by everyone who claimed a chunk, so it outlives the
 * caller's wait however the threads interleave.
 */
class ThreadPool
{
public:
  ThreadPool()
  {
    const unsigned workers = std::max(1u, std::thread::hardware_concurrency()) - 1;
    for (unsigned w = 0; w < workers; ++w)
      std::thread([this] { Work(); }).detach(); // the pool is never destroyed (see Instance)
  }

  /**
   * The process's pool. Never destroyed: workers blocked at exit end with the
   * process, and no static destructor can find a joined pool. A child process
   * after fork() has none of the parent's workers, so it starts its own.
   */
  static ThreadPool &
  Instance()
  {
    static std::mutex mutex;
    static ThreadPool * pool = nullptr;
    static long owner = 0;
    const std::lock_guard<std::mutex> lock(mutex);
#if defined(__unix__) || defined(__APPLE__)
    const long process = static_cast<long>(getpid());
#else
    const long process = 1;
#endif
    if (pool == nullptr || owner != process)
    {
      pool = new ThreadPool(); // a forked child's old pool is left alone: its mutexes may be held
      owner = process;
    }
    return *pool;
  }

  /** task(c) for c in [0, chunks), on the workers and this thread; rethrows the first exception. */
  void
  Run(std::size_t chunks, const std::function<void(std::size_t)> & task)
  {
    auto job = std::make_shared<Job>(chunks, task);
    {
      const std::lock_guard<std::mutex> lock(m_Mutex);
      m_Jobs.push_back(job);
      m_Queued.store(m_Jobs.size(), std::memory_order_release);
    }
    m_Wake.notify_all();
    for (std::size_t c = Claim(*job); c < chunks; c = Claim(*job))
      Execute(*job, c);
    {
      // Every chunk is claimed: take the job off the queue so no worker looks at it again.
      const std::lock_guard<std::mutex> lock(m_Mutex);
      const auto it = std::find(m_Jobs.begin(), m_Jobs.end(), job);
      if (it != m_Jobs.end())
        m_Jobs.erase(it);
      m_Queued.store(m_Jobs.size(), std::memory_order_release);
    }
    std::unique_lock<std::mutex> lock(job->mutex);
    job->done.wait(lock, [&] { return job->finished == chunks; });
    lock.unlock();
    job->error.Rethrow();
  }

private:
  struct Job
  {
    Job(std::size_t c, const std::function<void(std::size_t)> & t)
      : chunks(c)
      , task(t)
    {
    }
    const std::size_t chunks;
    const std::function<void(std::size_t)> & task; ///< the caller's, alive until every chunk has finished
    std::size_t next = 0;                          ///< guarded by the pool's mutex
    std::mutex mutex;
    std::condition_variable done;
    std::size_t finished = 0; ///< guarded by `mutex`
    FirstError error;
  };

  /** The next unclaimed chunk of the job, or job.chunks. */
  std::size_t
  Claim(Job & job)
  {
    const std::lock_guard<std::mutex> lock(m_Mutex);
    return job.next < job.chunks ? job.next++ : job.chunks;
  }

  static void
  Execute(Job & job, std::size_t chunk)
  {
    if (!job.error.Failed())
    {
      try
      {
        job.task(chunk);
      }
      catch (...)
      {
        job.error.Keep(std::current_exception());
      }
    }
    const std::lock_guard<std::mutex> lock(job.mutex);
    if (++job.finished == job.chunks)
      job.done.notify_all();
  }

  void
  Work()
  {
    std::unique_lock<std::mutex> lock(m_Mutex);
    for (;;)
    {
      if (m_Jobs.empty())
      {
        // Iterative engines run loops back to back: a worker that looks for the next
        // one for a moment, before sleeping, takes it on its own core. One woken from
        // sleep is often first run on the caller's core (the scheduler's wake-up
        // affinity), where it delays the caller's own chunk.
        lock.unlock();
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
        while (m_Queued.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < until)
          std::this_thread::yield();
        lock.lock();
      }
      m_Wake.wait(lock, [this] { return !m_Jobs.empty(); });
      std::shared_ptr<Job> job = m_Jobs.front();
      if (job->next >= job->chunks)
      {
        m_Jobs.pop_front(); // fully claimed
        m_Queued.store(m_Jobs.size(), std::memory_order_release);
        continue;
      }
      const std::size_t chunk = job->next++;
      lock.unlock();
      Execute(*job, chunk);
      job.reset();
      lock.lock();
    }
  }

  std::mutex m_Mutex;
  std::condition_variable m_Wake;
  std::deque<std::shared_ptr<Job>> m_Jobs;
  std::atomic<std::size_t> m_Queued{ 0 }; ///< m_Jobs.size(), readable without the mutex
};

} // namespace

void
RunParallel(const ParallelForFunction & parallelFor, std::size_t n, const RangeBody & body)
{
  if (!parallelFor)
  {
    MakeThreadParallelFor()(n, body); // carries exceptions itself
    return;
  }
  FirstError error;
  parallelFor(n,
              [&](std::size_t begin, std::size_t end)
              {
                if (error.Failed())
                  return;
                try
                {
                  body(begin, end);
                }
                catch (...)
                {
                  error.Keep(std::current_exception());
                }
              });
  error.Rethrow();
}

ParallelForFunction
MakeThreadParallelFor(unsigned threads)
{
  if (threads == 0)
  {
    threads = std::max(1u, std::thread::hardware_concurrency());
  }
  return [threads](std::size_t n, const RangeBody & body)
  {
    const std::size_t chunks = std::min<std::size_t>(threads, n);
    if (chunks <= 1)
    {
      if (n > 0)
        body(0, n);
      return;
    }
    ThreadPool::Instance().Run(chunks, [&](std::size_t c) { body(n * c / chunks, n * (c + 1) / chunks); });
  };
}

ParallelForFunction
ResolveParallelFor(const ParallelForFunction & parallelFor)
{
  if (!parallelFor)
    return MakeThreadParallelFor();
  return [parallelFor](std::size_t n, const RangeBody & body) { RunParallel(parallelFor, n, body); };
}

std::vector<double>
ParallelSum(const ParallelForFunction & parallelFor,
            std::size_t n,
            unsigned width,
            const std::function<void(std::size_t begin, std::size_t end, double * acc)> & body)
{
  // Fixed chunks: the summation order, hence the result, is independent of the thread count.
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(64, n));
  std::vector<double> partial(chunks * width, 0.0);
  RunParallel(parallelFor,
              chunks,
              [&](std::size_t c0, std::size_t c1)
              {
                for (std::size_t c = c0; c < c1; ++c)
                {
                  body(n * c / chunks, n * (c + 1) / chunks, &partial[c * width]);
                }
              });
  std::vector<double> total(width, 0.0);
  for (std::size_t c = 0; c < chunks; ++c)
  {
    for (unsigned k = 0; k < width; ++k)
    {
      total[k] += partial[c * width + k];
    }
  }
  return total;
}

} // namespace gpur
