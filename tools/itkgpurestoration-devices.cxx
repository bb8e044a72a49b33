// SPDX-License-Identifier: Apache-2.0
// Lists the OpenCL platforms and devices the filters can use, and shows which
// one a selection string picks:  itkgpurestoration-devices [selection]
#include "gpurDevice.h"
#include "gpurError.h"

#include <iostream>

int
main(int argc, char * argv[])
{
  try
  {
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
    const std::string selection = argc > 1 ? argv[1] : "";
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
    std::cerr << "itkgpurestoration-devices: " << e.what() << "\n";
    return 1;
  }
}
