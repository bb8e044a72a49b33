// SPDX-License-Identifier: Apache-2.0
#include "gpurTVDeviceKernels.h"

#include "gpurTVKernels.h" // generated from kernels/*.cl

#include <algorithm>
#include <sstream>
#include <string>
#include <tuple>

namespace gpur
{

template<typename Real>
TVDeviceState<Real>::TVDeviceState(DeviceContext & context,
                                   std::size_t voxels,
                                   std::size_t groups,
                                   const TVStateLayout & layout)
  : f(context, voxels, CL_MEM_READ_ONLY)
  , partials(context, kTVEnergyPartials * groups)
  , components(layout.threeD ? 3 : 2)
  , usesBar(layout.usesBar)
  , half(layout.halfDual)
{
  if (layout.weighted)
    w = DeviceBuffer<Real>(context, voxels, CL_MEM_READ_ONLY);
  for (auto & b : u)
    b = DeviceBuffer<Real>(context, voxels);
  for (unsigned c = 0; c < components; ++c)
  {
    for (unsigned k = 0; k < 2; ++k)
      if (half)
        halfP[k][c] = DeviceBuffer<cl_half>(context, voxels);
      else
        p[k][c] = DeviceBuffer<Real>(context, voxels);
    if (half)
      settledP[c] = DeviceBuffer<Real>(context, voxels);
  }
}

namespace
{

// Without weights the kernels never read w (f stands in).
template<typename Real>
const DeviceBuffer<Real> &
WeightOrF(const TVDeviceState<Real> & s)
{
  return s.w.Size() > 0 ? s.w : s.f;
}
cl_int
Int(std::size_t n)
{
  return static_cast<cl_int>(n);
}

// Kernel arguments that every TV kernel takes together, as groups: Launch
// below passes a tuple's elements as consecutive arguments, so the kernels'
// long and alike argument lists read as what they are.
template<typename T>
std::tuple<const T &>
AsArguments(const T & value)
{
  return std::tuple<const T &>(value);
}
template<typename... T>
const std::tuple<T...> &
AsArguments(const std::tuple<T...> & group)
{
  return group;
}
template<typename... Args>
void
Launch(Kernel & kernel, const cl::CommandQueue & queue, const ImageRange & range, const Args &... args)
{
  std::apply([&](const auto &... flat) { kernel.Launch(queue, range, flat...); }, std::tuple_cat(AsArguments(args)...));
}

// nx, ny, nz.
std::tuple<cl_int, cl_int, cl_int>
Extent(const Grid & grid)
{
  return { Int(grid.size[0]), Int(grid.size[1]), Int(grid.size[2]) };
}

// The three components of a dual (2D: p_x stands in for the absent p_z, see TVDeviceState::P).
template<typename Real>
std::tuple<const cl::Buffer &, const cl::Buffer &, const cl::Buffer &>
SettledDual(const TVDeviceState<Real> & s)
{
  return { s.P(0).Get(), s.P(1).Get(), s.P(2).Get() };
}
template<typename Real>
std::tuple<const cl::Buffer &, const cl::Buffer &, const cl::Buffer &>
IteratedDual(const TVDeviceState<Real> & s, unsigned which)
{
  return { s.IteratedP(which, 0), s.IteratedP(which, 1), s.IteratedP(which, 2) };
}

// The primal step's coefficients b, c, theta, tau, lambda (TVStep).
template<typename Real>
std::tuple<Real, Real, Real, Real, Real>
PrimalCoefficients(const TVStep & a)
{
  return { Real(a.b), Real(a.c), Real(a.theta), Real(a.tau), Real(a.lambda) };
}

/**
 * The launch of tv_step: the image range's work-groups, halved (y first)
 * until the kernel's work-group limit and its local tile of (lx + 1)(ly + 1)
 * values fit the device. Halving keeps the global size a multiple.
 */
ImageRange
FitTile(const ImageRange & range, std::size_t kernelLimit, std::uint64_t localMemory, std::size_t realSize)
{
  std::size_t lx = range.local[0], ly = range.local[1];
  auto fits = [&] { return lx * ly <= kernelLimit && (lx + 1) * (ly + 1) * realSize <= localMemory; };
  while (!fits() && (lx > 1 || ly > 1))
  {
    if (ly > 1 && ly >= lx / 2)
      ly /= 2;
    else
      lx /= 2;
  }
  if (!fits())
  {
    std::ostringstream message;
    message << "TV denoising: the device has " << localMemory << " bytes of local memory and a work-group limit of "
            << kernelLimit << " for the fused iteration; it needs at least " << 4 * realSize
            << " bytes and 1 work-item";
    throw Error(message.str());
  }
  return { range.global, cl::NDRange(lx, ly, 1) };
}

/**
 * The launch of tv_step on a CPU driver: work-groups of one row of 64 voxels,
 * which PoCL runs as one vectorised loop (measured on PoCL 3 with AVX-512,
 * 2D 1024^2: 1.3-1.5x the speed of the (16, 16) groups of MakeImageRange).
 */
ImageRange
RowRange(const Grid & grid, std::size_t kernelLimit)
{
  const std::size_t lx = std::min<std::size_t>(64, std::max<std::size_t>(1, kernelLimit));
  return { cl::NDRange((grid.size[0] + lx - 1) / lx * lx, grid.size[1], grid.size[2]), cl::NDRange(lx, 1, 1) };
}

/**
 * Whether tv_step forms ubar in local memory on a device (see m_LocalTile):
 * every device but CPUs, unless $ITKGPUR_TV_TILE says "local" or "registers"
 * (so that either form can be tested, or timed, on any device).
 */
bool
UsesLocalTile(const DeviceInfo & device)
{
  return KernelFormChoice("ITKGPUR_TV_TILE", "local", "registers", device.type != DeviceType::CPU);
}

bool
SameRange(const cl::NDRange & a, const cl::NDRange & b)
{
  return a.dimensions() == b.dimensions() && a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

} // namespace

template<typename Real>
TVDeviceKernels<Real>::TVDeviceKernels(DeviceContext & context)
  : m_Context(context)
  , m_LocalTile(UsesLocalTile(context.Info()))
{
  if (std::is_same<Real, double>::value)
    context.RequireDouble("TV denoising");
}

template<typename Real>
typename TVDeviceKernels<Real>::Variant &
TVDeviceKernels<Real>::For(const TVDeviceState<Real> & s, bool relaxation)
{
  const bool weighted = s.w.Size() > 0, threeD = s.components == 3;
  Variant & v =
    m_Variants[(weighted ? 1 : 0) + (s.usesBar ? 2 : 0) + (relaxation ? 4 : 0) + (threeD ? 8 : 0) + (s.half ? 16 : 0)];
  if (!v.built)
  {
    const Program program = BuildProgram(m_Context,
                                         ProgramSpec("TV denoising", std::is_same<Real, double>::value)
                                           .Core({ "gpur_common.cl", "gpur_reduce.cl", "gpur_stencils.cl" })
                                           .Module(kernels::tv::Find, { "tv_rof.cl" })
                                           .Define("TV_3D", threeD)
                                           .Define("TV_WEIGHTED", weighted)
                                           .Define("TV_WRITE_BAR", s.usesBar)
                                           .Define("TV_RELAXATION", relaxation)
                                           .Define("TV_HALF_P", s.half)
                                           .Define("TV_LOCAL_TILE", m_LocalTile));
    v.dual = program.MakeKernel("tv_dual");
    v.primal = program.MakeKernel("tv_primal");
    v.step = program.MakeKernel("tv_step");
    v.widen = program.MakeKernel("tv_widen_p");
    v.narrow = program.MakeKernel("tv_narrow_p");
    v.energies = program.MakeKernel("tv_energies");
    v.built = true;
  }
  return v;
}

template<typename Real>
void
TVDeviceKernels<Real>::Step(const cl::CommandQueue & queue,
                            const TVDeviceState<Real> & s,
                            const Grid & grid,
                            const ImageRange & range,
                            const TVStep & a,
                            double sigma)
{
  Variant & v = For(s, a.relaxation);
  if (!SameRange(v.fittedTo, range.local) || !SameRange(v.tile.global, range.global))
  {
    v.tile = m_LocalTile ? FitTile(range, v.step.WorkGroupLimit(), m_Context.Info().localMemory, sizeof(Real))
                         : FitTile(range, v.step.WorkGroupLimit(), ~std::uint64_t(0), sizeof(Real));
    v.fittedTo = range.local;
    if (!m_LocalTile)
      v.tile = RowRange(grid, v.step.WorkGroupLimit());
  }
  const std::size_t tileValues = m_LocalTile ? (v.tile.local[0] + 1) * (v.tile.local[1] + 1) : 1;
  Launch(v.step,
         queue,
         v.tile,
         s.f.Get(),
         WeightOrF(s).Get(),
         s.u[s.currentU].Get(),
         s.u[1 - s.currentU].Get(),
         IteratedDual(s, 0),
         IteratedDual(s, 1),
         Extent(grid),
         InverseSpacing<Real>(grid),
         PrimalCoefficients<Real>(a),
         Real(sigma),
         cl::Local(tileValues * sizeof(Real)));
  s.currentU = 1 - s.currentU;
  s.currentP = 1 - s.currentP;
}

template<typename Real>
void
TVDeviceKernels<Real>::ConvertDual(const cl::CommandQueue & queue,
                                   const TVDeviceState<Real> & s,
                                   const Grid & grid,
                                   const ImageRange & range,
                                   bool toSettled)
{
  Variant & v = For(s, s.pending.relaxation);
  if (toSettled)
    Launch(v.widen, queue, range, IteratedDual(s, 0), SettledDual(s), Extent(grid));
  else
    Launch(v.narrow, queue, range, SettledDual(s), IteratedDual(s, 0), Extent(grid));
}

template<typename Real>
void
TVDeviceKernels<Real>::Advance(const cl::CommandQueue & queue,
                               const TVDeviceState<Real> & s,
                               const Grid & grid,
                               const ImageRange & range,
                               const TVStep & step)
{
  if (step.primalFirst)
  {
    // PDU: primal then dual at the new u, both of this iteration, in one pass (theta = 0: ubar = u).
    if (!s.iterating && s.half)
      ConvertDual(queue, s, grid, range, false);
    Step(queue, s, grid, range, step, step.sigma);
  }
  else if (s.iterating)
  {
    // Chambolle-Pock: the pending primal step of the last iteration, then this one's dual step.
    Step(queue, s, grid, range, s.pending, step.sigma);
  }
  else
  {
    // Chambolle-Pock from a settled state: this iteration's dual step at the stored ubar.
    Launch(For(s, step.relaxation).dual,
           queue,
           range,
           s.Bar().Get(),
           SettledDual(s),
           IteratedDual(s, 1),
           Extent(grid),
           InverseSpacing<Real>(grid),
           Real(step.sigma));
    s.currentP = 1 - s.currentP;
  }
  s.iterating = true;
  s.pending = step;
  if (!m_LocalTile && s.components == 3 && !step.primalFirst && !s.half)
    Settle(queue, s, grid, range); // a CPU driver in 3D: the two-pass form (see m_LocalTile)
}

template<typename Real>
void
TVDeviceKernels<Real>::Settle(const cl::CommandQueue & queue,
                              const TVDeviceState<Real> & s,
                              const Grid & grid,
                              const ImageRange & range)
{
  if (!s.iterating)
    return;
  const TVStep & a = s.pending;
  if (!a.primalFirst)
  {
    // Chambolle-Pock: the pending primal step, in place, with ubar into the other u buffer.
    Launch(For(s, a.relaxation).primal,
           queue,
           range,
           s.f.Get(),
           s.U().Get(),
           s.Bar().Get(),
           IteratedDual(s, 0),
           WeightOrF(s).Get(),
           Extent(grid),
           InverseSpacing<Real>(grid),
           PrimalCoefficients<Real>(a));
  }
  if (s.half)
    ConvertDual(queue, s, grid, range, true);
  s.iterating = false;
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
  Launch(For(s, s.pending.relaxation).energies,
         queue,
         range,
         s.f.Get(),
         s.U().Get(),
         SettledDual(s),
         WeightOrF(s).Get(),
         Extent(grid),
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
