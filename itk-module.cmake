# The core module of ITKGPURestoration: the OpenCL runtime shared by every filter.
get_filename_component(MY_CURRENT_DIR "${CMAKE_CURRENT_LIST_FILE}" PATH)
file(READ "${MY_CURRENT_DIR}/README.md" DOCUMENTATION)

itk_module(ITKGPURestoration
  DEPENDS
    ITKCommon
  COMPILE_DEPENDS
    ITKImageFilterBase
  TEST_DEPENDS
    ITKTestKernel
    ITKIOMeta
    ITKGoogleTest
  DESCRIPTION
    "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED
)
