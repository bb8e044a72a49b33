# SPDX-License-Identifier: Apache-2.0
# Image regression tests: the filter's output on a fixed noisy image is compared
# to a stored baseline by ITK's itkTestDriver, once per backend. Both backends
# must match the same baseline (within 1e-3 in intensity, with the same origin,
# spacing and direction as the input).
#
# Input/tv_noisy_64x64.mha: the 2D Shepp-Logan phantom plus noise (sigma 0.1,
# seed 7), spacing 0.8 x 0.8, origin (-25.6, 10). Baseline/tv_denoised_64x64.mha:
# that input denoised by the CPU backend (lambda 20, 200 iterations, no gap test).
# To regenerate both (only when the algorithm changes on purpose), from a build tree:
#   bin/itkTotalVariationDenoisingImageFilterTest --generate-input <src>/Modules/TotalVariation/test/Input/tv_noisy_64x64.mha
#   bin/itkTotalVariationDenoisingImageFilterTest <src>/Modules/TotalVariation/test/Input/tv_noisy_64x64.mha \
#       <src>/Modules/TotalVariation/test/Baseline/tv_denoised_64x64.mha 20 cpu
# (The noise comes from std::normal_distribution, whose output is not specified
# across standard libraries, which is why the input is stored, not generated.)
find_program(ITK_TEST_DRIVER itkTestDriver)

add_executable(itkTotalVariationDenoisingImageFilterTest itkTotalVariationDenoisingImageFilterTest.cxx)
target_link_libraries(itkTotalVariationDenoisingImageFilterTest PRIVATE ITKGPURestorationTotalVariation GPUREvaluation ${ITK_LIBRARIES})
gpur_warnings(itkTotalVariationDenoisingImageFilterTest)

if(NOT ITK_TEST_DRIVER)
  message(STATUS "itkTestDriver not found: TotalVariation regression tests disabled")
  return()
endif()

set(tv_input "${CMAKE_CURRENT_SOURCE_DIR}/Input/tv_noisy_64x64.mha")
# On a mismatch itkTestDriver writes .diff/.base/.test PNGs next to the baseline:
# compare against a copy in the build tree so that the sources stay clean.
set(tv_baseline "${CMAKE_CURRENT_BINARY_DIR}/Baseline/tv_denoised_64x64.mha")
configure_file(Baseline/tv_denoised_64x64.mha "${tv_baseline}" COPYONLY)
foreach(backend CPU OpenCL)
  set(output "${CMAKE_CURRENT_BINARY_DIR}/Testing/tv_denoised_64x64_${backend}.mha")
  add_test(NAME itkTotalVariationDenoisingImageFilterRegression${backend}
    COMMAND ${ITK_TEST_DRIVER}
      --compare "${output}" "${tv_baseline}" --compareIntensityTolerance 0.001
      -- $<TARGET_FILE:itkTotalVariationDenoisingImageFilterTest> "${tv_input}" "${output}" 20 ${backend})
  # 77: the program found no OpenCL device.
  set_tests_properties(itkTotalVariationDenoisingImageFilterRegression${backend} PROPERTIES
    LABELS "tv;regression" SKIP_RETURN_CODE 77)
endforeach()
file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/Testing")
