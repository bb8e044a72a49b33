// SPDX-License-Identifier: Apache-2.0
#include "gpurTestDataBadInputs.h"

#include "itkImage.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkRGBPixel.h"
#include "itkVector.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <stdexcept>

namespace gpur
{
namespace testdata
{

namespace
{

namespace fs = std::filesystem;

std::string
ReadBytes(const fs::path & file)
{
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read '" + file.string() + "'");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void
WriteBytes(const fs::path & file, const std::string & bytes)
{
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw std::runtime_error("cannot write '" + file.string() + "'");
}

/** file without its last n bytes. */
void
Truncate(const fs::path & file, std::size_t n)
{
  const std::string bytes = ReadBytes(file);
  if (bytes.size() <= n)
    throw std::runtime_error("'" + file.string() + "' is too small to lose " + std::to_string(n) + " bytes");
  WriteBytes(file, bytes.substr(0, bytes.size() - n));
}

/** Overwrites bytes [begin, end) of file with fixed pseudo-random bytes. */
void
Garble(const fs::path & file, std::size_t begin, std::size_t end)
{
  std::string bytes = ReadBytes(file);
  if (end > bytes.size())
    throw std::runtime_error("'" + file.string() + "' is too small to garble");
  std::mt19937 random(20240611);
  for (std::size_t i = begin; i < end; ++i)
    bytes[i] = static_cast<char>(random() & 0xff);
  WriteBytes(file, bytes);
}

/** A MetaImage header ending in "ElementDataFile = LOCAL". */
std::string
MetaImageHeader(const std::string & size)
{
  return "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\nCompressedData = False\n"
         "ElementSpacing = 1 1 1\nDimSize = " +
         size + "\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n";
}

/** A copy of the series folder, to damage. */
fs::path
CopySeries(const fs::path & series, const fs::path & folder, const std::string & name)
{
  const fs::path copy = folder / name;
  fs::remove_all(copy);
  fs::copy(series, copy);
  return copy;
}

} // namespace

int
BadInputs(const std::vector<std::string> & args)
{
  if (args.size() != 3)
    throw std::invalid_argument("bad-inputs <good-3d-image> <dicom-series-folder> <folder>");
  using FloatImage = itk::Image<float, 3>;
  const auto good = itk::ReadImage<FloatImage>(args[0]);
  const fs::path series = args[1];
  const fs::path folder = args[2];
  fs::create_directories(folder);

  itk::WriteImage(good, (folder / "truncated.mha").string());
  Truncate(folder / "truncated.mha", 5000);
  const fs::path zlib = folder / "corrupt-zlib.mha";
  itk::WriteImage(good, zlib.string(), /*compress=*/true);
  const std::size_t data = ReadBytes(zlib).find("ElementDataFile = LOCAL\n") + 24;
  Garble(zlib, data + 2000, data + 2400);

  std::string huge = MetaImageHeader("800 800 800");
  huge.resize(4096, '\0');
  WriteBytes(folder / "huge-header.mha", huge);
  WriteBytes(folder / "zero-size.mha", MetaImageHeader("0 32 32"));

  using VectorImage = itk::Image<itk::Vector<float, 3>, 3>;
  auto vectors = VectorImage::New();
  vectors->SetRegions(VectorImage::SizeType{ { 8, 8, 8 } });
  vectors->Allocate(true);
  itk::WriteImage(vectors, (folder / "vector.mha").string());
  using RGBImage = itk::Image<itk::RGBPixel<unsigned char>, 2>;
  auto rgb = RGBImage::New();
  rgb->SetRegions(RGBImage::SizeType{ { 16, 12 } });
  rgb->Allocate(true);
  itk::WriteImage(rgb, (folder / "rgb.png").string());

  itk::WriteImage(good, (folder / "truncated.nii").string());
  Truncate(folder / "truncated.nii", 5000);
  itk::WriteImage(good, (folder / "corrupt.nii.gz").string(), /*compress=*/true);
  Garble(folder / "corrupt.nii.gz", 3000, 3400);
  itk::WriteImage(good, (folder / "truncated.tif").string());
  Truncate(folder / "truncated.tif", 5000);

  Truncate(CopySeries(series, folder, "dicom-truncated") / "slice003.dcm", 500);
  Garble(CopySeries(series, folder, "dicom-garbled") / "slice003.dcm", 140, 400);
  Garble(CopySeries(series, folder, "dicom-garbled-first") / "slice000.dcm", 140, 400);
  fs::remove(CopySeries(series, folder, "dicom-missing") / "slice003.dcm");
  std::cout << "bad inputs written to " << folder.string() << "\n";
  return EXIT_SUCCESS;
}

} // namespace testdata
} // namespace gpur
