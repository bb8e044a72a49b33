// SPDX-License-Identifier: Apache-2.0
// The core's iterative driver and domain decompositions with a second field
// layout: a toy method of two state fields whose step reaches two slices
// (toy/toy_fourth_order.cl). Slabs on two devices, streaming with a small
// device memory limit, rounds of padded blocks (dask) and a padded sub-region
// (ITK streaming) must each equal the plain single-stepper run bit for bit.
#include "gpurDecomposition.h"
#include "gpurIterativeDriver.h"
#include "gpurProgram.h"
#include "gpurToyKernels.h" // generated from toy/*.cl

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace
{

using gpur::Field;
using gpur::FieldLayout;
using gpur::FieldRole;
using gpur::Grid;

struct ToyStep
{
  double tau = 0.004;
  double mu = 0.1;
};

struct ToySums
{
  double u = 0.0, vv = 0.0;
  ToySums &
  operator+=(const ToySums & o)
  {
    u += o.u;
    vv += o.vv;
    return *this;
  }
};

using Real = float;
using ToyStepper = gpur::FieldStepper<Real, ToyStep, ToySums>;
using ToySlabs = gpur::SlabStepper<Real, ToyStep, ToySums>;
enum : unsigned
{
  kF,
  kU,
  kV
};

FieldLayout
ToyLayout()
{
  FieldLayout layout;
  layout.method = "toy smoothing";
  layout.elementSize = sizeof(Real);
  layout.stencilRadius = 2;
  layout.decomposable = true;
  layout.fields = { { "f", FieldRole::Input, 1 }, { "u", FieldRole::State, 1, kF }, { "v", FieldRole::State, 1 } };
  return layout;
}

/** The CPU twin of toy_fourth_order.cl (single-threaded: the test is about the decompositions). */
class ToyCPU : public ToyStepper
{
public:
  ToyCPU(const FieldLayout & layout, const std::vector<const Real *> & inputs, const Grid & grid)
    : ToyStepper(layout, grid)
    , m_Inputs(inputs)
    , m_State(layout, grid)
  {
  }
  void
  Initialize() override
  {
    m_State.Initialize(Layout(), m_Inputs);
  }
  void
  Advance(const ToyStep & step) override
  {
    Real *u = m_State.Data(kU), *v = m_State.Data(kV);
    const Real * f = m_Inputs[kF];
    ForEach([&](long x, long y, long z, std::size_t i) { v[i] = Real(0.5) * v[i] + Laplacian(u, x, y, z); });
    const Real tau = Real(step.tau), mu = Real(step.mu);
    ForEach([&](long x, long y, long z, std::size_t i)
            { u[i] = u[i] - tau * Laplacian(v, x, y, z) + mu * (f[i] - u[i]); });
  }
  ToySums
  Measure(std::size_t first, std::size_t slices) override
  {
    const std::size_t slice = GetGrid().size[0] * GetGrid().size[1];
    ToySums s;
    for (std::size_t i = first * slice; i < (first + slices) * slice; ++i)
    {
      s.u += m_State.Data(kU)[i];
      s.vv += double(m_State.Data(kV)[i]) * m_State.Data(kV)[i];
    }
    return s;
  }
  void
  Load(const gpur::HostFields<const Real> & host, std::size_t first, std::size_t slices) override
  {
    m_State.Load(Layout(), GetGrid(), host, first, slices);
  }
  void
  Store(const gpur::HostFields<Real> & host, std::size_t first, std::size_t slices) override
  {
    m_State.Store(Layout(), GetGrid(), host, first, slices);
  }

private:
  template<typename Body>
  void
  ForEach(Body body)
  {
    const auto & n = GetGrid().size;
    std::size_t i = 0;
    for (std::size_t z = 0; z < n[2]; ++z)
      for (std::size_t y = 0; y < n[1]; ++y)
        for (std::size_t x = 0; x < n[0]; ++x, ++i)
          body(long(x), long(y), long(z), i);
  }
  Real
  At(const Real * a, long x, long y, long z) const
  {
    const auto & n = GetGrid().size;
    x = std::min(std::max(x, 0L), long(n[0]) - 1);
    y = std::min(std::max(y, 0L), long(n[1]) - 1);
    z = std::min(std::max(z, 0L), long(n[2]) - 1);
    return a[(std::size_t(z) * n[1] + std::size_t(y)) * n[0] + std::size_t(x)];
  }
  Real
  Laplacian(const Real * a, long x, long y, long z) const
  {
    return At(a, x - 1, y, z) + At(a, x + 1, y, z) + At(a, x, y - 1, z) + At(a, x, y + 1, z) + At(a, x, y, z - 1) +
           At(a, x, y, z + 1) - Real(6) * At(a, x, y, z);
  }

  std::vector<const Real *> m_Inputs;
  gpur::HostFieldStorage<Real> m_State;
};

/** The toy kernels as a program of the core's device steppers. */
class ToyProgram : public gpur::DeviceProgram<Real, ToyStep, ToySums>
{
public:
  explicit ToyProgram(gpur::DeviceContext & context)
  {
    const gpur::Program program = gpur::BuildProgram(context,
                                                     gpur::ProgramSpec("the toy method", false)
                                                       .Core({ "gpur_common.cl", "gpur_reduce.cl" })
                                                       .Module(gpur::kernels::toy::Find, { "toy_fourth_order.cl" }));
    m_First = program.MakeKernel("toy_first");
    m_Second = program.MakeKernel("toy_second");
    m_Sums = program.MakeKernel("toy_sums");
  }

  struct Buffers : gpur::DeviceFields<Real>
  {
    gpur::DeviceBuffer<Real> fields[3], partials;
    const gpur::DeviceBuffer<Real> &
    Field(unsigned k, unsigned) const override
    {
      return fields[k];
    }
    const gpur::DeviceBuffer<Real> &
    Partials() const override
    {
      return partials;
    }
  };

  std::unique_ptr<gpur::DeviceFields<Real>>
  Allocate(gpur::DeviceContext & context, std::size_t voxels, std::size_t groups) const override
  {
    auto b = std::make_unique<Buffers>();
    for (auto & f : b->fields)
      f = gpur::DeviceBuffer<Real>(context, voxels);
    b->partials = gpur::DeviceBuffer<Real>(context, 2 * groups);
    return b;
  }
  void
  Advance(const cl::CommandQueue & queue,
          const gpur::DeviceFields<Real> & d,
          const Grid & grid,
          const gpur::ImageRange & range,
          const ToyStep & step) override
  {
    m_First.Launch(queue,
                   range,
                   d.Field(kU, 0).Get(),
                   d.Field(kV, 0).Get(),
                   Int(grid.size[0]),
                   Int(grid.size[1]),
                   Int(grid.size[2]));
    m_Second.Launch(queue,
                    range,
                    d.Field(kF, 0).Get(),
                    d.Field(kU, 0).Get(),
                    d.Field(kV, 0).Get(),
                    Int(grid.size[0]),
                    Int(grid.size[1]),
                    Int(grid.size[2]),
                    Real(step.tau),
                    Real(step.mu));
  }
  void
  Measure(const cl::CommandQueue & queue,
          const gpur::DeviceFields<Real> & d,
          const Grid & grid,
          const gpur::ImageRange & range,
          std::size_t z0,
          std::size_t z1) override
  {
    const std::size_t groupSize = range.local[0] * range.local[1] * range.local[2];
    m_Sums.Launch(queue,
                  range,
                  d.Field(kU, 0).Get(),
                  d.Field(kV, 0).Get(),
                  Int(grid.size[0]),
                  Int(grid.size[1]),
                  Int(grid.size[2]),
                  Int(z0),
                  Int(z1),
                  d.Partials().Get(),
                  cl::Local(groupSize * sizeof(Real)));
  }
  ToySums
  Sum(const Real * partials, std::size_t groups) const override
  {
    ToySums s;
    for (std::size_t g = 0; g < groups; ++g)
    {
      s.u += partials[2 * g];
      s.vv += partials[2 * g + 1];
    }
    return s;
  }
  unsigned
  PartialsPerGroup() const override
  {
    return 2;
  }

private:
  static cl_int
  Int(std::size_t n)
  {
    return static_cast<cl_int>(n);
  }
  gpur::Kernel m_First, m_Second, m_Sums;
};

gpur::StepperFactories<Real, ToyStep, ToySums>
ToyFactories(const FieldLayout & layout)
{
  gpur::StepperFactories<Real, ToyStep, ToySums> f;
  f.cpu = [layout](const std::vector<const Real *> & inputs, const Grid & grid, const gpur::ParallelForFunction &)
  { return std::unique_ptr<ToyStepper>(new ToyCPU(layout, inputs, grid)); };
  f.device = [](gpur::DeviceContext & context) { return std::make_unique<ToyProgram>(context); };
  return f;
}

struct Toy
{
  Grid grid = gpur::MakeGrid3D(20, 18, 40);
  FieldLayout layout = ToyLayout();
  std::vector<Real> f;
  Toy()
  {
    std::mt19937 rng(7);
    std::normal_distribution<Real> noise(0.0f, 1.0f);
    f.resize(grid.Count());
    for (auto & v : f)
      v = noise(rng);
  }
  std::vector<const Real *>
  Inputs() const
  {
    return { f.data(), nullptr, nullptr };
  }
};

/** u and v after `steps` steps on a stepper of the whole grid, through the core's driver. */
std::vector<Real>
RunToy(ToyStepper & stepper, unsigned steps)
{
  stepper.Initialize();
  gpur::StepLoop loop;
  loop.maximumSteps = steps;
  loop.step = [&](unsigned)
  {
    stepper.Advance(ToyStep());
    return gpur::StepVerdict::Accepted;
  };
  gpur::RunSteps(loop, gpur::ProgressCallback());
  const std::size_t n = stepper.GetGrid().Count();
  std::vector<Real> uv(2 * n);
  gpur::HostFields<Real> host;
  host.data = { nullptr, uv.data(), uv.data() + n };
  stepper.Store(host, 0, stepper.GetGrid().size[2]);
  return uv;
}

std::unique_ptr<ToyStepper>
Make(const Toy & toy, gpur::Backend backend, const std::string & device, unsigned interval, std::uint64_t limit = 0)
{
  gpur::ExecutionOptions execution = gpur::MakeExecution(backend, device);
  execution.deviceMemoryLimit = limit;
  gpur::ResolvedBackend resolved = gpur::ResolveBackend(execution, false);
  return gpur::MakeDecomposedStepper(
    toy.layout, toy.Inputs(), toy.grid, resolved, execution, interval, ToyFactories(toy.layout));
}

/**
 * The rounds of dask's denoise_tv_dask (and ITK streaming for one round):
 * every round advances each z-block padded by Halo(B) slices from the global
 * state by B steps and keeps its interior.
 */
std::vector<Real>
Rounds(const Toy & toy, unsigned steps, unsigned round, std::size_t blocks, gpur::Backend backend)
{
  const std::size_t n = toy.grid.Count(), slice = toy.grid.size[0] * toy.grid.size[1];
  const auto factories = ToyFactories(toy.layout);
  std::vector<Real> state(2 * n), next(2 * n);
  {
    ToyCPU whole(toy.layout, toy.Inputs(), toy.grid); // the initial state
    whole.Initialize();
    whole.Store({ { nullptr, state.data(), state.data() + n }, 0, 0 }, 0, toy.grid.size[2]);
  }
  for (unsigned first = 0; first < steps; first += round)
  {
    const unsigned count = std::min(round, steps - first);
    for (std::size_t b = 0; b < blocks; ++b)
    {
      const gpur::ZPart part = gpur::SplitZ(toy.grid.size[2], blocks, b, toy.layout.Halo(count));
      Grid sub = toy.grid;
      sub.size[2] = part.p1 - part.p0;
      const auto inputs = gpur::ShiftedInputs(toy.Inputs(), toy.grid, part.p0);
      std::unique_ptr<ToyStepper> s;
      if (backend == gpur::Backend::CPU)
        s = factories.cpu(inputs, sub, gpur::ParallelForFunction());
      else
        s = std::make_unique<gpur::DeviceFieldStepper<Real, ToyStep, ToySums>>(
          toy.layout,
          inputs,
          sub,
          gpur::ListDevices()[0],
          factories.device(*gpur::DeviceContext::Get(gpur::ListDevices()[0])));
      const std::size_t shift = part.p0 * slice;
      gpur::HostFields<Real> from{ { nullptr, state.data() + shift, state.data() + n + shift }, 0, n };
      s->Load(gpur::AsConst(from), 0, sub.size[2]);
      for (unsigned k = 0; k < count; ++k)
        s->Advance(ToyStep());
      gpur::HostFields<Real> to{ { nullptr, next.data() + shift, next.data() + n + shift }, 0, n };
      s->Store(to, part.z0 - part.p0, part.z1 - part.z0);
    }
    state.swap(next);
  }
  return state;
}

/** A device memory limit that holds two regions of `slices` slices of the toy. */
std::uint64_t
StreamLimit(const Toy & toy, std::size_t slices)
{
  return 2 * slices * gpur::DeviceBytesPerSlice(toy.grid, toy.layout, 2, gpur::ListDevices()[0]);
}

bool
TwoDevices()
{
  try
  {
    return gpur::ListDevices().size() >= 2;
  }
  catch (const gpur::Error &)
  {
    return false;
  }
}

TEST(FieldLayout, HaloFromTheStencilRadius)
{
  const FieldLayout layout = ToyLayout();
  EXPECT_EQ(layout.Halo(1), 4u);
  EXPECT_EQ(layout.Halo(3), 8u);
  EXPECT_EQ(layout.Volumes(), 3u);
  EXPECT_EQ(layout.Index("v"), unsigned(kV));
  EXPECT_THROW(layout.Index("w"), gpur::InvalidArgument);
  FieldLayout bad = layout;
  bad.fields[kF].components = 2;
  EXPECT_THROW(bad.Validate(), gpur::InvalidArgument);
}

TEST(FieldDecomposition, CPUSlabsRoundsAndSubRegionAreExact)
{
  const Toy toy;
  const unsigned steps = 7;
  ToyCPU whole(toy.layout, toy.Inputs(), toy.grid);
  const std::vector<Real> reference = RunToy(whole, steps);

  // Three slabs of CPU steppers exchanging every 3 steps (halo 8 slices).
  ToySlabs slabs(toy.layout,
                 toy.Inputs(),
                 toy.grid,
                 3,
                 3,
                 [&](std::size_t, const std::vector<const Real *> & in, const Grid & sub)
                 { return std::unique_ptr<ToyStepper>(new ToyCPU(toy.layout, in, sub)); });
  EXPECT_EQ(RunToy(slabs, steps), reference);
  const ToySums a = whole.Measure(5, 20), b = slabs.Measure(5, 20);
  EXPECT_NEAR(a.u, b.u, 1e-9 * (1 + std::abs(a.u)));
  EXPECT_NEAR(a.vv, b.vv, 1e-9 * a.vv);

  // Rounds of 3 steps on 4 padded blocks.
  EXPECT_EQ(Rounds(toy, steps, 3, 4, gpur::Backend::CPU), reference);

  // ITK streaming: the slices [18, 24) from the region padded by Halo(steps).
  const std::size_t slice = toy.grid.size[0] * toy.grid.size[1], n = toy.grid.Count();
  const std::size_t z0 = 18, z1 = 24;
  auto subRegion = [&](std::size_t halo)
  {
    const std::size_t p0 = z0 - halo, p1 = std::min(toy.grid.size[2], z1 + halo);
    Grid sub = toy.grid;
    sub.size[2] = p1 - p0;
    ToyCPU padded(toy.layout, gpur::ShiftedInputs(toy.Inputs(), toy.grid, p0), sub);
    const std::vector<Real> part = RunToy(padded, steps);
    std::vector<Real> interior;
    for (std::size_t k = 0; k < 2; ++k) // u, v
      interior.insert(interior.end(),
                      part.begin() + k * sub.Count() + (z0 - p0) * slice,
                      part.begin() + k * sub.Count() + (z1 - p0) * slice);
    return interior;
  };
  std::vector<Real> expected;
  for (std::size_t k = 0; k < 2; ++k)
    expected.insert(expected.end(), reference.begin() + k * n + z0 * slice, reference.begin() + k * n + z1 * slice);
  EXPECT_EQ(subRegion(toy.layout.Halo(steps)), expected);
  // Half the stencil's reach over the steps (2 slices a step) is not enough.
  EXPECT_NE(subRegion(steps), expected);
}

TEST(FieldDecomposition, OpenCLSlabsStreamRoundsAndSubRegionAreExact)
{
  if (!TwoDevices())
    GTEST_SKIP() << "needs two OpenCL devices (POCL_DEVICES=\"pthread pthread\")";
  const Toy toy;
  const unsigned steps = 7;
  const auto single = Make(toy, gpur::Backend::OpenCL, "0", 3);
  ASSERT_EQ(single->StreamRegions(), 0u);
  const std::vector<Real> reference = RunToy(*single, steps);

  const auto slabs = Make(toy, gpur::Backend::OpenCL, "all", 3);
  ASSERT_NE(dynamic_cast<ToySlabs *>(slabs.get()), nullptr);
  EXPECT_EQ(RunToy(*slabs, steps), reference);

  // Room for two regions of 18 slices (halos of 4 slices for a step a pass), not for the 40 of the grid.
  const auto streamed = Make(toy, gpur::Backend::OpenCL, "0", 1, StreamLimit(toy, 18));
  EXPECT_EQ(streamed->StreamRegions(), 4u);
  EXPECT_EQ(RunToy(*streamed, steps), reference);
  const ToySums a = single->Measure(0, 40), b = streamed->Measure(0, 40);
  EXPECT_NEAR(a.vv, b.vv, 1e-5 * a.vv);

  EXPECT_EQ(Rounds(toy, steps, 3, 4, gpur::Backend::OpenCL), reference);

  // The CPU twin agrees to rounding.
  ToyCPU cpu(toy.layout, toy.Inputs(), toy.grid);
  const std::vector<Real> c = RunToy(cpu, steps);
  double worst = 0.0;
  for (std::size_t i = 0; i < c.size(); ++i)
    worst = std::max(worst, double(std::abs(c[i] - reference[i])));
  EXPECT_LT(worst, 1e-4);
}

TEST(FieldDecomposition, NonDecomposableLayoutsRunWhole)
{
  if (!TwoDevices())
    GTEST_SKIP() << "needs two OpenCL devices";
  Toy toy;
  toy.layout.decomposable = false;
  const auto stepper = Make(toy, gpur::Backend::OpenCL, "all", 3);
  EXPECT_EQ(dynamic_cast<ToySlabs *>(stepper.get()), nullptr);
  EXPECT_THROW(Make(toy, gpur::Backend::OpenCL, "0", 1, StreamLimit(toy, 18)), gpur::InvalidArgument);
}

/**
 * An adaptive method on the driver: steps of simulated time dt whose error
 * estimate fails above dtMax are rejected, the state restored and dt halved.
 * The result equals plain steps of the accepted sizes, bit for bit.
 */
TEST(IterativeDriver, RejectedStepsRollBackAndProgressIsInTime)
{
  const Toy toy;
  ToyCPU adaptive(toy.layout, toy.Inputs(), toy.grid);
  adaptive.Initialize();
  const double tEnd = 0.04, dtMax = 0.005;
  double t = 0.0, dt = 0.016;
  std::vector<double> accepted;
  std::vector<gpur::Progress> seen;
  gpur::StepLoop loop;
  loop.maximumSteps = 1000;
  loop.snapshot = [&] { adaptive.Snapshot(); };
  loop.restore = [&] { adaptive.Restore(); };
  loop.step = [&](unsigned)
  {
    const double h = std::min(dt, tEnd - t);
    ToyStep step;
    step.tau = h;
    adaptive.Advance(step);
    if (h > dtMax)
    {
      dt /= 2;
      return gpur::StepVerdict::Rejected;
    }
    t += h;
    accepted.push_back(h);
    return t >= tEnd ? gpur::StepVerdict::Finished : gpur::StepVerdict::Accepted;
  };
  loop.progress = [&](unsigned) { return gpur::TimeProgress(t, 0.0, tEnd); };
  const gpur::LoopOutcome outcome = gpur::RunSteps(loop,
                                                   [&](const gpur::Progress & p)
                                                   {
                                                     seen.push_back(p);
                                                     return true;
                                                   });
  EXPECT_TRUE(outcome.finished);
  EXPECT_EQ(outcome.rejections, 2u); // 0.016 -> 0.008 -> 0.004
  EXPECT_EQ(outcome.steps, accepted.size());
  ASSERT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back().fraction, 1.0);
  EXPECT_NE(seen.back().message.find("t = "), std::string::npos) << seen.back().message;

  ToyCPU plain(toy.layout, toy.Inputs(), toy.grid);
  plain.Initialize();
  for (double h : accepted)
  {
    ToyStep step;
    step.tau = h;
    plain.Advance(step);
  }
  const std::size_t n = toy.grid.Count();
  std::vector<Real> a(2 * n), b(2 * n);
  adaptive.Store({ { nullptr, a.data(), a.data() + n }, 0, 0 }, 0, toy.grid.size[2]);
  plain.Store({ { nullptr, b.data(), b.data() + n }, 0, 0 }, 0, toy.grid.size[2]);
  EXPECT_EQ(a, b);

  // A step rejected every time ends the run with an error, not a hang.
  loop.step = [](unsigned) { return gpur::StepVerdict::Rejected; };
  EXPECT_THROW(gpur::RunSteps(loop, gpur::ProgressCallback()), gpur::Error);
}

TEST(IterativeDriver, AbortAndNestedProgress)
{
  unsigned taken = 0;
  gpur::StepLoop loop;
  loop.maximumSteps = 10;
  loop.step = [&](unsigned)
  {
    ++taken;
    return gpur::StepVerdict::Accepted;
  };
  EXPECT_THROW(gpur::RunSteps(loop, [](const gpur::Progress & p) { return p.done < 3; }), gpur::Aborted);
  EXPECT_EQ(taken, 3u);

  const gpur::Progress inner = gpur::IterationProgress(25, 100);
  const gpur::Progress p = gpur::NestedProgress("lambda solve", 3, 4, inner);
  EXPECT_DOUBLE_EQ(p.fraction, (2 + 0.25) / 4);
  EXPECT_EQ(p.done, 25u);
  EXPECT_EQ(p.message, "lambda solve 3 of at most 4: iteration 25 of 100");
}

} // namespace
