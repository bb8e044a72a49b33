// SPDX-License-Identifier: Apache-2.0
#include "gpurRungeKuttaMersonDevice.h"

#include "gpurError.h"
#include "gpurProgram.h"
#include "gpurQueueThrottle.h"
#include "gpurReduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace gpur
{
namespace
{

template<typename Real>
class DeviceMersonStages : public MersonStages<Real>
{
public:
  DeviceMersonStages(DeviceContext & context, std::shared_ptr<DeviceMethodOfLinesSystem<Real>> system)
    : m_Context(context)
    , m_System(std::move(system))
    , m_N(m_System->Size())
  {
    // The group count of a grid-stride reduction as gpur::Reducer chooses it (about 64 items per work-item).
    m_GroupSize = PowerOfTwoGroupSize(context.Info());
    m_Groups = std::max<std::size_t>(1, std::min<std::size_t>(256, (m_N + m_GroupSize * 64 - 1) / (m_GroupSize * 64)));
    TranslateCLErrors(
      [&]
      {
        context.CheckMemory(7 * m_N * sizeof(Real), m_N * sizeof(Real), "Runge-Kutta-Merson integration");
        const Program program =
          BuildProgram(context,
                       ProgramSpec("Runge-Kutta-Merson integration", std::is_same<Real, double>::value)
                         .Core({ "gpur_common.cl", "gpur_reduce.cl", "gpur_merson.cl" }));
        for (int stage = 2; stage <= 5; ++stage)
          m_Argument[stage - 2] = program.MakeKernel("gpur_merson_stage" + std::to_string(stage));
        m_ErrorMax = program.MakeKernel("gpur_merson_error_max");
        m_Accept = program.MakeKernel("gpur_merson_accept");
        m_U = DeviceBuffer<Real>(context, m_N);
        m_Stage = DeviceBuffer<Real>(context, m_N);
        for (auto & k : m_K)
          k = DeviceBuffer<Real>(context, m_N);
        m_Partials = DeviceBuffer<Real>(context, m_Groups);
      });
  }

  std::size_t
  Size() const override
  {
    return m_N;
  }

  void
  Load(double t, const Real * u) override
  {
    TranslateCLErrors(
      [&]
      {
        m_U.Upload(Queue(), u, m_N);
        m_System->Constrain(Queue(), t, m_U);
      });
  }

  void
  Store(Real * u) override
  {
    TranslateCLErrors([&] { m_U.Download(Queue(), u, m_N); });
  }

  double
  Stages(double t, double tau) override
  {
    return TranslateCLErrors(
      [&]
      {
        m_System->Evaluate(Queue(), t, m_U, m_K[0]);
        Stage(t + tau / 3, tau, 2);
        Stage(t + tau / 3, tau, 3);
        Stage(t + tau / 2, tau, 4);
        Stage(t + tau, tau, 5);
        m_ErrorMax.Set(m_K[0].Get(),
                       m_K[2].Get(),
                       m_K[3].Get(),
                       m_K[4].Get(),
                       static_cast<cl_long>(m_N),
                       m_Partials.Get(),
                       cl::Local(m_GroupSize * sizeof(Real)));
        m_ErrorMax.Enqueue(Queue(), cl::NDRange(m_Groups * m_GroupSize), cl::NDRange(m_GroupSize));
        std::vector<Real> partials(m_Groups);
        m_Partials.Download(Queue(), partials.data(), m_Groups);
        return tau / 30 * static_cast<double>(*std::max_element(partials.begin(), partials.end()));
      });
  }

  void
  Accept(double time, double tau) override
  {
    TranslateCLErrors(
      [&]
      {
        m_Accept.Set(
          m_U.Get(), m_K[0].Get(), m_K[3].Get(), m_K[4].Get(), static_cast<Real>(tau), static_cast<cl_long>(m_N));
        m_Accept.Enqueue(Queue(), Range(), cl::NullRange);
        m_System->Constrain(Queue(), time, m_U);
        m_Throttle.Step(Queue()); // progress and abort follow the device (see QueueThrottle)
      });
  }

private:
  const cl::CommandQueue &
  Queue() const
  {
    return m_Context.Queue(0);
  }

  cl::NDRange
  Range() const
  {
    return cl::NDRange(m_N);
  }

  /** k[stage - 1] = f(t, argument of `stage`), the argument Constrain'ed at t. */
  void
  Stage(double t, double tau, int stage)
  {
    const Real h = static_cast<Real>(tau);
    const cl_long n = static_cast<cl_long>(m_N);
    Kernel & argument = m_Argument[stage - 2];
    if (stage == 2)
      argument.Set(m_U.Get(), m_K[0].Get(), m_Stage.Get(), h, n);
    else if (stage == 3)
      argument.Set(m_U.Get(), m_K[0].Get(), m_K[1].Get(), m_Stage.Get(), h, n);
    else if (stage == 4)
      argument.Set(m_U.Get(), m_K[0].Get(), m_K[2].Get(), m_Stage.Get(), h, n);
    else
      argument.Set(m_U.Get(), m_K[0].Get(), m_K[2].Get(), m_K[3].Get(), m_Stage.Get(), h, n);
    argument.Enqueue(Queue(), Range(), cl::NullRange);
    m_System->Constrain(Queue(), t, m_Stage);
    m_System->Evaluate(Queue(), t, m_Stage, m_K[stage - 1]);
  }

  DeviceContext & m_Context;
  std::shared_ptr<DeviceMethodOfLinesSystem<Real>> m_System;
  std::size_t m_N;
  std::size_t m_GroupSize = 1;
  std::size_t m_Groups = 1;
  Kernel m_Argument[4]; // the arguments of stages 2..5
  Kernel m_ErrorMax;
  Kernel m_Accept;
  DeviceBuffer<Real> m_U;
  DeviceBuffer<Real> m_Stage;
  DeviceBuffer<Real> m_K[5];
  DeviceBuffer<Real> m_Partials;
  QueueThrottle m_Throttle;
};

} // namespace

template<typename Real>
std::unique_ptr<MersonStages<Real>>
MakeDeviceMersonStages(DeviceContext & context, std::shared_ptr<DeviceMethodOfLinesSystem<Real>> system)
{
  if (system == nullptr || system->Size() == 0)
    throw InvalidArgument("Runge-Kutta-Merson: the system must have at least one unknown");
  return std::make_unique<DeviceMersonStages<Real>>(context, std::move(system));
}

template std::unique_ptr<MersonStages<float>>
MakeDeviceMersonStages(DeviceContext &, std::shared_ptr<DeviceMethodOfLinesSystem<float>>);
template std::unique_ptr<MersonStages<double>>
MakeDeviceMersonStages(DeviceContext &, std::shared_ptr<DeviceMethodOfLinesSystem<double>>);

} // namespace gpur
