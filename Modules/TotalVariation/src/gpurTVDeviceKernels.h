// The TV kernels of kernels/tv_rof.cl on one device, launched on any set of
// state buffers (internal): the in-memory stepper holds one set for the whole
// grid, the streaming stepper two region-sized sets that it refills.
#ifndef gpurTVDeviceKernels_h
#define gpurTVDeviceKernels_h

#include "gpurBuffer.h"
#include "gpurLaunch.h"
#include "gpurTVStepper.h"

#include <cstdint>

namespace gpur
{

/** Which arrays a TV state holds on a device. */
struct TVStateLayout
{
  bool weighted = false; ///< w (the data-term weight)
  bool usesBar = false;  ///< ubar (the Chambolle-Pock methods)
  bool threeD = false;   ///< p_z (grids of more than one slice)
};

/** Energy partials per work-group: 4 sums (see TVEnergySums). */
constexpr unsigned kTVEnergyPartials = 4;

/**
 * Device buffers of a TV state of `slices` z-slices (the absent arrays of the
 * layout are empty), and room for the energy partials of such a grid.
 */
template<typename Real>
struct TVDeviceState
{
  DeviceBuffer<Real> f, w, u, bar, px, py, pz, partials;

  TVDeviceState() = default;
  TVDeviceState(DeviceContext & context, std::size_t voxels, std::size_t groups, const TVStateLayout & layout);

  bool
  HasBar() const
  {
    return bar.Size() > 0;
  }
};

/**
 * The dual, primal and energy kernels built for one device and Real. Each call
 * enqueues on the given queue with the grid (nx, ny, nz, spacing) the buffers
 * hold; nothing waits.
 */
template<typename Real>
class TVDeviceKernels
{
public:
  explicit TVDeviceKernels(DeviceContext & context);

  void
  Dual(const cl::CommandQueue & queue,
       const TVDeviceState<Real> & state,
       const Grid & grid,
       const ImageRange & range,
       const TVStep & step);
  void
  Primal(const cl::CommandQueue & queue,
         const TVDeviceState<Real> & state,
         const Grid & grid,
         const ImageRange & range,
         const TVStep & step);
  /** The partial sums of z-slices [z0, z1) into state.partials (kTVEnergyPartials per work-group). */
  void
  Energies(const cl::CommandQueue & queue,
           const TVDeviceState<Real> & state,
           const Grid & grid,
           const ImageRange & range,
           std::size_t z0,
           std::size_t z1);
  /** Sums partials of `groups` work-groups (in double). */
  static TVEnergySums
  Sum(const Real * partials, std::size_t groups);

private:
  cl::Kernel m_Dual, m_Primal, m_Energies;
};

} // namespace gpur

#endif
