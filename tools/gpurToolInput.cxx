// SPDX-License-Identifier: Apache-2.0
#include "gpurToolInput.h"

#include "gpurToolComplaints.h"
#include "gpurToolDicom.h"

#include "itkImageIOFactory.h"
#include "itk_zlib.h"
#include "itksys/SystemTools.hxx"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <stdexcept>
#include <vector>

namespace gpur
{
namespace cli
{

namespace
{

namespace fs = std::filesystem;

/**
 * The largest expansion of zlib's deflate format: 1032:1 (a 258-byte match
 * coded in 2 bits; "Maximum Compression Factor" in zlib's technical details,
 * zlib.net/zlib_tech.html).
 */
constexpr std::uint64_t kMaxDeflateExpansion = 1032;

/** Where an image file keeps its pixels and how they are stored, as far as its header says. */
struct PixelData
{
  enum class Storage
  {
    Raw,     // the bytes as they are, from offset on
    Deflate, // a zlib stream from offset on (compressed MetaImage), storedBytes long when known
    Gzip     // the whole file is gzip; offset counts in the decompressed bytes
  };
  fs::path file;
  std::uint64_t offset = 0;
  Storage storage = Storage::Raw;
  std::uint64_t storedBytes = 0; // Deflate: the compressed size the header gives (0: not given)
};

bool
EndsWith(const std::string & text, const char * suffix)
{
  const std::size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

std::string
Trim(const std::string & text)
{
  const std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos)
    return {};
  const std::size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

/** A MetaImage header's data location ("Key = Value" lines up to ElementDataFile, which ends the header). */
std::optional<PixelData>
MetaImagePixelData(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  PixelData data;
  std::string line;
  std::uint64_t position = 0;
  std::int64_t headerSize = 0;
  while (std::getline(in, line))
  {
    position += line.size() + 1;
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos)
      continue;
    const std::string key = Trim(line.substr(0, equals));
    const std::string value = Trim(line.substr(equals + 1));
    if (key == "CompressedData")
      data.storage = value == "True" || value == "true" ? PixelData::Storage::Deflate : PixelData::Storage::Raw;
    else if (key == "CompressedDataSize")
      data.storedBytes = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "HeaderSize")
      headerSize = std::strtoll(value.c_str(), nullptr, 10);
    else if (key == "ElementDataFile")
    {
      if (value == "LOCAL")
      {
        data.file = path;
        data.offset = position;
      }
      else if (value.rfind("LIST", 0) == 0 || value.find('%') != std::string::npos)
        return std::nullopt; // one file per slice
      else
      {
        data.file = fs::path(value).is_absolute() ? fs::path(value) : fs::path(path).parent_path() / value;
        data.offset = headerSize > 0 ? static_cast<std::uint64_t>(headerSize) : 0; // -1: at the end, unknown
      }
      return data;
    }
  }
  return std::nullopt;
}

/** The first n bytes of a file, through zlib when it is gzip (gzread passes other files through). */
std::string
FirstBytes(const fs::path & file, std::size_t n)
{
  std::string bytes(n, '\0');
  gzFile in = gzopen(file.c_str(), "rb");
  if (in == nullptr)
    return {};
  const int got = gzread(in, bytes.data(), static_cast<unsigned>(n));
  gzclose(in);
  bytes.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return bytes;
}

/**
 * A NIfTI-1 or Analyze 7.5 file's data location: .nii holds header and data
 * (from vox_offset, at least 352), .hdr/.img pairs keep the data in the .img
 * from vox_offset; .gz means gzip.
 */
std::optional<PixelData>
NiftiPixelData(const std::string & path)
{
  const std::string lower = itksys::SystemTools::LowerCase(path);
  bool gz = EndsWith(lower, ".gz");
  const std::string base = gz ? path.substr(0, path.size() - 3) : path;
  const std::string lowerBase = gz ? lower.substr(0, lower.size() - 3) : lower;
  const std::string stem = base.substr(0, base.size() - 4);
  PixelData data;
  fs::path header;
  if (EndsWith(lowerBase, ".nii"))
    header = data.file = path;
  else if (EndsWith(lowerBase, ".hdr") || EndsWith(lowerBase, ".img"))
  {
    // The pair's other name in the same letter case; niftilib also finds a gzip'd .img next to a plain .hdr.
    const bool upper = base[base.size() - 3] == 'H' || base[base.size() - 3] == 'I';
    const std::string suffix = gz ? ".gz" : "";
    header = stem + (upper ? ".HDR" : ".hdr") + suffix;
    data.file = stem + (upper ? ".IMG" : ".img") + suffix;
    std::error_code error;
    if (!gz && !fs::exists(data.file, error) && fs::exists(data.file.string() + ".gz", error))
    {
      data.file += ".gz";
      gz = true;
    }
  }
  else
    return std::nullopt;
  // sizeof_hdr (int32 at 0) is 348, in the file's byte order; vox_offset is the float at 108.
  const std::string bytes = FirstBytes(header, 348);
  if (bytes.size() < 348)
    return std::nullopt;
  std::int32_t size = 0;
  std::memcpy(&size, bytes.data(), 4);
  std::array<char, 4> raw;
  std::memcpy(raw.data(), bytes.data() + 108, 4);
  if (size != 348)
    std::reverse(raw.begin(), raw.end());
  float voxOffset = 0.0f;
  std::memcpy(&voxOffset, raw.data(), 4);
  if (!(voxOffset >= 0.0f && voxOffset < 1e15f))
    return std::nullopt; // the reader refuses such a header itself
  data.offset = static_cast<std::uint64_t>(voxOffset);
  if (header == data.file)
    data.offset = std::max<std::uint64_t>(data.offset, 352);
  data.storage = gz ? PixelData::Storage::Gzip : PixelData::Storage::Raw;
  return data;
}

/** The decompressed length of a gzip file; throws for a damaged or truncated stream (zlib checks the CRC). */
std::uint64_t
GzipLength(const fs::path & file, const std::string & what)
{
  gzFile in = gzopen(file.c_str(), "rb");
  if (in == nullptr)
    throw std::runtime_error("cannot open '" + file.string() + "' (the pixel data of '" + what + "')");
  std::vector<char> buffer(1 << 20);
  std::uint64_t total = 0;
  int got = 0;
  while ((got = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0)
    total += static_cast<std::uint64_t>(got);
  int code = Z_OK;
  const std::string message = gzerror(in, &code);
  gzclose(in);
  if (got < 0 || (code != Z_OK && code != Z_STREAM_END))
    throw std::runtime_error("'" + what + "' has damaged or truncated compressed data (zlib: " + message + ")");
  return total;
}

/** Refuses a file that cannot hold the pixels its header describes (see OpenImageFile). */
void
CheckPixelData(const itk::ImageIOBase & io, const std::string & path)
{
  const std::string format = io.GetNameOfClass();
  if (format == "GDCMImageIO")
  {
    CheckDicomFile(path);
    return;
  }
  std::optional<PixelData> data;
  if (format == "MetaImageIO")
    data = MetaImagePixelData(path);
  else if (format == "NiftiImageIO")
    data = NiftiPixelData(path);
  if (!data)
    return;
  const std::uint64_t needed = io.GetImageSizeInBytes();
  std::error_code error;
  const std::uint64_t fileSize = fs::file_size(data->file, error);
  if (error)
    throw std::runtime_error("'" + path + "' keeps its pixels in '" + data->file.string() +
                             "', which cannot be read (" + error.message() + ")");
  if (data->storage == PixelData::Storage::Gzip)
  {
    const std::uint64_t length = GzipLength(data->file, path);
    if (length < data->offset + needed)
      throw std::runtime_error("'" + path + "' is truncated or its header is wrong: the header describes " +
                               DescribePixels(io) + " but the file holds " +
                               std::to_string(length > data->offset ? length - data->offset : 0) +
                               " bytes of pixel data");
    return;
  }
  const std::uint64_t stored = fileSize > data->offset ? fileSize - data->offset : 0;
  if (data->storage == PixelData::Storage::Raw && stored < needed)
    throw std::runtime_error("'" + path + "' is truncated or its header is wrong: the header describes " +
                             DescribePixels(io) + " but the file holds " + std::to_string(stored) +
                             " bytes of pixel data");
  if (data->storage == PixelData::Storage::Deflate)
  {
    if (data->storedBytes > stored)
      throw std::runtime_error("'" + path + "' is truncated: its header gives " + std::to_string(data->storedBytes) +
                               " bytes of compressed pixel data but the file holds " + std::to_string(stored));
    if (needed / kMaxDeflateExpansion > stored)
      throw std::runtime_error("'" + path + "' is truncated or its header is wrong: the header describes " +
                               DescribePixels(io) + ", more than the " + std::to_string(stored) +
                               " bytes of compressed data in the file can hold (zlib expands at most " +
                               std::to_string(kMaxDeflateExpansion) + "-fold)");
  }
}

} // namespace

std::string
DescribePixels(const itk::ImageIOBase & io, std::uint64_t slices)
{
  std::string size;
  std::uint64_t pixels = 1;
  const unsigned dimensions = io.GetNumberOfDimensions();
  for (unsigned d = 0; d < dimensions; ++d)
  {
    const std::uint64_t n = slices > 1 && d + 1 == dimensions ? slices : io.GetDimensions(d);
    size += (d ? " x " : "") + std::to_string(n);
    pixels *= n;
  }
  const std::uint64_t bytes = pixels * io.GetNumberOfComponents() * io.GetComponentSize();
  return size + " " + itk::ImageIOBase::GetComponentTypeAsString(io.GetComponentType()) + " pixels (" +
         std::to_string(bytes) + " bytes)";
}

void
CheckPixelLayout(const itk::ImageIOBase & io, const std::string & what)
{
  const unsigned components = io.GetNumberOfComponents();
  if (components != 1)
  {
    std::string kind = itk::ImageIOBase::GetPixelTypeAsString(io.GetPixelType());
    if (kind == "rgb" || kind == "rgba")
      kind = itksys::SystemTools::UpperCase(kind);
    throw std::runtime_error("'" + what + "' has " + kind + " pixels (" + std::to_string(components) +
                             " components per pixel); only scalar (grayscale) images are supported: convert it to "
                             "grayscale first (e.g. its luminance, or one channel)");
  }
  for (unsigned d = 0; d < io.GetNumberOfDimensions(); ++d)
    if (io.GetDimensions(d) == 0)
    {
      std::string size;
      for (unsigned e = 0; e < io.GetNumberOfDimensions(); ++e)
        size += (e ? " x " : "") + std::to_string(io.GetDimensions(e));
      throw std::runtime_error("'" + what + "' is empty: its size is " + size +
                               "; an image needs at least one voxel along every axis");
    }
}

itk::ImageIOBase::Pointer
ReadImageHeader(const std::string & path)
{
  if (!itksys::SystemTools::FileExists(path, true))
    throw std::runtime_error("input '" + path + "' does not exist");
  ComplaintCapture capture;
  auto io = itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::ImageIOFactory::FileModeEnum::ReadMode);
  if (io.IsNull())
    throw std::runtime_error("no ITK image format reads '" + path + "'");
  io->SetFileName(path);
  try
  {
    io->ReadImageInformation();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error("cannot read the header of '" + path + "': " + e.GetDescription());
  }
  capture.ThrowIfAny("reading the header of '" + path + "' failed");
  return io;
}

itk::ImageIOBase::Pointer
OpenImageFile(const std::string & path)
{
  auto io = ReadImageHeader(path);
  CheckPixelLayout(*io, path);
  CheckPixelData(*io, path);
  return io;
}

void
ReadPixels(const std::string & what,
           const std::string & description,
           std::uint64_t expectedPixels,
           const std::function<std::uint64_t()> & read)
{
  ComplaintCapture capture;
  std::uint64_t pixels = 0;
  try
  {
    pixels = read();
  }
  catch (const std::bad_alloc &)
  {
    throw std::runtime_error("not enough memory to read '" + what + "' (" + description + ")");
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error("cannot read '" + what + "': " + e.GetDescription());
  }
  capture.ThrowIfAny("reading '" + what + "' failed");
  if (pixels != expectedPixels)
    throw std::runtime_error("reading '" + what + "' failed: got " + std::to_string(pixels) +
                             " pixels where the header describes " + std::to_string(expectedPixels));
}

} // namespace cli
} // namespace gpur
