// SPDX-License-Identifier: Apache-2.0
// Backend interface of the TV-GD engine (internal): the driver in
// gpurTVGradientDescent.cxx owns the loop, the global norm, the stopping rule
// and progress; a backend only executes the two halves of an iteration on
// ranges of z-slices of its grid:
//   (1) Gradient: du = grad TV(u) on the slices, returning their partial sum of du^2;
//   (2) Update:   u -= scale du on the slices (scale = lambda / ||du||_2 of the whole volume).
// A driver over several slabs (devices, or regions streamed through host memory)
// gives each slab a stepper on the slab grid with at least one halo slice on
// each side that is not a volume boundary, runs Gradient on every slab, sums
// the partials of the slabs' interiors only, takes the square root, then runs
// Update on every slab (interior and whatever halo it keeps valid), and
// refreshes the halos. The gradient of a slice reads u on the slice and its two
// neighbours; a slab's own first and last slices are treated as volume
// boundaries, so only its halo slices get wrong gradients.
#ifndef gpurTVGDStepper_h
#define gpurTVGDStepper_h

#include "gpurDevice.h"
#include "gpurGrid.h"
#include "gpurParallel.h"
#include "gpurTVGDStencil.h"

#include <cstddef>
#include <memory>

namespace gpur
{

template<typename Real>
class TVGDStepper
{
public:
  virtual ~TVGDStepper() = default;
  /** u = f on the whole grid. */
  virtual void
  Initialize() = 0;
  /**
   * du = grad TV(u) on z-slices [firstSlice, firstSlice + slices); returns the
   * sum of du^2 over those slices (accumulated in double).
   */
  virtual double
  Gradient(std::size_t firstSlice, std::size_t slices) = 0;
  /**
   * u -= scale du on the slices (du from the last Gradient on them). With
   * withResidual, returns the sum of (u - f)^2 over the slices after the
   * update, else 0.
   */
  virtual double
  Update(double scale, std::size_t firstSlice, std::size_t slices, bool withResidual) = 0;
  /** Sum of (u - f)^2 over the slices. */
  virtual double
  Residual(std::size_t firstSlice, std::size_t slices) = 0;
  /**
   * Copies z-slices [firstSlice, firstSlice + slices) of u from a whole-grid
   * host array (only those slices are read).
   */
  virtual void
  Load(const Real * u, std::size_t firstSlice, std::size_t slices) = 0;
  /** The reverse of Load: writes only those slices of the whole-grid host array. */
  virtual void
  Store(Real * u, std::size_t firstSlice, std::size_t slices) const = 0;
};

/** The stepper reads f (grid.Count() values) at construction (OpenCL) or keeps the pointer (CPU). */
template<typename Real>
std::unique_ptr<TVGDStepper<Real>>
MakeTVGDStepperCPU(const Real * f,
                   const Grid & grid,
                   const TVGDStencilConstants & constants,
                   const ParallelForFunction & parallelFor);

template<typename Real>
std::unique_ptr<TVGDStepper<Real>>
MakeTVGDStepperOpenCL(const Real * f,
                      const Grid & grid,
                      const TVGDStencilConstants & constants,
                      const DeviceInfo & device);

} // namespace gpur

#endif
