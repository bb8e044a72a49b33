// SPDX-License-Identifier: Apache-2.0
// Helpers to launch kernels over an image grid (device side).
#ifndef gpurLaunch_h
#define gpurLaunch_h

#include "gpurDevice.h"
#include "gpurGrid.h"
#include "gpurOpenCL.h"

#include <type_traits>

namespace gpur
{

/** Global and local ranges of a 3D launch with one work-item per voxel. */
struct ImageRange
{
  cl::NDRange global;
  cl::NDRange local;
};

/**
 * One work-item per voxel, work-groups of (16, 16, 1) as in the measurements
 * of [Huang2023, §5.2.1, Table 5.2] (clamped to the device limit), global size
 * rounded up; kernels
 * guard against the padding.
 */
ImageRange
MakeImageRange(const Grid & grid, const DeviceInfo & device);

/** OpenCL vector type of three Reals (float3 / double3). */
template<typename Real>
using CLReal3 = typename std::conditional<std::is_same<Real, float>::value, cl_float3, cl_double3>::type;

/** (1/hx, 1/hy, 1/hz) of a grid as a kernel argument. */
template<typename Real>
CLReal3<Real>
InverseSpacing(const Grid & grid)
{
  CLReal3<Real> v{};
  for (unsigned d = 0; d < 3; ++d)
  {
    v.s[d] = static_cast<Real>(1.0 / grid.spacing[d]);
  }
  return v;
}

/** Sets kernel arguments 0, 1, ... from the values given. */
template<typename... Args>
void
SetArgs(cl::Kernel & kernel, const Args &... args)
{
  cl_uint index = 0;
  using expand = int[];
  (void)expand{ 0, (kernel.setArg(index++, args), 0)... };
}

} // namespace gpur

#endif
