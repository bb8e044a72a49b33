// SPDX-License-Identifier: Apache-2.0
// FFTW's API in one precision, Fftw<double> (fftw_*) and Fftw<float>
// (fftwf_*), for the core's two FFTW users: gpurFFTW.cxx (gpur::FFTPlan's CPU
// side) and gpurTrigTransform.cxx. Internal to GPURCore; include after
// <fftw3.h>. Their plan creation and destruction hold FFTWPlannerMutex()
// (gpurFFTBackends.h).
#ifndef gpurFFTWApi_h
#define gpurFFTWApi_h

#include <fftw3.h>

#include <algorithm>
#include <cstddef>
#include <thread>

namespace gpur
{
namespace
{

// Below this many points per call FFTW's threads cost more than they save.
constexpr std::size_t kThreadedPoints = std::size_t(1) << 15;

template<typename T>
struct Fftw;

#define GPUR_FFTW_API(T, P)                                                                                            \
  template<>                                                                                                           \
  struct Fftw<T>                                                                                                       \
  {                                                                                                                    \
    using Plan = P##_plan;                                                                                             \
    using Cplx = P##_complex;                                                                                          \
    using Dim = P##_iodim;                                                                                             \
    static Plan                                                                                                        \
    Dft(int rank, const int * n, int howmany, Cplx * in, int idist, Cplx * out, int odist, int sign, unsigned f)       \
    {                                                                                                                  \
      return P##_plan_many_dft(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, sign, f);              \
    }                                                                                                                  \
    static Plan                                                                                                        \
    R2C(int rank, const int * n, int howmany, T * in, int idist, Cplx * out, int odist, unsigned f)                    \
    {                                                                                                                  \
      return P##_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, f);                \
    }                                                                                                                  \
    static Plan                                                                                                        \
    C2R(int rank, const int * n, int howmany, Cplx * in, int idist, T * out, int odist, unsigned f)                    \
    {                                                                                                                  \
      return P##_plan_many_dft_c2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, f);                \
    }                                                                                                                  \
    static void                                                                                                        \
    Execute(Plan p, Cplx * in, Cplx * out)                                                                             \
    {                                                                                                                  \
      P##_execute_dft(p, in, out);                                                                                     \
    }                                                                                                                  \
    static void                                                                                                        \
    Execute(Plan p, T * in, Cplx * out)                                                                                \
    {                                                                                                                  \
      P##_execute_dft_r2c(p, in, out);                                                                                 \
    }                                                                                                                  \
    static void                                                                                                        \
    Execute(Plan p, Cplx * in, T * out)                                                                                \
    {                                                                                                                  \
      P##_execute_dft_c2r(p, in, out);                                                                                 \
    }                                                                                                                  \
    static Plan                                                                                                        \
    GuruR2R(int rank,                                                                                                  \
            const Dim * dims,                                                                                          \
            int loops,                                                                                                 \
            const Dim * loopDims,                                                                                      \
            T * data,                                                                                                  \
            const fftw_r2r_kind * k,                                                                                   \
            unsigned f)                                                                                                \
    {                                                                                                                  \
      return P##_plan_guru_r2r(rank, dims, loops, loopDims, data, data, k, f);                                         \
    }                                                                                                                  \
    static void                                                                                                        \
    ExecuteR2R(Plan p, T * data)                                                                                       \
    {                                                                                                                  \
      P##_execute_r2r(p, data, data);                                                                                  \
    }                                                                                                                  \
    static void                                                                                                        \
    TimeLimit(double seconds)                                                                                          \
    {                                                                                                                  \
      P##_set_timelimit(seconds);                                                                                      \
    }                                                                                                                  \
    static void                                                                                                        \
    Destroy(Plan p)                                                                                                    \
    {                                                                                                                  \
      P##_destroy_plan(p);                                                                                             \
    }                                                                                                                  \
    static void *                                                                                                      \
    Malloc(std::size_t bytes)                                                                                          \
    {                                                                                                                  \
      return P##_malloc(bytes);                                                                                        \
    }                                                                                                                  \
    static void                                                                                                        \
    Free(void * p)                                                                                                     \
    {                                                                                                                  \
      P##_free(p);                                                                                                     \
    }                                                                                                                  \
    static int                                                                                                         \
    AlignmentOf(const void * p)                                                                                        \
    {                                                                                                                  \
      return P##_alignment_of(static_cast<T *>(const_cast<void *>(p)));                                                \
    }                                                                                                                  \
    static bool                                                                                                        \
    Aligned(const void * p)                                                                                            \
    {                                                                                                                  \
      return AlignmentOf(p) == 0;                                                                                      \
    }                                                                                                                  \
    static void                                                                                                        \
    UseThreads(std::size_t points)                                                                                     \
    {                                                                                                                  \
      GPUR_FFTW_THREADS(P, points)                                                                                     \
    }                                                                                                                  \
  };

#ifdef GPUR_HAVE_FFTW_THREADS
#define GPUR_FFTW_THREADS(P, points)                                                                                   \
  static const bool ready = P##_init_threads() != 0;                                                                   \
  if (ready)                                                                                                           \
  {                                                                                                                    \
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());                                          \
    P##_plan_with_nthreads(points < kThreadedPoints ? 1 : static_cast<int>(cores));                                    \
  }
#else
#define GPUR_FFTW_THREADS(P, points) (void)points;
#endif

GPUR_FFTW_API(double, fftw)
GPUR_FFTW_API(float, fftwf)
#undef GPUR_FFTW_API
#undef GPUR_FFTW_THREADS

} // namespace
} // namespace gpur

#endif
