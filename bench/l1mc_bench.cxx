// SPDX-License-Identifier: Apache-2.0
// L1-mean-curvature denoising benchmark (issue 13, item 6), laid out like
// [Myllykoski2015b, Tables 1-3]: average seconds per outer iteration of
// DenoiseL1MeanCurvature, whole and per subproblem (Sub #1 (p1, p2), Sub #2
// p3 (the direct solve or CG), Sub #3 shrinkage, Sub #4 PSCR, misc = multiplier updates and the
// objective/Lagrangian reductions) with each subproblem's share, on the CPU
// reference and on each OpenCL device, for square images of 256^2 ... 2048^2
// with uniformly distributed zero-mean noise of standard deviation sigma
// ([Myllykoski2015b, §5]: sigma = 0.1, half-width sigma * sqrt(3)), next to the
// copy bandwidth measured in the same run. Then what users choose on: the
// PSNR reached and the seconds it took, beside plain TV (gpur::DenoiseTV) at
// its PSNR-best lambda (a small sweep), on a piecewise-constant image and a
// natural-like one. Optionally the figures of another implementation run on the
// same input (--save-inputs writes it, --peer-* read its figures back) for a
// per-iteration and per-solve ratio. Prints tables and writes JSON.
//
//   l1mc_bench [--sizes 256,512,1024,2048] [--reals double,float] [--devices SELECTION]
//              [--max-iterations N] [--sigma S] [--quality-size N] [--save-inputs DIR]
//              [--peer-seconds-per-iteration 512=S,...] [--peer-iterations 512=N,...]
//              [--peer-name TEXT] [--json FILE] [--quick]
#include "gpurBench.h"
#include "gpurCommandLine.h"
#include "gpurError.h"
#include "gpurGrid.h"
#include "gpurL1MeanCurvature.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTVDenoiser.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

using gpur::bench::Cell;
using gpur::bench::Format;
using gpur::bench::JsonNumber;
using gpur::bench::JsonString;
using gpur::bench::Target;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kPi = std::acos(-1.0);

/**
 * Arrays of one outer iteration's state, for the "state passes" column: the
 * triangle fields p1, p2, p3, lambda1, lambda2 (four planes each) and the
 * vertex fields u, f, psi, lambda3 (one plane each). An iteration touches each
 * of them at least once, so its time over the time of reading and writing them
 * once at the copy bandwidth says how close to memory-bound it runs.
 */
constexpr unsigned kStatePlanes = 5 * 4 + 4;

struct Options
{
  std::string sizes; // empty: 256,512 (--quick: 64)
  std::string reals = "double";
  std::string devices;        // empty: every OpenCL device
  unsigned maxIterations = 0; // 0: the engine's default budget (--quick: 10)
  double sigma = 0.1;
  double r0 = 0.0;        // 0: from sigma
  double tolerance = 0.0; // 0: the engine's (L1MCParameters::tolerance)
  std::string sub2Solver = "direct";
  unsigned qualitySize = 0; // 0: 512 (--quick: 64)
  bool noQuality = false;
  bool noCPUReference = false;
  std::string saveInputs;
  std::string peerSecondsPerIteration, peerIterations;
  std::string peerName = "peer";
  std::string json = "l1mc_bench.json";
  bool quick = false;
};

/** A test image with its noisy version, both in [0, 1]-scaled units. */
struct Image
{
  std::string name; // "natural-like" or "piecewise-constant"
  std::size_t n = 0;
  std::vector<double> clean, noisy;
};

/** One row of the per-iteration table ([Myllykoski2015b, Tables 1-3]). */
struct Row
{
  std::string image, real, target;
  std::size_t n = 0;
  double r0 = kNaN;
  unsigned iterations = 0;
  bool converged = false;
  double seconds = kNaN;          // wall time of the solve
  gpur::L1MCTimings perIteration; // report.timings / iterations
  double cgSteps = kNaN;          // Sub #2's CG steps per outer iteration (mean; 0 with the direct solve)
  double newtonSuccess = kNaN;    // share of triangles where Sub #1's Newton candidate was accepted (mean)
  double psnrNoisy = kNaN, psnrOut = kNaN;
  double statePassSeconds = kNaN; // reading and writing the state once at the copy bandwidth
  std::string skipped;            // why the target could not run it; empty: it ran

  double
  SecondsPerIteration() const
  {
    return seconds / iterations;
  }
  double
  SubTotal() const
  {
    return perIteration.sub1 + perIteration.sub2 + perIteration.sub3 + perIteration.sub4 + perIteration.misc;
  }
};

/** One row of the time-to-PSNR table. */
struct QualityRow
{
  std::string image, real, target, method, parameter;
  std::size_t n = 0;
  unsigned iterations = 0;
  bool converged = false;
  double seconds = kNaN, psnrNoisy = kNaN, psnrOut = kNaN;
  std::string sweep; // TV: "lambda:PSNR" of every lambda tried
  std::string skipped;
};

/** Figures of another implementation for one size, as given on the command line. */
struct Peer
{
  double secondsPerIteration = kNaN;
  unsigned iterations = 0;
};

/** "512=0.33,1024=1.2" -> {512: 0.33, 1024: 1.2}. */
std::map<std::size_t, double>
ParseSizeMap(const std::string & option, const std::string & text)
{
  std::map<std::size_t, double> values;
  for (const std::string & item : gpur::bench::SplitCommas(text))
  {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw gpur::cli::UsageError(option + ": '" + item + "' is not SIZE=VALUE (e.g. 512=0.33)");
    values[gpur::cli::ParseUnsigned(option, item.substr(0, eq), 3, 65535)] =
      gpur::cli::ParsePositiveDouble(option, item.substr(eq + 1));
  }
  return values;
}

std::map<std::size_t, Peer>
ParsePeers(const Options & o)
{
  std::map<std::size_t, Peer> peers;
  for (const auto & e : ParseSizeMap("--peer-seconds-per-iteration", o.peerSecondsPerIteration))
    peers[e.first].secondsPerIteration = e.second;
  for (const auto & e : ParseSizeMap("--peer-iterations", o.peerIterations))
  {
    if (e.second != std::floor(e.second))
      throw gpur::cli::UsageError("--peer-iterations: " + Format(e.second, 3) + " is not a whole number");
    peers[e.first].iterations = static_cast<unsigned>(e.second);
  }
  return peers;
}

/** Returns false when --help was printed. */
bool
ParseOptions(int argc, char * argv[], Options & o)
{
  gpur::cli::Parser parser(
    "l1mc_bench",
    "",
    "L1-mean-curvature denoising: seconds per iteration, whole and per subproblem, on the CPU reference and each "
    "OpenCL device (as [Myllykoski2015b, Tables 1-3]), and PSNR reached and seconds beside TV at its best lambda. "
    "Prints tables and writes JSON.");
  parser.AddString(
    "--sizes", "LIST", "Square image sizes N (N^2 pixels), e.g. 256,512,1024,2048 (default 256,512).", o.sizes);
  parser.AddString("--reals", "LIST", "Precisions: double, float (default double, as [Myllykoski2015b]).", o.reals);
  parser.AddString(
    "--devices", "SELECTION", "OpenCL devices (see itkgpurestoration-devices); default all; none.", o.devices);
  parser.AddUnsigned("--max-iterations",
                     "N",
                     "Outer iteration budget of the per-iteration table's solves (default: the engine's, i.e. run "
                     "to convergence; per-iteration times need only a few, e.g. 5 for 2048^2 on a CPU). The "
                     "time-to-PSNR table always runs whole solves.",
                     o.maxIterations,
                     1,
                     gpur::bench::kMaxIterations);
  parser.AddDouble("--sigma",
                   "S",
                   "Standard deviation of the uniform zero-mean noise on [0, 1] images (default 0.1).",
                   o.sigma,
                   gpur::cli::ParsePositiveDouble);
  parser.AddDouble("--r0",
                   "R",
                   "The L1-mean-curvature knob r0 (default 0: from sigma by L1MCR0ForNoise; [Myllykoski2015b] used "
                   "0.005 at sigma 0.1).",
                   o.r0,
                   gpur::cli::ParseNonNegativeDouble);
  parser.AddUnsigned(
    "--quality-size", "N", "Size of the PSNR/seconds comparison with TV (default 512).", o.qualitySize, 3, 65535);
  parser.AddDouble("--tolerance",
                   "T",
                   "Stop on a relative change of the augmented Lagrangian below T (default 0: the engine's, 1e-4).",
                   o.tolerance,
                   gpur::cli::ParseNonNegativeDouble);
  parser.AddChoice("--sub2-solver",
                   "How L1 mean curvature solves Sub #2: direct (default) or cg (the paper's conjugate gradients).",
                   { "direct", "cg" },
                   o.sub2Solver);
  parser.AddSwitch("--no-quality", "Leave out the comparison with TV.", o.noQuality);
  parser.AddSwitch("--no-cpu", "Leave out the CPU reference (OpenCL devices only).", o.noCPUReference);
  parser.AddString("--save-inputs",
                   "DIR",
                   "Write every noisy and clean image as raw little-endian float64, x fastest "
                   "(DIR/l1mc_<image>_<N>_{noisy,clean}.f64), to run other implementations on the same input.",
                   o.saveInputs);
  parser.AddString("--peer-seconds-per-iteration",
                   "LIST",
                   "Another implementation's seconds per iteration on the natural-like image, SIZE=S,... "
                   "(e.g. 512=0.333); printed beside ours with the ratios.",
                   o.peerSecondsPerIteration);
  parser.AddString("--peer-iterations",
                   "LIST",
                   "Its outer iterations per solve on the same images, SIZE=N,... (for the per-solve ratio).",
                   o.peerIterations);
  parser.AddString("--peer-name", "TEXT", "How the peer rows are labelled (default 'peer').", o.peerName);
  parser.AddString("--json", "FILE", "Where to write the JSON results.", o.json);
  parser.AddSwitch("--quick", "64^2 images, at most 10 iterations, for smoke tests.", o.quick);
  if (!parser.Parse(argc, argv, std::cout, 0, 0))
    return false;
  ParsePeers(o); // throws UsageError for a malformed list
  for (const std::string & real : gpur::bench::SplitCommas(o.reals))
    gpur::cli::ParseChoice("--reals", real, { "double", "float" });
  return true;
}

/** The size of the comparison with TV. */
std::size_t
QualitySize(const Options & o)
{
  return o.qualitySize ? o.qualitySize : o.quick ? 64 : 512;
}

std::vector<std::size_t>
Sizes(const Options & o)
{
  std::vector<std::size_t> sizes;
  for (const std::string & s : gpur::bench::SplitCommas(!o.sizes.empty() ? o.sizes : o.quick ? "64" : "256,512"))
    sizes.push_back(gpur::cli::ParseUnsigned("--sizes", s, 3, 65535));
  if (sizes.empty())
    throw gpur::cli::UsageError("--sizes: no size given");
  return sizes;
}

/**
 * A natural-like test image in [0.05, 0.95] (the role of the photographs of
 * [Myllykoski2015b]: smooth shading, soft and hard edges, fine texture,
 * features at every scale), procedural so that every size has the same
 * content: an illumination gradient, a sum of smooth waves, two soft-edged
 * discs, a striped band (as Barbara's cloth) and a few thin lines.
 */
std::vector<double>
NaturalLikeImage(std::size_t n)
{
  std::vector<double> g(n * n);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i)
    {
      const double x = double(i) / double(n - 1), y = double(j) / double(n - 1);
      double v = 0.35 + 0.2 * x + 0.1 * y;
      v += 0.08 * std::sin(2 * kPi * (1.3 * x + 0.4 * y)) * std::cos(2 * kPi * 0.9 * y);
      const double d1 = std::hypot(x - 0.3, y - 0.35), d2 = std::hypot(x - 0.7, y - 0.7);
      v += 0.3 / (1 + std::exp((d1 - 0.18) * 60));   // a soft-edged bright disc
      v -= 0.25 / (1 + std::exp((d2 - 0.12) * 400)); // a sharper dark one
      if (y > 0.75 && y < 0.92 && x > 0.1 && x < 0.6)
        v += 0.12 * std::sin(2 * kPi * 24 * (x + 0.3 * y)); // fine stripes
      if (std::fabs(x - 0.82) < 0.004 + 0.5 / double(n) || std::fabs(y - 0.15 - 0.2 * x) < 0.003 + 0.5 / double(n))
        v += 0.2; // thin lines
      g[j * n + i] = std::min(0.95, std::max(0.05, v));
    }
  return g;
}

/** The piecewise-constant image: the Shepp-Logan phantom (gpurPhantom.h), in [0, 1]. */
std::vector<double>
PiecewiseConstantImage(std::size_t n)
{
  const std::vector<float> phantom = gpur::SheppLoganPhantom(gpur::MakeGrid2D(n, n));
  return std::vector<double>(phantom.begin(), phantom.end());
}

/** clean + uniform noise on [-sigma sqrt(3), sigma sqrt(3)] (std sigma), as [Myllykoski2015b, §5]. */
std::vector<double>
AddUniformNoise(const std::vector<double> & clean, double sigma, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  const double halfWidth = sigma * std::sqrt(3.0);
  std::uniform_real_distribution<double> noise(-halfWidth, halfWidth);
  std::vector<double> noisy(clean.size());
  for (std::size_t k = 0; k < clean.size(); ++k)
    noisy[k] = clean[k] + noise(rng);
  return noisy;
}

Image
MakeImage(const std::string & name, std::size_t n, double sigma)
{
  Image image;
  image.name = name;
  image.n = n;
  image.clean = name == "natural-like" ? NaturalLikeImage(n) : PiecewiseConstantImage(n);
  image.noisy = AddUniformNoise(image.clean, sigma, 1000 + n);
  return image;
}

void
SaveInputs(const Image & image, const std::string & directory)
{
  for (const bool noisy : { true, false })
  {
    const std::string path =
      directory + "/l1mc_" + image.name + "_" + std::to_string(image.n) + (noisy ? "_noisy" : "_clean") + ".f64";
    gpur::bench::WriteBinaryFile(path, noisy ? image.noisy : image.clean);
    std::cout << "wrote " << path << "\n";
  }
}

template<typename Real>
std::vector<Real>
Cast(const std::vector<double> & values)
{
  return std::vector<Real>(values.begin(), values.end());
}

/** PSNR of u against the clean image, peak 1 (the images are in [0, 1]). */
template<typename Real>
double
PSNR(const std::vector<Real> & u, const Image & image)
{
  const std::vector<Real> clean = Cast<Real>(image.clean);
  return gpur::PeakSignalToNoiseRatio(u.data(), clean.data(), u.size(), 1.0);
}

template<typename Real>
const char *
RealName()
{
  return std::is_same<Real, float>::value ? "float" : "double";
}

/**
 * One L1-mean-curvature solve (capped by --max-iterations unless `whole`) with r0 given (--r0) or chosen from the known
 * sigma (L1MCR0ForNoise), data range 1 (the images are [0, 1]-scaled) and the default mesh size h = 1 / (N - 1), as
 * [Myllykoski2015a, §5] and [Myllykoski2015b, §5].
 */
template<typename Real>
Row
RunL1MC(const Image & image, const Target & t, const Options & o, bool whole = false)
{
  Row r;
  r.image = image.name;
  r.real = RealName<Real>();
  r.target = t.name;
  r.n = image.n;
  const std::vector<Real> f = Cast<Real>(image.noisy);
  std::vector<Real> u(f.size());
  gpur::L1MCParameters parameters;
  parameters.noiseSigma = o.sigma;
  parameters.r0 = o.r0;
  parameters.dataRange = 1.0;
  parameters.sub2Solver = gpur::ParseL1MCSub2Solver(o.sub2Solver);
  if (o.tolerance > 0)
    parameters.tolerance = o.tolerance;
  if (o.maxIterations > 0 && !whole)
    parameters.maxIterations = o.maxIterations;
  else if (o.quick)
    parameters.maxIterations = 10;
  try
  {
    const gpur::L1MCReport report =
      gpur::DenoiseL1MeanCurvature(f.data(), u.data(), gpur::MakeGrid2D(image.n, image.n), parameters, t.execution);
    r.r0 = report.r0;
    r.iterations = report.iterations;
    r.converged = report.converged;
    r.seconds = report.seconds;
    const double k = report.iterations;
    r.perIteration.sub1 = report.timings.sub1 / k;
    r.perIteration.sub2 = report.timings.sub2 / k;
    r.perIteration.sub3 = report.timings.sub3 / k;
    r.perIteration.sub4 = report.timings.sub4 / k;
    r.perIteration.misc = report.timings.misc / k;
    double cg = 0.0, newton = 0.0;
    for (const gpur::L1MCIterationInfo & info : report.history)
    {
      cg += info.cgIterations;
      newton += info.newtonSuccess;
    }
    r.cgSteps = cg / k;
    r.newtonSuccess = newton / k;
    r.psnrNoisy = PSNR(f, image);
    r.psnrOut = PSNR(u, image);
    if (t.copy.gbps > 0)
      r.statePassSeconds = 2.0 * kStatePlanes * double(f.size()) * sizeof(Real) / (t.copy.gbps * 1e9);
  }
  catch (const gpur::InvalidArgument & e) // the device cannot take it: no fp64, too little memory
  {
    r.skipped = e.what();
  }
  return r;
}

/**
 * TV (gpur::DenoiseTV, its default method and gap tolerance) at the
 * PSNR-best lambda: a sweep over lambda = 2, 4, ..., 128 (factor 2), then the
 * two geometric midpoints around the best (factor sqrt 2). lambda multiplies
 * the fidelity term of ROF on the pixel grid (spacing 1); the best one for
 * sigma = 0.1 on [0, 1] images lies well inside that range. The sweep runs on
 * `sweepTarget`; the best lambda is then timed on `t`.
 */
template<typename Real>
double
BestTVLambda(const Image & image, const Target & sweepTarget, std::string & sweep)
{
  const std::vector<Real> f = Cast<Real>(image.noisy);
  std::vector<Real> u(f.size());
  const gpur::Grid grid = gpur::MakeGrid2D(image.n, image.n);
  std::map<double, double> psnr; // lambda -> PSNR
  auto evaluate = [&](double lambda)
  {
    if (psnr.count(lambda))
      return;
    gpur::TVParameters parameters;
    parameters.lambda = lambda;
    gpur::DenoiseTV(f.data(), u.data(), grid, parameters, sweepTarget.execution);
    psnr[lambda] = PSNR(u, image);
  };
  for (double lambda = 2; lambda <= 128; lambda *= 2)
    evaluate(lambda);
  auto best = [&]
  {
    return std::max_element(
             psnr.begin(), psnr.end(), [](const auto & a, const auto & b) { return a.second < b.second; })
      ->first;
  };
  const double coarse = best();
  evaluate(coarse / std::sqrt(2.0));
  evaluate(coarse * std::sqrt(2.0));
  std::ostringstream s;
  for (const auto & e : psnr)
    s << (s.tellp() > 0 ? " " : "") << Format(e.first, 2) << ":" << Format(e.second, 2);
  sweep = s.str();
  return best();
}

template<typename Real>
QualityRow
RunTV(const Image & image, const Target & t, double lambda, const std::string & sweep)
{
  QualityRow q;
  q.image = image.name;
  q.real = RealName<Real>();
  q.target = t.name;
  q.n = image.n;
  q.method = "TV (" + std::string(gpur::ToString(gpur::TVParameters().algorithm)) + ")";
  q.parameter = "lambda " + Format(lambda, 2);
  q.sweep = sweep;
  const std::vector<Real> f = Cast<Real>(image.noisy);
  std::vector<Real> u(f.size());
  gpur::TVParameters parameters;
  parameters.lambda = lambda;
  try
  {
    const gpur::TVReport report =
      gpur::DenoiseTV(f.data(), u.data(), gpur::MakeGrid2D(image.n, image.n), parameters, t.execution);
    q.iterations = report.iterations;
    q.converged = report.converged;
    q.seconds = report.seconds;
    q.psnrNoisy = PSNR(f, image);
    q.psnrOut = PSNR(u, image);
  }
  catch (const gpur::InvalidArgument & e)
  {
    q.skipped = e.what();
  }
  return q;
}

QualityRow
QualityOf(const Row & r)
{
  QualityRow q;
  q.image = r.image;
  q.real = r.real;
  q.target = r.target;
  q.n = r.n;
  q.method = "L1 mean curvature";
  q.parameter = "r0 " + Format(r.r0, 4);
  q.iterations = r.iterations;
  q.converged = r.converged;
  q.seconds = r.seconds;
  q.psnrNoisy = r.psnrNoisy;
  q.psnrOut = r.psnrOut;
  q.skipped = r.skipped;
  return q;
}

/**
 * Runs, in one precision: the per-iteration rows (natural-like image, every
 * size and target) and the quality rows (both images at the quality size,
 * L1MC beside TV at its best lambda on every target; the natural-like
 * L1MC solve is shared with the per-iteration table when the sizes agree).
 */
template<typename Real>
void
RunPrecision(const Options & o,
             const std::vector<std::size_t> & sizes,
             const std::vector<Target> & targets,
             std::vector<Row> & rows,
             std::vector<QualityRow> & quality)
{
  const std::string real = RealName<Real>();
  for (const std::size_t n : sizes)
  {
    const Image image = MakeImage("natural-like", n, o.sigma);
    for (const Target & t : targets)
    {
      std::cerr << "l1mc_bench: " << image.name << " " << n << "^2 " << real << " on " << t.name << "...\n";
      rows.push_back(RunL1MC<Real>(image, t, o));
    }
  }
  if (o.noQuality)
    return;
  const std::size_t n = QualitySize(o);
  for (const std::string name : { "piecewise-constant", "natural-like" })
  {
    const Image image = MakeImage(name, n, o.sigma);
    std::cerr << "l1mc_bench: TV lambda sweep on " << name << " " << n << "^2 " << real << "...\n";
    std::string sweep;
    const double lambda = BestTVLambda<Real>(image, targets.back(), sweep);
    for (const Target & t : targets)
    {
      const auto shared = std::find_if(rows.begin(),
                                       rows.end(),
                                       [&](const Row & r)
                                       { return r.image == name && r.n == n && r.real == real && r.target == t.name; });
      std::cerr << "l1mc_bench: quality " << name << " " << n << "^2 " << real << " on " << t.name << "...\n";
      // The time-to-PSNR table compares whole solves: --max-iterations caps only the per-iteration table.
      const bool reuse = shared != rows.end() && (o.maxIterations == 0 || shared->converged);
      quality.push_back(QualityOf(reuse ? *shared : RunL1MC<Real>(image, t, o, true)));
      quality.push_back(RunTV<Real>(image, t, lambda, sweep));
    }
  }
}

/** "0.0123 (45%)": seconds per iteration and share of the subproblems' sum. */
std::string
Share(double seconds, double total)
{
  return Format(seconds, 4) + " (" + Format(100.0 * seconds / total, 0) + "%)";
}

/**
 * One iteration per target, size and precision before any timing (and two of
 * TV at the quality size), so that the OpenCL program build is not in the
 * solve times: PoCL compiles a kernel on its first launch with each work-group
 * size, and those depend on the image size (then caches them on disk, so that
 * a second run of the benchmark would otherwise differ from the first).
 */
void
WarmUp(const Target & t,
       const std::vector<std::size_t> & sizes,
       const std::vector<std::string> & reals,
       std::size_t qualitySize)
{
  if (qualitySize > 0) // TV's kernels for the time-to-PSNR table
  {
    const std::size_t n = qualitySize;
    for (const std::string & real : reals)
    {
      gpur::TVParameters parameters;
      parameters.maxIterations = 2;
      try
      {
        if (real == "double")
        {
          std::vector<double> f(n * n, 0.5), u(n * n);
          gpur::DenoiseTV(f.data(), u.data(), gpur::MakeGrid2D(n, n), parameters, t.execution);
        }
        else
        {
          std::vector<float> f(n * n, 0.5f), u(n * n);
          gpur::DenoiseTV(f.data(), u.data(), gpur::MakeGrid2D(n, n), parameters, t.execution);
        }
      }
      catch (const gpur::InvalidArgument &)
      {
      }
    }
  }
  for (const std::size_t n : sizes)
  {
    std::vector<double> f(n * n), u(n * n);
    for (std::size_t i = 0; i < f.size(); ++i)
      f[i] = double((i * 37) % 11) / 10.0;
    gpur::L1MCParameters parameters;
    parameters.r0 = 0.01;
    parameters.dataRange = 1.0;
    parameters.maxIterations = 1;
    try
    {
      for (const std::string & real : reals)
      {
        if (real == "double")
        {
          gpur::DenoiseL1MeanCurvature(f.data(), u.data(), gpur::MakeGrid2D(n, n), parameters, t.execution);
          continue;
        }
        std::vector<float> ff(f.begin(), f.end()), uf(n * n);
        gpur::DenoiseL1MeanCurvature(ff.data(), uf.data(), gpur::MakeGrid2D(n, n), parameters, t.execution);
      }
    }
    catch (const gpur::InvalidArgument &) // the device cannot take it (no fp64): RunL1MC reports it as skipped
    {
    }
  }
}

void
PrintRows(const std::vector<Row> & rows)
{
  std::vector<std::vector<std::string>> table{ { "image",
                                                 "real",
                                                 "backend/device",
                                                 "r0",
                                                 "iter",
                                                 "conv",
                                                 "solve s",
                                                 "whole s/it",
                                                 "Sub #1",
                                                 "Sub #2",
                                                 "Sub #3",
                                                 "Sub #4",
                                                 "Misc",
                                                 "CG/it",
                                                 "Newton",
                                                 "state passes",
                                                 "PSNR in->out" } };
  for (const Row & r : rows)
  {
    const std::string image = r.image + " " + std::to_string(r.n) + "^2";
    if (!r.skipped.empty())
    {
      table.push_back({ image, r.real, r.target, "skipped: " + r.skipped });
      continue;
    }
    const double total = r.SubTotal();
    table.push_back({ image,
                      r.real,
                      r.target,
                      Format(r.r0, 4),
                      std::to_string(r.iterations),
                      r.converged ? "yes" : "no",
                      Format(r.seconds, 2),
                      Format(r.SecondsPerIteration(), 4),
                      Share(r.perIteration.sub1, total),
                      Share(r.perIteration.sub2, total),
                      Share(r.perIteration.sub3, total),
                      Share(r.perIteration.sub4, total),
                      Share(r.perIteration.misc, total),
                      Format(r.cgSteps, 1),
                      Format(100.0 * r.newtonSuccess, 2) + "%",
                      Cell(r.SecondsPerIteration() / r.statePassSeconds, 1),
                      Format(r.psnrNoisy, 2) + "->" + Format(r.psnrOut, 2) });
  }
  gpur::bench::PrintTable(std::cout, table, 3);
}

void
PrintQuality(const std::vector<QualityRow> & quality)
{
  std::vector<std::vector<std::string>> table{
    { "image", "real", "backend/device", "method", "parameter", "iter", "conv", "seconds", "PSNR noisy", "PSNR out" }
  };
  for (const QualityRow & q : quality)
  {
    const std::string image = q.image + " " + std::to_string(q.n) + "^2";
    if (!q.skipped.empty())
      table.push_back({ image, q.real, q.target, q.method, "skipped: " + q.skipped });
    else
      table.push_back({ image,
                        q.real,
                        q.target,
                        q.method,
                        q.parameter,
                        std::to_string(q.iterations),
                        q.converged ? "yes" : "no",
                        Format(q.seconds, 3),
                        Format(q.psnrNoisy, 2),
                        Format(q.psnrOut, 2) });
  }
  gpur::bench::PrintTable(std::cout, table, 5);
  for (const QualityRow & q : quality)
    if (!q.sweep.empty() && q.target == quality.front().target)
      std::cout << "TV sweep (lambda:PSNR) on " << q.image << " " << q.n << "^2 " << q.real << ": " << q.sweep << "\n";
}

/**
 * Ours against the peer's figures, per size, for every row of that size: per
 * iteration from the per-iteration table, per solve from a whole solve of the
 * same image and target (the time-to-PSNR table's, or the row itself when it
 * converged; "-" when there is none: a capped run is no solve).
 */
void
PrintPeer(const std::vector<Row> & rows,
          const std::vector<QualityRow> & quality,
          const std::map<std::size_t, Peer> & peers,
          const std::string & peerName)
{
  std::vector<std::vector<std::string>> table{ { "size",
                                                 "real",
                                                 "backend/device",
                                                 "s/it",
                                                 "solve iter",
                                                 "solve s",
                                                 peerName + " iter",
                                                 peerName + " s/it",
                                                 peerName + " solve s",
                                                 "x per iteration",
                                                 "x per solve" } };
  for (const Row & r : rows)
  {
    const auto p = peers.find(r.n);
    if (p == peers.end() || !r.skipped.empty())
      continue;
    unsigned solveIterations = r.converged ? r.iterations : 0;
    double solveSeconds = r.converged ? r.seconds : kNaN;
    for (const QualityRow & q : quality)
      if (q.method == "L1 mean curvature" && q.image == r.image && q.n == r.n && q.real == r.real &&
          q.target == r.target && q.converged && q.skipped.empty())
      {
        solveIterations = q.iterations;
        solveSeconds = q.seconds;
      }
    const double peerSolve = p->second.iterations ? p->second.secondsPerIteration * p->second.iterations : kNaN;
    table.push_back({ std::to_string(r.n) + "^2",
                      r.real,
                      r.target,
                      Format(r.SecondsPerIteration(), 4),
                      solveIterations ? std::to_string(solveIterations) : "-",
                      Cell(solveSeconds, 2),
                      p->second.iterations ? std::to_string(p->second.iterations) : "-",
                      Cell(p->second.secondsPerIteration, 4),
                      Cell(peerSolve, 2),
                      Cell(p->second.secondsPerIteration / r.SecondsPerIteration(), 2),
                      Cell(peerSolve / solveSeconds, 2) });
  }
  if (table.size() > 1)
    gpur::bench::PrintTable(std::cout, table, 3);
}

void
WriteJson(std::ostream & out,
          const Options & o,
          const std::vector<Target> & targets,
          const std::vector<Row> & rows,
          const std::vector<QualityRow> & quality,
          const std::map<std::size_t, Peer> & peers)
{
  out << "{\n  \"benchmark\": \"l1mc_bench\",\n  \"quick\": " << (o.quick ? "true" : "false")
      << ",\n  \"noise\": \"uniform, zero mean, standard deviation sigma (half-width sigma*sqrt(3)), images in [0, 1]\""
      << ",\n  \"sigma\": " << o.sigma << ",\n  \"sub2Solver\": " << JsonString(o.sub2Solver)
      << ",\n  \"parameters\": \"r0 = --r0, else L1MCR0ForNoise(sigma); dataRange 1, h = 1/(N-1), tolerance and budget "
         "as "
         "L1MCParameters unless --max-iterations\""
      << ",\n  \"timing\": \"solveSeconds: wall time of DenoiseL1MeanCurvature (upload to download); "
         "secondsPerIteration = solveSeconds / iterations; perIteration: L1MCReport::timings / iterations (OpenCL: "
         "device events)\""
      << ",\n  \"statePasses\": \"secondsPerIteration / (read + write of " << kStatePlanes
      << " image-sized arrays at the copy bandwidth)\",\n";
  gpur::bench::WriteTargetsJson(out, targets);
  out << ",\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row & r = rows[i];
    const gpur::L1MCTimings & t = r.perIteration;
    out << (i ? "," : "") << "\n    { \"image\": " << JsonString(r.image) << ", \"n\": " << r.n
        << ", \"real\": " << JsonString(r.real) << ", \"backend\": " << JsonString(r.target)
        << ", \"r0\": " << JsonNumber(r.r0) << ", \"iterations\": " << r.iterations
        << ", \"converged\": " << (r.converged ? "true" : "false") << ", \"solveSeconds\": " << JsonNumber(r.seconds)
        << ", \"secondsPerIteration\": " << JsonNumber(r.SecondsPerIteration())
        << ", \"perIteration\": { \"sub1\": " << JsonNumber(t.sub1) << ", \"sub2\": " << JsonNumber(t.sub2)
        << ", \"sub3\": " << JsonNumber(t.sub3) << ", \"sub4\": " << JsonNumber(t.sub4)
        << ", \"misc\": " << JsonNumber(t.misc) << " }"
        << ", \"cgStepsPerIteration\": " << JsonNumber(r.cgSteps)
        << ", \"newtonSuccess\": " << JsonNumber(r.newtonSuccess)
        << ", \"statePasses\": " << JsonNumber(r.SecondsPerIteration() / r.statePassSeconds)
        << ", \"psnrNoisy\": " << JsonNumber(r.psnrNoisy) << ", \"psnrOut\": " << JsonNumber(r.psnrOut)
        << ", \"skipped\": " << (r.skipped.empty() ? "null" : JsonString(r.skipped)) << " }";
  }
  out << "\n  ],\n  \"quality\": [";
  for (std::size_t i = 0; i < quality.size(); ++i)
  {
    const QualityRow & q = quality[i];
    out << (i ? "," : "") << "\n    { \"image\": " << JsonString(q.image) << ", \"n\": " << q.n
        << ", \"real\": " << JsonString(q.real) << ", \"backend\": " << JsonString(q.target)
        << ", \"method\": " << JsonString(q.method) << ", \"parameter\": " << JsonString(q.parameter)
        << ", \"iterations\": " << q.iterations << ", \"converged\": " << (q.converged ? "true" : "false")
        << ", \"seconds\": " << JsonNumber(q.seconds) << ", \"psnrNoisy\": " << JsonNumber(q.psnrNoisy)
        << ", \"psnrOut\": " << JsonNumber(q.psnrOut) << ", \"lambdaSweep\": " << JsonString(q.sweep)
        << ", \"skipped\": " << (q.skipped.empty() ? "null" : JsonString(q.skipped)) << " }";
  }
  out << "\n  ],\n  \"peer\": { \"name\": " << JsonString(o.peerName) << ", \"figures\": [";
  bool first = true;
  for (const auto & p : peers)
  {
    out << (first ? "" : ",") << "\n    { \"n\": " << p.first
        << ", \"secondsPerIteration\": " << JsonNumber(p.second.secondsPerIteration)
        << ", \"iterations\": " << p.second.iterations << " }";
    first = false;
  }
  out << "\n  ] }\n}\n";
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
    const std::vector<std::size_t> sizes = Sizes(o);
    const std::map<std::size_t, Peer> peers = ParsePeers(o);
    gpur::bench::OutputFile json(o.json); // opened now: a bad path fails before the runs
    const std::uint64_t copyBytes = o.quick ? gpur::bench::kQuickCopyBytes : gpur::bench::kCopyBytes;
    std::vector<Target> targets;
    if (!o.noCPUReference)
      targets.push_back(gpur::bench::CPUTarget(copyBytes));
    for (const auto & d : gpur::bench::BenchDevices(o.devices))
      targets.push_back(gpur::bench::DeviceTarget({ d }, copyBytes));
    if (targets.empty())
      throw gpur::Error("nothing to run: --no-cpu and no OpenCL device");
    const std::size_t qualitySize = o.noQuality ? 0 : QualitySize(o);
    std::vector<std::size_t> warmSizes = sizes;
    if (qualitySize > 0)
      warmSizes.push_back(qualitySize);
    for (const Target & t : targets)
      WarmUp(t, warmSizes, gpur::bench::SplitCommas(o.reals), qualitySize);
    for (const Target & t : targets)
      std::cout << "copy bandwidth of " << t.name << ": " << Format(t.copy.gbps, 2) << " GB/s (" << t.copy.method
                << ")\n";
    std::cout << "noise: uniform, sigma " << o.sigma << " (half-width " << Format(o.sigma * std::sqrt(3.0), 4)
              << "), images in [0, 1]; r0 " << (o.r0 > 0 ? Format(o.r0, 4) : std::string("from sigma"))
              << ", h = 1/(N-1), Sub #2 " << o.sub2Solver << "\n";
    if (!o.saveInputs.empty())
    {
      for (const std::size_t n : sizes)
        SaveInputs(MakeImage("natural-like", n, o.sigma), o.saveInputs);
      if (!o.noQuality)
      {
        const std::size_t n = QualitySize(o);
        SaveInputs(MakeImage("piecewise-constant", n, o.sigma), o.saveInputs);
        SaveInputs(MakeImage("natural-like", n, o.sigma), o.saveInputs);
      }
    }

    std::vector<Row> rows;
    std::vector<QualityRow> quality;
    for (const std::string & real : gpur::bench::SplitCommas(o.reals))
    {
      if (real == "float")
        RunPrecision<float>(o, sizes, targets, rows, quality);
      else
        RunPrecision<double>(o, sizes, targets, rows, quality);
    }
    std::cout << "\nSeconds per outer iteration, whole (wall time of the solve / iterations) and per subproblem "
                 "(share of their sum), natural-like image:\n";
    PrintRows(rows);
    if (!quality.empty())
    {
      std::cout << "\nPSNR reached and seconds of the whole solve (L1 mean curvature at the r0 given or "
                   "from sigma; TV at its PSNR-best lambda):\n";
      PrintQuality(quality);
    }
    if (!peers.empty())
    {
      std::cout << "\nAgainst " << o.peerName << " (its figures as given; ratios > 1: ours faster):\n";
      PrintPeer(rows, quality, peers, o.peerName);
    }
    WriteJson(json.Stream(), o, targets, rows, quality, peers);
    json.Commit();
    std::cout << "\nwrote " << o.json << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "l1mc_bench: " << e.what() << "\n";
    return 1;
  }
}
