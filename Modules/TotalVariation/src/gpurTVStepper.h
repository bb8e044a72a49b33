// SPDX-License-Identifier: Apache-2.0
// Backend interface of the TV engine (internal): the TV fields and their
// layout, the per-voxel update rules both backends share, and the stepper
// makers. The driver in gpurTVDenoiser.cxx owns the schedule, the gap stop
// and the working scale; the core's driver and decompositions
// (gpurIterativeDriver.h, gpurDecomposition.h) run the steppers.
#ifndef gpurTVStepper_h
#define gpurTVStepper_h

#include "gpurDeviceProgram.h"
#include "gpurFieldStepper.h"
#include "gpurParallel.h"
#include "gpurTVSchedule.h"

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
 * The fields of a TV run in its layout's order: the inputs f and w (the
 * data-term weight), the state u, ubar and the dual p.
 */
enum TVField : unsigned
{
  kTVF,
  kTVWeight,
  kTVU,
  kTVBar,
  kTVP
};

/**
 * The layout of a TV run: w only when weighted, ubar only for the
 * Chambolle-Pock methods (usesBar), p with a z component only for grids of
 * more than one slice. An iteration (dual and primal update) reaches one slice
 * in each direction: the dual reads the forward gradient of ubar, the primal
 * the backward divergence of the new p.
 */
FieldLayout
MakeTVLayout(const Grid & grid, bool weighted, bool usesBar, std::size_t realSize);

/** The inputs of a TV run in its layout's order. */
template<typename Real>
std::vector<const Real *>
TVInputs(const Real * f, const Real * weight)
{
  return { f, weight, nullptr, nullptr, nullptr };
}

template<typename Real>
using TVStepper = FieldStepper<Real, TVStep, TVEnergySums>;

/** One TV iteration on anything with Dual(step) and Primal(step), in the schedule's order. */
template<typename Stages>
void
AdvanceTV(Stages & stages, const TVStep & step)
{
  if (step.primalFirst)
  {
    stages.Primal(step);
    stages.Dual(step);
  }
  else
  {
    stages.Dual(step);
    stages.Primal(step);
  }
}

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

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStepperCPU(const FieldLayout & layout,
                 const std::vector<const Real *> & inputs,
                 const Grid & grid,
                 const ParallelForFunction & parallelFor);

/**
 * The TV kernels of kernels/tv_rof.cl on a device, for the core's device
 * steppers; halfDual stores the iterated dual in IEEE half (float only).
 */
template<typename Real>
std::unique_ptr<DeviceProgram<Real, TVStep, TVEnergySums>>
MakeTVDeviceProgram(DeviceContext & context, const FieldLayout & layout, bool halfDual);

} // namespace gpur

#endif
