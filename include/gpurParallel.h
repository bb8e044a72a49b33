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
 * How a CPU backend runs a parallel loop. The default uses std::thread; the
 * ITK adapters install one that forwards to itk::MultiThreaderBase, so the
 * CPU reference obeys ITK's global thread settings.
 */
using ParallelForFunction = std::function<void(std::size_t n, const RangeBody & body)>;

/** std::thread implementation with `threads` workers (0: hardware concurrency). */
ParallelForFunction
MakeThreadParallelFor(unsigned threads = 0);

/** The caller's parallel loop, or the default one (MakeThreadParallelFor()) when it is empty. */
inline ParallelForFunction
ResolveParallelFor(const ParallelForFunction & parallelFor)
{
  return parallelFor ? parallelFor : MakeThreadParallelFor();
}

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
