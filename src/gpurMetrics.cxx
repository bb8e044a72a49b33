#include "gpurMetrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpur
{

template<typename T>
double
MeanSquaredError(const T * a, const T * b, std::size_t n)
{
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    s += d * d;
  }
  return n > 0 ? s / static_cast<double>(n) : 0.0;
}

template<typename T>
double
PeakSignalToNoiseRatio(const T * test, const T * reference, std::size_t n, double peak)
{
  const double mse = MeanSquaredError(test, reference, n);
  return mse > 0.0 ? 10.0 * std::log10(peak * peak / mse) : std::numeric_limits<double>::infinity();
}

template<typename T>
double
MaxAbsDifference(const T * a, const T * b, std::size_t n)
{
  double m = 0.0;
  for (std::size_t i = 0; i < n; ++i)
  {
    m = std::max(m, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return m;
}

#define GPUR_INSTANTIATE_METRICS(T)                                                                                    \
  template double MeanSquaredError(const T *, const T *, std::size_t);                                                 \
  template double PeakSignalToNoiseRatio(const T *, const T *, std::size_t, double);                                   \
  template double MaxAbsDifference(const T *, const T *, std::size_t);
GPUR_INSTANTIATE_METRICS(float)
GPUR_INSTANTIATE_METRICS(double)
#undef GPUR_INSTANTIATE_METRICS

} // namespace gpur
