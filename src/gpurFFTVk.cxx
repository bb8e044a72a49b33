// SPDX-License-Identifier: Apache-2.0
// The OpenCL side of gpur::FFTPlan: VkFFT [Tolmachev2023] through its OpenCL
// backend (VKFFT_BACKEND=3, set for this file by src/CMakeLists.txt). VkFFT
// generates and builds its kernels at plan time, radix 2..13 and Bluestein's
// algorithm for other primes, so every size is accepted.
#include "gpurFFTBackends.h"

#include "gpurBuffer.h"
#include "gpurContext.h"
#include "gpurError.h"

#include <vkFFT.h>

#include <string>
#include <type_traits>

namespace gpur
{
namespace
{

// VkFFT's results are not OpenCL codes; OpenCLError carries the nearest one and
// the message names VkFFT's own.
[[noreturn]] void
ThrowVkFFT(VkFFTResult result, const char * what)
{
  const std::string message =
    std::string("FFTPlan: VkFFT ") + what + " failed: VkFFT error " + std::to_string(static_cast<int>(result));
  if (result >= VKFFT_ERROR_FAILED_SHADER_PREPROCESS && result <= VKFFT_ERROR_FAILED_SHADER_LINK)
  {
    throw BuildError(message + " (kernel build)", CL_BUILD_PROGRAM_FAILURE);
  }
  if (result >= VKFFT_ERROR_UNSUPPORTED_RADIX && result <= VKFFT_ERROR_UNSUPPORTED_FFT_OMIT)
  {
    throw InvalidArgument(message + " (size not supported by VkFFT)");
  }
  if (result == VKFFT_ERROR_MALLOC_FAILED)
  {
    throw OpenCLError(message + " (host memory)", CL_OUT_OF_HOST_MEMORY);
  }
  if (result == VKFFT_ERROR_FAILED_TO_ALLOCATE)
  {
    throw OpenCLError(message + " (device memory)", CL_MEM_OBJECT_ALLOCATION_FAILURE);
  }
  throw OpenCLError(message, CL_INVALID_OPERATION);
}

// Copies `rows` rows of `width` bytes between buffers whose rows are `srcPitch`
// and `dstPitch` bytes apart: between the dense real layout (nx values a row)
// and the padded in-place layout of VkFFT's r2c (nx/2+1 complex values a row).
void
CopyRows(const cl::CommandQueue & queue,
         const cl::Buffer & src,
         std::size_t srcPitch,
         const cl::Buffer & dst,
         std::size_t dstPitch,
         std::size_t width,
         std::size_t rows)
{
  queue.enqueueCopyBufferRect(
    src, dst, { 0, 0, 0 }, { 0, 0, 0 }, { width, rows, 1 }, srcPitch, srcPitch * rows, dstPitch, dstPitch * rows);
}

template<typename V>
void
CheckCount(const DeviceBuffer<V> & buffer, std::size_t count, const char * what)
{
  if (buffer.Size() != count)
  {
    throw InvalidArgument(std::string("FFTPlan: the ") + what + " buffer holds " + std::to_string(buffer.Size()) +
                          " elements, the plan needs " + std::to_string(count));
  }
}

} // namespace

template<typename T>
struct VkFFTTransform<T>::App
{
  std::shared_ptr<DeviceContext> context;
  cl_device_id device = nullptr;
  cl_context clContext = nullptr;
  uint64_t bytes = 0;
  mutable VkFFTApplication app = {}; // VkFFTAppend takes it non-const
  bool initialized = false;
  // The inverse of a RealToComplex plan works in place on a copy of the spectrum.
  std::unique_ptr<DeviceBuffer<Complex>> scratch;
  // VkFFT refuses axes of length 1 (the DFT of one point is the identity), so
  // they are dropped: {nx, 1} runs as 1D, {1, 1} runs no transform, and a real
  // {1, ny} runs as a complex transform along y of the zero-padded columns
  // (FFTW's c2r of that shape is the real part of the complex inverse).
  bool identity = false;
  std::size_t points = 0; // complex values of all arrays, for ComplexToComplex

  void
  Run(const cl::Buffer & buffer, int direction) const
  {
    if (identity)
    {
      return;
    }
    cl_command_queue queue = context->Queue(0)();
    cl_mem mem = buffer();
    VkFFTLaunchParams launch = {};
    launch.commandQueue = &queue;
    launch.buffer = &mem;
    const VkFFTResult result = VkFFTAppend(&app, direction, &launch);
    if (result != VKFFT_SUCCESS)
    {
      ThrowVkFFT(result, "launch");
    }
  }

  // Complex to complex: the output takes a copy of the input (unless they are
  // one buffer) and is transformed in place.
  void
  InPlace(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out, int direction) const
  {
    CheckCount(in, points, "complex input");
    CheckCount(out, points, "complex output");
    if (&in != &out)
    {
      out.CopyFrom(context->Queue(0), in);
    }
    Run(out.Get(), direction);
  }
};

template<typename T>
VkFFTTransform<T>::VkFFTTransform(const FFTGeometry & geometry, const DeviceInfo & device)
  : m_Geometry(geometry)
  , m_App(std::make_unique<App>())
{
  const bool isDouble = std::is_same<T, double>::value;
  if (isDouble)
  {
    RequireDouble(device, "a double-precision FFT");
  }
  App & a = *m_App;
  a.context = DeviceContext::Get(device);
  a.device = a.context->Device()();
  a.clContext = a.context->Context()();
  a.bytes = m_Geometry.Spectral() * sizeof(Complex);
  a.points = m_Geometry.Spatial();
  if (a.bytes > a.context->Info().maxAllocation)
  {
    throw InvalidArgument("FFTPlan: a spectrum of " + std::to_string(a.bytes) +
                          " bytes exceeds the largest allocation of " + a.context->Info().name);
  }
  const FFTGeometry & g = m_Geometry;
  a.identity = g.Points() == 1;
  if (a.identity)
  {
    return;
  }
  VkFFTConfiguration config = {};
  config.FFTdim = g.nx > 1 && g.ny > 1 ? 2 : 1;
  config.size[0] = g.nx > 1 ? g.nx : g.ny;
  config.size[1] = config.FFTdim == 2 ? g.ny : 1;
  config.numberBatches = g.batch;
  config.performR2C = g.kind == FFTKind::RealToComplex && g.nx > 1 ? 1 : 0;
  config.normalize = 1; // the inverse divides by N, as FFTPlan documents
  config.doublePrecision = isDouble ? 1 : 0;
  config.device = &a.device;
  config.context = &a.clContext;
  config.bufferSize = &a.bytes;
  const VkFFTResult result = initializeVkFFT(&a.app, config);
  if (result != VKFFT_SUCCESS)
  {
    deleteVkFFT(&a.app);
    ThrowVkFFT(result, "plan");
  }
  a.initialized = true;
}

template<typename T>
VkFFTTransform<T>::~VkFFTTransform()
{
  if (m_App->initialized)
  {
    deleteVkFFT(&m_App->app);
  }
}

template<typename T>
DeviceContext &
VkFFTTransform<T>::Context() const
{
  return *m_App->context;
}

template<typename T>
void
VkFFTTransform<T>::Forward(const DeviceBuffer<T> & in, const DeviceBuffer<Complex> & out) const
{
  CheckCount(in, m_Geometry.Spatial(), "real input");
  CheckCount(out, m_Geometry.Spectral(), "spectrum output");
  const cl::CommandQueue & queue = m_App->context->Queue(0);
  if (m_Geometry.nx == 1)
  {
    out.Fill(queue, Complex(0)); // the imaginary parts the row copy leaves out
  }
  CopyRows(queue,
           in.Get(),
           m_Geometry.nx * sizeof(T),
           out.Get(),
           m_Geometry.SpectralRow() * sizeof(Complex),
           m_Geometry.nx * sizeof(T),
           m_Geometry.ny * m_Geometry.batch);
  m_App->Run(out.Get(), -1);
}

template<typename T>
void
VkFFTTransform<T>::Forward(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const
{
  m_App->InPlace(in, out, -1);
}

template<typename T>
void
VkFFTTransform<T>::Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<T> & out) const
{
  CheckCount(in, m_Geometry.Spectral(), "spectrum input");
  CheckCount(out, m_Geometry.Spatial(), "real output");
  const cl::CommandQueue & queue = m_App->context->Queue(0);
  if (!m_App->scratch) // made on first use: in-place callers (InPlace) never need it
  {
    m_App->scratch = std::make_unique<DeviceBuffer<Complex>>(*m_App->context, m_Geometry.Spectral());
  }
  m_App->scratch->CopyFrom(queue, in);
  m_App->Run(m_App->scratch->Get(), 1);
  CopyRows(queue,
           m_App->scratch->Get(),
           m_Geometry.SpectralRow() * sizeof(Complex),
           out.Get(),
           m_Geometry.nx * sizeof(T),
           m_Geometry.nx * sizeof(T),
           m_Geometry.ny * m_Geometry.batch);
}

template<typename T>
void
VkFFTTransform<T>::Inverse(const DeviceBuffer<Complex> & in, const DeviceBuffer<Complex> & out) const
{
  m_App->InPlace(in, out, 1);
}

template<typename T>
void
VkFFTTransform<T>::InPlace(const DeviceBuffer<Complex> & data, int direction) const
{
  if (data.Size() < m_Geometry.Spectral())
  {
    throw InvalidArgument("FFTPlan: the in-place buffer holds " + std::to_string(data.Size()) +
                          " complex elements, the plan needs at least " + std::to_string(m_Geometry.Spectral()));
  }
  m_App->Run(data.Get(), direction);
}

template class VkFFTTransform<float>;
template class VkFFTTransform<double>;

} // namespace gpur
