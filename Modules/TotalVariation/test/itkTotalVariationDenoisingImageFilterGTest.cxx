// SPDX-License-Identifier: Apache-2.0
// Tests of the ITK adapter: metadata, spacing, backends, progress, abort and errors.
#include "itkTotalVariationDenoisingImageFilter.h"

#include "gpurDevice.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "itkCommand.h"
#include "itkImageRegionIterator.h"
#include "itkOutputWindow.h"
#include "itkGPURFilterTesting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

template<typename TImage>
typename TImage::Pointer
MakeNoisyImage(unsigned n, double sigma = 0.1)
{
  constexpr unsigned D = TImage::ImageDimension;
  auto image = TImage::New();
  typename TImage::SizeType size;
  size.Fill(n);
  size[0] = n + 5; // non-square
  image->SetRegions(size);
  typename TImage::SpacingType spacing;
  typename TImage::PointType origin;
  typename TImage::DirectionType direction;
  direction.SetIdentity();
  for (unsigned d = 0; d < D; ++d)
  {
    spacing[d] = 0.5 + 0.25 * d;
    origin[d] = -10.0 + 3.0 * d;
  }
  direction[0][0] = 0.0; // a rotation, so that the direction must be carried over
  direction[0][1] = 1.0;
  direction[1][0] = -1.0;
  direction[1][1] = 0.0;
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(direction);
  image->Allocate();
  gpur::Grid grid;
  grid.dimension = D;
  for (unsigned d = 0; d < D; ++d)
    grid.size[d] = size[d];
  const auto noisy = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), sigma, 11);
  std::copy(noisy.begin(), noisy.end(), image->GetBufferPointer());
  return image;
}

template<typename TImage>
std::vector<double>
Pixels(const TImage * image)
{
  const auto n = image->GetBufferedRegion().GetNumberOfPixels();
  return std::vector<double>(image->GetBufferPointer(), image->GetBufferPointer() + n);
}

using Image2F = itk::Image<float, 2>;
using Image3F = itk::Image<float, 3>;
using Image3D = itk::Image<double, 3>;

/** ITK's output window replaced by one that keeps the warnings, for the lifetime of the object. */
class WarningRecorder : public itk::OutputWindow
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(WarningRecorder);
  using Self = WarningRecorder;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  std::vector<std::string> warnings;

  void
  DisplayWarningText(const char * text) override
  {
    warnings.emplace_back(text);
  }
  void
  DisplayText(const char *) override
  {
  }

protected:
  WarningRecorder() = default;
};

/** Installs a WarningRecorder while it lives (and the warning display). */
class RecordWarnings
{
public:
  RecordWarnings()
    : m_Previous(itk::OutputWindow::GetInstance())
    , m_Display(itk::Object::GetGlobalWarningDisplay())
  {
    itk::OutputWindow::SetInstance(m_Recorder);
    itk::Object::GlobalWarningDisplayOn();
  }
  ~RecordWarnings()
  {
    itk::OutputWindow::SetInstance(m_Previous);
    itk::Object::SetGlobalWarningDisplay(m_Display);
  }
  RecordWarnings(const RecordWarnings &) = delete;
  RecordWarnings &
  operator=(const RecordWarnings &) = delete;
  const std::vector<std::string> &
  Warnings() const
  {
    return m_Recorder->warnings;
  }

private:
  WarningRecorder::Pointer m_Recorder = WarningRecorder::New();
  itk::OutputWindow::Pointer m_Previous;
  bool m_Display;
};

} // namespace

TEST(TotalVariationFilter, KeepsMetadataAndReportsTheBackend)
{
  auto input = MakeNoisyImage<Image3F>(20);
  for (auto backend : { itk::GPURestorationEnums::Backend::CPU,
                        itk::GPURestorationEnums::Backend::OpenCL,
                        itk::GPURestorationEnums::Backend::Auto })
  {
    using FilterType = itk::TotalVariationDenoisingImageFilter<Image3F>;
    auto filter = FilterType::New();
    filter->SetInput(input);
    filter->SetLambda(10.0);
    filter->SetBackend(backend);
    filter->Update();
    auto out = filter->GetOutput();
    EXPECT_EQ(out->GetOrigin(), input->GetOrigin());
    EXPECT_EQ(out->GetSpacing(), input->GetSpacing());
    EXPECT_EQ(out->GetDirection(), input->GetDirection());
    EXPECT_EQ(out->GetLargestPossibleRegion(), input->GetLargestPossibleRegion());
    const std::string used = filter->GetBackendUsed();
    const std::string reason = filter->GetBackendReason();
    if (backend == itk::GPURestorationEnums::Backend::Auto)
    {
      // Auto measures on a CPU OpenCL driver (gpurAutoBackendTest): either backend, and why.
      EXPECT_TRUE(used == "CPU" || used.rfind("OpenCL: ", 0) == 0) << used;
      EXPECT_EQ(reason.rfind("Auto: ", 0), 0u) << reason;
    }
    else
    {
      const bool cpu = backend == itk::GPURestorationEnums::Backend::CPU;
      EXPECT_EQ(used.rfind(cpu ? "CPU" : "OpenCL", 0), 0u) << used;
      EXPECT_EQ(reason, cpu ? "backend CPU requested" : "backend OpenCL requested");
    }
    EXPECT_TRUE(filter->GetConverged());
    EXPECT_LE(filter->GetRelativeGap(), 1e-4);
    std::ostringstream print;
    filter->Print(print);
    EXPECT_NE(print.str().find("BackendUsed: " + used), std::string::npos);
    EXPECT_NE(print.str().find("BackendReason: " + reason), std::string::npos);
  }
}

TEST(TotalVariationFilter, DefaultsChooseLambdaFromTheNoiseInAnyUnit)
{
  // Without parameters the filter estimates the noise and chooses lambda by the discrepancy principle,
  // so the same image in [0, 1] at its spacing and in HU (2000 v - 1000) at 1.4 times the spacing gives
  // the same result: lambda scales by 1 / (2000 * 1.4), sigma by 2000.
  auto unit = MakeNoisyImage<Image2F>(96); // Shepp-Logan + noise 0.1, spacing 0.5 x 0.75
  auto hu = Image2F::New();
  hu->CopyInformation(unit);
  Image2F::SpacingType spacing = unit->GetSpacing();
  spacing[0] *= 1.4;
  spacing[1] *= 1.4;
  hu->SetSpacing(spacing);
  hu->SetRegions(unit->GetLargestPossibleRegion());
  hu->Allocate();
  const auto f = Pixels(unit.GetPointer());
  std::transform(f.begin(), f.end(), hu->GetBufferPointer(), [](double v) { return float(2000.0 * v - 1000.0); });

  using FilterType = itk::TotalVariationDenoisingImageFilter<Image2F>;
  auto run = [](const Image2F * input)
  {
    auto filter = FilterType::New();
    filter->SetInput(input);
    EXPECT_EQ(filter->GetLambda(), 0.0) << "the default is the automatic lambda";
    filter->Update();
    EXPECT_TRUE(filter->GetNoiseSigmaEstimated());
    EXPECT_GE(filter->GetNumberOfLambdaSolves(), 2u);
    EXPECT_EQ(filter->GetLambdaHistory().size(), filter->GetNumberOfLambdaSolves());
    for (const auto & solve : filter->GetLambdaHistory())
    {
      EXPECT_TRUE(solve.converged) << "lambda " << solve.lambda;
      EXPECT_LE(solve.relativeGap, filter->GetGapTolerance());
    }
    EXPECT_TRUE(filter->GetConverged());
    EXPECT_NEAR(filter->GetDiscrepancy(), filter->GetDiscrepancyTarget(), 0.02 * filter->GetDiscrepancyTarget());
    EXPECT_EQ(filter->GetLambdaUsed(), filter->GetLambdaHistory().back().lambda);
    std::ostringstream print;
    filter->Print(print);
    EXPECT_NE(print.str().find("Lambda: 0 (automatic: discrepancy principle)"), std::string::npos) << print.str();
    EXPECT_NE(print.str().find("NoiseSigmaUsed: "), std::string::npos);
    return filter;
  };
  const auto a = run(unit), b = run(hu);
  EXPECT_NEAR(a->GetNoiseSigmaUsed(), 0.1, 0.015);
  EXPECT_NEAR(b->GetNoiseSigmaUsed() / (2000.0 * a->GetNoiseSigmaUsed()), 1.0, 1e-5);
  EXPECT_NEAR(b->GetLambdaUsed() * 2000.0 * 1.4 / a->GetLambdaUsed(), 1.0, 1e-4);
  const auto ua = Pixels(a->GetOutput()), ub = Pixels(b->GetOutput());
  double worst = 0.0;
  for (std::size_t i = 0; i < ua.size(); ++i)
    worst = std::max(worst, std::abs((ub[i] + 1000.0) / 2000.0 - ua[i]));
  EXPECT_LE(worst, 1e-5) << "the result does not depend on the units";
  // It denoises: closer to the phantom than the input (which is 0.1 away on average).
  gpur::Grid grid = gpur::MakeGrid2D(101, 96);
  const auto truth = gpur::SheppLoganPhantom(grid);
  EXPECT_GT(
    gpur::PeakSignalToNoiseRatio(ua.data(), std::vector<double>(truth.begin(), truth.end()).data(), ua.size(), 1.0),
    gpur::PeakSignalToNoiseRatio(f.data(), std::vector<double>(truth.begin(), truth.end()).data(), f.size(), 1.0) +
      6.0);

  // A known sigma is used as given; a fixed Lambda is used as given, in one solve, and NoiseSigma then
  // only reports the discrepancy.
  auto known = FilterType::New();
  known->SetInput(hu);
  known->SetNoiseSigma(200.0);
  known->Update();
  EXPECT_FALSE(known->GetNoiseSigmaEstimated());
  EXPECT_EQ(known->GetNoiseSigmaUsed(), 200.0);
  known->SetLambda(0.002);
  known->Update();
  EXPECT_EQ(known->GetLambdaUsed(), 0.002);
  EXPECT_EQ(known->GetNumberOfLambdaSolves(), 1u);
  EXPECT_GT(known->GetDiscrepancy(), 0.0);
  EXPECT_EQ(known->GetDiscrepancyTarget(), 0.0);
}

TEST(TotalVariationFilter, CPUAndOpenCLAgreeThroughTheFilter)
{
  auto input = MakeNoisyImage<Image2F>(48);
  auto run = [&](itk::GPURestorationEnums::Backend backend)
  {
    auto filter = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
    filter->SetInput(input);
    filter->SetLambda(8.0); // the default of earlier versions
    filter->SetBackend(backend);
    filter->SetGapTolerance(0.0);
    filter->SetMaximumNumberOfIterations(150);
    filter->Update();
    return Pixels(filter->GetOutput());
  };
  const auto cpu = run(itk::GPURestorationEnums::Backend::CPU), ocl = run(itk::GPURestorationEnums::Backend::OpenCL);
  EXPECT_LE(gpur::MaxAbsDifference(cpu.data(), ocl.data(), cpu.size()), 1e-4);
}

TEST(TotalVariationFilter, DeviceMemoryLimitStreamsWithTheSameResult)
{
  auto input = MakeNoisyImage<Image3F>(40); // 45 x 40 x 40
  auto run = [&](itk::SizeValueType limit)
  {
    auto filter = itk::TotalVariationDenoisingImageFilter<Image3F>::New();
    filter->SetInput(input);
    filter->SetLambda(8.0);
    filter->SetBackend(itk::GPURestorationEnums::Backend::OpenCL);
    filter->SetMaximumNumberOfIterations(20);
    filter->SetGapTolerance(0.0);
    filter->SetExchangeInterval(2); // halos of 3 slices: regions of 13 fit the limit
    filter->SetDeviceMemoryLimit(limit);
    filter->Update();
    return std::make_pair(Pixels(filter->GetOutput()), filter->GetStreamRegions());
  };
  const auto inMemory = run(0);
  const auto streamed = run(1800 * 1024); // the state of ACP needs 2.6 MB, 65 KB per slice
  EXPECT_EQ(inMemory.second, 0u);
  EXPECT_GE(streamed.second, 4u);
  EXPECT_EQ(streamed.first, inMemory.first);

  auto filter = itk::TotalVariationDenoisingImageFilter<Image3F>::New();
  filter->SetInput(input);
  filter->SetLambda(8.0);
  filter->SetBackend(itk::GPURestorationEnums::Backend::OpenCL);
  filter->SetDeviceMemoryLimit(64 * 1024); // less than two padded regions
  EXPECT_THROW(filter->Update(), itk::ExceptionObject);
}

TEST(TotalVariationFilter, UsesThePhysicalSpacing)
{
  // Same pixels, spacing doubled along every axis: equivalent to halving lambda's
  // effect on the gradient, i.e. the engine result with that grid, not the unit one.
  auto input = MakeNoisyImage<Image2F>(32);
  auto filter = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
  filter->SetInput(input);
  filter->SetLambda(gpur::TVParameters().lambda); // the engine's (and earlier versions' filter's) 8
  filter->SetBackend(itk::GPURestorationEnums::Backend::CPU);
  filter->Update();
  const auto withSpacing = Pixels(filter->GetOutput());

  const auto f = Pixels(input.GetPointer());
  std::vector<float> ff(f.begin(), f.end()), u(ff.size());
  const auto size = input->GetLargestPossibleRegion().GetSize();
  gpur::TVParameters p;
  gpur::ExecutionOptions cpu;
  cpu.backend = gpur::Backend::CPU;
  gpur::DenoiseTV(ff.data(), u.data(), gpur::MakeGrid2D(size[0], size[1], 0.5, 0.75), p, cpu);
  EXPECT_LE(gpur::MaxAbsDifference(withSpacing.data(), std::vector<double>(u.begin(), u.end()).data(), u.size()), 1e-6);
  gpur::DenoiseTV(ff.data(), u.data(), gpur::MakeGrid2D(size[0], size[1]), p, cpu);
  EXPECT_GT(gpur::MaxAbsDifference(withSpacing.data(), std::vector<double>(u.begin(), u.end()).data(), u.size()), 1e-2);
}

TEST(TotalVariationFilter, DoubleAndIntegerInputs)
{
  auto filter = itk::TotalVariationDenoisingImageFilter<Image3D>::New();
  auto noisy = MakeNoisyImage<Image3F>(12);
  auto input = Image3D::New();
  input->CopyInformation(noisy);
  input->SetRegions(noisy->GetLargestPossibleRegion());
  input->Allocate();
  std::copy(noisy->GetBufferPointer(),
            noisy->GetBufferPointer() + noisy->GetBufferedRegion().GetNumberOfPixels(),
            input->GetBufferPointer());
  filter->SetInput(input);
  filter->SetLambda(8.0);
  filter->Update(); // Auto: OpenCL when the device has fp64 (PoCL has), else CPU
  EXPECT_TRUE(filter->GetConverged());

  // A short input into a float output uses the implicitly instantiated template.
  using ShortImage = itk::Image<short, 2>;
  auto shorts = ShortImage::New();
  ShortImage::SizeType size = { { 16, 12 } };
  shorts->SetRegions(size);
  shorts->Allocate();
  shorts->FillBuffer(100);
  auto sf = itk::TotalVariationDenoisingImageFilter<ShortImage, Image2F>::New();
  sf->SetInput(shorts);
  sf->SetLambda(8.0); // a constant image has no noise to choose lambda from
  sf->Update();
  EXPECT_NEAR(sf->GetOutput()->GetPixel({ { 3, 4 } }), 100.0f, 1e-4);
}

TEST(TotalVariationFilter, ProgressEveryIterationAndAbort)
{
  auto input = MakeNoisyImage<Image2F>(24);
  auto filter = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
  filter->SetInput(input);
  filter->SetLambda(8.0);
  filter->SetGapTolerance(0.0);
  filter->SetMaximumNumberOfIterations(40);
  unsigned events = 0;
  auto observer = itk::CStyleCommand::New();
  observer->SetClientData(&events);
  observer->SetCallback([](itk::Object *, const itk::EventObject &, void * data) { ++*static_cast<unsigned *>(data); });
  filter->AddObserver(itk::ProgressEvent(), observer);
  filter->Update();
  EXPECT_GE(events, 40u);

  auto aborting = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
  aborting->SetInput(input);
  aborting->SetLambda(8.0);
  aborting->SetGapTolerance(0.0);
  gpur::testing::AbortWhen(
    aborting.GetPointer(), itk::ProgressEvent(), [](const itk::ProcessObject & p) { return p.GetProgress() > 0.01f; });
  gpur::testing::ExpectAbortedWithoutOutput(aborting.GetPointer());
}

TEST(TotalVariationFilter, NonConvergenceIsAnITKWarning)
{
  auto input = MakeNoisyImage<Image2F>(32);
  auto filter = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
  filter->SetInput(input);
  filter->SetBackend(itk::GPURestorationEnums::Backend::CPU);
  filter->SetLambda(4.0);
  filter->SetMaximumNumberOfIterations(20); // far too few for the default tolerance 1e-4
  {
    const RecordWarnings record;
    filter->Update();
    ASSERT_EQ(record.Warnings().size(), 1u);
    EXPECT_NE(record.Warnings()[0].find("TV denoising did not converge: the relative primal-dual gap is"),
              std::string::npos)
      << record.Warnings()[0];
    EXPECT_NE(record.Warnings()[0].find("after 20 iterations (the maximum)"), std::string::npos);
  }
  EXPECT_FALSE(filter->GetConverged());
  EXPECT_GT(filter->GetRelativeGap(), 1e-4);
  ASSERT_EQ(filter->GetReport().warnings.size(), 1u);
  std::ostringstream printed;
  filter->Print(printed);
  EXPECT_NE(printed.str().find("Warning: TV denoising did not converge"), std::string::npos);

  // The default budget (2000) is enough here: converged, no warning; GapTolerance 0 claims nothing.
  filter->SetMaximumNumberOfIterations(2000);
  EXPECT_EQ(filter->GetMaximumNumberOfIterations(),
            itk::TotalVariationDenoisingImageFilter<Image2F>::New()->GetMaximumNumberOfIterations());
  {
    const RecordWarnings record;
    filter->Update();
    EXPECT_TRUE(filter->GetConverged());
    EXPECT_TRUE(record.Warnings().empty());
    filter->SetGapTolerance(0.0);
    filter->SetMaximumNumberOfIterations(20);
    filter->Update();
    EXPECT_FALSE(filter->GetConverged());
    EXPECT_TRUE(record.Warnings().empty());
  }
}

TEST(TotalVariationFilter, AbortOnOpenCLTakesEffectWithinASecond)
{
  // AbortGenerateData set 0.5 s into a run of minutes (2000 iterations of 96 x 96 x 64);
  // before, the host had queued every iteration by then and the flag was never looked at.
  if (!gpur::HaveOpenCLDevice())
    GTEST_SKIP() << "no OpenCL device";
  using Clock = std::chrono::steady_clock;
  auto input = Image3F::New();
  input->SetRegions(Image3F::SizeType{ { 96, 96, 64 } });
  input->Allocate();
  const auto noisy = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(gpur::MakeGrid3D(96, 96, 64)), 0.1, 3);
  std::copy(noisy.begin(), noisy.end(), input->GetBufferPointer());
  auto filter = itk::TotalVariationDenoisingImageFilter<Image3F>::New();
  filter->SetInput(input);
  filter->SetLambda(8.0);
  filter->SetBackend(itk::GPURestorationEnums::Backend::OpenCL);
  filter->SetGapTolerance(0.0);
  filter->SetMaximumNumberOfIterations(2000);
  struct State
  {
    itk::ProcessObject * filter;
    Clock::time_point start;
    Clock::time_point requested;
    float progress = 0.0f;
  } state{ filter.GetPointer(), Clock::now(), Clock::time_point(), 0.0f };
  auto stop = itk::CStyleCommand::New();
  stop->SetClientData(&state);
  stop->SetCallback(
    [](itk::Object *, const itk::EventObject &, void * data)
    {
      auto & s = *static_cast<State *>(data);
      if (!s.filter->GetAbortGenerateData() && Clock::now() - s.start > std::chrono::milliseconds(500))
      {
        s.requested = Clock::now();
        s.progress = s.filter->GetProgress();
        s.filter->AbortGenerateDataOn();
      }
    });
  filter->AddObserver(itk::ProgressEvent(), stop);
  state.start = Clock::now();
  EXPECT_THROW(filter->Update(), itk::ProcessAborted);
  const double latency = std::chrono::duration<double>(Clock::now() - state.requested).count();
  EXPECT_GT(state.progress, 0.0f) << "the request came during the run";
  EXPECT_LT(state.progress, 0.5f) << "progress follows the device, not the host's queueing";
  EXPECT_LT(latency, 1.0);
  EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr) << "no partial output";
}

TEST(TotalVariationFilter, BadInputThrowsITKExceptions)
{
  // Every engine error (gpur::InvalidArgument, OpenCLError, ...) arrives as an itk::ExceptionObject of
  // the filter, with no output and no BackendUsed left behind (itk::GPURestorationImageFilter).
  auto expectMessage = [](const auto & filter, const std::string & text)
  {
    try
    {
      filter->Update();
      FAIL() << "expected an exception mentioning '" << text << "'";
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find(text), std::string::npos) << e.GetDescription();
      EXPECT_NE(std::string(e.GetDescription()).find("TotalVariationDenoisingImageFilter"), std::string::npos)
        << e.GetDescription();
    }
    EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr) << "no partial output";
    EXPECT_EQ(std::string(filter->GetBackendUsed()), "");
  };
  auto input = MakeNoisyImage<Image2F>(10);
  auto filter = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
  filter->SetInput(input);
  filter->SetLambda(-2.0);
  expectMessage(filter, "lambda");
  filter->SetLambda(5.0);
  filter->SetMaximumNumberOfIterations(0);
  expectMessage(filter, "iterations");
  filter->SetMaximumNumberOfIterations(10);
  filter->SetLambda(1e40); // before: an all-NaN output reported as converged with gap 0
  expectMessage(filter, "lambda = 1e+40 is outside the range a float solve represents");
  filter->SetLambda(5.0);
  filter->SetGapTolerance(1e-9);
  expectMessage(filter, "the gap tolerance 1e-09 is below what float32 arithmetic reaches");
  filter->SetGapTolerance(1e-4);

  input->SetPixel({ { 2, 3 } }, std::nanf(""));
  input->Modified();
  expectMessage(filter, "non-finite");

  auto single = Image2F::New();
  single->SetRegions(Image2F::SizeType{ { 1, 1 } });
  single->Allocate();
  single->FillBuffer(1.0f);
  auto f1 = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
  f1->SetInput(single);
  f1->SetLambda(8.0);
  expectMessage(f1, "single voxel");

  auto f2 = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
  f2->SetInput(MakeNoisyImage<Image2F>(10));
  f2->SetLambda(8.0);
  f2->SetBackend(itk::GPURestorationEnums::Backend::OpenCL);
  f2->SetDevice("no-such-device-xyz");
  expectMessage(f2, "matches no device");
}

TEST(TotalVariationFilter, EnumsAtTheITKAPI)
{
  // ITK 5 style enum classes, twins of the engine's: the same names, converted in one place.
  using Filter = itk::TotalVariationDenoisingImageFilter<Image2F>;
  using Backend = Filter::BackendEnum;
  using Algorithm = Filter::AlgorithmEnum;
  static_assert(std::is_same<Backend, itk::GPURestorationEnums::Backend>::value, "the shared backend enum");
  static_assert(std::is_same<Filter::BackendType, Backend>::value &&
                  std::is_same<Filter::AlgorithmType, Algorithm>::value,
                "the earlier type names remain");
  for (const gpur::Backend engine : { gpur::Backend::Auto, gpur::Backend::CPU, gpur::Backend::OpenCL })
  {
    const Backend value = itk::GPURestoration::FromEngine<Backend>(engine);
    EXPECT_EQ(itk::GPURestoration::ToEngine(value), engine);
    std::ostringstream name;
    name << value;
    EXPECT_EQ(name.str(), gpur::ToString(engine));
  }
  for (const gpur::TVAlgorithm engine :
       { gpur::TVAlgorithm::ChambollePock, gpur::TVAlgorithm::AcceleratedChambollePock, gpur::TVAlgorithm::PDU })
  {
    const Algorithm value = itk::GPURestoration::FromEngine<Algorithm>(engine);
    EXPECT_EQ(itk::GPURestoration::ToEngine(value), engine);
    std::ostringstream name;
    name << value;
    EXPECT_EQ(name.str(), gpur::ToString(engine));
  }
  EXPECT_EQ(itk::GPURestoration::ToEngine(Algorithm::PDU), gpur::TVAlgorithm::PDU);
  EXPECT_EQ(itk::GPURestoration::ToEngine(Backend::OpenCL), gpur::Backend::OpenCL);

  // The filter hands its choice to the engine: PDU and CP give other iterates than the default.
  auto input = MakeNoisyImage<Image2F>(16);
  auto run = [&](Algorithm algorithm)
  {
    auto filter = Filter::New();
    filter->SetInput(input);
    filter->SetLambda(8.0);
    filter->SetBackend(Backend::CPU);
    filter->SetAlgorithm(algorithm);
    filter->SetGapTolerance(0.0);
    filter->SetMaximumNumberOfIterations(5);
    filter->Update();
    std::ostringstream print;
    filter->Print(print);
    EXPECT_NE(print.str().find("Backend: CPU"), std::string::npos) << print.str();
    std::ostringstream name;
    name << "Algorithm: " << algorithm << "\n";
    EXPECT_NE(print.str().find(name.str()), std::string::npos) << print.str();
    return Pixels(filter->GetOutput());
  };
  const auto acp = run(Algorithm::AcceleratedChambollePock), cp = run(Algorithm::ChambollePock),
             pdu = run(Algorithm::PDU);
  EXPECT_GT(gpur::MaxAbsDifference(acp.data(), cp.data(), acp.size()), 1e-6);
  EXPECT_GT(gpur::MaxAbsDifference(acp.data(), pdu.data(), acp.size()), 1e-6);
}

TEST(TotalVariationFilter, KernelBuildFailureCarriesTheBuildLog)
{
  // A broken kernel override (BrokenKernels/tv_rof.cl via ITKGPUR_KERNEL_DIR) must surface as an ITK
  // exception with the compiler's log, not a crash.
  setenv("ITKGPUR_KERNEL_DIR", GPUR_BROKEN_KERNEL_DIR, 1);
  auto filter = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
  filter->SetInput(MakeNoisyImage<Image2F>(10));
  filter->SetLambda(8.0);
  filter->SetBackend(itk::GPURestorationEnums::Backend::OpenCL);
  try
  {
    filter->Update();
    unsetenv("ITKGPUR_KERNEL_DIR");
    FAIL() << "expected a build failure";
  }
  catch (const itk::ExceptionObject & e)
  {
    unsetenv("ITKGPUR_KERNEL_DIR");
    const std::string m = e.GetDescription();
    EXPECT_NE(m.find("build log"), std::string::npos) << m;
    EXPECT_NE(m.find("broken_identifier_7"), std::string::npos) << m;
  }
}
