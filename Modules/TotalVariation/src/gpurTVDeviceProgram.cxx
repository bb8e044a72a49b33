// SPDX-License-Identifier: Apache-2.0
// The TV kernels (gpurTVDeviceKernels.h) as a program of the core's device
// steppers: the in-memory one (whole grid) and the streaming one (regions).
#include "gpurTVDeviceKernels.h"

namespace gpur
{

namespace
{

/** The device arrays of a TV layout (MakeTVLayout). */
TVStateLayout
MakeTVStateLayout(const FieldLayout & fields, bool halfDual)
{
  TVStateLayout layout;
  layout.halfDual = halfDual;
  layout.weighted = fields.fields[kTVWeight].Present();
  layout.usesBar = fields.fields[kTVBar].Present();
  layout.threeD = fields.fields[kTVP].components > 2;
  return layout;
}

/** A TVDeviceState seen as the fields of MakeTVLayout. */
template<typename Real>
class TVDeviceFields : public DeviceFields<Real>
{
public:
  TVDeviceFields(DeviceContext & context, std::size_t voxels, std::size_t groups, const TVStateLayout & layout)
    : state(context, voxels, groups, layout)
  {
  }
  const DeviceBuffer<Real> &
  Field(unsigned k, unsigned c) const override
  {
    // The settled form (the program settles before the fields are read or written).
    const DeviceBuffer<Real> * fields[] = {
      &state.f, &state.w, &state.U(), &state.Bar(), &state.P(c)
    }; // TVField order
    return *fields[k];
  }
  const DeviceBuffer<Real> &
  Partials() const override
  {
    return state.partials;
  }

  TVDeviceState<Real> state;
};

template<typename Real>
class TVDeviceProgram : public DeviceProgram<Real, TVStep, TVEnergySums>
{
public:
  TVDeviceProgram(DeviceContext & context, const FieldLayout & layout, bool halfDual)
    : m_Layout(MakeTVStateLayout(layout, halfDual))
    , m_Kernels(context)
  {
  }

  std::unique_ptr<DeviceFields<Real>>
  Allocate(DeviceContext & context, std::size_t voxels, std::size_t groups) const override
  {
    return std::make_unique<TVDeviceFields<Real>>(context, voxels, groups, m_Layout);
  }

  void
  Advance(const cl::CommandQueue & queue,
          const DeviceFields<Real> & fields,
          const Grid & grid,
          const ImageRange & range,
          const TVStep & step) override
  {
    m_Kernels.Advance(queue, State(fields), grid, range, step);
  }

  void
  Settle(const cl::CommandQueue & queue,
         const DeviceFields<Real> & fields,
         const Grid & grid,
         const ImageRange & range) override
  {
    m_Kernels.Settle(queue, State(fields), grid, range);
  }

  void
  Measure(const cl::CommandQueue & queue,
          const DeviceFields<Real> & fields,
          const Grid & grid,
          const ImageRange & range,
          std::size_t z0,
          std::size_t z1) override
  {
    m_Kernels.Settle(queue, State(fields), grid, range);
    m_Kernels.Energies(queue, State(fields), grid, range, z0, z1);
  }

  TVEnergySums
  Sum(const Real * partials, std::size_t groups) const override
  {
    return TVDeviceKernels<Real>::Sum(partials, groups);
  }

  unsigned
  PartialsPerGroup() const override
  {
    return kTVEnergyPartials;
  }

private:
  static const TVDeviceState<Real> &
  State(const DeviceFields<Real> & fields)
  {
    return static_cast<const TVDeviceFields<Real> &>(fields).state;
  }

  const TVStateLayout m_Layout; ///< the buffers Allocate makes
  TVDeviceKernels<Real> m_Kernels;
};

} // namespace

template<typename Real>
std::unique_ptr<DeviceProgram<Real, TVStep, TVEnergySums>>
MakeTVDeviceProgram(DeviceContext & context, const FieldLayout & layout, bool halfDual)
{
  return std::make_unique<TVDeviceProgram<Real>>(context, layout, halfDual);
}

template std::unique_ptr<DeviceProgram<float, TVStep, TVEnergySums>>
MakeTVDeviceProgram<float>(DeviceContext &, const FieldLayout &, bool);
template std::unique_ptr<DeviceProgram<double, TVStep, TVEnergySums>>
MakeTVDeviceProgram<double>(DeviceContext &, const FieldLayout &, bool);

} // namespace gpur
