// SPDX-License-Identifier: Apache-2.0
// What a family supplies to run its declared fields on an OpenCL device, and
// the stepper that keeps the whole state in one device's memory. The
// streaming stepper (gpurStreamStepper.h) runs the same program on regions.
#ifndef gpurDeviceProgram_h
#define gpurDeviceProgram_h

#include "gpurBuffer.h"
#include "gpurFieldStepper.h"
#include "gpurLaunch.h"
#include "gpurQueueThrottle.h"

#include <functional>
#include <memory>
#include <vector>

namespace gpur
{

/** The number of work-groups of a launch range. */
inline std::size_t
WorkGroups(const ImageRange & range)
{
  std::size_t groups = 1;
  for (unsigned d = 0; d < 3; ++d)
    groups *= range.global[d] / range.local[d];
  return groups;
}

/** A family's device buffers of a grid (or of a region): every present field of its layout, and measure partials. */
template<typename Real>
class DeviceFields
{
public:
  virtual ~DeviceFields() = default;
  /** Component c of field k of the layout (inputs: c = 0). */
  virtual const DeviceBuffer<Real> &
  Field(unsigned k, unsigned c) const = 0;
  /** Room for the partial sums of Measure (PartialsPerGroup per work-group). */
  virtual const DeviceBuffer<Real> &
  Partials() const = 0;
};

/**
 * A family's kernels on one device, launched on any DeviceFields: the
 * in-memory stepper holds one set for the whole grid, the streaming stepper
 * two region-sized sets that it refills. Each call enqueues; nothing waits.
 */
template<typename Real, typename Step, typename Sums>
class DeviceProgram
{
public:
  virtual ~DeviceProgram() = default;
  /** Buffers for `voxels` voxels and the partials of `groups` work-groups. */
  virtual std::unique_ptr<DeviceFields<Real>>
  Allocate(DeviceContext & context, std::size_t voxels, std::size_t groups) const = 0;
  virtual void
  Advance(const cl::CommandQueue & queue,
          const DeviceFields<Real> & fields,
          const Grid & grid,
          const ImageRange & range,
          const Step & step) = 0;
  /**
   * Completes whatever Advance left in a program's own working form, so that
   * the fields hold the state of the layout. The steppers call it before they
   * read or write the fields (Load, Store, a streamed region's download); a
   * program whose Advance leaves the fields as they are keeps the default.
   */
  virtual void
  Settle(const cl::CommandQueue & /*queue*/,
         const DeviceFields<Real> & /*fields*/,
         const Grid & /*grid*/,
         const ImageRange & /*range*/)
  {
  }
  /** The partial sums of z-slices [z0, z1) into fields.Partials(). */
  virtual void
  Measure(const cl::CommandQueue & queue,
          const DeviceFields<Real> & fields,
          const Grid & grid,
          const ImageRange & range,
          std::size_t z0,
          std::size_t z1) = 0;
  /** Adds up the partials of `groups` work-groups. */
  virtual Sums
  Sum(const Real * partials, std::size_t groups) const = 0;
  virtual unsigned
  PartialsPerGroup() const = 0;
};

/** Builds a family's program on a device (a context per device, shared by the process). */
template<typename Real, typename Step, typename Sums>
using DeviceProgramFactory = std::function<std::unique_ptr<DeviceProgram<Real, Step, Sums>>(DeviceContext &)>;

/** Uploads the present input fields of a layout, slices from p0 on, into a part's buffers (blocking or not). */
template<typename Real>
void
UploadInputs(const cl::CommandQueue & queue,
             const FieldLayout & layout,
             const DeviceFields<Real> & fields,
             const std::vector<const Real *> & inputs,
             std::size_t offset,
             std::size_t voxels,
             bool blocking)
{
  for (unsigned k = 0; k < layout.fields.size(); ++k)
    if (layout.fields[k].role == FieldRole::Input && layout.fields[k].Present() && inputs[k] != nullptr)
      fields.Field(k, 0).Upload(queue, inputs[k] + offset, voxels, 0, blocking);
}

/** The whole state of a grid in one device's memory. */
template<typename Real, typename Step, typename Sums>
class DeviceFieldStepper : public FieldStepper<Real, Step, Sums>
{
public:
  using Base = FieldStepper<Real, Step, Sums>;

  /** The program must be built on the device's context (DeviceContext::Get(device)). */
  DeviceFieldStepper(const FieldLayout & layout,
                     const std::vector<const Real *> & inputs,
                     const Grid & grid,
                     const DeviceInfo & device,
                     std::unique_ptr<DeviceProgram<Real, Step, Sums>> program)
    : Base(layout, grid)
    , m_Context(DeviceContext::Get(device))
    , m_Range(MakeImageRange(grid, device))
    , m_Program(std::move(program))
  {
    const std::size_t n = grid.Count();
    m_Context->CheckMemory(
      layout.Volumes() * n * sizeof(Real), n * sizeof(Real), layout.method + " of " + grid.ToString());
    m_Fields = m_Program->Allocate(*m_Context, n, WorkGroups(m_Range));
    UploadInputs(Queue(), layout, *m_Fields, inputs, 0, n, true);
  }

  void
  Initialize() override
  {
    const auto & fields = this->Layout().fields;
    for (unsigned k = 0; k < fields.size(); ++k)
    {
      const Field & f = fields[k];
      if (f.role != FieldRole::State || !f.Present())
        continue;
      if (f.initialFrom != Field::kZero && fields[f.initialFrom].Present())
        m_Fields->Field(k, 0).CopyFrom(Queue(), m_Fields->Field(f.initialFrom, 0));
      else
        for (unsigned c = 0; c < f.components; ++c)
          m_Fields->Field(k, c).Fill(Queue(), Real(0));
    }
  }

  void
  Advance(const Step & step) override
  {
    m_Program->Advance(Queue(), *m_Fields, this->GetGrid(), m_Range, step);
    m_Throttle.Step(Queue()); // progress and abort follow the device (see QueueThrottle)
  }

  Sums
  Measure(std::size_t firstSlice, std::size_t slices) override
  {
    m_Program->Measure(Queue(), *m_Fields, this->GetGrid(), m_Range, firstSlice, firstSlice + slices);
    const std::vector<Real> partials = m_Fields->Partials().Download(Queue());
    return m_Program->Sum(partials.data(), WorkGroups(m_Range));
  }

  void
  Load(const HostFields<const Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    m_Program->Settle(Queue(), *m_Fields, this->GetGrid(), m_Range);
    ForEachFieldPart(this->Layout(),
                     this->GetGrid(),
                     host,
                     firstSlice,
                     slices,
                     [this](const Real * from, unsigned k, unsigned c, std::size_t offset, std::size_t n)
                     { m_Fields->Field(k, c).Upload(Queue(), from, n, offset); });
  }

  void
  Store(const HostFields<Real> & host, std::size_t firstSlice, std::size_t slices) override
  {
    m_Program->Settle(Queue(), *m_Fields, this->GetGrid(), m_Range);
    ForEachFieldPart(this->Layout(),
                     this->GetGrid(),
                     host,
                     firstSlice,
                     slices,
                     [this](Real * to, unsigned k, unsigned c, std::size_t offset, std::size_t n)
                     { m_Fields->Field(k, c).Download(Queue(), to, n, offset); });
  }

  void
  Finish() override
  {
    Queue().finish();
  }

private:
  const cl::CommandQueue &
  Queue() const
  {
    return m_Context->Queue(0);
  }

  std::shared_ptr<DeviceContext> m_Context;
  const ImageRange m_Range;
  std::unique_ptr<DeviceProgram<Real, Step, Sums>> m_Program;
  std::unique_ptr<DeviceFields<Real>> m_Fields;
  QueueThrottle m_Throttle;
};

} // namespace gpur

#endif
