// SPDX-License-Identifier: Apache-2.0
// gpur::FFTPlan: checks the shape, then hands the work to FFTW (CPU) or VkFFT
// (OpenCL); see gpurFFTBackends.h. Errors of the OpenCL bindings become OpenCLError.
#include "gpurFFT.h"

#include "gpurBuffer.h"
#include "gpurContext.h"
#include "gpurError.h"
#include "gpurFFTBackends.h"
#include "gpurOpenCL.h" // TranslateCLErrors

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

  // Host arrays on an OpenCL plan: upload, transform, download (blocking).
  template<typename In, typename Out, typename Transform>
  void
  OnDevice(const In * in, std::size_t inCount, Out * out, std::size_t outCount, Transform transform) const
  {
    TranslateCLErrors(
      [&]
      {
        DeviceContext & context = device->Context();
        const DeviceBuffer<In> a(context, inCount);
        const DeviceBuffer<Out> b(context, outCount);
        a.Upload(context.Queue(0), in, inCount);
        transform(a, b);
        b.Download(context.Queue(0), out, outCount);
      });
  }
};

template<typename T>
FFTPlan<T>::FFTPlan(FFTKind kind, const std::vector<std::size_t> & size, std::size_t batch)
  : m_Impl(std::make_unique<Impl>(kind, size, batch))
{
  m_Impl->cpu = std::make_unique<FFTWTransform<T>>(m_Impl->geometry);
}

template<typename T>
FFTPlan<T>::FFTPlan(FFTKind kind, const std::vector<std::size_t> & size, std::size_t batch, const DeviceInfo & device)
  : m_Impl(std::make_unique<Impl>(kind, size, batch))
{
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
  m_Impl->RequireKind(FFTKind::RealToComplex, "Forward(real)");
  Impl::RequireDistinct(in, out);
  if (m_Impl->cpu)
  {
    return m_Impl->cpu->Forward(in, out);
  }
  m_Impl->OnDevice(in,
                   SpatialElements(),
                   out,
                   SpectralElements(),
                   [this](const auto & a, const auto & b) { m_Impl->device->Forward(a, b); });
}

template<typename T>
void
FFTPlan<T>::Forward(const Complex * in, Complex * out) const
{
  m_Impl->RequireKind(FFTKind::ComplexToComplex, "Forward(complex)");
  Impl::RequireDistinct(in, out);
  if (m_Impl->cpu)
  {
    return m_Impl->cpu->Forward(in, out);
  }
  m_Impl->OnDevice(in,
                   SpatialElements(),
                   out,
                   SpectralElements(),
                   [this](const auto & a, const auto & b) { m_Impl->device->Forward(a, b); });
}

template<typename T>
void
FFTPlan<T>::Inverse(const Complex * in, T * out) const
{
  m_Impl->RequireKind(FFTKind::RealToComplex, "Inverse(to real)");
  Impl::RequireDistinct(in, out);
  if (m_Impl->cpu)
  {
    return m_Impl->cpu->Inverse(in, out);
  }
  m_Impl->OnDevice(in,
                   SpectralElements(),
                   out,
                   SpatialElements(),
                   [this](const auto & a, const auto & b) { m_Impl->device->Inverse(a, b); });
}

template<typename T>
void
FFTPlan<T>::Inverse(const Complex * in, Complex * out) const
{
  m_Impl->RequireKind(FFTKind::ComplexToComplex, "Inverse(to complex)");
  Impl::RequireDistinct(in, out);
  if (m_Impl->cpu)
  {
    return m_Impl->cpu->Inverse(in, out);
  }
  m_Impl->OnDevice(in,
                   SpectralElements(),
                   out,
                   SpatialElements(),
                   [this](const auto & a, const auto & b) { m_Impl->device->Inverse(a, b); });
}

template<typename T>
void
FFTPlan<T>::Forward(const DeviceBuffer<T> & in, const DeviceBuffer<Complex> & out) const
{
  m_Impl->RequireKind(FFTKind::RealToComplex, "Forward(real)");
  TranslateCLErrors([&] { m_Impl->Device("Forward").Forward(in, out); });
}

template<typename T>
void
FFTPlan<T>::Forward(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const
{
  m_Impl->RequireKind(FFTKind::ComplexToComplex, "Forward(complex)");
  TranslateCLErrors([&] { m_Impl->Device("Forward").Forward(in, out); });
}

template<typename T>
void
FFTPlan<T>::Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<T> & out) const
{
  m_Impl->RequireKind(FFTKind::RealToComplex, "Inverse(to real)");
  TranslateCLErrors([&] { m_Impl->Device("Inverse").Inverse(in, out); });
}

template<typename T>
void
FFTPlan<T>::Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const
{
  m_Impl->RequireKind(FFTKind::ComplexToComplex, "Inverse(to complex)");
  TranslateCLErrors([&] { m_Impl->Device("Inverse").Inverse(in, out); });
}

template class FFTPlan<float>;
template class FFTPlan<double>;

} // namespace gpur
