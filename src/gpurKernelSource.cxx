#include "gpurKernelSource.h"

#include "gpurCoreKernels.h" // generated at build time from kernels/*.cl
#include "gpurError.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gpur
{

const char *
KernelDirectoryEnvironmentVariable()
{
  return "ITKGPUR_KERNEL_DIR";
}

KernelSource
ResolveKernelSource(const std::string & name, const char * embedded)
{
  const char * dir = std::getenv(KernelDirectoryEnvironmentVariable());
  if (dir != nullptr && *dir != '\0')
  {
    std::ifstream file(std::string(dir) + "/" + name);
    if (file)
    {
      std::ostringstream text;
      text << file.rdbuf();
      return { name, text.str() };
    }
  }
  return { name, embedded };
}

KernelSource
CoreKernel(const std::string & name)
{
  const char * text = gpur::kernels::core::Find(name.c_str());
  if (text == nullptr)
  {
    throw InvalidArgument("no core kernel file named '" + name + "'");
  }
  return ResolveKernelSource(name, text);
}

} // namespace gpur
