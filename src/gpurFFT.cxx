// SPDX-License-Identifier: Apache-2.0
// gpur::FFTPlan: checks the shape, then hands the work to FFTW (CPU) or VkFFT
// (OpenCL); see gpurFFTBackends.h. Errors of the OpenCL bindings become OpenCLError.
#include "gpurFFT.h"

#include "gpurBuffer.h"
#include "gpurContext.h"
#include "gpurError.h"
#include "gpurFFTBackends.h"
#include "gpurOpenCL.h" // TranslateCLErrors

#include <algorithm>
#include <limits>
#include <string>

namespace gpur
{
namespace
{

FFTGeometry
CheckedGeometry(FFTKind kind, const std::vector<std::size_t> & size, std::size_t batch)
{
  if (size.empty() || size.size() > 2)
  {
    throw InvalidArgument("FFTPlan: a transform has 1 or 2 axes, got " + std::to_string(size.size()));
  }
  for (const std::size_t n : size)
  {
    if (n == 0)
    {
      throw InvalidArgument("FFTPlan: every axis needs at least 1 point");
    }
  }
  if (batch == 0)
  {
    throw InvalidArgument("FFTPlan: the batch needs at least 1 array");
  }
  FFTGeometry g;
  g.kind = kind;
  g.rank = size.size();
  g.nx = size[0];
  g.ny = g.rank == 2 ? size[1] : 1;
  g.batch = batch;
  const std::size_t limit = std::numeric_limits<std::size_t>::max() / 16;
  if (g.nx > limit / g.ny || g.Points() > limit / g.batch)
  {
    throw InvalidArgument("FFTPlan: the transform is too large to address");
  }
  return g;
}

} // namespace

template<typename T>
class FFTPlan<T>::Impl
{
public:
  Impl(FFTKind kind, const std::vector<std::size_t> & size, std::size_t batch)
    : geometry(CheckedGeometry(kind, size, batch))
    , size(size)
  {
  }

  const FFTGeometry geometry;
  const std::vector<std::size_t> size;
  std::unique_ptr<FFTWTransform<T>> cpu;
  std::unique_ptr<VkFFTTransform<T>> device;

  void
  RequireKind(FFTKind kind, const char * call) const
  {
    if (geometry.kind != kind)
    {
      throw InvalidArgument(std::string("FFTPlan: ") + call + " needs a " +
                            (kind == FFTKind::RealToComplex ? "RealToComplex" : "ComplexToComplex") +
                            " plan, this one is " +
                            (geometry.kind == FFTKind::RealToComplex ? "RealToComplex" : "ComplexToComplex"));
    }
  }

  // The CPU plans run out of place (FFTW plans in-place and out-of-place transforms apart).
  static void
  RequireDistinct(const void * in, const void * out)
  {
    if (in == out)
    {
      throw InvalidArgument("FFTPlan: host input and output must be different arrays");
    }
  }

  const VkFFTTransform<T> &
  Device(const char * call) const
  {
    if (!device)
    {
      throw InvalidArgument(std::string("FFTPlan: ") + call +
                            " on device buffers needs an OpenCL plan (this one runs on the CPU)");
    }
    return *device;
  }

  // Runs the transform of one direction on a backend's pair of arguments.
  template<bool IsForward, typename Backend, typename In, typename Out>
  static void
  Transform(const Backend & backend, In && in, Out && out)
  {
    if constexpr (IsForward)
    {
      backend.Forward(in, out);
    }
    else
    {
      backend.Inverse(in, out);
    }
  }

  // Host arrays: FFTW, or on an OpenCL plan upload, transform, download (blocking).
  template<bool IsForward, typename In, typename Out>
  void
  OnHost(FFTKind kind, const char * call, const In * in, Out * out) const
  {
    RequireKind(kind, call);
    RequireDistinct(in, out);
    if (cpu)
    {
      return Transform<IsForward>(*cpu, in, out);
    }
    const std::size_t inCount = IsForward ? geometry.Spatial() : geometry.Spectral();
    const std::size_t outCount = IsForward ? geometry.Spectral() : geometry.Spatial();
    TranslateCLErrors(
      [&]
      {
        DeviceContext & context = device->Context();
        const DeviceBuffer<In> a(context, inCount);
        const DeviceBuffer<Out> b(context, outCount);
        a.Upload(context.Queue(0), in, inCount);
        Transform<IsForward>(*device, a, b);
        b.Download(context.Queue(0), out, outCount);
      });
  }

  // The padded in-place real transforms: an OpenCL RealToComplex plan with nx >= 2.
  void
  InPlacePadded(const DeviceBuffer<Complex> & data, int direction, const char * call) const
  {
    RequireKind(FFTKind::RealToComplex, call);
    const VkFFTTransform<T> & transform = Device(call);
    if (geometry.nx < 2)
    {
      throw InvalidArgument(std::string("FFTPlan: ") + call + " needs nx >= 2 (this plan's nx is 1)");
    }
    TranslateCLErrors([&] { transform.InPlace(data, direction); });
  }

  // Device buffers: an OpenCL plan only.
  template<bool IsForward, typename In, typename Out>
  void
  OnDevice(FFTKind kind, const char * call, const DeviceBuffer<In> & in, const DeviceBuffer<Out> & out) const
  {
    RequireKind(kind, call);
    const VkFFTTransform<T> & transform = Device(call);
    TranslateCLErrors([&] { Transform<IsForward>(transform, in, out); });
  }
};

template<typename T>
FFTPlan<T>::FFTPlan(FFTKind kind, const std::vector<std::size_t> & size, std::size_t batch)
  : m_Impl(std::make_unique<Impl>(kind, size, batch))
{
  m_Impl->cpu = std::make_unique<FFTWTransform<T>>(m_Impl->geometry);
}

std::size_t
FFTDeviceAxisLimit(const DeviceInfo & device, bool isDouble)
{
  if (device.type != DeviceType::CPU)
  {
    return std::numeric_limits<std::size_t>::max();
  }
  return isDouble ? std::size_t(1) << 15 : std::size_t(1) << 16;
}

bool
FFTDeviceSupports(const DeviceInfo & device, const std::vector<std::size_t> & size, bool isDouble)
{
  const std::size_t limit = FFTDeviceAxisLimit(device, isDouble);
  return std::all_of(size.begin(), size.end(), [limit](std::size_t n) { return n <= limit; });
}

template<typename T>
FFTPlan<T>::FFTPlan(FFTKind kind, const std::vector<std::size_t> & size, std::size_t batch, const DeviceInfo & device)
  : m_Impl(std::make_unique<Impl>(kind, size, batch))
{
  const bool isDouble = sizeof(T) == 8;
  if (!FFTDeviceSupports(device, size, isDouble))
  {
    throw InvalidArgument("FFTPlan: an axis of more than " + std::to_string(FFTDeviceAxisLimit(device, isDouble)) +
                          " points on the CPU OpenCL device " + device.name +
                          " (VkFFT's kernels for such lengths crash CPU OpenCL drivers); use the CPU backend (FFTW)");
  }
  TranslateCLErrors([&] { m_Impl->device = std::make_unique<VkFFTTransform<T>>(m_Impl->geometry, device); });
}

template<typename T>
FFTPlan<T>::~FFTPlan() = default;
template<typename T>
FFTPlan<T>::FFTPlan(FFTPlan &&) noexcept = default;
template<typename T>
FFTPlan<T> &
FFTPlan<T>::operator=(FFTPlan &&) noexcept = default;

template<typename T>
FFTKind
FFTPlan<T>::Kind() const
{
  return m_Impl->geometry.kind;
}

template<typename T>
FFTBackend
FFTPlan<T>::Backend() const
{
  return m_Impl->device ? FFTBackend::OpenCL : FFTBackend::CPU;
}

template<typename T>
const std::vector<std::size_t> &
FFTPlan<T>::Size() const
{
  return m_Impl->size;
}

template<typename T>
std::size_t
FFTPlan<T>::Batch() const
{
  return m_Impl->geometry.batch;
}

template<typename T>
std::size_t
FFTPlan<T>::SpatialElements() const
{
  return m_Impl->geometry.Spatial();
}

template<typename T>
std::size_t
FFTPlan<T>::SpectralElements() const
{
  return m_Impl->geometry.Spectral();
}

template<typename T>
void
FFTPlan<T>::Forward(const T * in, Complex * out) const
{
  m_Impl->template OnHost<true>(FFTKind::RealToComplex, "Forward(real)", in, out);
}

template<typename T>
void
FFTPlan<T>::Forward(const Complex * in, Complex * out) const
{
  m_Impl->template OnHost<true>(FFTKind::ComplexToComplex, "Forward(complex)", in, out);
}

template<typename T>
void
FFTPlan<T>::Inverse(const Complex * in, T * out) const
{
  m_Impl->template OnHost<false>(FFTKind::RealToComplex, "Inverse(to real)", in, out);
}

template<typename T>
void
FFTPlan<T>::Inverse(const Complex * in, Complex * out) const
{
  m_Impl->template OnHost<false>(FFTKind::ComplexToComplex, "Inverse(to complex)", in, out);
}

template<typename T>
void
FFTPlan<T>::Forward(const DeviceBuffer<T> & in, const DeviceBuffer<Complex> & out) const
{
  m_Impl->template OnDevice<true>(FFTKind::RealToComplex, "Forward(real)", in, out);
}

template<typename T>
void
FFTPlan<T>::Forward(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const
{
  m_Impl->template OnDevice<true>(FFTKind::ComplexToComplex, "Forward(complex)", in, out);
}

template<typename T>
void
FFTPlan<T>::Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<T> & out) const
{
  m_Impl->template OnDevice<false>(FFTKind::RealToComplex, "Inverse(to real)", in, out);
}

template<typename T>
void
FFTPlan<T>::Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const
{
  m_Impl->template OnDevice<false>(FFTKind::ComplexToComplex, "Inverse(to complex)", in, out);
}

template<typename T>
void
FFTPlan<T>::ForwardInPlace(const DeviceBuffer<Complex> & data) const
{
  m_Impl->InPlacePadded(data, -1, "ForwardInPlace");
}

template<typename T>
void
FFTPlan<T>::InverseInPlace(const DeviceBuffer<Complex> & data) const
{
  m_Impl->InPlacePadded(data, 1, "InverseInPlace");
}

template class FFTPlan<float>;
template class FFTPlan<double>;

} // namespace gpur
