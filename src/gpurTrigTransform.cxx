// SPDX-License-Identifier: Apache-2.0
// gpur::TrigTransformPlan: FFTW's r2r transforms [Frigo2005] through its guru
// interface, which transforms any subset of an array's axes in one plan (the
// other axes are its "howmany" loops), so one call does every axis.
#include "gpurTrigTransform.h"

#include "gpurError.h"
#include "gpurFFTBackends.h"
#include "gpurFFTWApi.h"

#include <fftw3.h>

#include <climits>
#include <mutex>
#include <string>
#include <type_traits>

namespace gpur
{

const char *
ToString(TrigTransformKind kind)
{
  switch (kind)
  {
    case TrigTransformKind::DST1:
      return "DST-I";
    case TrigTransformKind::DCT2:
      return "DCT-II";
    case TrigTransformKind::DCT3:
      return "DCT-III";
    default:
      return "none";
  }
}

double
TrigTransformRoundTripScale(TrigTransformKind kind, std::size_t n)
{
  switch (kind)
  {
    case TrigTransformKind::DST1:
      return 2.0 * double(n + 1);
    case TrigTransformKind::DCT2:
    case TrigTransformKind::DCT3:
      return 2.0 * double(n);
    default:
      return 1.0;
  }
}

TrigTransformKind
InverseTrigTransform(TrigTransformKind kind)
{
  switch (kind)
  {
    case TrigTransformKind::DCT2:
      return TrigTransformKind::DCT3;
    case TrigTransformKind::DCT3:
      return TrigTransformKind::DCT2;
    default:
      return kind;
  }
}

namespace
{

fftw_r2r_kind
FftwKind(TrigTransformKind kind)
{
  switch (kind)
  {
    case TrigTransformKind::DCT2:
      return FFTW_REDFT10;
    case TrigTransformKind::DCT3:
      return FFTW_REDFT01;
    default:
      return FFTW_RODFT00;
  }
}

} // namespace

// The byte offset from FFTW's SIMD alignment that malloc's own 16-byte
// alignment leaves: glibc returns large blocks (std::vector's, numpy's) at a
// page start plus 16 bytes, which is not 32-byte aligned, so with AVX most
// callers' arrays have this offset. A plan made for aligned arrays cannot run
// on them, and the FFTW_ESTIMATE plan for any alignment ran a 2D DST-I
// (1023^2, 2047^2; best of 15, 2 threads) 1.4-1.5x slower than the measured
// one here: they get a measured plan too.
constexpr std::size_t kMallocAlignment = 16;

template<typename T>
struct TrigTransformPlan<T>::Plans
{
  typename Fftw<T>::Plan aligned = nullptr;
  typename Fftw<T>::Plan mallocAligned = nullptr; // arrays at kMallocAlignment's offset (none when that is aligned)
  typename Fftw<T>::Plan unaligned = nullptr;
  int mallocOffset = 0; // FFTW's alignment_of of those arrays

  ~Plans()
  {
    for (auto plan : { aligned, mallocAligned, unaligned })
      if (plan)
        Fftw<T>::Destroy(plan);
  }
};

template<typename T>
TrigTransformPlan<T>::TrigTransformPlan(const std::vector<std::size_t> & shape,
                                        const std::vector<TrigTransformKind> & kinds)
{
  using F = Fftw<T>;
  if (shape.empty() || shape.size() > 3 || kinds.size() != shape.size())
  {
    throw InvalidArgument("TrigTransformPlan: " + std::to_string(shape.size()) + " axes and " +
                          std::to_string(kinds.size()) + " kinds; give 1 to 3 axes and one kind per axis");
  }
  std::size_t count = 1;
  for (const std::size_t n : shape)
  {
    if (n == 0 || n > static_cast<std::size_t>(INT_MAX))
      throw InvalidArgument("TrigTransformPlan: an axis of " + std::to_string(n) + " points; 1 to INT_MAX allowed");
    count *= n;
  }
  // FFTW lists dimensions slowest first; the transformed axes are the plan's
  // dimensions, the others its loops.
  std::vector<typename F::Dim> dims, loops;
  std::vector<fftw_r2r_kind> fftwKinds;
  std::size_t stride = count;
  for (std::size_t d = shape.size(); d-- > 0;)
  {
    stride /= shape[d];
    const typename F::Dim dim{ static_cast<int>(shape[d]), static_cast<int>(stride), static_cast<int>(stride) };
    if (kinds[d] == TrigTransformKind::None)
    {
      loops.push_back(dim);
    }
    else
    {
      dims.push_back(dim);
      fftwKinds.push_back(FftwKind(kinds[d]));
    }
  }
  if (dims.empty())
    throw InvalidArgument("TrigTransformPlan: every axis' kind is None; nothing to transform");
  if (count > static_cast<std::size_t>(INT_MAX))
    throw InvalidArgument("TrigTransformPlan: " + std::to_string(count) + " points exceed FFTW's limit of INT_MAX");

  m_Plans = std::make_unique<Plans>();
  const std::lock_guard<std::mutex> lock(FFTWPlannerMutex());
  F::UseThreads(count);
  // FFTW_MEASURE runs trial transforms on the array it plans for: a scratch
  // one. Unbounded, it took 3-7 s for a million points here (where a 2D
  // PSCR plan takes 0.3-1 s); bounded by kPlanSeconds it gives transforms as
  // fast as the unbounded plan's within the noise of this machine (a second
  // plan of the same problem reuses FFTW's wisdom and takes no time). The
  // limit is FFTW's global setting: set under the planner lock, then reset.
  constexpr double kPlanSeconds = 1.0;
  F::TimeLimit(kPlanSeconds);
  constexpr std::size_t kShift = kMallocAlignment / sizeof(T);
  T * scratch = static_cast<T *>(F::Malloc(sizeof(T) * (count + kShift)));
  if (scratch != nullptr)
  {
    auto plan = [&](T * data, unsigned flags)
    {
      return F::GuruR2R(static_cast<int>(dims.size()),
                        dims.data(),
                        static_cast<int>(loops.size()),
                        loops.data(),
                        data,
                        fftwKinds.data(),
                        flags);
    };
    m_Plans->aligned = plan(scratch, FFTW_MEASURE);
    m_Plans->mallocOffset = F::AlignmentOf(scratch + kShift);
    if (m_Plans->mallocOffset != 0)
      m_Plans->mallocAligned = plan(scratch + kShift, FFTW_MEASURE);
    m_Plans->unaligned = plan(scratch, FFTW_ESTIMATE | FFTW_UNALIGNED);
    F::Free(scratch);
  }
  F::TimeLimit(FFTW_NO_TIMELIMIT);
  if (!m_Plans->aligned || !m_Plans->unaligned || (m_Plans->mallocOffset != 0 && !m_Plans->mallocAligned))
  {
    m_Plans.reset(); // under the planner lock
    throw InvalidArgument("TrigTransformPlan: FFTW could not plan this transform (or allocate its trial array)");
  }
}

template<typename T>
TrigTransformPlan<T>::~TrigTransformPlan()
{
  const std::lock_guard<std::mutex> lock(FFTWPlannerMutex());
  m_Plans.reset();
}

template<typename T>
void
TrigTransformPlan<T>::Execute(T * data) const
{
  const int offset = Fftw<T>::AlignmentOf(data);
  Fftw<T>::ExecuteR2R(offset == 0                                                 ? m_Plans->aligned
                      : offset == m_Plans->mallocOffset && m_Plans->mallocAligned ? m_Plans->mallocAligned
                                                                                  : m_Plans->unaligned,
                      data);
}

template class TrigTransformPlan<float>;
template class TrigTransformPlan<double>;

} // namespace gpur
