# SPDX-License-Identifier: Apache-2.0
# The core module of ITKGPURestoration: the OpenCL runtime shared by every filter
# (GPURCore) and the ITK glue (ITKGPURestoration). DEPENDS is what these libraries link
# (checked by the test ItkModuleDepends, cmake/GPURItkModuleCheck.cmake).
get_filename_component(MY_CURRENT_DIR "${CMAKE_CURRENT_LIST_FILE}" PATH)
file(READ "${MY_CURRENT_DIR}/README.md" DOCUMENTATION)

itk_module(ITKGPURestoration
  DEPENDS
    ITKCommon
  TEST_DEPENDS
    ITKGoogleTest
  DESCRIPTION
    "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
