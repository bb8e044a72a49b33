// SPDX-License-Identifier: Apache-2.0
// Multithreading of the CPU reference backends, without ITK types.
#ifndef gpurParallel_h
#define gpurParallel_h

#include <cstddef>
#include <functional>
#include <vector>

namespace gpur
{

/** Runs body(begin, end) on disjoint chunks of [0, n) in parallel. */
using RangeBody = std::function<void(std::size_t begin, std::size_t end)>;

/**
 * How a CPU backend runs a parallel loop. The default runs on the process's
 * persistent thread pool; the ITK adapters install one that forwards to
 * itk::MultiThreaderBase, so the CPU reference obeys ITK's global thread settings.
 */
using ParallelForFunction = std::function<void(std::size_t n, const RangeBody & body)>;

/**
 * The loop on the process's persistent thread pool (hardware concurrency - 1
 * workers, started on first use, plus the calling thread, which takes its
 * share of the chunks). [0, n) is cut into min(threads, n) contiguous chunks
 * (0: hardware concurrency), whatever the pool's size, so a body whose result
 * depends on the chunking gives the same result on any machine for the same
 * `threads`. An exception thrown by the body on any thread is rethrown to the
 * caller (the first one; chunks not yet started are skipped). Safe to call from
 * several threads at once and from inside a body (a nested loop): a caller
 * always runs the chunks nobody else has taken, so no call waits on a queue.
 */
ParallelForFunction
MakeThreadParallelFor(unsigned threads = 0);

/**
 * The loop an engine runs: `parallelFor`, with any exception thrown by the
 * body on one of its worker threads carried back to the caller (a loop such as
 * ITK's may not do it), or MakeThreadParallelFor() when it is empty.
 */
ParallelForFunction
ResolveParallelFor(const ParallelForFunction & parallelFor);

/**
 * parallelFor(n, body) (MakeThreadParallelFor() when it is empty), with any
 * exception thrown by the body on a worker thread rethrown here: the first one;
 * chunks that start after it return at once.
 */
void
RunParallel(const ParallelForFunction & parallelFor, std::size_t n, const RangeBody & body);

/**
 * Sums per-chunk values computed by `body(begin, end, acc)` in double; `acc`
 * holds `width` accumulators. The chunking is fixed (64 chunks at most), so the
 * result does not depend on the number of threads.
 */
std::vector<double>
ParallelSum(const ParallelForFunction & parallelFor,
            std::size_t n,
            unsigned width,
            const std::function<void(std::size_t begin, std::size_t end, double * acc)> & body);

} // namespace gpur

#endif
