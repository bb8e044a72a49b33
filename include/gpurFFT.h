// SPDX-License-Identifier: Apache-2.0
// Fast Fourier transforms for every module: one plan, two backends (FFTW on the
// CPU, VkFFT on an OpenCL device). OpenCL-free: device buffers are only declared.
#ifndef gpurFFT_h
#define gpurFFT_h

#include "gpurDevice.h"

#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

namespace gpur
{

template<typename T>
class DeviceBuffer;

/**
 * What a plan transforms. A RealToComplex plan's forward transform takes real
 * data to the non-redundant half of the spectrum (FFTW's r2c layout: along the
 * fastest axis nx/2+1 complex values) and its inverse takes that half spectrum
 * back to real data (c2r).
 */
enum class FFTKind
{
  ComplexToComplex,
  RealToComplex
};

/** Where a plan runs. */
enum class FFTBackend
{
  CPU,   ///< FFTW (fftw3 / fftw3f), multithreaded when libfftw3_threads is present
  OpenCL ///< VkFFT's OpenCL backend on one device
};

/**
 * A planned 1D or 2D discrete Fourier transform of `batch` arrays, in float or
 * double (T), on the CPU (FFTW) or an OpenCL device (VkFFT).
 *
 * Layout: `size` lists the axes fastest first ({nx} or {nx, ny}); the arrays
 * are contiguous, x fastest, and the batch is the slowest axis (array b starts
 * at b * nx * ny). Real arrays hold nx * ny values each, full spectra nx * ny
 * complex values, half spectra (RealToComplex) (nx/2+1) * ny.
 *
 * Normalisation, as numpy.fft (and FFTW plus a 1/N scale on the inverse): the
 * forward transform is unnormalised, X[k] = sum_j x[j] exp(-2 pi i j k / N),
 * and the inverse divides by N = nx * ny, so Inverse(Forward(x)) = x.
 *
 * Input arrays are never modified (where a library transform would overwrite
 * them, the plan works on a copy); input and output must not overlap, except
 * that a device ComplexToComplex transform may be in place (in == out).
 * A plan may be executed from one thread at a time.
 */
template<typename T>
class FFTPlan
{
public:
  /** Complex element: interleaved real and imaginary parts (as FFTW, VkFFT and C99). */
  using Complex = std::complex<T>;

  /**
   * A CPU (FFTW) plan. Throws InvalidArgument unless `size` has one or two
   * axes, each at least 1, and `batch` is at least 1.
   */
  FFTPlan(FFTKind kind, const std::vector<std::size_t> & size, std::size_t batch = 1);

  /**
   * An OpenCL (VkFFT) plan on `device`. Throws InvalidArgument for bad sizes,
   * an axis beyond FFTDeviceAxisLimit and, for double, on a device without fp64; OpenCLError or BuildError
   * when the device cannot build or run the transform.
   */
  FFTPlan(FFTKind kind, const std::vector<std::size_t> & size, std::size_t batch, const DeviceInfo & device);

  /** Releases the plan (and its device resources). */
  ~FFTPlan();
  /** Movable. */
  FFTPlan(FFTPlan &&) noexcept;
  /** Movable. */
  FFTPlan &
  operator=(FFTPlan &&) noexcept;
  FFTPlan(const FFTPlan &) = delete;
  FFTPlan &
  operator=(const FFTPlan &) = delete;

  /** The kind planned for. */
  FFTKind
  Kind() const;
  /** CPU or OpenCL. */
  FFTBackend
  Backend() const;
  /** The axes, fastest first. */
  const std::vector<std::size_t> &
  Size() const;
  /** The number of arrays transformed together. */
  std::size_t
  Batch() const;
  /** Elements of the spatial side, all batches (real values for RealToComplex, complex ones otherwise). */
  std::size_t
  SpatialElements() const;
  /** Complex elements of the spectral side, all batches ((nx/2+1) * ny * batch for RealToComplex). */
  std::size_t
  SpectralElements() const;

  /** Forward real-to-complex on host arrays (SpatialElements() in, SpectralElements() out). */
  void
  Forward(const T * in, Complex * out) const;
  /** Forward complex-to-complex on host arrays. */
  void
  Forward(const Complex * in, Complex * out) const;
  /** Inverse complex-to-real on host arrays (scaled by 1/N). */
  void
  Inverse(const Complex * in, T * out) const;
  /** Inverse complex-to-complex on host arrays (scaled by 1/N). */
  void
  Inverse(const Complex * in, Complex * out) const;

  /**
   * Forward real-to-complex on device buffers of this plan's device, enqueued
   * on its compute queue (DeviceContext::Queue(0)); returns without waiting.
   * Throws InvalidArgument for a CPU plan or buffers of the wrong size.
   */
  void
  Forward(const DeviceBuffer<T> & in, const DeviceBuffer<Complex> & out) const;
  /** Forward complex-to-complex on device buffers (as above; in == out allowed). */
  void
  Forward(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const;
  /** Inverse complex-to-real on device buffers (as above, scaled by 1/N). */
  void
  Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<T> & out) const;
  /** Inverse complex-to-complex on device buffers (as above, scaled by 1/N; in == out allowed). */
  void
  Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const;

  /**
   * In-place real-to-complex on one device buffer in FFTW's padded in-place
   * layout: each array's real rows of nx values stored 2 (nx/2+1) values
   * apart, the pitch of a half-spectrum row. ForwardInPlace leaves the half
   * spectrum there, InverseInPlace takes it back to padded real rows (scaled
   * by 1/N). No copy is made (Forward and Inverse copy into that layout
   * first): for pipelines whose own kernels write and read the padded rows.
   * The buffer holds at least SpectralElements(). Device RealToComplex plans
   * with nx >= 2 only (InvalidArgument otherwise); enqueued, nothing waits.
   */
  void
  ForwardInPlace(const DeviceBuffer<Complex> & data) const;
  /** See ForwardInPlace. */
  void
  InverseInPlace(const DeviceBuffer<Complex> & data) const;

private:
  class Impl;
  std::unique_ptr<Impl> m_Impl;
};

/**
 * The longest axis an OpenCL plan accepts on `device` in float (isDouble
 * false) or double: unlimited (SIZE_MAX) on GPUs; on CPU OpenCL drivers
 * 65536 points in float and 32768 in double. There VkFFT sizes its one-kernel
 * transforms by the 1 MiB of "local memory" such drivers report (PoCL), and
 * its kernels crash PoCL for some 1D lengths from 2^16 to 2^18 (measured:
 * 100000 and 2^17 in float, 2^16 in double); longer axes run on the CPU
 * plan (FFTW), which is faster there anyway.
 */
std::size_t
FFTDeviceAxisLimit(const DeviceInfo & device, bool isDouble);

/** True when every axis of `size` is within FFTDeviceAxisLimit(device, isDouble). */
bool
FFTDeviceSupports(const DeviceInfo & device, const std::vector<std::size_t> & size, bool isDouble);

extern template class FFTPlan<float>;
extern template class FFTPlan<double>;

} // namespace gpur

#endif
