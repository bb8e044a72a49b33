// SPDX-License-Identifier: Apache-2.0
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
cl_int
Int(std::size_t n)
{
  return static_cast<cl_int>(n);
}
} // namespace

template<typename Real>
TVDeviceKernels<Real>::TVDeviceKernels(DeviceContext & context)
  : m_Context(context)
{
  if (std::is_same<Real, double>::value)
    context.RequireDouble("TV denoising");
}

template<typename Real>
typename TVDeviceKernels<Real>::Variant &
TVDeviceKernels<Real>::For(const TVDeviceState<Real> & s, bool relaxation)
{
  const bool weighted = s.w.Size() > 0, writeBar = s.HasBar();
  Variant & v = m_Variants[(weighted ? 1 : 0) + (writeBar ? 2 : 0) + (relaxation ? 4 : 0)];
  if (!v.built)
  {
    const Program program = BuildProgram(m_Context,
                                         ProgramSpec("TV denoising", std::is_same<Real, double>::value)
                                           .Core({ "gpur_common.cl", "gpur_reduce.cl", "gpur_stencils.cl" })
                                           .Module(kernels::tv::Find, { "tv_rof.cl" })
                                           .Define("TV_WEIGHTED", weighted)
                                           .Define("TV_WRITE_BAR", writeBar)
                                           .Define("TV_RELAXATION", relaxation));
    v.dual = program.MakeKernel("tv_dual");
    v.primal = program.MakeKernel("tv_primal");
    v.energies = program.MakeKernel("tv_energies");
    v.built = true;
  }
  return v;
}

template<typename Real>
void
TVDeviceKernels<Real>::Dual(const cl::CommandQueue & queue,
                            const TVDeviceState<Real> & s,
                            const Grid & grid,
                            const ImageRange & range,
                            const TVStep & step)
{
  m_Relaxation = step.relaxation;
  const auto & v = step.dualUsesBar ? s.bar : s.u;
  For(s, step.relaxation)
    .dual.Launch(queue,
                 range,
                 v.Get(),
                 s.px.Get(),
                 s.py.Get(),
                 PzOrPx(s).Get(),
                 Int(grid.size[0]),
                 Int(grid.size[1]),
                 Int(grid.size[2]),
                 InverseSpacing<Real>(grid),
                 Real(step.sigma));
}

template<typename Real>
void
TVDeviceKernels<Real>::Primal(const cl::CommandQueue & queue,
                              const TVDeviceState<Real> & s,
                              const Grid & grid,
                              const ImageRange & range,
                              const TVStep & step)
{
  m_Relaxation = step.relaxation;
  For(s, step.relaxation)
    .primal.Launch(queue,
                   range,
                   s.f.Get(),
                   s.u.Get(),
                   s.HasBar() ? s.bar.Get() : s.u.Get(),
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
                   Real(step.tau),
                   Real(step.lambda));
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
  For(s, m_Relaxation)
    .energies.Launch(queue,
                     range,
                     s.f.Get(),
                     s.u.Get(),
                     s.px.Get(),
                     s.py.Get(),
                     PzOrPx(s).Get(),
                     WeightOrF(s).Get(),
                     Int(grid.size[0]),
                     Int(grid.size[1]),
                     Int(grid.size[2]),
                     Int(z0),
                     Int(z1),
                     InverseSpacing<Real>(grid),
                     s.partials.Get(),
                     cl::Local(groupSize * sizeof(Real)));
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
