# SPDX-License-Identifier: Apache-2.0
# Image regression tests: the tool itkgpurestoration-flow (and so the filters) on the TotalVariation module's
# fixed noisy image is compared to stored baselines by ITK's itkTestDriver, once per flow and backend. Both
# backends must match the same baseline (within 1e-3 in intensity, with the input's origin, spacing and
# direction; measured: equal).
#
# Baseline/flow_mean_64x64.mha and Baseline/flow_willmore_64x64.mha: ../../TotalVariation/test/Input/
# tv_noisy_64x64.mha (a Shepp-Logan slice in [0, 1] plus noise of sigma 0.1, spacing 0.8) evolved to the default T = 1
# with the defaults (tolerance 1e-5, regularization 1, Neumann) by the CPU backend. To regenerate them (only when the scheme
# changes on purpose), from a build tree:
#   bin/itkgpurestoration-flow --backend cpu [--flow willmore] <src>/Modules/TotalVariation/test/Input/tv_noisy_64x64.mha \
#       <src>/Modules/CurvatureFlow/test/Baseline/flow_<mean|willmore>_64x64.mha
find_program(ITK_TEST_DRIVER itkTestDriver)
if(NOT ITK_TEST_DRIVER OR NOT TARGET itkgpurestoration-flow)
  message(STATUS "itkTestDriver not found: CurvatureFlow regression tests disabled")
  return()
endif()

set(flow_input "${PROJECT_SOURCE_DIR}/Modules/TotalVariation/test/Input/tv_noisy_64x64.mha")
file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/Testing")
foreach(flow mean willmore)
  # On a mismatch itkTestDriver writes .diff/.base/.test PNGs next to the baseline:
  # compare against a copy in the build tree so that the sources stay clean.
  set(baseline "${CMAKE_CURRENT_BINARY_DIR}/Baseline/flow_${flow}_64x64.mha")
  configure_file(Baseline/flow_${flow}_64x64.mha "${baseline}" COPYONLY)
  foreach(backend cpu opencl)
    set(output "${CMAKE_CURRENT_BINARY_DIR}/Testing/flow_${flow}_64x64_${backend}.mha")
    add_test(NAME itkGraphFlowRegression-${flow}-${backend}
      COMMAND ${ITK_TEST_DRIVER}
        --compare "${output}" "${baseline}" --compareIntensityTolerance 0.001
        -- $<TARGET_FILE:itkgpurestoration-flow> --quiet --flow ${flow} --backend ${backend} "${flow_input}"
           "${output}")
    set_tests_properties(itkGraphFlowRegression-${flow}-${backend} PROPERTIES LABELS "curvatureflow;regression")
  endforeach()
endforeach()
