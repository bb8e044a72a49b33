// SPDX-License-Identifier: Apache-2.0
#include "gpurTVSchedule.h"

#include <cmath>

namespace gpur
{

namespace
{

/**
 * The constant c of the intensity unit I = c / (lambda l) per method. A
 * primal-dual method with steps tau, sigma (tau sigma ||grad||^2 = 1) run on
 * (f, lambda) makes exactly the iterates of the same method on (f / I,
 * lambda I) with steps tau / I and sigma I (substitute u = I v, and note that
 * p is dimensionless). So the balance of the two steps is a choice of the
 * intensity unit; balancing them in the image's own units (tau = sigma, as
 * before) made the convergence depend on the intensity scale: stalled at
 * 1e3, no progress at 1e6. With I proportional to 1 / lambda it depends only
 * on the dimensionless lambda l range(f) and the image. c was measured: the
 * iterations to a relative gap of 1e-4 on noisy 256^2 and 48^3 phantoms
 * (sigma 0.1, range 2.3), lambda 1..128 (lambda l range(f) 2..300), over
 * balances spanning 2^-8..2^20:
 *  - accelerated CP ([Chambolle2011, Alg. 2]): flat once I >= range(f) / 4
 *    (810 at lambda 4, 110 at 12, 10 at 128 in 2D); slower below (290 instead
 *    of 100 at I = range / 150). c = 64 keeps I >= range / 4 up to
 *    lambda l range(f) = 250 and costs at most one gap check above that.
 *  - CP (Alg. 1): best near I = range(f) / 100, 10-30x faster than tau = sigma
 *    (lambda 12: 150-180 iterations instead of > 3000). c = 0.1 is within 2x
 *    of the best for lambda 1..128.
 *  - PDU (the primal-dual hybrid gradient of [Zhu2008] with the step schedule
 *    of [Huang2023, eqs. (3.6)-(3.7)]):
 *    best at c = 0.7-0.9, no convergence in 3000 iterations at c <= 0.4 for
 *    lambda <= 12. c = 1 (the schedule's own units are then lambda = 1 per
 *    unit length) is 10-25 % slower than the best and keeps a margin of 2.5x
 *    from that edge.
 */
double
BalanceConstant(TVAlgorithm algorithm)
{
  switch (algorithm)
  {
    case TVAlgorithm::ChambollePock:
      return 0.1;
    case TVAlgorithm::AcceleratedChambollePock:
      return 64.0;
    case TVAlgorithm::PDU:
      return 1.0;
  }
  return 1.0;
}

} // namespace

TVStep
TVStep::Scaled(int intensityExponent, int lengthExponent) const
{
  // u = S v, f = S g, h = H h' (S = 2^i, H = 2^l): grad = grad' / H, div = div' / H,
  // so p + sigma grad ubar = p + (sigma S / H) grad' vbar, and
  // u = a u + b f + c div p becomes v = a v + b g + (c / (S H)) div' p. The data
  // term's lambda becomes lambda S H (see gpurTVDenoiser.cxx); the CP step tau
  // scales as c, so tau lambda (and b, theta) stay; PDU's tau is a weight.
  TVStep s = *this;
  s.sigma = std::ldexp(sigma, intensityExponent - lengthExponent);
  s.c = std::ldexp(c, -intensityExponent - lengthExponent);
  s.lambda = std::ldexp(lambda, intensityExponent + lengthExponent);
  if (!relaxation)
  {
    s.tau = std::ldexp(tau, -intensityExponent - lengthExponent);
  }
  return s;
}

double
TVCharacteristicLength(const Grid & grid)
{
  return 2.0 * std::sqrt(static_cast<double>(grid.dimension) / grid.GradientNormSquaredBound());
}

double
TVIntensityUnit(const TVParameters & parameters, const Grid & grid, double meanWeight)
{
  return BalanceConstant(parameters.algorithm) * meanWeight / (parameters.lambda * TVCharacteristicLength(grid));
}

TVSchedule::TVSchedule(const TVParameters & parameters, const Grid & grid, double maxWeight, double meanWeight)
  : m_Parameters(parameters)
  , m_NormSquared(grid.GradientNormSquaredBound())
  , m_Unit(TVIntensityUnit(parameters, grid, meanWeight))
  , m_Convexity(parameters.lambda / maxWeight)
{
  // tau * sigma * ||grad||^2 = 1, balanced in units of I (see BalanceConstant).
  m_Tau = m_Unit / std::sqrt(m_NormSquared);
  m_Sigma = 1.0 / (m_Unit * std::sqrt(m_NormSquared));
}

TVStep
TVSchedule::PrimalDualStep(double tau, double sigma, double theta) const
{
  // prox of tau * (lambda/2)||u - f||^2 at u + tau div p.
  const double lambda = m_Parameters.lambda;
  TVStep s;
  s.primalFirst = false;
  s.dualUsesBar = true;
  s.sigma = sigma;
  s.b = tau * lambda / (1.0 + tau * lambda);
  s.c = tau / (1.0 + tau * lambda);
  s.theta = theta;
  s.tau = tau;
  s.lambda = lambda;
  return s;
}

TVStep
TVSchedule::Next(unsigned k)
{
  switch (m_Parameters.algorithm)
  {
    case TVAlgorithm::ChambollePock:
      return PrimalDualStep(m_Tau, m_Sigma, 1.0);
    case TVAlgorithm::AcceleratedChambollePock:
    {
      // [Chambolle2011, Alg. 2] with gamma = 0.7 lambda (< lambda, the strong convexity of
      // the data term; the paper's choice for ROF; lambda / max w when weighted).
      const double gamma = 0.7 * m_Convexity;
      const double theta = 1.0 / std::sqrt(1.0 + 2.0 * gamma * m_Tau);
      const TVStep s = PrimalDualStep(m_Tau, m_Sigma, theta);
      m_Tau *= theta;
      m_Sigma /= theta;
      return s;
    }
    case TVAlgorithm::PDU:
    {
      // The schedule of [Huang2023, eqs. (3.6)-(3.7)] is tuned for 3D unit spacing, ||grad||^2 <= 12; scaling
      // tau_D by 12 / ||grad||^2 keeps tau_D tau_P -> 2 / ||grad||^2 on other grids.
      // tau_D is the dual step in units of I (tau_P, a relaxation weight, has no unit).
      const double kk = static_cast<double>(k) + m_Parameters.pduOffset;
      const double tauD = 0.3 + 0.02 * kk;
      const double tauP = (1.0 / tauD) * (1.0 / 6.0 - 5.0 / (15.0 + kk));
      TVStep s;
      s.primalFirst = true;
      s.dualUsesBar = false;
      s.sigma = tauD * 12.0 / m_NormSquared / m_Unit;
      s.b = tauP;
      s.c = tauP / m_Parameters.lambda;
      s.theta = 0.0;
      s.relaxation = true;
      s.tau = tauP;
      s.lambda = m_Parameters.lambda;
      return s;
    }
  }
  return TVStep();
}

} // namespace gpur
