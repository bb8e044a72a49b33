// SPDX-License-Identifier: Apache-2.0
// itkgpurestoration-poisson: solves -Lap u + c u = f on the grid of an image file
// with itk::PSCRPoissonSolver (Poisson, modified Helmholtz, Helmholtz).
//
//   itkgpurestoration-poisson [options] <rhs> <solution>
//
// <rhs> is the right-hand side f, any image ITK reads (NRRD, MHA/MHD, NIfTI,
// TIFF, ...) or a DICOM series folder, 2D or 3D, read as double (as float for --precision float or auto); <solution> is
// u on the same grid (origin, spacing, direction kept), written as float in the
// format its extension selects. The Laplacian is the second-order finite
// difference in physical units (the spacing is used). --boundary gives the
// boundary condition of every axis ("dirichlet", "neumann") or of each axis
// ("dirichlet,neumann,dirichlet", x first): Dirichlet means u = 0 one spacing
// outside the image, Neumann zero flux across the image's edge. Pure-Neumann
// Poisson (Neumann everywhere, --shift 0) needs an f with zero sum; --project
// subtracts the mean of f instead of refusing it. Every solve is checked: its
// relative residual ||f - A u|| / ||f|| (in double) must reach
// --residual-tolerance (0, the default: 8x the rounding floor of the solution),
// refining at most --max-refinement-steps times, else the tool fails. --precision
// chooses the arithmetic: double (default: f read as double, solved in double),
// float (float only; fails where float cannot reach the target) or auto (float,
// redone in double where float cannot). --backend and --device choose
// the CPU or an OpenCL device (auto: OpenCL when there is one); there is no
// --device-memory-limit (PSCR keeps the whole problem on the device and does not
// stream; one larger than the device's memory is refused). A progress bar (plan, solve)
// and a summary line (backend, residual, target, floor, refinement steps,
// arithmetic) go to stderr (--quiet: neither); --xml prints the 3D
// Slicer Execution Model description. Errors (corrupt input included) exit with
// 1 and one line on stderr, and leave no output file (it is written through a
// temporary folder and read back), as for itkgpurestoration-tv.
#include "gpurCommandLine.h"
#include "gpurCommandLineITK.h"
#include "itkPSCRPoissonSolver.h"

#include "itkCastImageFilter.h"
#include "itkImage.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

constexpr const char * kProgram = "itkgpurestoration-poisson";

/** The tool's settings; backend, device, quiet, xml and the file names are every tool's. */
struct Options : gpur::cli::ToolOptions
{
  double shift = 0.0;
  std::string boundary = "dirichlet";
  std::vector<gpur::BoundaryCondition> conditions{ gpur::BoundaryCondition::Dirichlet };
  std::string radix = "4";
  bool noFastTransforms = false;
  bool project = false;
  double residualTolerance = 0.0;
  unsigned maxRefinementSteps = 8;
  std::string precision = "double";
};

/** "dirichlet" or "dirichlet,neumann[,...]" (case-insensitive) as a list of conditions. */
std::vector<gpur::BoundaryCondition>
ParseBoundaryList(const std::string & option, const std::string & value)
{
  std::vector<gpur::BoundaryCondition> conditions;
  std::size_t begin = 0;
  while (true)
  {
    const std::size_t comma = value.find(',', begin);
    const std::string item = value.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    const std::string name = gpur::cli::ParseChoice(option, item, { "dirichlet", "neumann" });
    conditions.push_back(name == "neumann" ? gpur::BoundaryCondition::Neumann : gpur::BoundaryCondition::Dirichlet);
    if (comma == std::string::npos)
      break;
    begin = comma + 1;
  }
  if (conditions.size() > 3)
    throw gpur::cli::UsageError(option + " lists " + std::to_string(conditions.size()) +
                                " conditions; give one for every axis or one per axis (2 or 3)");
  return conditions;
}

/** Fills parser with the options, storing into options (both must outlive parsing). */
void
DeclareOptions(gpur::cli::Parser & parser, Options & o)
{
  auto & shift = parser.AddDouble("--shift",
                                  "C",
                                  "c of -Lap u + c u = f (units 1/length^2): 0 Poisson, > 0 modified Helmholtz "
                                  "(screened Poisson, smoothing length 1/sqrt(c)), < 0 Helmholtz (wavenumber "
                                  "sqrt(-c)).",
                                  o.shift);
  shift.label = "Shift c";
  shift.constraints = gpur::cli::Constraints{ -1000.0, 1000.0, 0.1 };
  gpur::cli::Option boundary;
  boundary.flag = "--boundary";
  boundary.valueName = "LIST";
  boundary.help = "Boundary condition of every axis (dirichlet or neumann), or one per axis, x first, e.g. "
                  "dirichlet,neumann,dirichlet. Dirichlet: u = 0 one spacing outside the image; Neumann: zero flux "
                  "across the image's edge.";
  boundary.type = gpur::cli::ValueType::String;
  boundary.label = "Boundary conditions";
  boundary.defaultValue = o.boundary;
  boundary.parse = [&o](const std::string & value)
  {
    o.conditions = ParseBoundaryList("--boundary", value);
    o.boundary = value;
  };
  parser.Add(boundary);
  parser
    .AddChoice("--radix",
               "Radix of the cyclic reduction: 4 (fewer levels, usually faster) or 2; the result is the same.",
               { "4", "2" },
               o.radix)
    .label = "Radix";
  parser
    .AddSwitch("--no-fast-transforms",
               "Solve with PSCR on every axis. By default both backends diagonalise the image's uniform "
               "Dirichlet/Neumann axes with fast sine/cosine transforms (FFTW, VkFFT), several times faster; the result "
               "is the same to rounding.",
               o.noFastTransforms)
    .label = "PSCR only (no fast transforms)";
  parser
    .AddSwitch("--project",
               "Pure-Neumann Poisson only: subtract the mean of the right-hand side (a solution exists only for "
               "zero mean) instead of refusing it.",
               o.project)
    .label = "Remove the mean of f";
  auto & tolerance = parser.AddDouble("--residual-tolerance",
                                      "TOL",
                                      "Relative residual ||f - A u|| / ||f|| the solution must reach, else the tool "
                                      "fails; 0: automatic, 8x the rounding floor of the solution (about 1e-15 in "
                                      "double, 1e-7 in float).",
                                      o.residualTolerance,
                                      gpur::cli::ParseNonNegativeDouble);
  tolerance.label = "Residual tolerance";
  tolerance.constraints = gpur::cli::Constraints{ 0.0, 1.0, 1e-8 };
  auto & steps = parser.AddUnsigned("--max-refinement-steps",
                                    "N",
                                    "Most steps of iterative refinement, u += A^-1 (f - A u), to reach the "
                                    "tolerance (0 to 16).",
                                    o.maxRefinementSteps,
                                    0,
                                    16);
  steps.label = "Maximum refinement steps";
  steps.constraints = gpur::cli::Constraints{ 0.0, 16.0, 1.0 };
  parser
    .AddChoice("--precision",
               "Arithmetic of the solve: double (f read and solved in double), float (float only; fails where float "
               "cannot reach the tolerance) or auto (float, redone in double where float cannot).",
               { "double", "auto", "float" },
               o.precision)
    .label = "Precision";
  gpur::cli::AddToolOptions(parser, o, gpur::cli::DeviceMemoryLimit::NotOffered);
}

/** What the Slicer description says besides the options (which come from the option table). */
gpur::cli::SlicerModule
SlicerDescription()
{
  gpur::cli::SlicerModule module;
  module.category = "Filtering";
  module.title = "Fast Poisson Solver (PSCR)";
  module.description = "Solves -Laplace(u) + c u = f on the grid of a 2D or 3D image (Poisson, modified Helmholtz, "
                       "Helmholtz) with Dirichlet or Neumann boundaries per axis, by the fast direct PSCR method "
                       "(partial solution variant of cyclic reduction). The Laplacian is the second-order finite "
                       "difference divided by the voxel spacing, so anisotropic voxels are handled.";
  module.groups = { { "Poisson problem", "The equation and the solver." }, { "Execution", "Where the solver runs." } };
  module.images = { { "inputVolume",
                      "Right-hand side",
                      "input",
                      "The right-hand side f (2D or 3D, read as double, or as float for --precision float/auto)." },
                    { "outputVolume", "Solution", "output", "The solution u on the same grid (float)." } };
  return module;
}

/** The filter's message with its setters' names replaced by this tool's options. */
std::string
InToolTerms(std::string reason)
{
  static const char * const terms[][2] = {
    { "Call ProjectRightHandSideOn()", "Use --project" },
    { "ResidualTolerance (SetResidualTolerance)", "--residual-tolerance" },
    { "(ResidualTolerance)", "(--residual-tolerance)" },
    { "use SetPrecision(PrecisionEnum::Automatic) or SetPrecision(PrecisionEnum::Double), or a double output image",
      "use --precision auto or double" },
    { "(SetMaximumNumberOfRefinementSteps)", "(--max-refinement-steps)" }
  };
  for (const auto & term : terms)
    if (const std::size_t at = reason.find(term[0]); at != std::string::npos)
      reason.replace(at, std::string(term[0]).size(), term[1]);
  return reason;
}

/** Solves in Real (double, or float for --precision float and auto). */
template<unsigned Dimension, typename Real>
int
Solve(const Options & o)
{
  using RealImageType = itk::Image<Real, Dimension>;
  using OutputImageType = itk::Image<float, Dimension>;
  using FilterType = itk::PSCRPoissonSolver<RealImageType>;
  if (o.conditions.size() != 1 && o.conditions.size() != Dimension)
    throw gpur::cli::UsageError("--boundary lists " + std::to_string(o.conditions.size()) + " conditions but '" +
                                o.input + "' is " + std::to_string(Dimension) + "D; give one or " +
                                std::to_string(Dimension));

  auto filter = FilterType::New();
  filter->SetInput(gpur::cli::ReadInput<RealImageType>(o.input, kProgram));
  filter->SetShift(o.shift);
  for (unsigned d = 0; d < Dimension; ++d)
    filter->SetBoundaryCondition(d,
                                 itk::GPURestoration::FromEngine<typename FilterType::BoundaryConditionEnum>(
                                   o.conditions.size() == 1 ? o.conditions[0] : o.conditions[d]));
  filter->SetRadix(o.radix == "2" ? 2u : 4u);
  filter->SetUseFastTransforms(!o.noFastTransforms);
  filter->SetProjectRightHandSide(o.project);
  filter->SetResidualTolerance(o.residualTolerance);
  filter->SetMaximumNumberOfRefinementSteps(static_cast<int>(o.maxRefinementSteps));
  filter->SetPrecision(o.precision == "float" ? FilterType::PrecisionEnum::Scalar
                                              : FilterType::PrecisionEnum::Automatic);
  filter->SetBackend(itk::GPURestoration::FromEngine<typename FilterType::BackendEnum>(gpur::ParseBackend(o.backend)));
  filter->SetDevice(o.device);
  double wall = 0.0;
  try
  {
    wall = gpur::cli::UpdateWithProgress(filter, o.quiet);
  }
  catch (const itk::ProcessAborted &)
  {
    throw;
  }
  catch (const itk::ExceptionObject & e)
  {
    // The filter names its own setters; here they are options.
    throw std::runtime_error(InToolTerms(e.GetDescription()));
  }
  auto cast = itk::CastImageFilter<RealImageType, OutputImageType>::New();
  cast->SetInput(filter->GetOutput());
  cast->Update();
  gpur::cli::WriteOutput(cast->GetOutput(), o.output);
  if (!o.quiet)
  {
    std::ostringstream line;
    line << kProgram << ": " << filter->GetBackendUsed() << " (" << filter->GetBackendReason() << "), boundary";
    for (unsigned d = 0; d < Dimension; ++d)
      line << (d ? "," : " ") << filter->GetBoundaryCondition(d);
    line << ", shift " << o.shift << ", " << filter->GetSolvePath();
    if (filter->IsSingular())
      line << (o.project ? ", singular (mean of f removed, solution with zero mean)"
                         : ", singular (solution with zero mean)");
    line << std::setprecision(3) << ", relative residual " << filter->GetRelativeResidual() << " (target "
         << filter->GetResidualTarget() << ", rounding floor " << filter->GetRoundingFloor() << "), "
         << filter->GetNumberOfRefinementSteps() << " refinement steps, computed in "
         << (std::is_same<Real, double>::value || filter->GetComputedInDouble() ? "double" : "float");
    line << std::fixed << std::setprecision(3) << ", plan " << filter->GetSetupSeconds() << " s, solve "
         << filter->GetSolveSeconds() << " s (" << wall << " s in all), wrote " << o.output;
    gpur::cli::Summary() << line.str() << "\n";
  }
  return 0;
}

int
Run(int argc, char * argv[])
{
  Options o;
  gpur::cli::Parser parser(kProgram,
                           "<rhs> <solution>",
                           "Solves -Lap u + c u = f on the grid of a 2D or 3D image with itk::PSCRPoissonSolver "
                           "(fast direct PSCR solver; Poisson, modified Helmholtz, Helmholtz; Dirichlet or Neumann "
                           "per axis; the spacing is used).\n<rhs>: the right-hand side f, an image file ITK reads or "
                           "a DICOM series directory; <solution>: u, any format ITK writes, chosen by the extension "
                           "(float).\nThe output is written only on success (via a verified temporary file).");
  DeclareOptions(parser, o);
  if (!gpur::cli::ParseToolCommandLine(parser, argc, argv, o, SlicerDescription(), std::cout))
    return 0;
  gpur::cli::CheckOutputName(o.output); // before the work, not after it
  if (o.precision == "double")
    return gpur::cli::ByInputDimension(
      o.input, [&o] { return Solve<2, double>(o); }, [&o] { return Solve<3, double>(o); });
  return gpur::cli::ByInputDimension(
    o.input, [&o] { return Solve<2, float>(o); }, [&o] { return Solve<3, float>(o); });
}

} // namespace

int
main(int argc, char * argv[])
{
  return gpur::cli::RunTool(kProgram, argc, argv, Run);
}
