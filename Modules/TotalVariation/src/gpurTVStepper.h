// Backend interface of the TV engine (internal): the driver in gpurTVDenoiser.cxx
// owns the iteration loop, stopping rule and progress; a backend only executes steps.
#ifndef gpurTVStepper_h
#define gpurTVStepper_h

#include "gpurTVSchedule.h"

#include <algorithm>
#include <cstddef>

#include <memory>

namespace gpur
{

/** Per-voxel sums behind the energies (see TVEnergySums). */
struct TVEnergySums
{
  double fidelity = 0.0;    ///< sum (u - f)^2 / w
  double tv = 0.0;          ///< sum |grad u|
  double fDivP = 0.0;       ///< sum f div p
  double divPSquared = 0.0; ///< sum w (div p)^2

  /** Adds the sums of another part of the grid (slabs, streamed regions). */
  TVEnergySums &
  operator+=(const TVEnergySums & o)
  {
    fidelity += o.fidelity;
    tv += o.tv;
    fDivP += o.fDivP;
    divPSquared += o.divPSquared;
    return *this;
  }
};

/**
 * The per-voxel update rules both backends share (the OpenCL twins are in
 * kernels/tv_rof.cl). w is the data-term weight of the voxel.
 */
template<typename Real>
struct TVPrimalCoefficients
{
  Real b, c;
  TVPrimalCoefficients(const TVStep & step)
    : b(static_cast<Real>(step.b))
    , c(static_cast<Real>(step.c))
  {
  }
  /** Weighted coefficients: the CP prox or the PDU relaxation (see tv_primal). */
  static TVPrimalCoefficients
  Weighted(const TVPrimalCoefficients & plain, const TVStep & step, Real w)
  {
    TVPrimalCoefficients k = plain;
    const Real tau = static_cast<Real>(step.tau), lambda = static_cast<Real>(step.lambda);
    if (step.relaxation)
    {
      k.c = tau * w / lambda;
    }
    else
    {
      const Real t = tau * lambda, den = w + t;
      k.b = t / den;
      k.c = tau * w / den;
    }
    return k;
  }
};

/**
 * A host copy of (part of) a stepper's state: TVStateView arrays that hold the
 * stepper's z-slices from firstSlice on, with the p components componentStride
 * values apart (0: the stepper grid's Count(), a whole-grid copy).
 */
template<typename HostReal>
struct HostTVState
{
  TVStateView<HostReal> view;
  std::size_t firstSlice = 0;
  std::size_t componentStride = 0;
};

template<typename Real>
HostTVState<const Real>
AsConst(const HostTVState<Real> & host)
{
  HostTVState<const Real> c;
  c.view.u = host.view.u;
  c.view.bar = host.view.bar;
  c.view.p = host.view.p;
  c.firstSlice = host.firstSlice;
  c.componentStride = host.componentStride;
  return c;
}

/** Part of a z-split: interior slices [z0, z1), padded by halo slices on both sides to [p0, p1) (clipped). */
struct TVZPart
{
  std::size_t z0, z1;
  std::size_t p0, p1;
};

/** Part `index` of `parts` near-equal z-parts of nz slices (slabs of devices, streamed regions). */
inline TVZPart
SplitZ(std::size_t nz, std::size_t parts, std::size_t index, std::size_t halo)
{
  TVZPart part;
  part.z0 = nz * index / parts;
  part.z1 = nz * (index + 1) / parts;
  part.p0 = part.z0 > halo ? part.z0 - halo : 0;
  part.p1 = std::min(nz, part.z1 + halo);
  return part;
}

template<typename Real>
class TVStepper
{
public:
  virtual ~TVStepper() = default;
  /** u = ubar = f, p = 0. */
  virtual void
  Initialize() = 0;
  virtual void
  Dual(const TVStep & step) = 0;
  virtual void
  Primal(const TVStep & step) = 0;
  /** The sums over z-slices [firstSlice, firstSlice + slices) (a slab's interior). */
  virtual TVEnergySums
  Energies(std::size_t firstSlice, std::size_t slices) = 0;
  /**
   * Copies z-slices [firstSlice, firstSlice + slices) of the state from a host
   * copy; its null arrays are skipped, and bar is ignored by a stepper without
   * ubar (PDU).
   */
  virtual void
  Load(const HostTVState<const Real> & host, std::size_t firstSlice, std::size_t slices) = 0;
  /** The reverse of Load. */
  virtual void
  Store(const HostTVState<Real> & host, std::size_t firstSlice, std::size_t slices) = 0;
  /** Called by the driver after every whole iteration (the slab stepper exchanges halos here). */
  virtual void
  EndIteration()
  {
  }
  /** z-regions per device when the state streams through host memory; 0: it stays on the devices. */
  virtual std::size_t
  StreamRegions() const
  {
    return 0;
  }
};

/** The arrays of a stepper's state: u, ubar, then the components of p. */
enum class TVStatePart : unsigned
{
  U,
  Bar,
  Px,
  Py,
  Pz
};

/**
 * Calls transfer(host pointer, part, element offset in the stepper, count) for
 * z-slices [firstSlice, firstSlice + slices) of each part that both the host
 * copy (non-null arrays) and the stepper (hasBar, and p_z only with more than
 * one slice) hold. A 3D host copy of a single-slice grid still holds a p_z
 * component: it gets zeros when zeroAbsentPz (a Store).
 */
template<typename HostReal, typename Transfer>
void
ForEachStatePart(const Grid & grid,
                 bool hasBar,
                 const HostTVState<HostReal> & host,
                 std::size_t firstSlice,
                 std::size_t slices,
                 Transfer transfer)
{
  const std::size_t slice = grid.size[0] * grid.size[1];
  const std::size_t offset = firstSlice * slice, n = slices * slice;
  const std::size_t hostOffset = (firstSlice - host.firstSlice) * slice;
  const std::size_t stride = host.componentStride ? host.componentStride : grid.Count();
  if (host.view.u != nullptr)
    transfer(host.view.u + hostOffset, TVStatePart::U, offset, n);
  if (host.view.bar != nullptr && hasBar)
    transfer(host.view.bar + hostOffset, TVStatePart::Bar, offset, n);
  if (host.view.p == nullptr)
    return;
  const unsigned components = grid.size[2] > 1 ? 3 : 2;
  for (unsigned k = 0; k < components; ++k)
    transfer(host.view.p + k * stride + hostOffset, static_cast<TVStatePart>(unsigned(TVStatePart::Px) + k), offset, n);
}

/** Store's zeros for the p_z component a single-slice 3D grid does not hold (its z difference is 0). */
template<typename Real>
void
ZeroAbsentPz(const HostTVState<Real> & host, const Grid & grid, std::size_t firstSlice, std::size_t slices)
{
  const std::size_t slice = grid.size[0] * grid.size[1];
  if (host.view.p != nullptr && grid.dimension == 3 && grid.size[2] == 1)
  {
    const std::size_t stride = host.componentStride ? host.componentStride : grid.Count();
    std::fill_n(host.view.p + 2 * stride + (firstSlice - host.firstSlice) * slice, slices * slice, Real(0));
  }
}

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStepperCPU(const Real * f,
                 const Real * weight,
                 const Grid & grid,
                 bool usesBar,
                 const ParallelForFunction & parallelFor);

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStepperOpenCL(const Real * f, const Real * weight, const Grid & grid, bool usesBar, const DeviceInfo & device);

} // namespace gpur

#endif
