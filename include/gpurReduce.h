// SPDX-License-Identifier: Apache-2.0
// Device reductions (sum, max, dot, squared norm) built on the core's gpur_reduce.cl.
#ifndef gpurReduce_h
#define gpurReduce_h

#include "gpurBuffer.h"
#include "gpurProgram.h"

namespace gpur
{

/**
 * Reductions of device buffers. Each work-group reduces a grid-stride slice in
 * local memory (tree with sequential addressing, barriers only, so it is
 * portable); the few hundred partial results are summed on the host in double,
 * which keeps the result accurate for volumes of 10^9 voxels.
 */
template<typename Real>
class Reducer
{
public:
  explicit Reducer(DeviceContext & context);

  double
  Sum(const DeviceBuffer<Real> & x, std::size_t count);
  double
  Max(const DeviceBuffer<Real> & x, std::size_t count);
  double
  Dot(const DeviceBuffer<Real> & x, const DeviceBuffer<Real> & y, std::size_t count);
  double
  SumOfSquares(const DeviceBuffer<Real> & x, std::size_t count);

  /** Work-group size used by the reduction kernels (a power of two). */
  std::size_t
  GroupSize() const
  {
    return m_GroupSize;
  }

  /** Number of work-groups for `count` items: about 64 items per work-item, capped. */
  std::size_t
  GroupCount(std::size_t count) const;

private:
  double
  Run(const Kernel & kernel, std::size_t count, bool isMax);

  DeviceContext & m_Context;
  std::size_t m_GroupSize;
  Kernel m_Sum;
  Kernel m_Max;
  Kernel m_Dot;
  Kernel m_SumSq;
  DeviceBuffer<Real> m_Partials;
};

/** Largest power of two <= min(limit, device max work-group size). */
std::size_t
PowerOfTwoGroupSize(const DeviceInfo & device, std::size_t limit = 256);

/** Sum of the first `count` host partials, in double. */
template<typename Real>
double
SumPartials(const std::vector<Real> & partials, std::size_t count);

} // namespace gpur

#endif
