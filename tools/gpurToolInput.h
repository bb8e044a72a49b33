// SPDX-License-Identifier: Apache-2.0
/*
 * The input side of the command-line tools: an image file is read only after
 * its header has been checked against what the tools take and against the
 * bytes that back it, and what was read is checked against the header. Corrupt
 * input is refused with one line saying what is wrong, never computed on.
 */
#ifndef gpurToolInput_h
#define gpurToolInput_h

#include "itkImageIOBase.h"

#include <cstdint>
#include <functional>
#include <string>

namespace gpur
{
namespace cli
{

/**
 * The ImageIO of an image file with its header read: the file exists and a
 * format reads its header without complaints (ComplaintCapture).
 */
itk::ImageIOBase::Pointer
ReadImageHeader(const std::string & path);

/**
 * The ImageIO of an image file with its header read (ReadImageHeader) and checked: the
 * pixels are scalar and no axis is empty (CheckPixelLayout); and where the
 * format says where and how its pixels are stored (MetaImage, NIfTI/Analyze,
 * DICOM), the file holds them all: uncompressed data at least as many bytes as
 * the header describes, a gzip file (.nii.gz) a complete stream that expands to
 * them (checked by decompressing it), zlib data (compressed MetaImage) no less
 * than the compressed size its header gives and no more than zlib's largest
 * expansion (1032:1) can turn into them. So an 800^3 header on a 4 KB file is
 * refused before anything is allocated.
 */
itk::ImageIOBase::Pointer
OpenImageFile(const std::string & path);

/**
 * Refuses images the tools do not take: more than one component per pixel
 * (RGB, vector, complex: "only scalar (grayscale) images are supported", as the
 * Python package says) and an axis of size 0. what names the image.
 */
void
CheckPixelLayout(const itk::ImageIOBase & io, const std::string & what);

/**
 * "800 x 800 x 800 float pixels (2048000000 bytes)" for the header in io; with
 * slices > 1 (a series of single-slice files described by one) the last axis is
 * that many slices.
 */
std::string
DescribePixels(const itk::ImageIOBase & io, std::uint64_t slices = 1);

/**
 * Runs read(), which reads the pixels of what and returns how many it got,
 * with complaints captured: a complaint, an ITK exception, too few pixels
 * (expectedPixels) or std::bad_alloc (described by description) throw
 * std::runtime_error with one readable line.
 */
void
ReadPixels(const std::string & what,
           const std::string & description,
           std::uint64_t expectedPixels,
           const std::function<std::uint64_t()> & read);

} // namespace cli
} // namespace gpur

#endif
