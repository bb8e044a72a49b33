// OpenCL backend of the TV engine with the whole state in device memory: the
// host only enqueues kernels and reads the energy partials at gap checks.
#include "gpurQueueThrottle.h"
#include "gpurTVDeviceKernels.h"

namespace gpur
{

TVStateLayout
MakeTVStateLayout(const Grid & grid, bool weighted, bool usesBar)
{
  TVStateLayout layout;
  layout.weighted = weighted;
  layout.usesBar = usesBar;
  layout.threeD = grid.size[2] > 1;
  return layout;
}

namespace
{

template<typename Real>
class TVStepperOpenCL : public TVStepper<Real>
{
public:
  TVStepperOpenCL(const Real * f, const Real * weight, const Grid & grid, bool usesBar, const DeviceInfo & device)
    : m_Context(DeviceContext::Get(device))
    , m_Grid(grid)
    , m_Range(MakeImageRange(grid, device))
    , m_Kernels(*m_Context)
  {
    const TVStateLayout layout = MakeTVStateLayout(grid, weight != nullptr, usesBar);
    const std::size_t n = grid.Count();
    m_Context->CheckMemory(layout.Volumes() * n * sizeof(Real), n * sizeof(Real), "TV denoising of " + grid.ToString());
    m_State = TVDeviceState<Real>(*m_Context, n, WorkGroups(m_Range), layout);
    m_State.f.Upload(Queue(), f, n);
    if (weight != nullptr)
      m_State.w.Upload(Queue(), weight, n);
  }

  void
  Initialize() override
  {
    m_State.u.CopyFrom(Queue(), m_State.f);
    if (m_State.HasBar())
      m_State.bar.CopyFrom(Queue(), m_State.f);
    for (const auto * p : { &m_State.px, &m_State.py, &m_State.pz })
      if (p->Size() > 0)
        p->Fill(Queue(), Real(0));
  }

  void
  Dual(const TVStep & step) override
  {
    m_Kernels.Dual(Queue(), m_State, m_Grid, m_Range, step);
  }

  void
  Primal(const TVStep & step) override
  {
    m_Kernels.Primal(Queue(), m_State, m_Grid, m_Range, step);
  }

  void
  EndIteration() override
  {
    m_Throttle.Step(Queue()); // progress and abort follow the device (see QueueThrottle)
  }

  TVEnergySums
  Energies(std::size_t firstSlice, std::size_t slices) override
  {
    m_Kernels.Energies(Queue(), m_State, m_Grid, m_Range, firstSlice, firstSlice + slices);
    const std::vector<Real> partials = m_State.partials.Download(Queue());
    return TVDeviceKernels<Real>::Sum(partials.data(), WorkGroups(m_Range));
  }

  void
  Load(const HostTVState<const Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    ForEachStatePart(m_Grid,
                     m_State.HasBar(),
                     host,
                     firstSlice,
                     slices,
                     [this](const Real * host, TVStatePart part, std::size_t offset, std::size_t n)
                     { m_State.Part(part).Upload(Queue(), host, n, offset); });
  }

  void
  Store(const HostTVState<Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    ForEachStatePart(m_Grid,
                     m_State.HasBar(),
                     host,
                     firstSlice,
                     slices,
                     [this](Real * host, TVStatePart part, std::size_t offset, std::size_t n)
                     { m_State.Part(part).Download(Queue(), host, n, offset); });
    ZeroAbsentPz(host, m_Grid, firstSlice, slices);
  }

private:
  const cl::CommandQueue &
  Queue() const
  {
    return m_Context->Queue(0);
  }

  std::shared_ptr<DeviceContext> m_Context;
  const Grid m_Grid;
  const ImageRange m_Range;
  TVDeviceKernels<Real> m_Kernels;
  TVDeviceState<Real> m_State;
  QueueThrottle m_Throttle;
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
