// SPDX-License-Identifier: Apache-2.0
// Tests of the ITK adapters of the curvature flows of graphs [Oberhuber2011]
// (itk::GraphMeanCurvatureFlowImageFilter, itk::WillmoreFlowImageFilter): the
// filter equals the engine bit for bit, CPU vs OpenCL, physical spacing
// (a run on spacing 2h equals the engine's on the scaled problem), the area and
// the Willmore energy decreasing, metadata, progress in simulated time and
// abort, bad input, Willmore in float refused, PrintSelf and the defaults.
#include "itkGraphMeanCurvatureFlowImageFilter.h"
#include "itkWillmoreFlowImageFilter.h"

#include "gpurGraphFlowTesting.h"
#include "itkGPURFilterTesting.h"
#include "itkMetaDataObject.h"

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
using MeanF = itk::GraphMeanCurvatureFlowImageFilter<Image2F>;
using MeanD = itk::GraphMeanCurvatureFlowImageFilter<Image2D>;
using WillmoreD = itk::WillmoreFlowImageFilter<Image2D>;
using WillmoreF = itk::WillmoreFlowImageFilter<Image2F>;
using Backend = itk::GPURestorationEnums::Backend;
using Boundary = itk::GraphFlowImageFilterEnums::BoundaryCondition;

/** values (x fastest) as an nx x ny image with `spacing`, an origin, a rotated direction and a meta-data entry. */
template<typename TImage, typename Real>
typename TImage::Pointer
MakeImage(const std::vector<Real> & values, std::size_t nx, std::size_t ny, double sx, double sy)
{
  auto image = TImage::New();
  image->SetRegions(typename TImage::SizeType{ { nx, ny } });
  image->Allocate();
  std::copy(values.begin(), values.end(), image->GetBufferPointer());
  image->SetSpacing(typename TImage::SpacingType(std::vector<double>{ sx, sy }.data()));
  typename TImage::PointType origin;
  origin[0] = 3.0;
  origin[1] = -2.0;
  image->SetOrigin(origin);
  typename TImage::DirectionType direction;
  const double c = std::cos(0.5), s = std::sin(0.5);
  direction(0, 0) = c;
  direction(0, 1) = -s;
  direction(1, 0) = s;
  direction(1, 1) = c;
  image->SetDirection(direction);
  itk::EncapsulateMetaData<std::string>(image->GetMetaDataDictionary(), "PatientName", "Graph^Flow");
  return image;
}

/** The rings (35) of [Oberhuber2011] on N x N cells of (-2, 2)² as an image of spacing 4/N. */
template<typename TImage>
typename TImage::Pointer
Rings(unsigned cells)
{
  const gpur::Grid grid = gpurtest::SquareGrid(cells, -2.0, 2.0);
  return MakeImage<TImage>(
    gpurtest::Rings<typename TImage::PixelType>(grid), grid.size[0], grid.size[1], grid.spacing[0], grid.spacing[1]);
}

template<typename TFilter>
typename TFilter::Pointer
MakeFilter(const typename TFilter::InputImageType * image, Backend backend, double finalTime)
{
  auto filter = TFilter::New();
  filter->SetInput(image);
  filter->SetBackend(backend);
  filter->SetFinalTime(finalTime);
  return filter;
}

template<typename TImage>
std::vector<typename TImage::PixelType>
Pixels(const TImage * image)
{
  const auto * p = image->GetBufferPointer();
  return std::vector<typename TImage::PixelType>(p, p + image->GetBufferedRegion().GetNumberOfPixels());
}

/** The message of the exception that Update() throws ("" when it does not throw). */
template<typename TFilter>
std::string
MessageOf(TFilter * filter)
{
  try
  {
    filter->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return std::string();
}

/** The filter's run against gpur::GraphFlowRun with the same settings on the CPU: equal bit for bit. */
template<typename TFilter>
void
ExpectEngineResult(gpur::GraphFlowType flow, double finalTime, Boundary boundary)
{
  using Real = typename TFilter::OutputPixelType;
  auto image = Rings<typename TFilter::InputImageType>(32);
  auto filter = MakeFilter<TFilter>(image.GetPointer(), Backend::CPU, finalTime);
  filter->SetTolerance(1e-4);
  filter->SetRegularization(0.5);
  filter->SetBoundaryCondition(boundary);
  filter->Update();

  const gpur::Grid grid = gpurtest::SquareGrid(32, -2.0, 2.0);
  gpur::GraphFlowParameters p;
  p.flow = flow;
  p.finalTime = finalTime;
  p.tolerance = 1e-4;
  p.regularization = 0.5;
  p.boundary = itk::GPURestoration::ToEngine(boundary);
  const std::vector<Real> start = gpurtest::Rings<Real>(grid);
  std::vector<Real> u(grid.Count());
  const gpur::GraphFlowReport report =
    gpur::GraphFlowRun(start.data(), u.data(), grid, p, gpur::MakeExecution(gpur::Backend::CPU));
  EXPECT_EQ(Pixels(filter->GetOutput()), u) << gpur::ToString(flow) << " " << boundary;
  EXPECT_EQ(filter->GetNumberOfAcceptedSteps(), report.steps.accepted);
  EXPECT_EQ(filter->GetNumberOfRejectedSteps(), report.steps.rejected);
  EXPECT_GE(filter->GetNumberOfAcceptedSteps(), 3u);
  EXPECT_EQ(filter->GetTimeReached(), finalTime);
  EXPECT_STREQ(filter->GetBackendUsed(), "CPU");
  EXPECT_LT(filter->GetReport().error, 1e-4 * 0.5) << "the last step was accepted";
}

TEST(GraphFlowFilters, EqualTheEngineBitForBit)
{
  for (const Boundary boundary : { Boundary::Neumann, Boundary::Dirichlet })
  {
    ExpectEngineResult<MeanF>(gpur::GraphFlowType::MeanCurvature, 0.01, boundary);
    ExpectEngineResult<MeanD>(gpur::GraphFlowType::MeanCurvature, 0.01, boundary);
    ExpectEngineResult<WillmoreD>(gpur::GraphFlowType::Willmore, 5e-5, boundary);
  }
}

TEST(GraphFlowFilters, CPUAndOpenCLAgree)
{
  auto check = [](auto cpu, auto ocl, double agreement)
  {
    cpu->Update();
    ocl->Update();
    EXPECT_EQ(std::string(ocl->GetBackendUsed()).rfind("OpenCL", 0), 0u) << ocl->GetBackendUsed();
    EXPECT_EQ(cpu->GetNumberOfAcceptedSteps(), ocl->GetNumberOfAcceptedSteps());
    EXPECT_EQ(cpu->GetNumberOfRejectedSteps(), ocl->GetNumberOfRejectedSteps());
    const auto a = Pixels(cpu->GetOutput()), b = Pixels(ocl->GetOutput());
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
      worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    // The same arithmetic in the same order on both (gpurCurvatureFlowArithmetic.h); measured 0 on PoCL, the
    // margin is for a GPU compiler's fused multiply-adds (the rings' range is 2).
    EXPECT_LE(worst, agreement);
  };
  auto rings = Rings<Image2F>(48);
  check(MakeFilter<MeanF>(rings.GetPointer(), Backend::CPU, 0.02),
        MakeFilter<MeanF>(rings.GetPointer(), Backend::OpenCL, 0.02),
        2e-5);
  auto ringsD = Rings<Image2D>(24);
  check(MakeFilter<WillmoreD>(ringsD.GetPointer(), Backend::CPU, 5e-5),
        MakeFilter<WillmoreD>(ringsD.GetPointer(), Backend::OpenCL, 5e-5),
        1e-10);
}

/**
 * Non-square spacing is physical: the flow of 2u on the spacing (2 h1, 2 h2) to time 2^k T (k = 2 for mean
 * curvature, 4 for Willmore) with the tolerance doubled is twice the engine's flow of u on (h1, h2) to T, bit
 * for bit (every factor is a power of two), and it differs from the flow on a square spacing.
 */
template<typename TFilter>
void
ExpectPhysicalSpacing(gpur::GraphFlowType flow, double finalTime, double timeFactor)
{
  using Real = typename TFilter::OutputPixelType;
  const std::size_t nx = 33, ny = 25;
  const gpur::Grid grid = gpur::MakeGrid2D(nx, ny, 0.125, 0.0625);
  std::vector<Real> u(grid.Count()), twice(grid.Count()), engine(grid.Count());
  for (std::size_t j = 0; j < ny; ++j)
    for (std::size_t i = 0; i < nx; ++i)
    {
      const double x = i * 0.125, y = j * 0.0625;
      u[i + nx * j] = static_cast<Real>(0.5 * std::sin(3 * x) * std::cos(5 * y) + 0.2 * x);
      twice[i + nx * j] = 2 * u[i + nx * j];
    }
  gpur::GraphFlowParameters p;
  p.flow = flow;
  p.finalTime = finalTime;
  p.boundary = gpur::GraphFlowBoundary::Neumann;
  p.tolerance = 1e-4;
  const auto report = gpur::GraphFlowRun(u.data(), engine.data(), grid, p, gpur::MakeExecution(gpur::Backend::CPU));

  auto image = MakeImage<typename TFilter::InputImageType>(twice, nx, ny, 0.25, 0.125);
  auto filter = MakeFilter<TFilter>(image.GetPointer(), Backend::CPU, timeFactor * finalTime);
  filter->SetTolerance(2e-4);
  filter->Update();
  EXPECT_EQ(filter->GetNumberOfAcceptedSteps(), report.steps.accepted);
  EXPECT_EQ(filter->GetNumberOfRejectedSteps(), report.steps.rejected);
  const auto out = Pixels(filter->GetOutput());
  for (std::size_t k = 0; k < out.size(); ++k)
    ASSERT_EQ(out[k], 2 * engine[k]) << gpur::ToString(flow) << " pixel " << k;

  auto square = MakeImage<typename TFilter::InputImageType>(twice, nx, ny, 0.25, 0.25);
  auto isotropic = MakeFilter<TFilter>(square.GetPointer(), Backend::CPU, timeFactor * finalTime);
  isotropic->SetTolerance(2e-4);
  isotropic->Update();
  double difference = 0.0;
  const auto other = Pixels(isotropic->GetOutput());
  for (std::size_t k = 0; k < out.size(); ++k)
    difference = std::max(difference, std::abs(double(other[k]) - double(out[k])));
  EXPECT_GT(difference, 1e-3) << "the y spacing is used";
}

TEST(GraphFlowFilters, SpacingIsPhysical)
{
  ExpectPhysicalSpacing<MeanF>(gpur::GraphFlowType::MeanCurvature, 0.01, 4.0);
  ExpectPhysicalSpacing<MeanD>(gpur::GraphFlowType::MeanCurvature, 0.01, 4.0);
  ExpectPhysicalSpacing<WillmoreD>(gpur::GraphFlowType::Willmore, 2e-5, 16.0);
}

TEST(GraphFlowFilters, AreaAndWillmoreEnergyDecrease)
{
  const gpur::Grid grid = gpurtest::SquareGrid(48, -2.0, 2.0);
  auto rings = Rings<Image2D>(48);
  double area = gpur::GraphSurfaceArea(rings->GetBufferPointer(), grid);
  double energy = gpur::GraphWillmoreEnergy(rings->GetBufferPointer(), grid);
  const double firstArea = area, firstEnergy = energy;
  for (const double t : { 0.005, 0.01, 0.02 })
  {
    auto mean = MakeFilter<MeanD>(rings.GetPointer(), Backend::CPU, t);
    mean->Update();
    const double next = gpur::GraphSurfaceArea(mean->GetOutput()->GetBufferPointer(), grid);
    EXPECT_LT(next, area) << "t = " << t;
    area = next;
  }
  EXPECT_LT(area, 0.8 * firstArea);
  for (const double t : { 1e-5, 2e-5, 4e-5 })
  {
    auto willmore = MakeFilter<WillmoreD>(rings.GetPointer(), Backend::CPU, t);
    willmore->Update();
    const double next = gpur::GraphWillmoreEnergy(willmore->GetOutput()->GetBufferPointer(), grid);
    EXPECT_LT(next, energy) << "t = " << t;
    energy = next;
  }
  EXPECT_LT(energy, 0.95 * firstEnergy);
}

TEST(GraphFlowFilters, KeepMetadata)
{
  auto rings = Rings<Image2D>(16);
  for (const bool willmore : { false, true })
  {
    itk::ImageToImageFilter<Image2D, Image2D>::Pointer filter;
    if (willmore)
      filter = MakeFilter<WillmoreD>(rings.GetPointer(), Backend::CPU, 1e-4).GetPointer();
    else
      filter = MakeFilter<MeanD>(rings.GetPointer(), Backend::CPU, 0.01).GetPointer();
    filter->Update();
    const Image2D * out = filter->GetOutput();
    EXPECT_EQ(out->GetLargestPossibleRegion(), rings->GetLargestPossibleRegion());
    EXPECT_EQ(out->GetSpacing(), rings->GetSpacing());
    EXPECT_EQ(out->GetOrigin(), rings->GetOrigin());
    EXPECT_EQ(out->GetDirection(), rings->GetDirection());
    std::string name;
    EXPECT_TRUE(itk::ExposeMetaData<std::string>(out->GetMetaDataDictionary(), "PatientName", name));
    EXPECT_EQ(name, "Graph^Flow");
  }
}

TEST(GraphFlowFilters, ProgressInSimulatedTimeAndAbortLeavesNoOutput)
{
  auto rings = Rings<Image2F>(32);
  for (const Backend backend : { Backend::CPU, Backend::OpenCL })
  {
    auto filter = MakeFilter<MeanF>(rings.GetPointer(), backend, 0.02);
    std::vector<float> progress;
    filter->AddObserver(itk::ProgressEvent(),
                        [&progress, &filter](const itk::EventObject &) { progress.push_back(filter->GetProgress()); });
    filter->Update();
    ASSERT_GE(progress.size(), filter->GetNumberOfAcceptedSteps() + 1) << "a report per accepted step, with 0 and 1";
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
    EXPECT_EQ(progress.front(), 0.0f);
    EXPECT_EQ(progress.back(), 1.0f);

    // Abort once a third of the time has passed: ProcessAborted, no output image, no backend reported.
    auto aborting = MakeFilter<MeanF>(rings.GetPointer(), backend, 0.02);
    gpur::testing::AbortWhen(
      aborting.GetPointer(), itk::ProgressEvent(), [](const MeanF & f) { return f.GetProgress() > 0.3f; });
    gpur::testing::ExpectAbortedWithoutOutput(aborting.GetPointer());
    EXPECT_STREQ(aborting->GetBackendUsed(), "");
    EXPECT_LT(aborting->GetTimeReached(), 0.02);
  }
}

TEST(GraphFlowFilters, BadInputThrowsITKExceptionsNamingTheProblem)
{
  const auto expectMessage = [](auto * filter, const std::string & expected)
  {
    const std::string message = MessageOf(filter);
    EXPECT_NE(message.find(expected), std::string::npos) << "expected '" << expected << "' in: " << message;
    EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr) << "no partial output: " << message;
  };
  auto small = MakeImage<Image2F>(std::vector<float>(10, 1.0f), 5, 2, 1.0, 1.0);
  expectMessage(MakeFilter<MeanF>(small.GetPointer(), Backend::CPU, 1.0).GetPointer(), "at least 3 x 3 pixels");

  auto rings = Rings<Image2F>(16);
  const auto withSetting = [&](const std::function<void(MeanF *)> & set, const std::string & expected)
  {
    auto filter = MakeFilter<MeanF>(rings.GetPointer(), Backend::CPU, 0.01);
    set(filter.GetPointer());
    expectMessage(filter.GetPointer(), expected);
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  withSetting([](MeanF * f) { f->SetFinalTime(0.0); }, "the final time must be > 0 and finite");
  withSetting([nan](MeanF * f) { f->SetFinalTime(nan); }, "the final time must be > 0 and finite");
  withSetting([](MeanF * f) { f->SetTolerance(-1.0); }, "the tolerance must be > 0 and finite");
  withSetting([](MeanF * f) { f->SetRegularization(0.0); }, "the regularization must be > 0 and finite");
  withSetting([](MeanF * f) { f->SetInitialTimeStep(-1.0); }, "the initial step must be >= 0 (0: automatic)");
  withSetting([](MeanF * f) { f->SetMaximumNumberOfSteps(0); }, "the maximum number of steps must be >= 1");
  // A budget too small for the time asked: a failure, not a result at an earlier time.
  withSetting(
    [](MeanF * f)
    {
      f->SetMaximumNumberOfSteps(2);
      f->SetFinalTime(10.0);
    },
    "steps");

  for (const float bad : { std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity() })
  {
    auto image = Rings<Image2F>(16);
    image->GetBufferPointer()[40] = bad;
    expectMessage(MakeFilter<MeanF>(image.GetPointer(), Backend::CPU, 0.01).GetPointer(), "not finite");
  }
}

TEST(GraphFlowFilters, WillmoreRefusesFloat)
{
  auto rings = Rings<Image2F>(16);
  auto filter = MakeFilter<WillmoreF>(rings.GetPointer(), Backend::CPU, 1e-4);
  const std::string message = MessageOf(filter.GetPointer());
  EXPECT_NE(message.find("Willmore flow needs double precision"), std::string::npos) << message;
  EXPECT_NE(message.find("itk::Image<double, 2>"), std::string::npos) << "what is allowed: " << message;
  EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr);
}

TEST(GraphFlowFilters, DefaultsAndPrintSelf)
{
  auto filter = WillmoreD::New();
  EXPECT_EQ(filter->GetFinalTime(), 1.0);
  EXPECT_EQ(filter->GetTolerance(), 1e-5);
  EXPECT_EQ(filter->GetRegularization(), 1.0);
  EXPECT_EQ(filter->GetBoundaryCondition(), Boundary::Neumann);
  EXPECT_EQ(filter->GetInitialTimeStep(), 0.0);
  EXPECT_EQ(filter->GetMaximumNumberOfSteps(), 10000000u);
  auto rings = Rings<Image2D>(16);
  filter->SetInput(rings);
  filter->SetFinalTime(1e-4);
  filter->SetBoundaryCondition(Boundary::Dirichlet);
  filter->SetBackend(Backend::CPU);
  filter->Update();
  std::ostringstream printed;
  filter->Print(printed);
  for (const char * line : { "Flow: Willmore",
                             "FinalTime: 0.0001",
                             "Tolerance: 1e-05",
                             "Regularization: 1",
                             "BoundaryCondition: Dirichlet",
                             "InitialTimeStep: 0 (automatic)",
                             "MaximumNumberOfSteps: 10000000",
                             "NumberOfAcceptedSteps: ",
                             "TimeReached: 0.0001",
                             "BackendUsed: CPU" })
    EXPECT_NE(printed.str().find(line), std::string::npos) << line << " in:\n" << printed.str();
  std::ostringstream mean;
  MeanF::New()->Print(mean);
  EXPECT_NE(mean.str().find("Flow: MeanCurvature"), std::string::npos) << mean.str();
  EXPECT_NE(mean.str().find("BoundaryCondition: Neumann"), std::string::npos) << mean.str();
}

} // namespace
