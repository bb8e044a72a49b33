// SPDX-License-Identifier: Apache-2.0
// Single place where the OpenCL C++ bindings are configured. Every file of the
// project includes this header instead of <CL/opencl.hpp> so that the target
// version and the exception mode are the same everywhere (ODR). It is the only
// header that includes <CL/opencl.hpp>: the engines' and filters' public headers
// do not include it (nor gpurContext.h / gpurBuffer.h, its device-side users),
// so a program that uses a filter compiles without the OpenCL headers.
#ifndef gpurOpenCL_h
#define gpurOpenCL_h

// OpenCL 1.2 is the common denominator of NVIDIA, AMD and PoCL drivers.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
#include <CL/opencl.hpp>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "gpurError.h"

namespace gpur
{

struct DeviceInfo;

/** The OpenCL device behind a DeviceInfo of ListDevices() (its index is the handle). */
cl::Device
CLDevice(const DeviceInfo & device);

/** Turns a cl::Error thrown by the C++ bindings into an OpenCLError with the code's name. */
[[noreturn]] void
RethrowCL(const cl::Error & e);

/**
 * Runs f and converts the bindings' cl::Error into gpur::OpenCLError, so that
 * callers of the engines only ever see gpur::Error.
 */
template<typename F>
auto
TranslateCLErrors(F && f) -> decltype(f())
{
  try
  {
    return f();
  }
  catch (const cl::Error & e)
  {
    RethrowCL(e);
  }
}

} // namespace gpur

#endif
