// SPDX-License-Identifier: Apache-2.0
// The sensing operators A = P C B, A^T and (rho C'^T C' + sigma I)^-1 as FFT
// pairs [Fiandrotti2018, §4.2] on either backend (gpurSparseVectors.h), and
// the spectrum they share.
#include "gpurFFT.h"
#include "gpurIterativeDriver.h"
#include "gpurSparseVectors.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gpur
{
namespace sparse
{

SensingSpectrum
ComputeSensingSpectrum(const CirculantSensing & sensing)
{
  SensingSpectrum spectrum;
  spectrum.size = sensing.size;
  spectrum.mask = sensing.mask;
  const FFTPlan<double> plan(FFTKind::RealToComplex, sensing.size);
  const std::size_t n = plan.SpatialElements(), h = plan.SpectralElements();
  spectrum.k.resize(h);
  plan.Forward(sensing.generator.data(), spectrum.k.data());
  // C x is the periodic cross-correlation with v: (C x)_i = sum_j v_(j-i) x_j, whose spectrum is conj(V) . X.
  for (auto & k : spectrum.k)
    k = std::conj(k);
  if (!sensing.psf.empty())
  {
    // The PSF with its centre psfSize/2 moved to index 0 (periodically): B x = q * x, a circular convolution.
    double sum = 0.0;
    for (double p : sensing.psf)
      sum += p;
    const double scale = sensing.normalizePSF ? 1.0 / sum : 1.0;
    const std::size_t nx = sensing.size[0], ny = sensing.size.size() > 1 ? sensing.size[1] : 1;
    const std::size_t px = sensing.psfSize[0], py = sensing.psfSize.size() > 1 ? sensing.psfSize[1] : 1;
    std::vector<double> q(n, 0.0);
    for (std::size_t j = 0; j < py; ++j)
      for (std::size_t i = 0; i < px; ++i)
      {
        const std::size_t x = (i + nx - px / 2) % nx, y = (j + ny - py / 2) % ny;
        q[y * nx + x] += scale * sensing.psf[j * px + i];
      }
    std::vector<std::complex<double>> b(h);
    plan.Forward(q.data(), b.data());
    for (std::size_t i = 0; i < h; ++i)
      spectrum.k[i] *= b[i];
  }
  for (const auto & k : spectrum.k)
    spectrum.normSquared = std::max(spectrum.normSquared, std::norm(k));
  if (!(spectrum.normSquared > 0.0) || !std::isfinite(spectrum.normSquared))
  {
    throw InvalidArgument("circulant sensing: the operator C B is 0 (every frequency of the generator is cancelled "
                          "by a zero of the PSF's spectrum); no signal can be recovered");
  }
  return spectrum;
}

} // namespace sparse

template<typename Real>
class CirculantOperator<Real>::Impl
{
public:
  Impl(const CirculantSensing & sensing, const ExecutionOptions & execution)
  {
    sensing.Validate();
    const sparse::SensingSpectrum spectrum = sparse::ComputeSensingSpectrum(sensing);
    normSquared = spectrum.normSquared;
    n = sensing.Count();
    backend = sparse::ResolveSparseBackend(sensing.size, execution, sizeof(Real) == 8);
    vectors = sparse::MakeVectors<Real>(spectrum, backend, execution);
    in = vectors->NewReal();
    out = vectors->NewReal();
    work = vectors->NewReal();
    s = vectors->NewSpectrum();
  }

  std::unique_ptr<sparse::Vectors<Real>> vectors;
  ResolvedBackend backend;
  double normSquared = 0.0;
  std::size_t n = 0;
  sparse::RealVector in, out, work;
  sparse::SpectrumVector s;
};

template<typename Real>
CirculantOperator<Real>::CirculantOperator(const CirculantSensing & sensing, const ExecutionOptions & execution)
{
  TimedRun([&] { m_Impl.reset(new Impl(sensing, execution)); });
}

template<typename Real>
CirculantOperator<Real>::~CirculantOperator() = default;
template<typename Real>
CirculantOperator<Real>::CirculantOperator(CirculantOperator &&) noexcept = default;
template<typename Real>
CirculantOperator<Real> &
CirculantOperator<Real>::operator=(CirculantOperator &&) noexcept = default;

template<typename Real>
void
CirculantOperator<Real>::Apply(const Real * x, Real * y) const
{
  Impl & d = *m_Impl;
  TimedRun(
    [&]
    {
      d.vectors->Upload(d.in, x);
      d.vectors->Forward(d.in, d.s);
      d.vectors->MultiplyK(d.s, false);
      d.vectors->Inverse(d.s, d.work);
      d.vectors->MaskedDifference(d.work, d.work, 0.0, d.out);
      d.vectors->Download(d.out, y);
    });
}

template<typename Real>
void
CirculantOperator<Real>::ApplyTranspose(const Real * y, Real * x) const
{
  Impl & d = *m_Impl;
  TimedRun(
    [&]
    {
      d.vectors->Upload(d.in, y);
      d.vectors->MaskedDifference(d.in, d.in, 0.0, d.work);
      d.vectors->Forward(d.work, d.s);
      d.vectors->MultiplyK(d.s, true);
      d.vectors->Inverse(d.s, d.out);
      d.vectors->Download(d.out, x);
    });
}

template<typename Real>
void
CirculantOperator<Real>::SolveShifted(double rho, double sigma, const Real * b, Real * x) const
{
  if (!std::isfinite(rho) || rho < 0.0 || !std::isfinite(sigma) || !(sigma > 0.0))
  {
    std::ostringstream message;
    message << "circulant operator: SolveShifted needs rho >= 0 and sigma > 0 (finite); they are " << rho << " and "
            << sigma;
    throw InvalidArgument(message.str());
  }
  Impl & d = *m_Impl;
  TimedRun(
    [&]
    {
      d.vectors->Upload(d.in, b);
      d.vectors->Forward(d.in, d.s);
      d.vectors->DivideShifted(d.s, rho, sigma);
      d.vectors->Inverse(d.s, d.out);
      d.vectors->Download(d.out, x);
    });
}

template<typename Real>
double
CirculantOperator<Real>::NormSquaredBound() const
{
  return m_Impl->normSquared;
}

template<typename Real>
const ResolvedBackend &
CirculantOperator<Real>::Backend() const
{
  return m_Impl->backend;
}

template<typename Real>
std::size_t
CirculantOperator<Real>::Bytes() const
{
  return m_Impl->vectors->Bytes();
}

template<typename Real>
void
MeasureCirculant(const CirculantSensing & sensing, const Real * x, Real * y, const ExecutionOptions & execution)
{
  if (x == nullptr || y == nullptr)
    throw InvalidArgument("MeasureCirculant: the signal or measurement array is null");
  sensing.Validate();
  RequireFinite(x, sensing.Count(), "the signal");
  const CirculantOperator<Real> op(sensing, execution);
  op.Apply(x, y);
}

template class CirculantOperator<float>;
template class CirculantOperator<double>;
template void
MeasureCirculant(const CirculantSensing &, const float *, float *, const ExecutionOptions &);
template void
MeasureCirculant(const CirculantSensing &, const double *, double *, const ExecutionOptions &);

} // namespace gpur
