// OpenCL backend of the TV engine: all state stays on the device; the host
// only enqueues kernels and reads the energy partials at gap checks.
#include "gpurBuffer.h"
#include "gpurLaunch.h"
#include "gpurTVKernels.h" // generated from kernels/*.cl
#include "gpurTVStepper.h"

namespace gpur
{
namespace
{

template<typename Real>
class TVStepperOpenCL : public TVStepper<Real>
{
public:
  TVStepperOpenCL(const Real * f, const Real * weight, const Grid & grid, bool usesBar, const DeviceInfo & device)
    : m_Context(DeviceContext::Get(device))
    , m_Grid(grid)
    , m_Count(grid.Count())
    , m_Range(MakeImageRange(grid, device))
    , m_InverseSpacing(InverseSpacing<Real>(grid))
  {
    const bool isDouble = std::is_same<Real, double>::value;
    // f, u, px, py (+ubar, +pz, +w)
    const unsigned volumes = 3 + (usesBar ? 1 : 0) + (grid.size[2] > 1 ? 1 : 0) + (weight ? 1 : 0);
    if (isDouble)
    {
      m_Context->RequireDouble("TV denoising");
    }
    m_Context->CheckMemory(
      volumes * m_Count * sizeof(Real), m_Count * sizeof(Real), "TV denoising of " + grid.ToString());

    const cl::Program program = m_Context->Program({ CoreKernel("gpur_common.cl"),
                                                     CoreKernel("gpur_reduce.cl"),
                                                     CoreKernel("gpur_stencils.cl"),
                                                     ResolveKernelSource("tv_rof.cl", kernels::tv::Find("tv_rof.cl")) },
                                                   DeviceContext::RealOptions(isDouble));
    m_DualKernel = DeviceContext::Kernel(program, "tv_dual");
    m_PrimalKernel = DeviceContext::Kernel(program, "tv_primal");
    m_EnergyKernel = DeviceContext::Kernel(program, "tv_energies");

    DeviceContext & ctx = *m_Context;
    m_F = DeviceBuffer<Real>(ctx, m_Count, CL_MEM_READ_ONLY);
    m_U = DeviceBuffer<Real>(ctx, m_Count);
    m_Bar = usesBar ? DeviceBuffer<Real>(ctx, m_Count) : DeviceBuffer<Real>();
    m_Px = DeviceBuffer<Real>(ctx, m_Count);
    m_Py = DeviceBuffer<Real>(ctx, m_Count);
    m_Pz = grid.size[2] > 1 ? DeviceBuffer<Real>(ctx, m_Count) : DeviceBuffer<Real>();
    m_Groups = 1;
    for (unsigned d = 0; d < 3; ++d)
    {
      m_Groups *= m_Range.global[d] / m_Range.local[d];
    }
    m_GroupSize = m_Range.local[0] * m_Range.local[1] * m_Range.local[2];
    m_Partials = DeviceBuffer<Real>(ctx, 4 * m_Groups);
    m_F.Upload(Queue(), f, m_Count);
    if (weight != nullptr)
    {
      m_W = DeviceBuffer<Real>(ctx, m_Count, CL_MEM_READ_ONLY);
      m_W.Upload(Queue(), weight, m_Count);
    }
  }

  void
  Initialize() override
  {
    m_U.CopyFrom(Queue(), m_F);
    if (m_Bar.Size() > 0)
      m_Bar.CopyFrom(Queue(), m_F);
    for (const auto * p : { &m_Px, &m_Py, &m_Pz })
      if (p->Size() > 0)
        p->Fill(Queue(), Real(0));
  }

  void
  Dual(const TVStep & step) override
  {
    const auto & v = step.dualUsesBar ? m_Bar : m_U;
    SetArgs(
      m_DualKernel, v.Get(), m_Px.Get(), m_Py.Get(), Pz().Get(), Nx(), Ny(), Nz(), m_InverseSpacing, Real(step.sigma));
    Launch(m_DualKernel);
  }

  void
  Primal(const TVStep & step) override
  {
    const bool writeBar = m_Bar.Size() > 0;
    SetArgs(m_PrimalKernel,
            m_F.Get(),
            m_U.Get(),
            writeBar ? m_Bar.Get() : m_U.Get(),
            m_Px.Get(),
            m_Py.Get(),
            Pz().Get(),
            W().Get(),
            Nx(),
            Ny(),
            Nz(),
            m_InverseSpacing,
            Real(step.a),
            Real(step.b),
            Real(step.c),
            Real(step.theta),
            cl_int(writeBar ? 1 : 0),
            Weighted(),
            cl_int(step.relaxation ? 1 : 0),
            Real(step.tau),
            Real(step.lambda));
    Launch(m_PrimalKernel);
  }

  TVEnergySums
  Energies(std::size_t firstSlice, std::size_t slices) override
  {
    SetArgs(m_EnergyKernel,
            m_F.Get(),
            m_U.Get(),
            m_Px.Get(),
            m_Py.Get(),
            Pz().Get(),
            W().Get(),
            Weighted(),
            Nx(),
            Ny(),
            Nz(),
            static_cast<cl_int>(firstSlice),
            static_cast<cl_int>(firstSlice + slices),
            m_InverseSpacing,
            m_Partials.Get(),
            cl::Local(m_GroupSize * sizeof(Real)));
    Launch(m_EnergyKernel);
    const std::vector<Real> partials = m_Partials.Download(Queue());
    double s[4] = { 0, 0, 0, 0 };
    for (std::size_t g = 0; g < m_Groups; ++g)
      for (unsigned k = 0; k < 4; ++k)
        s[k] += static_cast<double>(partials[4 * g + k]);
    TVEnergySums e;
    e.fidelity = s[0];
    e.tv = s[1];
    e.fDivP = s[2];
    e.divPSquared = s[3];
    return e;
  }

  void
  Load(const HostTVState<const Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    ForEachStatePart(m_Grid,
                     m_Bar.Size() > 0,
                     host,
                     firstSlice,
                     slices,
                     [this](const Real * host, TVStatePart part, std::size_t offset, std::size_t n)
                     { Part(part).Upload(Queue(), host, n, offset); });
  }

  void
  Store(const HostTVState<Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    ForEachStatePart(m_Grid,
                     m_Bar.Size() > 0,
                     host,
                     firstSlice,
                     slices,
                     [this](Real * host, TVStatePart part, std::size_t offset, std::size_t n)
                     { Part(part).Download(Queue(), host, n, offset); });
    ZeroAbsentPz(host, m_Grid, firstSlice, slices);
  }

private:
  const DeviceBuffer<Real> &
  Part(TVStatePart part) const
  {
    const DeviceBuffer<Real> * parts[] = { &m_U, &m_Bar, &m_Px, &m_Py, &m_Pz }; // in TVStatePart order
    return *parts[static_cast<unsigned>(part)];
  }

  const cl::CommandQueue &
  Queue() const
  {
    return m_Context->Queue(0);
  }
  // Without weights the kernels never read w; f stands in so the argument is a valid buffer.
  const DeviceBuffer<Real> &
  W() const
  {
    return m_W.Size() > 0 ? m_W : m_F;
  }
  cl_int
  Weighted() const
  {
    return m_W.Size() > 0 ? 1 : 0;
  }
  // In 2D the kernels never touch pz; px stands in so the argument is a valid buffer.
  const DeviceBuffer<Real> &
  Pz() const
  {
    return m_Pz.Size() > 0 ? m_Pz : m_Px;
  }
  cl_int
  Nx() const
  {
    return static_cast<cl_int>(m_Grid.size[0]);
  }
  cl_int
  Ny() const
  {
    return static_cast<cl_int>(m_Grid.size[1]);
  }
  cl_int
  Nz() const
  {
    return static_cast<cl_int>(m_Grid.size[2]);
  }
  void
  Launch(const cl::Kernel & kernel) const
  {
    Queue().enqueueNDRangeKernel(kernel, cl::NullRange, m_Range.global, m_Range.local);
  }

  std::shared_ptr<DeviceContext> m_Context;
  const Grid m_Grid;
  const std::size_t m_Count;
  const ImageRange m_Range;
  const CLReal3<Real> m_InverseSpacing;
  cl::Kernel m_DualKernel, m_PrimalKernel, m_EnergyKernel;
  DeviceBuffer<Real> m_F, m_W, m_U, m_Bar, m_Px, m_Py, m_Pz, m_Partials;
  std::size_t m_Groups = 0, m_GroupSize = 0;
};

} // namespace

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStepperOpenCL(const Real * f, const Real * weight, const Grid & grid, bool usesBar, const DeviceInfo & device)
{
  return std::unique_ptr<TVStepper<Real>>(new TVStepperOpenCL<Real>(f, weight, grid, usesBar, device));
}

template std::unique_ptr<TVStepper<float>>
MakeTVStepperOpenCL(const float *, const float *, const Grid &, bool, const DeviceInfo &);
template std::unique_ptr<TVStepper<double>>
MakeTVStepperOpenCL(const double *, const double *, const Grid &, bool, const DeviceInfo &);

} // namespace gpur
