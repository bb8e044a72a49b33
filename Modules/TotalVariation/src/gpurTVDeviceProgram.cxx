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
MakeTVStateLayout(const FieldLayout & fields)
{
  TVStateLayout layout;
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
    const DeviceBuffer<Real> * p[] = { &state.px, &state.py, &state.pz };
    const DeviceBuffer<Real> * fields[] = { &state.f, &state.w, &state.u, &state.bar, p[c] }; // in TVField order
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
  TVDeviceProgram(DeviceContext & context, const FieldLayout & layout)
    : m_Layout(MakeTVStateLayout(layout))
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
    Stages stages{ m_Kernels, queue, State(fields), grid, range };
    AdvanceTV(stages, step);
  }

  void
  Measure(const cl::CommandQueue & queue,
          const DeviceFields<Real> & fields,
          const Grid & grid,
          const ImageRange & range,
          std::size_t z0,
          std::size_t z1) override
  {
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
  struct Stages
  {
    TVDeviceKernels<Real> & kernels;
    const cl::CommandQueue & queue;
    const TVDeviceState<Real> & state;
    const Grid & grid;
    const ImageRange & range;
    void
    Dual(const TVStep & step)
    {
      kernels.Dual(queue, state, grid, range, step);
    }
    void
    Primal(const TVStep & step)
    {
      kernels.Primal(queue, state, grid, range, step);
    }
  };

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
MakeTVDeviceProgram(DeviceContext & context, const FieldLayout & layout)
{
  return std::make_unique<TVDeviceProgram<Real>>(context, layout);
}

template std::unique_ptr<DeviceProgram<float, TVStep, TVEnergySums>>
MakeTVDeviceProgram<float>(DeviceContext &, const FieldLayout &);
template std::unique_ptr<DeviceProgram<double, TVStep, TVEnergySums>>
MakeTVDeviceProgram<double>(DeviceContext &, const FieldLayout &);

} // namespace gpur
