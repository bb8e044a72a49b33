#include "gpurTVSchedule.h"

#include <cmath>

namespace gpur
{

TVSchedule::TVSchedule(const TVParameters & parameters, const Grid & grid, double maxWeight)
  : m_Parameters(parameters)
  , m_NormSquared(grid.GradientNormSquaredBound())
  , m_Convexity(parameters.lambda / maxWeight)
{
  // tau * sigma * ||grad||^2 = 1, balanced (the images' intensity scale is unknown).
  m_Tau = m_Sigma = 1.0 / std::sqrt(m_NormSquared);
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
  s.a = 1.0 / (1.0 + tau * lambda);
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
      // CP 2011 Alg. 2 with gamma = 0.7 lambda (< lambda, the strong convexity of
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
      // The thesis' schedule is tuned for 3D unit spacing, ||grad||^2 <= 12; scaling
      // tau_D by 12 / ||grad||^2 keeps tau_D tau_P -> 2 / ||grad||^2 on other grids.
      const double kk = static_cast<double>(k) + m_Parameters.pduOffset;
      const double tauD = 0.3 + 0.02 * kk;
      const double tauP = (1.0 / tauD) * (1.0 / 6.0 - 5.0 / (15.0 + kk));
      TVStep s;
      s.primalFirst = true;
      s.dualUsesBar = false;
      s.sigma = tauD * 12.0 / m_NormSquared;
      s.a = 1.0 - tauP;
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
