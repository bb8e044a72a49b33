// SPDX-License-Identifier: Apache-2.0
#include "gpurExecution.h"

#include "gpurAutoBackend.h"
#include "gpurContext.h"
#include "gpurError.h"
#include "gpurText.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

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
  const std::string t = ToLower(text);
  if (t == "auto")
    return Backend::Auto;
  if (t == "cpu")
    return Backend::CPU;
  if (t == "opencl" || t == "gpu")
    return Backend::OpenCL;
  throw InvalidArgument("unknown backend '" + text + "' (allowed: auto, cpu, opencl)");
}

const char *
AutoEnvironmentVariable()
{
  return "ITKGPUR_AUTO";
}

AutoMode
ParseAutoMode(const std::string & text)
{
  const std::string t = ToLower(text);
  if (t.empty() || t == "measure")
    return AutoMode::Measure;
  if (t == "cpu")
    return AutoMode::CPU;
  if (t == "opencl")
    return AutoMode::OpenCL;
  throw InvalidArgument(std::string(AutoEnvironmentVariable()) + "='" + text +
                        "' is not a mode of the Auto backend (allowed: measure, cpu, opencl; unset: measure)");
}

AutoMode
AutoModeFromEnvironment()
{
  const char * value = std::getenv(AutoEnvironmentVariable());
  return ParseAutoMode(value != nullptr ? value : "");
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

std::string
ResolvedBackend::DescribeWithReason() const
{
  return reason.empty() ? Describe() : Describe() + " (" + reason + ")";
}

namespace
{

std::string
Trimmed(const std::string & text)
{
  const auto first = text.find_first_not_of(" \t");
  const auto last = text.find_last_not_of(" \t");
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

/** Whether a selection names a device rather than the default one ("" and "default" do not). */
bool
NamesDevice(const std::string & selection)
{
  const std::string t = ToLower(Trimmed(selection));
  return !t.empty() && t != "default";
}

/** The devices of an explicit OpenCL request, or of a device the call or $ITKGPUR_DEVICE names. */
ResolvedBackend
OnSelectedDevices(const ExecutionOptions & options, bool isDouble, const std::string & reason)
{
  ResolvedBackend r;
  for (const DeviceInfo & device : SelectDevices(options.device))
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
    // Auto with a named device that lacks fp64: documented fallback, so double images always work under Auto.
    r.reason = "Auto: the selected OpenCL device has no fp64 for double data";
    return r;
  }
  r.backend = Backend::OpenCL;
  r.device = r.devices.front();
  r.reason = reason;
  return r;
}

} // namespace

ResolvedBackend
ResolveBackend(const ExecutionOptions & options, bool isDouble, const AutoProbe & probe)
{
  ResolvedBackend r;
  if (options.backend == Backend::CPU)
  {
    r.reason = "backend CPU requested";
    return r;
  }
  if (options.backend == Backend::OpenCL)
  {
    return OnSelectedDevices(options, isDouble, "backend OpenCL requested");
  }
  const char * environment = std::getenv(DeviceEnvironmentVariable());
  const bool named = NamesDevice(options.device);
  const bool namedByEnvironment = !named && environment != nullptr && NamesDevice(environment);
  if (!HaveOpenCLDevice())
  {
    if (named)
    {
      SelectDevices(options.device); // throws with the explanation
    }
    r.reason = "Auto: no OpenCL device";
    return r;
  }
  if (named || namedByEnvironment)
  {
    return OnSelectedDevices(options,
                             isDouble,
                             named ? "Auto: device '" + Trimmed(options.device) + "' selected"
                                   : std::string("Auto: device '") + Trimmed(environment) + "' selected by " +
                                       DeviceEnvironmentVariable());
  }
  AutoProbe measured = probe;
  measured.threads = options.threads;
  return AutoBackendChooser::Process().Choose(
    SelectDevices(options.device), isDouble, measured, AutoModeFromEnvironment());
}

} // namespace gpur
