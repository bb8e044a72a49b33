// SPDX-License-Identifier: Apache-2.0
// The Runge-Kutta-Merson integrator of the method of lines (gpurRungeKuttaMerson.h)
// on ODE systems with known solutions: the step-control rules of
// [Oberhuber2011, Algorithm 4.1, eqs. (27)-(29)], fourth order at a fixed
// step, the error estimate against the true local error, rejection and
// recovery under a tight tolerance, constraints, progress and abort, bad
// input, and the OpenCL backend against the CPU one (the same accepted and
// rejected steps).
#include "gpurContext.h"
#include "gpurDevice.h"
#include "gpurError.h"
#include "gpurLaunch.h"
#include "gpurMersonTestKernels.h"
#include "gpurProgram.h"
#include "gpurRungeKuttaMerson.h"
#include "gpurRungeKuttaMersonDevice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace
{

/** u_i' = (λ_i + c cos t) u_i, λ_i = -(i mod 7)/2 (c = 1: nonautonomous, c = 0: constant rates); `pin` holds u_0. */
template<typename Real>
class OdeSystem : public gpur::MethodOfLinesSystem<Real>
{
public:
  OdeSystem(std::size_t n, bool nonautonomous, bool pin)
    : m_N(n)
    , m_Cos(nonautonomous ? 1 : 0)
    , m_Pin(pin)
  {
  }
  std::size_t
  Size() const override
  {
    return m_N;
  }
  void
  Evaluate(double t, const Real * u, Real * f) override
  {
    if (std::isnan(m_PoisonAfter) == false && t > m_PoisonAfter)
    {
      std::fill(f, f + m_N, std::numeric_limits<Real>::quiet_NaN());
      return;
    }
    const Real c = m_Cos * std::cos(static_cast<Real>(t));
    for (std::size_t i = 0; i < m_N; ++i)
      f[i] = (-static_cast<Real>(i % 7) / 2 + c) * u[i];
  }
  void
  Constrain(double t, Real * u) override
  {
    if (m_Pin)
      u[0] = std::exp(std::sin(static_cast<Real>(t)));
  }
  /** The exact solution from u(0) = 1. */
  double
  Exact(std::size_t i, double t) const
  {
    return std::exp(-double(i % 7) / 2 * t + m_Cos * std::sin(t));
  }
  double m_PoisonAfter = std::numeric_limits<double>::quiet_NaN(); ///< f is NaN after this time (a blow-up)

private:
  std::size_t m_N;
  Real m_Cos;
  bool m_Pin;
};

/** The device twin of OdeSystem (nonautonomous), kernels in test/merson/merson_ode.cl. */
template<typename Real>
class DeviceOdeSystem : public gpur::DeviceMethodOfLinesSystem<Real>
{
public:
  DeviceOdeSystem(gpur::DeviceContext & context, std::size_t n, bool pin)
    : m_N(n)
    , m_Pin(pin)
  {
    const gpur::Program program =
      gpur::BuildProgram(context,
                         gpur::ProgramSpec("Merson test system", std::is_same<Real, double>::value)
                           .Core({ "gpur_common.cl" })
                           .Module(gpur::kernels::mersontest::Find, { "merson_ode.cl" }));
    m_Rhs = program.MakeKernel("ode_rhs");
    m_PinKernel = program.MakeKernel("ode_pin");
  }
  std::size_t
  Size() const override
  {
    return m_N;
  }
  void
  Evaluate(const cl::CommandQueue & queue,
           double t,
           const gpur::DeviceBuffer<Real> & u,
           const gpur::DeviceBuffer<Real> & f) override
  {
    m_Rhs.Set(u.Get(), f.Get(), static_cast<Real>(t), static_cast<cl_long>(m_N));
    m_Rhs.Enqueue(queue, cl::NDRange(m_N), cl::NullRange);
  }
  void
  Constrain(const cl::CommandQueue & queue, double t, const gpur::DeviceBuffer<Real> & u) override
  {
    if (!m_Pin)
      return;
    m_PinKernel.Set(u.Get(), static_cast<Real>(t));
    m_PinKernel.Enqueue(queue, cl::NDRange(1), cl::NullRange);
  }

private:
  std::size_t m_N;
  bool m_Pin;
  gpur::Kernel m_Rhs;
  gpur::Kernel m_PinKernel;
};

gpur::MersonParameters
Parameters(double tolerance, double initialStep, double maximumGrowth = 5.0)
{
  gpur::MersonParameters p;
  p.tolerance = tolerance;
  p.initialStep = initialStep;
  p.maximumGrowth = maximumGrowth;
  return p;
}

/** The largest error against the exact solution after integrating from u = 1 to T. */
template<typename Real>
double
SolveError(const std::shared_ptr<OdeSystem<Real>> & system,
           const gpur::MersonParameters & parameters,
           double T,
           gpur::MersonReport * report = nullptr)
{
  gpur::MersonIntegrator<Real> integrator(gpur::MakeHostMersonStages<Real>(system), parameters);
  std::vector<Real> u(system->Size(), Real(1));
  integrator.Load(u.data());
  const gpur::MersonReport r = integrator.AdvanceTo(T);
  integrator.Store(u.data());
  if (report)
    *report = r;
  double e = 0;
  for (std::size_t i = 0; i < u.size(); ++i)
    e = std::max(e, std::abs(u[i] - system->Exact(i, T)));
  return e;
}

TEST(RungeKuttaMerson, StepControlFollowsAlgorithm41)
{
  const gpur::MersonParameters p = Parameters(1e-4, 0.1);
  gpur::MersonDecision d = gpur::DecideMersonStep(1e-4 / 32, 0.1, p);
  EXPECT_TRUE(d.accept);
  EXPECT_NEAR(d.nextStep, 0.1 * 0.8 * 2, 1e-15) << "(4/5)(ε/e)^(1/5) with ε/e = 32";
  d = gpur::DecideMersonStep(1e-4, 0.1, p);
  EXPECT_FALSE(d.accept) << "accepted only when e < ε";
  EXPECT_NEAR(d.nextStep, 0.08, 1e-15);
  d = gpur::DecideMersonStep(1e-4 * 32, 0.1, p);
  EXPECT_FALSE(d.accept);
  EXPECT_NEAR(d.nextStep, 0.1 * 0.8 / 2, 1e-15);
  d = gpur::DecideMersonStep(0.0, 0.1, p);
  EXPECT_TRUE(d.accept);
  EXPECT_DOUBLE_EQ(d.nextStep, 0.5) << "e = 0 grows by the cap";
  for (double bad : { std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity() })
  {
    d = gpur::DecideMersonStep(bad, 0.1, p);
    EXPECT_FALSE(d.accept);
    EXPECT_DOUBLE_EQ(d.nextStep, 0.02);
  }
}

TEST(RungeKuttaMerson, FourthOrderAtFixedStep)
{
  for (bool nonautonomous : { false, true })
  {
    auto system = std::make_shared<OdeSystem<double>>(7, nonautonomous, false);
    double previous = 0;
    for (unsigned steps : { 8u, 16u, 32u })
    {
      gpur::MersonReport report;
      // A tolerance never reached and no growth: every step is τ = 1/steps.
      const double e = SolveError(system, Parameters(1e10, 1.0 / steps, 1.0), 1.0, &report);
      EXPECT_EQ(report.accepted, steps);
      EXPECT_EQ(report.rejected, 0u);
      if (previous > 0)
      {
        const double order = std::log2(previous / e);
        EXPECT_GT(order, 3.8) << "steps " << steps << " nonautonomous " << nonautonomous;
        EXPECT_LT(order, 4.3) << "steps " << steps << " nonautonomous " << nonautonomous;
      }
      previous = e;
    }
  }
}

TEST(RungeKuttaMerson, ErrorEstimateMatchesLocalErrorOfLinearProblems)
{
  // For u' = λu the estimate (27) and the true local error agree to leading order, both τ^5 λ^5 / 720.
  auto system = std::make_shared<OdeSystem<double>>(2, false, false); // λ = 0 and -1/2
  for (double tau : { 0.05, 0.025 })
  {
    auto stages = gpur::MakeHostMersonStages<double>(system);
    const std::vector<double> one(2, 1.0);
    stages->Load(0.0, one.data());
    const double estimate = stages->Stages(0.0, tau);
    std::vector<double> u(2);
    stages->Store(u.data());
    EXPECT_EQ(u, one) << "Stages leaves the state as it is";
    stages->Accept(tau, tau);
    stages->Store(u.data());
    const double error = std::abs(u[1] - system->Exact(1, tau));
    EXPECT_NEAR(estimate / error, 1.0, 0.05) << "tau " << tau;
  }
}

TEST(RungeKuttaMerson, TightToleranceRejectsAndRecovers)
{
  auto system = std::make_shared<OdeSystem<double>>(7, true, false);
  gpur::MersonReport tight, loose;
  // A first step of 1 is far too long for ε = 1e-10: rejected, shrunk, and the run recovers.
  const double eTight = SolveError(system, Parameters(1e-10, 1.0), 2.0, &tight);
  const double eLoose = SolveError(system, Parameters(1e-6, 1.0), 2.0, &loose);
  EXPECT_GE(tight.rejected, 1u);
  EXPECT_EQ(tight.time, 2.0) << "the last step lands on T exactly";
  EXPECT_LT(eTight, 1e-8);
  EXPECT_LT(eTight, eLoose) << "a tighter tolerance does not increase the error";
  // Steps grow like ε^(-1/5) for a fourth-order pair: 10^4 in ε, about 6.3 in steps.
  const double ratio = double(tight.accepted) / loose.accepted;
  EXPECT_GT(ratio, 3.0);
  EXPECT_LT(ratio, 12.0);
}

TEST(RungeKuttaMerson, OutputTimesAndConstraints)
{
  auto system = std::make_shared<OdeSystem<double>>(7, true, true);
  gpur::MersonIntegrator<double> integrator(gpur::MakeHostMersonStages<double>(system), Parameters(1e-9, 0.01));
  std::vector<double> u(7, 1.0);
  integrator.Load(u.data());
  for (unsigned k = 1; k <= 10; ++k)
  {
    const double t = 0.1 * k;
    EXPECT_EQ(integrator.AdvanceTo(t).time, t);
    integrator.Store(u.data());
    EXPECT_EQ(u[0], std::exp(std::sin(t))) << "the pinned unknown is its constraint after each accepted step";
    for (std::size_t i = 1; i < u.size(); ++i)
      EXPECT_NEAR(u[i], system->Exact(i, t), 1e-8);
  }
  // Landing on the output times shortens ten steps but not the proposals after them: about the steps of one run.
  gpur::MersonIntegrator<double> once(gpur::MakeHostMersonStages<double>(system), Parameters(1e-9, 0.01));
  std::vector<double> v(7, 1.0);
  once.Load(v.data());
  once.AdvanceTo(1.0);
  EXPECT_LE(integrator.Report().accepted, once.Report().accepted + 10);
  EXPECT_GT(integrator.Report().step, 0.5 * once.Report().step);
}

TEST(RungeKuttaMerson, RejectionsInARowFailAndLeaveTheState)
{
  auto system = std::make_shared<OdeSystem<double>>(3, true, false);
  system->m_PoisonAfter = -1.0; // f is NaN everywhere
  gpur::MersonIntegrator<double> integrator(gpur::MakeHostMersonStages<double>(system), Parameters(1e-6, 0.1));
  const std::vector<double> start{ 1.0, 2.0, 3.0 };
  integrator.Load(start.data());
  EXPECT_THROW(integrator.AdvanceTo(1.0), gpur::Error);
  std::vector<double> u(3);
  integrator.Store(u.data());
  EXPECT_EQ(u, start) << "rejected steps never write the state";
  EXPECT_EQ(integrator.Report().accepted, 0u);
  EXPECT_EQ(integrator.Report().rejected, 65u);
}

TEST(RungeKuttaMerson, ProgressAbortAndBadInput)
{
  auto system = std::make_shared<OdeSystem<double>>(3, true, false);
  gpur::MersonIntegrator<double> integrator(gpur::MakeHostMersonStages<double>(system), Parameters(1e-8, 0.01));
  std::vector<double> u(3, 1.0);
  integrator.Load(u.data());
  std::vector<double> fractions;
  integrator.AdvanceTo(1.0,
                       [&](const gpur::Progress & p)
                       {
                         fractions.push_back(p.fraction);
                         return true;
                       });
  ASSERT_FALSE(fractions.empty());
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
  EXPECT_THROW(integrator.AdvanceTo(2.0, [](const gpur::Progress &) { return false; }), gpur::Aborted);
  EXPECT_THROW(integrator.AdvanceTo(0.5), gpur::InvalidArgument) << "backwards";

  for (const gpur::MersonParameters & bad :
       { Parameters(0.0, 0.1), Parameters(1e-6, -1.0), Parameters(1e-6, 0.1, 0.5) })
    EXPECT_THROW(gpur::MersonIntegrator<double>(gpur::MakeHostMersonStages<double>(system), bad),
                 gpur::InvalidArgument);
  gpur::MersonParameters few = Parameters(1e-12, 0.01);
  few.maximumSteps = 3;
  gpur::MersonIntegrator<double> shortRun(gpur::MakeHostMersonStages<double>(system), few);
  shortRun.Load(u.data());
  EXPECT_THROW(shortRun.AdvanceTo(1.0), gpur::NumericalError);
}

template<typename Real>
void
CompareBackends(std::size_t n, double tolerance, double agreement)
{
  const gpur::DeviceInfo device = gpur::SelectDevices("0").front();
  auto context = gpur::DeviceContext::Get(device);
  const gpur::MersonParameters p = Parameters(tolerance, 1.0); // a first step far too long: rejections
  gpur::MersonIntegrator<Real> cpu(gpur::MakeHostMersonStages<Real>(std::make_shared<OdeSystem<Real>>(n, true, true)),
                                   p);
  gpur::MersonIntegrator<Real> gpu(
    gpur::MakeDeviceMersonStages<Real>(*context, std::make_shared<DeviceOdeSystem<Real>>(*context, n, true)), p);
  std::vector<Real> a(n, Real(1)), b(n, Real(1));
  cpu.Load(a.data());
  gpu.Load(b.data());
  for (double t : { 0.5, 1.0 })
  {
    const gpur::MersonReport rc = cpu.AdvanceTo(t), rg = gpu.AdvanceTo(t);
    EXPECT_EQ(rc.accepted, rg.accepted) << "n " << n << " t " << t;
    EXPECT_EQ(rc.rejected, rg.rejected) << "n " << n << " t " << t;
    EXPECT_GE(rc.rejected, 1u);
  }
  cpu.Store(a.data());
  gpu.Store(b.data());
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i)
    worst = std::max(worst, std::abs(double(a[i]) - double(b[i])) / std::abs(double(a[i])));
  EXPECT_LT(worst, agreement) << "n " << n;
}

TEST(RungeKuttaMerson, OpenCLMatchesCPUDouble)
{
  for (std::size_t n : { std::size_t(1), std::size_t(2049), std::size_t(100003) })
    CompareBackends<double>(n, 1e-9, 1e-12);
}

TEST(RungeKuttaMerson, OpenCLMatchesCPUFloat)
{
  for (std::size_t n : { std::size_t(1), std::size_t(2049), std::size_t(100003) })
    CompareBackends<float>(n, 1e-4, 1e-5);
}

} // namespace
