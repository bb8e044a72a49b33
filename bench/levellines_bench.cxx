// SPDX-License-Identifier: Apache-2.0
// Level-line (PI-PD) denoising benchmark (issue 14, item 5): milliseconds per
// image of DenoiseLevelLines for 512^2, 1024^2 and 2048^2, and frames per
// second for a stack of 1920 x 1080 frames filtered in one call (the frames
// stay on the device), in PI-PD and hybrid mode [Perrot2013, §VI], on the CPU
// reference and on each OpenCL device. Each row gives the wall time (upload to
// download) and the kernel time alone (device events; the CPU reference's
// compute time), the PSNR reached on the noisy test image, and the bandwidth
// the kernel time implies under the byte model below as a fraction of the copy
// bandwidth measured in the same run. [Perrot2013] reports about 4 ms (PI-PD)
// and 12 ms (hybrid) per 512^2 image on a 2010 GPU. Peers (ITK's median and
// bilateral filters, BM3D, non-local means) are timed on the same images by
// bench/levellines_compare.py, which needs Python. Prints a table and writes JSON.
//
//   levellines_bench [--sizes 512,1024,2048] [--frames N] [--modes pipd,hybrid]
//                    [--devices SELECTION] [--repeats N] [--json FILE] [--quick]
#include "gpurBench.h"
#include "gpurCommandLine.h"
#include "gpurError.h"
#include "gpurGrid.h"
#include "gpurLevelLines.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

namespace
{

using gpur::bench::Format;
using gpur::bench::JsonString;
using gpur::bench::Target;

/** The noise of the benchmark images, on the 0-255 scale: the paper's sigma = 25 [Perrot2013, §VI]. */
constexpr double kSigma = 25.0;

/**
 * Bytes per pixel a PI-PD pass must move if every array is read or written
 * once: stage 1 reads the image (4) and writes the direction (1) and the two
 * sum pairs (16); stage 2 reads the image (4), the direction and sums (17) and
 * writes the output (4). The hybrid pass adds a read of the image and of the
 * PI-PD value and a write of the output (12). The segment ends of stage 2 are
 * gathered, so real traffic is higher: the fraction is an upper bound on how
 * memory-bound a run is.
 */
double
BytesPerPixel(gpur::LevelLinesMode mode)
{
  const double pipd = 4 + 1 + 16 + 4 + 17 + 4;
  return mode == gpur::LevelLinesMode::Hybrid ? pipd + 12 : pipd;
}

struct Options
{
  std::vector<unsigned> sizes{ 512, 1024, 2048 };
  unsigned frames = 16;
  std::vector<gpur::LevelLinesMode> modes{ gpur::LevelLinesMode::PIPD, gpur::LevelLinesMode::Hybrid };
  std::string devices;
  unsigned repeats = 0; // 0: repeat until 0.5 s of wall time (at least 3 runs)
  std::string json = "levellines_bench.json";
  bool quick = false;
};

struct Case
{
  std::string name;
  gpur::Grid grid;
  std::size_t frames = 1;
  std::vector<float> clean, noisy; // 0-255 scale
};

struct Row
{
  std::string case_, mode, target;
  std::size_t pixels = 0, frames = 1;
  unsigned runs = 0;
  double wallSeconds = 0, kernelSeconds = 0, psnrNoisy = 0, psnr = 0, meanLength = 0, bytesPerPixel = 0, copyGbps = 0;

  double
  Milliseconds() const
  {
    return 1e3 * wallSeconds / frames;
  }
  double
  KernelMilliseconds() const
  {
    return 1e3 * kernelSeconds / frames;
  }
  double
  FramesPerSecond() const
  {
    return frames / wallSeconds;
  }
  double
  KernelGbps() const
  {
    return bytesPerPixel * pixels / kernelSeconds / 1e9;
  }
};

unsigned
ParseSize(const std::string & text)
{
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
    throw gpur::cli::UsageError("--sizes: '" + text + "' is not a side length (16 to 16384)");
  const unsigned n = unsigned(std::stoul(text));
  if (n < 16 || n > 16384)
    throw gpur::cli::UsageError("--sizes: " + text + " is outside 16 to 16384");
  return n;
}

/** Returns false when --help was printed. */
bool
ParseOptions(int argc, char * argv[], Options & o)
{
  gpur::cli::Parser parser("levellines_bench",
                           "",
                           "Level-line (PI-PD) denoising: milliseconds per image and frames per second of a 1920x1080 "
                           "stack, on the CPU reference and each OpenCL device, with the copy bandwidth measured in "
                           "the same run. Prints a table and writes JSON.");
  std::string sizes = "512,1024,2048", modes = "pipd,hybrid";
  parser.AddString("--sizes", "LIST", "Comma-separated square image sides.", sizes);
  parser.AddUnsigned("--frames", "N", "Frames of the 1920x1080 stack (0: no stack).", o.frames, 0, 1024);
  parser.AddString("--modes", "LIST", "Comma-separated modes: pipd, hybrid.", modes);
  parser.AddString(
    "--devices", "SELECTION", "OpenCL devices (see itkgpurestoration-devices); default all; none.", o.devices);
  parser.AddUnsigned("--repeats", "N", "Timed runs per row (default: until 0.5 s, at least 3).", o.repeats, 0, 10000);
  parser.AddString("--json", "FILE", "Where to write the JSON results.", o.json);
  parser.AddSwitch("--quick", "Small sizes (128^2, two 480x270 frames) for smoke tests.", o.quick);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  o.sizes.clear();
  for (const auto & s : gpur::bench::SplitCommas(sizes))
    o.sizes.push_back(ParseSize(s));
  o.modes.clear();
  for (const auto & m : gpur::bench::SplitCommas(modes))
    try
    {
      o.modes.push_back(gpur::ParseLevelLinesMode(m));
    }
    catch (const gpur::InvalidArgument & e)
    {
      throw gpur::cli::UsageError(std::string("--modes: ") + e.what());
    }
  if (o.quick)
  {
    o.sizes = { 128 };
    o.frames = std::min(o.frames, 2u);
  }
  return true;
}

/**
 * A Shepp-Logan phantom on the 0-255 scale (flat regions, straight and curved
 * edges: what level lines follow) with Gaussian noise sigma = 25, clipped to
 * [0, 255] and rounded as an 8-bit camera would deliver it.
 */
Case
MakeCase(const std::string & name, std::size_t nx, std::size_t ny, std::size_t frames, std::uint64_t seed)
{
  Case c;
  c.name = name;
  c.frames = frames;
  c.grid = frames > 1 ? gpur::MakeGrid3D(nx, ny, frames) : gpur::MakeGrid2D(nx, ny);
  const gpur::Grid frame = gpur::MakeGrid2D(nx, ny);
  std::vector<float> one = gpur::SheppLoganPhantom(frame);
  for (float & v : one)
    v = 255.0f * v;
  c.clean.reserve(c.grid.Count());
  for (std::size_t k = 0; k < frames; ++k)
    c.clean.insert(c.clean.end(), one.begin(), one.end());
  c.noisy = gpur::AddGaussianNoise(c.clean, kSigma, seed);
  for (float & v : c.noisy)
    v = std::round(std::min(255.0f, std::max(0.0f, v)));
  return c;
}

std::vector<Case>
MakeCases(const Options & o)
{
  std::vector<Case> cases;
  for (unsigned n : o.sizes)
    cases.push_back(MakeCase(std::to_string(n) + "^2", n, n, 1, n));
  if (o.frames > 0)
  {
    const std::size_t nx = o.quick ? 480 : 1920, ny = o.quick ? 270 : 1080;
    cases.push_back(
      MakeCase(std::to_string(o.frames) + " x " + std::to_string(nx) + "x" + std::to_string(ny), nx, ny, o.frames, 7));
  }
  return cases;
}

std::vector<Target>
MakeTargets(const Options & o)
{
  const std::uint64_t copyBytes = o.quick ? gpur::bench::kQuickCopyBytes : gpur::bench::kCopyBytes;
  std::vector<Target> targets{ gpur::bench::CPUTarget(copyBytes) };
  for (const auto & d : gpur::bench::BenchDevices(o.devices))
    targets.push_back(gpur::bench::DeviceTarget({ d }, copyBytes));
  return targets;
}

/**
 * The median wall and kernel time of `repeats` runs (or as many as fill
 * 0.5 s, at least 3) after an untimed warm-up that builds the program. sigma
 * is given, so that the noise estimate (the same on every backend) is not timed.
 */
Row
Measure(const Case & c, gpur::LevelLinesMode mode, const Target & t, const Options & o)
{
  gpur::LevelLinesParameters parameters;
  parameters.mode = mode;
  parameters.noiseSigma = kSigma;
  std::vector<float> u(c.noisy.size());
  gpur::LevelLinesReport report =
    gpur::DenoiseLevelLines(c.noisy.data(), u.data(), c.grid, parameters, t.execution); // warm-up
  std::vector<double> wall, kernel;
  const double budget = o.quick ? 0.05 : 0.5;
  double spent = 0;
  while (o.repeats ? wall.size() < o.repeats : (wall.size() < 3 || spent < budget))
  {
    report = gpur::DenoiseLevelLines(c.noisy.data(), u.data(), c.grid, parameters, t.execution);
    wall.push_back(report.seconds);
    kernel.push_back(report.kernelSeconds);
    spent += report.seconds;
  }
  const auto median = [](std::vector<double> v)
  {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  Row r;
  r.case_ = c.name;
  r.mode = gpur::ToString(mode);
  r.target = t.name;
  r.pixels = c.grid.Count();
  r.frames = c.frames;
  r.runs = unsigned(wall.size());
  r.wallSeconds = median(wall);
  r.kernelSeconds = median(kernel);
  r.psnrNoisy = gpur::PeakSignalToNoiseRatio(c.noisy.data(), c.clean.data(), c.clean.size(), 255.0);
  r.psnr = gpur::PeakSignalToNoiseRatio(u.data(), c.clean.data(), c.clean.size(), 255.0);
  r.meanLength = report.meanLength;
  r.bytesPerPixel = BytesPerPixel(mode);
  r.copyGbps = t.copy.gbps;
  return r;
}

void
PrintTable(const std::vector<Row> & rows)
{
  std::vector<std::vector<std::string>> table{ { "case",
                                                 "mode",
                                                 "backend/device",
                                                 "runs",
                                                 "ms/frame",
                                                 "kernel ms",
                                                 "frames/s",
                                                 "PSNR noisy",
                                                 "PSNR",
                                                 "mean length",
                                                 "kernel GB/s",
                                                 "copy GB/s",
                                                 "fraction" } };
  for (const auto & r : rows)
    table.push_back({ r.case_,
                      r.mode,
                      r.target,
                      std::to_string(r.runs),
                      Format(r.Milliseconds(), 3),
                      Format(r.KernelMilliseconds(), 3),
                      Format(r.FramesPerSecond(), 1),
                      Format(r.psnrNoisy, 2),
                      Format(r.psnr, 2),
                      Format(r.meanLength, 1),
                      Format(r.KernelGbps(), 2),
                      Format(r.copyGbps, 2),
                      Format(r.KernelGbps() / r.copyGbps, 3) });
  gpur::bench::PrintTable(std::cout, table, 3);
}

void
WriteJson(std::ostream & out, const Options & o, const std::vector<Target> & targets, const std::vector<Row> & rows)
{
  out << std::setprecision(6);
  out << "{\n  \"benchmark\": \"levellines_bench\",\n  \"real\": \"float\",\n  \"sigma\": " << kSigma
      << ",\n  \"quick\": " << (o.quick ? "true" : "false") << ",\n"
      << "  \"timing\": \"median of the runs; wall = DenoiseLevelLines upload to download, kernel = device events "
         "(CPU: compute); sigma given, so the noise estimate is not timed\",\n"
      << "  \"model\": { \"description\": \"bytes per pixel if every array is read or written once\", "
         "\"PIPD\": "
      << BytesPerPixel(gpur::LevelLinesMode::PIPD) << ", \"Hybrid\": " << BytesPerPixel(gpur::LevelLinesMode::Hybrid)
      << " },\n";
  gpur::bench::WriteTargetsJson(out, targets);
  out << ",\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row & r = rows[i];
    out << (i ? "," : "") << "\n    { \"case\": " << JsonString(r.case_) << ", \"mode\": " << JsonString(r.mode)
        << ", \"backend\": " << JsonString(r.target) << ", \"pixels\": " << r.pixels << ", \"frames\": " << r.frames
        << ", \"runs\": " << r.runs << ", \"msPerFrame\": " << r.Milliseconds()
        << ", \"kernelMsPerFrame\": " << r.KernelMilliseconds() << ", \"framesPerSecond\": " << r.FramesPerSecond()
        << ", \"psnrNoisy\": " << r.psnrNoisy << ", \"psnr\": " << r.psnr << ", \"meanLength\": " << r.meanLength
        << ", \"bytesPerPixel\": " << r.bytesPerPixel << ", \"kernelGBps\": " << r.KernelGbps()
        << ", \"copyGBps\": " << r.copyGbps << ", \"bandwidthFraction\": " << r.KernelGbps() / r.copyGbps << " }";
  }
  out << "\n  ]\n}\n";
}

} // namespace

int
main(int argc, char * argv[])
{
  try
  {
    Options o;
    if (!ParseOptions(argc, argv, o))
      return 0;
    gpur::bench::OutputFile json(o.json); // opened now: a bad path fails before the runs
    for (const auto & d : gpur::ListDevices())
      std::cout << "device " << d.Describe() << "\n";
    const std::vector<Case> cases = MakeCases(o);
    const std::vector<Target> targets = MakeTargets(o);
    std::vector<Row> rows;
    for (const auto & c : cases)
      for (const auto mode : o.modes)
        for (const auto & t : targets)
        {
          std::cerr << "levellines_bench: " << c.name << " " << gpur::ToString(mode) << " on " << t.name << "...\n";
          rows.push_back(Measure(c, mode, t, o));
        }
    std::cout << "\n";
    PrintTable(rows);
    WriteJson(json.Stream(), o, targets, rows);
    json.Commit();
    std::cout << "\nwrote " << o.json << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "levellines_bench: " << e.what() << "\n";
    return 1;
  }
}
