// SPDX-License-Identifier: Apache-2.0
#include "gpurContext.h"

#include "gpurError.h"

#include <map>

namespace gpur
{

std::shared_ptr<DeviceContext>
DeviceContext::Get(const DeviceInfo & device)
{
  static std::mutex mutex;
  static std::map<unsigned, std::shared_ptr<DeviceContext>> contexts;
  std::lock_guard<std::mutex> lock(mutex);
  auto & slot = contexts[device.index];
  if (!slot)
  {
    slot = std::make_shared<DeviceContext>(device);
  }
  return slot;
}

DeviceContext::DeviceContext(const DeviceInfo & device)
  : m_Info(device)
  , m_Device(CLDevice(device))
{
  TranslateCLErrors(
    [&]
    {
      m_Context = cl::Context(m_Device);
      for (int i = 0; i < 2; ++i)
      {
        m_Queues.emplace_back(m_Context, m_Device, CL_QUEUE_PROFILING_ENABLE);
      }
    });
}

const cl::CommandQueue &
DeviceContext::Queue(unsigned i) const
{
  if (i >= m_Queues.size())
  {
    throw InvalidArgument("DeviceContext::Queue: queue " + std::to_string(i) + " does not exist");
  }
  return m_Queues[i];
}

cl::Program
DeviceContext::Program(const std::vector<KernelSource> & sources, const std::string & options)
{
  std::string key = options;
  for (const auto & s : sources)
  {
    key += '\0' + s.name + '\0' + s.text;
  }
  std::lock_guard<std::mutex> lock(m_Mutex);
  auto found = m_Programs.find(key);
  if (found != m_Programs.end())
  {
    return found->second;
  }
  cl::Program::Sources texts;
  std::string names;
  for (const auto & s : sources)
  {
    texts.push_back(s.text);
    names += (names.empty() ? "" : ", ") + s.name;
  }
  cl_int err = CL_SUCCESS;
  cl::Program program(m_Context, texts, &err);
  CheckCL(err, "clCreateProgramWithSource");
  const cl::Device & device = m_Device;
  try
  {
    program.build({ device }, options.c_str());
  }
  catch (const cl::Error & e)
  {
    std::string log;
    try
    {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    }
    catch (const cl::Error &)
    {
      log = "(the build log could not be read)";
    }
    throw BuildError(std::string("clBuildProgram failed: ") + CLErrorName(e.err()) + " (" + std::to_string(e.err()) +
                       ") building [" + names + "] with options '" + options + "' for device '" + m_Info.name +
                       "'\nbuild log:\n" + log,
                     e.err());
  }
  ++m_BuildCount;
  m_Programs.emplace(key, program);
  return program;
}

unsigned
DeviceContext::BuildCount() const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_BuildCount;
}

void
DeviceContext::CheckMemory(std::uint64_t bytes, std::uint64_t largestBuffer, const std::string & what) const
{
  if (largestBuffer > m_Info.maxAllocation)
  {
    throw InvalidArgument(what + " needs a buffer of " + std::to_string(largestBuffer >> 20) + " MiB but device '" +
                          m_Info.name + "' allows at most " + std::to_string(m_Info.maxAllocation >> 20) +
                          " MiB per buffer (use a smaller image, or the CPU backend)");
  }
  if (bytes > m_Info.globalMemory)
  {
    throw InvalidArgument(what + " needs " + std::to_string(bytes >> 20) + " MiB of device memory but device '" +
                          m_Info.name + "' has " + std::to_string(m_Info.globalMemory >> 20) +
                          " MiB (use a smaller image, or the CPU backend)");
  }
}

void
DeviceContext::RequireDouble(const std::string & what) const
{
  gpur::RequireDouble(m_Info, what);
}

void
RequireDouble(const DeviceInfo & device, const std::string & what)
{
  if (!device.fp64)
  {
    throw InvalidArgument(what + ": double precision was requested but OpenCL device '" + device.name +
                          "' has no fp64 support; use float images, or the CPU backend");
  }
}

double
EventSeconds(const cl::Event & event)
{
  return TranslateCLErrors(
    [&]
    {
      event.wait();
      const cl_ulong start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      const cl_ulong end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
      return 1e-9 * static_cast<double>(end - start);
    });
}

} // namespace gpur
