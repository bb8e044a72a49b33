// SPDX-License-Identifier: Apache-2.0
#include "gpurReduce.h"

#include "gpurLaunch.h"

#include <algorithm>
#include <limits>

namespace gpur
{

std::size_t
PowerOfTwoGroupSize(const DeviceInfo & device, std::size_t limit)
{
  const std::size_t cap = std::min(limit, device.maxWorkGroupSize);
  std::size_t g = 1;
  while (g * 2 <= cap)
  {
    g *= 2;
  }
  return g;
}

template<typename Real>
double
SumPartials(const std::vector<Real> & partials, std::size_t count)
{
  double s = 0.0;
  for (std::size_t i = 0; i < count; ++i)
  {
    s += static_cast<double>(partials[i]);
  }
  return s;
}

namespace
{
constexpr std::size_t MaxGroups = 1024;
}

template<typename Real>
Reducer<Real>::Reducer(DeviceContext & context)
  : m_Context(context)
  , m_GroupSize(PowerOfTwoGroupSize(context.Info()))
{
  TranslateCLErrors(
    [&]
    {
      const Program program = BuildProgram(context,
                                           ProgramSpec("device reductions", std::is_same<Real, double>::value)
                                             .Core({ "gpur_common.cl", "gpur_reduce.cl" }));
      m_Sum = program.MakeKernel("gpur_reduce_sum");
      m_Max = program.MakeKernel("gpur_reduce_max");
      m_Dot = program.MakeKernel("gpur_reduce_dot");
      m_SumSq = program.MakeKernel("gpur_reduce_sumsq");
      m_Partials = DeviceBuffer<Real>(context, MaxGroups);
    });
}

template<typename Real>
std::size_t
Reducer<Real>::GroupCount(std::size_t count) const
{
  const std::size_t perGroup = m_GroupSize * 64;
  return std::max<std::size_t>(1, std::min(MaxGroups, (count + perGroup - 1) / perGroup));
}

template<typename Real>
double
Reducer<Real>::Run(const Kernel & kernel, std::size_t count, bool isMax)
{
  return TranslateCLErrors(
    [&]
    {
      const std::size_t groups = GroupCount(count);
      const auto & queue = m_Context.Queue(0);
      kernel.Enqueue(queue, cl::NDRange(groups * m_GroupSize), cl::NDRange(m_GroupSize));
      std::vector<Real> partials(groups);
      m_Partials.Download(queue, partials.data(), groups);
      if (isMax)
      {
        return static_cast<double>(*std::max_element(partials.begin(), partials.end()));
      }
      return SumPartials(partials, groups);
    });
}

template<typename Real>
double
Reducer<Real>::Sum(const DeviceBuffer<Real> & x, std::size_t count)
{
  m_Sum.Set(x.Get(), static_cast<cl_long>(count), m_Partials.Get(), cl::Local(m_GroupSize * sizeof(Real)));
  return Run(m_Sum, count, false);
}

template<typename Real>
double
Reducer<Real>::Max(const DeviceBuffer<Real> & x, std::size_t count)
{
  m_Max.Set(x.Get(), static_cast<cl_long>(count), m_Partials.Get(), cl::Local(m_GroupSize * sizeof(Real)));
  return Run(m_Max, count, true);
}

template<typename Real>
double
Reducer<Real>::Dot(const DeviceBuffer<Real> & x, const DeviceBuffer<Real> & y, std::size_t count)
{
  m_Dot.Set(x.Get(), y.Get(), static_cast<cl_long>(count), m_Partials.Get(), cl::Local(m_GroupSize * sizeof(Real)));
  return Run(m_Dot, count, false);
}

template<typename Real>
double
Reducer<Real>::SumOfSquares(const DeviceBuffer<Real> & x, std::size_t count)
{
  m_SumSq.Set(x.Get(), static_cast<cl_long>(count), m_Partials.Get(), cl::Local(m_GroupSize * sizeof(Real)));
  return Run(m_SumSq, count, false);
}

template class Reducer<float>;
template class Reducer<double>;
template double
SumPartials(const std::vector<float> &, std::size_t);
template double
SumPartials(const std::vector<double> &, std::size_t);

} // namespace gpur
