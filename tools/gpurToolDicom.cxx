// SPDX-License-Identifier: Apache-2.0
#include "gpurToolDicom.h"

#include "gpurToolComplaints.h"
#include "gpurToolInput.h"

#include "itkGDCMImageIO.h"
#include "itkGDCMSeriesFileNames.h"

#include "gdcmAttribute.h"
#include "gdcmReader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

namespace gpur
{
namespace cli
{

namespace
{

namespace fs = std::filesystem;

const gdcm::Tag kPixelData(0x7fe0, 0x0010);

/** What the checks need from a slice's header. */
struct Slice
{
  std::string file;
  bool hasGeometry = false;            // image position and orientation (patient) present
  std::array<double, 3> position{};    // (0020,0032)
  std::array<double, 6> orientation{}; // (0020,0037): row and column direction cosines
};

template<std::uint16_t Group, std::uint16_t Element>
bool
Has(const gdcm::DataSet & dataSet)
{
  const gdcm::Tag tag(Group, Element);
  return dataSet.FindDataElement(tag) && !dataSet.GetDataElement(tag).IsEmpty();
}

/** Reads a DICOM file's header (up to, not including, the pixel data) and checks the pixel data's length. */
Slice
ReadSlice(const std::string & path)
{
  gdcm::Reader reader;
  reader.SetFileName(path.c_str());
  // With the pixel data among the tags to skip, the reader stops right after its element header,
  // so the stream position is where the pixel bytes begin.
  if (!reader.ReadUpToTag(kPixelData, { kPixelData }))
    throw std::runtime_error("cannot read the DICOM file '" + path + "': GDCM cannot parse it (damaged?)");
  const gdcm::DataSet & dataSet = reader.GetFile().GetDataSet();
  Slice slice;
  slice.file = path;

  gdcm::Attribute<0x0028, 0x0010> rows;
  gdcm::Attribute<0x0028, 0x0011> columns;
  gdcm::Attribute<0x0028, 0x0100> bitsAllocated;
  gdcm::Attribute<0x0028, 0x0002> samples;
  gdcm::Attribute<0x0028, 0x0008> frames;
  rows.SetFromDataSet(dataSet);
  columns.SetFromDataSet(dataSet);
  bitsAllocated.SetFromDataSet(dataSet);
  samples.SetValue(1);
  samples.SetFromDataSet(dataSet);
  frames.SetValue(1);
  frames.SetFromDataSet(dataSet);
  const bool encapsulated = reader.GetFile().GetHeader().GetDataSetTransferSyntax().IsEncapsulated();
  if (!encapsulated && rows.GetValue() > 0 && columns.GetValue() > 0 && bitsAllocated.GetValue() > 0)
  {
    const std::uint64_t bits = std::uint64_t{ rows.GetValue() } * columns.GetValue() *
                               std::max<std::uint64_t>(samples.GetValue(), 1) * bitsAllocated.GetValue() *
                               static_cast<std::uint64_t>(std::max(frames.GetValue(), 1));
    const std::uint64_t needed = (bits + 7) / 8;
    std::error_code error;
    const std::uint64_t size = fs::file_size(path, error);
    const std::uint64_t start = reader.GetStreamCurrentPosition();
    const std::uint64_t stored = !error && size > start ? size - start : 0;
    if (stored < needed)
      throw std::runtime_error("the DICOM file '" + path + "' is truncated: its pixel data has " +
                               std::to_string(stored) + " of the " + std::to_string(needed) +
                               " bytes its header describes");
  }

  if (Has<0x0020, 0x0032>(dataSet) && Has<0x0020, 0x0037>(dataSet))
  {
    gdcm::Attribute<0x0020, 0x0032> position;
    gdcm::Attribute<0x0020, 0x0037> orientation;
    position.SetFromDataSet(dataSet);
    orientation.SetFromDataSet(dataSet);
    for (unsigned i = 0; i < 3; ++i)
      slice.position[i] = position.GetValue(i);
    for (unsigned i = 0; i < 6; ++i)
      slice.orientation[i] = orientation.GetValue(i);
    slice.hasGeometry = true;
  }
  return slice;
}

std::string
Name(const std::string & path)
{
  return "'" + fs::path(path).filename().string() + "'";
}

std::string
Number(double value)
{
  std::ostringstream text;
  text << std::setprecision(4) << value;
  return text.str();
}

/** Refuses slices of different orientations, shared positions and non-uniform spacing (see OpenDicomSeries). */
void
CheckSliceGeometry(std::vector<Slice> slices, const std::string & directory)
{
  if (slices.size() < 2 || !std::all_of(slices.begin(), slices.end(), [](const Slice & s) { return s.hasGeometry; }))
    return; // one slice, or no geometry to check (ITK then stacks the files in name order)
  const auto & o = slices.front().orientation;
  for (const auto & slice : slices)
    for (unsigned i = 0; i < 6; ++i)
      if (std::abs(slice.orientation[i] - o[i]) > 1e-4)
        throw std::runtime_error("the DICOM series in '" + directory + "' mixes slice orientations: " +
                                 Name(slice.file) + " differs from " + Name(slices.front().file));
  const std::array<double, 3> normal{ o[1] * o[5] - o[2] * o[4], o[2] * o[3] - o[0] * o[5], o[0] * o[4] - o[1] * o[3] };
  std::vector<double> along(slices.size());
  for (std::size_t i = 0; i < slices.size(); ++i)
    along[i] = std::inner_product(normal.begin(), normal.end(), slices[i].position.begin(), 0.0);
  std::vector<std::size_t> order(slices.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&along](std::size_t a, std::size_t b) { return along[a] < along[b]; });
  std::vector<double> gaps(slices.size() - 1);
  for (std::size_t i = 0; i + 1 < order.size(); ++i)
    gaps[i] = along[order[i + 1]] - along[order[i]];
  std::vector<double> sorted = gaps;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double spacing = sorted[sorted.size() / 2];
  for (std::size_t i = 0; i < gaps.size(); ++i)
  {
    const std::string pair = Name(slices[order[i]].file) + " and " + Name(slices[order[i + 1]].file);
    const double gap = gaps[i];
    if (gap <= kSliceSpacingTolerance * spacing)
      throw std::runtime_error("the DICOM series in '" + directory + "' has two slices at the same position: " + pair +
                               " (a duplicate, or two acquisitions in one series)");
    if (std::abs(gap - spacing) <= kSliceSpacingTolerance * spacing)
      continue;
    const double ratio = gap / spacing;
    const long missing = std::lround(ratio) - 1;
    if (missing >= 1 && std::abs(ratio - std::round(ratio)) <= kSliceSpacingTolerance)
      throw std::runtime_error("the DICOM series in '" + directory + "' is incomplete: " + std::to_string(missing) +
                               (missing == 1 ? " slice is" : " slices are") + " missing between " + pair + " (" +
                               Number(gap) + " mm apart, the other slices " + Number(spacing) + " mm)");
    throw std::runtime_error("the DICOM series in '" + directory + "' has non-uniform slice spacing: " + pair +
                             " are " + Number(gap) + " mm apart, the other slices " + Number(spacing) + " mm");
  }
}

/**
 * Refuses a file in directory that starts like DICOM but that GDCM cannot parse (a damaged slice
 * would be left out). seriesFiles: the files of every series found, as lexically normal paths.
 */
void
CheckNoDamagedFiles(const std::string & directory, const std::set<std::string> & seriesFiles)
{
  std::vector<fs::path> files;
  for (const auto & entry : fs::directory_iterator(directory))
    if (entry.is_regular_file())
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto & file : files)
  {
    if (seriesFiles.count(file.lexically_normal().string()) > 0)
      continue;
    std::array<char, 132> start{};
    std::ifstream in(file, std::ios::binary);
    if (!in.read(start.data(), start.size()) || std::string(start.data() + 128, 4) != "DICM")
      continue; // not DICOM (or DICOM without the preamble, which cannot be told from other files)
    gdcm::Reader reader;
    reader.SetFileName(file.c_str());
    if (!reader.ReadUpToTag(kPixelData, { kPixelData }))
      throw std::runtime_error("'" + file.string() +
                               "' starts like a DICOM file but GDCM cannot parse it (damaged?): the series in '" +
                               directory + "' would be read without it; repair or remove it");
  }
}

} // namespace

void
CheckDicomFile(const std::string & path)
{
  ReadSlice(path);
}

DicomSeries
OpenDicomSeries(const std::string & directory, const char * program)
{
  auto names = itk::GDCMSeriesFileNames::New();
  names->SetUseSeriesDetails(true);
  std::vector<std::string> series;
  {
    // GDCM reports files it cannot parse while scanning, and ITK warns when there is no
    // DICOM file: both say less than the checks here, which name the file.
    ComplaintCapture capture;
    names->SetDirectory(directory);
    series = names->GetSeriesUIDs();
    if (series.empty())
      throw std::runtime_error("no DICOM series in directory '" + directory + "'");
    std::set<std::string> allFiles;
    for (const auto & uid : series)
      for (const auto & file : names->GetFileNames(uid))
        allFiles.insert(fs::path(file).lexically_normal().string());
    CheckNoDamagedFiles(directory, allFiles);
    capture.ThrowIfAny("reading the DICOM folder '" + directory + "' failed");
  }
  if (series.size() > 1)
    std::cerr << program << ": " << series.size() << " DICOM series in '" << directory << "', using the first ("
              << series.front() << ")\n";

  DicomSeries result;
  result.files = names->GetFileNames(series.front());
  ComplaintCapture capture;
  std::vector<Slice> slices;
  for (const auto & file : result.files)
    slices.push_back(ReadSlice(file));
  CheckSliceGeometry(slices, directory);
  result.io = itk::GDCMImageIO::New();
  result.io->SetFileName(result.files.front());
  try
  {
    result.io->ReadImageInformation();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error("cannot read the DICOM file '" + result.files.front() + "': " + e.GetDescription());
  }
  capture.ThrowIfAny("reading the DICOM series in '" + directory + "' failed");
  CheckPixelLayout(*result.io, directory);
  return result;
}

} // namespace cli
} // namespace gpur
