// Small helpers shared by the PSCR module's sources (not installed).
#ifndef gpurPSCRInternal_h
#define gpurPSCRInternal_h

#include "gpurParallel.h"

#include <cstddef>
#include <exception>
#include <mutex>

namespace gpur
{
namespace pscr
{

/**
 * body(0, n) on this thread when `parallelFor` is null, else split by it. An
 * exception thrown by the body on a worker thread is carried to the caller
 * (the first one wins) instead of terminating the program.
 */
inline void
ForEachRange(const ParallelForFunction * parallelFor, std::size_t n, const RangeBody & body)
{
  if (n == 0)
  {
    return;
  }
  if (parallelFor == nullptr || n == 1)
  {
    body(0, n);
    return;
  }
  std::exception_ptr error;
  std::mutex mutex;
  (*parallelFor)(n,
                 [&](std::size_t begin, std::size_t end)
                 {
                   try
                   {
                     body(begin, end);
                   }
                   catch (...)
                   {
                     const std::lock_guard<std::mutex> lock(mutex);
                     if (!error)
                       error = std::current_exception();
                   }
                 });
  if (error)
  {
    std::rethrow_exception(error);
  }
}

} // namespace pscr
} // namespace gpur

#endif
