// SPDX-License-Identifier: Apache-2.0
// itkgpurestoration-flow: mean-curvature flow or Willmore flow of the graph z = u(x, y) of a 2D image
// [Oberhuber2011], a smoothing (fairing) of height maps and images.
//
//   itkgpurestoration-flow [options] <input> <output>
//
// <input> is any 2D image ITK reads (NRRD, MHA/MHD, NIfTI, TIFF, PNG, ...), evolved by
// itk::GraphMeanCurvatureFlowImageFilter (--flow mean: read and computed in float) or
// itk::WillmoreFlowImageFilter (--flow willmore: read and computed in double, which the fourth-order flow needs)
// to --time in the image's physical units, and written as float to <output> in the format its extension
// selects, with the input's origin, spacing and direction. Progress (in simulated time), the 3D Slicer progress
// lines and --xml, the one-line errors with exit code 1, the atomic output and the signal handling are those of
// itkgpurestoration-tv (see there and gpurCommandLineITK.h).
//
// The summary line gives the flow, the time reached, the accepted and rejected steps of the step control, the
// last step and its error estimate against the tolerance.
#include "gpurCommandLine.h"
#include "gpurCommandLineITK.h"
#include "itkGraphMeanCurvatureFlowImageFilter.h"
#include "itkWillmoreFlowImageFilter.h"

#include "itkCastImageFilter.h"
#include "itkImage.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace
{

constexpr const char * kProgram = "itkgpurestoration-flow";

/** The tool's settings; backend, device, quiet, xml and the file names are every tool's. */
struct Options : gpur::cli::ToolOptions
{
  std::string flow = "mean";
  double time = 1.0;
  double tolerance = gpur::GraphFlowParameters().tolerance;
  double regularization = gpur::GraphFlowParameters().regularization;
  std::string boundary = "neumann";
  double initialStep = 0.0; // automatic
  unsigned maxSteps = gpur::GraphFlowParameters().maximumSteps;
};

/** Fills parser with the options, storing into options (both must outlive parsing). */
void
DeclareOptions(gpur::cli::Parser & parser, Options & o)
{
  using gpur::cli::ParsePositiveDouble;
  parser
    .AddChoice("--flow",
               "mean: mean-curvature flow of the graph (second order; float); willmore: Willmore flow (fourth "
               "order, keeps slopes that mean curvature flattens; computed in double).",
               { "mean", "willmore" },
               o.flow)
    .label = "Flow";
  auto & time = parser.AddDouble("--time",
                                 "T",
                                 "Final time (> 0) in physical length^2 (mean) or length^4 (willmore): 1 at unit "
                                 "spacing smooths about one pixel.",
                                 o.time,
                                 ParsePositiveDouble);
  time.label = "Final time T";
  time.constraints = gpur::cli::Constraints{ 0.001, 1000.0, 0.1 };
  parser
    .AddDouble("--tolerance",
               "E",
               "Largest error estimate of an accepted Runge-Kutta-Merson step (> 0), relative to the regularization.",
               o.tolerance,
               ParsePositiveDouble)
    .label = "Step tolerance";
  parser
    .AddDouble("--regularization",
               "R",
               "The unit of height in intensity units (> 0): the flow moves the graph of u/R. Small R: steep graph, "
               "edges move slowly; large R: close to linear diffusion.",
               o.regularization,
               ParsePositiveDouble)
    .label = "Regularization";
  parser
    .AddChoice("--boundary",
               "neumann: zero normal derivative at the image border; dirichlet: the border pixels keep their values.",
               { "neumann", "dirichlet" },
               o.boundary)
    .label = "Boundary condition";
  parser
    .AddDouble("--initial-step",
               "S",
               "Time step of the first step (>= 0); 0: automatic (h^2/4, willmore h^4/16).",
               o.initialStep,
               gpur::cli::ParseNonNegativeDouble)
    .label = "Initial step (0: automatic)";
  auto & steps = parser.AddUnsigned(
    "--max-steps", "N", "Accepted steps at most (>= 1); a run that needs more fails.", o.maxSteps, 1);
  steps.label = "Maximum steps";
  gpur::cli::AddToolOptions(parser, o, gpur::cli::DeviceMemoryLimit::NotOffered);
}

/** What the Slicer description says besides the options (which come from the option table). */
gpur::cli::SlicerModule
SlicerDescription()
{
  gpur::cli::SlicerModule module;
  module.category = "Filtering.Denoising";
  module.title = "GPU Curvature Flow of Graphs";
  module.description =
    "Mean-curvature flow or Willmore flow of the graph z = u(x, y) of a 2D image (Oberhuber, Suzuki and Zabka "
    "2011): the surface moves with its curvature to a final time in physical units, by complementary finite volumes "
    "and Runge-Kutta-Merson steps with automatic step control, on an OpenCL device (GPU, or the CPU through PoCL) "
    "or the multithreaded CPU backend. A fairing of height maps and a smoothing that keeps steep edges longer than "
    "linear diffusion.";
  module.groups = { { "Curvature flow", "Flow and integration parameters." },
                    { "Execution", "Where the filter runs." } };
  module.images = { { "inputVolume", "Input image", "input", "2D image or height map." },
                    { "outputVolume", "Output image", "output", "The image at the final time (float)." } };
  return module;
}

/** The flow with TFilter, in Real (float for mean curvature, double for Willmore). */
template<template<typename...> class TFilter, typename Real>
int
Evolve(const Options & o)
{
  using RealImageType = itk::Image<Real, 2>;
  using FilterType = TFilter<RealImageType>;
  auto filter = FilterType::New();
  filter->SetInput(gpur::cli::ReadInput<RealImageType>(o.input, kProgram));
  filter->SetFinalTime(o.time);
  filter->SetTolerance(o.tolerance);
  filter->SetRegularization(o.regularization);
  filter->SetBoundaryCondition(itk::GPURestoration::FromEngine<typename FilterType::BoundaryConditionEnum>(
    gpur::ParseGraphFlowBoundary(o.boundary)));
  filter->SetInitialTimeStep(o.initialStep);
  filter->SetMaximumNumberOfSteps(o.maxSteps);
  filter->SetBackend(itk::GPURestoration::FromEngine<typename FilterType::BackendEnum>(gpur::ParseBackend(o.backend)));
  filter->SetDevice(o.device);
  const double wall = gpur::cli::UpdateWithProgress(filter, o.quiet);
  auto cast = itk::CastImageFilter<RealImageType, itk::Image<float, 2>>::New();
  cast->SetInput(filter->GetOutput());
  cast->Update();
  gpur::cli::WriteOutput(cast->GetOutput(), o.output);
  if (!o.quiet)
  {
    std::ostringstream line;
    line << kProgram << ": " << filter->GetBackendUsed() << " (" << filter->GetBackendReason() << "), "
         << (o.flow == "willmore" ? "Willmore flow (double)" : "mean-curvature flow (float)") << ", "
         << filter->GetBoundaryCondition() << ", t = " << std::setprecision(6) << filter->GetTimeReached() << ", "
         << filter->GetNumberOfAcceptedSteps() << " steps accepted, " << filter->GetNumberOfRejectedSteps()
         << " rejected" << std::scientific << std::setprecision(2) << ", error estimate of the last step "
         << filter->GetReport().error << " (tolerance " << o.tolerance * o.regularization << ")" << std::fixed
         << std::setprecision(3) << ", " << wall << " s, wrote " << o.output;
    gpur::cli::Summary() << line.str() << "\n";
  }
  return 0;
}

int
Run(int argc, char * argv[])
{
  Options o;
  gpur::cli::Parser parser(kProgram,
                           "<input> <output>",
                           "Mean-curvature or Willmore flow of the graph of a 2D image [Oberhuber2011] with "
                           "itk::GraphMeanCurvatureFlowImageFilter or itk::WillmoreFlowImageFilter.\n<input>: a 2D "
                           "image file ITK reads (NRRD, MHA, NIfTI, TIFF, PNG, ...); <output>: any format ITK writes, "
                           "chosen by the extension (float pixels).\nThe output is written only on success (via a "
                           "verified temporary file).");
  DeclareOptions(parser, o);
  if (!gpur::cli::ParseToolCommandLine(parser, argc, argv, o, SlicerDescription(), std::cout))
    return 0;
  gpur::cli::CheckOutputName(o.output); // before the work, not after it
  return gpur::cli::ByInputDimension(
    o.input,
    [&o]
    {
      return o.flow == "willmore" ? Evolve<itk::WillmoreFlowImageFilter, double>(o)
                                  : Evolve<itk::GraphMeanCurvatureFlowImageFilter, float>(o);
    },
    [&o]() -> int
    {
      throw std::runtime_error("'" + o.input +
                               "' is a 3D image; the curvature flows of graphs are 2D (evolve its slices one by one)");
    });
}

} // namespace

int
main(int argc, char * argv[])
{
  return gpur::cli::RunTool(kProgram, argc, argv, Run);
}
