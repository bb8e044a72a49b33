// SPDX-License-Identifier: Apache-2.0
// The CPU side of gpur::FFTPlan: FFTW 3 [Frigo2005] (fftw3 and fftw3f) through its
// "new-array execute" interface, so that one plan serves any pair of arrays.
#include "gpurFFTBackends.h"

#include "gpurError.h"
#include "gpurFFTWApi.h"

#include <fftw3.h>

#include <algorithm>
#include <climits>
#include <mutex>
#include <thread>
#include <vector>

namespace gpur
{
// FFTW's planner is not thread-safe (FFTW manual, "Thread safety"): every plan
// creation and destruction, and the threads set-up, holds this lock (here and
// in gpurTrigTransform.cxx).
std::mutex &
FFTWPlannerMutex()
{
  static std::mutex mutex;
  return mutex;
}

namespace
{

int
CheckedInt(std::size_t value, const char * what)
{
  if (value > static_cast<std::size_t>(INT_MAX))
  {
    throw InvalidArgument(std::string("FFTPlan: ") + what + " of " + std::to_string(value) +
                          " exceeds FFTW's limit of " + std::to_string(INT_MAX));
  }
  return static_cast<int>(value);
}

template<typename T, typename C>
typename Fftw<T>::Cplx *
AsFftw(C * p)
{
  return reinterpret_cast<typename Fftw<T>::Cplx *>(p);
}

} // namespace

template<typename T>
struct FFTWTransform<T>::Plans
{
  // Two plan pairs: SIMD ones for arrays with FFTW's alignment (any malloc'd
  // array on the usual platforms; planned on fftw_malloc'd arrays, whose
  // alignment is 0) and FFTW_UNALIGNED ones for the rest. The SIMD pair is
  // about 1.6x faster (measured: 32768-point float r2c + c2r pair 136 us vs 220 us).
  typename Fftw<T>::Plan forward = nullptr;
  typename Fftw<T>::Plan inverse = nullptr;
  typename Fftw<T>::Plan forwardUnaligned = nullptr;
  typename Fftw<T>::Plan inverseUnaligned = nullptr;
  // c2r overwrites its input (FFTW manual, "Planner Flags"), so the inverse of a
  // RealToComplex plan runs on this aligned copy and the caller's spectrum stays intact.
  Complex * scratch = nullptr;

  ~Plans()
  {
    for (auto plan : { forward, inverse, forwardUnaligned, inverseUnaligned })
    {
      if (plan)
      {
        Fftw<T>::Destroy(plan);
      }
    }
    Fftw<T>::Free(scratch);
  }

  typename Fftw<T>::Plan
  Forward(const void * in, const void * out) const
  {
    return Fftw<T>::Aligned(in) && Fftw<T>::Aligned(out) ? forward : forwardUnaligned;
  }
  typename Fftw<T>::Plan
  Inverse(const void * in, const void * out) const
  {
    return Fftw<T>::Aligned(in) && Fftw<T>::Aligned(out) ? inverse : inverseUnaligned;
  }
};

template<typename T>
FFTWTransform<T>::FFTWTransform(const FFTGeometry & geometry)
  : m_Geometry(geometry)
  , m_Plans(std::make_unique<Plans>())
{
  using F = Fftw<T>;
  const FFTGeometry & g = m_Geometry;
  // FFTW lists the axes slowest first.
  const int n[2] = { CheckedInt(g.rank == 2 ? g.ny : g.nx, "an axis"), CheckedInt(g.nx, "an axis") };
  const int * axes = g.rank == 2 ? n : n + 1;
  const int rank = static_cast<int>(g.rank);
  const int howmany = CheckedInt(g.batch, "the batch");
  const int points = CheckedInt(g.Points(), "the points per array");
  const int spectral = CheckedInt(g.SpectralRow() * g.ny, "the spectrum per array");
  CheckedInt(g.Spatial(), "the points of all arrays");
  // FFTW_ESTIMATE plans without touching the arrays (so planning is fast and the
  // arrays below are placeholders); see Plans for the aligned and unaligned pairs.
  std::lock_guard<std::mutex> lock(FFTWPlannerMutex());
  F::UseThreads(g.Spatial());
  void * a = F::Malloc(sizeof(Complex) * std::max(g.Spatial(), g.Spectral()));
  void * b = F::Malloc(sizeof(Complex) * std::max(g.Spatial(), g.Spectral()));
  Plans & p = *m_Plans;
  for (const unsigned flags : { unsigned(FFTW_ESTIMATE), unsigned(FFTW_ESTIMATE | FFTW_UNALIGNED) })
  {
    auto & forward = flags & FFTW_UNALIGNED ? p.forwardUnaligned : p.forward;
    auto & inverse = flags & FFTW_UNALIGNED ? p.inverseUnaligned : p.inverse;
    if (g.kind == FFTKind::RealToComplex)
    {
      forward = F::R2C(rank, axes, howmany, static_cast<T *>(a), points, AsFftw<T>(b), spectral, flags);
      inverse =
        F::C2R(rank, axes, howmany, AsFftw<T>(b), spectral, static_cast<T *>(a), points, flags | FFTW_DESTROY_INPUT);
    }
    else
    {
      forward = F::Dft(rank, axes, howmany, AsFftw<T>(a), points, AsFftw<T>(b), points, FFTW_FORWARD, flags);
      inverse = F::Dft(rank, axes, howmany, AsFftw<T>(a), points, AsFftw<T>(b), points, FFTW_BACKWARD, flags);
    }
  }
  F::Free(a);
  F::Free(b);
  if (g.kind == FFTKind::RealToComplex)
  {
    p.scratch = static_cast<Complex *>(F::Malloc(sizeof(Complex) * g.Spectral()));
  }
  if (!p.forward || !p.inverse || !p.forwardUnaligned || !p.inverseUnaligned ||
      (g.kind == FFTKind::RealToComplex && !p.scratch))
  {
    m_Plans.reset(); // destroys what was planned, under the planner lock
    throw InvalidArgument("FFTPlan: FFTW could not plan this transform");
  }
}

template<typename T>
FFTWTransform<T>::~FFTWTransform()
{
  std::lock_guard<std::mutex> lock(FFTWPlannerMutex());
  m_Plans.reset();
}

namespace
{
// FFTW's backward transform is unnormalised; the plan's inverse divides by N.
template<typename V>
void
ScaleByInverse(V * data, std::size_t count, std::size_t points)
{
  using Real = decltype(std::abs(*data));
  const Real scale = Real(1) / static_cast<Real>(points);
  std::for_each(data, data + count, [scale](V & v) { v *= scale; });
}
} // namespace

template<typename T>
void
FFTWTransform<T>::Forward(const T * in, Complex * out) const
{
  // Out-of-place r2c and c2c leave the input untouched (FFTW_PRESERVE_INPUT is their default).
  Fftw<T>::Execute(m_Plans->Forward(in, out), const_cast<T *>(in), AsFftw<T>(out));
}

template<typename T>
void
FFTWTransform<T>::Forward(const Complex * in, Complex * out) const
{
  Fftw<T>::Execute(m_Plans->Forward(in, out), AsFftw<T>(const_cast<Complex *>(in)), AsFftw<T>(out));
}

template<typename T>
void
FFTWTransform<T>::Inverse(const Complex * in, T * out) const
{
  std::copy(in, in + m_Geometry.Spectral(), m_Plans->scratch);
  Fftw<T>::Execute(m_Plans->Inverse(m_Plans->scratch, out), AsFftw<T>(m_Plans->scratch), out);
  ScaleByInverse(out, m_Geometry.Spatial(), m_Geometry.Points());
}

template<typename T>
void
FFTWTransform<T>::Inverse(const Complex * in, Complex * out) const
{
  Fftw<T>::Execute(m_Plans->Inverse(in, out), AsFftw<T>(const_cast<Complex *>(in)), AsFftw<T>(out));
  ScaleByInverse(out, m_Geometry.Spatial(), m_Geometry.Points());
}

template class FFTWTransform<float>;
template class FFTWTransform<double>;

} // namespace gpur
