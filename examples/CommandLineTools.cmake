# itkgpurestoration-tv: total-variation denoising of an image file or DICOM
# series (see the header comment of itkgpurestoration-tv.cxx), also usable as a
# 3D Slicer CLI module (--xml).
add_executable(itkgpurestoration-tv itkgpurestoration-tv.cxx)
target_link_libraries(itkgpurestoration-tv PRIVATE ITKGPURestorationTotalVariation GPURCommandLine ${ITK_LIBRARIES})
gpur_warnings(itkgpurestoration-tv)
install(TARGETS itkgpurestoration-tv RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(NOT BUILD_TESTING)
  return()
endif()

set(cli_tv_input "${PROJECT_SOURCE_DIR}/Modules/TotalVariation/test/Input/tv_noisy_64x64.mha")
set(cli_tv_dir "${CMAKE_CURRENT_BINARY_DIR}/Testing/cli")
file(MAKE_DIRECTORY "${cli_tv_dir}")

# (1) Same input, parameters and baseline as the TotalVariation regression test
# (lambda 20, 200 iterations, no gap test, default algorithm), through the tool
# and a format conversion (.mha -> .nrrd). On a mismatch itkTestDriver writes
# PNGs next to the baseline, hence a copy in the build tree.
find_program(ITK_TEST_DRIVER itkTestDriver)
if(ITK_TEST_DRIVER)
  set(cli_tv_baseline "${cli_tv_dir}/Baseline/tv_denoised_64x64.mha")
  configure_file("${PROJECT_SOURCE_DIR}/Modules/TotalVariation/test/Baseline/tv_denoised_64x64.mha" "${cli_tv_baseline}"
    COPYONLY)
  foreach(backend cpu auto)
    set(output "${cli_tv_dir}/tv_denoised_64x64_${backend}.nrrd")
    add_test(NAME itkgpurestoration-tv-regression-${backend}
      COMMAND ${ITK_TEST_DRIVER}
        --compare "${output}" "${cli_tv_baseline}" --compareIntensityTolerance 0.001
        -- $<TARGET_FILE:itkgpurestoration-tv> --lambda 20 --iterations 200 --tolerance 0 --backend ${backend}
           "${cli_tv_input}" "${output}")
    set_tests_properties(itkgpurestoration-tv-regression-${backend} PROPERTIES LABELS "tv;cli")
  endforeach()
else()
  message(STATUS "itkTestDriver not found: itkgpurestoration-tv regression tests disabled")
endif()

# (2) --xml is a well-formed Slicer Execution Model description whose flags are the real ones.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME itkgpurestoration-tv-xml
    COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/CheckSlicerXML.py" $<TARGET_FILE:itkgpurestoration-tv>)
  set_tests_properties(itkgpurestoration-tv-xml PROPERTIES LABELS "cli")
else()
  message(STATUS "python3 not found: itkgpurestoration-tv-xml test disabled")
endif()

# (3) Bad input: exit code != 0, a one-line reason on stderr matching <message>,
# no output and no temporary file left (see ExpectFailure.cmake).
# cli_tv_expect_failure(<name> <message-regex> <output-name> <tool arguments>...): OUT in
# the arguments stands for <build>/Testing/cli/failure-<name>/<output-name> (one folder per test).
function(cli_tv_expect_failure name message output_name)
  set(output "${cli_tv_dir}/failure-${name}/${output_name}")
  set(args ${ARGN})
  list(TRANSFORM args REPLACE "^OUT$" "${output}")
  string(REPLACE ";" "|" args "${args}")
  add_test(NAME itkgpurestoration-tv-fails-${name}
    COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-tv>" "-DARGS=${args}" "-DOUTPUT=${output}"
      "-DMESSAGE=${message}" -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
  set_tests_properties(itkgpurestoration-tv-fails-${name} PROPERTIES LABELS "cli")
endfunction()

cli_tv_expect_failure(bad-lambda "--lambda needs a positive finite number" out.nrrd --lambda -1 "${cli_tv_input}" OUT)
cli_tv_expect_failure(nan-lambda "--lambda needs a positive finite number" out.nrrd --lambda nan "${cli_tv_input}" OUT)
cli_tv_expect_failure(bad-algorithm "--algorithm must be one of" out.nrrd --algorithm fast "${cli_tv_input}" OUT)
cli_tv_expect_failure(zero-iterations "--iterations needs an integer in" out.nrrd --iterations 0 "${cli_tv_input}" OUT)
cli_tv_expect_failure(unknown-option "unknown option '--lamda'" out.nrrd --lamda 5 "${cli_tv_input}" OUT)
cli_tv_expect_failure(missing-input "does not exist" out.nrrd "${cli_tv_dir}/no-such-input.mha" OUT)
# Fails after denoising, when writing: nothing may be left behind either.
cli_tv_expect_failure(unwritable-output "itkgpurestoration-tv: ." no-such-directory/out.nrrd
  --backend cpu --iterations 5 "${cli_tv_input}" OUT)

# (4) A DICOM series folder as input. gpurTestData (test/) writes a 24 x 20 x 6 int16
# CT-like volume (spacing 0.7 x 0.8 x 2.5, an origin, an oblique direction) as a DICOM
# series and as volume.mha. The tool's output from the series folder must have the
# volume's size, spacing, origin and direction (within 1e-3) and equal its output
# from volume.mha (max |difference| <= 1e-4 of that output's range). A folder without
# DICOM files fails with one line on stderr and no output.
set(cli_dicom_dir "${cli_tv_dir}/dicom")
set(cli_dicom_options --lambda 0.05 --iterations 100 --tolerance 0 --backend cpu --quiet)
add_test(NAME itkgpurestoration-tv-dicom-data COMMAND $<TARGET_FILE:gpurTestData> dicom-series "${cli_dicom_dir}")
set_tests_properties(itkgpurestoration-tv-dicom-data PROPERTIES FIXTURES_SETUP CliDicomData)
add_test(NAME itkgpurestoration-tv-dicom-run-series
  COMMAND $<TARGET_FILE:itkgpurestoration-tv> ${cli_dicom_options}
    "${cli_dicom_dir}/series" "${cli_dicom_dir}/from-series.mha")
add_test(NAME itkgpurestoration-tv-dicom-run-mha
  COMMAND $<TARGET_FILE:itkgpurestoration-tv> ${cli_dicom_options}
    "${cli_dicom_dir}/volume.mha" "${cli_dicom_dir}/from-mha.mha")
set_tests_properties(itkgpurestoration-tv-dicom-run-series itkgpurestoration-tv-dicom-run-mha PROPERTIES
  FIXTURES_REQUIRED CliDicomData FIXTURES_SETUP CliDicomDenoised)
add_test(NAME itkgpurestoration-tv-dicom-series
  COMMAND $<TARGET_FILE:gpurTestData> compare "${cli_dicom_dir}/from-series.mha" "${cli_dicom_dir}/from-mha.mha"
    "${cli_dicom_dir}/volume.mha" 1e-3 1e-4)
set_tests_properties(itkgpurestoration-tv-dicom-series PROPERTIES FIXTURES_REQUIRED "CliDicomData;CliDicomDenoised")
add_test(NAME itkgpurestoration-tv-fails-no-dicom
  COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-tv>"
    "-DARGS=${cli_dicom_dir}/not-dicom|${cli_tv_dir}/failure-no-dicom/out.mha"
    "-DOUTPUT=${cli_tv_dir}/failure-no-dicom/out.mha" "-DMESSAGE=no DICOM series in directory '.*not-dicom'"
    -DONE_LINE=ON -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
set_tests_properties(itkgpurestoration-tv-fails-no-dicom PROPERTIES FIXTURES_REQUIRED CliDicomData)
set_tests_properties(itkgpurestoration-tv-dicom-data itkgpurestoration-tv-dicom-run-series
  itkgpurestoration-tv-dicom-run-mha itkgpurestoration-tv-dicom-series itkgpurestoration-tv-fails-no-dicom
  PROPERTIES LABELS "cli;dicom")
