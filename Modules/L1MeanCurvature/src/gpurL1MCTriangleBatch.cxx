// SPDX-License-Identifier: Apache-2.0
// Compiled with -fno-math-errno -fno-trapping-math -ffp-contract=off
// (CMakeLists.txt): the lane loop vectorises only when sqrt need not set errno
// and when the acceptance test's branches may become selects; no operation is
// fused or reordered, so every lane rounds as the scalar path and the OpenCL
// kernels (FP_CONTRACT OFF) do.
#include "gpurL1MCTriangleBatch.h"

#include <algorithm>

namespace gpur
{
namespace
{

// One build of the lane loop per instruction set where the compiler can pick
// among them at run time (GCC and Clang on x86-64 Linux); portable code elsewhere.
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define GPUR_LANE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef GPUR_LANE_CLONES
#define GPUR_LANE_CLONES
#endif
// The lane loop must be compiled inside each clone, for its instruction set.
#if defined(__GNUC__)
#define GPUR_LANE_INLINE inline __attribute__((always_inline))
#else
#define GPUR_LANE_INLINE inline
#endif

// What a lane's pass left: the answer (Newton accepted, or b1 = b2 = 0, whose minimiser is 0), a point that needs
// more Newton steps, or a case for the fallback (Newton overflowed or its point failed the acceptance test).
enum LaneState : int
{
  kLaneFallback = 0,
  kLaneSettled = 1,
  kLaneRunning = 2
};

// Up to `steps` (at most kL1MCLaneNewtonSteps) further steps of l1mc_newton on every lane from (x, y), then the
// outcome (l1mc_lanes_steps, l1mc_lanes_outcome of l1mc_newton.cl, the same functions as CPU drivers' kernels).
// (sx, sy) is the previous p1, the start of Newton's first pass. (x, y) becomes the answer where settled, else
// Newton's point (the start where it overflowed), as the scalar l1mc_newton leaves it.
template<typename Run, typename Real>
GPUR_LANE_INLINE void
NewtonLanes(std::size_t n,
            const Real * __restrict b1x,
            const Real * __restrict b1y,
            const Real * __restrict b2x,
            const Real * __restrict b2y,
            const Real * __restrict sx,
            const Real * __restrict sy,
            Real * __restrict x,
            Real * __restrict y,
            int * __restrict state,
            int steps,
            Real r1,
            Real r2,
            Real tolerance)
{
  using namespace l1mc_detail;
  for (std::size_t i = 0; i < n; ++i)
  {
    const auto b1 = Vec(b1x[i], b1y[i]), b2 = Vec(b2x[i], b2y[i]);
    Run run;
    run.x = Vec(x[i], y[i]);
    run.converged = 0;
    run = l1mc_lanes_steps(run, steps, b1, b2, r1, r2, tolerance);
    const auto out = l1mc_lanes_outcome(run, Vec(sx[i], sy[i]), b1, b2, r1, r2, tolerance);
    x[i] = out.p.x;
    y[i] = out.p.y;
    state[i] = out.settled ? kLaneSettled : (out.running ? kLaneRunning : kLaneFallback);
  }
}

// One overload per precision (target_clones applies to functions, not to templates).
#define GPUR_NEWTON_LANES(Real, Run)                                                                                   \
  GPUR_LANE_CLONES void NewtonLanesOf(std::size_t n,                                                                   \
                                      const Real * __restrict b1x,                                                     \
                                      const Real * __restrict b1y,                                                     \
                                      const Real * __restrict b2x,                                                     \
                                      const Real * __restrict b2y,                                                     \
                                      const Real * __restrict sx,                                                      \
                                      const Real * __restrict sy,                                                      \
                                      Real * __restrict x,                                                             \
                                      Real * __restrict y,                                                             \
                                      int * __restrict state,                                                          \
                                      int steps,                                                                       \
                                      Real r1,                                                                         \
                                      Real r2,                                                                         \
                                      Real tolerance)                                                                  \
  {                                                                                                                    \
    NewtonLanes<Run>(n, b1x, b1y, b2x, b2y, sx, sy, x, y, state, steps, r1, r2, tolerance);                            \
  }
GPUR_NEWTON_LANES(float, l1mc_float::L1MCLaneRun)
GPUR_NEWTON_LANES(double, l1mc_double::L1MCLaneRun)
#undef GPUR_NEWTON_LANES

} // namespace

template<typename Real>
void
L1MCTriangleBatch<Real>::Lanes::Resize(std::size_t n)
{
  for (std::vector<Real> * a : { &b1x, &b1y, &b2x, &b2y, &sx, &sy, &x, &y })
    a->resize(n);
  state.resize(n);
}

template<typename Real>
void
L1MCTriangleBatch<Real>::Resize(std::size_t n)
{
  for (std::vector<Real> * a : { &b1x, &b1y, &b2x, &b2y, &px, &py, &m_X, &m_Y })
    a->resize(n);
  m_State.resize(n);
  m_Index.reserve(n);
}

template<typename Real>
std::size_t
L1MCTriangleBatch<Real>::Solve(Real r1, Real r2, const L1MCTriangleSettings<Real> & settings)
{
  const std::size_t n = px.size();
  const int cap = settings.newtonIterations;
  const Real tolerance = settings.newtonTolerance;
  m_X = px;
  m_Y = py;
  int done = std::max(0, std::min(kL1MCLaneNewtonSteps, cap));
  NewtonLanesOf(n,
                b1x.data(),
                b1y.data(),
                b2x.data(),
                b2y.data(),
                px.data(),
                py.data(),
                m_X.data(),
                m_Y.data(),
                m_State.data(),
                done,
                r1,
                r2,
                tolerance);

  // Further passes on the lanes still running, packed.
  m_Index.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (m_State[i] == kLaneRunning)
      m_Index.push_back(i);
  for (; !m_Index.empty() && done < cap; done += kL1MCLaneNewtonSteps)
  {
    const std::size_t m = m_Index.size();
    Lanes & l = m_Running;
    l.Resize(m);
    for (std::size_t k = 0; k < m; ++k)
    {
      const std::size_t i = m_Index[k];
      l.b1x[k] = b1x[i], l.b1y[k] = b1y[i], l.b2x[k] = b2x[i], l.b2y[k] = b2y[i];
      l.sx[k] = px[i], l.sy[k] = py[i], l.x[k] = m_X[i], l.y[k] = m_Y[i];
    }
    NewtonLanesOf(m,
                  l.b1x.data(),
                  l.b1y.data(),
                  l.b2x.data(),
                  l.b2y.data(),
                  l.sx.data(),
                  l.sy.data(),
                  l.x.data(),
                  l.y.data(),
                  l.state.data(),
                  std::min(kL1MCLaneNewtonSteps, cap - done),
                  r1,
                  r2,
                  tolerance);
    std::size_t still = 0;
    for (std::size_t k = 0; k < m; ++k)
    {
      const std::size_t i = m_Index[k];
      m_X[i] = l.x[k], m_Y[i] = l.y[k], m_State[i] = l.state[k];
      if (l.state[k] == kLaneRunning)
        m_Index[still++] = i;
    }
    m_Index.resize(still);
  }

  // The answers; Algorithm 2 and (4.1) where Newton's point was not accepted (lanes still running at the cap
  // included, with their last point).
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    if (m_State[i] == kLaneSettled)
    {
      px[i] = m_X[i];
      py[i] = m_Y[i];
      ++accepted;
      continue;
    }
    using l1mc_detail::Vec;
    const auto p = l1mc_detail::l1mc_fallback(Vec(b1x[i], b1y[i]),
                                              Vec(b2x[i], b2y[i]),
                                              Vec(m_X[i], m_Y[i]),
                                              Vec(px[i], py[i]),
                                              r1,
                                              r2,
                                              settings.eta,
                                              settings.coarseTolerance,
                                              settings.fineTolerance);
    px[i] = p.x;
    py[i] = p.y;
  }
  return accepted;
}

template class L1MCTriangleBatch<float>;
template class L1MCTriangleBatch<double>;

} // namespace gpur
