// SPDX-License-Identifier: Apache-2.0
// The OpenCL backend of the sparse-recovery engine (gpurSparseVectors.h):
// every array and spectrum stays on the device; the transforms are VkFFT
// plans (gpurFFT.h's DeviceBuffer overloads) and the elementwise steps the
// fused kernels of kernels/sparse_*.cl, all on the device's in-order compute
// queue. The host waits only for downloads and for the reductions a caller
// asks for (the partials of one kernel, a few kilobytes).
#include "gpurBuffer.h"
#include "gpurFFT.h"
#include "gpurProgram.h"
#include "gpurReduce.h"
#include "gpurSparseKernels.h" // generated from kernels/*.cl
#include "gpurSparseVectors.h"

#include <algorithm>

namespace gpur
{
namespace sparse
{
namespace
{

/**
 * Work-groups of the grid-stride loops: 4 values per work-item, at most 2^16
 * groups (so 4 per item up to n = 2^26 with groups of 256). Measured on PoCL
 * (2 cores, n = 2^20, float): the masked difference took 0.4-0.9 ms at 4
 * values per item and 4.3 ms at 16, the proximal step 1.4-2.7 ms and 6.5 ms;
 * the per-group partials this leaves are summed on the host only at checks.
 */
constexpr std::size_t kValuesPerItem = 4;
constexpr std::size_t kMaxGroups = std::size_t(1) << 16;

template<typename Real>
class VectorsOpenCL : public Vectors<Real>
{
public:
  using Complex = std::complex<Real>;

  VectorsOpenCL(const SensingSpectrum & spectrum, const DeviceInfo & device)
    : m_Context(*DeviceContext::Get(device))
    , m_Plan(FFTKind::RealToComplex, spectrum.size, 1, device)
    , m_N(m_Plan.SpatialElements())
    , m_H(m_Plan.SpectralElements())
  {
    const bool isDouble = sizeof(Real) == 8;
    const Program program =
      BuildProgram(m_Context,
                   ProgramSpec("sparse recovery", isDouble)
                     .Define("REAL2", isDouble ? "double2" : "float2")
                     .Core({ "gpur_common.cl", "gpur_reduce.cl" })
                     .Module(kernels::sparse::Find, { "sparse_elementwise.cl", "sparse_spectrum.cl" }));
    m_MaskedDifference = program.MakeKernel("sparse_masked_difference");
    m_ProxStep = program.MakeKernel("sparse_prox_step");
    m_AdmmUpdate = program.MakeKernel("sparse_admm_update");
    m_Measure = program.MakeKernel("sparse_measure");
    m_MaxAbs = program.MakeKernel("sparse_max_abs");
    m_MultiplyK = program.MakeKernel("sparse_multiply_k");
    m_DivideShifted = program.MakeKernel("sparse_divide_shifted");
    m_AdmmSpectra = program.MakeKernel("sparse_admm_spectra");
    m_Local = PowerOfTwoGroupSize(m_Context.Info(), 256);
    for (const Kernel * k : { &m_ProxStep, &m_AdmmUpdate, &m_Measure, &m_MaxAbs })
      m_Local = std::min(m_Local, PowerOfTwoGroupSize(m_Context.Info(), k->WorkGroupLimit()));
    m_RealGroups = Groups(m_N);
    m_SpectrumGroups = Groups(m_H);

    Reserve(m_H * sizeof(Complex) + m_N + 5 * m_RealGroups * sizeof(Real));
    m_K = DeviceBuffer<Complex>(m_Context, m_H);
    std::vector<Complex> k(m_H);
    for (std::size_t i = 0; i < m_H; ++i)
      k[i] = Complex(Real(spectrum.k[i].real()), Real(spectrum.k[i].imag()));
    m_K.Upload(Queue(), k);
    m_Mask = DeviceBuffer<cl_uchar>(m_Context, m_N);
    m_Mask.Upload(Queue(), spectrum.mask);
    m_Partials = DeviceBuffer<Real>(m_Context, 5 * m_RealGroups);
  }

  RealVector
  NewReal() override
  {
    Reserve(m_N * sizeof(Real));
    m_Real.emplace_back(m_Context, m_N);
    m_Real.back().Fill(Queue(), Real(0));
    return RealVector{ unsigned(m_Real.size() - 1) };
  }
  SpectrumVector
  NewSpectrum() override
  {
    Reserve(m_H * sizeof(Complex));
    m_Spectra.emplace_back(m_Context, m_H);
    return SpectrumVector{ unsigned(m_Spectra.size() - 1) };
  }
  void
  Upload(RealVector v, const Real * host) override
  {
    m_Real[v.id].Upload(Queue(), host, m_N);
  }
  void
  Download(RealVector v, Real * host) override
  {
    m_Real[v.id].Download(Queue(), host, m_N);
  }
  void
  Zero(RealVector v) override
  {
    m_Real[v.id].Fill(Queue(), Real(0));
  }
  void
  Copy(RealVector from, RealVector to) override
  {
    m_Real[to.id].CopyFrom(Queue(), m_Real[from.id]);
  }

  void
  Forward(RealVector in, SpectrumVector out) override
  {
    m_Plan.Forward(m_Real[in.id], m_Spectra[out.id]);
  }
  void
  Inverse(SpectrumVector in, RealVector out) override
  {
    m_Plan.Inverse(m_Spectra[in.id], m_Real[out.id]);
  }
  void
  MultiplyK(SpectrumVector s, bool conjugate) override
  {
    m_MultiplyK.Set(S(s), m_K.Get(), cl_int(conjugate), cl_long(m_H));
    Run(m_MultiplyK, m_SpectrumGroups);
  }
  void
  DivideShifted(SpectrumVector s, double rho, double sigma) override
  {
    m_DivideShifted.Set(S(s), m_K.Get(), Real(rho), Real(sigma), cl_long(m_H));
    Run(m_DivideShifted, m_SpectrumGroups);
  }
  void
  AdmmSpectra(SpectrumVector a, SpectrumVector c, double rho, double sigma) override
  {
    m_AdmmSpectra.Set(S(a), S(c), m_K.Get(), Real(rho), Real(sigma), cl_long(m_H));
    Run(m_AdmmSpectra, m_SpectrumGroups);
  }

  void
  MaskedDifference(RealVector in, RealVector y, double yWeight, RealVector out) override
  {
    m_MaskedDifference.Set(R(in), R(y), Real(yWeight), m_Mask.Get(), R(out), cl_long(m_N));
    Run(m_MaskedDifference, m_RealGroups);
  }

  Change
  ProxStep(RealVector w,
           RealVector g,
           RealVector x,
           double step,
           double threshold,
           double beta,
           bool nonnegative,
           bool measure) override
  {
    m_ProxStep.Set(R(w),
                   R(g),
                   R(x),
                   Real(step),
                   Real(threshold),
                   Real(beta),
                   cl_int(nonnegative),
                   cl_int(measure),
                   cl_long(m_N),
                   m_Partials.Get(),
                   Scratch());
    Run(m_ProxStep, m_RealGroups);
    return measure ? ReadChange() : Change{};
  }

  Change
  AdmmUpdate(const AdmmArrays & v, double rho, double threshold, double tau, bool nonnegative, bool measure) override
  {
    m_AdmmUpdate.Set(R(v.x),
                     R(v.cx),
                     R(v.y),
                     m_Mask.Get(),
                     R(v.mu),
                     R(v.nu),
                     R(v.z),
                     R(v.a),
                     R(v.c),
                     Real(rho),
                     Real(threshold),
                     Real(tau),
                     Real(1.0 / (1.0 + rho)),
                     Real(1.0 / rho),
                     cl_int(nonnegative),
                     cl_int(measure),
                     cl_long(m_N),
                     m_Partials.Get(),
                     Scratch());
    Run(m_AdmmUpdate, m_RealGroups);
    return measure ? ReadChange() : Change{};
  }

  Measures
  Measure(RealVector x, RealVector r, RealVector g, RealVector y, const RealVector * truth, bool nonnegative) override
  {
    m_Measure.Set(R(x),
                  R(r),
                  R(g),
                  R(y),
                  truth ? R(*truth) : R(x),
                  cl_int(truth != nullptr),
                  cl_int(nonnegative),
                  cl_long(m_N),
                  m_Partials.Get(),
                  Scratch());
    Run(m_Measure, m_RealGroups);
    const std::vector<Real> p = ReadPartials(5);
    Measures m;
    for (std::size_t group = 0; group < m_RealGroups; ++group)
    {
      m.residual2 += double(p[5 * group]);
      m.l1 += double(p[5 * group + 1]);
      m.yDotR += double(p[5 * group + 2]);
      m.gradientMax = std::max(m.gradientMax, double(p[5 * group + 3]));
      m.error2 += double(p[5 * group + 4]);
    }
    return m;
  }

  double
  MaxAbs(RealVector v) override
  {
    m_MaxAbs.Set(R(v), cl_long(m_N), m_Partials.Get(), Scratch());
    Run(m_MaxAbs, m_RealGroups);
    const std::vector<Real> p = ReadPartials(1);
    return double(*std::max_element(p.begin(), p.end()));
  }

  std::size_t
  Bytes() const override
  {
    return m_Reserved;
  }

private:
  const cl::CommandQueue &
  Queue() const
  {
    return m_Context.Queue(0);
  }
  const cl::Buffer &
  R(RealVector v) const
  {
    return m_Real[v.id].Get();
  }
  const cl::Buffer &
  S(SpectrumVector s) const
  {
    return m_Spectra[s.id].Get();
  }
  cl::LocalSpaceArg
  Scratch() const
  {
    return cl::Local(m_Local * sizeof(Real));
  }
  std::size_t
  Groups(std::size_t count) const
  {
    const std::size_t perGroup = m_Local * kValuesPerItem;
    return std::max<std::size_t>(1, std::min(kMaxGroups, (count + perGroup - 1) / perGroup));
  }
  void
  Run(const Kernel & kernel, std::size_t groups)
  {
    kernel.Enqueue(Queue(), cl::NDRange(groups * m_Local), cl::NDRange(m_Local));
  }
  std::vector<Real>
  ReadPartials(std::size_t width)
  {
    std::vector<Real> p(width * m_RealGroups);
    m_Partials.Download(Queue(), p.data(), p.size());
    return p;
  }
  Change
  ReadChange()
  {
    const std::vector<Real> p = ReadPartials(2);
    Change change;
    for (std::size_t group = 0; group < m_RealGroups; ++group)
    {
      change.difference2 += double(p[2 * group]);
      change.norm2 += double(p[2 * group + 1]);
    }
    return change;
  }
  /** Counts `bytes` more and checks that everything fits the device. */
  void
  Reserve(std::size_t bytes)
  {
    m_Reserved += bytes;
    m_Context.CheckMemory(m_Reserved,
                          std::max(m_N * sizeof(Real), m_H * sizeof(Complex)),
                          "sparse recovery of " + std::to_string(m_N) + " values");
  }

  DeviceContext & m_Context;
  FFTPlan<Real> m_Plan;
  std::size_t m_N;
  std::size_t m_H;
  std::size_t m_Local = 1;
  std::size_t m_RealGroups = 1;
  std::size_t m_SpectrumGroups = 1;
  std::size_t m_Reserved = 0;
  Kernel m_MaskedDifference, m_ProxStep, m_AdmmUpdate, m_Measure, m_MaxAbs, m_MultiplyK, m_DivideShifted, m_AdmmSpectra;
  DeviceBuffer<Complex> m_K;
  DeviceBuffer<cl_uchar> m_Mask;
  DeviceBuffer<Real> m_Partials;
  std::vector<DeviceBuffer<Real>> m_Real;
  std::vector<DeviceBuffer<Complex>> m_Spectra;
};

} // namespace

template<typename Real>
std::unique_ptr<Vectors<Real>>
MakeVectorsOpenCL(const SensingSpectrum & spectrum, const DeviceInfo & device)
{
  if (sizeof(Real) == 8)
    RequireDouble(device, "sparse recovery in double precision");
  return TranslateCLErrors([&] { return std::unique_ptr<Vectors<Real>>(new VectorsOpenCL<Real>(spectrum, device)); });
}

template std::unique_ptr<Vectors<float>>
MakeVectorsOpenCL(const SensingSpectrum &, const DeviceInfo &);
template std::unique_ptr<Vectors<double>>
MakeVectorsOpenCL(const SensingSpectrum &, const DeviceInfo &);

ResolvedBackend
ResolveSparseBackend(const std::vector<std::size_t> & size,
                     const ExecutionOptions & execution,
                     bool isDouble,
                     const AutoProbe & probe)
{
  ResolvedBackend resolved = ResolveBackend(execution, isDouble, probe);
  if (execution.backend == Backend::Auto && resolved.backend == Backend::OpenCL &&
      !FFTDeviceSupports(resolved.device, size, isDouble))
  {
    ResolvedBackend cpu;
    cpu.backend = Backend::CPU;
    cpu.reason = "Auto: the CPU reference (an FFT axis of more than " +
                 std::to_string(FFTDeviceAxisLimit(resolved.device, isDouble)) +
                 " points, beyond what VkFFT runs on the CPU OpenCL device " + resolved.device.name + ")";
    return cpu;
  }
  return resolved;
}

} // namespace sparse
} // namespace gpur
