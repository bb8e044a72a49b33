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
  bool halfDual = false; ///< the iterated dual is stored in IEEE half (TVParameters::halfPrecisionDual)
};

/** Energy partials per work-group: 4 sums (see TVEnergySums). */
constexpr unsigned kTVEnergyPartials = 4;

/**
 * Device buffers of a TV state of `slices` z-slices and room for the energy
 * partials of such a grid, in one of two forms:
 *  - settled: the fields of MakeTVLayout (u, ubar, p at one iterate), what
 *    the steppers load, store, exchange and measure;
 *  - iterating: u and the dual at the point where the fused pass
 *    (tv_step) continues, with the Chambolle-Pock primal step of the last
 *    iteration still pending (see TVDeviceKernels).
 * u and p are ping-pong pairs (the fused pass reads its neighbours while it
 * writes); a settled ubar lives in the u buffer that is not current (the
 * iterating form needs none). With half duals the iterated p is a pair of
 * half arrays and the settled p a REAL copy. Device memory: f, (w), 2 u and
 * 2d p arrays of REAL (2 + d of REAL and 2d of half with half duals), d =
 * components of p: one p set more than the fields, and one u more for PDU.
 */
template<typename Real>
struct TVDeviceState
{
  DeviceBuffer<Real> f, w, u[2], partials;
  DeviceBuffer<Real> p[2][3];         ///< the iterated dual (REAL storage)
  DeviceBuffer<cl_half> halfP[2][3];  ///< the iterated dual (half storage)
  DeviceBuffer<Real> settledP[3];     ///< half storage only: the settled dual
  unsigned components = 2;            ///< of p
  bool usesBar = false, half = false; ///< see TVStateLayout

  // Where the iteration stands (advanced by TVDeviceKernels on the host as it enqueues).
  mutable unsigned currentU = 0, currentP = 0; ///< which of each pair is current
  mutable bool iterating = false;              ///< the iterating form (else settled)
  mutable TVStep pending;                      ///< the last step (its primal half pending for CP)

  TVDeviceState() = default;
  TVDeviceState(DeviceContext & context, std::size_t voxels, std::size_t groups, const TVStateLayout & layout);

  /** The settled fields (see above). */
  const DeviceBuffer<Real> &
  U() const
  {
    return u[currentU];
  }
  const DeviceBuffer<Real> &
  Bar() const
  {
    return u[1 - currentU];
  }
  const DeviceBuffer<Real> &
  P(unsigned c) const
  {
    const unsigned k = c < components ? c : 0; // 2D: p_x stands in for the absent p_z
    return half ? settledP[k] : p[currentP][k];
  }
  /** Component c of the current (which = 0) or other (which = 1) iterated dual. */
  const cl::Buffer &
  IteratedP(unsigned which, unsigned c) const
  {
    const unsigned k = c < components ? c : 0, slot = which == 0 ? currentP : 1 - currentP;
    return half ? halfP[slot][k].Get() : p[slot][k].Get();
  }
};

/**
 * The TV kernels built for one device and Real. Each call enqueues on the
 * given queue with the grid (nx, ny, nz, spacing) the buffers hold; nothing
 * waits. An iteration is one fused pass (tv_step) once a run of iterations
 * has started; Advance starts from a settled state with the dual half-step
 * (Chambolle-Pock) and Settle finishes with the pending primal half-step, so
 * a settled state after k Advance calls is the state of k iterations of the
 * two-kernel form, to rounding. The modes of the state (dimension, weights,
 * ubar, half duals) and of the step (PDU relaxation) select a program variant
 * built with them as defines (see kernels/tv_rof.cl), built on first use
 * (BuildError then).
 */
template<typename Real>
class TVDeviceKernels
{
public:
  explicit TVDeviceKernels(DeviceContext & context);

  /** One iteration (the state becomes the iterating form). */
  void
  Advance(const cl::CommandQueue & queue,
          const TVDeviceState<Real> & state,
          const Grid & grid,
          const ImageRange & range,
          const TVStep & step);
  /** Brings an iterating state to the settled form (nothing for a settled one). */
  void
  Settle(const cl::CommandQueue & queue,
         const TVDeviceState<Real> & state,
         const Grid & grid,
         const ImageRange & range);
  /** The partial sums of z-slices [z0, z1) of a settled state into state.partials (kTVEnergyPartials per work-group).
   */
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
    Kernel dual, primal, step, widen, narrow, energies;
    ImageRange tile; ///< the launch of tv_step for the range it was last fitted to
    cl::NDRange fittedTo;
  };
  /** The kernels of the variant for the state's layout and the relaxation mode (built on first use). */
  Variant &
  For(const TVDeviceState<Real> & state, bool relaxation);
  /** The fused pass: primal step a, then the dual step of sigma (see tv_step). */
  void
  Step(const cl::CommandQueue & queue,
       const TVDeviceState<Real> & state,
       const Grid & grid,
       const ImageRange & range,
       const TVStep & a,
       double sigma);
  /** Copies the dual between its settled and iterated storage (half duals). */
  void
  ConvertDual(const cl::CommandQueue & queue,
              const TVDeviceState<Real> & state,
              const Grid & grid,
              const ImageRange & range,
              bool toSettled);

  DeviceContext & m_Context;
  /**
   * tv_step forms ubar in a local-memory tile (TV_LOCAL_TILE) on every device
   * but CPUs, whose OpenCL drivers (PoCL) vectorise work-items only in code
   * without barriers; there it recomputes ubar's forward neighbours in
   * registers. That costs 3 primal updates per voxel in 2D and 4 in 3D, where
   * a CPU is bound by arithmetic rather than by memory: on PoCL (2 cores,
   * AVX-512) the fused pass ran 2D at 1.3-1.5x the two-pass form but 3D at
   * 0.5-0.8x, so CPU drivers run Chambolle-Pock in 3D in the two-pass form
   * (tv_dual, tv_primal: Advance settles after each iteration). PDU, and
   * half duals (whose settling converts p), always run fused.
   */
  const bool m_LocalTile;
  Variant m_Variants[32];
};

} // namespace gpur

#endif
