// SPDX-License-Identifier: Apache-2.0
#include "gpurBench.h"

#include "gpurBuffer.h"
#include "gpurContext.h"
#include "gpurError.h"
#include "gpurParallel.h"
#include "gpurStopwatch.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace gpur
{
namespace bench
{
namespace
{

constexpr int kCopyRepeats = 5; // best of, after one untimed copy
constexpr unsigned kWarmupIterations = 2;

/**
 * Host memcpy, best of kCopyRepeats with one thread and with all threads: on
 * some machines one thread already saturates memory and several only contend
 * (seen on this project's 2-core VM), on others only several threads do.
 */
Bandwidth
HostCopyBandwidth(std::uint64_t bytes)
{
  std::vector<char> source(bytes, 1), destination(bytes, 0); // touched: no page faults when timed
  const unsigned threads = HardwareThreads();
  Bandwidth b;
  b.bytes = bytes;
  for (const unsigned workers : { 1u, threads })
  {
    const gpur::ParallelForFunction parallelFor = gpur::MakeThreadParallelFor(workers);
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r <= kCopyRepeats; ++r)
    {
      const gpur::Stopwatch watch;
      parallelFor(source.size(),
                  [&](std::size_t begin, std::size_t end)
                  { std::memcpy(destination.data() + begin, source.data() + begin, end - begin); });
      if (r > 0)
        best = std::min(best, watch.Seconds());
    }
    const double gbps = 2.0 * bytes / best / 1e9;
    if (gbps > b.gbps)
    {
      b.gbps = b.wallGbps = gbps;
      b.method = "memcpy on " + std::to_string(workers) + " thread(s), wall time";
    }
    if (threads == 1)
      break;
  }
  return b;
}

/**
 * clEnqueueCopyBuffer between two buffers on each device, all devices at once,
 * best of kCopyRepeats. One device: by profiling events and by wall time;
 * several: by wall time (the copies overlap, as the slabs of a run do).
 */
Bandwidth
DeviceCopyBandwidth(const std::vector<gpur::DeviceInfo> & devices, std::uint64_t copyBytes)
{
  return gpur::TranslateCLErrors(
    [&]
    {
      struct Copy
      {
        std::shared_ptr<gpur::DeviceContext> context;
        gpur::DeviceBuffer<float> source, destination;
        cl::Event event;
      };
      std::vector<Copy> copies(devices.size());
      Bandwidth b;
      for (std::size_t d = 0; d < devices.size(); ++d)
      {
        Copy & c = copies[d];
        c.context = gpur::DeviceContext::Get(devices[d]);
        const std::uint64_t bytes = std::min({ copyBytes, devices[d].maxAllocation, devices[d].globalMemory / 4 });
        const std::size_t count = static_cast<std::size_t>(bytes / sizeof(float));
        c.source = gpur::DeviceBuffer<float>(*c.context, count);
        c.destination = gpur::DeviceBuffer<float>(*c.context, count);
        c.source.Fill(c.context->Queue(0), 1.0f); // drivers allocate lazily: materialise both before timing
        c.destination.Fill(c.context->Queue(0), 0.0f);
        c.context->Queue(0).finish();
        b.bytes += count * sizeof(float);
      }
      double bestEvent = std::numeric_limits<double>::infinity(), bestWall = bestEvent;
      for (int r = 0; r <= kCopyRepeats; ++r)
      {
        const gpur::Stopwatch watch;
        for (Copy & c : copies)
        {
          c.destination.CopyFrom(c.context->Queue(0), c.source, &c.event);
          c.context->Queue(0).flush();
        }
        for (Copy & c : copies)
          c.context->Queue(0).finish();
        if (r > 0)
        {
          bestWall = std::min(bestWall, watch.Seconds());
          if (copies.size() == 1)
            bestEvent = std::min(bestEvent, gpur::EventSeconds(copies[0].event));
        }
      }
      b.wallGbps = 2.0 * b.bytes / bestWall / 1e9;
      if (copies.size() == 1)
      {
        b.gbps = 2.0 * b.bytes / bestEvent / 1e9;
        b.method = "clEnqueueCopyBuffer, profiling events";
      }
      else
      {
        b.gbps = b.wallGbps;
        b.method = "clEnqueueCopyBuffer on " + std::to_string(copies.size()) + " devices at once, wall time";
      }
      return b;
    });
}

} // namespace

unsigned
HardwareThreads()
{
  return std::max(1u, std::thread::hardware_concurrency());
}

std::vector<gpur::DeviceInfo>
BenchDevices(const std::string & selection)
{
  if (selection.empty())
    return gpur::ListDevices();
  if (selection == "none")
    return {};
  return gpur::SelectDevices(selection);
}

Target
CPUTarget(std::uint64_t copyBytes)
{
  Target t;
  t.name = "CPU reference (" + std::to_string(HardwareThreads()) + " threads)";
  t.execution.backend = gpur::Backend::CPU;
  t.execution.parallelFor = gpur::MakeThreadParallelFor();
  if (copyBytes > 0)
    t.copy = HostCopyBandwidth(copyBytes);
  return t;
}

Target
DeviceTarget(const std::vector<gpur::DeviceInfo> & devices, std::uint64_t copyBytes)
{
  if (devices.empty())
    throw gpur::InvalidArgument("DeviceTarget: no device given");
  Target t;
  t.devices = devices;
  t.execution.backend = gpur::Backend::OpenCL;
  for (std::size_t d = 0; d < devices.size(); ++d)
    t.execution.device += (d ? "," : "") + std::to_string(devices[d].index); // indices: exactly these devices
  t.name = devices.size() == 1 ? "[" + t.execution.device + "] " + devices[0].name
                               : std::to_string(devices.size()) + " devices [" + t.execution.device + "]";
  if (copyBytes > 0)
    t.copy = DeviceCopyBandwidth(devices, copyBytes);
  return t;
}

IterationTiming
TimeIterations(const RunSeconds & run,
               unsigned start,
               unsigned fixed,
               double minSeconds,
               const std::string & what,
               OnUntimed onUntimed)
{
  run(kWarmupIterations);
  unsigned n = fixed > 0 ? fixed : std::max(1u, start);
  double tN = run(n);
  double t2N = run(2 * n);
  while (fixed == 0 && t2N - tN < minSeconds && 2 * n <= kMaxIterations)
  {
    n *= 2;
    tN = t2N;
    t2N = run(2 * n);
  }
  IterationTiming timing;
  timing.iterations = n;
  if (!(t2N > tN) && onUntimed == OnUntimed::TotalTime)
  {
    timing.secondsPerIteration = t2N / (2.0 * n);
    timing.differenced = false;
    std::cerr << what << ": " << 2 * n << " iterations were not slower than " << n
              << "; reporting t(2N) / 2N, set-up included\n";
    return timing;
  }
  if (!(t2N > tN))
    throw gpur::Error(what + ": " + std::to_string(2 * n) + " iterations were not slower than " + std::to_string(n) +
                      "; use more --iterations");
  timing.secondsPerIteration = (t2N - tN) / n;
  timing.fixedSeconds = std::max(0.0, tN - n * timing.secondsPerIteration);
  return timing;
}

std::vector<std::string>
SplitCommas(const std::string & text)
{
  std::vector<std::string> items;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');)
    if (!item.empty())
      items.push_back(item);
  return items;
}

std::string
Format(double value, int digits, bool scientific)
{
  std::ostringstream s;
  s << (scientific ? std::scientific : std::fixed) << std::setprecision(digits) << value;
  return s.str();
}

std::string
Cell(double value, int digits, bool scientific)
{
  return std::isnan(value) ? "-" : Format(value, digits, scientific);
}

std::string
JsonNumber(double value)
{
  if (!std::isfinite(value))
    return "null";
  std::ostringstream s;
  s << std::setprecision(6) << value;
  return s.str();
}

std::string
JsonString(const std::string & text)
{
  std::ostringstream s;
  s << '"';
  for (const unsigned char ch : text)
  {
    if (ch == '"' || ch == '\\')
      s << '\\' << ch;
    else if (ch < 0x20)
      s << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(ch) << std::dec << std::setfill(' ');
    else
      s << ch;
  }
  s << '"';
  return s.str();
}

void
WriteTargetsJson(std::ostream & out, const std::vector<Target> & targets)
{
  out << "  \"devices\": [";
  const auto & devices = gpur::ListDevices();
  for (std::size_t i = 0; i < devices.size(); ++i)
    out << (i ? "," : "") << "\n    " << JsonString(devices[i].Describe());
  out << "\n  ],\n  \"backends\": [";
  for (std::size_t i = 0; i < targets.size(); ++i)
  {
    const Bandwidth & b = targets[i].copy;
    out << (i ? "," : "") << "\n    { \"name\": " << JsonString(targets[i].name)
        << ", \"copyMethod\": " << JsonString(b.method) << ", \"copyBytes\": " << b.bytes
        << ", \"copyGBps\": " << b.gbps << ", \"copyWallGBps\": " << b.wallGbps << " }";
  }
  out << "\n  ]";
}

OutputFile::OutputFile(const std::string & path)
  : m_Path(path)
  , m_TemporaryPath(path + ".partial-" + std::to_string(getpid()))
{
  std::error_code error;
  if (path.empty())
    throw gpur::InvalidArgument("OutputFile: no path given");
  if (std::filesystem::is_directory(path, error)) // the rename at Commit() would fail: fail now
    throw gpur::Error("cannot write " + path + ": it is a folder");
  errno = 0;
  m_Stream.open(m_TemporaryPath, std::ios::binary | std::ios::trunc);
  if (!m_Stream)
    throw gpur::Error("cannot write " + path + " (cannot create " + m_TemporaryPath +
                      (errno ? std::string(": ") + std::strerror(errno) : std::string()) + ")");
}

OutputFile::~OutputFile()
{
  if (m_Committed)
    return;
  m_Stream.close();
  std::error_code ignored;
  std::filesystem::remove(m_TemporaryPath, ignored);
}

std::ostream &
OutputFile::Stream()
{
  return m_Stream;
}

void
OutputFile::Commit()
{
  if (m_Committed)
    throw gpur::Error("OutputFile: " + m_Path + " is already committed");
  m_Stream.close(); // flushes; failbit when a write or the flush failed (e.g. a full disk)
  if (!m_Stream)
    throw gpur::Error("error while writing " + m_Path + " (to " + m_TemporaryPath + ")");
  std::error_code error;
  std::filesystem::rename(m_TemporaryPath, m_Path, error);
  if (error)
    throw gpur::Error("cannot rename " + m_TemporaryPath + " to " + m_Path + ": " + error.message());
  m_Committed = true;
}

const std::string &
OutputFile::Path() const
{
  return m_Path;
}

const std::string &
OutputFile::TemporaryPath() const
{
  return m_TemporaryPath;
}

void
WriteBinaryFile(const std::string & path, const void * data, std::size_t bytes)
{
  OutputFile file(path);
  file.Stream().write(static_cast<const char *>(data), static_cast<std::streamsize>(bytes));
  file.Commit();
}

void
PrintTable(std::ostream & out, const std::vector<std::vector<std::string>> & rows, std::size_t leftColumns)
{
  const std::size_t columns = rows.empty() ? 0 : rows[0].size();
  // The last cell of a short row is a note: printed as it is, not counted in the widths.
  auto isNote = [&](const std::vector<std::string> & row, std::size_t c)
  { return row.size() < columns && c + 1 == row.size(); };
  std::vector<std::size_t> widths(columns, 0);
  for (const auto & row : rows)
    for (std::size_t c = 0; c < row.size() && c < columns; ++c)
      if (!isNote(row, c))
        widths[c] = std::max(widths[c], row[c].size());
  for (const auto & row : rows)
  {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
    {
      const std::string pad(isNote(row, c) || c >= columns ? 0 : widths[c] - row[c].size(), ' ');
      line += (c ? "  " : "") + (c < leftColumns || isNote(row, c) ? row[c] + pad : pad + row[c]);
    }
    out << line.substr(0, line.find_last_not_of(' ') + 1) << "\n";
  }
}

} // namespace bench
} // namespace gpur
