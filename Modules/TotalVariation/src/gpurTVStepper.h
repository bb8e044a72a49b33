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
};

/**
 * The per-voxel update rules both backends share (the OpenCL twins are in
 * kernels/tv_rof.cl). w is the data-term weight of the voxel.
 */
template<typename Real>
struct TVPrimalCoefficients
{
  Real a, b, c;
  TVPrimalCoefficients(const TVStep & step)
    : a(static_cast<Real>(step.a))
    , b(static_cast<Real>(step.b))
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
      k.a = w / den;
      k.b = t / den;
      k.c = tau * w / den;
    }
    return k;
  }
};

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
   * Copies z-slices [firstSlice, firstSlice + slices) of the state from host
   * arrays laid out as in TVStateView (whole-grid arrays; only those slices are
   * read). bar is ignored by a stepper without ubar (PDU).
   */
  virtual void
  Load(const Real * u, const Real * bar, const Real * p, std::size_t firstSlice, std::size_t slices) = 0;
  /** The reverse of Load; a null pointer skips that part of the state. */
  virtual void
  Store(Real * u, Real * bar, Real * p, std::size_t firstSlice, std::size_t slices) = 0;
};

/**
 * A single-slice 3D grid has no p_z (its forward z difference is 0), but its
 * state still holds that component: Store writes it as zeros.
 */
template<typename Real>
void
ZeroAbsentPz(Real * p, const Grid & grid, std::size_t firstSlice, std::size_t slices)
{
  const std::size_t slice = grid.size[0] * grid.size[1];
  if (p != nullptr && grid.dimension == 3 && grid.size[2] == 1)
  {
    std::fill_n(p + 2 * grid.Count() + firstSlice * slice, slices * slice, Real(0));
  }
}

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
 * Calls transfer(host pointer, part, element offset, count) for z-slices
 * [firstSlice, firstSlice + slices) of each part that both the host state
 * (non-null pointers, TVStateView layout) and the stepper (hasBar, and p_z only
 * with more than one slice) hold.
 */
template<typename HostReal, typename Transfer>
void
ForEachStatePart(const Grid & grid,
                 bool hasBar,
                 HostReal * u,
                 HostReal * bar,
                 HostReal * p,
                 std::size_t firstSlice,
                 std::size_t slices,
                 Transfer transfer)
{
  const std::size_t slice = grid.size[0] * grid.size[1];
  const std::size_t offset = firstSlice * slice, n = slices * slice;
  if (u != nullptr)
    transfer(u + offset, TVStatePart::U, offset, n);
  if (bar != nullptr && hasBar)
    transfer(bar + offset, TVStatePart::Bar, offset, n);
  if (p == nullptr)
    return;
  const unsigned components = grid.size[2] > 1 ? 3 : 2;
  for (unsigned k = 0; k < components; ++k)
    transfer(p + k * grid.Count() + offset, static_cast<TVStatePart>(unsigned(TVStatePart::Px) + k), offset, n);
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
