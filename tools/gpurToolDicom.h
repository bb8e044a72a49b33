// SPDX-License-Identifier: Apache-2.0
/*
 * DICOM input of the command-line tools, checked slice by slice with GDCM
 * (ITK's DICOM library): ITK 5.2 reads a series with truncated slices without
 * a word and leaves out a damaged slice, so the volume would come out wrong.
 */
#ifndef gpurToolDicom_h
#define gpurToolDicom_h

#include "itkImageIOBase.h"

#include <string>
#include <vector>

namespace gpur
{
namespace cli
{

/**
 * How far the distances between neighbouring slices may differ from their
 * median, relative to it. DICOM stores positions as decimal strings that
 * scanners often round to 0.01 mm (2 % of a 0.5 mm spacing); a missing slice
 * makes one distance 100 % larger. The series reader is given the same
 * threshold for its own check.
 */
constexpr double kSliceSpacingTolerance = 0.05;

/** A DICOM series to read: its files in ITK's order, and the first one's header, read and checked. */
struct DicomSeries
{
  std::vector<std::string> files;
  itk::ImageIOBase::Pointer io;
};

/**
 * The first DICOM series in directory (a note on stderr if there are several),
 * refused with one line naming the file when: a file in the folder starts like
 * DICOM ("DICM" at byte 128) but GDCM cannot parse it (a damaged slice that
 * would otherwise be left out); a slice's pixel data is shorter than its header
 * describes (CheckDicomFile); slices differ in orientation or share a position;
 * or the slice positions along the normal are not uniformly spaced (within
 * kSliceSpacingTolerance), which names the neighbours around a gap and how many
 * slices are missing there. The first file's header then goes through
 * CheckPixelLayout (one component, no empty axis).
 */
DicomSeries
OpenDicomSeries(const std::string & directory, const char * program);

/**
 * Refuses a DICOM file that GDCM cannot parse, or whose uncompressed pixel
 * data holds fewer bytes than rows x columns x samples x bits x frames.
 */
void
CheckDicomFile(const std::string & path);

} // namespace cli
} // namespace gpur

#endif
