// SPDX-License-Identifier: Apache-2.0
// Tests of the ITK adapters of sparse recovery with partial circulant sensing: the forward operator against the
// engine, metadata, recovery of a sparse image, deblurring against the blurred image, CPU vs OpenCL, scaling,
// progress and iteration events, abort, and the errors of bad input.
#include "itkCirculantSensingImageFilter.h"
#include "itkCompressedSensingDeblurImageFilter.h"

#include "itkCommand.h"
#include "itkMetaDataObject.h"
#include "itkGPURFilterTesting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
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
using MaskImage = itk::Image<unsigned char, 2>;
using Backend = itk::GPURestorationEnums::Backend;
using SolverEnum = itk::CompressedSensingRecoveryImageFilterEnums::Solver;

/** An image of nx x ny pixels with a rotated, anisotropic geometry and a meta-data entry, filled with `values`. */
template<typename TImage, typename TValue>
typename TImage::Pointer
MakeImage(unsigned nx, unsigned ny, const std::vector<TValue> & values)
{
  auto image = TImage::New();
  image->SetRegions(typename TImage::SizeType{ { nx, ny } });
  typename TImage::SpacingType spacing;
  spacing[0] = 0.5;
  spacing[1] = 0.75;
  typename TImage::PointType origin;
  origin[0] = -10.0;
  origin[1] = 3.0;
  typename TImage::DirectionType direction;
  direction[0][0] = 0.0;
  direction[0][1] = 1.0;
  direction[1][0] = -1.0;
  direction[1][1] = 0.0;
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(direction);
  image->Allocate();
  std::transform(values.begin(),
                 values.end(),
                 image->GetBufferPointer(),
                 [](TValue v) { return static_cast<typename TImage::PixelType>(v); });
  itk::EncapsulateMetaData<std::string>(image->GetMetaDataDictionary(), "Telescope", "test");
  return image;
}

/** k spikes of heights 1, 2 and 3 at scattered positions of an n-pixel image (a star field). */
std::vector<double>
Spikes(std::size_t n, std::size_t k)
{
  std::vector<double> x(n, 0.0);
  for (std::size_t i = 0; i < k; ++i)
    x[(i * 7919 + 13) % n] = 1.0 + static_cast<double>(i % 3);
  return x;
}

template<typename TImage>
std::vector<double>
Pixels(const TImage * image)
{
  const auto n = image->GetBufferedRegion().GetNumberOfPixels();
  return std::vector<double>(image->GetBufferPointer(), image->GetBufferPointer() + n);
}

double
RelativeError(const std::vector<double> & x, const std::vector<double> & truth)
{
  double e = 0.0, t = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    e += (x[i] - truth[i]) * (x[i] - truth[i]);
    t += truth[i] * truth[i];
  }
  return std::sqrt(e / t);
}

/** A normalised Gaussian point-spread function of size x size pixels (odd size: centred at size / 2). */
std::vector<double>
GaussianPSF(unsigned size, double sigma)
{
  std::vector<double> psf(size * size);
  double sum = 0.0;
  const double c = size / 2;
  for (unsigned j = 0; j < size; ++j)
    for (unsigned i = 0; i < size; ++i)
      sum += psf[j * size + i] = std::exp(-((i - c) * (i - c) + (j - c) * (j - c)) / (2 * sigma * sigma));
  for (double & v : psf)
    v /= sum;
  return psf;
}

/** The periodic convolution of x (nx x ny) with psf (size x size, centred at size / 2), written out. */
std::vector<double>
PeriodicBlur(const std::vector<double> & x, unsigned nx, unsigned ny, const std::vector<double> & psf, unsigned size)
{
  std::vector<double> out(x.size(), 0.0);
  const int c = static_cast<int>(size / 2);
  for (unsigned j = 0; j < ny; ++j)
    for (unsigned i = 0; i < nx; ++i)
      for (unsigned b = 0; b < size; ++b)
        for (unsigned a = 0; a < size; ++a)
        {
          const int si = ((static_cast<int>(i) - (static_cast<int>(a) - c)) % static_cast<int>(nx) + nx) % nx;
          const int sj = ((static_cast<int>(j) - (static_cast<int>(b) - c)) % static_cast<int>(ny) + ny) % ny;
          out[j * nx + i] += psf[b * size + a] * x[sj * nx + si];
        }
  return out;
}

/** The measurements of x (nx x ny) with a drawn sensing (ratio, seed) and an optional PSF; the filter ran. */
template<typename TImage>
typename itk::CirculantSensingImageFilter<TImage>::Pointer
Measure(const std::vector<double> & x,
        unsigned nx,
        unsigned ny,
        double ratio,
        std::uint64_t seed,
        const TImage * psf = nullptr)
{
  auto sensing = itk::CirculantSensingImageFilter<TImage>::New();
  sensing->SetInput(MakeImage<TImage>(nx, ny, x));
  sensing->SetSamplingRatio(ratio);
  sensing->SetSeed(seed);
  sensing->SetPSF(psf);
  sensing->SetBackend(Backend::CPU);
  sensing->Update();
  return sensing;
}

/** A recovery filter on measurements, with the sensing drawn from (ratio, seed) as Measure drew it. */
template<typename TFilter, typename TImage>
typename TFilter::Pointer
MakeRecovery(const TImage * measurements, double ratio, std::uint64_t seed, Backend backend = Backend::CPU)
{
  auto filter = TFilter::New();
  filter->SetInput(measurements);
  filter->SetSamplingRatio(ratio);
  filter->SetSeed(seed);
  filter->SetRelativeAlpha(1e-4);
  filter->SetMaximumNumberOfIterations(3000);
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

template<typename TImage>
void
ExpectSameGeometryAndMetaData(const TImage * output, const itk::ImageBase<2> * input)
{
  EXPECT_EQ(output->GetLargestPossibleRegion(), input->GetLargestPossibleRegion());
  EXPECT_EQ(output->GetSpacing(), input->GetSpacing());
  EXPECT_EQ(output->GetOrigin(), input->GetOrigin());
  EXPECT_EQ(output->GetDirection(), input->GetDirection());
  std::string telescope;
  EXPECT_TRUE(itk::ExposeMetaData<std::string>(output->GetMetaDataDictionary(), "Telescope", telescope));
  EXPECT_EQ(telescope, "test");
}

constexpr unsigned kNx = 40, kNy = 32;

} // namespace

TEST(CirculantSensingFilter, EqualsTheEngineAndKeepsMetadata)
{
  const std::vector<double> x = Spikes(kNx * kNy, 25);
  auto sensing = Measure<Image2D>(x, kNx, kNy, 0.4, 7);
  const auto * y = sensing->GetOutput();
  ExpectSameGeometryAndMetaData(y, sensing->GetInput());
  EXPECT_EQ(sensing->GetMaskOutput()->GetLargestPossibleRegion(), y->GetLargestPossibleRegion());
  EXPECT_EQ(sensing->GetMaskOutput()->GetSpacing(), y->GetSpacing());
  EXPECT_EQ(std::string(sensing->GetBackendUsed()), "CPU");

  // The operator drawn from the seed is the engine's, and y its measurements, zero off the mask.
  const gpur::CirculantSensing drawn = gpur::MakeGaussianCirculantSensing({ kNx, kNy }, 0.4, 7);
  EXPECT_EQ(sensing->GetNumberOfMeasurements(), drawn.Measurements());
  EXPECT_EQ(drawn.Measurements(), static_cast<std::size_t>(std::lround(0.4 * kNx * kNy)));
  const auto * mask = sensing->GetMaskOutput()->GetBufferPointer();
  EXPECT_TRUE(std::equal(drawn.mask.begin(), drawn.mask.end(), mask));
  const auto generator = Pixels(sensing->GetGeneratorOutput());
  EXPECT_EQ(generator, drawn.generator);
  std::vector<double> expected(x.size());
  gpur::MeasureCirculant<double>(drawn, x.data(), expected.data());
  const auto measured = Pixels(y);
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    EXPECT_NEAR(measured[i], expected[i], 1e-12) << i;
    if (mask[i] == 0)
    {
      EXPECT_EQ(measured[i], 0.0) << i;
    }
  }

  // The same operator as Mask and Generator inputs gives the same measurements.
  auto given = itk::CirculantSensingImageFilter<Image2D>::New();
  given->SetInput(sensing->GetInput());
  given->SetMask(sensing->GetMaskOutput());
  given->SetGenerator(sensing->GetGeneratorOutput());
  given->SetBackend(Backend::CPU);
  given->Update();
  EXPECT_EQ(Pixels(given->GetOutput()), measured);
}

TEST(CompressedSensingRecoveryFilter, RecoversASparseImageFromHalfTheMeasurements)
{
  // In double: in float the duality gap is only known to about 5e-7 / RelativeAlpha (gpurSparseRecovery.h).
  const std::vector<double> truth = Spikes(kNx * kNy, 30);
  auto sensing = Measure<Image2D>(truth, kNx, kNy, 0.5, 11);
  auto filter =
    MakeRecovery<itk::CompressedSensingRecoveryImageFilter<Image2D>>(sensing->GetOutput(), 0.5, 11, Backend::CPU);
  filter->Update();
  const auto x = Pixels(filter->GetOutput());
  EXPECT_LT(RelativeError(x, truth), 2e-3) << "30-sparse, m = n / 2: exact recovery up to the l1 bias";
  EXPECT_TRUE(filter->GetConverged()) << filter->GetNumberOfIterations() << " iterations";
  EXPECT_LT(filter->GetRelativeGap(), filter->GetGapTolerance());
  EXPECT_LT(filter->GetRelativeResidual(), 1e-3);
  EXPECT_EQ(filter->GetNumberOfIterations(), filter->GetReport().iterations);
  EXPECT_DOUBLE_EQ(filter->GetAlphaUsed(), 1e-4 * filter->GetReport().alphaMax);
  EXPECT_EQ(filter->GetNumberOfMeasurements(), (kNx * kNy) / 2);
  EXPECT_LE(filter->GetNumberOfNonzeros(), 60u);
  ExpectSameGeometryAndMetaData(filter->GetOutput(), sensing->GetOutput());

  // The sensing as Mask and Generator inputs (the measuring filter's outputs) is the same operator.
  auto given = itk::CompressedSensingRecoveryImageFilter<Image2D>::New();
  given->SetInput(sensing->GetOutput());
  given->SetMask(sensing->GetMaskOutput());
  given->SetGenerator(sensing->GetGeneratorOutput());
  given->SetRelativeAlpha(1e-4);
  given->SetMaximumNumberOfIterations(3000);
  given->SetBackend(Backend::CPU);
  given->Update();
  EXPECT_EQ(Pixels(given->GetOutput()), x);

  // CPADMM reaches the same minimiser.
  filter->SetSolver(SolverEnum::CPADMM);
  filter->Update();
  EXPECT_LT(RelativeError(Pixels(filter->GetOutput()), truth), 5e-3);
}

TEST(CompressedSensingRecoveryFilter, ScalingTheMeasurementsScalesTheImage)
{
  const std::vector<double> truth = Spikes(kNx * kNy, 20);
  auto sensing = Measure<Image2D>(truth, kNx, kNy, 0.5, 3);
  std::vector<double> y = Pixels(sensing->GetOutput());
  for (double & v : y)
    v *= 1000.0;
  auto big = MakeImage<Image2D>(kNx, kNy, y);
  auto a = MakeRecovery<itk::CompressedSensingRecoveryImageFilter<Image2D>>(sensing->GetOutput(), 0.5, 3);
  auto b = MakeRecovery<itk::CompressedSensingRecoveryImageFilter<Image2D>>(big.GetPointer(), 0.5, 3);
  a->SetMaximumNumberOfIterations(200);
  b->SetMaximumNumberOfIterations(200);
  a->Update();
  b->Update();
  EXPECT_EQ(a->GetNumberOfIterations(), b->GetNumberOfIterations());
  const auto u = Pixels(a->GetOutput()), v = Pixels(b->GetOutput());
  double worst = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i)
    worst = std::max(worst, std::abs(v[i] / 1000.0 - u[i]));
  EXPECT_LE(worst, 1e-9);
}

TEST(CompressedSensingRecoveryFilter, CPUAndOpenCLAgree)
{
  const std::vector<double> truth = Spikes(kNx * kNy, 30);
  {
    auto sensing = Measure<Image2D>(truth, kNx, kNy, 0.5, 5);
    auto cpu = MakeRecovery<itk::CompressedSensingRecoveryImageFilter<Image2D>>(sensing->GetOutput(), 0.5, 5);
    auto ocl =
      MakeRecovery<itk::CompressedSensingRecoveryImageFilter<Image2D>>(sensing->GetOutput(), 0.5, 5, Backend::OpenCL);
    cpu->SetMaximumNumberOfIterations(300);
    ocl->SetMaximumNumberOfIterations(300);
    cpu->Update();
    ocl->Update();
    EXPECT_EQ(std::string(ocl->GetBackendUsed()).rfind("OpenCL", 0), 0u) << ocl->GetBackendUsed();
    EXPECT_EQ(cpu->GetNumberOfIterations(), ocl->GetNumberOfIterations());
    const auto a = Pixels(cpu->GetOutput()), b = Pixels(ocl->GetOutput());
    EXPECT_LT(RelativeError(b, a), 1e-9) << "double";
  }
  {
    // float, to convergence (RelativeAlpha 1e-3, where float resolves the gap): the same image to rounding
    // (FFTW and VkFFT round differently).
    auto sensing = Measure<Image2F>(truth, kNx, kNy, 0.5, 5);
    auto cpu = MakeRecovery<itk::CompressedSensingRecoveryImageFilter<Image2F>>(sensing->GetOutput(), 0.5, 5);
    auto ocl =
      MakeRecovery<itk::CompressedSensingRecoveryImageFilter<Image2F>>(sensing->GetOutput(), 0.5, 5, Backend::OpenCL);
    cpu->SetRelativeAlpha(1e-3);
    ocl->SetRelativeAlpha(1e-3);
    cpu->Update();
    ocl->Update();
    EXPECT_TRUE(cpu->GetConverged() && ocl->GetConverged());
    const auto a = Pixels(cpu->GetOutput()), b = Pixels(ocl->GetOutput());
    EXPECT_LT(RelativeError(b, a), 1e-4) << "float";
    EXPECT_LT(RelativeError(b, truth), 2e-2);
  }
  // The forward operator on OpenCL.
  auto sensing = itk::CirculantSensingImageFilter<Image2F>::New();
  sensing->SetInput(MakeImage<Image2F>(kNx, kNy, truth));
  sensing->SetSamplingRatio(0.5);
  sensing->SetSeed(5);
  sensing->SetBackend(Backend::OpenCL);
  sensing->Update();
  EXPECT_LT(RelativeError(Pixels(sensing->GetOutput()), Pixels(Measure<Image2F>(truth, kNx, kNy, 0.5, 5)->GetOutput())),
            1e-5);
}

TEST(CompressedSensingDeblurFilter, RecoversTheStarsBehindTheBlur)
{
  // 20 stars behind a Gaussian blur (sigma 1.5 pixels), measured compressed (m = n / 2).
  const std::vector<double> truth = Spikes(kNx * kNy, 20);
  const unsigned size = 9;
  const std::vector<double> kernel = GaussianPSF(size, 1.5);
  auto psf = MakeImage<Image2D>(size, size, kernel);
  auto sensing = Measure<Image2D>(truth, kNx, kNy, 0.5, 21, psf.GetPointer());

  // The forward operator blurs as a periodic convolution with the PSF centred at size / 2.
  auto fullySampled = itk::CirculantSensingImageFilter<Image2D>::New();
  std::vector<double> delta(kNx * kNy, 0.0);
  delta[0] = 1.0; // C = I: the generator of the identity
  fullySampled->SetInput(MakeImage<Image2D>(kNx, kNy, truth));
  fullySampled->SetGenerator(MakeImage<Image2D>(kNx, kNy, delta));
  fullySampled->SetMask(MakeImage<MaskImage>(kNx, kNy, std::vector<unsigned char>(kNx * kNy, 1)));
  fullySampled->SetPSF(psf);
  fullySampled->SetBackend(Backend::CPU);
  fullySampled->Update();
  const std::vector<double> blurred = PeriodicBlur(truth, kNx, kNy, kernel, size);
  EXPECT_LT(RelativeError(Pixels(fullySampled->GetOutput()), blurred), 1e-12);

  auto deblur = MakeRecovery<itk::CompressedSensingDeblurImageFilter<Image2D>>(sensing->GetOutput(), 0.5, 21);
  deblur->SetPSF(psf);
  deblur->SetNonnegative(true);
  deblur->SetMaximumNumberOfIterations(5000);
  deblur->Update();
  const auto x = Pixels(deblur->GetOutput());
  const double deblurred = RelativeError(x, truth), blurredError = RelativeError(blurred, truth);
  EXPECT_LT(deblurred, 0.1 * blurredError) << deblurred << " vs the blurred image's " << blurredError;
  EXPECT_GE(*std::min_element(x.begin(), x.end()), 0.0) << "Nonnegative";
  ExpectSameGeometryAndMetaData(deblur->GetOutput(), sensing->GetOutput());

  // Without the PSF input the deblurring filter refuses to run.
  auto missing = MakeRecovery<itk::CompressedSensingDeblurImageFilter<Image2D>>(sensing->GetOutput(), 0.5, 21);
  EXPECT_NE(MessageOf(missing).find("PSF"), std::string::npos);
}

TEST(CompressedSensingRecoveryFilter, ProgressIterationEventsAndAbort)
{
  const std::vector<double> truth = Spikes(kNx * kNy, 30);
  auto sensing = Measure<Image2F>(truth, kNx, kNy, 0.5, 2);
  using Filter = itk::CompressedSensingRecoveryImageFilter<Image2F>;
  auto filter = MakeRecovery<Filter>(sensing->GetOutput(), 0.5, 2);
  filter->SetMaximumNumberOfIterations(60);
  filter->SetTolerance(1e-12); // runs the whole budget
  struct Seen
  {
    std::vector<float> progress;
    std::vector<gpur::SparseIterationInfo> iterations;
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
    { static_cast<Seen *>(data)->iterations.push_back(static_cast<Filter *>(caller)->GetIterationInfo()); });
  filter->AddObserver(itk::ProgressEvent(), progress);
  filter->AddObserver(itk::IterationEvent(), iteration);
  filter->Update();
  EXPECT_EQ(filter->GetNumberOfIterations(), 60u);
  EXPECT_FALSE(filter->GetConverged());
  EXPECT_FALSE(filter->GetReport().warnings.empty()) << "not converged: said so";
  ASSERT_EQ(seen.iterations.size(), 60u) << "one IterationEvent per iteration";
  for (unsigned k = 0; k < 60; ++k)
  {
    EXPECT_EQ(seen.iterations[k].iteration, k + 1);
    const double change = filter->GetReport().history[k].relativeChange; // NaN between checks
    EXPECT_TRUE(seen.iterations[k].relativeChange == change ||
                (std::isnan(change) && std::isnan(seen.iterations[k].relativeChange)));
  }
  ASSERT_GE(seen.progress.size(), 60u);
  EXPECT_TRUE(std::is_sorted(seen.progress.begin(), seen.progress.end()));
  EXPECT_EQ(seen.progress.front(), 0.0f);
  EXPECT_EQ(seen.progress.back(), 1.0f);

  for (const Backend backend : { Backend::CPU, Backend::OpenCL })
  {
    auto aborted = MakeRecovery<Filter>(sensing->GetOutput(), 0.5, 2, backend);
    gpur::testing::AbortWhen(
      aborted.GetPointer(), itk::IterationEvent(), [](const Filter & f) { return f.GetNumberOfIterations() == 3; });
    gpur::testing::ExpectAbortedWithoutOutput(aborted.GetPointer());
    EXPECT_EQ(aborted->GetNumberOfIterations(), 3u) << "the abort takes effect after the iteration that set it";
    EXPECT_STREQ(aborted->GetBackendUsed(), "");
  }
}

TEST(CompressedSensingRecoveryFilter, BadInputThrowsITKExceptionsNamingTheProblem)
{
  using Filter = itk::CompressedSensingRecoveryImageFilter<Image2F>;
  const std::vector<double> truth = Spikes(kNx * kNy, 10);
  auto sensing = Measure<Image2F>(truth, kNx, kNy, 0.5, 1);
  const auto expectMessage = [&](const std::function<void(Filter *)> & set, const std::string & word)
  {
    auto f = MakeRecovery<Filter>(sensing->GetOutput(), 0.5, 1);
    f->SetMaximumNumberOfIterations(20);
    set(f.GetPointer());
    const std::string message = MessageOf(f);
    EXPECT_NE(message.find(word), std::string::npos) << "expected '" << word << "' in: " << message;
    EXPECT_EQ(f->GetOutput()->GetBufferPointer(), nullptr) << "no partial output: " << message;
  };
  // Parameters.
  expectMessage([](Filter * f) { f->SetRelativeAlpha(2.0); }, "relativeAlpha");
  expectMessage([](Filter * f) { f->SetAlpha(-1.0); }, "alpha");
  expectMessage([](Filter * f) { f->SetMaximumNumberOfIterations(0); }, "maximumIterations");
  expectMessage([](Filter * f) { f->SetTolerance(std::numeric_limits<double>::quiet_NaN()); }, "tolerance");
  expectMessage([](Filter * f) { f->SetRho(-1.0); }, "rho"); // 0 is automatic
  expectMessage([](Filter * f) { f->SetSamplingRatio(1.5); }, "atio");
  // The sensing: missing, ambiguous, a mask of another size, not 0/1, empty.
  expectMessage([](Filter * f) { f->SetSamplingRatio(0.0); }, "no sampling set");
  expectMessage([&](Filter * f) { f->SetMask(sensing->GetMaskOutput()); }, "both a Mask input and SamplingRatio");
  auto small = MakeImage<MaskImage>(kNx - 1, kNy, std::vector<unsigned char>((kNx - 1) * kNy, 1));
  expectMessage(
    [&](Filter * f)
    {
      f->SetSamplingRatio(0.0);
      f->SetMask(small);
    },
    "the Mask image has size");
  std::vector<unsigned char> twos(kNx * kNy, 0);
  twos[5] = 255;
  auto bad = MakeImage<MaskImage>(kNx, kNy, twos);
  expectMessage(
    [&](Filter * f)
    {
      f->SetSamplingRatio(0.0);
      f->SetMask(bad);
    },
    "holds the value 255");
  auto empty = MakeImage<MaskImage>(kNx, kNy, std::vector<unsigned char>(kNx * kNy, 0));
  expectMessage(
    [&](Filter * f)
    {
      f->SetSamplingRatio(0.0);
      f->SetMask(empty);
    },
    "empty");
  // A generator on another grid (shifted origin).
  auto shifted = MakeImage<Image2F>(kNx, kNy, truth);
  auto origin = shifted->GetOrigin();
  origin[0] += 1.0;
  shifted->SetOrigin(origin);
  expectMessage([&](Filter * f) { f->SetGenerator(shifted); }, "the Generator image has origin");
  // NaN in the measurements.
  std::vector<double> y = Pixels(sensing->GetOutput());
  for (std::size_t i = 0; i < y.size(); ++i)
    if (sensing->GetMaskOutput()->GetBufferPointer()[i] == 1)
    {
      y[i] = std::numeric_limits<double>::quiet_NaN();
      break;
    }
  auto nan = MakeImage<Image2F>(kNx, kNy, y);
  auto f = MakeRecovery<Filter>(nan.GetPointer(), 0.5, 1);
  const std::string message = MessageOf(f);
  EXPECT_TRUE(message.find("NaN") != std::string::npos || message.find("finite") != std::string::npos) << message;
  EXPECT_EQ(f->GetOutput()->GetBufferPointer(), nullptr);

  // The deblurring filter's PSF: larger than the image, at another spacing.
  using Deblur = itk::CompressedSensingDeblurImageFilter<Image2F>;
  const auto expectPSF = [&](const Image2F * psf, const std::string & word)
  {
    auto d = MakeRecovery<Deblur>(sensing->GetOutput(), 0.5, 1);
    d->SetPSF(psf);
    std::string text = MessageOf(d);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    EXPECT_NE(text.find(word), std::string::npos) << "expected '" << word << "' in: " << text;
    EXPECT_EQ(d->GetOutput()->GetBufferPointer(), nullptr);
  };
  auto large = MakeImage<Image2F>(kNx + 2, 3, std::vector<double>((kNx + 2) * 3, 1.0));
  expectPSF(large, "psf");
  auto coarse = MakeImage<Image2F>(3, 3, std::vector<double>(9, 1.0));
  coarse->SetSpacing(2.0);
  expectPSF(coarse, "the psf image has spacing");
}

TEST(CompressedSensingRecoveryFilter, EnumsAndPrintSelf)
{
  using Enums = itk::CompressedSensingRecoveryImageFilterEnums;
  EXPECT_EQ(itk::GPURestoration::ToEngine(Enums::Solver::CPADMM), gpur::SparseSolver::CPADMM);
  EXPECT_EQ(itk::GPURestoration::ToEngine(Enums::Threshold::PaperLiteral), gpur::SparseThreshold::PaperLiteral);
  EXPECT_EQ(itk::GPURestoration::FromEngine<Enums::Solver>(gpur::ParseSparseSolver("ista")), Enums::Solver::CPISTA);
  std::ostringstream text;
  text << Enums::Solver::FISTA << " " << Enums::Threshold::Proximal;
  EXPECT_EQ(text.str(), "FISTA Proximal");
  auto filter = itk::CompressedSensingDeblurImageFilter<Image2D>::New();
  std::ostringstream printed;
  filter->Print(printed);
  for (const char * line : { "Solver: FISTA",
                             "RelativeAlpha: 0.001",
                             "MaximumNumberOfIterations: 5000",
                             "Mask: drawn from Seed",
                             "NormalizePSF: On",
                             "Backend: Auto" })
    EXPECT_NE(printed.str().find(line), std::string::npos) << line << " in\n" << printed.str();
}
