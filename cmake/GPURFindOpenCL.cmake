# SPDX-License-Identifier: Apache-2.0
# Finds OpenCL for the C++ build (the root CMakeLists.txt) and, through it, the Python
# package's build: the C headers (CL/cl.h), the C++ bindings (CL/opencl.hpp, which
# include/gpurOpenCL.h includes) and the ICD loader (libOpenCL), as the imported target
# OpenCL::OpenCL of CMake's FindOpenCL. Whatever is missing stops the configuration with
# the packages that provide it, where CMake alone says "Could NOT find OpenCL".
# A folder given by hand (-DOpenCL_INCLUDE_DIR, -DOpenCL_LIBRARY,
# -DGPUR_OpenCLHPP_INCLUDE_DIR) is checked too: FindOpenCL takes any cached value as found.
# Test: OpenCLMissingMessages (test/opencl-missing/).
# Included (not a function): FindOpenCL's variables and target belong to the caller.

find_package(OpenCL QUIET)
if(NOT OpenCL_INCLUDE_DIR OR NOT EXISTS "${OpenCL_INCLUDE_DIR}/CL/cl.h")
  message(FATAL_ERROR
    "OpenCL headers not found (CL/cl.h; OpenCL_INCLUDE_DIR is '${OpenCL_INCLUDE_DIR}'): install opencl-headers "
    "(Debian/Ubuntu: apt-get install opencl-headers ocl-icd-opencl-dev; Fedora: dnf install opencl-headers "
    "ocl-icd-devel), or point -DOpenCL_INCLUDE_DIR at the folder that holds CL/cl.h.")
endif()
if(NOT OpenCL_LIBRARY OR NOT EXISTS "${OpenCL_LIBRARY}")
  message(FATAL_ERROR
    "OpenCL ICD loader not found (libOpenCL.so; OpenCL_LIBRARY is '${OpenCL_LIBRARY}'): install "
    "ocl-icd-opencl-dev, which brings the loader ocl-icd-libopencl1 and the libOpenCL.so link "
    "(Debian/Ubuntu: apt-get install ocl-icd-opencl-dev; Fedora: dnf install ocl-icd-devel), "
    "or point -DOpenCL_LIBRARY at libOpenCL.so.")
endif()
# The C++ bindings: beside CL/cl.h, or anywhere the compiler searches by default.
find_path(GPUR_OpenCLHPP_INCLUDE_DIR NAMES CL/opencl.hpp HINTS "${OpenCL_INCLUDE_DIR}"
  DOC "Folder holding CL/opencl.hpp (the Khronos OpenCL C++ bindings)")
if(NOT GPUR_OpenCLHPP_INCLUDE_DIR OR NOT EXISTS "${GPUR_OpenCLHPP_INCLUDE_DIR}/CL/opencl.hpp")
  message(FATAL_ERROR
    "OpenCL C++ bindings not found (CL/opencl.hpp; GPUR_OpenCLHPP_INCLUDE_DIR is "
    "'${GPUR_OpenCLHPP_INCLUDE_DIR}'): install opencl-clhpp-headers (Debian/Ubuntu: apt-get install "
    "opencl-clhpp-headers), or point -DGPUR_OpenCLHPP_INCLUDE_DIR "
    "at the folder that holds CL/opencl.hpp.")
endif()
if(NOT OpenCL_FOUND)
  # Both files exist, yet FindOpenCL refused them (it reports why).
  find_package(OpenCL REQUIRED)
endif()
if(NOT GPUR_OpenCLHPP_INCLUDE_DIR STREQUAL OpenCL_INCLUDE_DIR)
  set_property(TARGET OpenCL::OpenCL APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${GPUR_OpenCLHPP_INCLUDE_DIR}")
endif()
