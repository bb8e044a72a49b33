// SPDX-License-Identifier: Apache-2.0
// The method of lines' time integrator: the explicit Runge-Kutta-Merson
// scheme (five stages, fourth order) with its embedded error estimate and
// automatic step control [Oberhuber2011, Algorithm 4.1, eqs. (26)-(29)],
// generic over the right-hand side du/dt = f(t, u) of a space
// discretisation (Remark 3.3 there). A family supplies f on the CPU
// (MethodOfLinesSystem) and on OpenCL (DeviceMethodOfLinesSystem,
// gpurRungeKuttaMersonDevice.h); the stages, the error estimate, the update
// and the step control are written once, here and in kernels/gpur_merson.cl.
#ifndef gpurRungeKuttaMerson_h
#define gpurRungeKuttaMerson_h

#include "gpurParallel.h"
#include "gpurProgress.h"

#include <cstddef>
#include <memory>

namespace gpur
{

/** The settings of the step control. */
struct MersonParameters
{
  /** ε of [Oberhuber2011, Algorithm 4.1]: a step is accepted when its error estimate e is below it (> 0). */
  double tolerance = 1e-5;
  /** τ of the first step (> 0); later steps follow the step control. */
  double initialStep = 1e-3;
  /**
   * The most τ may grow in one step (>= 1). Eq. (29) of [Oberhuber2011]
   * grows τ without bound as e tends to 0 (a stationary state, a linear
   * f); this cap, our safeguard, keeps one lucky step from proposing a
   * step that the next one must reject many times over. 1 keeps τ fixed
   * while steps are accepted (the order tests).
   */
  double maximumGrowth = 5.0;
  /** Accepted steps that one AdvanceTo may take before it fails with NumericalError (>= 1). */
  unsigned maximumSteps = 10000000;

  /** Throws InvalidArgument naming the setting and its allowed range. */
  void
  Validate() const;
};

/** What the step control makes of a step's error estimate. */
struct MersonDecision
{
  bool accept = false;  ///< e < ε [Oberhuber2011, eq. (28)]
  double nextStep = 0.; ///< τ of the next step (before the clamp to the time left)
};

/**
 * The step control of [Oberhuber2011, Algorithm 4.1]: accept when e < ε
 * (eq. (28)); always τ <- (4/5) τ (ε/e)^(1/5) (eq. (29)), the growth capped
 * by maximumGrowth. The clamp of eq. (29) to the time left, T - t, is the
 * caller's (MersonIntegrator::AdvanceTo clamps the step it takes, not the
 * proposal, so a step shortened to land on an output time does not shorten
 * the next one). A non-finite e (the stage values overflowed) rejects the
 * step and divides τ by maximumGrowth.
 */
MersonDecision
DecideMersonStep(double error, double step, const MersonParameters & parameters);

/**
 * A space discretisation on the CPU: Size() unknowns u and their time
 * derivative f(t, u). Evaluate may run on its own parallel loop.
 */
template<typename Real>
class MethodOfLinesSystem
{
public:
  virtual ~MethodOfLinesSystem() = default;
  /** The number of unknowns. */
  virtual std::size_t
  Size() const = 0;
  /** f = f(t, u) (u is Constrain'ed at t). */
  virtual void
  Evaluate(double t, const Real * u, Real * f) = 0;
  /**
   * Imposes what is not an ODE at time t on a state or a stage argument
   * (boundary values, Neumann copies): called on every stage argument before
   * f reads it and on the state after each accepted step. Default: nothing.
   */
  virtual void
  Constrain(double /*t*/, Real * /*u*/)
  {
  }
};

/**
 * One backend of the integrator: the state u and the stage vectors k1..k5
 * where that backend keeps them (host arrays, or device buffers that never
 * leave the device), and the three operations of a step.
 */
template<typename Real>
class MersonStages
{
public:
  virtual ~MersonStages() = default;
  /** The number of unknowns. */
  virtual std::size_t
  Size() const = 0;
  /** The state from a host array, Constrain'ed at time t. */
  virtual void
  Load(double t, const Real * u) = 0;
  /** The state into a host array. */
  virtual void
  Store(Real * u) = 0;
  /**
   * The five stages of [Oberhuber2011, Algorithm 4.1, step 1] from the state
   * at time t with step τ (k_i = f at the stage argument, the τ applied in
   * the combinations); returns the error estimate of eq. (27),
   * e = (τ / 30) max_i |2 k1 - 9 k3 + 8 k4 - k5|. The state is unchanged.
   */
  virtual double
  Stages(double t, double tau) = 0;
  /** u <- u + (τ/6)(k1 + 4 k4 + k5) (eq. (28)), then Constrain'ed at t + τ (`time`). */
  virtual void
  Accept(double time, double tau) = 0;
};

/** The CPU backend of `system`, its combinations on `parallelFor` (empty: the process's pool). */
template<typename Real>
std::unique_ptr<MersonStages<Real>>
MakeHostMersonStages(std::shared_ptr<MethodOfLinesSystem<Real>> system,
                     const ParallelForFunction & parallelFor = ParallelForFunction());

/** What an integrator has done so far. */
struct MersonReport
{
  unsigned accepted = 0; ///< accepted steps in all
  unsigned rejected = 0; ///< rejected steps in all (each evaluated f five times and left the state as it was)
  double time = 0.;      ///< the simulated time reached
  double step = 0.;      ///< τ the step control proposes next
  double error = 0.;     ///< the error estimate e of the last step taken (accepted or rejected)
};

/**
 * Integrates du/dt = f(t, u) by Runge-Kutta-Merson with the step control of
 * [Oberhuber2011, Algorithm 4.1] on one backend. AdvanceTo runs
 * gpur::RunSteps: progress in simulated time, abort, and a rejected step
 * rolled back (a Merson step writes the state only when it is accepted, so
 * the rollback has nothing to restore).
 */
template<typename Real>
class MersonIntegrator
{
public:
  /** The integrator of `stages` from time startTime; throws InvalidArgument for bad parameters. */
  MersonIntegrator(std::unique_ptr<MersonStages<Real>> stages,
                   const MersonParameters & parameters,
                   double startTime = 0.0);

  /** Sets the state (Constrain'ed at the current time). */
  void
  Load(const Real * u);
  /** Copies the state out (Size() values). */
  void
  Store(Real * u);
  /** The number of unknowns. */
  std::size_t
  Size() const;

  /**
   * Steps until the time is exactly `time` (>= the current time; the last
   * step is shortened to land on it), reporting TimeProgress from the time
   * of the call to `time`. Throws NumericalError when maximumSteps accepted
   * steps do not reach it, gpur::Error after 64 rejections in a row, and
   * gpur::Aborted when the callback asks to stop.
   */
  const MersonReport &
  AdvanceTo(double time, const ProgressCallback & callback = ProgressCallback());

  /** The counts and the time so far. */
  const MersonReport &
  Report() const
  {
    return m_Report;
  }

private:
  std::unique_ptr<MersonStages<Real>> m_Stages;
  MersonParameters m_Parameters;
  MersonReport m_Report;
};

} // namespace gpur

#endif
