// SPDX-License-Identifier: Apache-2.0
// gpurTestData: creates the input files of the file-based tests (command-line
// tool, README snippets) and checks their outputs, so that those tests assert
// numbers instead of "it ran".
//
//   gpurTestData phantom <size> <sigma> <seed> <truth-file> <noisy-file>...
//       A size^3 Shepp-Logan phantom (values in [0, 1], unit spacing) and the same
//       phantom plus N(0, sigma^2) noise, written to each <noisy-file>.
//   gpurTestData phantom2d <size> <sigma> <seed> <truth-file> <noisy-file>...
//       The same for the size^2 Shepp-Logan slice (for the 2D-only tools).
//   gpurTestData hu-phantom <size> <sigma-HU> <spacing-mm> <seed> <truth-file> <noisy-file>...
//       The same phantom in Hounsfield units, 2000 v - 1000 (air -1000, bone +1000),
//       with noise sigma in HU and an isotropic spacing, e.g. 25 HU at 0.7 mm.
//   gpurTestData dicom-series <folder>
//       A 24 x 20 x 6 int16 CT-like volume (spacing 0.7 x 0.8 x 2.5 mm, an oblique
//       direction) written as a DICOM series <folder>/series/slice00k.dcm and as
//       <folder>/volume.mha, read back to check that the series holds that
//       geometry; and <folder>/not-dicom/ holding files that are not DICOM.
//   gpurTestData compare <test> <reference> <geometry-reference> <coordinate-tolerance> <relative-tolerance>
//       Fails unless <test> has the size of <reference>, the spacing, origin and
//       direction of <geometry-reference> (each within <coordinate-tolerance>), and
//       max |test - reference| <= <relative-tolerance> * (max - min of reference).
//   gpurTestData psnr-gain <noisy> <denoised> <truth> <minimum-gain-dB>
//       Fails unless PSNR(denoised, truth) >= PSNR(noisy, truth) + minimum gain
//       (peak: the range of truth).
//   gpurTestData variance <reference> <sigma> <output>
//       The noise variance sigma^2 in every voxel of <reference>'s grid (size,
//       spacing, origin, direction), for the --variance input of itkgpurestoration-stv.
//   gpurTestData poisson <boundaries> <shift> <sizes> <spacings> <rhs-file> <solution-file>
//       A manufactured solution u of -Lap u + shift u = f (itkPSCRManufacturedSolution.h)
//       on a 2D or 3D grid, e.g. "dirichlet,neumann,dirichlet" "0" "48,40,24" "1,1.5,2"
//       (one entry per axis, x first), with an origin and an oblique direction: f is
//       written to <rhs-file>, u to <solution-file> (float). With Neumann on every axis
//       and shift 0 the solution is written with zero mean, as the solver returns it.
//   gpurTestData sparse2d <nx> <ny> <stars> <psf-sigma> <seed> <truth-file> <psf-file>
//       A 2D star field for itkgpurestoration-sparse: <stars> nonzero pixels of values
//       uniform in [1, 3] at distinct random positions on nx x ny (spacing 0.5 x 0.75, an
//       origin), 0 elsewhere, and a normalised Gaussian point-spread function of sigma
//       <psf-sigma> pixels, (2 ceil(3 sigma) + 1)^2 pixels centred at size / 2, at the same spacing.
//   gpurTestData bad-inputs <good-3d-image> <dicom-series-folder> <folder>
//       Corrupt and unsupported inputs of the tools' bad-input tests (truncated,
//       damaged zlib/gzip, impossible or empty headers, vector and RGB pixels,
//       damaged, short or missing DICOM slices); see gpurTestDataBadInputs.h.
//
// Every check prints the numbers it measured. Exit code 0 on success, 1 otherwise.
#include "gpurMetrics.h"
#include "gpurPhantom.h"
#include "gpurTestDataBadInputs.h"
// The manufactured solution shared with the filter's tests (ITK only).
#include "../Modules/PSCR/test/itkPSCRManufacturedSolution.h"

#include "itkGDCMImageIO.h"
#include "itkGDCMSeriesFileNames.h"
#include "itkImage.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageSeriesReader.h"
#include "itkImageSeriesWriter.h"
#include "itkMath.h"
#include "itkMetaDataObject.h"
#include "itkNumericSeriesFileNames.h"
#include "itksys/SystemTools.hxx"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using FloatImage = itk::Image<float, 3>;
using ShortImage = itk::Image<short, 3>;

double
ToDouble(const std::string & text)
{
  std::size_t used = 0;
  const double value = std::stod(text, &used);
  if (used != text.size() || !std::isfinite(value))
    throw std::invalid_argument("not a finite number: '" + text + "'");
  return value;
}

template<typename TImage>
void
CopyPixels(const std::vector<float> & values, TImage * image)
{
  std::copy(values.begin(), values.end(), image->GetBufferPointer());
}

/**
 * The size^D Shepp-Logan phantom (D = 2: its central slice) mapped to a + b v (v in
 * [0, 1]), with noise sigma (in the mapped units) and the given spacing: the truth to
 * files[0], the noisy copy to every other file.
 */
template<unsigned D>
int
WritePhantom(std::size_t n,
             double offset,
             double scale,
             double sigma,
             double spacing,
             std::uint64_t seed,
             const std::vector<std::string> & files)
{
  auto truth = gpur::SheppLoganPhantom(D == 2 ? gpur::MakeGrid2D(n, n) : gpur::MakeGrid3D(n, n, n));
  for (float & v : truth)
    v = static_cast<float>(offset + scale * v);
  const auto noisy = gpur::AddGaussianNoise(truth, sigma, seed);

  using ImageType = itk::Image<float, D>;
  auto image = ImageType::New();
  typename ImageType::SizeType size;
  size.Fill(n);
  image->SetRegions(size);
  image->SetSpacing(spacing);
  image->Allocate();
  CopyPixels(truth, image.GetPointer());
  itk::WriteImage(image, files[0]);
  CopyPixels(noisy, image.GetPointer());
  for (std::size_t i = 1; i < files.size(); ++i)
    itk::WriteImage(image, files[i]);
  std::cout << "phantom " << n << "^" << D << ", sigma " << sigma << ": PSNR of the noisy copy "
            << gpur::PeakSignalToNoiseRatio(noisy.data(), truth.data(), truth.size(), scale) << " dB\n";
  return EXIT_SUCCESS;
}

/** phantom (D = 3) and phantom2d (D = 2): <size> <sigma> <seed> <truth-file> <noisy-file>... in [0, 1]. */
template<unsigned D>
int
Phantom(const std::vector<std::string> & args)
{
  if (args.size() < 5)
    throw std::invalid_argument(std::string(D == 2 ? "phantom2d" : "phantom") +
                                " <size> <sigma> <seed> <truth-file> <noisy-file>...");
  return WritePhantom<D>(static_cast<std::size_t>(std::stoul(args[0])),
                         0.0,
                         1.0,
                         ToDouble(args[1]),
                         1.0,
                         static_cast<std::uint64_t>(std::stoull(args[2])),
                         std::vector<std::string>(args.begin() + 3, args.end()));
}

int
HounsfieldPhantom(const std::vector<std::string> & args)
{
  if (args.size() < 6)
    throw std::invalid_argument("hu-phantom <size> <sigma-HU> <spacing-mm> <seed> <truth-file> <noisy-file>...");
  return WritePhantom<3>(static_cast<std::size_t>(std::stoul(args[0])),
                         -1000.0,
                         2000.0,
                         ToDouble(args[1]),
                         ToDouble(args[2]),
                         static_cast<std::uint64_t>(std::stoull(args[3])),
                         std::vector<std::string>(args.begin() + 4, args.end()));
}

/** The largest coordinate difference of the geometries of a and b (spacing, origin, direction). */
template<typename TImageA, typename TImageB>
double
GeometryDifference(const TImageA * a, const TImageB * b)
{
  double worst = 0.0;
  for (unsigned i = 0; i < 3; ++i)
  {
    worst = std::max(worst, std::abs(a->GetSpacing()[i] - b->GetSpacing()[i]));
    worst = std::max(worst, std::abs(a->GetOrigin()[i] - b->GetOrigin()[i]));
    for (unsigned j = 0; j < 3; ++j)
      worst = std::max(worst, std::abs(a->GetDirection()[i][j] - b->GetDirection()[i][j]));
  }
  return worst;
}

/** A CT-like int16 volume: air, a body ellipse, a bone ring and a lesion, with noise. */
ShortImage::Pointer
CTLikeVolume()
{
  auto image = ShortImage::New();
  ShortImage::SizeType size;
  size[0] = 24;
  size[1] = 20;
  size[2] = 6;
  image->SetRegions(size);
  image->Allocate();
  const double spacing[3] = { 0.7, 0.8, 2.5 };
  const double origin[3] = { -120.5, 34.25, 410.0 };
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  // A proper rotation (20 degrees about z, then 10 degrees about x): DICOM stores two
  // direction columns and the reader takes the third as their cross product.
  const double a = 20.0 * itk::Math::pi / 180.0;
  const double b = 10.0 * itk::Math::pi / 180.0;
  const double rz[3][3] = { { std::cos(a), -std::sin(a), 0 }, { std::sin(a), std::cos(a), 0 }, { 0, 0, 1 } };
  const double rx[3][3] = { { 1, 0, 0 }, { 0, std::cos(b), -std::sin(b) }, { 0, std::sin(b), std::cos(b) } };
  ShortImage::DirectionType direction;
  for (unsigned i = 0; i < 3; ++i)
    for (unsigned j = 0; j < 3; ++j)
    {
      direction[i][j] = 0.0;
      for (unsigned k = 0; k < 3; ++k)
        direction[i][j] += rx[i][k] * rz[k][j];
    }
  image->SetDirection(direction);

  std::mt19937 random(11);
  std::normal_distribution<double> noise(0.0, 25.0);
  for (unsigned z = 0; z < size[2]; ++z)
    for (unsigned y = 0; y < size[1]; ++y)
      for (unsigned x = 0; x < size[0]; ++x)
      {
        const double u = (x - 11.5) / 10.0;
        const double v = (y - 9.5) / 8.0;
        const double r = u * u + v * v;
        double value = -1000.0; // air
        if (r < 1.0)
          value = r > 0.7 ? 700.0 : 40.0; // bone ring, soft tissue
        if ((x - 14.0) * (x - 14.0) + (y - 8.0) * (y - 8.0) < 6.0 && z >= 2 && z <= 4)
          value = 90.0; // lesion
        ShortImage::IndexType index;
        index[0] = x;
        index[1] = y;
        index[2] = z;
        image->SetPixel(index, static_cast<short>(std::lround(value + noise(random))));
      }
  return image;
}

int
DicomSeries(const std::vector<std::string> & args)
{
  if (args.size() != 1)
    throw std::invalid_argument("dicom-series <folder>");
  const std::string folder = args[0];
  itksys::SystemTools::RemoveADirectory(folder);
  itksys::SystemTools::MakeDirectory(folder + "/series");
  itksys::SystemTools::MakeDirectory(folder + "/not-dicom");
  const auto volume = CTLikeVolume();
  itk::WriteImage(volume, folder + "/volume.mha");

  auto io = itk::GDCMImageIO::New();
  auto & dictionary = io->GetMetaDataDictionary();
  itk::EncapsulateMetaData<std::string>(dictionary, "0008|0060", "CT");                        // modality
  itk::EncapsulateMetaData<std::string>(dictionary, "0008|0016", "1.2.840.10008.5.1.4.1.1.2"); // CT image storage
  itk::EncapsulateMetaData<std::string>(dictionary, "0010|0010", "PHANTOM^CT");                // patient name
  auto names = itk::NumericSeriesFileNames::New();
  names->SetSeriesFormat(folder + "/series/slice%03d.dcm");
  names->SetStartIndex(0);
  names->SetEndIndex(volume->GetLargestPossibleRegion().GetSize(2) - 1);
  auto writer = itk::ImageSeriesWriter<ShortImage, itk::Image<short, 2>>::New();
  writer->SetInput(volume);
  writer->SetImageIO(io);
  writer->SetFileNames(names->GetFileNames());
  writer->Update();

  // Not DICOM: a text file and a MetaImage.
  std::ofstream(folder + "/not-dicom/notes.txt") << "not a DICOM file\n";
  itk::WriteImage(volume, folder + "/not-dicom/volume.mha");

  // The series as a reader sees it: same pixels and (to the precision DICOM stores) geometry.
  auto series = itk::GDCMSeriesFileNames::New();
  series->SetDirectory(folder + "/series");
  auto reader = itk::ImageSeriesReader<ShortImage>::New();
  reader->SetImageIO(itk::GDCMImageIO::New());
  reader->SetFileNames(series->GetInputFileNames());
  reader->Update();
  const ShortImage * read = reader->GetOutput();
  const auto n = volume->GetLargestPossibleRegion().GetNumberOfPixels();
  const bool samePixels =
    read->GetLargestPossibleRegion().GetSize() == volume->GetLargestPossibleRegion().GetSize() &&
    std::equal(volume->GetBufferPointer(), volume->GetBufferPointer() + n, read->GetBufferPointer());
  const double geometry = GeometryDifference(read, volume.GetPointer());
  std::cout << "DICOM series of " << series->GetInputFileNames().size() << " files in " << folder << "/series: pixels "
            << (samePixels ? "identical" : "DIFFERENT") << ", geometry within " << geometry << " of volume.mha\n";
  return samePixels && geometry <= 1e-3 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int
Compare(const std::vector<std::string> & args)
{
  if (args.size() != 5)
    throw std::invalid_argument(
      "compare <test> <reference> <geometry-reference> <coordinate-tolerance> <relative-tolerance>");
  const auto test = itk::ReadImage<FloatImage>(args[0]);
  const auto reference = itk::ReadImage<FloatImage>(args[1]);
  const auto geometryReference = itk::ReadImage<FloatImage>(args[2]);
  const double coordinateTolerance = ToDouble(args[3]);
  const double relativeTolerance = ToDouble(args[4]);

  const auto size = test->GetLargestPossibleRegion().GetSize();
  const bool sameSize = size == reference->GetLargestPossibleRegion().GetSize() &&
                        size == geometryReference->GetLargestPossibleRegion().GetSize();
  const double geometry = GeometryDifference(test.GetPointer(), geometryReference.GetPointer());
  std::cout << "size " << size << (sameSize ? " (same)" : " (DIFFERENT)") << ", spacing " << test->GetSpacing()
            << ", origin " << test->GetOrigin() << ": largest coordinate difference " << geometry << " (tolerance "
            << coordinateTolerance << ")\n";
  if (!sameSize)
    return EXIT_FAILURE;
  const std::size_t n = test->GetLargestPossibleRegion().GetNumberOfPixels();
  const float * r = reference->GetBufferPointer();
  const auto range = std::minmax_element(r, r + n);
  const double span = static_cast<double>(*range.second) - static_cast<double>(*range.first);
  const double difference = gpur::MaxAbsDifference(test->GetBufferPointer(), r, n);
  std::cout << "intensity: max |test - reference| = " << difference << ", reference range " << span << ", relative "
            << difference / span << " (tolerance " << relativeTolerance << ")\n";
  return geometry <= coordinateTolerance && difference <= relativeTolerance * span ? EXIT_SUCCESS : EXIT_FAILURE;
}

int
PSNRGain(const std::vector<std::string> & args)
{
  if (args.size() != 4)
    throw std::invalid_argument("psnr-gain <noisy> <denoised> <truth> <minimum-gain-dB>");
  const auto noisy = itk::ReadImage<FloatImage>(args[0]);
  const auto denoised = itk::ReadImage<FloatImage>(args[1]);
  const auto truth = itk::ReadImage<FloatImage>(args[2]);
  const double minimumGain = ToDouble(args[3]);
  const auto size = truth->GetLargestPossibleRegion().GetSize();
  if (noisy->GetLargestPossibleRegion().GetSize() != size || denoised->GetLargestPossibleRegion().GetSize() != size)
  {
    std::cout << "sizes differ: noisy " << noisy->GetLargestPossibleRegion().GetSize() << ", denoised "
              << denoised->GetLargestPossibleRegion().GetSize() << ", truth " << size << "\n";
    return EXIT_FAILURE;
  }
  const std::size_t n = truth->GetLargestPossibleRegion().GetNumberOfPixels();
  const float * t = truth->GetBufferPointer();
  const auto range = std::minmax_element(t, t + n);
  const double peak = static_cast<double>(*range.second) - static_cast<double>(*range.first);
  const double before = gpur::PeakSignalToNoiseRatio(noisy->GetBufferPointer(), t, n, peak);
  const double after = gpur::PeakSignalToNoiseRatio(denoised->GetBufferPointer(), t, n, peak);
  std::cout << "PSNR " << before << " dB (" << args[0] << ") -> " << after << " dB (" << args[1] << "), gain "
            << after - before << " dB (required >= " << minimumGain << ")\n";
  return after >= before + minimumGain ? EXIT_SUCCESS : EXIT_FAILURE;
}

int
Variance(const std::vector<std::string> & args)
{
  if (args.size() != 3)
    throw std::invalid_argument("variance <reference> <sigma> <output>");
  const auto reference = itk::ReadImage<FloatImage>(args[0]);
  const double sigma = ToDouble(args[1]);
  auto variance = FloatImage::New();
  variance->CopyInformation(reference);
  variance->SetRegions(reference->GetLargestPossibleRegion());
  variance->Allocate();
  variance->FillBuffer(static_cast<float>(sigma * sigma));
  itk::WriteImage(variance, args[2]);
  std::cout << "variance " << sigma * sigma << " on the grid of " << args[0] << "\n";
  return EXIT_SUCCESS;
}

/** "a,b,c" as a list of items. */
std::vector<std::string>
SplitList(const std::string & text)
{
  std::vector<std::string> items;
  std::size_t begin = 0;
  for (std::size_t comma; (comma = text.find(',', begin)) != std::string::npos; begin = comma + 1)
    items.push_back(text.substr(begin, comma - begin));
  items.push_back(text.substr(begin));
  return items;
}

template<unsigned D>
int
WritePoissonProblem(const std::vector<std::string> & boundaries,
                    double shift,
                    const std::vector<std::string> & sizes,
                    const std::vector<std::string> & spacings,
                    const std::string & rhsFile,
                    const std::string & solutionFile)
{
  using ImageType = itk::Image<double, D>;
  typename ImageType::SizeType size;
  typename ImageType::SpacingType spacing;
  typename ImageType::PointType origin;
  std::array<bool, D> neumann{};
  for (unsigned d = 0; d < D; ++d)
  {
    if (boundaries[d] != "dirichlet" && boundaries[d] != "neumann")
      throw std::invalid_argument("poisson: boundary '" + boundaries[d] + "' is not dirichlet or neumann");
    neumann[d] = boundaries[d] == "neumann";
    size[d] = std::stoul(sizes[d]);
    spacing[d] = ToDouble(spacings[d]);
    origin[d] = 10.0 - 7.5 * d;
  }
  // A rotation in the x-y plane: the solver must carry it over (and not depend on it).
  typename ImageType::DirectionType direction;
  direction.SetIdentity();
  direction[0][0] = direction[1][1] = 0.8;
  direction[0][1] = -0.6;
  direction[1][0] = 0.6;
  std::array<typename ImageType::Pointer, 2> images{ { ImageType::New(), ImageType::New() } };
  for (auto & image : images)
  {
    image->SetRegions(size);
    image->SetSpacing(spacing);
    image->SetOrigin(origin);
    image->SetDirection(direction);
    image->Allocate();
  }
  itk::PSCRTesting::FillManufactured(images[0].GetPointer(), images[1].GetPointer(), neumann, shift);
  const std::size_t n = images[0]->GetLargestPossibleRegion().GetNumberOfPixels();
  double * u = images[0]->GetBufferPointer();
  const double * f = images[1]->GetBufferPointer();
  double sumF = 0, normF = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    sumF += f[i];
    normF += f[i] * f[i];
  }
  const bool singular = shift == 0.0 && std::all_of(neumann.begin(), neumann.end(), [](bool b) { return b; });
  if (singular)
  {
    const double mean = std::accumulate(u, u + n, 0.0) / static_cast<double>(n);
    std::for_each(u, u + n, [mean](double & x) { x -= mean; });
  }
  using FloatImageD = itk::Image<float, D>;
  for (unsigned k = 0; k < 2; ++k)
  {
    auto out = FloatImageD::New();
    out->CopyInformation(images[k]);
    out->SetRegions(images[k]->GetLargestPossibleRegion());
    out->Allocate();
    std::copy(images[k]->GetBufferPointer(), images[k]->GetBufferPointer() + n, out->GetBufferPointer());
    itk::WriteImage(out, k == 0 ? solutionFile : rhsFile);
  }
  std::cout << "Poisson problem " << size << ", spacing " << spacing << ", shift " << shift
            << (singular ? " (singular: solution with zero mean)" : "")
            << ": |sum f| / (sqrt(N) |f|) = " << std::abs(sumF) / std::sqrt(static_cast<double>(n) * normF) << "\n";
  return EXIT_SUCCESS;
}

int
Poisson(const std::vector<std::string> & args)
{
  if (args.size() != 6)
    throw std::invalid_argument("poisson <boundaries> <shift> <sizes> <spacings> <rhs-file> <solution-file>");
  const auto boundaries = SplitList(args[0]), sizes = SplitList(args[2]), spacings = SplitList(args[3]);
  const std::size_t dimension = boundaries.size();
  if ((dimension != 2 && dimension != 3) || sizes.size() != dimension || spacings.size() != dimension)
    throw std::invalid_argument("poisson: give 2 or 3 boundaries, sizes and spacings");
  const double shift = ToDouble(args[1]);
  return dimension == 2 ? WritePoissonProblem<2>(boundaries, shift, sizes, spacings, args[4], args[5])
                        : WritePoissonProblem<3>(boundaries, shift, sizes, spacings, args[4], args[5]);
}

/** sparse2d <nx> <ny> <stars> <psf-sigma> <seed> <truth-file> <psf-file>: a star field and a Gaussian PSF. */
int
SparseStars(const std::vector<std::string> & args)
{
  if (args.size() != 7)
    throw std::invalid_argument("sparse2d <nx> <ny> <stars> <psf-sigma> <seed> <truth-file> <psf-file>");
  using ImageType = itk::Image<float, 2>;
  const std::size_t nx = std::stoul(args[0]), ny = std::stoul(args[1]), stars = std::stoul(args[2]);
  const double sigma = ToDouble(args[3]);
  if (stars == 0 || stars > nx * ny || !(sigma > 0.0))
    throw std::invalid_argument("sparse2d: 1 to nx * ny stars and a PSF sigma > 0");
  std::mt19937_64 random(std::stoull(args[4]));
  std::vector<std::size_t> positions(nx * ny);
  std::iota(positions.begin(), positions.end(), std::size_t{ 0 });
  std::vector<float> truth(nx * ny, 0.0f);
  for (std::size_t k = 0; k < stars; ++k) // a partial Fisher-Yates shuffle: distinct positions
  {
    std::swap(positions[k], positions[k + random() % (positions.size() - k)]);
    truth[positions[k]] = static_cast<float>(1.0 + 2.0 * static_cast<double>(random() >> 11) * 0x1.0p-53);
  }
  const auto write = [](const std::vector<float> & values, std::size_t sx, std::size_t sy, const std::string & file)
  {
    auto image = ImageType::New();
    image->SetRegions(ImageType::SizeType{ { sx, sy } });
    ImageType::SpacingType spacing;
    spacing[0] = 0.5;
    spacing[1] = 0.75;
    image->SetSpacing(spacing);
    ImageType::PointType origin;
    origin[0] = -4.0;
    origin[1] = 2.5;
    image->SetOrigin(origin);
    image->Allocate();
    CopyPixels(values, image.GetPointer());
    itk::WriteImage(image, file);
  };
  write(truth, nx, ny, args[5]);
  const auto radius = static_cast<std::size_t>(std::ceil(3.0 * sigma));
  const std::size_t side = 2 * radius + 1;
  std::vector<float> psf(side * side);
  double sum = 0.0;
  for (std::size_t j = 0; j < side; ++j)
    for (std::size_t i = 0; i < side; ++i)
    {
      const double dx = static_cast<double>(i) - radius, dy = static_cast<double>(j) - radius;
      sum += psf[j * side + i] = static_cast<float>(std::exp(-(dx * dx + dy * dy) / (2.0 * sigma * sigma)));
    }
  for (float & v : psf)
    v = static_cast<float>(v / sum);
  write(psf, side, side, args[6]);
  std::cout << "sparse2d " << nx << " x " << ny << ": " << stars << " stars, PSF " << side << " x " << side << "\n";
  return EXIT_SUCCESS;
}

} // namespace

int
main(int argc, char * argv[])
{
  const std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
  const std::string command = argc > 1 ? argv[1] : "";
  try
  {
    if (command == "hu-phantom")
      return HounsfieldPhantom(args);
    if (command == "phantom")
      return Phantom<3>(args);
    if (command == "phantom2d")
      return Phantom<2>(args);
    if (command == "dicom-series")
      return DicomSeries(args);
    if (command == "compare")
      return Compare(args);
    if (command == "psnr-gain")
      return PSNRGain(args);
    if (command == "variance")
      return Variance(args);
    if (command == "poisson")
      return Poisson(args);
    if (command == "sparse2d")
      return SparseStars(args);
    if (command == "bad-inputs")
      return gpur::testdata::BadInputs(args);
    std::cerr
      << "usage: gpurTestData phantom|phantom2d|hu-phantom|dicom-series|compare|psnr-gain|variance|poisson|sparse2d|"
         "bad-inputs ... (see the "
         "source's header)\n";
  }
  catch (const std::exception & e)
  {
    std::cerr << "gpurTestData " << command << ": " << e.what() << "\n";
  }
  return EXIT_FAILURE;
}
