// Several devices as one TV stepper: z-slabs with two-sided halos (internal).
#ifndef gpurTVSlabStepper_h
#define gpurTVSlabStepper_h

#include "gpurTVStepper.h"

#include <functional>
#include <memory>

namespace gpur
{

/** Makes the stepper of one slab: its index, f and weight (or null) of the padded slab, and its grid. */
template<typename Real>
using TVSlabFactory =
  std::function<std::unique_ptr<TVStepper<Real>>(std::size_t slab, const Real * f, const Real * weight, const Grid &)>;

/**
 * How many slabs of at least halo slices a grid of nz slices takes, at most
 * `wanted`; 1 means: do not split.
 */
std::size_t
TVSlabCount(const Grid & grid, std::size_t wanted, std::size_t halo);

/**
 * A stepper over `slabs` z-slabs of the grid, each made by the factory on its
 * interior padded by exchangeInterval + 1 slices of its neighbours (clipped at
 * the volume's faces). Every exchangeInterval iterations the slabs swap the
 * halo slices of u, ubar and p through small host buffers. One iteration
 * moves information by one slice, so the interiors stay exactly those of a
 * single stepper (the thesis' left-only halos are not enough: digest 0.3c,
 * 5.9). Use TVSlabCount first: every interior must hold at least halo slices.
 */
template<typename Real>
std::unique_ptr<TVStepper<Real>>
MakeTVSlabStepper(const Real * f,
                  const Real * weight,
                  const Grid & grid,
                  std::size_t slabs,
                  unsigned exchangeInterval,
                  const TVSlabFactory<Real> & factory);

} // namespace gpur

#endif
