// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the PSCR module's sources (not installed).
#ifndef gpurPSCRInternal_h
#define gpurPSCRInternal_h

#include "gpurParallel.h"

#include <cstddef>

namespace gpur
{
namespace pscr
{

/**
 * body(0, n) on this thread when `parallelFor` is null, else split by it, with
 * an exception thrown on a worker thread carried to the caller (RunParallel).
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
  RunParallel(*parallelFor, n, body);
}

} // namespace pscr
} // namespace gpur

#endif
