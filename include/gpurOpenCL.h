// Single place where the OpenCL C++ bindings are configured. Every file of the
// project includes this header instead of <CL/opencl.hpp> so that the target
// version and the exception mode are the same everywhere (ODR).
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

#endif
