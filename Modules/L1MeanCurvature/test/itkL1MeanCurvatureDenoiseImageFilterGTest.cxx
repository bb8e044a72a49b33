// SPDX-License-Identifier: Apache-2.0
// Tests of the ITK adapter of L1-mean-curvature denoising: metadata, the engine's
// result, CPU vs OpenCL, progress and iteration events, abort, units, errors.
#include "itkL1MeanCurvatureDenoiseImageFilter.h"

#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "itkCommand.h"
#include "itkGPURFilterTesting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace
{

using Image2F = itk::Image<float, 2>;
using Image2D = itk::Image<double, 2>;
using Filter2F = itk::L1MeanCurvatureDenoiseImageFilter<Image2F>;
using Filter2D = itk::L1MeanCurvatureDenoiseImageFilter<Image2D>;
using Backend = itk::GPURestorationEnums::Backend;

/** A noisy Shepp-Logan slice (sigma 0.1 on [0, 1]) of nx x ny pixels, scaled by `scale`, with a rotated geometry. */
template<typename TImage>
typename TImage::Pointer
MakeNoisyImage(unsigned nx, unsigned ny, double scale = 1.0)
{
  auto image = TImage::New();
  typename TImage::SizeType size{ { nx, ny } };
  image->SetRegions(size);
  typename TImage::SpacingType spacing;
  spacing[0] = 0.5;
  spacing[1] = 0.75; // anisotropic: the mesh steps follow the spacing
  typename TImage::PointType origin;
  origin[0] = -10.0;
  origin[1] = 3.0;
  typename TImage::DirectionType direction;
  direction[0][0] = 0.0; // a rotation, so that the direction must be carried over
  direction[0][1] = 1.0;
  direction[1][0] = -1.0;
  direction[1][1] = 0.0;
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(direction);
  image->Allocate();
  const auto noisy = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(gpur::MakeGrid2D(nx, ny)), 0.1, 5);
  std::transform(noisy.begin(),
                 noisy.end(),
                 image->GetBufferPointer(),
                 [scale](float v) { return static_cast<typename TImage::PixelType>(scale * v); });
  return image;
}

template<typename TImage>
std::vector<double>
Pixels(const TImage * image)
{
  const auto n = image->GetBufferedRegion().GetNumberOfPixels();
  return std::vector<double>(image->GetBufferPointer(), image->GetBufferPointer() + n);
}

/** A filter on input with a fixed r0 and a small budget (the tests check the adapter, not the convergence). */
template<typename TFilter, typename TImage>
typename TFilter::Pointer
MakeFilter(TImage * input, Backend backend, unsigned iterations = 15)
{
  auto filter = TFilter::New();
  filter->SetInput(input);
  filter->SetR0(0.005);
  filter->SetMaximumNumberOfIterations(iterations);
  filter->SetBackend(backend);
  return filter;
}

std::string
MessageOf(itk::ProcessObject * filter)
{
  try
  {
    filter->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return "(no exception)";
}

} // namespace

TEST(L1MeanCurvatureFilter, KeepsMetadataAndReportsTheRun)
{
  auto input = MakeNoisyImage<Image2F>(40, 33);
  auto filter = MakeFilter<Filter2F>(input.GetPointer(), Backend::CPU);
  filter->Update();
  const Image2F * output = filter->GetOutput();
  EXPECT_EQ(output->GetLargestPossibleRegion(), input->GetLargestPossibleRegion());
  EXPECT_EQ(output->GetSpacing(), input->GetSpacing());
  EXPECT_EQ(output->GetOrigin(), input->GetOrigin());
  EXPECT_EQ(output->GetDirection(), input->GetDirection());
  EXPECT_STREQ(filter->GetBackendUsed(), "CPU");
  EXPECT_EQ(filter->GetNumberOfIterations(), filter->GetReport().iterations);
  EXPECT_GE(filter->GetNumberOfIterations(), 1u);
  EXPECT_LE(filter->GetNumberOfIterations(), 15u);
  EXPECT_EQ(filter->GetConverged(), filter->GetReport().converged);
  EXPECT_DOUBLE_EQ(filter->GetR0Used(), 0.005);
  EXPECT_DOUBLE_EQ(filter->GetMeshSizeUsed(), 1.0 / 39.0); // 1 / (max(nx, ny) - 1)
  EXPECT_GT(filter->GetDataRangeUsed(), 0.0);
  EXPECT_DOUBLE_EQ(filter->GetObjective(), filter->GetReport().last.objective);
  EXPECT_DOUBLE_EQ(filter->GetLagrangian(), filter->GetReport().last.lagrangian);
  EXPECT_DOUBLE_EQ(filter->GetR1Residual(), filter->GetReport().last.r1Residual);
  EXPECT_TRUE(std::isfinite(filter->GetObjective()) && filter->GetObjective() > 0.0);
  for (const double v : Pixels(output))
    ASSERT_TRUE(std::isfinite(v));
  std::ostringstream printed;
  filter->Print(printed);
  for (const char * line : { "R0: 0.005",
                             "CornerMass: Exact",
                             "Sub2Solver: Direct",
                             "Initialization: Zero",
                             "NumberOfIterations: ",
                             "Lagrangian: ",
                             "R3Residual: ",
                             "BackendUsed: CPU" })
    EXPECT_NE(printed.str().find(line), std::string::npos) << line;
}

TEST(L1MeanCurvatureFilter, EqualsTheEngineWithTheImageSpacing)
{
  auto input = MakeNoisyImage<Image2D>(36, 30);
  auto filter = MakeFilter<Filter2D>(input.GetPointer(), Backend::CPU, 10);
  filter->SetCornerMass(Filter2D::CornerMassEnum::Separable);
  filter->SetInitialization(Filter2D::InitializationEnum::Data);
  filter->SetSub2Solver(Filter2D::Sub2SolverEnum::ConjugateGradient);
  filter->Update();

  gpur::L1MCParameters p;
  p.r0 = 0.005;
  p.maxIterations = 10;
  p.cornerMass = gpur::L1MCCornerMass::Separable;
  p.initialization = gpur::L1MCInitialization::Data;
  p.sub2Solver = gpur::L1MCSub2Solver::ConjugateGradient;
  gpur::ExecutionOptions execution;
  execution.backend = gpur::Backend::CPU;
  std::vector<double> u(36 * 30);
  const gpur::L1MCReport report = gpur::DenoiseL1MeanCurvature(
    input->GetBufferPointer(), u.data(), gpur::MakeGrid2D(36, 30, 0.5, 0.75), p, execution);
  EXPECT_EQ(report.iterations, filter->GetNumberOfIterations());
  EXPECT_LE(gpur::MaxAbsDifference(u.data(), filter->GetOutput()->GetBufferPointer(), u.size()), 1e-12);
  EXPECT_NEAR(report.last.objective, filter->GetObjective(), 1e-12 * std::abs(report.last.objective));
}

TEST(L1MeanCurvatureFilter, CPUAndOpenCLAgreeInDouble)
{
  auto input = MakeNoisyImage<Image2D>(48, 40);
  auto cpu = MakeFilter<Filter2D>(input.GetPointer(), Backend::CPU, 400);
  auto ocl = MakeFilter<Filter2D>(input.GetPointer(), Backend::OpenCL, 400);
  cpu->Update();
  ocl->Update();
  EXPECT_EQ(std::string(ocl->GetBackendUsed()).rfind("OpenCL", 0), 0u) << ocl->GetBackendUsed();
  EXPECT_EQ(cpu->GetNumberOfIterations(), ocl->GetNumberOfIterations());
  EXPECT_NEAR(cpu->GetObjective(), ocl->GetObjective(), 1e-10 * std::abs(cpu->GetObjective()));
  const auto a = Pixels(cpu->GetOutput()), b = Pixels(ocl->GetOutput());
  EXPECT_LE(gpur::MaxAbsDifference(a.data(), b.data(), a.size()), 1e-8);
}

TEST(L1MeanCurvatureFilter, ProgressAndIterationEventsCarryJLAndResiduals)
{
  auto input = MakeNoisyImage<Image2F>(32, 32);
  auto filter = MakeFilter<Filter2F>(input.GetPointer(), Backend::CPU, 300);
  struct Seen
  {
    std::vector<float> progress;
    std::vector<gpur::L1MCIterationInfo> iterations;
    std::vector<double> lagrangians;
  } seen;
  auto progress = itk::CStyleCommand::New();
  progress->SetClientData(&seen);
  progress->SetCallback(
    [](itk::Object * caller, const itk::EventObject &, void * data)
    { static_cast<Seen *>(data)->progress.push_back(static_cast<itk::ProcessObject *>(caller)->GetProgress()); });
  auto iteration = itk::CStyleCommand::New();
  iteration->SetClientData(&seen);
  iteration->SetCallback(
    [](itk::Object * caller, const itk::EventObject &, void * data)
    {
      const auto * f = static_cast<Filter2F *>(caller);
      static_cast<Seen *>(data)->iterations.push_back(f->GetIterationInfo());
      static_cast<Seen *>(data)->lagrangians.push_back(f->GetLagrangian());
    });
  filter->AddObserver(itk::ProgressEvent(), progress);
  filter->AddObserver(itk::IterationEvent(), iteration);
  filter->Update();

  const unsigned n = filter->GetNumberOfIterations();
  ASSERT_EQ(seen.iterations.size(), n) << "one IterationEvent per outer iteration";
  ASSERT_GE(n, 3u);
  const auto & history = filter->GetReport().history;
  ASSERT_EQ(history.size(), n);
  for (unsigned k = 0; k < n; ++k)
  {
    EXPECT_EQ(seen.iterations[k].iteration, k + 1);
    EXPECT_EQ(seen.lagrangians[k], history[k].lagrangian);
    EXPECT_EQ(seen.iterations[k].objective, history[k].objective);
    EXPECT_EQ(seen.iterations[k].r1Residual, history[k].r1Residual);
    EXPECT_EQ(seen.iterations[k].r2Residual, history[k].r2Residual);
    EXPECT_EQ(seen.iterations[k].r3Residual, history[k].r3Residual);
    EXPECT_TRUE(std::isfinite(history[k].lagrangian) && std::isfinite(history[k].r1Residual));
  }
  // The iteration settles: the relative change of L, what the stopping rule tests, ends far below where it started.
  EXPECT_LT(history.back().relativeChange, 0.1 * history[1].relativeChange);
  EXPECT_LT(std::abs(history.back().lagrangian - history[n - 2].lagrangian),
            std::abs(history[1].lagrangian - history[0].lagrangian));
  if (filter->GetConverged())
  {
    EXPECT_LT(history.back().relativeChange, filter->GetTolerance());
  }
  // Progress: at least once per iteration, never decreasing, from 0 to 1.
  ASSERT_GE(seen.progress.size(), n);
  EXPECT_TRUE(std::is_sorted(seen.progress.begin(), seen.progress.end()));
  EXPECT_EQ(seen.progress.front(), 0.0f);
  EXPECT_EQ(seen.progress.back(), 1.0f);
}

TEST(L1MeanCurvatureFilter, AbortFromAnIterationObserverLeavesNoOutput)
{
  for (const Backend backend : { Backend::CPU, Backend::OpenCL })
  {
    auto input = MakeNoisyImage<Image2F>(32, 30);
    auto filter = MakeFilter<Filter2F>(input.GetPointer(), backend, 200);
    gpur::testing::AbortWhen(
      filter.GetPointer(), itk::IterationEvent(), [](const Filter2F & f) { return f.GetNumberOfIterations() == 3; });
    gpur::testing::ExpectAbortedWithoutOutput(filter.GetPointer());
    EXPECT_EQ(filter->GetNumberOfIterations(), 3u) << "the abort takes effect after the iteration that set it";
    EXPECT_STREQ(filter->GetBackendUsed(), "");
  }
}

TEST(L1MeanCurvatureFilter, SameResultInOtherIntensityUnits)
{
  // The engine solves on f / DataRange: 1000 f gives 1000 u, with the same r0 and iterations.
  auto unit = MakeNoisyImage<Image2D>(30, 28, 1.0);
  auto scaled = MakeNoisyImage<Image2D>(30, 28, 1000.0);
  auto a = MakeFilter<Filter2D>(unit.GetPointer(), Backend::CPU, 20);
  auto b = MakeFilter<Filter2D>(scaled.GetPointer(), Backend::CPU, 20);
  a->Update();
  b->Update();
  EXPECT_EQ(a->GetNumberOfIterations(), b->GetNumberOfIterations());
  EXPECT_NEAR(b->GetDataRangeUsed(), 1000.0 * a->GetDataRangeUsed(), 1e-9 * b->GetDataRangeUsed());
  const auto u = Pixels(a->GetOutput()), v = Pixels(b->GetOutput());
  double worst = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i)
    worst = std::max(worst, std::abs(v[i] / 1000.0 - u[i]));
  EXPECT_LE(worst, 1e-9);
}

TEST(L1MeanCurvatureFilter, DefaultsChooseR0FromTheNoiseLevel)
{
  auto input = MakeNoisyImage<Image2F>(40, 40);
  auto filter = MakeFilter<Filter2F>(input.GetPointer(), Backend::CPU, 5);
  filter->SetR0(0.0);
  filter->SetNoiseSigma(0.1);
  filter->Update();
  EXPECT_DOUBLE_EQ(filter->GetNoiseSigmaUsed(), 0.1);
  EXPECT_FALSE(filter->GetNoiseSigmaEstimated());
  EXPECT_DOUBLE_EQ(filter->GetR0Used(), gpur::L1MCR0ForNoise(0.1 / filter->GetDataRangeUsed()));
  filter->SetNoiseSigma(0.0);
  filter->Update();
  EXPECT_TRUE(filter->GetNoiseSigmaEstimated());
  EXPECT_GT(filter->GetNoiseSigmaUsed(), 0.05);
  EXPECT_LT(filter->GetNoiseSigmaUsed(), 0.2);
}

TEST(L1MeanCurvatureFilter, BadInputThrowsITKExceptionsNamingTheProblem)
{
  // One pixel: below the 3 x 3 the triangulation needs.
  auto tiny = Image2F::New();
  tiny->SetRegions(Image2F::SizeType{ { 1, 1 } });
  tiny->Allocate();
  tiny->FillBuffer(0.5f);
  auto filter = MakeFilter<Filter2F>(tiny.GetPointer(), Backend::CPU);
  EXPECT_NE(MessageOf(filter), "(no exception)");
  EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr);

  auto input = MakeNoisyImage<Image2F>(20, 20);
  const auto expectMessage = [&](const std::function<void(Filter2F *)> & set, const std::string & word)
  {
    auto f = MakeFilter<Filter2F>(input.GetPointer(), Backend::CPU, 5);
    set(f.GetPointer());
    const std::string message = MessageOf(f);
    EXPECT_NE(message.find(word), std::string::npos) << "expected '" << word << "' in: " << message;
    EXPECT_EQ(f->GetOutput()->GetBufferPointer(), nullptr) << "no partial output: " << message;
  };
  expectMessage([](Filter2F * f) { f->SetR0(-1.0); }, "r0");
  expectMessage([](Filter2F * f) { f->SetR0(std::numeric_limits<double>::quiet_NaN()); }, "r0");
  expectMessage([](Filter2F * f) { f->SetNoiseSigma(-0.1); }, "oise");
  expectMessage([](Filter2F * f) { f->SetMeshSize(-1.0); }, "esh");
  expectMessage([](Filter2F * f) { f->SetTolerance(-1.0); }, "olerance");
  expectMessage([](Filter2F * f) { f->SetMaximumNumberOfIterations(0); }, "terations");

  auto nan = MakeNoisyImage<Image2F>(20, 20);
  nan->GetBufferPointer()[77] = std::numeric_limits<float>::quiet_NaN();
  auto f = MakeFilter<Filter2F>(nan.GetPointer(), Backend::CPU, 5);
  const std::string message = MessageOf(f);
  EXPECT_TRUE(message.find("NaN") != std::string::npos || message.find("finite") != std::string::npos) << message;
  EXPECT_EQ(f->GetOutput()->GetBufferPointer(), nullptr);
}

TEST(L1MeanCurvatureFilter, EnumsAtTheITKAPI)
{
  using Enums = itk::L1MeanCurvatureDenoiseImageFilterEnums;
  EXPECT_EQ(itk::GPURestoration::ToEngine(Enums::Initialization::Data), gpur::L1MCInitialization::Data);
  EXPECT_EQ(itk::GPURestoration::ToEngine(Enums::CornerMass::Separable), gpur::L1MCCornerMass::Separable);
  EXPECT_EQ(itk::GPURestoration::ToEngine(Enums::Sub2Solver::ConjugateGradient),
            gpur::L1MCSub2Solver::ConjugateGradient);
  EXPECT_EQ(itk::GPURestoration::FromEngine<Enums::Sub2Solver>(gpur::ParseL1MCSub2Solver("cg")),
            Enums::Sub2Solver::ConjugateGradient);
  EXPECT_THROW(gpur::ParseL1MCSub2Solver("jacobi"), gpur::InvalidArgument);
  EXPECT_EQ(itk::GPURestoration::FromEngine<Enums::Initialization>(gpur::ParseL1MCInitialization("zero")),
            Enums::Initialization::Zero);
  std::ostringstream text;
  text << Enums::Initialization::Data << " " << Enums::CornerMass::Exact << " " << Enums::Sub2Solver::Direct;
  EXPECT_EQ(text.str(), "Data Exact Direct");
  auto filter = Filter2F::New();
  EXPECT_EQ(filter->GetInitialization(), Enums::Initialization::Zero);
  EXPECT_EQ(filter->GetCornerMass(), Enums::CornerMass::Exact);
  EXPECT_EQ(filter->GetSub2Solver(), Enums::Sub2Solver::Direct);
  EXPECT_EQ(filter->GetMaximumNumberOfIterations(), gpur::L1MCParameters().maxIterations);
  EXPECT_EQ(filter->GetTolerance(), gpur::L1MCParameters().tolerance);
}
