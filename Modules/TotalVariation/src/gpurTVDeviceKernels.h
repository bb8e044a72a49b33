// SPDX-License-Identifier: Apache-2.0
// The TV kernels of kernels/tv_rof.cl on one device, launched on any set of
// state buffers (internal): the in-memory stepper holds one set for the whole
// grid, the streaming stepper two region-sized sets that it refills.
#ifndef gpurTVDeviceKernels_h
#define gpurTVDeviceKernels_h

#include "gpurBuffer.h"
#include "gpurProgram.h"
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
 * hold; nothing waits. The modes of the state (weighted, ubar written) and of
 * the step (PDU relaxation) select a program variant built with them as
 * defines (see kernels/tv_rof.cl), built on first use (BuildError then).
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
  struct Variant
  {
    bool built = false;
    Kernel dual, primal, energies;
  };
  /** The kernels of the variant for the state's layout and the relaxation mode (built on first use). */
  Variant &
  For(const TVDeviceState<Real> & state, bool relaxation);

  DeviceContext & m_Context;
  Variant m_Variants[8];
  bool m_Relaxation = false; ///< of the last step, for Energies (which does not depend on it)
};

} // namespace gpur

#endif
