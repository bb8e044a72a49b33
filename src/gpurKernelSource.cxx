// SPDX-License-Identifier: Apache-2.0
#include "gpurKernelSource.h"

#include "gpurCoreKernels.h" // generated at build time from kernels/*.cl
#include "gpurError.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <set>

namespace gpur
{

const char *
KernelDirectoryEnvironmentVariable()
{
  return "ITKGPUR_KERNEL_DIR";
}

namespace
{

/** The override folder named by $ITKGPUR_KERNEL_DIR; empty when the variable is unset or empty. */
std::string
KernelDirectory()
{
  const char * dir = std::getenv(KernelDirectoryEnvironmentVariable());
  if (dir == nullptr || *dir == '\0')
    return {};
  namespace fs = std::filesystem;
  std::error_code error;
  const bool isDirectory = fs::is_directory(dir, error);
  if (isDirectory)
    fs::directory_iterator(dir, error); // fails when the folder cannot be listed (no read permission)
  if (!isDirectory || error)
    throw InvalidArgument(std::string(KernelDirectoryEnvironmentVariable()) + " is set to '" + dir +
                          "', which is not a readable directory: point it at a folder of .cl files or unset it");
  return dir;
}

/** Says once per file name on stderr that the built-in copy is used, because the override folder lacks it. */
void
NoteEmbeddedFallback(const std::string & name, const std::string & dir)
{
  static std::mutex mutex;
  static std::set<std::string> noted;
  const std::lock_guard<std::mutex> lock(mutex);
  if (noted.insert(name).second)
    std::cerr << KernelDirectoryEnvironmentVariable() << ": no '" << name << "' in '" << dir
              << "', using the built-in copy of " << name << "\n";
}

} // namespace

KernelSource
ResolveKernelSource(const std::string & name, const char * embedded)
{
  const std::string dir = KernelDirectory();
  if (dir.empty())
    return { name, embedded };
  const std::string path = dir + "/" + name;
  std::error_code error;
  if (!std::filesystem::exists(path, error))
  {
    // A missing file falls back to the built-in copy instead of failing: a program is
    // the core's .cl files (kernels/) followed by a module's (Modules/<Name>/kernels/),
    // which live in different source folders, and the override is meant for editing
    // one of them without copying the others. The note keeps the fallback visible.
    NoteEmbeddedFallback(name, dir);
    return { name, embedded };
  }
  std::ifstream file(path, std::ios::binary);
  std::string text;
  if (file)
    text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  if (!file.is_open() || file.bad())
    throw InvalidArgument("cannot read the kernel override '" + name + "' in '" + dir + "' (" +
                          KernelDirectoryEnvironmentVariable() + ")");
  return { name, text };
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
