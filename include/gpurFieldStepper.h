// SPDX-License-Identifier: Apache-2.0
// The backend interface of an iterative engine over declared fields: a
// stepper holds the state fields of a grid, advances them one step at a time
// and measures sums over z-slice ranges. The engine's driver owns the loop
// (gpurIterativeDriver.h); the decompositions (gpurSlabStepper.h,
// gpurStreamStepper.h) are steppers made of steppers, so a driver runs them
// unchanged.
#ifndef gpurFieldStepper_h
#define gpurFieldStepper_h

#include "gpurError.h"
#include "gpurFieldLayout.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace gpur
{

/**
 * Host storage of the state fields of a layout on a grid: one array per field
 * with its components one after the other.
 */
template<typename Real>
class HostFieldStorage
{
public:
  HostFieldStorage() = default;
  /** Arrays for the state fields of `layout` on `grid` (uninitialised: see Initialize). */
  HostFieldStorage(const FieldLayout & layout, const Grid & grid)
    : m_Count(grid.Count())
  {
    for (const Field & f : layout.fields)
      m_Data.emplace_back(f.role == FieldRole::State ? f.components * m_Count : 0);
  }

  /** Component c of field k (null when the field is absent or an input). */
  Real *
  Data(unsigned k, unsigned c = 0)
  {
    return m_Data[k].empty() ? nullptr : m_Data[k].data() + c * m_Count;
  }

  /** The state at its start: each field a copy of its input (inputs[k] of the layout's field k), or zeros. */
  void
  Initialize(const FieldLayout & layout, const std::vector<const Real *> & inputs)
  {
    for (unsigned k = 0; k < layout.fields.size(); ++k)
    {
      const Field & f = layout.fields[k];
      if (f.role != FieldRole::State || !f.Present())
        continue;
      if (f.initialFrom != Field::kZero && inputs[f.initialFrom] != nullptr)
        std::copy(inputs[f.initialFrom], inputs[f.initialFrom] + m_Count, m_Data[k].begin());
      else
        std::fill(m_Data[k].begin(), m_Data[k].end(), Real(0));
    }
  }

  /** The whole state as a HostFields view. */
  HostFields<Real>
  View()
  {
    HostFields<Real> v;
    for (unsigned k = 0; k < m_Data.size(); ++k)
      v.data.push_back(Data(k));
    return v;
  }

  /** Copies z-slices [first, first + slices) from a host copy. */
  void
  Load(const FieldLayout & layout,
       const Grid & grid,
       const HostFields<const Real> & host,
       std::size_t first,
       std::size_t slices)
  {
    ForEachFieldPart(layout,
                     grid,
                     host,
                     first,
                     slices,
                     [this](const Real * from, unsigned k, unsigned c, std::size_t offset, std::size_t n)
                     { std::copy_n(from, n, Data(k, c) + offset); });
  }

  /** The reverse of Load. */
  void
  Store(const FieldLayout & layout,
        const Grid & grid,
        const HostFields<Real> & host,
        std::size_t first,
        std::size_t slices)
  {
    ForEachFieldPart(layout,
                     grid,
                     host,
                     first,
                     slices,
                     [this](Real * to, unsigned k, unsigned c, std::size_t offset, std::size_t n)
                     { std::copy_n(Data(k, c) + offset, n, to); });
  }

private:
  std::size_t m_Count = 0;
  std::vector<std::vector<Real>> m_Data;
};

/**
 * A stepper over the state fields of `layout` on `grid`. Step is one step's
 * parameters (e.g. the step sizes of an iteration), Sums what Measure returns
 * (it must have += to add parts).
 */
template<typename Real, typename Step, typename Sums>
class FieldStepper
{
public:
  /** A stepper of `layout`'s fields on `grid`. */
  FieldStepper(FieldLayout layout, const Grid & grid)
    : m_Layout(std::move(layout))
    , m_Grid(grid)
  {
  }
  virtual ~FieldStepper() = default;

  /** The fields this stepper advances. */
  const FieldLayout &
  Layout() const
  {
    return m_Layout;
  }
  /** The grid of the fields. */
  const Grid &
  GetGrid() const
  {
    return m_Grid;
  }

  /** The state at its start (HostFieldStorage::Initialize's rule). */
  virtual void
  Initialize() = 0;
  /** One step of the method (all its stages); may only be enqueued. */
  virtual void
  Advance(const Step & step) = 0;
  /** The sums over z-slices [firstSlice, firstSlice + slices) (a part's interior). */
  virtual Sums
  Measure(std::size_t firstSlice, std::size_t slices) = 0;
  /** Copies z-slices [firstSlice, firstSlice + slices) of the state from a host copy (its null fields skipped). */
  virtual void
  Load(const HostFields<const Real> & host, std::size_t firstSlice, std::size_t slices) = 0;
  /** The reverse of Load. */
  virtual void
  Store(const HostFields<Real> & host, std::size_t firstSlice, std::size_t slices) = 0;
  /** z-regions per device when the state streams through host memory; 0: it stays on the devices. */
  virtual std::size_t
  StreamRegions() const
  {
    return 0;
  }
  /** Returns when every step advanced so far is done (Auto's speed probe times them); the CPU steppers are. */
  virtual void
  Finish()
  {
  }

  /**
   * Keeps a copy of the whole state, to which Restore returns (a rejected
   * step of an adaptive method). This default goes through host memory;
   * backends may keep it where the state lives.
   */
  virtual void
  Snapshot()
  {
    if (m_Snapshot == nullptr)
      m_Snapshot.reset(new HostFieldStorage<Real>(m_Layout, m_Grid));
    Store(m_Snapshot->View(), 0, m_Grid.size[2]);
  }
  /** Returns the state to the last Snapshot; throws Error without one. */
  virtual void
  Restore()
  {
    if (m_Snapshot == nullptr)
      throw Error(m_Layout.method + ": Restore without a Snapshot");
    Load(AsConst(m_Snapshot->View()), 0, m_Grid.size[2]);
  }

private:
  const FieldLayout m_Layout;
  const Grid m_Grid;
  std::unique_ptr<HostFieldStorage<Real>> m_Snapshot;
};

} // namespace gpur

#endif
