// SPDX-License-Identifier: Apache-2.0
// ITK streaming through the TV filter: reader -> filter -> streaming writer (MHA,
// NRRD) in chunks padded by the halo, equal to the whole-volume result; the
// halo is needed; the gap-stop rule; 2D; the statistical filter and the
// automatic lambda do not stream.
#include "itkStatisticalTVImageFilter.h"
#include "itkTotalVariationDenoisingImageFilter.h"

#include "gpurDevice.h"
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "itkGPURestorationCommon.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkMetaImageIO.h"
#include "itkNrrdImageIO.h"
#include "itkStreamingImageFilter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace
{

using Image2F = itk::Image<float, 2>;
using Image3F = itk::Image<float, 3>;
using TVFilter3 = itk::TotalVariationDenoisingImageFilter<Image3F>;

constexpr unsigned Iterations = 6; // halo 7 voxels

/** A noisy Shepp-Logan phantom, 24 x 20 x 30 in 3D (24 x 20 in 2D), with a geometry exact in decimal. */
template<typename TImage>
typename TImage::Pointer
MakeVolume()
{
  constexpr unsigned D = TImage::ImageDimension;
  const unsigned sizes[3] = { 24, 20, 30 };
  typename TImage::SizeType size;
  typename TImage::SpacingType spacing;
  typename TImage::PointType origin;
  typename TImage::DirectionType direction;
  direction.SetIdentity();
  direction[0][0] = 0.0; // a rotation: the direction must be carried over
  direction[0][1] = 1.0;
  direction[1][0] = -1.0;
  direction[1][1] = 0.0;
  gpur::Grid grid;
  grid.dimension = D;
  for (unsigned d = 0; d < D; ++d)
  {
    size[d] = sizes[d];
    grid.size[d] = sizes[d];
    spacing[d] = 0.75 + 0.25 * d;
    origin[d] = -12.5 + 8.0 * d;
  }
  auto image = TImage::New();
  image->SetRegions(size);
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(direction);
  image->Allocate();
  const auto noisy = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(grid), 0.1, 5);
  std::copy(noisy.begin(), noisy.end(), image->GetBufferPointer());
  return image;
}

/** A file in the working directory (CTest: this build's test folder), removed when the test ends. */
class TempFile
{
public:
  explicit TempFile(const std::string & name)
    : m_Path("itkTVStreaming_" + name)
  {
  }
  ~TempFile() { std::remove(m_Path.c_str()); }
  const std::string &
  Path() const
  {
    return m_Path;
  }

private:
  std::string m_Path;
};

/** What the filter saw at each GenerateData: the requested output, the input it was given, the region it solved. */
template<typename TImage>
struct Chunks
{
  std::vector<typename TImage::RegionType> requested, buffered, solved;

  template<typename TFilter>
  void
  Watch(TFilter * filter)
  {
    filter->AddObserver(itk::StartEvent(),
                        [this, filter](const itk::EventObject &)
                        {
                          requested.push_back(filter->GetOutput()->GetRequestedRegion());
                          buffered.push_back(filter->GetInput()->GetBufferedRegion());
                        });
    filter->AddObserver(itk::EndEvent(),
                        [this, filter](const itk::EventObject &) { solved.push_back(filter->GetSolvedRegion()); });
  }
};

template<typename TFilter>
void
Configure(TFilter * filter, itk::GPURestorationEnums::Backend backend)
{
  filter->SetBackend(backend);
  filter->SetLambda(10.0);
  filter->SetMaximumNumberOfIterations(Iterations);
  filter->SetGapTolerance(0.0);
}

/** The filter on the whole in-memory image (no streaming), with Configure's settings or others. */
template<typename TImage>
typename TImage::Pointer
WholeVolume(const TImage * input,
            itk::GPURestorationEnums::Backend backend,
            unsigned iterations = Iterations,
            double gapTolerance = 0.0,
            unsigned gapCheckInterval = 10)
{
  auto filter = itk::TotalVariationDenoisingImageFilter<TImage>::New();
  filter->SetInput(input);
  Configure(filter.GetPointer(), backend);
  filter->SetMaximumNumberOfIterations(iterations);
  filter->SetGapTolerance(gapTolerance);
  filter->SetGapCheckInterval(gapCheckInterval);
  filter->Update();
  EXPECT_FALSE(filter->GetStreamedChunk());
  return filter->GetOutput();
}

template<typename TImage>
double
MaxDifference(const TImage * a, const TImage * b)
{
  EXPECT_EQ(a->GetBufferedRegion(), b->GetBufferedRegion());
  return gpur::MaxAbsDifference(
    a->GetBufferPointer(), b->GetBufferPointer(), a->GetBufferedRegion().GetNumberOfPixels());
}

template<typename TImage>
void
ExpectSameGeometry(const TImage * a, const TImage * b)
{
  EXPECT_EQ(a->GetLargestPossibleRegion(), b->GetLargestPossibleRegion());
  EXPECT_EQ(a->GetOrigin(), b->GetOrigin());
  EXPECT_EQ(a->GetSpacing(), b->GetSpacing());
  EXPECT_EQ(a->GetDirection(), b->GetDirection());
}

std::vector<itk::GPURestorationEnums::Backend>
Backends()
{
  std::vector<itk::GPURestorationEnums::Backend> backends{ itk::GPURestorationEnums::Backend::CPU };
  if (gpur::HaveOpenCLDevice())
    backends.push_back(itk::GPURestorationEnums::Backend::OpenCL);
  return backends;
}

/** The CPU must be exact; OpenCL is allowed float rounding (chunks change the launch sizes), measured 0. */
double
Tolerance(itk::GPURestorationEnums::Backend backend)
{
  return backend == itk::GPURestorationEnums::Backend::CPU ? 0.0 : 1e-6;
}

} // namespace

TEST(TotalVariationStreaming, MHAReaderToStreamingMHAWriterEqualsTheWholeVolume)
{
  const auto volume = MakeVolume<Image3F>();
  const TempFile input("in.mha"), output("out.mha");
  itk::WriteImage(volume, input.Path());
  constexpr unsigned Divisions = 5;
  for (const auto backend : Backends())
  {
    SCOPED_TRACE(::testing::Message() << backend);
    auto reader = itk::ImageFileReader<Image3F>::New();
    reader->SetFileName(input.Path());
    auto filter = TVFilter3::New();
    filter->SetInput(reader->GetOutput());
    Configure(filter.GetPointer(), backend);
    filter->SetGapTolerance(0.3); // would stop the whole volume at 4 iterations; chunks run all 6
    Chunks<Image3F> chunks;
    chunks.Watch(filter.GetPointer());
    auto writer = itk::ImageFileWriter<Image3F>::New();
    writer->SetInput(filter->GetOutput());
    writer->SetFileName(output.Path());
    writer->SetNumberOfStreamDivisions(Divisions);
    writer->Update();

    // One run per chunk of 6 slices, each solved on its chunk padded by 7 slices. MHA is
    // read by region: the reader held the padded chunk (or kept the previous one when it
    // covered the next), never the whole volume.
    ASSERT_EQ(chunks.requested.size(), Divisions);
    ASSERT_EQ(chunks.solved.size(), Divisions);
    const auto whole = volume->GetLargestPossibleRegion();
    itk::SizeValueType slices = 0, largestInput = 0;
    for (unsigned c = 0; c < Divisions; ++c)
    {
      SCOPED_TRACE("chunk " + std::to_string(c));
      const auto & request = chunks.requested[c];
      EXPECT_EQ(request.GetSize(2), 6u);
      slices += request.GetSize(2);
      auto padded = request;
      padded.PadByRadius(Iterations + 1);
      padded.Crop(whole);
      EXPECT_EQ(chunks.solved[c], padded);
      EXPECT_TRUE(chunks.buffered[c].IsInside(padded));
      largestInput = std::max(largestInput, chunks.buffered[c].GetNumberOfPixels());
    }
    EXPECT_EQ(slices, 30u);
    // The cap: at most 6 + 2 * 7 = 20 of the 30 slices were in memory at once.
    EXPECT_EQ(largestInput, whole.GetNumberOfPixels() * 20 / 30);
    EXPECT_TRUE(filter->GetStreamedChunk());
    EXPECT_EQ(filter->GetNumberOfIterations(), Iterations);

    const auto written = itk::ReadImage<Image3F>(output.Path());
    ExpectSameGeometry(written.GetPointer(), volume.GetPointer());
    const auto reference = WholeVolume(volume.GetPointer(), backend);
    const double difference = MaxDifference(written.GetPointer(), reference.GetPointer());
    std::cout << backend << ": streamed vs whole volume, max |diff| " << difference << "\n";
    EXPECT_LE(difference, Tolerance(backend));
  }
}

TEST(TotalVariationStreaming, NRRDIsReadAndWrittenWhole)
{
  // ITK 5.2: MetaImageIO reads and writes by region, NrrdImageIO does neither.
  EXPECT_TRUE(itk::MetaImageIO::New()->CanStreamRead());
  EXPECT_TRUE(itk::MetaImageIO::New()->CanStreamWrite());
  EXPECT_FALSE(itk::NrrdImageIO::New()->CanStreamRead());
  EXPECT_FALSE(itk::NrrdImageIO::New()->CanStreamWrite());

  const auto volume = MakeVolume<Image3F>();
  const TempFile nrrdIn("in.nrrd"), mhaIn("in2.mha"), mhaOut("out2.mha"), nrrdOut("out.nrrd");
  itk::WriteImage(volume, nrrdIn.Path());
  itk::WriteImage(volume, mhaIn.Path());
  const auto reference = WholeVolume(volume.GetPointer(), itk::GPURestorationEnums::Backend::CPU);
  constexpr unsigned Divisions = 5;
  const auto whole = volume->GetLargestPossibleRegion();

  // NRRD reader -> filter -> streaming MHA writer: the reader holds the whole volume,
  // the filter still solves chunk by chunk (the engine's memory is what the chunks bound).
  {
    auto reader = itk::ImageFileReader<Image3F>::New();
    reader->SetFileName(nrrdIn.Path());
    auto filter = TVFilter3::New();
    filter->SetInput(reader->GetOutput());
    Configure(filter.GetPointer(), itk::GPURestorationEnums::Backend::CPU);
    Chunks<Image3F> chunks;
    chunks.Watch(filter.GetPointer());
    auto writer = itk::ImageFileWriter<Image3F>::New();
    writer->SetInput(filter->GetOutput());
    writer->SetFileName(mhaOut.Path());
    writer->SetNumberOfStreamDivisions(Divisions);
    writer->Update();
    ASSERT_EQ(chunks.requested.size(), Divisions);
    for (unsigned c = 0; c < Divisions; ++c)
    {
      EXPECT_EQ(chunks.buffered[c], whole);
      EXPECT_LT(chunks.solved[c].GetNumberOfPixels(), whole.GetNumberOfPixels());
    }
    EXPECT_EQ(MaxDifference(itk::ReadImage<Image3F>(mhaOut.Path()).GetPointer(), reference.GetPointer()), 0.0);
  }
  // MHA reader -> filter -> NRRD writer asked for 5 divisions: NRRD cannot write by
  // region, so the writer requests the whole image once.
  {
    auto reader = itk::ImageFileReader<Image3F>::New();
    reader->SetFileName(mhaIn.Path());
    auto filter = TVFilter3::New();
    filter->SetInput(reader->GetOutput());
    Configure(filter.GetPointer(), itk::GPURestorationEnums::Backend::CPU);
    Chunks<Image3F> chunks;
    chunks.Watch(filter.GetPointer());
    auto writer = itk::ImageFileWriter<Image3F>::New();
    writer->SetInput(filter->GetOutput());
    writer->SetFileName(nrrdOut.Path());
    writer->SetNumberOfStreamDivisions(Divisions);
    writer->Update();
    ASSERT_EQ(chunks.requested.size(), 1u);
    EXPECT_EQ(chunks.requested[0], whole);
    EXPECT_FALSE(filter->GetStreamedChunk());
    const auto written = itk::ReadImage<Image3F>(nrrdOut.Path());
    ExpectSameGeometry(written.GetPointer(), volume.GetPointer());
    EXPECT_EQ(MaxDifference(written.GetPointer(), reference.GetPointer()), 0.0);
  }
  // For a NRRD output, itk::StreamingImageFilter still runs the filter chunk by chunk
  // (it assembles the whole result in memory for the writer).
  {
    auto reader = itk::ImageFileReader<Image3F>::New();
    reader->SetFileName(mhaIn.Path());
    auto filter = TVFilter3::New();
    filter->SetInput(reader->GetOutput());
    Configure(filter.GetPointer(), itk::GPURestorationEnums::Backend::CPU);
    Chunks<Image3F> chunks;
    chunks.Watch(filter.GetPointer());
    auto streamer = itk::StreamingImageFilter<Image3F, Image3F>::New();
    streamer->SetInput(filter->GetOutput());
    streamer->SetNumberOfStreamDivisions(Divisions);
    itk::WriteImage(streamer->GetOutput(), nrrdOut.Path());
    ASSERT_EQ(chunks.requested.size(), Divisions);
    for (unsigned c = 0; c < Divisions; ++c)
    {
      EXPECT_LT(chunks.buffered[c].GetNumberOfPixels(), whole.GetNumberOfPixels());
    }
    EXPECT_EQ(MaxDifference(itk::ReadImage<Image3F>(nrrdOut.Path()).GetPointer(), reference.GetPointer()), 0.0);
  }
}

TEST(TotalVariationStreaming, TwoDimensional)
{
  const auto image = MakeVolume<Image2F>();
  for (const auto backend : Backends())
  {
    SCOPED_TRACE(::testing::Message() << backend);
    auto filter = itk::TotalVariationDenoisingImageFilter<Image2F>::New();
    filter->SetInput(image);
    Configure(filter.GetPointer(), backend);
    Chunks<Image2F> chunks;
    chunks.Watch(filter.GetPointer());
    auto streamer = itk::StreamingImageFilter<Image2F, Image2F>::New();
    streamer->SetInput(filter->GetOutput());
    streamer->SetNumberOfStreamDivisions(4);
    streamer->Update();
    ASSERT_EQ(chunks.requested.size(), 4u); // rows of 5, solved on at most 5 + 2 * 7 of the 20 rows
    for (const auto & solved : chunks.solved)
    {
      EXPECT_LE(solved.GetSize(1), 19u);
    }
    const auto reference = WholeVolume(image.GetPointer(), backend);
    ExpectSameGeometry(streamer->GetOutput(), image.GetPointer());
    const double difference = MaxDifference(streamer->GetOutput(), reference.GetPointer());
    std::cout << backend << ": 2D streamed vs whole image, max |diff| " << difference << "\n";
    EXPECT_LE(difference, Tolerance(backend));
  }
}

TEST(TotalVariationStreaming, GapStopIsOffInChunksAndAWholeImageRequestIsSolvedOnce)
{
  const auto volume = MakeVolume<Image3F>();
  // A loose tolerance checked every iteration stops the whole volume early (gap 0.23 at iteration 4)...
  auto early = TVFilter3::New();
  early->SetInput(volume);
  Configure(early.GetPointer(), itk::GPURestorationEnums::Backend::CPU);
  early->SetGapTolerance(0.3);
  early->SetGapCheckInterval(1);
  early->Update();
  std::cout << "whole volume with the gap stop: " << early->GetNumberOfIterations() << " iterations, gap "
            << early->GetRelativeGap() << "\n";
  EXPECT_TRUE(early->GetConverged());
  EXPECT_LT(early->GetNumberOfIterations(), Iterations);

  // ...but streamed chunks ignore it and run all the iterations: the fixed-count result.
  auto filter = TVFilter3::New();
  filter->SetInput(volume);
  Configure(filter.GetPointer(), itk::GPURestorationEnums::Backend::CPU);
  filter->SetGapTolerance(0.3);
  filter->SetGapCheckInterval(1);
  Chunks<Image3F> chunks;
  chunks.Watch(filter.GetPointer());
  auto streamer = itk::StreamingImageFilter<Image3F, Image3F>::New();
  streamer->SetInput(filter->GetOutput());
  streamer->SetNumberOfStreamDivisions(5);
  streamer->Update();
  EXPECT_EQ(chunks.requested.size(), 5u);
  EXPECT_TRUE(filter->GetStreamedChunk());
  EXPECT_EQ(filter->GetNumberOfIterations(), Iterations);
  EXPECT_FALSE(filter->GetConverged());
  std::ostringstream print;
  filter->Print(print);
  EXPECT_NE(print.str().find("a streamed chunk: fixed iterations, gap stop off"), std::string::npos) << print.str();
  const auto fixed = WholeVolume(volume.GetPointer(), itk::GPURestorationEnums::Backend::CPU);
  EXPECT_EQ(MaxDifference(streamer->GetOutput(), fixed.GetPointer()), 0.0);
  EXPECT_GT(MaxDifference(streamer->GetOutput(), early->GetOutput()), 1e-3);

  // 40 iterations: every chunk's padding (41 slices) covers the 30 slices, so the first
  // request is widened to the whole image, solved once with the gap stop, and the
  // later chunks find their region computed.
  auto once = TVFilter3::New();
  once->SetInput(volume);
  Configure(once.GetPointer(), itk::GPURestorationEnums::Backend::CPU);
  once->SetMaximumNumberOfIterations(40);
  once->SetGapTolerance(0.01);
  once->SetGapCheckInterval(2);
  Chunks<Image3F> onceChunks;
  onceChunks.Watch(once.GetPointer());
  auto onceStreamer = itk::StreamingImageFilter<Image3F, Image3F>::New();
  onceStreamer->SetInput(once->GetOutput());
  onceStreamer->SetNumberOfStreamDivisions(5);
  onceStreamer->Update();
  ASSERT_EQ(onceChunks.requested.size(), 1u);
  EXPECT_EQ(onceChunks.requested[0], volume->GetLargestPossibleRegion());
  EXPECT_FALSE(once->GetStreamedChunk());
  EXPECT_TRUE(once->GetConverged());
  const auto onceWhole = WholeVolume(volume.GetPointer(), itk::GPURestorationEnums::Backend::CPU, 40, 0.01, 2);
  EXPECT_EQ(MaxDifference(onceStreamer->GetOutput(), onceWhole.GetPointer()), 0.0);
}

TEST(TotalVariationStreaming, TheHaloIsNeeded)
{
  // The engine on z-chunks [12, 18) of the 30 slices, padded by h slices: equal to the
  // whole volume for h = iterations + 1, different without padding.
  const auto volume = MakeVolume<Image3F>();
  const gpur::Grid grid = itk::GPURestoration::MakeGrid(volume.GetPointer());
  const std::size_t slice = grid.size[0] * grid.size[1];
  const float * f = volume->GetBufferPointer();
  gpur::ExecutionOptions cpu;
  cpu.backend = gpur::Backend::CPU;
  for (const auto algorithm :
       { gpur::TVAlgorithm::ChambollePock, gpur::TVAlgorithm::AcceleratedChambollePock, gpur::TVAlgorithm::PDU })
  {
    SCOPED_TRACE(gpur::ToString(algorithm));
    gpur::TVParameters parameters;
    parameters.lambda = 10.0;
    parameters.algorithm = algorithm;
    parameters.maxIterations = Iterations;
    parameters.gapTolerance = 0.0;
    std::vector<float> whole(grid.Count());
    gpur::DenoiseTV(f, whole.data(), grid, parameters, cpu);
    std::cout << gpur::ToString(algorithm) << ": max |chunk - whole| for halo";
    for (std::size_t halo = 0; halo <= Iterations + 1; ++halo)
    {
      gpur::Grid chunk = grid;
      const std::size_t z0 = 12 - halo, z1 = 18 + halo;
      chunk.size[2] = z1 - z0;
      std::vector<float> u(chunk.Count());
      gpur::DenoiseTV(f + z0 * slice, u.data(), chunk, parameters, cpu);
      const double difference = gpur::MaxAbsDifference(u.data() + halo * slice, whole.data() + 12 * slice, 6 * slice);
      std::cout << " " << halo << ": " << difference;
      if (halo <= 1)
      {
        EXPECT_GT(difference, halo == 0 ? 1e-3 : 1e-6);
      }
      if (halo == Iterations + 1)
      {
        EXPECT_EQ(difference, 0.0);
      }
    }
    std::cout << "\n";
  }
}

TEST(TotalVariationStreaming, TheStatisticalFilterDoesNotStream)
{
  const auto volume = MakeVolume<Image3F>();
  using StatisticalFilter = itk::StatisticalTVImageFilter<Image3F>;
  auto configure = [](StatisticalFilter * filter)
  {
    filter->SetBackend(itk::GPURestorationEnums::Backend::CPU);
    filter->SetLambda(8.0); // fixed: the automatic lambda needs converged solves
    filter->SetMaximumNumberOfIterations(Iterations);
    filter->SetGapTolerance(0.0);
  };
  auto reference = StatisticalFilter::New();
  reference->SetInput(volume);
  configure(reference.GetPointer());
  reference->Update();

  auto filter = StatisticalFilter::New();
  filter->SetInput(volume);
  configure(filter.GetPointer());
  Chunks<Image3F> chunks;
  chunks.Watch(filter.GetPointer());
  const TempFile output("statistical.mha");
  auto writer = itk::ImageFileWriter<Image3F>::New();
  writer->SetInput(filter->GetOutput());
  writer->SetFileName(output.Path());
  writer->SetNumberOfStreamDivisions(5);
  writer->Update();
  ASSERT_EQ(chunks.requested.size(), 1u); // one run on the whole image; the writer writes it in pieces
  EXPECT_EQ(chunks.requested[0], volume->GetLargestPossibleRegion());
  EXPECT_EQ(chunks.solved[0], volume->GetLargestPossibleRegion());
  EXPECT_FALSE(filter->GetStreamedChunk());
  EXPECT_EQ(MaxDifference(itk::ReadImage<Image3F>(output.Path()).GetPointer(), reference->GetOutput()), 0.0);
}

TEST(TotalVariationStreaming, TheAutomaticLambdaIsChosenOnTheWholeImage)
{
  // Lambda 0 (the default) chooses lambda from the whole image's noise: a streaming writer gets one
  // whole-image run, written in pieces, equal to the run without streaming.
  const auto volume = MakeVolume<Image3F>();
  auto reference = TVFilter3::New();
  reference->SetInput(volume);
  reference->SetBackend(itk::GPURestorationEnums::Backend::CPU);
  reference->Update();
  EXPECT_GE(reference->GetNumberOfLambdaSolves(), 2u);

  auto filter = TVFilter3::New();
  filter->SetInput(volume);
  filter->SetBackend(itk::GPURestorationEnums::Backend::CPU);
  Chunks<Image3F> chunks;
  chunks.Watch(filter.GetPointer());
  const TempFile output("automatic.mha");
  auto writer = itk::ImageFileWriter<Image3F>::New();
  writer->SetInput(filter->GetOutput());
  writer->SetFileName(output.Path());
  writer->SetNumberOfStreamDivisions(4);
  writer->Update();
  ASSERT_EQ(chunks.requested.size(), 1u);
  EXPECT_EQ(chunks.solved[0], volume->GetLargestPossibleRegion());
  EXPECT_FALSE(filter->GetStreamedChunk());
  EXPECT_EQ(filter->GetLambdaUsed(), reference->GetLambdaUsed());
  EXPECT_EQ(MaxDifference(itk::ReadImage<Image3F>(output.Path()).GetPointer(), reference->GetOutput()), 0.0);
}
