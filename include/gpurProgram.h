// SPDX-License-Identifier: Apache-2.0
// The kernel registry (device side): the one place where an OpenCL program is
// assembled from the core's prelude and a module's .cl files with build
// options, built and cached per device and option set, and where kernels are
// taken out of it (checked to exist) and launched with typed arguments.
#ifndef gpurProgram_h
#define gpurProgram_h

#include "gpurContext.h"
#include "gpurLaunch.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace gpur
{

/** A module's embedded .cl files by name: the generated gpur::kernels::<ns>::Find. */
using KernelLookup = const char * (*)(const char * name);

/**
 * What a program is made of: the core's prelude files (kernels/gpur_*.cl),
 * then a module's files, compiled with -DREAL=float|double and the defines and
 * options given. Mode flags that are constant for a launch (e.g. whether a
 * weight is read) belong here as defines rather than kernel arguments: each
 * set of defines is its own cached program, and its kernels carry no branch
 * on the flag. Every file honours $ITKGPUR_KERNEL_DIR (ResolveKernelSource).
 */
class ProgramSpec
{
public:
  /** `what` names the job in errors (e.g. "TV denoising"); double needs fp64 on the device. */
  ProgramSpec(std::string what, bool isDouble);

  /** Core prelude files, in order (e.g. "gpur_common.cl", "gpur_reduce.cl"). */
  ProgramSpec &
  Core(std::initializer_list<const char *> files);
  /** A module's files, in order, looked up in its embedded set. */
  ProgramSpec &
  Module(KernelLookup lookup, std::initializer_list<const char *> files);
  /** -D<name> when `when`. */
  ProgramSpec &
  Define(const std::string & name, bool when = true);
  /** -D<name>=<value>. */
  ProgramSpec &
  Define(const std::string & name, const std::string & value);
  /** -D<name>=<value> (a string literal must not select the bool overload). */
  ProgramSpec &
  Define(const std::string & name, const char * value)
  {
    return Define(name, std::string(value));
  }
  /** Another compiler option (e.g. -cl-fp32-correctly-rounded-divide-sqrt) when `when`. */
  ProgramSpec &
  Option(const std::string & option, bool when = true);

  const std::string &
  What() const
  {
    return m_What;
  }
  bool
  IsDouble() const
  {
    return m_IsDouble;
  }
  /** The sources in order, each resolved once (the override folder applies). */
  std::vector<KernelSource>
  Sources() const;
  /** The full option string: the REAL defines first, then the rest in the order given. */
  std::string
  Options() const;

private:
  struct File
  {
    std::string name;
    KernelLookup lookup; ///< null: a core file
  };
  std::string m_What;
  bool m_IsDouble;
  std::vector<File> m_Files;
  std::string m_Options;
};

/**
 * One kernel of a built program, for one user (cl_kernel arguments are not
 * thread-safe). Arguments are set all at once and counted against the kernel's
 * declaration, so a host call that no longer matches its .cl file fails with
 * the kernel's name instead of running on stale arguments.
 */
class Kernel
{
public:
  Kernel() = default;
  Kernel(const cl::Program & program, const cl::Device & device, const std::string & name, const std::string & from);

  const std::string &
  Name() const
  {
    return m_Name;
  }
  /** The bindings' kernel, for code that sets arguments itself (see SetArgs). */
  cl::Kernel &
  Get()
  {
    return m_Kernel;
  }
  const cl::Kernel &
  Get() const
  {
    return m_Kernel;
  }
  /** The largest work-group the kernel can run with on its device (CL_KERNEL_WORK_GROUP_SIZE). */
  std::size_t
  WorkGroupLimit() const;

  /** Sets arguments 0, 1, ... (exactly as many as the kernel declares). */
  template<typename... Args>
  Kernel &
  Set(const Args &... args)
  {
    CheckArgumentCount(sizeof...(Args));
    cl_uint index = 0;
    using expand = int[];
    (void)expand{ 0, (SetOne(index++, args), 0)... };
    return *this;
  }

  /** Enqueues the kernel (nothing waits). */
  void
  Enqueue(const cl::CommandQueue & queue,
          const cl::NDRange & global,
          const cl::NDRange & local,
          cl::Event * event = nullptr) const;

  /** Sets the arguments and enqueues one work-item per voxel of `range`. */
  template<typename... Args>
  void
  Launch(const cl::CommandQueue & queue, const ImageRange & range, const Args &... args)
  {
    Set(args...);
    Enqueue(queue, range.global, range.local);
  }

private:
  void
  CheckArgumentCount(std::size_t given) const;
  template<typename T>
  void
  SetOne(cl_uint index, const T & value)
  {
    try
    {
      m_Kernel.setArg(index, value);
    }
    catch (const cl::Error & e)
    {
      ArgumentError(index, e);
    }
  }
  [[noreturn]] void
  ArgumentError(cl_uint index, const cl::Error & e) const;

  cl::Kernel m_Kernel;
  cl::Device m_Device;
  std::string m_Name;
  std::string m_From; ///< "the program [files] with options '...'", for messages
  cl_uint m_ArgumentCount = 0;
};

/** A program built for one device from a ProgramSpec (shared, cached by the device's context). */
class Program
{
public:
  Program(DeviceContext & context, const ProgramSpec & spec);

  /** A new kernel object; throws OpenCLError naming the kernel, the program's files and options when it has none of
   * that name. */
  Kernel
  MakeKernel(const std::string & name) const;

private:
  cl::Program m_Program;
  cl::Device m_Device;
  std::string m_From;
};

/**
 * The program of `spec` on the context's device: refuses double on a device
 * without fp64 (InvalidArgument naming spec.What()), builds it once per
 * process and option set (BuildError with the full build log on a compiler
 * error), and returns it from the cache afterwards.
 */
Program
BuildProgram(DeviceContext & context, const ProgramSpec & spec);

} // namespace gpur

#endif
