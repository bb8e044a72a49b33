# SPDX-License-Identifier: Apache-2.0
# The tests of the installed command-line tools (declared by their modules, see
# tools/CMakeLists.txt), after the ITK side the tools share: checked image/DICOM input,
# verified atomic output, capture of ITK's complaints, interruption handling, progress bar, errors.
add_library(GPURCommandLineITK STATIC gpurCommandLineITK.cxx gpurToolComplaints.cxx gpurToolDicom.cxx
  gpurToolInput.cxx gpurToolInterrupt.cxx gpurToolOutput.cxx)
target_include_directories(GPURCommandLineITK PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
target_link_libraries(GPURCommandLineITK PUBLIC GPURCommandLine GPURCore ${ITK_LIBRARIES})
gpur_warnings(GPURCommandLineITK)

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
  foreach(tool itkgpurestoration-tv itkgpurestoration-stv itkgpurestoration-poisson)
    add_test(NAME ${tool}-xml
      COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/CheckSlicerXML.py" $<TARGET_FILE:${tool}>)
    set_tests_properties(${tool}-xml PROPERTIES LABELS "cli")
  endforeach()
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

# (--lambda 0 is the automatic lambda.)
cli_tv_expect_failure(bad-lambda "--lambda needs a finite number >= 0" out.nrrd --lambda -1 "${cli_tv_input}" OUT)
cli_tv_expect_failure(nan-lambda "--lambda needs a finite number >= 0" out.nrrd --lambda nan "${cli_tv_input}" OUT)
cli_tv_expect_failure(bad-sigma "--sigma needs a finite number >= 0" out.nrrd --sigma -3 "${cli_tv_input}" OUT)
# The automatic lambda needs converged solves.
cli_tv_expect_failure(automatic-without-tolerance "automatic lambda needs converged solves" out.nrrd --tolerance 0
  "${cli_tv_input}" OUT)
cli_tv_expect_failure(bad-algorithm "--algorithm must be one of" out.nrrd --algorithm fast "${cli_tv_input}" OUT)
cli_tv_expect_failure(zero-iterations "--iterations needs an integer in" out.nrrd --iterations 0 "${cli_tv_input}" OUT)
cli_tv_expect_failure(unknown-option "unknown option '--lamda'" out.nrrd --lamda 5 "${cli_tv_input}" OUT)
cli_tv_expect_failure(missing-input "does not exist" out.nrrd "${cli_tv_dir}/no-such-input.mha" OUT)
# Numerical range (issue: lambda 1e40 gave all-NaN output reported as converged) and a
# tolerance below float32's rounding floor of the gap.
cli_tv_expect_failure(huge-lambda "lambda = 1e\\+40 is outside the range a float solve represents" out.nrrd
  --lambda 1e40 "${cli_tv_input}" OUT)
cli_tv_expect_failure(tiny-tolerance "the gap tolerance 1e-09 is below what float32 arithmetic reaches" out.nrrd
  --lambda 8 --tolerance 1e-9 "${cli_tv_input}" OUT)
# An output folder that does not exist: refused before denoising, nothing left behind.
cli_tv_expect_failure(unwritable-output "the folder of the output '.*no-such-directory/out.nrrd' does not exist" no-such-directory/out.nrrd
  --backend cpu --iterations 5 "${cli_tv_input}" OUT)

# (3b) Not converged within --iterations: exit 0, the output written, one warning line on stderr
# (also with --quiet).
add_test(NAME itkgpurestoration-tv-warns-not-converged
  COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-tv>"
    "-DARGS=--lambda|8|--iterations|5|--quiet|${cli_tv_input}|${cli_tv_dir}/not-converged.nrrd"
    "-DOUTPUT=${cli_tv_dir}/not-converged.nrrd"
    "-DMESSAGE=TV denoising did not converge: the relative primal-dual gap is [0-9.e+-]+ > the tolerance 0.0001 after 5 iterations"
    -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectWarning.cmake")
set_tests_properties(itkgpurestoration-tv-warns-not-converged PROPERTIES LABELS "cli")

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

# (4b) --device-memory-limit: a 96^3 phantom (32 MiB of accelerated-CP state on a
# device: f, u twice, p twice) with a 25 MiB limit streams through host memory in 5 z-regions and gives exactly the
# in-memory result (OpenCL, which the test machines have through PoCL: the limit is a device budget).
set(cli_stream_dir "${cli_tv_dir}/stream")
file(MAKE_DIRECTORY "${cli_stream_dir}")
set(cli_stream_options --lambda 8 --iterations 12 --tolerance 0 --backend opencl)
add_test(NAME itkgpurestoration-tv-stream-data
  COMMAND $<TARGET_FILE:gpurTestData> phantom 96 0.1 3 "${cli_stream_dir}/truth.mha" "${cli_stream_dir}/noisy.mha")
add_test(NAME itkgpurestoration-tv-stream-run-limited
  COMMAND $<TARGET_FILE:itkgpurestoration-tv> ${cli_stream_options} --device-memory-limit 25
    "${cli_stream_dir}/noisy.mha" "${cli_stream_dir}/limited.mha")
set_tests_properties(itkgpurestoration-tv-stream-run-limited PROPERTIES
  PASS_REGULAR_EXPRESSION "streamed through host memory in 5 z-regions")
add_test(NAME itkgpurestoration-tv-stream-run-in-memory
  COMMAND $<TARGET_FILE:itkgpurestoration-tv> ${cli_stream_options}
    "${cli_stream_dir}/noisy.mha" "${cli_stream_dir}/in-memory.mha")
add_test(NAME itkgpurestoration-tv-stream-equal
  COMMAND $<TARGET_FILE:gpurTestData> compare "${cli_stream_dir}/limited.mha" "${cli_stream_dir}/in-memory.mha"
    "${cli_stream_dir}/noisy.mha" 0 0)
set_tests_properties(itkgpurestoration-tv-stream-data PROPERTIES FIXTURES_SETUP CliStreamData)
set_tests_properties(itkgpurestoration-tv-stream-run-limited itkgpurestoration-tv-stream-run-in-memory PROPERTIES
  FIXTURES_REQUIRED CliStreamData FIXTURES_SETUP CliStreamRuns)
set_tests_properties(itkgpurestoration-tv-stream-equal PROPERTIES FIXTURES_REQUIRED "CliStreamData;CliStreamRuns")
set_tests_properties(itkgpurestoration-tv-stream-data itkgpurestoration-tv-stream-run-limited
  itkgpurestoration-tv-stream-run-in-memory itkgpurestoration-tv-stream-equal PROPERTIES LABELS "cli;stream")

# (4c) The defaults denoise whatever the units: the 48^3 phantom in HU (2000 v - 1000, noise 25 HU,
# 0.7 mm voxels) and in [0, 1] (noise 0.1, unit spacing), no options: lambda chosen from the estimated
# noise by the discrepancy principle on converged solves (the summary line says so), and the PSNR gain
# of the output (gpurTestData psnr-gain; measured +7.3 dB in HU, +8.3 dB in [0, 1]).
set(cli_default_dir "${cli_tv_dir}/defaults")
file(MAKE_DIRECTORY "${cli_default_dir}")
add_test(NAME itkgpurestoration-tv-defaults-data-hu
  COMMAND $<TARGET_FILE:gpurTestData> hu-phantom 48 25 0.7 5 "${cli_default_dir}/truth-hu.mha"
    "${cli_default_dir}/noisy-hu.mha")
add_test(NAME itkgpurestoration-tv-defaults-data-unit
  COMMAND $<TARGET_FILE:gpurTestData> phantom 48 0.1 5 "${cli_default_dir}/truth-unit.mha"
    "${cli_default_dir}/noisy-unit.mha")
set_tests_properties(itkgpurestoration-tv-defaults-data-hu itkgpurestoration-tv-defaults-data-unit PROPERTIES
  FIXTURES_SETUP CliDefaultsData)
foreach(units hu unit)
  add_test(NAME itkgpurestoration-tv-defaults-run-${units}
    COMMAND $<TARGET_FILE:itkgpurestoration-tv> --backend cpu "${cli_default_dir}/noisy-${units}.mha"
      "${cli_default_dir}/denoised-${units}.mha")
  add_test(NAME itkgpurestoration-tv-defaults-${units}
    COMMAND $<TARGET_FILE:gpurTestData> psnr-gain "${cli_default_dir}/noisy-${units}.mha"
      "${cli_default_dir}/denoised-${units}.mha" "${cli_default_dir}/truth-${units}.mha" 6)
  set_tests_properties(itkgpurestoration-tv-defaults-run-${units} PROPERTIES FIXTURES_REQUIRED CliDefaultsData
    FIXTURES_SETUP CliDefaultsRun-${units})
  set_tests_properties(itkgpurestoration-tv-defaults-${units} PROPERTIES
    FIXTURES_REQUIRED "CliDefaultsData;CliDefaultsRun-${units}")
endforeach()
set_tests_properties(itkgpurestoration-tv-defaults-run-hu PROPERTIES PASS_REGULAR_EXPRESSION
  "lambda 0\\.0[0-9]+ \\(automatic: noise sigma 2[3-7][0-9.]* estimated, discrepancy target 0\\.[89][0-9]* calibrated, [2-9] converged solves")
set_tests_properties(itkgpurestoration-tv-defaults-run-unit PROPERTIES PASS_REGULAR_EXPRESSION
  "lambda [0-9.]+ \\(automatic: noise sigma (0\\.09|0\\.1)[0-9]* estimated, discrepancy target 0\\.[89][0-9]* calibrated")
set_tests_properties(itkgpurestoration-tv-defaults-data-hu itkgpurestoration-tv-defaults-data-unit
  itkgpurestoration-tv-defaults-run-hu
  itkgpurestoration-tv-defaults-run-unit itkgpurestoration-tv-defaults-hu itkgpurestoration-tv-defaults-unit
  PROPERTIES LABELS "cli;tv")

# (5) itkgpurestoration-stv on a 32^3 Shepp-Logan phantom with noise sigma 0.1 and
# its variance file (0.01 everywhere): each method must raise the PSNR by the
# stated margin (gpurTestData psnr-gain; measured gains in the comments).
set(cli_stv_dir "${cli_tv_dir}/stv")
add_test(NAME itkgpurestoration-stv-data
  COMMAND $<TARGET_FILE:gpurTestData> phantom 32 0.1 17 "${cli_stv_dir}/truth.mha" "${cli_stv_dir}/noisy.nrrd")
add_test(NAME itkgpurestoration-stv-variance
  COMMAND $<TARGET_FILE:gpurTestData> variance "${cli_stv_dir}/noisy.nrrd" 0.1 "${cli_stv_dir}/variance.nrrd")
add_test(NAME itkgpurestoration-stv-zero-variance
  COMMAND $<TARGET_FILE:gpurTestData> variance "${cli_stv_dir}/noisy.nrrd" 0 "${cli_stv_dir}/zero.nrrd")
add_test(NAME itkgpurestoration-stv-other-grid # a 24^3 image: a variance on another grid
  COMMAND $<TARGET_FILE:gpurTestData> phantom 24 0.1 1 "${cli_stv_dir}/other-grid.mha" "${cli_stv_dir}/other-noisy.mha")
set_tests_properties(itkgpurestoration-stv-variance itkgpurestoration-stv-zero-variance PROPERTIES
  DEPENDS itkgpurestoration-stv-data)
set_tests_properties(itkgpurestoration-stv-data itkgpurestoration-stv-variance itkgpurestoration-stv-zero-variance
  itkgpurestoration-stv-other-grid PROPERTIES FIXTURES_SETUP CliStvData LABELS "cli;stv")
file(MAKE_DIRECTORY "${cli_stv_dir}")
# cli_stv_gain(<name> <minimum-gain-dB> <tool options>...): denoise noisy.nrrd into <name>.nrrd, then check the gain.
function(cli_stv_gain name gain)
  set(args ${ARGN})
  list(TRANSFORM args REPLACE "^VARIANCE$" "${cli_stv_dir}/variance.nrrd")
  add_test(NAME itkgpurestoration-stv-run-${name}
    COMMAND $<TARGET_FILE:itkgpurestoration-stv> ${args} "${cli_stv_dir}/noisy.nrrd" "${cli_stv_dir}/${name}.nrrd")
  set_tests_properties(itkgpurestoration-stv-run-${name} PROPERTIES FIXTURES_REQUIRED CliStvData
    FIXTURES_SETUP CliStv-${name} LABELS "cli;stv")
  add_test(NAME itkgpurestoration-stv-gain-${name}
    COMMAND $<TARGET_FILE:gpurTestData> psnr-gain "${cli_stv_dir}/noisy.nrrd" "${cli_stv_dir}/${name}.nrrd"
      "${cli_stv_dir}/truth.mha" ${gain})
  set_tests_properties(itkgpurestoration-stv-gain-${name} PROPERTIES FIXTURES_REQUIRED "CliStvData;CliStv-${name}"
    LABELS "cli;stv")
endfunction()
# Automatic lambda, the default accelerated Chambolle-Pock (PSNR 19.94 dB -> 27.06, calibrated
# discrepancy target 0.9 for this white noise), and PDU [Huang2023, Algorithm 1]
# (needs more iterations to converge).
cli_stv_gain(automatic 6.5 --variance VARIANCE)
cli_stv_gain(pdu 6.5 --variance VARIANCE --method pdu --iterations 3000)
# The variance estimated from the image (-> 25.95, discrepancy against it 1.000).
cli_stv_gain(accelerated-estimated 5 --method accelerated --backend cpu)
# Gradient descent to ||u - f||^2 = sum(var) (-> 26.53, 30 iterations; AW-TV -> 33.92, 56).
cli_stv_gain(tvgd 5.5 --variance VARIANCE --method tvgd)
cli_stv_gain(awtv 12 --variance VARIANCE --method awtv --delta 0.3 --backend cpu)

# (6) Bad input: exit 1, the reason on stderr, no output (as for itkgpurestoration-tv).
function(cli_stv_expect_failure name message)
  set(output "${cli_stv_dir}/failure-${name}/out.nrrd")
  set(args ${ARGN} "${cli_stv_dir}/noisy.nrrd" "${output}")
  list(TRANSFORM args REPLACE "^DATA/" "${cli_stv_dir}/")
  string(REPLACE ";" "|" args "${args}")
  add_test(NAME itkgpurestoration-stv-fails-${name}
    COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-stv>" "-DARGS=${args}" "-DOUTPUT=${output}"
      "-DMESSAGE=${message}" -DPROGRAM=itkgpurestoration-stv -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
  set_tests_properties(itkgpurestoration-stv-fails-${name} PROPERTIES FIXTURES_REQUIRED CliStvData
    LABELS "cli;stv")
endfunction()
cli_stv_expect_failure(bad-method "--method must be one of accelerated, cp, pdu, tvgd, awtv" --method fast)
cli_stv_expect_failure(negative-lambda "--lambda needs a finite number >= 0" --lambda -2)
cli_stv_expect_failure(zero-step "--step needs a positive finite number" --method tvgd --step 0)
cli_stv_expect_failure(missing-variance "does not exist" --variance DATA/no-such-variance.nrrd)
cli_stv_expect_failure(zero-variance "the noise variance is 0" --variance DATA/zero.nrrd)
cli_stv_expect_failure(other-grid "the noise-variance image covers" --variance DATA/other-grid.mha)
cli_stv_expect_failure(2d-variance "is 2D but the input 3D" --variance "${cli_tv_input}")
# A discrepancy target no lambda reaches (the constant image's is the largest), a weight exponent out of
# its range (it used to overflow the weights and be blamed on the variance), an automatic lambda without
# a gap tolerance (its solves could not be checked for convergence).
cli_stv_expect_failure(unreachable-discrepancy "target 10 .*cannot be reached.*reachable targets: \\(0, "
  --variance DATA/variance.nrrd --discrepancy 10)
cli_stv_expect_failure(weight-exponent "the weight exponent is 1000.*allowed: 0 to 2" --weight-exponent 1000)
cli_stv_expect_failure(automatic-without-tolerance "automatic lambda needs converged solves" --tolerance 0)

# (7) itkgpurestoration-poisson on manufactured problems (gpurTestData poisson: f = -Lap u + c u
# for a known smooth u, on an anisotropic grid with an origin and an oblique direction). The
# solution must have the right-hand side's geometry (within 1e-6) and differ from u by at most
# the discretisation error (relative to u's range; the measured error in the comments).
set(cli_poisson_dir "${cli_tv_dir}/poisson")
file(MAKE_DIRECTORY "${cli_poisson_dir}")
# cli_poisson(<name> <boundaries> <shift> <sizes> <spacings> <tolerance> <tool options>...)
function(cli_poisson name boundaries shift sizes spacings tolerance)
  set(rhs "${cli_poisson_dir}/${name}-rhs.nrrd")
  set(exact "${cli_poisson_dir}/${name}-exact.mha")
  set(solution "${cli_poisson_dir}/${name}-solution.mha")
  add_test(NAME itkgpurestoration-poisson-data-${name}
    COMMAND $<TARGET_FILE:gpurTestData> poisson ${boundaries} ${shift} ${sizes} ${spacings} "${rhs}" "${exact}")
  add_test(NAME itkgpurestoration-poisson-run-${name}
    COMMAND $<TARGET_FILE:itkgpurestoration-poisson> ${ARGN} "${rhs}" "${solution}")
  add_test(NAME itkgpurestoration-poisson-${name}
    COMMAND $<TARGET_FILE:gpurTestData> compare "${solution}" "${exact}" "${rhs}" 1e-6 ${tolerance})
  set_tests_properties(itkgpurestoration-poisson-data-${name} PROPERTIES FIXTURES_SETUP CliPoissonData-${name})
  set_tests_properties(itkgpurestoration-poisson-run-${name} PROPERTIES FIXTURES_REQUIRED CliPoissonData-${name}
    FIXTURES_SETUP CliPoisson-${name})
  set_tests_properties(itkgpurestoration-poisson-${name} PROPERTIES
    FIXTURES_REQUIRED "CliPoissonData-${name};CliPoisson-${name}")
  set_tests_properties(itkgpurestoration-poisson-data-${name} itkgpurestoration-poisson-run-${name}
    itkgpurestoration-poisson-${name} PROPERTIES LABELS "cli;pscr")
endfunction()
# 3D Poisson, Dirichlet-Neumann-Dirichlet, spacing 1 x 1.5 x 2.5 (measured 6.9e-4).
cli_poisson(dnd dirichlet,neumann,dirichlet 0 47,40,24 1,1.5,2.5 1.5e-3
  --boundary dirichlet,neumann,dirichlet --backend cpu)
# 2D modified Helmholtz, Neumann, radix 2 (measured 1.4e-4).
cli_poisson(helmholtz neumann,neumann 0.05 64,48 0.5,1 3e-4 --boundary neumann --shift 0.05 --radix 2)
# 3D pure-Neumann Poisson: this f sums to 0 (to 9e-16 of sqrt(N) |f|), so it is accepted as it
# is; the solution has zero mean, as the reference (measured 2.2e-3).
cli_poisson(neumann neumann,neumann,neumann 0 40,32,20 1,1,2 3e-3 --boundary neumann --quiet)
# The summary line reports the method (on the CPU, the uniform grid's fast sine/cosine
# transforms) and the solve's accuracy (residual evaluated in double against its target).
set_tests_properties(itkgpurestoration-poisson-run-dnd PROPERTIES PASS_REGULAR_EXPRESSION
  "fast transforms \\(x: DST-I, y: DCT-II, z: DST-I\\), relative residual [0-9.e+-]+ \\(target [0-9.e+-]+, rounding floor [0-9.e+-]+\\), [0-9]+ refinement steps, computed in double")
# 3D indefinite Helmholtz (c = -0.2 below minus the smallest eigenvalue 0.007), --precision auto,
# PSCR (--no-fast-transforms: the fast transforms solve this uniform grid in float):
# float PSCR cannot solve it (it stops at a relative residual of 11.6), so the
# solve is redone in double (measured 2.9e-5 of the range; residual 1.0x the float floor).
cli_poisson(indefinite dirichlet,dirichlet,dirichlet -0.2 64,64,64 1,1,1 1e-4 --shift -0.2 --precision auto
  --no-fast-transforms)
set_tests_properties(itkgpurestoration-poisson-run-indefinite PROPERTIES PASS_REGULAR_EXPRESSION
  "shift -0.2, PSCR, relative residual [0-9.e+-]+ \\(target [0-9.e+-]+, rounding floor [0-9.e+-]+\\), [0-9]+ refinement steps, computed in double")
# An f that does not sum to 0 (the Dirichlet problem's) with Neumann everywhere: --project
# removes its mean and solves (the refusal without it is a failure test below).
add_test(NAME itkgpurestoration-poisson-project
  COMMAND $<TARGET_FILE:itkgpurestoration-poisson> --boundary neumann --project "${cli_poisson_dir}/dnd-rhs.nrrd"
    "${cli_poisson_dir}/project-solution.mha")
set_tests_properties(itkgpurestoration-poisson-project PROPERTIES FIXTURES_REQUIRED CliPoissonData-dnd
  PASS_REGULAR_EXPRESSION "singular \\(mean of f removed, solution with zero mean\\)" LABELS "cli;pscr")

# (8) Bad input: exit 1, the reason on stderr, no output.
function(cli_poisson_expect_failure name message)
  set(output "${cli_poisson_dir}/failure-${name}/out.nrrd")
  set(args ${ARGN} "${output}")
  list(TRANSFORM args REPLACE "^DATA/" "${cli_poisson_dir}/")
  string(REPLACE ";" "|" args "${args}")
  add_test(NAME itkgpurestoration-poisson-fails-${name}
    COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-poisson>" "-DARGS=${args}" "-DOUTPUT=${output}"
      "-DMESSAGE=${message}" -DPROGRAM=itkgpurestoration-poisson -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
  set_tests_properties(itkgpurestoration-poisson-fails-${name} PROPERTIES
    FIXTURES_REQUIRED "CliPoissonData-dnd;CliPoissonData-helmholtz;CliPoissonData-neumann;CliPoissonData-indefinite"
    LABELS "cli;pscr")
endfunction()
cli_poisson_expect_failure(incompatible "sum of the input is 0.*Use --project" --boundary neumann DATA/dnd-rhs.nrrd)
cli_poisson_expect_failure(bad-boundary "--boundary must be one of dirichlet, neumann, got 'periodic'"
  --boundary dirichlet,periodic DATA/dnd-rhs.nrrd)
cli_poisson_expect_failure(boundary-count "--boundary lists 3 conditions but .* is 2D"
  --boundary dirichlet,neumann,dirichlet DATA/helmholtz-rhs.nrrd)
cli_poisson_expect_failure(bad-radix "--radix must be one of 4, 2, got '3'" --radix 3 DATA/dnd-rhs.nrrd)
cli_poisson_expect_failure(nan-shift "--shift needs a finite number, got 'nan'" --shift nan DATA/dnd-rhs.nrrd)
cli_poisson_expect_failure(unknown-device "no-such-device-xyz" --backend opencl --device no-such-device-xyz
  DATA/dnd-rhs.nrrd)
cli_poisson_expect_failure(missing-input "does not exist" DATA/no-such-rhs.nrrd)
# PSCR does not stream: the tool does not offer --device-memory-limit, so it is an unknown option.
cli_poisson_expect_failure(memory-limit "unknown option '--device-memory-limit'" --device-memory-limit 64
  DATA/dnd-rhs.nrrd)
# Accuracy: a solve that cannot reach its target fails with what it reached and which option to change.
cli_poisson_expect_failure(float-insufficient "PSCR solve \\(float\\) reached a relative residual .* above its target .*: use --precision auto or double"
  --shift -0.2 --precision float --no-fast-transforms DATA/indefinite-rhs.nrrd)
cli_poisson_expect_failure(unreachable-tolerance "above its target 1e-20 \\(--residual-tolerance\\).*raise --residual-tolerance above the floor"
  --boundary dirichlet,neumann,dirichlet --residual-tolerance 1e-20 DATA/dnd-rhs.nrrd)
cli_poisson_expect_failure(bad-tolerance "--residual-tolerance needs a finite number >= 0, got '-1'" --residual-tolerance -1
  DATA/dnd-rhs.nrrd)
cli_poisson_expect_failure(bad-refinement-steps "--max-refinement-steps needs an integer in \\[0, 16\\], got '17'"
  --max-refinement-steps 17 DATA/dnd-rhs.nrrd)
cli_poisson_expect_failure(bad-precision "--precision must be one of double, auto, float, got 'quad'" --precision quad
  DATA/dnd-rhs.nrrd)

# (8b) Progress as 3D Slicer and a terminal see it (CheckSlicerProgress.py): with stdout and stderr
# on pipes, one <filter-start>, throttled non-decreasing <filter-progress> values in [0, 1] ending at
# 1, one <filter-end>, the summary on stdout and nothing on stderr; on a terminal, the bar and no
# <filter-...> line. The statistical tool's automatic lambda (several solves) is one progress range.
if(Python3_Interpreter_FOUND)
  set(cli_progress_check Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/CheckSlicerProgress.py")
  set(cli_progress_tv $<TARGET_FILE:itkgpurestoration-tv> --lambda 20 --iterations 200 --tolerance 0 --backend cpu
    "${cli_tv_input}")
  add_test(NAME itkgpurestoration-tv-slicer-progress
    COMMAND ${cli_progress_check} --program itkgpurestoration-tv --min-progress 50 -- ${cli_progress_tv}
      "${cli_tv_dir}/progress-slicer.mha")
  add_test(NAME itkgpurestoration-tv-terminal-progress
    COMMAND ${cli_progress_check} --program itkgpurestoration-tv --terminal -- ${cli_progress_tv}
      "${cli_tv_dir}/progress-terminal.mha")
  add_test(NAME itkgpurestoration-stv-slicer-progress
    COMMAND ${cli_progress_check} --program itkgpurestoration-stv --min-progress 4
      --summary "automatic: .*, ([2-9]|[1-9][0-9]+) converged solves" --
      $<TARGET_FILE:itkgpurestoration-stv> --variance "${cli_stv_dir}/variance.nrrd" --discrepancy 0.9 --backend cpu
      "${cli_stv_dir}/noisy.nrrd" "${cli_stv_dir}/progress-slicer.nrrd")
  set_tests_properties(itkgpurestoration-stv-slicer-progress PROPERTIES FIXTURES_REQUIRED CliStvData)
  set_tests_properties(itkgpurestoration-tv-slicer-progress itkgpurestoration-tv-terminal-progress
    itkgpurestoration-stv-slicer-progress PROPERTIES LABELS "cli;slicer")
endif()

# (9) The bad-input suite: corrupt and unsupported inputs, full disks, interruptions, kernel override.
include(CommandLineBadInput.cmake)

# (10) --help: exit 0 with the usage on stdout; a tool lists only options it honours (the
# Poisson solver does not stream, so neither its help nor its Slicer description offers
# --device-memory-limit; the denoisers do). cli_expect_help(<name> <tool> <match> [<not-match>] ARGS ...)
function(cli_expect_help name tool match not_match)
  string(REPLACE ";" "|" args "${ARGN}")
  set(extra "")
  if(NOT not_match STREQUAL "")
    set(extra "-DNOT_MATCH=${not_match}")
  endif()
  add_test(NAME ${tool}-${name}
    COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:${tool}>" "-DARGS=${args}" "-DMATCH=${match}" ${extra}
      -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectHelp.cmake")
  set_tests_properties(${tool}-${name} PROPERTIES LABELS "cli")
endfunction()
cli_expect_help(help itkgpurestoration-devices "^usage: itkgpurestoration-devices \\[options\\] \\[selection\\]\n" "" --help)
cli_expect_help(help itkgpurestoration-poisson "^usage: itkgpurestoration-poisson " "--device-memory-limit" --help)
cli_expect_help(xml-options itkgpurestoration-poisson "<executable>" "device-memory-limit" --xml)
foreach(tool itkgpurestoration-tv itkgpurestoration-stv)
  cli_expect_help(help ${tool} "^usage: ${tool} .*\n  --device-memory-limit MiB" "" --help)
endforeach()

# (11) The device lister parses its command line like the other tools: an unknown option
# or --xml (it is no Slicer module) is an error naming it, not a device selection.
function(cli_devices_expect_failure name message)
  string(REPLACE ";" "|" args "${ARGN}")
  set(output "${cli_tv_dir}/failure-devices-${name}/none")
  add_test(NAME itkgpurestoration-devices-fails-${name}
    COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-devices>" "-DARGS=${args}" "-DOUTPUT=${output}"
      "-DMESSAGE=${message}" -DPROGRAM=itkgpurestoration-devices -DONE_LINE=ON
      -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
  set_tests_properties(itkgpurestoration-devices-fails-${name} PROPERTIES LABELS "cli")
endfunction()
cli_devices_expect_failure(unknown-option "unknown option '--no-such-option' \\(see --help\\)" --no-such-option)
cli_devices_expect_failure(xml "--xml: this tool lists devices and processes no image, so it has no 3D Slicer" --xml)
cli_devices_expect_failure(two-selections "unexpected argument|expected \\[selection\\], got 2 arguments" gpu cpu)

# (12) itkgpurestoration-l1mc (L1-mean-curvature denoising, 2D) on the TV regression input (64 x 64,
# [0, 1]): a run on each backend, whose summary states r0, the iterations and convergence, and whose
# outputs agree (CPU vs OpenCL within 1e-4 of the range, same geometry); the Slicer description and
# progress; a warning for a run that ends before --tolerance; failures with exit 1, one line, no output.
if(TARGET itkgpurestoration-l1mc)
  set(cli_l1mc_dir "${cli_tv_dir}/l1mc")
  file(MAKE_DIRECTORY "${cli_l1mc_dir}")
  foreach(backend cpu opencl)
    add_test(NAME itkgpurestoration-l1mc-run-${backend}
      COMMAND $<TARGET_FILE:itkgpurestoration-l1mc> --r0 0.005 --backend ${backend} "${cli_tv_input}"
        "${cli_l1mc_dir}/denoised-${backend}.nrrd")
    set_tests_properties(itkgpurestoration-l1mc-run-${backend} PROPERTIES FIXTURES_SETUP CliL1MCRun-${backend}
      PASS_REGULAR_EXPRESSION "r0 0\\.005, data range [0-9.]+, h 0\\.01587, [0-9]+ iterations \\(converged\\), relative change [0-9.e+-]+, residuals R1")
  endforeach()
  add_test(NAME itkgpurestoration-l1mc-backends-agree
    COMMAND $<TARGET_FILE:gpurTestData> compare "${cli_l1mc_dir}/denoised-opencl.nrrd"
      "${cli_l1mc_dir}/denoised-cpu.nrrd" "${cli_tv_input}" 1e-6 1e-4)
  set_tests_properties(itkgpurestoration-l1mc-backends-agree PROPERTIES
    FIXTURES_REQUIRED "CliL1MCRun-cpu;CliL1MCRun-opencl")
  # The paper's CG for the p3-subproblem: the same system as the default direct solve, the same result up to
  # CG's tolerance and float rounding over the run (the tool computes in float; measured 2.5e-4 of the range).
  add_test(NAME itkgpurestoration-l1mc-run-cg
    COMMAND $<TARGET_FILE:itkgpurestoration-l1mc> --r0 0.005 --backend cpu --sub2-solver cg "${cli_tv_input}"
      "${cli_l1mc_dir}/denoised-cg.nrrd")
  set_tests_properties(itkgpurestoration-l1mc-run-cg PROPERTIES FIXTURES_SETUP CliL1MCRun-cg
    PASS_REGULAR_EXPRESSION "[0-9]+ iterations \\(converged\\)")
  add_test(NAME itkgpurestoration-l1mc-cg-agrees
    COMMAND $<TARGET_FILE:gpurTestData> compare "${cli_l1mc_dir}/denoised-cg.nrrd"
      "${cli_l1mc_dir}/denoised-cpu.nrrd" "${cli_tv_input}" 1e-6 1e-3)
  set_tests_properties(itkgpurestoration-l1mc-cg-agrees PROPERTIES
    FIXTURES_REQUIRED "CliL1MCRun-cpu;CliL1MCRun-cg")
  # Without --r0: r0 from the estimated noise level, named in the summary.
  add_test(NAME itkgpurestoration-l1mc-run-automatic
    COMMAND $<TARGET_FILE:itkgpurestoration-l1mc> --backend cpu "${cli_tv_input}" "${cli_l1mc_dir}/automatic.mha")
  set_tests_properties(itkgpurestoration-l1mc-run-automatic PROPERTIES
    PASS_REGULAR_EXPRESSION "r0 [0-9.e-]+ \\(from noise sigma [0-9.e-]+ estimated\\)")
  # The defaults (r0 from the estimated noise) on a 64^2 Shepp-Logan slice with noise 0.1: PSNR
  # 19.99 -> 26.50 dB measured (+6.5 dB; gpurTestData psnr-gain requires +5).
  add_test(NAME itkgpurestoration-l1mc-gain-data
    COMMAND $<TARGET_FILE:gpurTestData> phantom2d 64 0.1 3 "${cli_l1mc_dir}/truth.mha" "${cli_l1mc_dir}/noisy.mha")
  add_test(NAME itkgpurestoration-l1mc-gain-run
    COMMAND $<TARGET_FILE:itkgpurestoration-l1mc> --quiet "${cli_l1mc_dir}/noisy.mha" "${cli_l1mc_dir}/defaults.mha")
  add_test(NAME itkgpurestoration-l1mc-gain
    COMMAND $<TARGET_FILE:gpurTestData> psnr-gain "${cli_l1mc_dir}/noisy.mha" "${cli_l1mc_dir}/defaults.mha"
      "${cli_l1mc_dir}/truth.mha" 5)
  set_tests_properties(itkgpurestoration-l1mc-gain-data PROPERTIES FIXTURES_SETUP CliL1MCData)
  set_tests_properties(itkgpurestoration-l1mc-gain-run PROPERTIES FIXTURES_REQUIRED CliL1MCData
    FIXTURES_SETUP CliL1MCDefaults)
  set_tests_properties(itkgpurestoration-l1mc-gain PROPERTIES FIXTURES_REQUIRED "CliL1MCData;CliL1MCDefaults")
  add_test(NAME itkgpurestoration-l1mc-warns-not-converged
    COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-l1mc>"
      "-DARGS=--r0|0.005|--iterations|2|--quiet|--backend|cpu|${cli_tv_input}|${cli_l1mc_dir}/not-converged.nrrd"
      "-DOUTPUT=${cli_l1mc_dir}/not-converged.nrrd" "-DMESSAGE=.*2 iterations" -DPROGRAM=itkgpurestoration-l1mc
      -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectWarning.cmake")

  function(cli_l1mc_expect_failure name message)
    set(output "${cli_l1mc_dir}/failure-${name}/out.nrrd")
    set(args ${ARGN} "${output}")
    string(REPLACE ";" "|" args "${args}")
    add_test(NAME itkgpurestoration-l1mc-fails-${name}
      COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-l1mc>" "-DARGS=${args}" "-DOUTPUT=${output}"
        "-DMESSAGE=${message}" -DPROGRAM=itkgpurestoration-l1mc -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
    set_tests_properties(itkgpurestoration-l1mc-fails-${name} PROPERTIES LABELS "cli;l1mc")
  endfunction()
  cli_l1mc_expect_failure(negative-r0 "--r0 needs a finite number >= 0" --r0 -1 "${cli_tv_input}")
  cli_l1mc_expect_failure(nan-sigma "--sigma needs a finite number >= 0" --sigma nan "${cli_tv_input}")
  cli_l1mc_expect_failure(zero-tolerance "--tolerance needs a positive finite number" --tolerance 0 "${cli_tv_input}")
  cli_l1mc_expect_failure(zero-iterations "--iterations needs an integer in" --iterations 0 "${cli_tv_input}")
  cli_l1mc_expect_failure(bad-corner-mass "--corner-mass must be one of exact, separable" --corner-mass lumped
    "${cli_tv_input}")
  cli_l1mc_expect_failure(bad-initialization "--initialization must be one of zero, data" --initialization noise
    "${cli_tv_input}")
  cli_l1mc_expect_failure(bad-sub2-solver "--sub2-solver must be one of direct, cg" --sub2-solver jacobi
    "${cli_tv_input}")
  # The model is 2D: a volume is refused before any work, naming the alternative.
  cli_l1mc_expect_failure(volume "is a 3D image; L1-mean-curvature denoising is 2D" "${cli_dicom_dir}/volume.mha")
  set_tests_properties(itkgpurestoration-l1mc-fails-volume PROPERTIES FIXTURES_REQUIRED CliDicomData)
  cli_l1mc_expect_failure(missing-input "does not exist" "${cli_l1mc_dir}/no-such-input.mha")
  # L1MC keeps the whole problem on the device: no --device-memory-limit.
  cli_l1mc_expect_failure(memory-limit "unknown option '--device-memory-limit'" --device-memory-limit 64
    "${cli_tv_input}")
  set_tests_properties(itkgpurestoration-l1mc-run-cpu itkgpurestoration-l1mc-run-opencl
    itkgpurestoration-l1mc-backends-agree itkgpurestoration-l1mc-run-cg itkgpurestoration-l1mc-cg-agrees
    itkgpurestoration-l1mc-run-automatic
    itkgpurestoration-l1mc-warns-not-converged itkgpurestoration-l1mc-gain-data itkgpurestoration-l1mc-gain-run
    itkgpurestoration-l1mc-gain PROPERTIES LABELS "cli;l1mc")

  cli_expect_help(help itkgpurestoration-l1mc "^usage: itkgpurestoration-l1mc " "--device-memory-limit" --help)
  if(Python3_Interpreter_FOUND)
    add_test(NAME itkgpurestoration-l1mc-xml
      COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/CheckSlicerXML.py"
        $<TARGET_FILE:itkgpurestoration-l1mc>)
    # A budget of 80 iterations: the run converges after 49, with a progress line per iteration (30 required).
    add_test(NAME itkgpurestoration-l1mc-slicer-progress
      COMMAND ${cli_progress_check} --program itkgpurestoration-l1mc --min-progress 30 --
        $<TARGET_FILE:itkgpurestoration-l1mc> --r0 0.005 --iterations 80 --backend cpu "${cli_tv_input}"
        "${cli_l1mc_dir}/progress-slicer.mha")
    set_tests_properties(itkgpurestoration-l1mc-xml itkgpurestoration-l1mc-slicer-progress PROPERTIES
      LABELS "cli;slicer;l1mc")
  endif()
endif()

# (13) itkgpurestoration-levellines (level-line denoising [Perrot2013], 2D images and stacks of 2D slices) on
# the TV regression input (64 x 64, [0, 1]): a run on each backend whose summary states the estimated sigma
# and the mean line length, outputs that agree (CPU vs OpenCL within 1e-5 of the range), the PSNR gain of the
# defaults on a noisy 128^2 Shepp-Logan slice, a 3D volume filtered as its 6 slices, the Slicer description and
# progress, failures with exit 1, one line, no output.
if(TARGET itkgpurestoration-levellines)
  set(cli_ll_dir "${cli_tv_dir}/levellines")
  file(MAKE_DIRECTORY "${cli_ll_dir}")
  foreach(backend cpu opencl)
    add_test(NAME itkgpurestoration-levellines-run-${backend}
      COMMAND $<TARGET_FILE:itkgpurestoration-levellines> --backend ${backend} "${cli_tv_input}"
        "${cli_ll_dir}/denoised-${backend}.nrrd")
    set_tests_properties(itkgpurestoration-levellines-run-${backend} PROPERTIES
      FIXTURES_SETUP CliLevelLinesRun-${backend}
      PASS_REGULAR_EXPRESSION "1 frame, PIPD, noise sigma [0-9.e-]+ estimated, mean line [0-9.]+ pixels \\(stopped by the test")
  endforeach()
  add_test(NAME itkgpurestoration-levellines-backends-agree
    COMMAND $<TARGET_FILE:gpurTestData> compare "${cli_ll_dir}/denoised-opencl.nrrd"
      "${cli_ll_dir}/denoised-cpu.nrrd" "${cli_tv_input}" 1e-6 1e-5)
  set_tests_properties(itkgpurestoration-levellines-backends-agree PROPERTIES
    FIXTURES_REQUIRED "CliLevelLinesRun-cpu;CliLevelLinesRun-opencl")
  # The defaults on a 128^2 Shepp-Logan slice with noise 0.1: piecewise-constant regions with level lines
  # longer than the 25-pixel maximum length, the images the filter is made for [Perrot2013]. Measured:
  # 20.00 -> 27.66 dB, +7.66 dB (required: +6.5 dB). On the 64^2 slice, whose small ellipses are a few pixels
  # across, the gain is +2.38 dB.
  add_test(NAME itkgpurestoration-levellines-gain-data
    COMMAND $<TARGET_FILE:gpurTestData> phantom2d 128 0.1 3 "${cli_ll_dir}/truth.mha" "${cli_ll_dir}/noisy.mha")
  add_test(NAME itkgpurestoration-levellines-gain-run
    COMMAND $<TARGET_FILE:itkgpurestoration-levellines> --quiet "${cli_ll_dir}/noisy.mha" "${cli_ll_dir}/defaults.mha")
  add_test(NAME itkgpurestoration-levellines-gain
    COMMAND $<TARGET_FILE:gpurTestData> psnr-gain "${cli_ll_dir}/noisy.mha" "${cli_ll_dir}/defaults.mha"
      "${cli_ll_dir}/truth.mha" 6.5)
  set_tests_properties(itkgpurestoration-levellines-gain-data PROPERTIES FIXTURES_SETUP CliLevelLinesData)
  set_tests_properties(itkgpurestoration-levellines-gain-run PROPERTIES FIXTURES_REQUIRED CliLevelLinesData
    FIXTURES_SETUP CliLevelLinesDefaults)
  set_tests_properties(itkgpurestoration-levellines-gain PROPERTIES
    FIXTURES_REQUIRED "CliLevelLinesData;CliLevelLinesDefaults")
  # A volume (the DICOM fixture's 24 x 20 x 6 int16 CT) is a stack of its 6 slices, in hybrid mode.
  add_test(NAME itkgpurestoration-levellines-stack
    COMMAND $<TARGET_FILE:itkgpurestoration-levellines> --backend cpu --mode hybrid "${cli_dicom_dir}/volume.mha"
      "${cli_ll_dir}/stack.mha")
  set_tests_properties(itkgpurestoration-levellines-stack PROPERTIES FIXTURES_REQUIRED CliDicomData
    PASS_REGULAR_EXPRESSION "6 frames, Hybrid, noise sigma [0-9.e+-]+ estimated, .*, classes low-slope [0-9]+ %")

  function(cli_ll_expect_failure name message)
    set(output "${cli_ll_dir}/failure-${name}/out.nrrd")
    set(args ${ARGN} "${output}")
    string(REPLACE ";" "|" args "${args}")
    add_test(NAME itkgpurestoration-levellines-fails-${name}
      COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-levellines>" "-DARGS=${args}"
        "-DOUTPUT=${output}" "-DMESSAGE=${message}" -DPROGRAM=itkgpurestoration-levellines
        -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
    set_tests_properties(itkgpurestoration-levellines-fails-${name} PROPERTIES LABELS "cli;levellines")
  endfunction()
  cli_ll_expect_failure(short-segment "--segment-length needs an integer in \\[2, 12\\]" --segment-length 1
    "${cli_tv_input}")
  cli_ll_expect_failure(long-line "--maximum-length needs an integer in \\[2, 64\\]" --maximum-length 65
    "${cli_tv_input}")
  # Within the option's range but shorter than the segment: the engine's check names both.
  cli_ll_expect_failure(line-shorter-than-segment "aximum" --segment-length 8 --maximum-length 4 "${cli_tv_input}")
  cli_ll_expect_failure(zero-threshold "--lengthening-threshold needs a positive finite number"
    --lengthening-threshold 0 "${cli_tv_input}")
  cli_ll_expect_failure(nan-edge-threshold "--edge-threshold needs a positive finite number" --edge-threshold nan
    "${cli_tv_input}")
  # The engine's check names the parameter and its range ("varianceFloor is 5; it must be in (0, 4] ..."); the
  # regex leaves out the ';', which add_test would split into two arguments.
  cli_ll_expect_failure(large-floor "varianceFloor is 5. it must be in \\(0, 4\\]" --variance-floor 5
    "${cli_tv_input}")
  cli_ll_expect_failure(negative-sigma "--sigma needs a finite number >= 0" --sigma -1 "${cli_tv_input}")
  cli_ll_expect_failure(bad-mode "--mode must be one of pipd, hybrid" --mode median "${cli_tv_input}")
  cli_ll_expect_failure(bad-test "--test must be one of pooled, separate" --test welch "${cli_tv_input}")
  cli_ll_expect_failure(bad-turn-back "--turn-back must be one of flip, stop" --turn-back ignore "${cli_tv_input}")
  cli_ll_expect_failure(missing-input "does not exist" "${cli_ll_dir}/no-such-input.mha")
  set_tests_properties(itkgpurestoration-levellines-run-cpu itkgpurestoration-levellines-run-opencl
    itkgpurestoration-levellines-backends-agree itkgpurestoration-levellines-gain-data
    itkgpurestoration-levellines-gain-run itkgpurestoration-levellines-gain itkgpurestoration-levellines-stack
    PROPERTIES LABELS "cli;levellines")

  cli_expect_help(help itkgpurestoration-levellines "^usage: itkgpurestoration-levellines .*--device-memory-limit MiB" ""
    --help)
  if(Python3_Interpreter_FOUND)
    add_test(NAME itkgpurestoration-levellines-xml
      COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/CheckSlicerXML.py"
        $<TARGET_FILE:itkgpurestoration-levellines>)
    # A progress line per slice of the 6-slice volume (and per stage).
    add_test(NAME itkgpurestoration-levellines-slicer-progress
      COMMAND ${cli_progress_check} --program itkgpurestoration-levellines --min-progress 3 --
        $<TARGET_FILE:itkgpurestoration-levellines> --backend cpu "${cli_dicom_dir}/volume.mha"
        "${cli_ll_dir}/progress-slicer.mha")
    set_tests_properties(itkgpurestoration-levellines-slicer-progress PROPERTIES FIXTURES_REQUIRED CliDicomData)
    set_tests_properties(itkgpurestoration-levellines-xml itkgpurestoration-levellines-slicer-progress PROPERTIES
      LABELS "cli;slicer;levellines")
  endif()
endif()

# (14) itkgpurestoration-sparse (compressed sensing with partial circulant matrices, 2D) on a star field
# (gpurTestData sparse2d: 25 stars on 48 x 40, a Gaussian PSF of sigma 1.5): measure with a drawn operator (saved
# with --mask-output and --generator-output), recover from it drawn again from the seed and read from the files
# (CPU and OpenCL), deblur from blurred measurements; each recovered image against the stars (max |difference|
# relative to their range); the Slicer description and progress; failures with exit 1, one line, no output.
if(TARGET itkgpurestoration-sparse)
  set(cli_sr_dir "${cli_tv_dir}/sparse")
  file(MAKE_DIRECTORY "${cli_sr_dir}")
  set(cli_sr_tool $<TARGET_FILE:itkgpurestoration-sparse>)
  add_test(NAME itkgpurestoration-sparse-data
    COMMAND $<TARGET_FILE:gpurTestData> sparse2d 48 40 25 1.5 3 "${cli_sr_dir}/stars.nrrd" "${cli_sr_dir}/psf.nrrd")
  set_tests_properties(itkgpurestoration-sparse-data PROPERTIES FIXTURES_SETUP CliSparseData)
  add_test(NAME itkgpurestoration-sparse-measure
    COMMAND ${cli_sr_tool} --mode measure --ratio 0.5 --seed 7 --backend cpu --mask-output "${cli_sr_dir}/mask.nrrd"
      --generator-output "${cli_sr_dir}/generator.nrrd" "${cli_sr_dir}/stars.nrrd" "${cli_sr_dir}/y.nrrd")
  add_test(NAME itkgpurestoration-sparse-measure-blurred
    COMMAND ${cli_sr_tool} --mode measure --ratio 0.5 --seed 7 --psf "${cli_sr_dir}/psf.nrrd"
      "${cli_sr_dir}/stars.nrrd" "${cli_sr_dir}/y-blurred.nrrd")
  set_tests_properties(itkgpurestoration-sparse-measure PROPERTIES PASS_REGULAR_EXPRESSION
    "measure, 960 of 1920 measured \\(mask drawn from seed 7, generator drawn from seed 7\\)")
  set_tests_properties(itkgpurestoration-sparse-measure itkgpurestoration-sparse-measure-blurred PROPERTIES
    FIXTURES_REQUIRED CliSparseData FIXTURES_SETUP CliSparseMeasured)
  # cli_sr_run(<name> <tolerance> <tool arguments>...): recovers DATA/<input> into <name>.nrrd, then compares it with
  # the stars (max |difference| <= tolerance x their range, the input's geometry).
  function(cli_sr_run name tolerance)
    set(args ${ARGN})
    list(TRANSFORM args REPLACE "^DATA/" "${cli_sr_dir}/")
    add_test(NAME itkgpurestoration-sparse-run-${name} COMMAND ${cli_sr_tool} ${args} "${cli_sr_dir}/${name}.nrrd")
    add_test(NAME itkgpurestoration-sparse-${name}
      COMMAND $<TARGET_FILE:gpurTestData> compare "${cli_sr_dir}/${name}.nrrd" "${cli_sr_dir}/stars.nrrd"
        "${cli_sr_dir}/stars.nrrd" 1e-6 ${tolerance})
    set_tests_properties(itkgpurestoration-sparse-run-${name} PROPERTIES
      FIXTURES_REQUIRED "CliSparseData;CliSparseMeasured" FIXTURES_SETUP CliSparseRun-${name})
    set_tests_properties(itkgpurestoration-sparse-${name} PROPERTIES
      FIXTURES_REQUIRED "CliSparseData;CliSparseRun-${name}")
    set_tests_properties(itkgpurestoration-sparse-run-${name} itkgpurestoration-sparse-${name} PROPERTIES
      LABELS "cli;sparse")
  endfunction()
  # Measured: 1.75e-4 of the range (the l1 bias of relative alpha 1e-4) for FISTA and CPADMM, on both backends.
  cli_sr_run(seed 1e-3 --ratio 0.5 --seed 7 --relative-alpha 1e-4 --backend cpu DATA/y.nrrd)
  cli_sr_run(files-opencl 1e-3 --mask DATA/mask.nrrd --generator DATA/generator.nrrd --relative-alpha 1e-4
    --backend opencl DATA/y.nrrd)
  cli_sr_run(cpadmm 1e-3 --ratio 0.5 --seed 7 --relative-alpha 1e-4 --solver cpadmm --backend cpu DATA/y.nrrd)
  # Deblurring, CPADMM (3150 iterations to the gap tolerance, FISTA 4930): measured 4.6e-3 of the range.
  cli_sr_run(deblur 1e-2 --mode deblur --psf DATA/psf.nrrd --nonnegative --ratio 0.5 --seed 7 --solver cpadmm
    --backend cpu DATA/y-blurred.nrrd)
  set_tests_properties(itkgpurestoration-sparse-run-deblur PROPERTIES PASS_REGULAR_EXPRESSION
    "deblur, 960 of 1920 measured .*, CPADMM, .*iterations \\(converged\\)")
  set_tests_properties(itkgpurestoration-sparse-run-seed PROPERTIES PASS_REGULAR_EXPRESSION
    "recover, 960 of 1920 measured .*, FISTA, alpha [0-9.e-]+ \\(0\\.0001 of alpha_max [0-9.e-]+\\), [0-9]+ iterations \\(converged\\), relative gap")
  set_tests_properties(itkgpurestoration-sparse-data itkgpurestoration-sparse-measure
    itkgpurestoration-sparse-measure-blurred PROPERTIES LABELS "cli;sparse")
  # Not converged within --iterations: a warning, the output written, exit 0.
  add_test(NAME itkgpurestoration-sparse-warns-not-converged
    COMMAND ${CMAKE_COMMAND} "-DTOOL=${cli_sr_tool}"
      "-DARGS=--ratio|0.5|--seed|7|--iterations|5|--quiet|--backend|cpu|${cli_sr_dir}/y.nrrd|${cli_sr_dir}/not-converged.nrrd"
      "-DOUTPUT=${cli_sr_dir}/not-converged.nrrd" "-DMESSAGE=.*5 iterations" -DPROGRAM=itkgpurestoration-sparse
      -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectWarning.cmake")
  set_tests_properties(itkgpurestoration-sparse-warns-not-converged PROPERTIES
    FIXTURES_REQUIRED "CliSparseData;CliSparseMeasured" LABELS "cli;sparse")

  function(cli_sr_expect_failure name message)
    set(output "${cli_sr_dir}/failure-${name}/out.nrrd")
    set(args ${ARGN} "${output}")
    list(TRANSFORM args REPLACE "^DATA/" "${cli_sr_dir}/")
    string(REPLACE ";" "|" args "${args}")
    add_test(NAME itkgpurestoration-sparse-fails-${name}
      COMMAND ${CMAKE_COMMAND} "-DTOOL=${cli_sr_tool}" "-DARGS=${args}" "-DOUTPUT=${output}" "-DMESSAGE=${message}"
        -DPROGRAM=itkgpurestoration-sparse -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
    set_tests_properties(itkgpurestoration-sparse-fails-${name} PROPERTIES
      FIXTURES_REQUIRED "CliSparseData;CliSparseMeasured" LABELS "cli;sparse")
  endfunction()
  cli_sr_expect_failure(deblur-without-psf "--mode deblur needs --psf" --mode deblur --ratio 0.5 DATA/y.nrrd)
  cli_sr_expect_failure(recover-with-psf "--mode recover has none" --psf DATA/psf.nrrd --ratio 0.5 DATA/y.nrrd)
  cli_sr_expect_failure(no-sampling-set "no sampling set: give --mask, or --ratio" DATA/y.nrrd)
  cli_sr_expect_failure(mask-and-ratio "--mask and --ratio both give the sampling set" --mask DATA/mask.nrrd
    --ratio 0.5 DATA/y.nrrd)
  cli_sr_expect_failure(bad-ratio "--ratio needs a number in \\[0, 1\\]" --ratio 1.5 DATA/y.nrrd)
  cli_sr_expect_failure(mask-output "save the operator of --mode measure" --ratio 0.5 --mask-output
    DATA/failure-mask-output/mask.nrrd DATA/y.nrrd)
  cli_sr_expect_failure(bad-solver "--solver must be one of fista, cpista, cpadmm" --solver omp --ratio 0.5
    DATA/y.nrrd)
  cli_sr_expect_failure(relative-alpha "relativeAlpha" --relative-alpha 2 --ratio 0.5 DATA/y.nrrd)
  cli_sr_expect_failure(zero-iterations "--iterations needs an integer in" --iterations 0 --ratio 0.5 DATA/y.nrrd)
  # The stars as a mask: values other than 0 and 1 (read as 8-bit: 1, 2 and 3).
  cli_sr_expect_failure(bad-mask "the mask holds the value [23]" --mask DATA/stars.nrrd DATA/y.nrrd)
  cli_sr_expect_failure(psf-grid "the PSF image has spacing" --mode deblur --psf "${cli_tv_input}" --ratio 0.5
    DATA/y.nrrd)
  cli_sr_expect_failure(missing-mask "does not exist" --mask DATA/no-such-mask.nrrd DATA/y.nrrd)
  cli_sr_expect_failure(volume "is a 3D image; sparse recovery with circulant sensing is 2D" --ratio 0.5
    "${cli_dicom_dir}/volume.mha")
  set_tests_properties(itkgpurestoration-sparse-fails-volume PROPERTIES
    FIXTURES_REQUIRED "CliDicomData;CliSparseData;CliSparseMeasured")
  cli_sr_expect_failure(memory-limit "unknown option '--device-memory-limit'" --device-memory-limit 64 --ratio 0.5
    DATA/y.nrrd)

  cli_expect_help(help itkgpurestoration-sparse "^usage: itkgpurestoration-sparse " "--device-memory-limit" --help)
  if(Python3_Interpreter_FOUND)
    add_test(NAME itkgpurestoration-sparse-xml
      COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/CheckSlicerXML.py" ${cli_sr_tool})
    # Progress lines through a run of about 1300 iterations (it converges: no warning on stderr).
    add_test(NAME itkgpurestoration-sparse-slicer-progress
      COMMAND ${cli_progress_check} --program itkgpurestoration-sparse --min-progress 3 --
        ${cli_sr_tool} --ratio 0.5 --seed 7 --relative-alpha 1e-4 --backend cpu "${cli_sr_dir}/y.nrrd"
        "${cli_sr_dir}/progress-slicer.nrrd")
    set_tests_properties(itkgpurestoration-sparse-slicer-progress PROPERTIES
      FIXTURES_REQUIRED "CliSparseData;CliSparseMeasured")
    set_tests_properties(itkgpurestoration-sparse-xml itkgpurestoration-sparse-slicer-progress PROPERTIES
      LABELS "cli;slicer;sparse")
  endif()
endif()

# (15) itkgpurestoration-flow (mean-curvature and Willmore flows of graphs [Oberhuber2011], 2D) on the TV
# regression input (64 x 64, spacing 0.8, [0, 1]): each flow on each backend, whose summary states the time
# reached and the steps; outputs that agree (CPU vs OpenCL within 1e-5 of the range: measured 0 on PoCL); the
# PSNR gain on a noisy 128^2 Shepp-Logan slice; the Slicer description and progress; failures with exit 1, one
# line, no output.
if(TARGET itkgpurestoration-flow)
  set(cli_flow_dir "${cli_tv_dir}/flow")
  file(MAKE_DIRECTORY "${cli_flow_dir}")
  foreach(flow mean willmore)
    foreach(backend cpu opencl)
      add_test(NAME itkgpurestoration-flow-${flow}-${backend}
        COMMAND $<TARGET_FILE:itkgpurestoration-flow> --flow ${flow} --backend ${backend} "${cli_tv_input}"
          "${cli_flow_dir}/${flow}-${backend}.nrrd")
      set_tests_properties(itkgpurestoration-flow-${flow}-${backend} PROPERTIES
        FIXTURES_SETUP CliFlowRun-${flow}-${backend}
        PASS_REGULAR_EXPRESSION "flow \\((float|double)\\), Neumann, t = 1, [0-9]+ steps accepted, [0-9]+ rejected, error estimate of the last step [0-9.e+-]+ \\(tolerance 1.00e-05\\)")
    endforeach()
    add_test(NAME itkgpurestoration-flow-${flow}-backends-agree
      COMMAND $<TARGET_FILE:gpurTestData> compare "${cli_flow_dir}/${flow}-opencl.nrrd"
        "${cli_flow_dir}/${flow}-cpu.nrrd" "${cli_tv_input}" 1e-6 1e-5)
    set_tests_properties(itkgpurestoration-flow-${flow}-backends-agree PROPERTIES
      FIXTURES_REQUIRED "CliFlowRun-${flow}-cpu;CliFlowRun-${flow}-opencl")
  endforeach()
  # Mean-curvature flow to T = 0.25 on a 128^2 Shepp-Logan slice with noise 0.1 (PSNR 20.0 dB). With
  # --regularization 0.1 the graph of the [0, 1] image is steep at the edges, which then move slowly: measured
  # +4.17 dB, against +3.02 dB with the default 1 (close to linear diffusion at this contrast).
  add_test(NAME itkgpurestoration-flow-gain-data
    COMMAND $<TARGET_FILE:gpurTestData> phantom2d 128 0.1 3 "${cli_flow_dir}/truth.mha" "${cli_flow_dir}/noisy.mha")
  add_test(NAME itkgpurestoration-flow-gain-run
    COMMAND $<TARGET_FILE:itkgpurestoration-flow> --quiet --time 0.25 --regularization 0.1
      "${cli_flow_dir}/noisy.mha" "${cli_flow_dir}/smoothed.mha")
  add_test(NAME itkgpurestoration-flow-gain
    COMMAND $<TARGET_FILE:gpurTestData> psnr-gain "${cli_flow_dir}/noisy.mha" "${cli_flow_dir}/smoothed.mha"
      "${cli_flow_dir}/truth.mha" 3.5)
  set_tests_properties(itkgpurestoration-flow-gain-data PROPERTIES FIXTURES_SETUP CliFlowData)
  set_tests_properties(itkgpurestoration-flow-gain-run PROPERTIES FIXTURES_REQUIRED CliFlowData
    FIXTURES_SETUP CliFlowSmoothed)
  set_tests_properties(itkgpurestoration-flow-gain PROPERTIES FIXTURES_REQUIRED "CliFlowData;CliFlowSmoothed")

  function(cli_flow_expect_failure name message)
    set(output "${cli_flow_dir}/failure-${name}/out.nrrd")
    set(args ${ARGN} "${output}")
    string(REPLACE ";" "|" args "${args}")
    add_test(NAME itkgpurestoration-flow-fails-${name}
      COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-flow>" "-DARGS=${args}"
        "-DOUTPUT=${output}" "-DMESSAGE=${message}" -DPROGRAM=itkgpurestoration-flow
        -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
    set_tests_properties(itkgpurestoration-flow-fails-${name} PROPERTIES LABELS "cli;curvatureflow")
  endfunction()
  cli_flow_expect_failure(zero-time "--time needs a positive finite number" --time 0 "${cli_tv_input}")
  cli_flow_expect_failure(nan-tolerance "--tolerance needs a positive finite number" --tolerance nan "${cli_tv_input}")
  cli_flow_expect_failure(zero-regularization "--regularization needs a positive finite number" --regularization 0
    "${cli_tv_input}")
  cli_flow_expect_failure(negative-step "--initial-step needs a finite number >= 0" --initial-step -1
    "${cli_tv_input}")
  cli_flow_expect_failure(zero-steps "--max-steps needs an integer in" --max-steps 0 "${cli_tv_input}")
  cli_flow_expect_failure(bad-flow "--flow must be one of mean, willmore" --flow gauss "${cli_tv_input}")
  cli_flow_expect_failure(bad-boundary "--boundary must be one of neumann, dirichlet" --boundary periodic
    "${cli_tv_input}")
  # Too few steps for the time asked: a failure naming the time reached, not an output at an earlier time.
  cli_flow_expect_failure(step-budget "2 accepted steps reached t = [0-9.e-]+ of 1" --max-steps 2 --backend cpu
    "${cli_tv_input}")
  # The flows are 2D: a volume is refused before any work.
  cli_flow_expect_failure(volume "is a 3D image. the curvature flows of graphs are 2D" "${cli_dicom_dir}/volume.mha")
  set_tests_properties(itkgpurestoration-flow-fails-volume PROPERTIES FIXTURES_REQUIRED CliDicomData)
  cli_flow_expect_failure(missing-input "does not exist" "${cli_flow_dir}/no-such-input.mha")
  # The flow keeps the whole image on the device: no --device-memory-limit.
  cli_flow_expect_failure(memory-limit "unknown option '--device-memory-limit'" --device-memory-limit 64
    "${cli_tv_input}")
  set_tests_properties(itkgpurestoration-flow-mean-cpu itkgpurestoration-flow-mean-opencl
    itkgpurestoration-flow-willmore-cpu itkgpurestoration-flow-willmore-opencl
    itkgpurestoration-flow-mean-backends-agree itkgpurestoration-flow-willmore-backends-agree
    itkgpurestoration-flow-gain-data itkgpurestoration-flow-gain-run itkgpurestoration-flow-gain
    PROPERTIES LABELS "cli;curvatureflow")

  cli_expect_help(help itkgpurestoration-flow "^usage: itkgpurestoration-flow .*--flow mean\\|willmore"
    "--device-memory-limit" --help)
  if(Python3_Interpreter_FOUND)
    add_test(NAME itkgpurestoration-flow-xml
      COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/CheckSlicerXML.py"
        $<TARGET_FILE:itkgpurestoration-flow>)
    # Willmore flow to T = 1 takes 61 accepted steps here: a progress line per step (throttled), 20 required.
    add_test(NAME itkgpurestoration-flow-slicer-progress
      COMMAND ${cli_progress_check} --program itkgpurestoration-flow --min-progress 20 --
        $<TARGET_FILE:itkgpurestoration-flow> --flow willmore --backend cpu "${cli_tv_input}"
        "${cli_flow_dir}/progress-slicer.mha")
    set_tests_properties(itkgpurestoration-flow-xml itkgpurestoration-flow-slicer-progress PROPERTIES
      LABELS "cli;slicer;curvatureflow")
  endif()
endif()
