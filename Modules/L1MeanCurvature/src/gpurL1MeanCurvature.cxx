// SPDX-License-Identifier: Apache-2.0
// Driver of the L1-mean-curvature engine (gpurL1MeanCurvature.h): units,
// parameters, the backend, and [Myllykoski2015a, Algorithm 1]'s outer loop
// on the core's run loop (RunSteps) with its stopping rule (eq. (4.5)).
#include "gpurL1MeanCurvature.h"

#include "gpurAutoBackend.h"
#include "gpurIterativeDriver.h"
#include "gpurL1MCStepper.h"
#include "gpurL1MCTriangle.h"
#include "gpurNoiseEstimation.h"
#include "gpurText.h"
#include "gpurValidate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace gpur
{

const char *
ToString(L1MCInitialization initialization)
{
  return initialization == L1MCInitialization::Data ? "Data" : "Zero";
}

L1MCInitialization
ParseL1MCInitialization(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "zero")
    return L1MCInitialization::Zero;
  if (lower == "data")
    return L1MCInitialization::Data;
  throw InvalidArgument("unknown L1-mean-curvature initialization '" + text + "'; use zero or data");
}

const char *
ToString(L1MCCornerMass cornerMass)
{
  return cornerMass == L1MCCornerMass::Separable ? "Separable" : "Exact";
}

const char *
ToString(L1MCSub2Solver solver)
{
  return solver == L1MCSub2Solver::ConjugateGradient ? "ConjugateGradient" : "Direct";
}

L1MCSub2Solver
ParseL1MCSub2Solver(const std::string & text)
{
  const std::string lower = ToLower(text);
  if (lower == "direct")
    return L1MCSub2Solver::Direct;
  if (lower == "cg" || lower == "conjugate-gradient" || lower == "conjugategradient")
    return L1MCSub2Solver::ConjugateGradient;
  throw InvalidArgument("unknown L1-mean-curvature Sub #2 solver '" + text + "'; use direct or cg");
}

namespace
{

void
RequireNonNegative(double value, const char * name, const char * zeroMeans)
{
  if (!std::isfinite(value) || value < 0.0)
  {
    std::ostringstream message;
    message << "L1-mean-curvature: " << name << " is " << value << "; it must be finite and >= 0 (0: " << zeroMeans
            << ")";
    throw InvalidArgument(message.str());
  }
}

} // namespace

void
L1MCParameters::Validate() const
{
  RequireNonNegative(r0, "r0", "chosen from the noise level");
  RequireNonNegative(noiseSigma, "noiseSigma", "estimated from the image");
  RequireNonNegative(meshSize, "meshSize (h)", "1 / (max(width, height) - 1)");
  RequireNonNegative(dataRange, "dataRange", "max(f) - min(f)");
  RequireNonNegative(epsilon, "epsilon", "r0 h");
  RequireNonNegative(r1, "r1", "10 r0 h");
  RequireNonNegative(r2, "r2", "5 r0");
  RequireNonNegative(r3, "r3", "5 r0 h^2");
  if (maxIterations < 1)
    throw InvalidArgument("L1-mean-curvature: maxIterations is 0; it must be >= 1");
  if (!std::isfinite(tolerance) || !(tolerance > 0.0) || tolerance >= 1.0)
  {
    std::ostringstream message;
    message << "L1-mean-curvature: tolerance is " << tolerance
            << "; it must be in (0, 1) (the relative change of the augmented Lagrangian that stops the run)";
    throw InvalidArgument(message.str());
  }
  if (initialization != L1MCInitialization::Zero && initialization != L1MCInitialization::Data)
    throw InvalidArgument("L1-mean-curvature: unknown initialization; use Zero or Data");
  if (cornerMass != L1MCCornerMass::Exact && cornerMass != L1MCCornerMass::Separable)
    throw InvalidArgument("L1-mean-curvature: unknown corner mass; use Exact or Separable");
  if (sub2Solver != L1MCSub2Solver::Direct && sub2Solver != L1MCSub2Solver::ConjugateGradient)
    throw InvalidArgument("L1-mean-curvature: unknown Sub #2 solver; use Direct or ConjugateGradient");
}

double
L1MCR0ForNoise(double normalizedSigma)
{
  if (!std::isfinite(normalizedSigma) || !(normalizedSigma > 0.0))
  {
    std::ostringstream message;
    message << "L1-mean-curvature: the normalised noise level sigma / dataRange is " << normalizedSigma
            << "; it must be finite and > 0";
    throw InvalidArgument(message.str());
  }
  // A power law fitted (least squares in log-log: slope 1.76, r0 = 0.00512 at sigma = 0.1, rounded) to
  // the PSNR-optimal r0 of four photographs at 256 x 256 with Gaussian and uniform noise, sigma = 0.025 to
  // 0.2 (examples/l1mc_r0_calibration.py). It passes within 20 % of the choices of [Myllykoski2015a,
  // Table 1] for p = 0.1, 0.2, 0.4 (sigma = p / sqrt(3)) and gives half the table's 0.001 at p = 0.05
  // (interpolating the table, whose slope is 1 there, lost 1 to 1.6 dB at sigma = 0.025).
  return 0.005 * std::pow(normalizedSigma / 0.1, 1.75);
}

template<>
const char *
L1MCPrecisionName<float>()
{
  return "float32";
}
template<>
const char *
L1MCPrecisionName<double>()
{
  return "float64";
}

namespace
{

/** Throws InvalidArgument unless the grid is a 2D image of at least 3 x 3 pixels. */
void
ValidateGrid(const Grid & grid)
{
  grid.Validate();
  if (grid.dimension != 2 || grid.size[2] != 1)
  {
    throw InvalidArgument("L1-mean-curvature denoising is for 2D images; the grid is " + grid.ToString() +
                          " (dimension " + std::to_string(grid.dimension) + ")");
  }
  if (grid.size[0] < 3 || grid.size[1] < 3)
  {
    throw InvalidArgument("L1-mean-curvature denoising needs at least 3 x 3 pixels (the triangulation must have "
                          "interior vertices); the image is " +
                          grid.ToString());
  }
}

/** The mesh: h (given or 1 / (max(nx, ny) - 1)) times spacing / min(spacing) per axis. */
l1mc::Mesh
MakeMesh(const Grid & grid, double h)
{
  l1mc::Mesh mesh;
  mesh.nx = grid.size[0];
  mesh.ny = grid.size[1];
  const double smin = std::min(grid.spacing[0], grid.spacing[1]);
  mesh.hx = h * grid.spacing[0] / smin;
  mesh.hy = h * grid.spacing[1] / smin;
  return mesh;
}

/** R = 1/2 ||a - b|| / max(||a||, ||b||) [Myllykoski2015a, eq. (5.5)], 0 when both vanish. */
double
RelativeMisfit(double difference, double a, double b)
{
  const double scale = std::sqrt(std::max(a, b));
  return scale > 0.0 ? 0.5 * std::sqrt(difference) / scale : 0.0;
}

template<typename Real>
AutoProbe
MakeAutoProbe(const Real * f, const Grid & grid, const l1mc::Constants & constants, const ExecutionOptions & execution)
{
  AutoProbe probe;
  probe.family = "L1-mean-curvature";
  probe.precision = L1MCPrecisionName<Real>();
  // One outer iteration costs about as much as 100 TV steps: a smaller leading part (at least 3 rows).
  Grid part = LeadingPart(grid, kAutoProbeVoxels / 16);
  part.size[1] = std::min(grid.size[1], std::max<std::size_t>(part.size[1], 3));
  probe.grid = part;
  probe.prepare = [f, constants, execution, part](const ResolvedBackend & candidate)
  {
    l1mc::Constants c = constants;
    c.mesh.ny = part.size[1];
    std::shared_ptr<l1mc::Stepper<Real>> stepper(candidate.backend == Backend::OpenCL
                                                   ? l1mc::MakeStepperOpenCL(f, c, candidate, execution)
                                                   : l1mc::MakeStepperCPU(f, c, execution));
    stepper->Initialize();
    return [stepper](unsigned steps)
    {
      for (unsigned i = 0; i < steps; ++i)
        stepper->Iterate();
    };
  };
  return probe;
}

/**
 * The stopping test: the relative change of L_rh below the tolerance
 * [Myllykoski2015a, eq. (4.5)] and, our addition, every constraint residual
 * R1-R3 below kL1MCConstraintTolerance. Without the second condition a run
 * could stop while the multipliers were still far from balance: on smooth
 * photographs at large r0 L_rh pauses within the first iterations (scikit-
 * image's moon at 256^2, Gaussian noise 0.2, r0 = 0.021: relative change
 * 9e-5 at iteration 7 with R1 = 0.34 and R3 = 0.47, PSNR 27.3 dB; going on
 * to R1-R3 < 0.05 takes 57 iterations and reaches 31.6 dB). Runs whose
 * L_rh settles late (all the paper's experiments) end with R1-R3 near 0.01
 * or below and are not affected.
 */
bool
Stationary(const L1MCIterationInfo & info, double tolerance)
{
  return info.relativeChange < tolerance && info.r1Residual < kL1MCConstraintTolerance &&
         info.r2Residual < kL1MCConstraintTolerance && info.r3Residual < kL1MCConstraintTolerance;
}

template<typename Real>
void
RequireFiniteSums(const l1mc::Sums & sums, unsigned iteration)
{
  const double values[] = { sums.psiMass, sums.fidelity, sums.penaltyQ, sums.penaltyV, sums.curvatureMass };
  for (double v : values)
  {
    if (!std::isfinite(v))
    {
      throw NumericalError("L1-mean-curvature: the iteration produced non-finite values at iteration " +
                           std::to_string(iteration) + "; no result is returned");
    }
  }
}

} // namespace

template<typename Real>
L1MCReport
DenoiseL1MeanCurvature(const Real * f,
                       Real * u,
                       const Grid & grid,
                       const L1MCParameters & parameters,
                       const ExecutionOptions & execution,
                       const ProgressCallback & progress,
                       const L1MCIterationCallback & iteration)
{
  if (f == nullptr || u == nullptr)
    throw InvalidArgument("L1-mean-curvature: the input or output array is null");
  ValidateGrid(grid);
  parameters.Validate();
  const std::size_t n = grid.Count();
  RequireFinite(f, n, "the input image");

  L1MCReport report;
  // Units: the model sees (f - min f) / dataRange (see the header).
  const auto range = std::minmax_element(f, f + n);
  const double offset = double(*range.first);
  const double span = double(*range.second) - offset;
  report.dataRange = parameters.dataRange > 0.0 ? parameters.dataRange : span;
  const std::size_t longest = std::max(grid.size[0], grid.size[1]);
  report.meshSize = parameters.meshSize > 0.0 ? parameters.meshSize : 1.0 / double(longest - 1);
  if (!(span > 0.0))
  {
    // A constant image is its own denoised image (every term of J vanishes at u = f).
    std::copy(f, f + n, u);
    report.converged = true;
    report.warnings.push_back("the image is constant: the result is the input");
    report.backend.reason = "constant image: nothing to solve";
    return report;
  }
  if (parameters.r0 > 0.0)
  {
    report.r0 = parameters.r0;
  }
  else
  {
    report.sigmaEstimated = !(parameters.noiseSigma > 0.0);
    report.noiseSigma =
      report.sigmaEstimated
        ? EstimateNoiseSigma(f, grid, NoiseEstimationOptions(), ResolveParallelFor(execution.parallelFor))
        : parameters.noiseSigma;
    if (!(report.noiseSigma > 0.0))
    {
      throw InvalidArgument("L1-mean-curvature: the noise level estimated from the image is 0 (a noise-free "
                            "image?); give r0 or noiseSigma");
    }
    report.r0 = L1MCR0ForNoise(report.noiseSigma / report.dataRange);
  }
  const double h = report.meshSize, r0 = report.r0;
  report.epsilon = parameters.epsilon > 0.0 ? parameters.epsilon : r0 * h;
  report.r1 = parameters.r1 > 0.0 ? parameters.r1 : 10.0 * r0 * h;
  report.r2 = parameters.r2 > 0.0 ? parameters.r2 : 5.0 * r0;
  report.r3 = parameters.r3 > 0.0 ? parameters.r3 : 5.0 * r0 * h * h;

  l1mc::Constants constants;
  constants.mesh = MakeMesh(grid, h);
  constants.epsilon = report.epsilon;
  constants.r1 = report.r1;
  constants.r2 = report.r2;
  constants.r3 = report.r3;
  constants.eta = L1MCTriangleEta(std::min(constants.mesh.hx, constants.mesh.hy));
  // Sub #2's relative residual (the paper gives none). Measured on the 128^2
  // and 512^2 test images (r0 = 0.015, p = 0.2): 1e-6, 1e-8 and 1e-10 give the
  // same outer iteration count and J_h to 6 digits, with about 13, 20 and 27
  // CG steps per outer iteration; 1e-8 keeps a margin of two orders below
  // that and below the 1e-10 agreement of the two backends in double (a CG
  // step more or less moves p3 by about the tolerance). Float stops near
  // its rounding floor.
  constants.cgTolerance = sizeof(Real) == 8 ? 1e-8 : 1e-5;
  constants.cgMaxIterations = 100;
  constants.cornerMass = parameters.cornerMass;
  constants.sub2Solver = parameters.sub2Solver;
  constants.initialization = parameters.initialization;

  // The normalised data.
  std::vector<Real> g(n);
  const double scale = 1.0 / report.dataRange;
  for (std::size_t i = 0; i < n; ++i)
    g[i] = Real((double(f[i]) - offset) * scale);
  {
    double curvature = 0.0;
    for (std::size_t y = 1; y + 1 < constants.mesh.ny; ++y)
      for (std::size_t x = 1; x + 1 < constants.mesh.nx; ++x)
        curvature += constants.mesh.LumpedMass(x, y) * std::abs(l1mc::CurvatureOf(g.data(), constants.mesh, x, y));
    report.objectiveOfData = report.epsilon * curvature;
  }

  report.backend = ResolveBackend(execution, sizeof(Real) == 8, MakeAutoProbe(g.data(), grid, constants, execution));
  const double triangles = l1mc::TriangleCount(constants.mesh);
  std::vector<Real> result(n);
  report.seconds = TimedRun(
    [&]
    {
      std::unique_ptr<l1mc::Stepper<Real>> stepper =
        report.backend.backend == Backend::OpenCL
          ? l1mc::MakeStepperOpenCL(g.data(), constants, report.backend, execution)
          : l1mc::MakeStepperCPU(g.data(), constants, execution);
      const auto lagrangian = [&](const l1mc::Sums & s)
      { return report.epsilon * s.psiMass + s.fidelity + s.penaltyQ + s.penaltyV; };
      double previous = lagrangian(stepper->Initialize());
      StepLoop loop;
      loop.maximumSteps = parameters.maxIterations;
      loop.step = [&](unsigned accepted)
      {
        const l1mc::Sums s = stepper->Iterate();
        RequireFiniteSums<Real>(s, accepted + 1);
        L1MCIterationInfo info;
        info.iteration = accepted + 1;
        info.lagrangian = lagrangian(s);
        info.objective = report.epsilon * s.curvatureMass + s.fidelity;
        info.relativeChange = std::abs(previous - info.lagrangian) / std::abs(previous);
        info.r1Residual = RelativeMisfit(s.gradMinusP1, s.grad, s.p1);
        info.r2Residual = RelativeMisfit(s.p2MinusP3, s.p2, s.p3);
        info.r3Residual = RelativeMisfit(s.divMinusPsi, s.div, s.psi);
        info.newtonSuccess = s.newtonAccepted / triangles;
        info.cgIterations = s.cgIterations;
        previous = info.lagrangian;
        report.history.push_back(info);
        report.sub2Residual = s.cgResidual;
        report.sub4Residual = s.sub4Residual;
        if (iteration && !iteration(info))
          throw Aborted();
        return Stationary(info, parameters.tolerance) ? StepVerdict::Finished : StepVerdict::Accepted;
      };
      loop.progress = [&](unsigned accepted) { return IterationProgress(accepted, parameters.maxIterations); };
      const LoopOutcome outcome = RunSteps(loop, progress);
      report.iterations = outcome.steps;
      report.converged = outcome.finished;
      stepper->Store(result.data());
      report.timings = stepper->Timings();
    });
  if (!report.history.empty())
    report.last = report.history.back();
  if (!report.converged)
  {
    std::ostringstream message;
    message << "not converged: the relative change of the augmented Lagrangian was " << report.last.relativeChange
            << " (tolerance " << parameters.tolerance << ") and the constraint residuals R1-R3 "
            << report.last.r1Residual << ", " << report.last.r2Residual << ", " << report.last.r3Residual
            << " (at most " << kL1MCConstraintTolerance << ") after " << report.iterations
            << " iterations; raise maxIterations";
    report.warnings.push_back(message.str());
  }
  for (std::size_t i = 0; i < n; ++i)
    u[i] = Real(double(result[i]) * report.dataRange + offset);
  return report;
}

template L1MCReport
DenoiseL1MeanCurvature(const float *,
                       float *,
                       const Grid &,
                       const L1MCParameters &,
                       const ExecutionOptions &,
                       const ProgressCallback &,
                       const L1MCIterationCallback &);
template L1MCReport
DenoiseL1MeanCurvature(const double *,
                       double *,
                       const Grid &,
                       const L1MCParameters &,
                       const ExecutionOptions &,
                       const ProgressCallback &,
                       const L1MCIterationCallback &);

} // namespace gpur
