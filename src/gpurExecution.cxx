// SPDX-License-Identifier: Apache-2.0
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
  if (backend != Backend::OpenCL)
  {
    return "CPU";
  }
  if (devices.size() <= 1)
  {
    return "OpenCL: " + device.name;
  }
  std::string names;
  for (const DeviceInfo & d : devices)
  {
    names += (names.empty() ? "" : "; ") + d.name;
  }
  return "OpenCL: " + std::to_string(devices.size()) + " devices (" + names + ")";
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
  const std::vector<DeviceInfo> selected = SelectDevices(options.device);
  for (const DeviceInfo & device : selected)
  {
    if (!isDouble || device.fp64)
    {
      r.devices.push_back(device);
    }
    else if (options.backend == Backend::OpenCL)
    {
      RequireDouble(device, "OpenCL backend");
    }
  }
  if (r.devices.empty())
  {
    return r; // Auto: documented fallback to the CPU reference
  }
  r.backend = Backend::OpenCL;
  r.device = r.devices.front();
  return r;
}

} // namespace gpur
