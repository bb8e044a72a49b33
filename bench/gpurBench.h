// SPDX-License-Identifier: Apache-2.0
// Pieces shared by the benchmark programs (tv_bench, statistical_tv_bench):
// where runs happen and the copy bandwidth of each place, the t(2N) - t(N)
// iteration timing, table/JSON formatting, and output files that appear under
// their final name only complete (OutputFile). ITK-free.
#ifndef gpurBench_h
#define gpurBench_h

#include "gpurDevice.h"
#include "gpurExecution.h"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace gpur
{
namespace bench
{

/** Upper limit of the iteration counts the benchmarks time. */
constexpr unsigned kMaxIterations = 1u << 16;
/** Bytes of a copy-bandwidth measurement: large enough to defeat every cache. */
constexpr std::uint64_t kCopyBytes = 256u << 20;
/** For smoke tests (--quick), where the bandwidth only has to be measured, not accurate. */
constexpr std::uint64_t kQuickCopyBytes = 16u << 20;

/** Copy bandwidth of one target: 2 x bytes (read + write) per copy. */
struct Bandwidth
{
  std::uint64_t bytes = 0; // copied per repeat (summed over the devices of a multi-device target)
  double gbps = 0;         // best of: profiling events for one device, wall time otherwise
  double wallGbps = 0;
  std::string method;
};

/** Where a run happens: the CPU reference, one OpenCL device, or several devices together. */
struct Target
{
  std::string name;
  gpur::ExecutionOptions execution;
  std::vector<gpur::DeviceInfo> devices; ///< empty for the CPU reference
  Bandwidth copy;
};

/** Threads of the CPU reference (what MakeThreadParallelFor() uses). */
unsigned
HardwareThreads();

/**
 * The devices of a benchmark's --devices option: every OpenCL device when
 * empty, none for "none", else SelectDevices(selection).
 */
std::vector<gpur::DeviceInfo>
BenchDevices(const std::string & selection);

/** The CPU reference on all threads, with the host memcpy bandwidth (copies of copyBytes; 0: not measured). */
Target
CPUTarget(std::uint64_t copyBytes = kCopyBytes);

/**
 * One OpenCL device, or several used together (the engines split a volume into
 * z-slabs); the copy bandwidth is measured on all of them at once (0: not measured).
 */
Target
DeviceTarget(const std::vector<gpur::DeviceInfo> & devices, std::uint64_t copyBytes = kCopyBytes);

/** Wall time of one timed run of `iterations` iterations, from start-up to result. */
using RunSeconds = std::function<double(unsigned iterations)>;

struct IterationTiming
{
  unsigned iterations = 0;        ///< N of the t(2N) - t(N) difference
  double secondsPerIteration = 0; ///< (t(2N) - t(N)) / N, or t(2N) / 2N when not differenced
  double fixedSeconds = 0;        ///< t(N) - N * secondsPerIteration: set-up, upload, download (>= 0)
  bool differenced = true;        ///< false: t(2N) / 2N, set-up included (OnUntimed::TotalTime)
};

/**
 * What TimeIterations does when 2N iterations timed no slower than N, which
 * other processes cause on a busy machine at small sizes: Throw (benchmarks
 * proper: a figure must be a difference), or TotalTime (--quick smoke runs:
 * t(2N) / 2N, an upper bound that includes set-up, flagged as not differenced).
 */
enum class OnUntimed
{
  Throw,
  TotalTime
};

/**
 * Per-iteration time of a solver. A run's time includes allocation, upload and
 * download, which cost the same for N and 2N iterations, so t(2N) - t(N) is the
 * time of N iterations alone. After an untimed warm-up (program build, first
 * allocations, thread start-up), N starts at `start` and, unless `fixed` > 0
 * sets it, doubles until the difference reaches minSeconds, so that fast
 * devices are timed over enough work to hide noise and launch jitter.
 * When 2N iterations were not slower than N: throws gpur::Error, or with
 * OnUntimed::TotalTime returns t(2N) / 2N with `differenced` false.
 */
IterationTiming
TimeIterations(const RunSeconds & run,
               unsigned start,
               unsigned fixed,
               double minSeconds,
               const std::string & what,
               OnUntimed onUntimed = OnUntimed::Throw);

std::vector<std::string>
SplitCommas(const std::string & text);

/** value with `digits` decimals (fixed or scientific notation). */
std::string
Format(double value, int digits, bool scientific = false);

/** value with `digits` decimals, or "-" when it is NaN (a table cell with nothing measured). */
std::string
Cell(double value, int digits, bool scientific = false);

/** text as a JSON string literal. */
std::string
JsonString(const std::string & text);

/** value as a JSON number (6 significant digits), or null when it is not finite (JSON has no NaN). */
std::string
JsonNumber(double value);

/** The "devices" (every OpenCL device) and "backends" (targets with their copy bandwidth) JSON members. */
void
WriteTargetsJson(std::ostream & out, const std::vector<Target> & targets);

/**
 * A file that appears under its final name only complete. The constructor
 * opens "<path>.partial-<pid>" in path's folder (and throws gpur::Error naming
 * path when it cannot, so that a benchmark opening its outputs at start-up
 * fails before its runs); Stream() writes there; Commit() flushes, checks that
 * every write succeeded (a full disk is an error) and renames the temporary
 * onto path, atomically (same folder). The destructor removes an uncommitted
 * temporary: an exception before Commit() leaves neither file.
 */
class OutputFile
{
public:
  /**
   * Opens the temporary next to path (binary: bytes written as they are). Throws gpur::Error when path is a folder
   * or the temporary cannot be created, gpur::InvalidArgument when path is empty.
   */
  explicit OutputFile(const std::string & path);
  /** Removes the temporary unless Commit() succeeded. */
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &
  operator=(const OutputFile &) = delete;

  /** Where to write the content (the temporary until Commit()). */
  std::ostream &
  Stream();

  /**
   * Closes the temporary and renames it onto Path(); throws gpur::Error on any
   * failure (the destructor then removes the temporary).
   */
  void
  Commit();

  /** The final name. */
  const std::string &
  Path() const;

  /** The temporary "<path>.partial-<pid>" that Stream() writes. */
  const std::string &
  TemporaryPath() const;

private:
  std::string m_Path;
  std::string m_TemporaryPath;
  std::ofstream m_Stream;
  bool m_Committed = false;
};

/** Writes `bytes` bytes from data as the file path through an OutputFile (raw data for peers: the --save options). */
void
WriteBinaryFile(const std::string & path, const void * data, std::size_t bytes);

/** Writes values as raw T (the machine's byte order) as the file path, through an OutputFile. */
template<typename T>
void
WriteBinaryFile(const std::string & path, const std::vector<T> & values)
{
  WriteBinaryFile(path, values.data(), values.size() * sizeof(T));
}

/**
 * Prints rows (rows[0] is the header) as aligned columns: the first
 * `leftColumns` columns left-aligned, the others right-aligned. A row shorter
 * than the header ends in a note (e.g. why it was skipped), printed as it is.
 */
void
PrintTable(std::ostream & out, const std::vector<std::vector<std::string>> & rows, std::size_t leftColumns);

} // namespace bench
} // namespace gpur

#endif
