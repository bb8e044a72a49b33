// SPDX-License-Identifier: Apache-2.0
// Sub #1 of the L1-mean-curvature augmented Lagrangian on a batch of
// triangles, for the CPU reference: the functions of kernels/l1mc_triangle.cl
// (through gpurL1MCTriangle.h) in a form the compiler vectorises.
#ifndef gpurL1MCTriangleBatch_h
#define gpurL1MCTriangleBatch_h

#include "gpurL1MCTriangle.h"

#include <cstddef>
#include <vector>

namespace gpur
{

/**
 * Sub #1 [Myllykoski2015a, §4.1] on n independent triangles: the same result
 * as SolveL1MCTriangle on each, faster.
 *
 * Newton's loop runs a data-dependent number of steps and the fallback
 * branches, so one triangle at a time is scalar code bound by its square roots
 * and divisions. Here Newton runs in passes of kL1MCLaneNewtonSteps steps over
 * arrays of triangles ("lanes") with the same instructions on every lane (a
 * converged lane takes zero steps, as the scalar loop stops), then the
 * acceptance test, as straight-line code that the compiler vectorises
 * (AVX-512, AVX2 or SSE2, chosen at run time where the compiler supports it).
 * The lanes still running go, packed, through further passes up to the
 * settings' step cap; those that overflowed, hit the cap or failed the test go
 * to Algorithm 2 and the choice (4.1) one at a time, as the OpenCL backend's
 * fallback list does [Myllykoski2015b, §3.1].
 *
 * Fill b1x..b2y and px, py (the previous p1) for n triangles after Resize(n);
 * Solve leaves the new p1 in px, py.
 */
template<typename Real>
class L1MCTriangleBatch
{
public:
  void
  Resize(std::size_t n);

  /** Solves the n triangles in place; returns how many had Newton's candidate accepted. */
  std::size_t
  Solve(Real r1, Real r2, const L1MCTriangleSettings<Real> & settings);

  std::vector<Real> b1x, b1y, b2x, b2y, px, py;

private:
  /** Lane arrays: b1, b2, the previous p1, Newton's point so far, and its state (LaneState). */
  struct Lanes
  {
    std::vector<Real> b1x, b1y, b2x, b2y, sx, sy, x, y;
    std::vector<int> state;
    void
    Resize(std::size_t n);
  };
  Lanes m_Running;            ///< the packed lanes of a further pass
  std::vector<Real> m_X, m_Y; ///< Newton's point (the answer where accepted)
  std::vector<int> m_State;
  std::vector<std::size_t> m_Index; ///< the lanes of m_Running
};

extern template class L1MCTriangleBatch<float>;
extern template class L1MCTriangleBatch<double>;

} // namespace gpur

#endif
