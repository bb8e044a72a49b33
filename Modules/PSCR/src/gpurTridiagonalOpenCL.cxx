// SPDX-License-Identifier: Apache-2.0
// Batched shifted tridiagonal solves on an OpenCL device
// (kernels/pscr_tridiagonal.cl), and the module's program.
#include "gpurPSCRDevice.h"

#include "gpurPSCRKernels.h" // generated from kernels/*.cl

#include <algorithm>
#include <limits>

namespace gpur
{

namespace
{

// Work-items per system of the local-memory kernel. Fixed, not sized to n:
// PoCL compiles a kernel once per local size, and 128 keeps every work-item
// busy in the first CR steps of the systems PSCR produces (n in the hundreds).
constexpr std::size_t kLocalGroup = 128;
// Work-group size of the Thomas kernels.
constexpr std::size_t kThomasGroup = 64;
// Systems per work-item of pscr_thomas_grouped, the Thomas kernel of CPU drivers: they run a work-item as one
// scalar thread, whose recurrence waits on each division; side by side, four systems overlap them. PSCR on PoCL
// (2 cores, double, pscr_bench): 2D 510^2 0.016 -> 0.0115 s, 1023^2 0.073 -> 0.048 s, 3D 127^3 0.72 -> 0.54 s;
// with two or eight systems slower than with four. (The CPU reference interleaves eight.)
constexpr std::size_t kThomasCPUGroup = 4;

// Rows left when CR stops (the CPU's SolveKernel rule: reduce while m > crStop and m >= 2).
std::size_t
CRRemainder(std::size_t rows, std::size_t crStop)
{
  while (rows > crStop && rows >= 2)
    rows /= 2;
  return rows;
}

// Local memory of the work-group kernel: the system (4 n) and the compact copy of
// the CR remainder (4 r); a singular system has n - 1 rows, whose remainder can be larger.
std::size_t
LocalRemainder(std::size_t n, const TridiagonalStages & stages)
{
  return std::max(CRRemainder(n, stages.crStop), n > 1 ? CRRemainder(n - 1, stages.crStop) : 0);
}

// Bytes of the kernels' elimination scalar, WIDE of pscr_scalar.cl: the
// scalar in double on devices with fp64 (gpur::TridiagonalWork), else the scalar.
template<typename Scalar>
std::size_t
WideBytes(const DeviceInfo & device)
{
  return device.fp64 ? sizeof(TridiagonalWork<Scalar>) : sizeof(Scalar);
}

template<typename Scalar>
std::uint64_t
LocalBytes(const DeviceInfo & device, std::size_t n, const TridiagonalStages & stages)
{
  return 4 * static_cast<std::uint64_t>(n + LocalRemainder(n, stages)) * WideBytes<Scalar>(device);
}

// Thomas needs no local memory; the others run there when the system fits.
template<typename Scalar>
bool
ChooseLocal(const DeviceInfo & device, std::size_t n, const TridiagonalOptions & options)
{
  return options.algorithm != TridiagonalAlgorithm::Thomas &&
         LocalBytes<Scalar>(device, n, options.Stages()) <= device.localMemory &&
         n <= static_cast<std::size_t>(std::numeric_limits<cl_int>::max());
}

// Thomas' workspace: c' and the forward-eliminated right-hand side per row.
template<typename Scalar>
std::uint64_t
ThomasBytes(const DeviceInfo & device, std::size_t n, std::size_t maxCount)
{
  return 2 * static_cast<std::uint64_t>(maxCount) * n * WideBytes<Scalar>(device);
}

} // namespace

template<typename Scalar>
Program
BuildPSCRProgram(DeviceContext & context, const DeviceInfo & device, const std::string & what, bool servesFloat)
{
  ProgramSpec spec(what, std::is_same<RealType<Scalar>, double>::value);
  spec.Core({ "gpur_common.cl", "gpur_reduce.cl" })
    .Module(
      kernels::pscr::Find,
      { "pscr_scalar.cl", "pscr_tridiagonal.cl", "pscr_solve.cl", "pscr_lanes.cl", "pscr_residual.cl", "pscr_fast.cl" })
    .Define("PSCR_COMPLEX", IsComplex<Scalar>::value)
    // The residual checks need fp64 (pscr_residual.cl): a float tridiagonal
    // solver on a device without it builds the rest alone. Every program of a
    // device gets the same options, so the tridiagonal and PSCR solvers share it.
    .Define("PSCR_CHECKS", device.fp64)
    .Define("PSCR_THOMAS_GROUP", std::to_string(kThomasCPUGroup));
  if (servesFloat)
    spec.Define("PSCR_NARROW", IsComplex<Scalar>::value ? "float2" : "float");
  if (!IsComplex<Scalar>::value && device.fp64)
  {
    const std::string lanes = std::to_string(kPSCRLanes);
    const std::string scalar = std::is_same<Scalar, double>::value ? "double" : "float";
    spec.Define("PSCR_LANES", lanes)
      .Define("PSCR_LANE_SCALAR", scalar + lanes)
      .Define("PSCR_LANE_NARROW", "convert_" + scalar + lanes);
  }
  return BuildProgram(context, spec);
}

bool
UsesPSCRLanes(const DeviceInfo & device, bool complex)
{
  return !complex && device.fp64 && KernelFormChoice("ITKGPUR_PSCR_LANES", "on", "off", device.type == DeviceType::CPU);
}

template<typename Scalar>
std::uint64_t
TridiagonalDeviceSolver<Scalar>::Bytes(const DeviceInfo & device,
                                       std::size_t n,
                                       const TridiagonalOptions & options,
                                       std::size_t maxCount)
{
  const std::uint64_t factors = 4 * static_cast<std::uint64_t>(n) * sizeof(Scalar);
  return factors + (ChooseLocal<Scalar>(device, n, options) ? 0 : ThomasBytes<Scalar>(device, n, maxCount));
}

template<typename Scalar>
TridiagonalDeviceSolver<Scalar>::TridiagonalDeviceSolver(DeviceContext & context,
                                                         const DeviceInfo & device,
                                                         const AxisFactors<Scalar> & factors,
                                                         const TridiagonalOptions & options,
                                                         std::size_t maxCount,
                                                         bool servesFloat)
  : m_N(factors.Size())
  , m_MaxCount(maxCount)
  , m_Stages(options.Stages())
  , m_Local(ChooseLocal<Scalar>(device, factors.Size(), options))
  , m_WideBytes(WideBytes<Scalar>(device))
{
  options.Validate();
  TranslateCLErrors(
    [&]
    {
      const Program program = BuildPSCRProgram<Scalar>(context, device, "OpenCL tridiagonal solver", servesFloat);
      const std::size_t n = m_N;
      std::vector<Scalar> packed(4 * n, Scalar(0));
      std::copy(factors.A.diagonal.begin(), factors.A.diagonal.end(), packed.begin());
      std::copy(factors.A.offDiagonal.begin(), factors.A.offDiagonal.end(), packed.begin() + n);
      std::copy(factors.M.diagonal.begin(), factors.M.diagonal.end(), packed.begin() + 2 * n);
      std::copy(factors.M.offDiagonal.begin(), factors.M.offDiagonal.end(), packed.begin() + 3 * n);
      m_Factors = DeviceBuffer<Scalar>(context, packed.size(), CL_MEM_READ_ONLY);
      m_Factors.Upload(context.Queue(0), packed);
      if (m_Local)
      {
        m_LocalKernel = program.MakeKernel("pscr_tridiagonal_local");
        m_GroupSize = std::min(kLocalGroup, m_LocalKernel.WorkGroupLimit());
        m_Remainder = static_cast<int>(LocalRemainder(n, m_Stages));
      }
      else
      {
        m_ThomasGroup = device.type == DeviceType::CPU ? kThomasCPUGroup : 1;
        m_Thomas = program.MakeKernel(m_ThomasGroup > 1 ? "pscr_thomas_grouped" : "pscr_thomas");
        m_GroupSize = std::min(kThomasGroup, m_Thomas.WorkGroupLimit());
        m_Workspace =
          DeviceBuffer<unsigned char>(context, std::max<std::uint64_t>(1, ThomasBytes<Scalar>(device, n, maxCount)));
      }
    });
}

template<typename Scalar>
void
TridiagonalDeviceSolver<Scalar>::Solve(const cl::CommandQueue & queue,
                                       const cl::Buffer & x,
                                       std::size_t count,
                                       const cl::Buffer & shifts,
                                       long singular)
{
  if (count > m_MaxCount)
  {
    throw InvalidArgument("TridiagonalDeviceSolver::Solve: " + std::to_string(count) +
                          " systems, but the solver was set up for at most " + std::to_string(m_MaxCount));
  }
  if (count == 0)
  {
    return;
  }
  TranslateCLErrors(
    [&]
    {
      const cl_int n = static_cast<cl_int>(m_N);
      if (m_Local)
      {
        const std::size_t crStop = std::min<std::size_t>(m_Stages.crStop, std::numeric_limits<cl_int>::max());
        m_LocalKernel.Set(x,
                          n,
                          shifts,
                          m_Factors.Get(),
                          static_cast<cl_int>(crStop),
                          static_cast<cl_int>(m_Stages.pcrSteps),
                          static_cast<cl_long>(singular),
                          static_cast<cl_int>(m_Remainder),
                          cl::Local(4 * (m_N + m_Remainder) * m_WideBytes));
        m_LocalKernel.Enqueue(queue, cl::NDRange(count * m_GroupSize), cl::NDRange(m_GroupSize));
      }
      else
      {
        m_Thomas.Set(
          x, n, static_cast<cl_int>(count), shifts, m_Factors.Get(), m_Workspace.Get(), static_cast<cl_long>(singular));
        const std::size_t items = (count + m_ThomasGroup - 1) / m_ThomasGroup;
        m_Thomas.Enqueue(queue, cl::NDRange(pscr::RoundUp(items, m_GroupSize)), cl::NDRange(m_GroupSize));
      }
    });
}

#define GPUR_INSTANTIATE_TRIDIAGONAL_DEVICE(T)                                                                         \
  template Program BuildPSCRProgram<T>(DeviceContext &, const DeviceInfo &, const std::string &, bool);                \
  template class TridiagonalDeviceSolver<T>;

GPUR_INSTANTIATE_TRIDIAGONAL_DEVICE(float)
GPUR_INSTANTIATE_TRIDIAGONAL_DEVICE(double)
GPUR_INSTANTIATE_TRIDIAGONAL_DEVICE(std::complex<float>)
GPUR_INSTANTIATE_TRIDIAGONAL_DEVICE(std::complex<double>)

} // namespace gpur
