// SPDX-License-Identifier: Apache-2.0
// CPISTA [Fiandrotti2018, Algorithm 1], FISTA [Beck2009, eqs. (4.1)-(4.3)] and
// CPADMM [Fiandrotti2018, Algorithm 3; Yin2010] over the vector backend: the
// same code drives the host and the device.
#include "gpurSparseSolver.h"

#include <cmath>

namespace gpur
{
namespace sparse
{

template<typename Real>
Iteration<Real>::Iteration(Vectors<Real> & vectors, SparseSolver solver, const Real * y, const Real * truth)
  : m_V(vectors)
  , m_HasTruth(truth != nullptr)
{
  m_C.solver = solver;
  m_Y = m_V.NewReal();
  m_V.Upload(m_Y, y);
  if (m_HasTruth)
  {
    m_Truth = m_V.NewReal();
    m_V.Upload(m_Truth, truth);
  }
  m_S = m_V.NewSpectrum();
  if (solver == SparseSolver::CPADMM)
  {
    // Arrays x and C' x are dead once the update has read them: the checks use them as work arrays.
    m_X = m_V.NewReal();
    m_Cx = m_V.NewReal();
    m_Mu = m_V.NewReal();
    m_Nu = m_V.NewReal();
    m_Z = m_V.NewReal();
    m_A = m_V.NewReal();
    m_Cc = m_V.NewReal();
    m_S2 = m_V.NewSpectrum();
    m_R = m_Cx;
    m_G = m_X;
    // The start: v = P^T y (the measured rows themselves), mu = z = nu = 0, so a = v + mu = y and c = z - nu = 0.
    m_V.Copy(m_Y, m_A);
  }
  else
  {
    m_X = m_V.NewReal();
    m_W = solver == SparseSolver::FISTA ? m_V.NewReal() : m_X;
    m_R = m_V.NewReal();
    m_G = m_V.NewReal();
  }
}

template<typename Real>
void
Iteration<Real>::Gradient(RealVector u, RealVector r, RealVector g)
{
  // g doubles as the work array of C' u: it is written again only after r has been formed.
  m_V.Forward(u, m_S);
  m_V.MultiplyK(m_S, false);
  m_V.Inverse(m_S, g);
  m_V.MaskedDifference(g, m_Y, 1.0, r);
  m_V.Forward(r, m_S);
  m_V.MultiplyK(m_S, true);
  m_V.Inverse(m_S, g);
}

template<typename Real>
double
Iteration<Real>::AlphaMax()
{
  // A^T y = C'^T P^T y: the gradient of the data term at 0 (P C' 0 - y = -y), up to its sign.
  RealVector zero = m_C.solver == SparseSolver::CPADMM ? m_Z : m_X;
  Gradient(zero, m_R, m_G);
  return m_V.MaxAbs(m_G);
}

template<typename Real>
void
Iteration<Real>::SetConstants(const IterationConstants & constants)
{
  const SparseSolver solver = m_C.solver;
  m_C = constants;
  m_C.solver = solver;
}

template<typename Real>
Change
Iteration<Real>::Step(bool measure)
{
  if (m_C.solver == SparseSolver::CPADMM)
  {
    // [Fiandrotti2018, Algorithm 3] with every product by C, C^T and (rho C^T C + sigma I)^-1 as spectra:
    // X = (rho conj(K) FFT(v + mu) + sigma FFT(z - nu)) / (rho |K|^2 + sigma), x = IFFT(X), C' x = IFFT(K X).
    m_V.Forward(m_A, m_S);
    m_V.Forward(m_Cc, m_S2);
    m_V.AdmmSpectra(m_S, m_S2, m_C.rho, m_C.sigma);
    m_V.Inverse(m_S, m_X);
    m_V.Inverse(m_S2, m_Cx);
    return m_V.AdmmUpdate(AdmmArrays{ m_X, m_Cx, m_Y, m_Mu, m_Nu, m_Z, m_A, m_Cc },
                          m_C.rho,
                          m_C.threshold,
                          m_C.dualStep,
                          m_C.nonnegative,
                          measure);
  }
  // The proximal gradient step at w (w = x for CPISTA) [Fiandrotti2018, Algorithm 1; Beck2009, eq. (4.1)].
  Gradient(m_W, m_R, m_G);
  double beta = 0.0;
  if (m_C.solver == SparseSolver::FISTA)
  {
    // t_(k+1) = (1 + sqrt(1 + 4 t_k^2)) / 2, w = x_k + (t_k - 1) / t_(k+1) (x_k - x_(k-1)) [Beck2009, eqs.
    // (4.2)-(4.3)].
    const double next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * m_T * m_T));
    beta = (m_T - 1.0) / next;
    m_T = next;
  }
  return m_V.ProxStep(m_W, m_G, m_X, m_C.step, m_C.threshold, beta, m_C.nonnegative, measure);
}

template<typename Real>
Measures
Iteration<Real>::Check()
{
  const RealVector out = m_C.solver == SparseSolver::CPADMM ? m_Z : m_X;
  Gradient(out, m_R, m_G);
  return m_V.Measure(out, m_R, m_G, m_Y, m_HasTruth ? &m_Truth : nullptr, m_C.nonnegative);
}

template<typename Real>
void
Iteration<Real>::Store(Real * x)
{
  m_V.Download(m_C.solver == SparseSolver::CPADMM ? m_Z : m_X, x);
}

template class Iteration<float>;
template class Iteration<double>;

} // namespace sparse
} // namespace gpur
