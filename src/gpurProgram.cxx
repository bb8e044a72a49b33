// SPDX-License-Identifier: Apache-2.0
#include "gpurProgram.h"

#include <utility>

namespace gpur
{

ProgramSpec::ProgramSpec(std::string what, bool isDouble)
  : m_What(std::move(what))
  , m_IsDouble(isDouble)
{
}

ProgramSpec &
ProgramSpec::Core(std::initializer_list<const char *> files)
{
  for (const char * f : files)
    m_Files.push_back({ f, nullptr });
  return *this;
}

ProgramSpec &
ProgramSpec::Module(KernelLookup lookup, std::initializer_list<const char *> files)
{
  for (const char * f : files)
    m_Files.push_back({ f, lookup });
  return *this;
}

ProgramSpec &
ProgramSpec::Define(const std::string & name, bool when)
{
  return Option("-D" + name, when);
}

ProgramSpec &
ProgramSpec::Define(const std::string & name, const std::string & value)
{
  return Option("-D" + name + "=" + value);
}

ProgramSpec &
ProgramSpec::Option(const std::string & option, bool when)
{
  if (when)
    m_Options += " " + option;
  return *this;
}

std::vector<KernelSource>
ProgramSpec::Sources() const
{
  std::vector<KernelSource> sources;
  for (const File & f : m_Files)
  {
    if (f.lookup == nullptr)
    {
      sources.push_back(CoreKernel(f.name));
      continue;
    }
    const char * embedded = f.lookup(f.name.c_str());
    if (embedded == nullptr)
      throw InvalidArgument(m_What + ": no kernel file named '" + f.name + "' is embedded in its module");
    sources.push_back(ResolveKernelSource(f.name, embedded));
  }
  return sources;
}

std::string
ProgramSpec::Options() const
{
  // No fast-relaxed-math: the CPU reference and the device must agree closely.
  return (m_IsDouble ? "-DREAL=double -DREAL3=double3 -DGPUR_DOUBLE" : "-DREAL=float -DREAL3=float3") + m_Options;
}

Kernel::Kernel(const cl::Program & program,
               const cl::Device & device,
               const std::string & name,
               const std::string & from)
  : m_Device(device)
  , m_Name(name)
  , m_From(from)
{
  try
  {
    m_Kernel = cl::Kernel(program, name.c_str());
  }
  catch (const cl::Error & e)
  {
    throw OpenCLError("clCreateKernel(" + name + ") failed: " + CLErrorName(e.err()) + " (" + std::to_string(e.err()) +
                        "): no kernel '" + name + "' in " + m_From,
                      e.err());
  }
  m_ArgumentCount = TranslateCLErrors([&] { return m_Kernel.getInfo<CL_KERNEL_NUM_ARGS>(); });
}

std::size_t
Kernel::WorkGroupLimit() const
{
  return TranslateCLErrors([&] { return m_Kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(m_Device); });
}

void
Kernel::CheckArgumentCount(std::size_t given) const
{
  if (given != m_ArgumentCount)
  {
    throw InvalidArgument("kernel '" + m_Name + "' of " + m_From + " takes " + std::to_string(m_ArgumentCount) +
                          " arguments, the host gave " + std::to_string(given));
  }
}

void
Kernel::ArgumentError(cl_uint index, const cl::Error & e) const
{
  throw OpenCLError("clSetKernelArg(" + m_Name + ", argument " + std::to_string(index) +
                      ") failed: " + CLErrorName(e.err()) + " (" + std::to_string(e.err()) + ")",
                    e.err());
}

void
Kernel::Enqueue(const cl::CommandQueue & queue,
                const cl::NDRange & global,
                const cl::NDRange & local,
                cl::Event * event) const
{
  queue.enqueueNDRangeKernel(m_Kernel, cl::NullRange, global, local, nullptr, event);
}

Program::Program(DeviceContext & context, const ProgramSpec & spec)
  : m_Device(context.Device())
{
  if (spec.IsDouble())
    context.RequireDouble(spec.What());
  const std::vector<KernelSource> sources = spec.Sources();
  std::string files;
  for (const KernelSource & s : sources)
    files += (files.empty() ? "" : ", ") + s.name;
  const std::string options = spec.Options();
  m_From = "the program [" + files + "] with options '" + options + "' (" + spec.What() + ")";
  m_Program = context.Program(sources, options);
}

Kernel
Program::MakeKernel(const std::string & name) const
{
  return Kernel(m_Program, m_Device, name, m_From);
}

Program
BuildProgram(DeviceContext & context, const ProgramSpec & spec)
{
  return TranslateCLErrors([&] { return Program(context, spec); });
}

} // namespace gpur
