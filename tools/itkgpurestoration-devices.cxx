// SPDX-License-Identifier: Apache-2.0
// Lists the OpenCL platforms and devices the filters can use, and shows which
// one a selection string picks:  itkgpurestoration-devices [options] [selection]
//
// The command line goes through the parser shared with the other tools, so that
// --help prints the usage (exit 0) and an unknown option is an error (exit 1)
// rather than a device selection. --xml is refused: this tool lists devices and
// processes no image, so it has no 3D Slicer module description.
#include "gpurCommandLine.h"
#include "gpurDevice.h"
#include "gpurError.h"

#include <iostream>
#include <string>

namespace
{
constexpr const char * kProgram = "itkgpurestoration-devices";
}

int
main(int argc, char * argv[])
{
  try
  {
    gpur::cli::Parser parser(kProgram,
                             "[selection]",
                             "Lists the OpenCL platforms and devices the filters can use, then the devices that "
                             "<selection> picks (as --device of the other tools: 'gpu', 'cpu', an index such as '0', "
                             "or a name substring; empty: $" +
                               std::string(gpur::DeviceEnvironmentVariable()) + " or the default device).");
    bool xml = false;
    parser.AddSwitch("--xml", "Refused: this tool processes no image, so it is not a 3D Slicer module.", xml).hidden =
      true;
    if (!parser.Parse(argc, argv, std::cout, 0, 1))
      return 0;
    if (xml)
      throw gpur::cli::UsageError("--xml: this tool lists devices and processes no image, so it has no 3D Slicer "
                                  "module description (the image tools have one)");

    const auto & devices = gpur::ListDevices();
    if (devices.empty())
    {
      std::cout << "No OpenCL device found (install a GPU driver's ICD, or pocl-opencl-icd for the CPU).\n"
                << "The filters will use their CPU backend.\n";
      return 0;
    }
    std::string platform;
    for (const auto & d : devices)
    {
      if (d.platformName != platform)
      {
        platform = d.platformName;
        std::cout << "Platform: " << platform << "\n";
      }
      std::cout << "  " << d.Describe() << "\n";
    }
    const std::string selection = parser.Positionals().empty() ? "" : parser.Positionals().front();
    std::cout << "Selection '" << selection << "' ($" << gpur::DeviceEnvironmentVariable() << " when empty):";
    for (const auto & d : gpur::SelectDevices(selection))
    {
      std::cout << " [" << d.index << "] " << d.name;
    }
    std::cout << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << kProgram << ": " << e.what() << "\n";
    return 1;
  }
}
