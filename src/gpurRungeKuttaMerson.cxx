// SPDX-License-Identifier: Apache-2.0
#include "gpurRungeKuttaMerson.h"

#include "gpurError.h"
#include "gpurIterativeDriver.h"
#include "gpurMersonArithmetic.h"
#include "gpurText.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gpur
{

void
MersonParameters::Validate() const
{
  if (!(tolerance > 0.0) || !std::isfinite(tolerance))
    throw InvalidArgument("Runge-Kutta-Merson: the tolerance must be > 0 and finite (got " + ToText(tolerance) + ")");
  if (!(initialStep > 0.0) || !std::isfinite(initialStep))
    throw InvalidArgument("Runge-Kutta-Merson: the initial step must be > 0 and finite (got " + ToText(initialStep) +
                          ")");
  if (!(maximumGrowth >= 1.0) || !std::isfinite(maximumGrowth))
    throw InvalidArgument("Runge-Kutta-Merson: the maximum growth of the step must be >= 1 and finite (got " +
                          ToText(maximumGrowth) + ")");
  if (maximumSteps < 1)
    throw InvalidArgument("Runge-Kutta-Merson: the maximum number of steps must be >= 1");
}

MersonDecision
DecideMersonStep(double error, double step, const MersonParameters & parameters)
{
  MersonDecision d;
  if (!std::isfinite(error))
  {
    d.nextStep = step / parameters.maximumGrowth;
    return d;
  }
  d.accept = error < parameters.tolerance;
  // (4/5)(ε/e)^(1/5), capped; e = 0 (f vanishes, or a linear f) takes the cap.
  const double growth =
    error > 0.0 ? 0.8 * std::pow(parameters.tolerance / error, 0.2) : std::numeric_limits<double>::infinity();
  d.nextStep = step * std::min(growth, parameters.maximumGrowth);
  return d;
}

namespace
{

/** The CPU backend: the state and k1..k5 in host vectors, each combination one parallel loop. */
template<typename Real>
class HostMersonStages : public MersonStages<Real>
{
public:
  HostMersonStages(std::shared_ptr<MethodOfLinesSystem<Real>> system, const ParallelForFunction & parallelFor)
    : m_System(std::move(system))
    , m_ParallelFor(parallelFor)
    , m_N(m_System->Size())
    , m_U(m_N)
    , m_Argument(m_N)
  {
    for (auto & k : m_K)
      k.resize(m_N);
  }

  std::size_t
  Size() const override
  {
    return m_N;
  }

  void
  Load(double t, const Real * u) override
  {
    std::copy_n(u, m_N, m_U.data());
    m_System->Constrain(t, m_U.data());
  }

  void
  Store(Real * u) override
  {
    std::copy_n(m_U.data(), m_N, u);
  }

  double
  Stages(double t, double tau) override
  {
    using namespace merson;
    const Real h = static_cast<Real>(tau);
    const Real *u = m_U.data(), *k1 = m_K[0].data(), *k2 = m_K[1].data(), *k3 = m_K[2].data(), *k4 = m_K[3].data();
    Real * a = m_Argument.data();
    m_System->Evaluate(t, u, m_K[0].data());
    Combine([&](std::size_t i) { a[i] = gpur_merson_argument2(u[i], k1[i], h); });
    Stage(t + tau / 3, 1);
    Combine([&](std::size_t i) { a[i] = gpur_merson_argument3(u[i], k1[i], k2[i], h); });
    Stage(t + tau / 3, 2);
    Combine([&](std::size_t i) { a[i] = gpur_merson_argument4(u[i], k1[i], k3[i], h); });
    Stage(t + tau / 2, 3);
    Combine([&](std::size_t i) { a[i] = gpur_merson_argument5(u[i], k1[i], k3[i], k4[i], h); });
    Stage(t + tau, 4);
    return tau / 30 * ErrorMax();
  }

  void
  Accept(double time, double tau) override
  {
    const Real h = static_cast<Real>(tau);
    Real * u = m_U.data();
    const Real *k1 = m_K[0].data(), *k4 = m_K[3].data(), *k5 = m_K[4].data();
    Combine([&](std::size_t i) { u[i] = merson::gpur_merson_update(u[i], k1[i], k4[i], k5[i], h); });
    m_System->Constrain(time, u);
  }

private:
  template<typename Body>
  void
  Combine(Body body)
  {
    RunParallel(m_ParallelFor,
                m_N,
                [&](std::size_t b, std::size_t e)
                {
                  for (std::size_t i = b; i < e; ++i)
                    body(i);
                });
  }

  /** k[index] = f(t, argument), the argument Constrain'ed at t. */
  void
  Stage(double t, unsigned index)
  {
    m_System->Constrain(t, m_Argument.data());
    m_System->Evaluate(t, m_Argument.data(), m_K[index].data());
  }

  /** max_i |2 k1 - 9 k3 + 8 k4 - k5| in Real, NaN as infinity (as the kernel). */
  double
  ErrorMax()
  {
    const Real *k1 = m_K[0].data(), *k3 = m_K[2].data(), *k4 = m_K[3].data(), *k5 = m_K[4].data();
    constexpr std::size_t chunks = 64;
    std::vector<Real> maxima(chunks, Real(0));
    const std::size_t per = (m_N + chunks - 1) / chunks;
    RunParallel(m_ParallelFor,
                chunks,
                [&](std::size_t b, std::size_t e)
                {
                  for (std::size_t c = b; c < e; ++c)
                  {
                    Real m = 0;
                    for (std::size_t i = c * per; i < std::min(m_N, (c + 1) * per); ++i)
                    {
                      const Real v = merson::gpur_merson_error(k1[i], k3[i], k4[i], k5[i]);
                      m = std::isnan(v) ? std::numeric_limits<Real>::infinity() : std::max(m, v);
                    }
                    maxima[c] = m;
                  }
                });
    return static_cast<double>(*std::max_element(maxima.begin(), maxima.end()));
  }

  std::shared_ptr<MethodOfLinesSystem<Real>> m_System;
  ParallelForFunction m_ParallelFor;
  std::size_t m_N;
  std::vector<Real> m_U;
  std::vector<Real> m_Argument;
  std::vector<Real> m_K[5];
};

} // namespace

template<typename Real>
std::unique_ptr<MersonStages<Real>>
MakeHostMersonStages(std::shared_ptr<MethodOfLinesSystem<Real>> system, const ParallelForFunction & parallelFor)
{
  if (system == nullptr || system->Size() == 0)
    throw InvalidArgument("Runge-Kutta-Merson: the system must have at least one unknown");
  return std::make_unique<HostMersonStages<Real>>(std::move(system), ResolveParallelFor(parallelFor));
}

template<typename Real>
MersonIntegrator<Real>::MersonIntegrator(std::unique_ptr<MersonStages<Real>> stages,
                                         const MersonParameters & parameters,
                                         double startTime)
  : m_Stages(std::move(stages))
  , m_Parameters(parameters)
{
  m_Parameters.Validate();
  if (!std::isfinite(startTime))
    throw InvalidArgument("Runge-Kutta-Merson: the start time must be finite");
  m_Report.time = startTime;
  m_Report.step = m_Parameters.initialStep;
}

template<typename Real>
void
MersonIntegrator<Real>::Load(const Real * u)
{
  m_Stages->Load(m_Report.time, u);
}

template<typename Real>
void
MersonIntegrator<Real>::Store(Real * u)
{
  m_Stages->Store(u);
}

template<typename Real>
std::size_t
MersonIntegrator<Real>::Size() const
{
  return m_Stages->Size();
}

template<typename Real>
const MersonReport &
MersonIntegrator<Real>::AdvanceTo(double time, const ProgressCallback & callback)
{
  const double t0 = m_Report.time;
  if (!std::isfinite(time) || time < t0)
    throw InvalidArgument("Runge-Kutta-Merson: the end time must be finite and >= the current time " + ToText(t0) +
                          " (got " + ToText(time) + ")");
  if (time == t0)
    return m_Report;
  StepLoop loop;
  loop.maximumSteps = m_Parameters.maximumSteps;
  loop.step = [&](unsigned)
  {
    const double left = time - m_Report.time;
    // The clamp of eq. (29) to the time left; the last step lands on `time` exactly.
    const bool last = m_Report.step >= left;
    const double tau = last ? left : m_Report.step;
    m_Report.error = m_Stages->Stages(m_Report.time, tau);
    const MersonDecision decision = DecideMersonStep(m_Report.error, tau, m_Parameters);
    // A shortened last step proposes from the unshortened one, so an output time does not shrink the next step.
    m_Report.step = last && decision.accept ? std::max(decision.nextStep, m_Report.step) : decision.nextStep;
    if (!decision.accept)
    {
      ++m_Report.rejected;
      return StepVerdict::Rejected;
    }
    const double next = last ? time : m_Report.time + tau;
    m_Stages->Accept(next, tau);
    m_Report.time = next;
    ++m_Report.accepted;
    return last ? StepVerdict::Finished : StepVerdict::Accepted;
  };
  loop.progress = [&](unsigned) { return TimeProgress(m_Report.time, t0, time); };
  // The state is written only by an accepted step, so there is nothing to keep or restore.
  loop.snapshot = [] {};
  loop.restore = [] {};
  const LoopOutcome outcome = RunSteps(loop, callback);
  if (!outcome.finished)
    throw NumericalError("Runge-Kutta-Merson: " + std::to_string(outcome.steps) +
                         " accepted steps reached t = " + ToText(m_Report.time) + " of " + ToText(time) + " (step " +
                         ToText(m_Report.step) + "); raise the maximum number of steps or the tolerance");
  return m_Report;
}

template std::unique_ptr<MersonStages<float>>
MakeHostMersonStages(std::shared_ptr<MethodOfLinesSystem<float>>, const ParallelForFunction &);
template std::unique_ptr<MersonStages<double>>
MakeHostMersonStages(std::shared_ptr<MethodOfLinesSystem<double>>, const ParallelForFunction &);
template class MersonIntegrator<float>;
template class MersonIntegrator<double>;

} // namespace gpur
