// Step sizes of the three ROF primal-dual methods (internal, shared by both backends).
#ifndef gpurTVSchedule_h
#define gpurTVSchedule_h

#include "gpurTVDenoiser.h"

namespace gpur
{

/**
 * One iteration in a common form that both backends execute:
 *   dual:   p <- proj_{|p|<=1}(p + sigma * grad(v)),  v = ubar (CP) or u (PDU)
 *   primal: u_new = a u + b f + c div p,  ubar = u_new + theta (u_new - u)
 * CP runs dual then primal; PDU runs primal then dual (Gauss-Seidel order).
 * With a per-voxel data-term weight w the backends derive a, b, c per voxel
 * from tau and lambda: the CP prox (relaxation false) or the PDU relaxation.
 */
struct TVStep
{
  bool primalFirst = false;
  bool dualUsesBar = true;
  double sigma = 0.0;
  double a = 0.0, b = 0.0, c = 0.0, theta = 0.0;
  bool relaxation = false; ///< PDU's u <- (1 - tau) u + tau (f + (w / lambda) div p)
  double tau = 0.0;        ///< primal step (tau_P for PDU)
  double lambda = 0.0;
};

class TVSchedule
{
public:
  /**
   * maxWeight: the largest data-term weight w (1 without weights); the data
   * term (lambda/2) sum (u-f)^2/w is then lambda/maxWeight strongly convex,
   * which bounds the acceleration of the accelerated CP method.
   */
  TVSchedule(const TVParameters & parameters, const Grid & grid, double maxWeight = 1.0);
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
  double m_Convexity;   ///< strong convexity of the data term: lambda / max w
  double m_Tau, m_Sigma;
};

} // namespace gpur

#endif
