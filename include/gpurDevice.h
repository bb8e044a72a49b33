// SPDX-License-Identifier: Apache-2.0
// OpenCL device discovery and selection, over all platforms. Free of OpenCL
// types: a DeviceInfo names its device by index, which the core's sources
// resolve (CLDevice in gpurOpenCL.h).
#ifndef gpurDevice_h
#define gpurDevice_h

#include <cstdint>
#include <string>
#include <vector>

namespace gpur
{

/** The kind of an OpenCL device (CL_DEVICE_TYPE_*). */
enum class DeviceType
{
  Other,
  CPU,
  GPU,
  Accelerator
};

/** What the engines need to know about one OpenCL device. */
struct DeviceInfo
{
  /**
   * Position in ListDevices(), and the device's opaque handle: the core finds
   * the OpenCL device (and its shared DeviceContext) by it.
   */
  unsigned index = 0;
  std::string platformName;            ///< CL_PLATFORM_NAME of its platform
  std::string name;                    ///< CL_DEVICE_NAME
  std::string vendor;                  ///< CL_DEVICE_VENDOR
  std::string version;                 ///< CL_DEVICE_VERSION (the OpenCL version it supports)
  std::string driverVersion;           ///< CL_DRIVER_VERSION
  DeviceType type = DeviceType::Other; ///< CL_DEVICE_TYPE
  std::uint64_t globalMemory = 0;      ///< bytes of global memory (CL_DEVICE_GLOBAL_MEM_SIZE)
  std::uint64_t maxAllocation = 0;     ///< largest buffer in bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)
  std::uint64_t localMemory = 0;       ///< bytes of local memory per work-group (CL_DEVICE_LOCAL_MEM_SIZE)
  unsigned computeUnits = 0;           ///< CL_DEVICE_MAX_COMPUTE_UNITS
  std::size_t maxWorkGroupSize = 1;    ///< CL_DEVICE_MAX_WORK_GROUP_SIZE
  bool fp64 = false;                   ///< supports double precision (CL_DEVICE_DOUBLE_FP_CONFIG not 0)

  /** "gpu", "cpu", "accelerator" or "other". */
  std::string
  TypeName() const;
  /** One line: index, type, name, platform, memory, compute units, fp64. */
  std::string
  Describe() const;
};

/**
 * Every device of every platform, in platform order. Cached after the first
 * call. Empty when no OpenCL ICD or platform is installed (never throws for that).
 */
const std::vector<DeviceInfo> &
ListDevices();

/** Name of the environment variable read by SelectDevices("") : ITKGPUR_DEVICE. */
const char *
DeviceEnvironmentVariable();

/**
 * Devices named by a selection string, in the order given, without repeats.
 * Grammar: a comma-separated list of items, each one of
 *   - ""/"default": $ITKGPUR_DEVICE if set, else the first GPU, else the first device;
 *   - "gpu", "cpu", "accelerator": the first device of that type;
 *   - "all", "all-gpu", "all-cpu": every device (of that type);
 *   - a number: the device with that index in ListDevices();
 *   - any other text: the first device whose "platform device" name contains it (case-insensitive).
 * Throws InvalidArgument with the list of available devices when an item matches nothing.
 */
std::vector<DeviceInfo>
SelectDevices(const std::string & selection = "");

/** True when at least one OpenCL device is present. */
bool
HaveOpenCLDevice();

/**
 * A kernel form chosen per device that an environment variable may force, so that each form can be tested, or
 * timed, on any device: true where $name says `yes`, false where it says `no`, else `fallback` (the device's
 * default).
 */
bool
KernelFormChoice(const char * name, const char * yes, const char * no, bool fallback);

} // namespace gpur

#endif
