// SPDX-License-Identifier: Apache-2.0
// Tests of gpur::FFTPlan (gpurFFT.h): FFTW (CPU) and VkFFT (OpenCL) against a
// direct O(n^2) DFT in long double, against each other, the round trip and
// Parseval's identity, for every kind, 1D and 2D, float and double, batched,
// at sizes 1, even, odd and prime.
#include "gpurBuffer.h"
#include "gpurContext.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurFFT.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

using gpur::FFTKind;
using gpur::FFTPlan;
using LComplex = std::complex<long double>;

struct Case
{
  std::vector<std::size_t> size; // fastest first
  std::size_t batch;
};

// 1D: 1, prime 7, 64, 100, prime 127; 2D: prime x even, axes of 1; batched along the slowest axis.
const std::vector<Case> kCases = { { { 1 }, 1 },    { { 7 }, 1 },      { { 64 }, 1 },      { { 100 }, 1 },
                                   { { 127 }, 1 },  { { 100 }, 3 },    { { 127, 96 }, 1 }, { { 7, 1 }, 1 },
                                   { { 1, 7 }, 1 }, { { 64, 64 }, 1 }, { { 7, 5 }, 2 },    { { 100, 6 }, 3 } };

std::string
Name(const Case & c, FFTKind kind, const char * type)
{
  std::string name = kind == FFTKind::RealToComplex ? "r2c " : "c2c ";
  name += type;
  name += " " + std::to_string(c.size[0]);
  if (c.size.size() == 2)
  {
    name += "x" + std::to_string(c.size[1]);
  }
  return name + " batch " + std::to_string(c.batch);
}

// The exact DFT (sign -1 forward, unnormalised) of `batch` arrays of nx * ny
// complex values, axis by axis, in long double, with exact twiddle indices.
std::vector<LComplex>
DirectDFT(std::vector<LComplex> data, std::size_t nx, std::size_t ny, std::size_t batch, int sign)
{
  const long double pi = 3.141592653589793238462643383279502884L;
  auto axis = [&](std::size_t n, std::size_t stride, std::size_t count, auto start)
  {
    std::vector<LComplex> w(n), line(n);
    for (std::size_t k = 0; k < n; ++k)
    {
      w[k] = std::polar(1.0L, sign * 2 * pi * static_cast<long double>(k) / static_cast<long double>(n));
    }
    for (std::size_t l = 0; l < count; ++l)
    {
      const std::size_t base = start(l);
      for (std::size_t k = 0; k < n; ++k)
      {
        LComplex sum = 0;
        for (std::size_t j = 0; j < n; ++j)
        {
          sum += data[base + j * stride] * w[(j * k) % n];
        }
        line[k] = sum;
      }
      for (std::size_t k = 0; k < n; ++k)
      {
        data[base + k * stride] = line[k];
      }
    }
  };
  axis(nx, 1, ny * batch, [&](std::size_t l) { return l * nx; });
  axis(ny, nx, nx * batch, [&](std::size_t l) { return (l / nx) * nx * ny + l % nx; });
  return data;
}

// ||a - b||_2 / ||b||_2 over complex (or real) arrays.
template<typename A>
double
RelativeError(const std::vector<A> & a, const std::vector<LComplex> & b)
{
  long double num = 0, den = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
  {
    num += std::norm(LComplex(a[i]) - b[i]);
    den += std::norm(b[i]);
  }
  return static_cast<double>(std::sqrt(num / den));
}

// The bound of every comparison: c * eps * log2(N) relative to the norm (an FFT's
// normwise error grows like eps * log2 N; c = 2 covers FFTW's and VkFFT's radix
// and Bluestein (prime) paths with room, measured values are printed).
template<typename T>
double
Bound(std::size_t points)
{
  return 2.0 * std::numeric_limits<T>::epsilon() * std::max(1.0, std::log2(static_cast<double>(points)));
}

bool
HaveDevice(bool isDouble)
{
  return gpur::HaveOpenCLDevice() && (!isDouble || gpur::SelectDevices().front().fp64);
}

// One case on one plan: forward and inverse vs the exact DFT, round trip, Parseval.
template<typename T>
void
CheckPlan(const FFTPlan<T> & plan, const Case & c, const std::string & label)
{
  using Complex = std::complex<T>;
  const std::size_t nx = c.size[0], ny = c.size.size() == 2 ? c.size[1] : 1, points = nx * ny;
  const bool real = plan.Kind() == FFTKind::RealToComplex;
  const std::size_t half = real ? nx / 2 + 1 : nx;
  std::mt19937 rng(static_cast<unsigned>(points * 31 + c.batch));
  std::uniform_real_distribution<T> d(-1, 1);

  std::vector<T> x(plan.SpatialElements());
  std::vector<Complex> z(plan.SpatialElements());
  std::vector<LComplex> exactIn(plan.SpatialElements());
  for (std::size_t i = 0; i < exactIn.size(); ++i)
  {
    x[i] = d(rng);
    z[i] = Complex(x[i], real ? T(0) : d(rng));
    exactIn[i] = LComplex(z[i]);
  }
  const std::vector<LComplex> exactFull = DirectDFT(exactIn, nx, ny, c.batch, -1);
  std::vector<LComplex> exact(plan.SpectralElements());
  for (std::size_t r = 0; r < ny * c.batch; ++r)
  {
    for (std::size_t k = 0; k < half; ++k)
    {
      exact[r * half + k] = exactFull[r * nx + k];
    }
  }

  std::vector<Complex> spectrum(plan.SpectralElements());
  real ? plan.Forward(x.data(), spectrum.data()) : plan.Forward(z.data(), spectrum.data());
  const double forward = RelativeError(spectrum, exact);

  // The inverse of the exact spectrum, rounded to T, against the input.
  std::vector<Complex> exactRounded(exact.size());
  for (std::size_t i = 0; i < exact.size(); ++i)
  {
    exactRounded[i] = Complex(static_cast<T>(exact[i].real()), static_cast<T>(exact[i].imag()));
  }
  std::vector<T> xBack(x.size());
  std::vector<Complex> zBack(z.size());
  real ? plan.Inverse(exactRounded.data(), xBack.data()) : plan.Inverse(exactRounded.data(), zBack.data());
  const double inverse = real ? RelativeError(xBack, exactIn) : RelativeError(zBack, exactIn);

  // Round trip through the plan's own spectrum (the input must be left intact).
  const std::vector<Complex> spectrumCopy = spectrum;
  real ? plan.Inverse(spectrum.data(), xBack.data()) : plan.Inverse(spectrum.data(), zBack.data());
  EXPECT_EQ(spectrum, spectrumCopy) << label << ": the inverse changed its input";
  const double roundTrip = real ? RelativeError(xBack, exactIn) : RelativeError(zBack, exactIn);

  // Parseval: N sum |x|^2 = sum |X|^2 over the full spectrum (a half spectrum
  // counts its columns 1 .. ceil(nx/2)-1 twice, the mirror images they stand for).
  long double energyIn = 0, energyOut = 0;
  for (const LComplex & v : exactIn)
  {
    energyIn += std::norm(v);
  }
  for (std::size_t i = 0; i < spectrum.size(); ++i)
  {
    const std::size_t k = i % half;
    const bool mirrored = real && k > 0 && 2 * k < nx;
    energyOut += (mirrored ? 2 : 1) * std::norm(LComplex(spectrum[i]));
  }
  const double parseval = static_cast<double>(std::abs(energyOut / (energyIn * points) - 1));

  const double bound = Bound<T>(points);
  std::printf("%-34s %-6s forward %.2e inverse %.2e round trip %.2e Parseval %.2e (bound %.2e)\n",
              label.c_str(),
              plan.Backend() == gpur::FFTBackend::CPU ? "FFTW" : "VkFFT",
              forward,
              inverse,
              roundTrip,
              parseval,
              bound);
  EXPECT_LE(forward, bound) << label;
  EXPECT_LE(inverse, bound) << label;
  EXPECT_LE(roundTrip, 2 * bound) << label;
  EXPECT_LE(parseval, 2 * bound) << label;
}

template<typename T>
void
CheckAllCases(const char * type)
{
  for (const FFTKind kind : { FFTKind::ComplexToComplex, FFTKind::RealToComplex })
  {
    for (const Case & c : kCases)
    {
      const std::string label = Name(c, kind, type);
      CheckPlan(FFTPlan<T>(kind, c.size, c.batch), c, label);
      if (HaveDevice(std::is_same<T, double>::value))
      {
        CheckPlan(FFTPlan<T>(kind, c.size, c.batch, gpur::SelectDevices().front()), c, label);
      }
    }
  }
}

TEST(FFTPlan, FloatAgainstDirectDFT)
{
  CheckAllCases<float>("float");
}

TEST(FFTPlan, DoubleAgainstDirectDFT)
{
  CheckAllCases<double>("double");
}

// FFTW runs SIMD plans on arrays with its alignment and FFTW_UNALIGNED ones on
// the rest: arrays one element off the alignment give the same transforms.
template<typename T>
void
CheckMisalignedArrays(const std::vector<std::size_t> & size)
{
  using Complex = std::complex<T>;
  for (const FFTKind kind : { FFTKind::ComplexToComplex, FFTKind::RealToComplex })
  {
    const FFTPlan<T> plan(kind, size, 2);
    const bool real = kind == FFTKind::RealToComplex;
    std::mt19937 rng(7);
    std::uniform_real_distribution<T> d(-1, 1);
    // One spare element in front: data() is aligned, data() + 1 is not.
    std::vector<T> x(plan.SpatialElements() + 1), xBack(x.size());
    std::vector<Complex> z(plan.SpatialElements() + 1), zBack(z.size());
    std::vector<Complex> s(plan.SpectralElements() + 1), sShifted(s.size());
    for (std::size_t i = 0; i < x.size(); ++i)
    {
      x[i] = d(rng);
      z[i] = Complex(d(rng), d(rng));
    }
    std::vector<T> xShifted(x.size());
    std::vector<Complex> zShifted(z.size());
    std::copy(x.begin(), x.end() - 1, xShifted.begin() + 1);
    std::copy(z.begin(), z.end() - 1, zShifted.begin() + 1);
    real ? plan.Forward(x.data(), s.data()) : plan.Forward(z.data(), s.data());
    real ? plan.Forward(xShifted.data() + 1, sShifted.data() + 1)
         : plan.Forward(zShifted.data() + 1, sShifted.data() + 1);
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < plan.SpectralElements(); ++i)
    {
      worst = std::max(worst, static_cast<double>(std::abs(s[i] - sShifted[i + 1])));
      scale = std::max(scale, static_cast<double>(std::abs(s[i])));
    }
    EXPECT_LE(worst, 8 * std::numeric_limits<T>::epsilon() * scale) << (real ? "r2c" : "c2c");
    real ? plan.Inverse(sShifted.data() + 1, xBack.data() + 1) : plan.Inverse(sShifted.data() + 1, zBack.data() + 1);
    for (std::size_t i = 0; i < plan.SpatialElements(); ++i)
    {
      const double back = real ? std::abs(xBack[i + 1] - x[i]) : std::abs(zBack[i + 1] - z[i]);
      ASSERT_LE(back, 64 * std::numeric_limits<T>::epsilon()) << (real ? "c2r" : "c2c inverse") << " at " << i;
    }
  }
}

TEST(FFTPlan, MisalignedArraysGiveTheSameTransforms)
{
  CheckMisalignedArrays<float>({ 100 });
  CheckMisalignedArrays<float>({ 64, 48 });
  CheckMisalignedArrays<double>({ 127 });
  CheckMisalignedArrays<double>({ 30, 20 });
}

// OpenCL against FFTW on the same data, on device buffers that stay on the device
// between the transforms (forward, then in-place inverse).
template<typename T>
void
CheckDeviceAgainstFFTW()
{
  using Complex = std::complex<T>;
  if (!HaveDevice(std::is_same<T, double>::value))
  {
    GTEST_SKIP() << "no OpenCL device (with fp64 for double)";
  }
  const gpur::DeviceInfo device = gpur::SelectDevices().front();
  auto context = gpur::DeviceContext::Get(device);
  const cl::CommandQueue & queue = context->Queue(0);
  for (const Case & c : { Case{ { 127, 96 }, 2 }, Case{ { 100 }, 5 } })
  {
    const std::size_t points = c.size[0] * (c.size.size() == 2 ? c.size[1] : 1);
    std::mt19937 rng(7);
    std::uniform_real_distribution<T> d(-1, 1);
    // Real to complex.
    {
      FFTPlan<T> cpu(FFTKind::RealToComplex, c.size, c.batch);
      FFTPlan<T> gpu(FFTKind::RealToComplex, c.size, c.batch, device);
      std::vector<T> x(cpu.SpatialElements());
      for (T & v : x)
      {
        v = d(rng);
      }
      std::vector<Complex> expected(cpu.SpectralElements());
      cpu.Forward(x.data(), expected.data());
      gpur::DeviceBuffer<T> xd(*context, x.size()), back(*context, x.size());
      gpur::DeviceBuffer<Complex> spectrum(*context, gpu.SpectralElements());
      xd.Upload(queue, x);
      gpu.Forward(xd, spectrum);
      gpu.Inverse(spectrum, back);
      const std::vector<Complex> got = spectrum.Download(queue);
      const std::vector<T> xBack = back.Download(queue);
      std::vector<LComplex> e(expected.begin(), expected.end()), xe(x.begin(), x.end());
      const double err = RelativeError(got, e), rt = RelativeError(xBack, xe);
      std::printf("r2c device %zu x %zu batch %zu: VkFFT vs FFTW %.2e, round trip %.2e\n",
                  c.size[0],
                  points / c.size[0],
                  c.batch,
                  err,
                  rt);
      EXPECT_LE(err, 2 * Bound<T>(points));
      EXPECT_LE(rt, 2 * Bound<T>(points));
    }
    // Complex to complex, the inverse in place.
    {
      FFTPlan<T> cpu(FFTKind::ComplexToComplex, c.size, c.batch);
      FFTPlan<T> gpu(FFTKind::ComplexToComplex, c.size, c.batch, device);
      std::vector<Complex> z(cpu.SpatialElements());
      for (Complex & v : z)
      {
        v = Complex(d(rng), d(rng));
      }
      std::vector<Complex> expected(cpu.SpectralElements());
      cpu.Forward(z.data(), expected.data());
      gpur::DeviceBuffer<Complex> zd(*context, z.size()), spectrum(*context, z.size());
      zd.Upload(queue, z);
      gpu.Forward(zd, spectrum);
      const std::vector<Complex> got = spectrum.Download(queue);
      gpu.Inverse(spectrum, spectrum);
      const std::vector<Complex> zBack = spectrum.Download(queue);
      std::vector<LComplex> e(expected.begin(), expected.end()), ze(z.begin(), z.end());
      EXPECT_LE(RelativeError(got, e), 2 * Bound<T>(points));
      EXPECT_LE(RelativeError(zBack, ze), 2 * Bound<T>(points));
    }
  }
}

TEST(FFTPlan, DeviceBuffersAgainstFFTWFloat)
{
  CheckDeviceAgainstFFTW<float>();
}

TEST(FFTPlan, DeviceBuffersAgainstFFTWDouble)
{
  CheckDeviceAgainstFFTW<double>();
}

// ForwardInPlace / InverseInPlace on the padded r2c layout: the same spectrum
// as Forward (bit for bit: the same VkFFT application runs, Forward only copies
// into that layout first), and the padded real rows back; refused on CPU
// plans, complex plans, nx = 1 and a buffer smaller than the spectrum.
template<typename T>
void
CheckInPlacePadded()
{
  if (!HaveDevice(std::is_same<T, double>::value))
    GTEST_SKIP() << "no OpenCL device (with fp64 for double)";
  using Complex = std::complex<T>;
  const gpur::DeviceInfo device = gpur::SelectDevices().front();
  auto context = gpur::DeviceContext::Get(device);
  const cl::CommandQueue & queue = context->Queue(0);
  for (const std::vector<std::size_t> & size : std::vector<std::vector<std::size_t>>{ { 92 }, { 64, 5 } })
  {
    const std::size_t batch = 3, nx = size[0], rows = (size.size() > 1 ? size[1] : 1) * batch, pitch = nx / 2 + 1;
    const FFTPlan<T> plan(FFTKind::RealToComplex, size, batch, device);
    std::mt19937 rng(7);
    std::uniform_real_distribution<T> d(-1, 1);
    std::vector<T> x(plan.SpatialElements());
    for (T & v : x)
      v = d(rng);
    std::vector<Complex> padded(plan.SpectralElements() + 4); // one larger than needed: allowed
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < nx; ++i)
        reinterpret_cast<T *>(padded.data())[r * 2 * pitch + i] = x[r * nx + i];
    const gpur::DeviceBuffer<T> in(*context, x.size());
    const gpur::DeviceBuffer<Complex> out(*context, plan.SpectralElements()), work(*context, padded.size());
    in.Upload(queue, x);
    work.Upload(queue, padded);
    plan.Forward(in, out);
    plan.ForwardInPlace(work);
    std::vector<Complex> a(plan.SpectralElements()), b(padded.size());
    out.Download(queue, a.data(), a.size());
    work.Download(queue, b.data(), b.size());
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << "nx " << nx;
    plan.InverseInPlace(work);
    work.Download(queue, b.data(), b.size());
    double worst = 0;
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < nx; ++i)
        worst =
          std::max(worst, double(std::abs(reinterpret_cast<const T *>(b.data())[r * 2 * pitch + i] - x[r * nx + i])));
    EXPECT_LE(worst, 8 * Bound<T>(plan.SpatialElements() / batch)) << "nx " << nx;
  }
  const FFTPlan<T> cpu(FFTKind::RealToComplex, { 8 });
  const FFTPlan<T> c2c(FFTKind::ComplexToComplex, { 8 }, 1, device);
  const FFTPlan<T> column(FFTKind::RealToComplex, { 1, 8 }, 1, device);
  const FFTPlan<T> r2c(FFTKind::RealToComplex, { 8 }, 2, device);
  const gpur::DeviceBuffer<Complex> buffer(*context, 10), small(*context, 9);
  EXPECT_THROW(cpu.ForwardInPlace(buffer), gpur::InvalidArgument);
  EXPECT_THROW(c2c.ForwardInPlace(buffer), gpur::InvalidArgument);
  EXPECT_THROW(column.InverseInPlace(buffer), gpur::InvalidArgument);
  EXPECT_THROW(r2c.InverseInPlace(small), gpur::InvalidArgument);
}

TEST(FFTPlan, InPlacePaddedFloat)
{
  CheckInPlacePadded<float>();
}

TEST(FFTPlan, InPlacePaddedDouble)
{
  CheckInPlacePadded<double>();
}

TEST(FFTPlan, BadArgumentsAreRefused)
{
  using Plan = FFTPlan<float>;
  EXPECT_THROW(Plan(FFTKind::ComplexToComplex, {}), gpur::InvalidArgument);
  EXPECT_THROW(Plan(FFTKind::ComplexToComplex, { 0 }), gpur::InvalidArgument);
  EXPECT_THROW(Plan(FFTKind::ComplexToComplex, { 4, 4, 4 }), gpur::InvalidArgument);
  EXPECT_THROW(Plan(FFTKind::RealToComplex, { 8 }, 0), gpur::InvalidArgument);

  Plan c2c(FFTKind::ComplexToComplex, { 8 });
  EXPECT_EQ(c2c.Backend(), gpur::FFTBackend::CPU);
  EXPECT_EQ(c2c.SpectralElements(), 8u);
  std::vector<float> real(8);
  std::vector<std::complex<float>> spectrum(8);
  EXPECT_THROW(c2c.Forward(real.data(), spectrum.data()), gpur::InvalidArgument);     // kind mismatch
  EXPECT_THROW(c2c.Forward(spectrum.data(), spectrum.data()), gpur::InvalidArgument); // aliasing

  Plan r2c(FFTKind::RealToComplex, { 8, 3 }, 2);
  EXPECT_EQ(r2c.SpatialElements(), 48u);
  EXPECT_EQ(r2c.SpectralElements(), 30u);

  if (gpur::HaveOpenCLDevice())
  {
    gpur::DeviceInfo device = gpur::SelectDevices().front();
    auto context = gpur::DeviceContext::Get(device);
    gpur::DeviceBuffer<float> x(*context, 48);
    gpur::DeviceBuffer<std::complex<float>> wrong(*context, 31);
    EXPECT_THROW(r2c.Forward(x, wrong), gpur::InvalidArgument); // a CPU plan on device buffers
    FFTPlan<float> onDevice(FFTKind::RealToComplex, { 8, 3 }, 2, device);
    EXPECT_THROW(onDevice.Forward(x, wrong), gpur::InvalidArgument); // wrong size
    device.fp64 = false;                                             // a device without doubles
    try
    {
      FFTPlan<double>(FFTKind::ComplexToComplex, { 8 }, 1, device);
      ADD_FAILURE() << "a double plan on a device without fp64 was accepted";
    }
    catch (const gpur::InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find("fp64"), std::string::npos) << e.what();
    }
    // Axes beyond the device's limit are refused with a reason, never run (VkFFT crashes CPU drivers there).
    gpur::DeviceInfo cpu = device;
    cpu.type = gpur::DeviceType::CPU;
    EXPECT_EQ(gpur::FFTDeviceAxisLimit(cpu, false), std::size_t(1) << 16);
    EXPECT_TRUE(gpur::FFTDeviceSupports(cpu, { 65536 }, false));
    EXPECT_FALSE(gpur::FFTDeviceSupports(cpu, { std::size_t(1) << 17 }, false));
    EXPECT_FALSE(gpur::FFTDeviceSupports(cpu, { 64, 65536 }, true));
    try
    {
      FFTPlan<float>(FFTKind::RealToComplex, { std::size_t(1) << 17 }, 1, cpu);
      ADD_FAILURE() << "an axis beyond the CPU device's limit was accepted";
    }
    catch (const gpur::InvalidArgument & e)
    {
      EXPECT_NE(std::string(e.what()).find("CPU backend"), std::string::npos) << e.what();
    }
    gpur::DeviceInfo gpu = device;
    gpu.type = gpur::DeviceType::GPU;
    EXPECT_TRUE(gpur::FFTDeviceSupports(gpu, { std::size_t(1) << 24 }, true));
  }
}

} // namespace
