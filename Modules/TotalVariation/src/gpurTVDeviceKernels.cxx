#include "gpurTVDeviceKernels.h"

#include "gpurTVKernels.h" // generated from kernels/*.cl

namespace gpur
{

template<typename Real>
TVDeviceState<Real>::TVDeviceState(DeviceContext & context,
                                   std::size_t voxels,
                                   std::size_t groups,
                                   const TVStateLayout & layout)
  : f(context, voxels, CL_MEM_READ_ONLY)
  , u(context, voxels)
  , px(context, voxels)
  , py(context, voxels)
  , partials(context, kTVEnergyPartials * groups)
{
  if (layout.weighted)
    w = DeviceBuffer<Real>(context, voxels, CL_MEM_READ_ONLY);
  if (layout.usesBar)
    bar = DeviceBuffer<Real>(context, voxels);
  if (layout.threeD)
    pz = DeviceBuffer<Real>(context, voxels);
}

namespace
{

// Stand-ins so that every kernel argument is a valid buffer: without weights
// the kernels never read w (f stands in); in 2D they never touch pz (px does).
template<typename Real>
const DeviceBuffer<Real> &
WeightOrF(const TVDeviceState<Real> & s)
{
  return s.w.Size() > 0 ? s.w : s.f;
}
template<typename Real>
const DeviceBuffer<Real> &
PzOrPx(const TVDeviceState<Real> & s)
{
  return s.pz.Size() > 0 ? s.pz : s.px;
}
template<typename Real>
cl_int
Weighted(const TVDeviceState<Real> & s)
{
  return s.w.Size() > 0 ? 1 : 0;
}
cl_int
Int(std::size_t n)
{
  return static_cast<cl_int>(n);
}
void
Launch(const cl::CommandQueue & queue, const cl::Kernel & kernel, const ImageRange & range)
{
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, range.global, range.local);
}

} // namespace

template<typename Real>
TVDeviceKernels<Real>::TVDeviceKernels(DeviceContext & context)
{
  const bool isDouble = std::is_same<Real, double>::value;
  if (isDouble)
    context.RequireDouble("TV denoising");
  const cl::Program program = context.Program({ CoreKernel("gpur_common.cl"),
                                                CoreKernel("gpur_reduce.cl"),
                                                CoreKernel("gpur_stencils.cl"),
                                                ResolveKernelSource("tv_rof.cl", kernels::tv::Find("tv_rof.cl")) },
                                              DeviceContext::RealOptions(isDouble));
  m_Dual = DeviceContext::Kernel(program, "tv_dual");
  m_Primal = DeviceContext::Kernel(program, "tv_primal");
  m_Energies = DeviceContext::Kernel(program, "tv_energies");
}

template<typename Real>
void
TVDeviceKernels<Real>::Dual(const cl::CommandQueue & queue,
                            const TVDeviceState<Real> & s,
                            const Grid & grid,
                            const ImageRange & range,
                            const TVStep & step)
{
  const auto & v = step.dualUsesBar ? s.bar : s.u;
  SetArgs(m_Dual,
          v.Get(),
          s.px.Get(),
          s.py.Get(),
          PzOrPx(s).Get(),
          Int(grid.size[0]),
          Int(grid.size[1]),
          Int(grid.size[2]),
          InverseSpacing<Real>(grid),
          Real(step.sigma));
  Launch(queue, m_Dual, range);
}

template<typename Real>
void
TVDeviceKernels<Real>::Primal(const cl::CommandQueue & queue,
                              const TVDeviceState<Real> & s,
                              const Grid & grid,
                              const ImageRange & range,
                              const TVStep & step)
{
  const bool writeBar = s.HasBar();
  SetArgs(m_Primal,
          s.f.Get(),
          s.u.Get(),
          writeBar ? s.bar.Get() : s.u.Get(),
          s.px.Get(),
          s.py.Get(),
          PzOrPx(s).Get(),
          WeightOrF(s).Get(),
          Int(grid.size[0]),
          Int(grid.size[1]),
          Int(grid.size[2]),
          InverseSpacing<Real>(grid),
          Real(step.b),
          Real(step.c),
          Real(step.theta),
          cl_int(writeBar ? 1 : 0),
          Weighted(s),
          cl_int(step.relaxation ? 1 : 0),
          Real(step.tau),
          Real(step.lambda));
  Launch(queue, m_Primal, range);
}

template<typename Real>
void
TVDeviceKernels<Real>::Energies(const cl::CommandQueue & queue,
                                const TVDeviceState<Real> & s,
                                const Grid & grid,
                                const ImageRange & range,
                                std::size_t z0,
                                std::size_t z1)
{
  const std::size_t groupSize = range.local[0] * range.local[1] * range.local[2];
  SetArgs(m_Energies,
          s.f.Get(),
          s.u.Get(),
          s.px.Get(),
          s.py.Get(),
          PzOrPx(s).Get(),
          WeightOrF(s).Get(),
          Weighted(s),
          Int(grid.size[0]),
          Int(grid.size[1]),
          Int(grid.size[2]),
          Int(z0),
          Int(z1),
          InverseSpacing<Real>(grid),
          s.partials.Get(),
          cl::Local(groupSize * sizeof(Real)));
  Launch(queue, m_Energies, range);
}

template<typename Real>
TVEnergySums
TVDeviceKernels<Real>::Sum(const Real * partials, std::size_t groups)
{
  double s[kTVEnergyPartials] = { 0, 0, 0, 0 };
  for (std::size_t g = 0; g < groups; ++g)
    for (unsigned k = 0; k < kTVEnergyPartials; ++k)
      s[k] += static_cast<double>(partials[kTVEnergyPartials * g + k]);
  TVEnergySums e;
  e.fidelity = s[0];
  e.tv = s[1];
  e.fDivP = s[2];
  e.divPSquared = s[3];
  return e;
}

template struct TVDeviceState<float>;
template struct TVDeviceState<double>;
template class TVDeviceKernels<float>;
template class TVDeviceKernels<double>;

} // namespace gpur
