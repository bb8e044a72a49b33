// SPDX-License-Identifier: Apache-2.0
// ComplaintCapture: what ITK and the format libraries print while a file is read or
// written is collected, and only the messages that are not warnings count as failures.
#include "gpurToolComplaints.h"

#include "itkMacro.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>

namespace
{

TEST(ComplaintCapture, CollectsCAndCppStderrAndITKWarnings)
{
  gpur::cli::InstallComplaintWindow();
  gpur::cli::ComplaintCapture capture;
  std::fprintf(stderr, "** ERROR: NWAD: wrote only 0 of 1048576 bytes to file\n");
  std::cerr << "MetaImage: M_ReadElementsData: data not read completely\n   ideal = 10 : actual = 5\n";
  itk::OutputWindowDisplayWarningText(
    "WARNING: In /usr/include/ITK-5.2/itkImageSeriesReader.hxx, line 479\n"
    "ImageSeriesReader (0x55d0a8c4e8e0): Non uniform sampling or missing slices detected\n\n");
  // A warning of libtiff's: printed again after the capture, not a failure.
  std::fprintf(stderr, "TIFFReadDirectory: Warning, Unknown field with tag 50838 (0xc696) encountered.\n");
  EXPECT_EQ(capture.Finish(),
            "ImageSeriesReader: Non uniform sampling or missing slices detected; "
            "** ERROR: NWAD: wrote only 0 of 1048576 bytes to file; "
            "MetaImage: M_ReadElementsData: data not read completely ideal = 10 : actual = 5");
  EXPECT_EQ(capture.Finish(), "") << "a second Finish has nothing more";
}

TEST(ComplaintCapture, NothingPrintedIsNoComplaint)
{
  gpur::cli::ComplaintCapture capture;
  EXPECT_NO_THROW(capture.ThrowIfAny("reading 'x' failed"));
}

TEST(ComplaintCapture, ThrowsWithTheContextAndIsNotNested)
{
  gpur::cli::ComplaintCapture capture;
  EXPECT_THROW(gpur::cli::ComplaintCapture nested, std::logic_error);
  std::cerr << "Uncompress failed\n";
  try
  {
    capture.ThrowIfAny("reading 'x.mha' failed");
    FAIL() << "a complaint did not throw";
  }
  catch (const std::runtime_error & e)
  {
    EXPECT_STREQ(e.what(), "reading 'x.mha' failed: Uncompress failed");
  }
}

TEST(ErrorMessages, GDCMMessagesRunToTheBlankLineAndWarningsAreSetAside)
{
  const std::string printed =
    "Warning: In ./Source/DataStructureAndEncodingDefinition/gdcmImplicitDataElement.txx, line 262, function f\n"
    "Incomplete Pixel Data found, use file at own risk\n"
    "\n\n"
    "Error: In ./Source/DataStructureAndEncodingDefinition/gdcmReader.cxx, line 395, function g\n"
    "./Source/Common/gdcmException.h:74 ():\n"
    "Serious bug\n"
    "\n"
    "TIFFReadDirectory: Warning, Unknown field with tag 50838 (0xc696) encountered.\n"
    "TIFFFetchDirectory: Can not read TIFF directory count.\n"
    "** WARNING: nifti_read_buffer: data may be short\n";
  std::string warnings;
  const auto errors = gpur::cli::ErrorMessages(printed, warnings);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(gpur::cli::OneLine(errors[0]), "Serious bug");
  EXPECT_EQ(errors[1], "TIFFFetchDirectory: Can not read TIFF directory count.");
  EXPECT_NE(warnings.find("Incomplete Pixel Data found"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("Unknown field with tag 50838"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("nifti_read_buffer"), std::string::npos) << warnings;
}

TEST(OneLine, DropsLocationsAndAddresses)
{
  EXPECT_EQ(gpur::cli::OneLine("ITK ERROR: NrrdImageIO(0x556d24800010): Read: Error reading a.nrrd:\n"
                               "[nrrd] nrrdLoad: trouble\n"),
            "ITK ERROR: NrrdImageIO: Read: Error reading a.nrrd: [nrrd] nrrdLoad: trouble");
  EXPECT_EQ(gpur::cli::OneLine("  two\tspaces  \n\n"), "two spaces");
}

} // namespace
