// SPDX-License-Identifier: Apache-2.0
// The vector backend of the sparse-recovery engine: the few array operations
// that the operators (gpurCirculantOperator.cxx) and the one solver loop
// (gpurSparseSolver.cxx) are written in, implemented on the host (FFTW plans
// and the gpur parallel loops: gpurSparseVectorsCPU.cxx) and on an OpenCL
// device (VkFFT plans and kernels/sparse_*.cl, everything device-resident:
// gpurSparseVectorsOpenCL.cxx). The elementwise steps of each iteration are
// fused into one pass each; reductions are returned only when asked for (the
// solver asks every checkInterval iterations), so a device iteration has no
// host synchronisation otherwise.
//
// The backend holds the sensing's combined spectrum K = conj(FFT(v)) . FFT(psf
// centred at 0) (R2C half spectrum) and its mask: C' x = IFFT(K . FFT(x)),
// C'^T r = IFFT(conj(K) . FFT(r)), A = P C'.
#ifndef gpurSparseVectors_h
#define gpurSparseVectors_h

#include "gpurSparseRecovery.h"

#include <algorithm>
#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

namespace gpur
{
namespace sparse
{

/** A real array of Count() values held by a backend. */
struct RealVector
{
  unsigned id = 0;
};

/** A half spectrum ((nx/2+1) * ny complex values) held by a backend. */
struct SpectrumVector
{
  unsigned id = 0;
};

/** ||x_new - x_old||^2 and ||x_new||^2 of an update, when measured. */
struct Change
{
  double difference2 = 0.0;
  double norm2 = 0.0;
};

/** The reductions of a check, at x with r = P C' x - y (zero-filled) and g = C'^T r. */
struct Measures
{
  double residual2 = 0.0;   ///< ||r||^2
  double l1 = 0.0;          ///< ||x||_1
  double yDotR = 0.0;       ///< <y, r>
  double gradientMax = 0.0; ///< ||g||_inf, or max(-g) (at least 0) when nonnegative: the dual constraint
  double error2 = 0.0;      ///< ||x - truth||^2 (0 without a truth)
};

/** The arrays of a CPADMM update (Vectors::AdmmUpdate). */
struct AdmmArrays
{
  RealVector x, cx, y, mu, nu, z, a, c; ///< x, C' x, y, the duals mu and nu, z, and the next inputs a and c
};

/** The sensing's spectrum and mask, shared by both backends. */
struct SensingSpectrum
{
  std::vector<std::size_t> size;       ///< the signal's axes
  std::vector<std::complex<double>> k; ///< K, (nx/2+1) * ny values
  std::vector<std::uint8_t> mask;      ///< Omega, Count() values
  double normSquared = 0.0;            ///< max_k |K_k|^2 = ||C'||^2
};

/**
 * K and ||C'||^2 of a valid sensing, computed in double on the host (FFTW):
 * C x is the correlation with v, so its spectrum is conj(FFT(v)) [Fiandrotti2018,
 * §4.2]; the PSF (scaled to a unit sum when normalizePSF) is moved so that its
 * centre psfSize/2 lies at index 0 and multiplies as a periodic convolution.
 * Throws InvalidArgument when C' is 0.
 */
SensingSpectrum
ComputeSensingSpectrum(const CirculantSensing & sensing);

/** The array operations, on one backend. Handles are valid for the backend that made them. */
template<typename Real>
class Vectors
{
public:
  virtual ~Vectors() = default;

  /** A new real array, zero. */
  virtual RealVector
  NewReal() = 0;
  /** A new half spectrum (contents undefined until written). */
  virtual SpectrumVector
  NewSpectrum() = 0;
  /** Copies Count() host values into v. */
  virtual void
  Upload(RealVector v, const Real * host) = 0;
  /** Copies v to Count() host values (waits for the work before it). */
  virtual void
  Download(RealVector v, Real * host) = 0;
  /** Sets every value of v to 0. */
  virtual void
  Zero(RealVector v) = 0;
  /** to = from. */
  virtual void
  Copy(RealVector from, RealVector to) = 0;

  /** out = FFT(in) (R2C). */
  virtual void
  Forward(RealVector in, SpectrumVector out) = 0;
  /** out = IFFT(in) (C2R, scaled by 1/n). */
  virtual void
  Inverse(SpectrumVector in, RealVector out) = 0;
  /** s = K . s, or conj(K) . s. */
  virtual void
  MultiplyK(SpectrumVector s, bool conjugate) = 0;
  /** s = s / (rho |K|^2 + sigma): the spectrum of (rho C'^T C' + sigma I)^-1. */
  virtual void
  DivideShifted(SpectrumVector s, double rho, double sigma) = 0;
  /**
   * CPADMM's x-update in the spectrum: a = (rho conj(K) . a + sigma c) / (rho |K|^2 + sigma)
   * (the spectrum of x), then c = K . a (the spectrum of C' x).
   */
  virtual void
  AdmmSpectra(SpectrumVector a, SpectrumVector c, double rho, double sigma) = 0;

  /** out = P (in - yWeight y): the zero-filled residual (yWeight 1) or the masked array (yWeight 0). */
  virtual void
  MaskedDifference(RealVector in, RealVector y, double yWeight, RealVector out) = 0;
  /**
   * The proximal gradient step of CPISTA/FISTA, fused: x_new = prox(w - step g)
   * (soft threshold at `threshold`, or max(. - threshold, 0) when nonnegative),
   * then w = x_new + beta (x_new - x) (FISTA's momentum; beta = 0 and w = x
   * for CPISTA) and x = x_new. Returns the change when `measure`, else zeros.
   */
  virtual Change
  ProxStep(RealVector w,
           RealVector g,
           RealVector x,
           double step,
           double threshold,
           double beta,
           bool nonnegative,
           bool measure) = 0;
  /**
   * The rest of a CPADMM iteration after x and cx = C' x, fused [Fiandrotti2018,
   * Algorithm 3]: v = d (rho cx - rho mu + y) with d = 1/(1 + rho) on Omega and
   * 1/rho elsewhere; z_new = prox(x + nu); mu += tau (v - cx); nu += tau (x - z_new);
   * then the next iteration's inputs a = v + mu and c = z_new - nu, and z = z_new.
   * Returns the change of z when `measure`.
   */
  virtual Change
  AdmmUpdate(const AdmmArrays & arrays, double rho, double threshold, double tau, bool nonnegative, bool measure) = 0;
  /** The reductions of a check (see Measures); truth may be null. */
  virtual Measures
  Measure(RealVector x, RealVector r, RealVector g, RealVector y, const RealVector * truth, bool nonnegative) = 0;
  /** max |v_i|. */
  virtual double
  MaxAbs(RealVector v) = 0;
  /** Bytes held (spectrum, mask, arrays, plans' work arrays where known). */
  virtual std::size_t
  Bytes() const = 0;
};

/** The host backend (FFTW, gpur parallel loops). */
template<typename Real>
std::unique_ptr<Vectors<Real>>
MakeVectorsCPU(const SensingSpectrum & spectrum, const ExecutionOptions & execution);

/** The OpenCL backend on `device` (throws InvalidArgument for double without fp64). */
template<typename Real>
std::unique_ptr<Vectors<Real>>
MakeVectorsOpenCL(const SensingSpectrum & spectrum, const DeviceInfo & device);

/**
 * ResolveBackend for a transform of `size` (with the engine's Auto probe, or
 * none): when Auto lands on an OpenCL device whose FFT axis limit the size
 * exceeds (CPU drivers, FFTDeviceAxisLimit), the CPU reference runs instead,
 * with the reason. An explicit OpenCL request is left to fail with the plan's
 * InvalidArgument.
 */
ResolvedBackend
ResolveSparseBackend(const std::vector<std::size_t> & size,
                     const ExecutionOptions & execution,
                     bool isDouble,
                     const AutoProbe & probe = AutoProbe());

/** The backend `backend` names, for `spectrum`. */
template<typename Real>
std::unique_ptr<Vectors<Real>>
MakeVectors(const SensingSpectrum & spectrum, const ResolvedBackend & backend, const ExecutionOptions & execution)
{
  return backend.backend == Backend::OpenCL ? MakeVectorsOpenCL<Real>(spectrum, backend.device)
                                            : MakeVectorsCPU<Real>(spectrum, execution);
}

/**
 * The soft threshold of u at t, u - clamp(u, -t, t) (u - t, 0 or u + t), or
 * max(u - t, 0) when nonnegative; branch-free, as kernels/sparse_elementwise.cl
 * computes it.
 */
template<typename Real>
inline Real
Shrink(Real u, Real t, bool nonnegative)
{
  return nonnegative ? std::max(u - t, Real(0)) : u - std::min(std::max(u, -t), t);
}

} // namespace sparse
} // namespace gpur

#endif
