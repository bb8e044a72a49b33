// SPDX-License-Identifier: Apache-2.0
// The one iteration of CPISTA, FISTA and CPADMM, written once over the vector
// backend (gpurSparseVectors.h) and driven by RecoverSparse
// (gpurRecoverSparse.cxx) and by Auto's speed probe.
#ifndef gpurSparseSolver_h
#define gpurSparseSolver_h

#include "gpurSparseVectors.h"

namespace gpur
{
namespace sparse
{

/** The resolved constants of a run (see RecoverSparse for how they follow from the parameters). */
struct IterationConstants
{
  SparseSolver solver = SparseSolver::FISTA;
  double step = 0.0; ///< CPISTA/FISTA step tau
  double threshold =
    0.0;              ///< the prox's threshold: alpha tau (CPISTA/FISTA, or alpha as printed), alpha / sigma (CPADMM)
  double rho = 0.0;   ///< CPADMM
  double sigma = 0.0; ///< CPADMM
  double dualStep = 1.0; ///< CPADMM tau1 = tau2
  bool nonnegative = false;
};

/** The state of one run on one backend: its arrays and the iteration. */
template<typename Real>
class Iteration
{
public:
  /**
   * Allocates the solver's arrays on `vectors` and uploads y (zero-filled,
   * Count() values) and the truth (null: none). The output starts at 0.
   */
  Iteration(Vectors<Real> & vectors, SparseSolver solver, const Real * y, const Real * truth);

  /** ||A^T y||_inf: alpha_max of the LASSO (uses the work arrays; call before the first Step). */
  double
  AlphaMax();
  /** Sets the constants (before the first Step). */
  void
  SetConstants(const IterationConstants & constants);
  /** One iteration; returns the change of the output when `measure` (one host synchronisation), else zeros. */
  Change
  Step(bool measure);
  /** The reductions at the current output (4 FFTs and one host synchronisation). */
  Measures
  Check();
  /** Copies the output (x for CPISTA/FISTA, z for CPADMM) to Count() host values. */
  void
  Store(Real * x);

private:
  /** r = P C' u - y and g = C'^T r into the given arrays (4 FFTs). */
  void
  Gradient(RealVector u, RealVector r, RealVector g);

  Vectors<Real> & m_V;
  IterationConstants m_C;
  bool m_HasTruth;
  double m_T = 1.0; ///< FISTA's t_k [Beck2009, eq. (4.2)]
  RealVector m_Y, m_Truth, m_X, m_W, m_R, m_G;
  RealVector m_Cx, m_Mu, m_Nu, m_Z, m_A, m_Cc; // CPADMM
  SpectrumVector m_S, m_S2;
};

} // namespace sparse
} // namespace gpur

#endif
