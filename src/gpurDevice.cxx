// SPDX-License-Identifier: Apache-2.0
#include "gpurDevice.h"

#include "gpurError.h"
#include "gpurOpenCL.h"
#include "gpurText.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <sstream>

namespace gpur
{
namespace
{

std::string
Trim(const std::string & s)
{
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/** Every device: what the engines see, and the OpenCL objects behind them (same order). */
struct Discovered
{
  std::vector<DeviceInfo> infos;
  std::vector<cl::Device> devices;
};

DeviceType
TypeOf(cl_device_type type)
{
  if (type & CL_DEVICE_TYPE_GPU)
    return DeviceType::GPU;
  if (type & CL_DEVICE_TYPE_CPU)
    return DeviceType::CPU;
  if (type & CL_DEVICE_TYPE_ACCELERATOR)
    return DeviceType::Accelerator;
  return DeviceType::Other;
}

Discovered
Discover()
{
  Discovered found;
  std::vector<DeviceInfo> & devices = found.infos;
  cl_uint numPlatforms = 0;
  // No ICD or no platform is not an error: it means "no OpenCL device".
  if (clGetPlatformIDs(0, nullptr, &numPlatforms) != CL_SUCCESS || numPlatforms == 0)
  {
    return found;
  }
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  for (const auto & platform : platforms)
  {
    std::vector<cl::Device> list;
    try
    {
      platform.getDevices(CL_DEVICE_TYPE_ALL, &list);
    }
    catch (const cl::Error &)
    {
      continue; // a platform without devices
    }
    for (const auto & d : list)
    {
      DeviceInfo info;
      info.index = static_cast<unsigned>(devices.size());
      info.platformName = Trim(platform.getInfo<CL_PLATFORM_NAME>().c_str());
      info.name = Trim(d.getInfo<CL_DEVICE_NAME>().c_str());
      info.vendor = Trim(d.getInfo<CL_DEVICE_VENDOR>().c_str());
      info.version = Trim(d.getInfo<CL_DEVICE_VERSION>().c_str());
      info.driverVersion = Trim(d.getInfo<CL_DRIVER_VERSION>().c_str());
      info.type = TypeOf(d.getInfo<CL_DEVICE_TYPE>());
      info.globalMemory = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
      info.maxAllocation = d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
      info.localMemory = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
      info.computeUnits = d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
      info.maxWorkGroupSize = d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
      info.fp64 = d.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
      devices.push_back(info);
      found.devices.push_back(d);
    }
  }
  return found;
}

const Discovered &
Devices()
{
  static std::once_flag once;
  static Discovered found;
  std::call_once(once, [] { found = TranslateCLErrors([] { return Discover(); }); });
  return found;
}

bool
IsNumber(const std::string & s)
{
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

DeviceType
TypeFromName(const std::string & s)
{
  if (s == "gpu")
    return DeviceType::GPU;
  if (s == "cpu")
    return DeviceType::CPU;
  if (s == "accelerator")
    return DeviceType::Accelerator;
  return DeviceType::Other;
}

std::string
AvailableList()
{
  std::ostringstream s;
  const auto & all = ListDevices();
  if (all.empty())
  {
    return "no OpenCL device is available (is an ICD such as pocl-opencl-icd or a GPU driver installed?)";
  }
  s << "available devices:";
  for (const auto & d : all)
  {
    s << "\n  " << d.Describe();
  }
  return s.str();
}

void
AddItem(const std::string & rawItem, std::vector<DeviceInfo> & out)
{
  const auto & all = ListDevices();
  auto add = [&out](const DeviceInfo & d)
  {
    if (std::none_of(out.begin(), out.end(), [&d](const DeviceInfo & o) { return o.index == d.index; }))
    {
      out.push_back(d);
    }
  };
  const std::string item = ToLower(Trim(rawItem));
  const std::size_t before = out.size();
  bool matchedAny = false;
  if (item.empty() || item == "default")
  {
    const char * env = std::getenv(DeviceEnvironmentVariable());
    if (env != nullptr && *env != '\0' && ToLower(Trim(env)) != "default")
    {
      for (const auto & d : SelectDevices(env))
        add(d);
      return;
    }
    auto gpu = std::find_if(all.begin(), all.end(), [](const DeviceInfo & d) { return d.type == DeviceType::GPU; });
    if (gpu != all.end())
      add(*gpu);
    else if (!all.empty())
      add(all.front());
    matchedAny = !all.empty();
  }
  else if (item == "all")
  {
    for (const auto & d : all)
      add(d);
    matchedAny = !all.empty();
  }
  else if (item.rfind("all-", 0) == 0 && TypeFromName(item.substr(4)) != DeviceType::Other)
  {
    const DeviceType t = TypeFromName(item.substr(4));
    for (const auto & d : all)
      if (d.type == t)
      {
        add(d);
        matchedAny = true;
      }
  }
  else if (TypeFromName(item) != DeviceType::Other)
  {
    const DeviceType t = TypeFromName(item);
    auto it = std::find_if(all.begin(), all.end(), [t](const DeviceInfo & d) { return d.type == t; });
    if (it != all.end())
    {
      add(*it);
      matchedAny = true;
    }
  }
  else if (IsNumber(item))
  {
    const unsigned long i = std::stoul(item);
    if (i < all.size())
    {
      add(all[i]);
      matchedAny = true;
    }
  }
  else
  {
    for (const auto & d : all)
    {
      if (ToLower(d.platformName + " " + d.name).find(item) != std::string::npos)
      {
        add(d);
        matchedAny = true;
        break;
      }
    }
  }
  if (!matchedAny && out.size() == before)
  {
    throw InvalidArgument("OpenCL device selection '" + rawItem + "' matches no device; " + AvailableList());
  }
}

} // namespace

std::string
DeviceInfo::TypeName() const
{
  switch (type)
  {
    case DeviceType::GPU:
      return "gpu";
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::Accelerator:
      return "accelerator";
    case DeviceType::Other:
      break;
  }
  return "other";
}

std::string
DeviceInfo::Describe() const
{
  std::ostringstream s;
  s << "[" << index << "] " << TypeName() << " '" << name << "' (" << platformName << ", " << version << "), "
    << (globalMemory >> 20) << " MiB, max buffer " << (maxAllocation >> 20) << " MiB, " << computeUnits
    << " compute units, max work-group " << maxWorkGroupSize << ", fp64 " << (fp64 ? "yes" : "no");
  return s.str();
}

const std::vector<DeviceInfo> &
ListDevices()
{
  return Devices().infos;
}

cl::Device
CLDevice(const DeviceInfo & device)
{
  const Discovered & found = Devices();
  if (device.index >= found.devices.size() || found.infos[device.index].name != device.name)
  {
    throw InvalidArgument("device handle " + std::to_string(device.index) + " ('" + device.name +
                          "') is not a device of ListDevices(); " + AvailableList());
  }
  return found.devices[device.index];
}

const char *
DeviceEnvironmentVariable()
{
  return "ITKGPUR_DEVICE";
}

std::vector<DeviceInfo>
SelectDevices(const std::string & selection)
{
  std::vector<DeviceInfo> out;
  std::stringstream items(selection);
  std::string item;
  if (Trim(selection).empty())
  {
    AddItem("", out);
  }
  while (std::getline(items, item, ','))
  {
    AddItem(item, out);
  }
  if (out.empty())
  {
    throw InvalidArgument("OpenCL device selection '" + selection + "' matches no device; " + AvailableList());
  }
  return out;
}

bool
HaveOpenCLDevice()
{
  return !ListDevices().empty();
}

bool
KernelFormChoice(const char * name, const char * yes, const char * no, bool fallback)
{
  const char * forced = std::getenv(name);
  if (forced != nullptr && std::string(forced) == yes)
    return true;
  if (forced != nullptr && std::string(forced) == no)
    return false;
  return fallback;
}

} // namespace gpur
