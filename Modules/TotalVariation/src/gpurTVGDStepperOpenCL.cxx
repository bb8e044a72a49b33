// SPDX-License-Identifier: Apache-2.0
// OpenCL backend of the TV-GD engine: f, u and du stay on the device (the
// "two copies for GPU memory" of [Huang2023, §4.3] plus f for the residual); the host reads
// one partial sum per work-group after each half-iteration and adds them in
// double. The partials are double on devices with fp64, also for float images
// (see kernels/tv_gd.cl).
#include "gpurBuffer.h"
#include "gpurProgram.h"
#include "gpurReduce.h"
#include "gpurTVGDStepper.h"
#include "gpurTVKernels.h" // generated from kernels/*.cl

#include <vector>

namespace gpur
{
namespace
{

template<typename Real>
class TVGDStepperOpenCL : public TVGDStepper<Real>
{
public:
  TVGDStepperOpenCL(const Real * f,
                    const Grid & grid,
                    const TVGDStencilConstants & constants,
                    const DeviceInfo & device)
    : m_Context(DeviceContext::Get(device))
    , m_Grid(grid)
    , m_Count(grid.Count())
    , m_Slice(grid.size[0] * grid.size[1])
    , m_Range(MakeImageRange(grid, device))
    , m_InverseSpacing(InverseSpacing<Real>(grid))
    , m_InverseDelta2(static_cast<Real>(constants.inverseDeltaSquared))
    , m_Epsilon(static_cast<Real>(constants.epsilon))
    , m_AccDouble(device.fp64)
  {
    const bool isDouble = std::is_same<Real, double>::value;
    if (isDouble)
      RequireDouble(device, "TV gradient descent"); // the caller's description of the device
    const Program program =
      BuildProgram(*m_Context,
                   ProgramSpec("TV gradient descent", isDouble)
                     .Core({ "gpur_common.cl" })
                     .Module(kernels::tv::Find, { "tv_gd.cl" })
                     .Define("TVGD_ACC_DOUBLE", m_AccDouble)
                     .Option("-cl-fp32-correctly-rounded-divide-sqrt", !isDouble && CorrectlyRoundedFloat()));
    m_GradientKernel = program.MakeKernel("tvgd_gradient");
    m_UpdateKernel = program.MakeKernel("tvgd_update");
    m_ResidualKernel = program.MakeKernel("tvgd_residual");
    m_Context->CheckMemory(
      3 * m_Count * sizeof(Real), m_Count * sizeof(Real), "TV gradient descent of " + grid.ToString());

    DeviceContext & ctx = *m_Context;
    m_F = DeviceBuffer<Real>(ctx, m_Count, CL_MEM_READ_ONLY);
    m_U = DeviceBuffer<Real>(ctx, m_Count);
    m_Du = DeviceBuffer<Real>(ctx, m_Count);
    m_GroupsPerSlice = (m_Range.global[0] / m_Range.local[0]) * (m_Range.global[1] / m_Range.local[1]);
    m_GroupSize = m_Range.local[0] * m_Range.local[1] * m_Range.local[2];
    const std::size_t groups = m_GroupsPerSlice * grid.size[2];
    if (m_AccDouble)
      m_PartialsDouble = DeviceBuffer<double>(ctx, groups);
    else
      m_PartialsReal = DeviceBuffer<Real>(ctx, groups);
    m_F.Upload(Queue(), f, m_Count);
  }

  void
  Initialize() override
  {
    m_U.CopyFrom(Queue(), m_F);
  }

  double
  Gradient(std::size_t firstSlice, std::size_t slices) override
  {
    m_GradientKernel.Set(m_U.Get(),
                         m_Du.Get(),
                         Size(0),
                         Size(1),
                         Size(2),
                         cl_int(firstSlice),
                         cl_int(firstSlice + slices),
                         m_InverseSpacing,
                         m_InverseDelta2,
                         m_Epsilon,
                         Partials(),
                         Scratch());
    return LaunchAndSum(m_GradientKernel, slices);
  }

  double
  Update(double scale, std::size_t firstSlice, std::size_t slices, bool withResidual) override
  {
    m_UpdateKernel.Set(m_F.Get(),
                       m_U.Get(),
                       m_Du.Get(),
                       Size(0),
                       Size(1),
                       cl_int(firstSlice),
                       cl_int(firstSlice + slices),
                       static_cast<Real>(scale),
                       cl_int(withResidual ? 1 : 0),
                       Partials(),
                       Scratch());
    if (!withResidual)
    {
      if (slices > 0)
        Launch(m_UpdateKernel, slices);
      return 0.0;
    }
    return LaunchAndSum(m_UpdateKernel, slices);
  }

  double
  Residual(std::size_t firstSlice, std::size_t slices) override
  {
    m_ResidualKernel.Set(
      m_F.Get(), m_U.Get(), Size(0), Size(1), cl_int(firstSlice), cl_int(firstSlice + slices), Partials(), Scratch());
    return LaunchAndSum(m_ResidualKernel, slices);
  }

  void
  Load(const Real * u, std::size_t firstSlice, std::size_t slices) override
  {
    const std::size_t offset = firstSlice * m_Slice;
    m_U.Upload(Queue(), u + offset, slices * m_Slice, offset);
  }

  void
  Store(Real * u, std::size_t firstSlice, std::size_t slices) const override
  {
    const std::size_t offset = firstSlice * m_Slice;
    m_U.Download(Queue(), u + offset, slices * m_Slice, offset);
  }

private:
  /**
   * Whether the device can round float division and sqrt correctly (as the CPU
   * does); OpenCL's default allows 2.5 and 3 ulp, which TV-GD would amplify.
   */
  bool
  CorrectlyRoundedFloat() const
  {
    return (m_Context->Device().getInfo<CL_DEVICE_SINGLE_FP_CONFIG>() & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  }
  const cl::CommandQueue &
  Queue() const
  {
    return m_Context->Queue(0);
  }
  cl_int
  Size(unsigned axis) const
  {
    return static_cast<cl_int>(m_Grid.size[axis]);
  }
  void
  Launch(const Kernel & kernel, std::size_t slices) const
  {
    kernel.Enqueue(Queue(), cl::NDRange(m_Range.global[0], m_Range.global[1], slices), m_Range.local);
  }
  const cl::Buffer &
  Partials() const
  {
    return m_AccDouble ? m_PartialsDouble.Get() : m_PartialsReal.Get();
  }
  cl::LocalSpaceArg
  Scratch() const
  {
    return cl::Local(m_GroupSize * (m_AccDouble ? sizeof(double) : sizeof(Real)));
  }
  /** Launches over the slices and returns the double sum of the work-groups' partials. */
  double
  LaunchAndSum(const Kernel & kernel, std::size_t slices)
  {
    if (slices == 0)
      return 0.0;
    Launch(kernel, slices);
    const std::size_t groups = m_GroupsPerSlice * slices;
    if (m_AccDouble)
      return DownloadAndSum(m_PartialsDouble, groups);
    return DownloadAndSum(m_PartialsReal, groups);
  }
  template<typename T>
  double
  DownloadAndSum(const DeviceBuffer<T> & partials, std::size_t groups) const
  {
    std::vector<T> host(groups);
    partials.Download(Queue(), host.data(), groups);
    return SumPartials(host, groups);
  }

  std::shared_ptr<DeviceContext> m_Context;
  const Grid m_Grid;
  const std::size_t m_Count, m_Slice;
  const ImageRange m_Range;
  const CLReal3<Real> m_InverseSpacing;
  const Real m_InverseDelta2, m_Epsilon;
  const bool m_AccDouble; ///< partial sums in double (the device has fp64)
  Kernel m_GradientKernel, m_UpdateKernel, m_ResidualKernel;
  DeviceBuffer<Real> m_F, m_U, m_Du, m_PartialsReal;
  DeviceBuffer<double> m_PartialsDouble;
  std::size_t m_GroupsPerSlice = 0, m_GroupSize = 0;
};

} // namespace

template<typename Real>
std::unique_ptr<TVGDStepper<Real>>
MakeTVGDStepperOpenCL(const Real * f,
                      const Grid & grid,
                      const TVGDStencilConstants & constants,
                      const DeviceInfo & device)
{
  return std::unique_ptr<TVGDStepper<Real>>(new TVGDStepperOpenCL<Real>(f, grid, constants, device));
}

template std::unique_ptr<TVGDStepper<float>>
MakeTVGDStepperOpenCL(const float *, const Grid &, const TVGDStencilConstants &, const DeviceInfo &);
template std::unique_ptr<TVGDStepper<double>>
MakeTVGDStepperOpenCL(const double *, const Grid &, const TVGDStencilConstants &, const DeviceInfo &);

} // namespace gpur
