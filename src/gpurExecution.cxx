#include "gpurExecution.h"

#include "gpurContext.h"
#include "gpurError.h"

#include <algorithm>
#include <cctype>

namespace gpur
{

const char *
ToString(Backend backend)
{
  switch (backend)
  {
    case Backend::Auto:
      return "Auto";
    case Backend::CPU:
      return "CPU";
    case Backend::OpenCL:
      return "OpenCL";
  }
  return "unknown";
}

std::ostream &
operator<<(std::ostream & os, Backend backend)
{
  return os << ToString(backend);
}

Backend
ParseBackend(const std::string & text)
{
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (t == "auto")
    return Backend::Auto;
  if (t == "cpu")
    return Backend::CPU;
  if (t == "opencl" || t == "gpu")
    return Backend::OpenCL;
  throw InvalidArgument("unknown backend '" + text + "' (allowed: auto, cpu, opencl)");
}

std::string
ResolvedBackend::Describe() const
{
  return backend == Backend::OpenCL ? "OpenCL: " + device.name : "CPU";
}

ResolvedBackend
ResolveBackend(const ExecutionOptions & options, bool isDouble)
{
  ResolvedBackend r;
  if (options.backend == Backend::CPU)
  {
    return r;
  }
  const bool explicitDevice = !options.device.empty();
  if (!HaveOpenCLDevice())
  {
    if (options.backend == Backend::OpenCL || explicitDevice)
    {
      SelectDevices(options.device); // throws with the explanation
    }
    return r;
  }
  const DeviceInfo device = SelectDevices(options.device).front();
  if (isDouble && !device.fp64)
  {
    if (options.backend == Backend::OpenCL)
    {
      RequireDouble(device, "OpenCL backend");
    }
    return r; // Auto: documented fallback to the CPU reference
  }
  r.backend = Backend::OpenCL;
  r.device = device;
  return r;
}

} // namespace gpur
