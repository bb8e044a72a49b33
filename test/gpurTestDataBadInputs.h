// SPDX-License-Identifier: Apache-2.0
// gpurTestData bad-inputs: the corrupt and unsupported input files of the command-line
// tools' bad-input tests (tools/CommandLineBadInput.cmake).
#ifndef gpurTestDataBadInputs_h
#define gpurTestDataBadInputs_h

#include <string>
#include <vector>

namespace gpur
{
namespace testdata
{

/**
 * bad-inputs <good-3d-image> <dicom-series-folder> <folder>: writes into <folder>
 *   truncated.mha        <good> as MetaImage without its last 5000 bytes
 *   corrupt-zlib.mha     compressed MetaImage with 400 bytes of its zlib stream overwritten
 *   huge-header.mha      a header of 800 x 800 x 800 floats on a 4096-byte file
 *   zero-size.mha        a header of 0 x 32 x 32 floats
 *   vector.mha           8 x 8 x 8 pixels of 3 floats
 *   rgb.png              a 16 x 12 RGB picture
 *   truncated.nii        <good> as NIfTI without its last 5000 bytes
 *   corrupt.nii.gz       <good> as gzip'd NIfTI with 400 bytes of the stream overwritten
 *   truncated.tif        <good> as a multi-page TIFF without its last 5000 bytes
 *   dicom-truncated/     the series with slice003.dcm 500 bytes short (inside its pixel data)
 *   dicom-garbled/       the series with bytes 140-399 of slice003.dcm overwritten (unparsable)
 *   dicom-garbled-first/ the same damage to slice000.dcm (an end slice: no gap would show it)
 *   dicom-missing/       the series without slice003.dcm
 * Returns EXIT_SUCCESS, or throws.
 */
int
BadInputs(const std::vector<std::string> & args);

} // namespace testdata
} // namespace gpur

#endif
