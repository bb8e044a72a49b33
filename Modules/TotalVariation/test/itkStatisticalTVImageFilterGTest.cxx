// Tests of itk::StatisticalTVImageFilter: the variance input and its checks,
// the estimated variance, the automatic lambda, geometry, and two devices.
#include "itkStatisticalTVImageFilter.h"

#include "gpurDevice.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"

#include <gtest/gtest.h>

#include <cmath>

namespace
{

using ImageType = itk::Image<float, 3>;

struct Volume
{
  ImageType::Pointer truth, noisy, variance;
};

ImageType::Pointer
NewImage(const ImageType::SizeType & size)
{
  auto image = ImageType::New();
  image->SetRegions(size);
  ImageType::SpacingType spacing;
  spacing[0] = 0.8;
  spacing[1] = 0.8;
  spacing[2] = 1.5;
  image->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -12.0;
  origin[1] = 4.0;
  origin[2] = 100.0;
  image->SetOrigin(origin);
  ImageType::DirectionType direction;
  direction.SetIdentity();
  direction[0][0] = 0.0;
  direction[0][1] = 1.0;
  direction[1][0] = -1.0;
  direction[1][1] = 0.0;
  image->SetDirection(direction);
  image->Allocate();
  return image;
}

/** Shepp-Logan with sigma 0.03 in the lower half of z and 0.12 in the upper half. */
Volume
MakeVolume(unsigned n)
{
  ImageType::SizeType size = { { n, n, n } };
  Volume v{ NewImage(size), NewImage(size), NewImage(size) };
  const gpur::Grid grid = gpur::MakeGrid3D(n, n, n);
  const auto truth = gpur::SheppLoganPhantom(grid);
  const auto low = gpur::AddGaussianNoise(truth, 0.03, 31), high = gpur::AddGaussianNoise(truth, 0.12, 32);
  for (std::size_t i = 0; i < grid.Count(); ++i)
  {
    const bool upper = i >= grid.Count() / 2;
    v.truth->GetBufferPointer()[i] = truth[i];
    v.noisy->GetBufferPointer()[i] = upper ? high[i] : low[i];
    v.variance->GetBufferPointer()[i] = upper ? 0.12f * 0.12f : 0.03f * 0.03f;
  }
  return v;
}

double
PSNR(const ImageType * a, const ImageType * truth)
{
  const auto n = truth->GetBufferedRegion().GetNumberOfPixels();
  return gpur::PeakSignalToNoiseRatio(a->GetBufferPointer(), truth->GetBufferPointer(), n, 1.0);
}

} // namespace

TEST(StatisticalTVImageFilter, VarianceInputAutomaticLambdaAndGeometry)
{
  const Volume v = MakeVolume(32);
  auto filter = itk::StatisticalTVImageFilter<ImageType>::New();
  filter->SetInput(v.noisy);
  filter->SetNoiseVariance(v.variance);
  filter->AutomaticLambdaOn();
  filter->SetLambda(5.0);
  filter->Update();
  const ImageType * out = filter->GetOutput();
  EXPECT_EQ(out->GetSpacing(), v.noisy->GetSpacing());
  EXPECT_EQ(out->GetOrigin(), v.noisy->GetOrigin());
  EXPECT_EQ(out->GetDirection(), v.noisy->GetDirection());
  EXPECT_NEAR(filter->GetDiscrepancy(), 1.0, 0.05);
  EXPECT_GT(filter->GetNumberOfLambdaSolves(), 1u);
  EXPECT_FALSE(filter->GetVarianceEstimated());
  EXPECT_NE(filter->GetLambdaUsed(), 5.0);
  EXPECT_GT(PSNR(out, v.truth),
            PSNR(v.noisy, v.truth) +
              1.5); // measured +2.0 dB: the discrepancy principle smooths strongly on this small, detailed phantom
  EXPECT_EQ(filter->GetAlgorithm(), gpur::TVAlgorithm::PDU);
  std::ostringstream print;
  filter->Print(print);
  EXPECT_NE(print.str().find("LambdaUsed"), std::string::npos);
}

TEST(StatisticalTVImageFilter, EstimatesTheVarianceWhenNoneIsGiven)
{
  const Volume v = MakeVolume(40);
  auto filter = itk::StatisticalTVImageFilter<ImageType>::New();
  filter->SetInput(v.noisy);
  filter->SetLambda(20.0);
  filter->Update();
  EXPECT_TRUE(filter->GetVarianceEstimated());
  const double trueMean = 0.5 * (0.03 * 0.03 + 0.12 * 0.12);
  EXPECT_NEAR(filter->GetMeanVariance() / trueMean, 1.0, 0.15);
  EXPECT_GT(PSNR(filter->GetOutput(), v.truth), PSNR(v.noisy, v.truth) + 5.0);
}

TEST(StatisticalTVImageFilter, MismatchedVarianceImagesAreRefused)
{
  const Volume v = MakeVolume(24);
  auto filter = itk::StatisticalTVImageFilter<ImageType>::New();
  filter->SetInput(v.noisy);
  ImageType::SizeType other = { { 24, 24, 20 } };
  filter->SetNoiseVariance(NewImage(other));
  try
  {
    filter->Update();
    ADD_FAILURE() << "a variance image of another size was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("variance"), std::string::npos) << e.GetDescription();
  }
  // Same size, other spacing: ITK's physical-space check.
  auto shifted = NewImage(v.noisy->GetLargestPossibleRegion().GetSize());
  ImageType::SpacingType spacing = v.noisy->GetSpacing();
  spacing[2] = 3.0;
  shifted->SetSpacing(spacing);
  shifted->FillBuffer(0.01f);
  filter->SetNoiseVariance(shifted);
  EXPECT_THROW(filter->Update(), itk::ExceptionObject);
  // A zero variance.
  auto zero = NewImage(v.noisy->GetLargestPossibleRegion().GetSize());
  zero->FillBuffer(0.0f);
  filter->SetNoiseVariance(zero);
  EXPECT_THROW(filter->Update(), itk::ExceptionObject);
  EXPECT_EQ(filter->GetOutput()->GetBufferPointer(), nullptr); // no partial output
}

TEST(StatisticalTVImageFilter, TwoDevicesGiveTheOneDeviceResult)
{
  if (gpur::ListDevices().size() < 2)
    GTEST_SKIP() << "needs two OpenCL devices (POCL_DEVICES=\"pthread pthread\")";
  const Volume v = MakeVolume(32);
  std::vector<std::vector<float>> results;
  for (const char * device : { "0", "all" })
  {
    auto filter = itk::StatisticalTVImageFilter<ImageType>::New();
    filter->SetInput(v.noisy);
    filter->SetNoiseVariance(v.variance);
    filter->SetBackend(gpur::Backend::OpenCL);
    filter->SetDevice(device);
    filter->SetGapTolerance(0.0);
    filter->SetMaximumNumberOfIterations(40);
    filter->SetExchangeInterval(5);
    filter->Update();
    const float * p = filter->GetOutput()->GetBufferPointer();
    results.emplace_back(p, p + filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels());
    if (std::string(device) == "all")
    {
      EXPECT_NE(std::string(filter->GetBackendUsed()).find("2 devices"), std::string::npos) << filter->GetBackendUsed();
    }
  }
  EXPECT_EQ(results[0], results[1]);
}
