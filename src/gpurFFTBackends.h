// SPDX-License-Identifier: Apache-2.0
// The two transforms behind gpur::FFTPlan (gpurFFT.h): FFTW on host arrays and
// VkFFT on device buffers. Internal to GPURCore.
#ifndef gpurFFTBackends_h
#define gpurFFTBackends_h

#include "gpurFFT.h"

#include <complex>
#include <cstddef>
#include <memory>
#include <mutex>

namespace gpur
{

class DeviceContext;

/** The checked shape of a plan: nx fastest, ny (1 for 1D), batch slowest. */
struct FFTGeometry
{
  FFTKind kind = FFTKind::ComplexToComplex;
  std::size_t nx = 1;
  std::size_t ny = 1;
  std::size_t rank = 1; ///< 1 or 2 axes
  std::size_t batch = 1;

  /** Elements of one array (N, the inverse's divisor). */
  std::size_t
  Points() const
  {
    return nx * ny;
  }
  /** Complex values along x of a spectrum: nx/2+1 for RealToComplex, nx otherwise. */
  std::size_t
  SpectralRow() const
  {
    return kind == FFTKind::RealToComplex ? nx / 2 + 1 : nx;
  }
  /** Spatial elements, all batches. */
  std::size_t
  Spatial() const
  {
    return Points() * batch;
  }
  /** Spectral complex elements, all batches. */
  std::size_t
  Spectral() const
  {
    return SpectralRow() * ny * batch;
  }
};

/** The lock every FFTW plan creation and destruction holds (FFTW's planner is not thread-safe). */
std::mutex &
FFTWPlannerMutex();

/** FFTW plans (both directions) of one geometry on host arrays. */
template<typename T>
class FFTWTransform
{
public:
  using Complex = std::complex<T>;
  explicit FFTWTransform(const FFTGeometry & geometry);
  ~FFTWTransform();
  FFTWTransform(const FFTWTransform &) = delete;
  FFTWTransform &
  operator=(const FFTWTransform &) = delete;

  void
  Forward(const T * in, Complex * out) const;
  void
  Forward(const Complex * in, Complex * out) const;
  void
  Inverse(const Complex * in, T * out) const;
  void
  Inverse(const Complex * in, Complex * out) const;

private:
  struct Plans;
  FFTGeometry m_Geometry;
  std::unique_ptr<Plans> m_Plans;
};

/** A VkFFT application (both directions, in place) of one geometry on one device. */
template<typename T>
class VkFFTTransform
{
public:
  using Complex = std::complex<T>;
  VkFFTTransform(const FFTGeometry & geometry, const DeviceInfo & device);
  ~VkFFTTransform();
  VkFFTTransform(const VkFFTTransform &) = delete;
  VkFFTTransform &
  operator=(const VkFFTTransform &) = delete;

  /** The context whose queue 0 runs the transforms. */
  DeviceContext &
  Context() const;

  void
  Forward(const DeviceBuffer<T> & in, const DeviceBuffer<Complex> & out) const;
  void
  Forward(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const;
  void
  Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<T> & out) const;
  void
  Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const;
  /** The transform in place on a buffer of at least the spectrum's size (direction -1 forward, 1 inverse). */
  void
  InPlace(const DeviceBuffer<Complex> & data, int direction) const;

private:
  struct App;
  FFTGeometry m_Geometry;
  std::unique_ptr<App> m_App;
};

} // namespace gpur

#endif
