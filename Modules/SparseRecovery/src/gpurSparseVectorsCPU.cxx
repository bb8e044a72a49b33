// SPDX-License-Identifier: Apache-2.0
// The host backend of the sparse-recovery engine (gpurSparseVectors.h): FFTW
// plans (gpurFFT.h) and the gpur parallel loops; the twin of
// gpurSparseVectorsOpenCL.cxx and kernels/sparse_*.cl.
#include "gpurFFT.h"
#include "gpurSparseVectors.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace gpur
{
namespace sparse
{
namespace
{

/**
 * a b written out: std::complex's operator* checks for infinities (C99 Annex G)
 * unless built with -fcx-limited-range, several times slower in these loops.
 */
template<typename Real>
inline std::complex<Real>
Multiply(const std::complex<Real> & a, const std::complex<Real> & b)
{
  return { a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real() };
}

/** Chunks of the reductions: fixed, so their results do not depend on the number of threads. */
constexpr std::size_t kReductionChunks = 64;

template<typename Real>
class VectorsCPU : public Vectors<Real>
{
public:
  using Complex = std::complex<Real>;

  VectorsCPU(const SensingSpectrum & spectrum, const ExecutionOptions & execution)
    : m_Plan(FFTKind::RealToComplex, spectrum.size)
    , m_N(m_Plan.SpatialElements())
    , m_H(m_Plan.SpectralElements())
    , m_K(m_H)
    , m_Mask(spectrum.mask)
    , m_For(ResolveParallelFor(execution.parallelFor))
  {
    for (std::size_t i = 0; i < m_H; ++i)
      m_K[i] = Complex(Real(spectrum.k[i].real()), Real(spectrum.k[i].imag()));
  }

  RealVector
  NewReal() override
  {
    m_Real.emplace_back(m_N, Real(0));
    return RealVector{ unsigned(m_Real.size() - 1) };
  }
  SpectrumVector
  NewSpectrum() override
  {
    m_Spectra.emplace_back(m_H);
    return SpectrumVector{ unsigned(m_Spectra.size() - 1) };
  }
  void
  Upload(RealVector v, const Real * host) override
  {
    std::copy(host, host + m_N, R(v));
  }
  void
  Download(RealVector v, Real * host) override
  {
    std::copy(R(v), R(v) + m_N, host);
  }
  void
  Zero(RealVector v) override
  {
    std::fill(R(v), R(v) + m_N, Real(0));
  }
  void
  Copy(RealVector from, RealVector to) override
  {
    std::copy(R(from), R(from) + m_N, R(to));
  }

  void
  Forward(RealVector in, SpectrumVector out) override
  {
    m_Plan.Forward(R(in), S(out));
  }
  void
  Inverse(SpectrumVector in, RealVector out) override
  {
    m_Plan.Inverse(S(in), R(out));
  }
  void
  MultiplyK(SpectrumVector s, bool conjugate) override
  {
    Complex * p = S(s);
    const Complex * k = m_K.data();
    Loop(m_H, [=](std::size_t i) { p[i] = Multiply(conjugate ? std::conj(k[i]) : k[i], p[i]); });
  }
  void
  DivideShifted(SpectrumVector s, double rho, double sigma) override
  {
    Complex * p = S(s);
    const Complex * k = m_K.data();
    const Real r = Real(rho), g = Real(sigma);
    Loop(m_H, [=](std::size_t i) { p[i] /= r * std::norm(k[i]) + g; });
  }
  void
  AdmmSpectra(SpectrumVector a, SpectrumVector c, double rho, double sigma) override
  {
    Complex * pa = S(a);
    Complex * pc = S(c);
    const Complex * k = m_K.data();
    const Real r = Real(rho), g = Real(sigma);
    Loop(m_H,
         [=](std::size_t i)
         {
           const Complex x = (r * Multiply(std::conj(k[i]), pa[i]) + g * pc[i]) / (r * std::norm(k[i]) + g);
           pa[i] = x;
           pc[i] = Multiply(k[i], x);
         });
  }

  void
  MaskedDifference(RealVector in, RealVector y, double yWeight, RealVector out) override
  {
    const Real * pin = R(in);
    const Real * py = R(y);
    Real * po = R(out);
    const std::uint8_t * mask = m_Mask.data();
    const Real w = Real(yWeight);
    Loop(m_N, [=](std::size_t i) { po[i] = mask[i] ? pin[i] - w * py[i] : Real(0); });
  }

  Change
  ProxStep(RealVector w,
           RealVector g,
           RealVector x,
           double step,
           double threshold,
           double beta,
           bool nonnegative,
           bool measure) override
  {
    Real * pw = R(w);
    const Real * pg = R(g);
    Real * px = R(x);
    const Real tau = Real(step), t = Real(threshold), b = Real(beta);
    const auto sums = Reduce(m_N,
                             [=](std::size_t begin, std::size_t end, double * acc)
                             {
                               for (std::size_t i = begin; i < end; ++i)
                               {
                                 const Real next = Shrink(pw[i] - tau * pg[i], t, nonnegative);
                                 const Real d = next - px[i];
                                 pw[i] = next + b * d;
                                 px[i] = next;
                                 acc[0] += double(d) * double(d);
                                 acc[1] += double(next) * double(next);
                               }
                             });
    return measure ? Change{ sums[0], sums[1] } : Change{};
  }

  Change
  AdmmUpdate(const AdmmArrays & v, double rho, double threshold, double tau, bool nonnegative, bool measure) override
  {
    const Real *px = R(v.x), *pcx = R(v.cx), *py = R(v.y);
    Real *pmu = R(v.mu), *pnu = R(v.nu), *pz = R(v.z), *pa = R(v.a), *pc = R(v.c);
    const std::uint8_t * mask = m_Mask.data();
    const Real r = Real(rho), t = Real(threshold), s = Real(tau);
    const Real dIn = Real(1.0 / (1.0 + rho)), dOut = Real(1.0 / rho);
    const auto sums = Reduce(m_N,
                             [=](std::size_t begin, std::size_t end, double * acc)
                             {
                               for (std::size_t i = begin; i < end; ++i)
                               {
                                 const Real v = (mask[i] ? dIn : dOut) * (r * pcx[i] - r * pmu[i] + py[i]);
                                 const Real zNew = Shrink(px[i] + pnu[i], t, nonnegative);
                                 const Real muNew = pmu[i] + s * (v - pcx[i]);
                                 const Real nuNew = pnu[i] + s * (px[i] - zNew);
                                 const Real d = zNew - pz[i];
                                 pmu[i] = muNew;
                                 pnu[i] = nuNew;
                                 pa[i] = v + muNew;
                                 pc[i] = zNew - nuNew;
                                 pz[i] = zNew;
                                 acc[0] += double(d) * double(d);
                                 acc[1] += double(zNew) * double(zNew);
                               }
                             });
    return measure ? Change{ sums[0], sums[1] } : Change{};
  }

  Measures
  Measure(RealVector x, RealVector r, RealVector g, RealVector y, const RealVector * truth, bool nonnegative) override
  {
    const Real *px = R(x), *pr = R(r), *pg = R(g), *py = R(y);
    const Real * pt = truth ? R(*truth) : nullptr;
    std::vector<double> chunks(kReductionChunks * 5, 0.0);
    const std::size_t n = m_N;
    ForChunks(
      [&](std::size_t chunk, std::size_t begin, std::size_t end)
      {
        double * acc = &chunks[5 * chunk];
        double gmax = 0.0;
        for (std::size_t i = begin; i < end; ++i)
        {
          acc[0] += double(pr[i]) * double(pr[i]);
          acc[1] += std::abs(double(px[i]));
          acc[2] += double(py[i]) * double(pr[i]);
          gmax = std::max(gmax, nonnegative ? -double(pg[i]) : std::abs(double(pg[i])));
          if (pt)
          {
            const double e = double(px[i]) - double(pt[i]);
            acc[4] += e * e;
          }
        }
        acc[3] = gmax;
      },
      n);
    Measures m;
    for (std::size_t c = 0; c < kReductionChunks; ++c)
    {
      m.residual2 += chunks[5 * c];
      m.l1 += chunks[5 * c + 1];
      m.yDotR += chunks[5 * c + 2];
      m.gradientMax = std::max(m.gradientMax, chunks[5 * c + 3]);
      m.error2 += chunks[5 * c + 4];
    }
    return m;
  }

  double
  MaxAbs(RealVector v) override
  {
    const Real * p = R(v);
    std::vector<double> chunks(kReductionChunks, 0.0);
    ForChunks(
      [&](std::size_t chunk, std::size_t begin, std::size_t end)
      {
        double m = 0.0;
        for (std::size_t i = begin; i < end; ++i)
          m = std::max(m, std::abs(double(p[i])));
        chunks[chunk] = m;
      },
      m_N);
    return *std::max_element(chunks.begin(), chunks.end());
  }

  std::size_t
  Bytes() const override
  {
    // The plan's copy of a spectrum (FFTW's c2r overwrites its input) counts as one more spectrum.
    return (m_Real.size() * m_N) * sizeof(Real) + (m_Spectra.size() + 2) * m_H * sizeof(Complex) + m_N;
  }

private:
  Real *
  R(RealVector v)
  {
    return m_Real[v.id].data();
  }
  Complex *
  S(SpectrumVector s)
  {
    return m_Spectra[s.id].data();
  }

  template<typename Body>
  void
  Loop(std::size_t n, const Body & body)
  {
    RunParallel(m_For,
                n,
                [&](std::size_t begin, std::size_t end)
                {
                  for (std::size_t i = begin; i < end; ++i)
                    body(i);
                });
  }

  /** body(chunk, begin, end) over kReductionChunks fixed chunks of [0, n). */
  template<typename Body>
  void
  ForChunks(const Body & body, std::size_t n)
  {
    RunParallel(m_For,
                kReductionChunks,
                [&](std::size_t first, std::size_t last)
                {
                  for (std::size_t c = first; c < last; ++c)
                    body(c, c * n / kReductionChunks, (c + 1) * n / kReductionChunks);
                });
  }

  /** Two sums over fixed chunks, for the fused updates. */
  template<typename Body>
  std::array<double, 2>
  Reduce(std::size_t n, const Body & body)
  {
    std::vector<double> chunks(2 * kReductionChunks, 0.0);
    ForChunks([&](std::size_t c, std::size_t begin, std::size_t end) { body(begin, end, &chunks[2 * c]); }, n);
    std::array<double, 2> sums{ { 0.0, 0.0 } };
    for (std::size_t c = 0; c < kReductionChunks; ++c)
    {
      sums[0] += chunks[2 * c];
      sums[1] += chunks[2 * c + 1];
    }
    return sums;
  }

  FFTPlan<Real> m_Plan;
  std::size_t m_N;
  std::size_t m_H;
  std::vector<Complex> m_K;
  std::vector<std::uint8_t> m_Mask;
  ParallelForFunction m_For;
  std::vector<std::vector<Real>> m_Real;
  std::vector<std::vector<Complex>> m_Spectra;
};

} // namespace

template<typename Real>
std::unique_ptr<Vectors<Real>>
MakeVectorsCPU(const SensingSpectrum & spectrum, const ExecutionOptions & execution)
{
  return std::unique_ptr<Vectors<Real>>(new VectorsCPU<Real>(spectrum, execution));
}

template std::unique_ptr<Vectors<float>>
MakeVectorsCPU(const SensingSpectrum &, const ExecutionOptions &);
template std::unique_ptr<Vectors<double>>
MakeVectorsCPU(const SensingSpectrum &, const ExecutionOptions &);

} // namespace sparse
} // namespace gpur
