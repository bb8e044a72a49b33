// SPDX-License-Identifier: Apache-2.0
// The fields an iterative engine declares: what its state is made of and how
// far one step reaches, from which every domain decomposition (several
// devices, streaming through host memory, rounds of chunks, padded
// sub-regions) derives its halos.
#ifndef gpurFieldLayout_h
#define gpurFieldLayout_h

#include "gpurGrid.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace gpur
{

/** What a field is to a run. */
enum class FieldRole
{
  Input, ///< read-only data of the problem (f, weights): one component, given by the caller
  State  ///< what the steps update; loaded, stored, exchanged and snapshot
};

/**
 * One named field of a grid-sized layout: `components` arrays of Grid::Count()
 * elements (0: the field is absent in this run, e.g. an optional weight).
 */
struct Field
{
  std::string name;                  ///< for messages and FieldLayout::Index
  FieldRole role = FieldRole::State; ///< Input or State
  unsigned components = 1;           ///< arrays of the field (a vector field has one per axis); 0: absent
  /** State fields: the input field (index in the layout) they start as, or kZero. */
  unsigned initialFrom = kZero;

  static constexpr unsigned kZero = ~0u; ///< initialFrom of a state that starts at 0

  /** The field is there in this run (components > 0). */
  bool
  Present() const
  {
    return components > 0;
  }
};

/**
 * The declared fields of a run, their element size and the reach of a step.
 * stencilRadius is how many z-slices one step (Advance) moves information,
 * all its stages together: a slice's new state depends on the old state and
 * the inputs within stencilRadius slices of it. Every decomposition derives
 * its halo from it (Halo). A family whose steps are not local (FFTs, global
 * norms inside a step) leaves `decomposable` false and runs whole-grid only.
 */
struct FieldLayout
{
  std::string method;                      ///< what runs, for messages ("TV denoising")
  std::vector<Field> fields;               ///< in the order the steppers index them
  std::size_t elementSize = sizeof(float); ///< bytes per value: sizeof(float) or sizeof(double)
  std::size_t stencilRadius = 1;           ///< z-slices one step moves information (see above)
  bool decomposable = false;               ///< the run may be split into z-parts (see above)
  /**
   * Grid-sized arrays of elementSize that a device program holds beyond the
   * fields (ping-pong copies, a working form of the state), for the device
   * memory plans; 0 for a program that holds the fields only.
   */
  std::size_t deviceWorkVolumes = 0;

  /**
   * Halo slices that keep a part's interior exact for `steps` steps without
   * an exchange: stencilRadius per step, plus one radius more so that what
   * reads the interior after them (the next step, a measurement such as an
   * energy) still sees exact neighbours.
   */
  std::size_t
  Halo(std::size_t steps) const
  {
    return stencilRadius * (steps + 1);
  }

  /** Arrays of Grid::Count() elements a whole-grid copy of every present field takes on a device (with its work
   * arrays). */
  std::size_t
  Volumes() const
  {
    std::size_t n = deviceWorkVolumes;
    for (const Field & f : fields)
      n += f.components;
    return n;
  }

  /** The index of a field; throws InvalidArgument when none has that name. */
  unsigned
  Index(const std::string & name) const;

  /** Throws InvalidArgument when the declaration is inconsistent (inputs of more than one component, ...). */
  void
  Validate() const;
};

/**
 * Host arrays of (part of) the state fields of a layout: data[k] is field k's
 * first component (null: skipped; input fields are always skipped), the
 * components componentStride values apart (0: the whole grid's Count()),
 * holding the grid's z-slices from firstSlice on.
 */
template<typename Real>
struct HostFields
{
  std::vector<Real *> data;        ///< per field: its first component, or null
  std::size_t firstSlice = 0;      ///< the grid's z-slice that the arrays start at
  std::size_t componentStride = 0; ///< values between components; 0: the whole grid's Count()
};

/** The same host arrays, read-only. */
template<typename Real>
HostFields<const Real>
AsConst(const HostFields<Real> & host)
{
  HostFields<const Real> c;
  c.data.assign(host.data.begin(), host.data.end());
  c.firstSlice = host.firstSlice;
  c.componentStride = host.componentStride;
  return c;
}

/**
 * Calls transfer(host pointer, field, component, element offset in the grid,
 * count) for z-slices [firstSlice, firstSlice + slices) of every component of
 * each present state field that the host copy holds (non-null).
 */
template<typename Real, typename Transfer>
void
ForEachFieldPart(const FieldLayout & layout,
                 const Grid & grid,
                 const HostFields<Real> & host,
                 std::size_t firstSlice,
                 std::size_t slices,
                 Transfer transfer)
{
  const std::size_t slice = grid.size[0] * grid.size[1];
  const std::size_t offset = firstSlice * slice, n = slices * slice;
  const std::size_t hostOffset = (firstSlice - host.firstSlice) * slice;
  const std::size_t stride = host.componentStride ? host.componentStride : grid.Count();
  for (unsigned k = 0; k < layout.fields.size() && k < host.data.size(); ++k)
  {
    const Field & field = layout.fields[k];
    if (field.role != FieldRole::State || host.data[k] == nullptr)
      continue;
    for (unsigned c = 0; c < field.components; ++c)
      transfer(host.data[k] + c * stride + hostOffset, k, c, offset, n);
  }
}

/** Part of a z-split: interior slices [z0, z1), padded by halo slices on both sides to [p0, p1) (clipped). */
struct ZPart
{
  std::size_t z0; ///< first interior slice
  std::size_t z1; ///< one past the last interior slice
  std::size_t p0; ///< first padded slice
  std::size_t p1; ///< one past the last padded slice
};

/** Part `index` of `parts` near-equal z-parts of nz slices (slabs of devices, streamed regions). */
inline ZPart
SplitZ(std::size_t nz, std::size_t parts, std::size_t index, std::size_t halo)
{
  ZPart part;
  part.z0 = nz * index / parts;
  part.z1 = nz * (index + 1) / parts;
  part.p0 = part.z0 > halo ? part.z0 - halo : 0;
  part.p1 = std::min(nz, part.z1 + halo);
  return part;
}

/**
 * How many z-slabs of at least `halo` slices a grid takes, at most `wanted`;
 * 1 means: do not split.
 */
inline std::size_t
SlabCount(const Grid & grid, std::size_t wanted, std::size_t halo)
{
  return std::max<std::size_t>(1, std::min(wanted, grid.size[2] / std::max<std::size_t>(halo, 1)));
}

} // namespace gpur

#endif
