// Backend interface of the TV engine (internal): the driver in gpurTVDenoiser.cxx
// owns the iteration loop, stopping rule and progress; a backend only executes steps.
#ifndef gpurTVStepper_h
#define gpurTVStepper_h

#include "gpurTVSchedule.h"

#include <memory>

namespace gpur
{

/** Per-voxel sums behind the energies (see TVEnergySums). */
struct TVEnergySums
{
  double fidelity = 0.0;    ///< sum (u - f)^2
  double tv = 0.0;          ///< sum |grad u|
  double fDivP = 0.0;       ///< sum f div p
  double divPSquared = 0.0; ///< sum (div p)^2
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
  virtual TVEnergySums
  Energies() = 0;
  /** Copies the current u to the host. */
  virtual void
  Read(Real * u) = 0;
};

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStepperCPU(const Real * f, const Grid & grid, bool usesBar, const ParallelForFunction & parallelFor);

template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVStepperOpenCL(const Real * f, const Grid & grid, bool usesBar, const DeviceInfo & device);

} // namespace gpur

#endif
