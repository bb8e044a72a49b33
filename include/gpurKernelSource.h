// SPDX-License-Identifier: Apache-2.0
// OpenCL sources embedded at build time, with a development override.
#ifndef gpurKernelSource_h
#define gpurKernelSource_h

#include <string>

namespace gpur
{

/** One .cl file: its file name and its text. */
struct KernelSource
{
  std::string name; ///< file name, e.g. "tv_rof.cl"
  std::string text; ///< OpenCL C source
};

/** Name of the override environment variable: ITKGPUR_KERNEL_DIR. */
const char *
KernelDirectoryEnvironmentVariable();

/**
 * The source of the kernel file `name` whose embedded copy is `embedded`.
 * If $ITKGPUR_KERNEL_DIR is set, the file of that name in that folder is used
 * instead, so kernels can be edited without rebuilding. A folder that lacks the
 * file gives the embedded copy, with a note on stderr (once per file name); a
 * variable naming no readable directory, or an override file that cannot be
 * read, throws InvalidArgument naming the variable and the path.
 */
KernelSource
ResolveKernelSource(const std::string & name, const char * embedded);

/** Sources of the core's shared kernels, by file name ("gpur_common.cl", "gpur_reduce.cl", "gpur_stencils.cl"). */
KernelSource
CoreKernel(const std::string & name);

} // namespace gpur

#endif
