#include "gpurParallel.h"

#include <algorithm>
#include <thread>

namespace gpur
{

ParallelForFunction
MakeThreadParallelFor(unsigned threads)
{
  if (threads == 0)
  {
    threads = std::max(1u, std::thread::hardware_concurrency());
  }
  return [threads](std::size_t n, const RangeBody & body)
  {
    const std::size_t workers = std::min<std::size_t>(threads, n);
    if (workers <= 1)
    {
      if (n > 0)
        body(0, n);
      return;
    }
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (std::size_t w = 1; w < workers; ++w)
    {
      pool.emplace_back([&body, w, workers, n] { body(n * w / workers, n * (w + 1) / workers); });
    }
    body(0, n / workers);
    for (auto & t : pool)
    {
      t.join();
    }
  };
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
  parallelFor(chunks,
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
