// SPDX-License-Identifier: Apache-2.0
// Step sizes of the three ROF primal-dual methods (internal, shared by both backends).
#ifndef gpurTVSchedule_h
#define gpurTVSchedule_h

#include "gpurTVDenoiser.h"

namespace gpur
{

/**
 * One iteration in a common form that both backends execute:
 *   dual:   p <- proj_{|p|<=1}(p + sigma * grad(v)),  v = ubar (CP) or u (PDU)
 *   primal: u_new = u + b (f - u) + c div p,  ubar = u_new + theta (u_new - u)
 * CP runs dual then primal; PDU runs primal then dual (Gauss-Seidel order).
 * With a per-voxel data-term weight w the backends derive a, b, c per voxel
 * from tau and lambda: the CP prox (relaxation false) or the PDU relaxation.
 * The primal update is (1 - b) u + b f + c div p for every method (the prox
 * and the relaxation are both convex combinations of u and f) written as
 * u + b (f - u) + c div p, which leaves u = f exactly where f is flat and
 * p = 0 (a (1 - b) u + b f in rounding arithmetic drifts by ulps there).
 */
struct TVStep
{
  bool primalFirst = false;
  bool dualUsesBar = true;
  double sigma = 0.0;
  double b = 0.0, c = 0.0, theta = 0.0;
  bool relaxation = false; ///< PDU's u <- (1 - tau) u + tau (f + (w / lambda) div p)
  double tau = 0.0;        ///< primal step (tau_P for PDU)
  double lambda = 0.0;

  /**
   * The same step for the problem with intensities divided by 2^intensityExponent
   * and spacings divided by 2^lengthExponent (see TVWorkingScale in
   * gpurTVDenoiser.cxx): sigma, c, tau and lambda change by powers of two
   * only, so the iterates are the scaled iterates, bit for bit.
   */
  TVStep
  Scaled(int intensityExponent, int lengthExponent) const;
};

/**
 * The voxel size that the ROF intensity unit refers to: 2 sqrt(d) / ||grad||,
 * i.e. the spacing for isotropic voxels, a mean of the spacings otherwise.
 */
double
TVCharacteristicLength(const Grid & grid);

/**
 * The intensity unit I = c / (lambda_eff l) of the method's step balance (l:
 * TVCharacteristicLength, c: a constant of the method, see the .cxx,
 * lambda_eff = lambda / mean w, the mean fidelity weight of a weighted data
 * term). The primal and dual steps are tau = I tau_0 and sigma = sigma_0 / I,
 * with the steps tau_0, sigma_0 of the problem in units of I; so the iterates
 * for (s f, lambda / s) are s times those for (f, lambda) in exact arithmetic,
 * and those for a constant weight w those for lambda / w without one.
 */
double
TVIntensityUnit(const TVParameters & parameters, const Grid & grid, double meanWeight = 1.0);

class TVSchedule
{
public:
  /**
   * maxWeight: the largest data-term weight w (1 without weights); the data
   * term (lambda/2) sum (u-f)^2/w is then lambda/maxWeight strongly convex,
   * which bounds the acceleration of the accelerated CP method. meanWeight:
   * the mean of w (1 without weights), for the step balance.
   */
  TVSchedule(const TVParameters & parameters, const Grid & grid, double maxWeight = 1.0, double meanWeight = 1.0);
  /** Step for iteration k = 0, 1, ... (call in order: the accelerated schedule has state). */
  TVStep
  Next(unsigned k);
  /** Whether the method uses the extrapolated ubar (an extra volume). */
  bool
  UsesBar() const
  {
    return m_Parameters.algorithm != TVAlgorithm::PDU;
  }

private:
  TVStep
  PrimalDualStep(double tau, double sigma, double theta) const;

  TVParameters m_Parameters;
  double m_NormSquared; ///< bound of ||grad||^2
  double m_Unit;        ///< the intensity unit I of the step balance
  double m_Convexity;   ///< strong convexity of the data term: lambda / max w
  double m_Tau, m_Sigma;
};

} // namespace gpur

#endif
