// Image quality metrics shared by tests, examples and benchmarks.
#ifndef gpurMetrics_h
#define gpurMetrics_h

#include <cstddef>

namespace gpur
{

/** Mean squared error of two arrays of n values. */
template<typename T>
double
MeanSquaredError(const T * a, const T * b, std::size_t n);

/** PSNR in dB: 10 log10(peak^2 / MSE); +inf when the arrays are equal. */
template<typename T>
double
PeakSignalToNoiseRatio(const T * test, const T * reference, std::size_t n, double peak);

/** Largest |a - b|. */
template<typename T>
double
MaxAbsDifference(const T * a, const T * b, std::size_t n);

} // namespace gpur

#endif
