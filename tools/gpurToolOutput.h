// SPDX-License-Identifier: Apache-2.0
/*
 * The output side of the command-line tools: an output file appears under its
 * name only complete and verified.
 */
#ifndef gpurToolOutput_h
#define gpurToolOutput_h

#include <cstddef>
#include <functional>
#include <string>

namespace gpur
{
namespace cli
{

/**
 * Writes output through write(path) and verify(path), so that output appears
 * only complete:
 *  - write(path) writes into a new folder next to output,
 *    "<stem>.partial-<pid>/<output's name>", so a format's companion files (the
 *    .raw/.zraw of .mhd, the .img of .hdr, a .nhdr's data file) are made there
 *    too under their final names, which the header refers to;
 *  - what the writer printed counts as a failure (ITK 5.2's MetaImage and NIfTI
 *    writers report a full disk only on stderr; see ComplaintCapture), the files
 *    are flushed to the disk (fsync), and verify(path) reads the file back;
 *  - then the files are renamed into output's folder, the one named output
 *    last, and the temporary folder is removed.
 * On any failure the temporary folder is removed and std::runtime_error says
 * "writing '<output>' failed: <reason>"; SIGINT/SIGTERM/SIGHUP meanwhile remove
 * it too (gpurToolInterrupt.h). Throws first as CheckOutputName does.
 */
void
WriteVerified(const std::string & output,
              const std::function<void(const std::string & path)> & write,
              const std::function<void(const std::string & path)> & verify);

/**
 * Refuses, before any work is done, an output name no ITK format writes or
 * whose folder does not exist (WriteVerified checks the same).
 */
void
CheckOutputName(const std::string & output);

/**
 * Throws unless the image read back has the written size (sameSize) and the
 * same bytes (bytes of them at written and read).
 */
void
CheckReadBack(bool sameSize, const void * written, const void * read, std::size_t bytes);

/** The extension that selects the format, e.g. ".nii.gz", ".nrrd"; empty if none. */
std::string
FormatExtension(const std::string & path);

} // namespace cli
} // namespace gpur

#endif
