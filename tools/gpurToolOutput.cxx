// SPDX-License-Identifier: Apache-2.0
#include "gpurToolOutput.h"

#include "gpurToolComplaints.h"
#include "gpurToolInterrupt.h"

#include "itkImageIOFactory.h"
#include "itksys/SystemTools.hxx"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>
#include <vector>

namespace gpur
{
namespace cli
{

namespace
{

namespace fs = std::filesystem;

/** fsync of path: returns "" or the reason it failed. */
std::string
SyncToDisk(const fs::path & path)
{
  const int descriptor = open(path.c_str(), O_RDONLY);
  if (descriptor < 0)
    return std::strerror(errno);
  const int result = fsync(descriptor);
  const int error = errno;
  close(descriptor);
  return result == 0 ? std::string() : std::strerror(error);
}

/** " (the file system holding '<directory>' is full ...)" when less than 1 MiB is left there for users; else "". */
std::string
FullDiskNote(const fs::path & directory)
{
  std::error_code error;
  const fs::space_info space = fs::space(directory, error);
  if (error || space.available >= (std::uintmax_t{ 1 } << 20))
    return {};
  return " (the file system holding '" + directory.string() + "' is full: " + std::to_string(space.available) +
         " bytes available)";
}

/**
 * A folder "<stem>.partial-<pid>[-<k>]" next to the output that the writer
 * writes into. Until MoveInto succeeds, the destructor and an interruption
 * remove it with its files.
 */
class TemporaryFolder
{
public:
  TemporaryFolder(const fs::path & directory, const std::string & name, const std::string & failed)
  {
    const std::string extension = FormatExtension(name);
    m_Stem = name.substr(0, name.size() - extension.size());
    m_Name = name;
    const InterruptHold hold; // created and armed together
    for (unsigned k = 0;; ++k)
    {
      const std::string folder = m_Stem + ".partial-" + std::to_string(getpid()) + (k ? "-" + std::to_string(k) : "");
      std::error_code error;
      if (fs::create_directory(directory / folder, error))
      {
        m_Path = directory / folder;
        break;
      }
      if (error || k == 100)
        throw std::runtime_error(failed + "cannot create the temporary folder '" + (directory / folder).string() +
                                 "': " + (error ? error.message() : "too many exist"));
    }
    // Before the writer runs, the names it may give its files: the output's own and the
    // companions of ITK's multi-file formats (MetaImage .raw/.zraw, NRRD .raw/.raw.gz,
    // Analyze/NIfTI pairs .hdr/.img and their .gz).
    std::vector<std::string> names{ m_Name };
    for (const char * companion : { ".raw", ".zraw", ".raw.gz", ".img", ".img.gz", ".hdr", ".hdr.gz" })
      names.push_back(m_Stem + companion);
    Arm(names);
  }

  ~TemporaryFolder()
  {
    if (m_Path.empty())
      return;
    const InterruptHold hold;
    std::error_code ignored;
    fs::remove_all(m_Path, ignored);
    SetTemporaryPaths({});
  }

  TemporaryFolder(const TemporaryFolder &) = delete;
  TemporaryFolder &
  operator=(const TemporaryFolder &) = delete;

  const fs::path &
  Path() const
  {
    return m_Path;
  }

  /** The names of the files the writer made. */
  std::vector<std::string>
  Files() const
  {
    std::vector<std::string> names;
    for (const auto & entry : fs::directory_iterator(m_Path))
      names.push_back(entry.path().filename().string());
    return names;
  }

  /** Arms the interruption with what is there now; flushes every file to the disk. */
  void
  Sync(const std::string & failed)
  {
    const auto names = Files();
    if (names.size() + 1 > kMaxTemporaryPaths)
      throw std::runtime_error(failed + "the writer made " + std::to_string(names.size()) + " files");
    Arm(names);
    for (const auto & name : names)
      if (const std::string reason = SyncToDisk(m_Path / name); !reason.empty())
        throw std::runtime_error(failed + "cannot flush '" + name + "' to the disk: " + reason);
  }

  /** Renames the files into directory, the output's own last, and removes the folder. */
  void
  MoveInto(const fs::path & directory, const std::string & failed)
  {
    const auto names = Files();
    std::vector<fs::path> moved;
    {
      const InterruptHold hold; // an interruption waits until the output is whole (or removed)
      std::error_code error;
      for (const auto & name : names)
        if (name != m_Name)
        {
          fs::rename(m_Path / name, directory / name, error);
          if (error)
            break;
          moved.push_back(directory / name);
        }
      if (!error)
        fs::rename(m_Path / m_Name, directory / m_Name, error);
      if (error)
      {
        std::error_code ignored;
        for (const auto & path : moved)
          fs::remove(path, ignored);
        throw std::runtime_error(failed + "cannot move the written file into '" + directory.string() +
                                 "': " + error.message());
      }
      SetTemporaryPaths({});
      std::error_code ignored;
      fs::remove(m_Path, ignored);
      m_Path.clear();
    }
    SyncToDisk(directory); // the renames on the disk too (best effort: not every file system syncs folders)
  }

private:
  void
  Arm(const std::vector<std::string> & names)
  {
    std::vector<std::string> paths;
    for (const auto & name : names)
      paths.push_back((m_Path / name).string());
    paths.push_back(m_Path.string() + "/");
    SetTemporaryPaths(paths);
  }

  fs::path m_Path;
  std::string m_Stem;
  std::string m_Name;
};

} // namespace

void
CheckReadBack(bool sameSize, const void * written, const void * read, std::size_t bytes)
{
  if (!sameSize)
    throw std::runtime_error("it has another size than the image written");
  if (std::memcmp(written, read, bytes) != 0)
    throw std::runtime_error("its pixels differ from those written");
}

std::string
FormatExtension(const std::string & path)
{
  const std::string name = itksys::SystemTools::GetFilenameName(path);
  const std::string lower = itksys::SystemTools::LowerCase(name);
  for (const char * doubleExt : { ".nii.gz", ".hdr.gz", ".img.gz" })
  {
    const std::string e = doubleExt;
    if (lower.size() > e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0)
      return name.substr(name.size() - e.size());
  }
  const std::size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? std::string() : name.substr(dot);
}

void
CheckOutputName(const std::string & output)
{
  if (itk::ImageIOFactory::CreateImageIO(output.c_str(), itk::ImageIOFactory::FileModeEnum::WriteMode).IsNull())
    throw std::runtime_error("no ITK image format writes '" + output + "' (use e.g. .nrrd, .mha, .nii.gz, .tif)");
  const fs::path target(output);
  std::error_code error;
  if (target.has_parent_path() && !fs::is_directory(target.parent_path(), error))
    throw std::runtime_error("the folder of the output '" + output + "' does not exist");
}

void
WriteVerified(const std::string & output,
              const std::function<void(const std::string & path)> & write,
              const std::function<void(const std::string & path)> & verify)
{
  CheckOutputName(output);
  const fs::path target(output);
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string name = target.filename().string();
  const std::string failed = "writing '" + output + "' failed: ";

  TemporaryFolder temporary(directory, name, failed);
  const std::string path = (temporary.Path() / name).string();
  try
  {
    try
    {
      ComplaintCapture capture;
      write(path);
      capture.ThrowIfAny("writing '" + output + "' failed");
    }
    catch (const itk::ExceptionObject & e)
    {
      throw std::runtime_error(failed + e.GetDescription());
    }
    temporary.Sync(failed);
    try
    {
      verify(path);
    }
    catch (const itk::ExceptionObject & e)
    {
      throw std::runtime_error(failed + "the written file does not read back: " + e.GetDescription());
    }
    catch (const std::exception & e)
    {
      throw std::runtime_error(failed + "the written file does not read back: " + e.what());
    }
  }
  catch (const std::runtime_error & e)
  {
    // Measured before the temporary files go: the writers seldom say that the disk is full.
    throw std::runtime_error(e.what() + FullDiskNote(directory));
  }
  temporary.MoveInto(directory, failed);
}

} // namespace cli
} // namespace gpur
