// SPDX-License-Identifier: Apache-2.0
// Stand-in for the OpenCL header of this name, first on the downstream test's
// include path: a public header of the package that reaches OpenCL fails here.
#error "a public ITKGPURestoration header included <CL/opencl.h>: the filters must compile without OpenCL"
