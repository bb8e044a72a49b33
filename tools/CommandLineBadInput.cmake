# SPDX-License-Identifier: Apache-2.0
# The command-line tools' bad-input suite (labels badinput;cli): corrupt, truncated and
# unsupported inputs, full disks, interruptions and a broken kernel override. Each case
# asserts the exit code and the one-line reason, and that no output or temporary file is
# left (ExpectFailure.cmake, ExpectInterrupt.py). Included by CommandLineTools.cmake, whose
# variables (cli_tv_dir, cli_dicom_dir) and fixtures (CliDicomData) it uses.
set(cli_bad_dir "${cli_tv_dir}/badinput")
file(MAKE_DIRECTORY "${cli_bad_dir}")

# The rule that turns what the readers and writers print into failures (gpurToolComplaints.h).
gpur_add_gtest(gpurToolComplaintsTest SOURCES gpurToolComplaintsTest.cxx LIBS GPURCommandLineITK LABELS "badinput;cli")

# The inputs: a 64^3 noisy phantom (1 MiB of floats: larger than the 200 KiB disk below
# even compressed) and its damaged copies, with the DICOM series of (4) (gpurTestData
# bad-inputs; see test/gpurTestDataBadInputs.h for what each file is).
add_test(NAME itkgpurestoration-badinput-phantom
  COMMAND $<TARGET_FILE:gpurTestData> phantom 64 0.1 5 "${cli_bad_dir}/truth.mha" "${cli_bad_dir}/good.mha")
add_test(NAME itkgpurestoration-badinput-data
  COMMAND $<TARGET_FILE:gpurTestData> bad-inputs "${cli_bad_dir}/good.mha" "${cli_dicom_dir}/series" "${cli_bad_dir}")
set_tests_properties(itkgpurestoration-badinput-phantom PROPERTIES FIXTURES_SETUP CliBadInputPhantom)
set_tests_properties(itkgpurestoration-badinput-data PROPERTIES
  FIXTURES_REQUIRED "CliBadInputPhantom;CliDicomData" FIXTURES_SETUP CliBadInputData)
set_tests_properties(itkgpurestoration-badinput-phantom itkgpurestoration-badinput-data PROPERTIES
  LABELS "badinput;cli")

# cli_bad_input(<tool> <case> <message-regex> [TMPFS <size>] [OUTPUT <name>] <tool arguments>...):
# itkgpurestoration-<tool> must fail with one line matching the regex and leave nothing; IN/
# in the arguments stands for the bad-input folder, the output (out.mha unless OUTPUT is given)
# goes to a folder of the case's own (a tmpfs of <size> with TMPFS).
set(cli_bad_cases 0)
function(cli_bad_input tool case message)
  cmake_parse_arguments(B "" "TMPFS;OUTPUT" "" ${ARGN})
  if(NOT B_OUTPUT)
    set(B_OUTPUT out.mha)
  endif()
  set(output "${cli_bad_dir}/${tool}-${case}/${B_OUTPUT}")
  set(args ${B_UNPARSED_ARGUMENTS} "${output}")
  list(TRANSFORM args REPLACE "^IN/" "${cli_bad_dir}/")
  string(REPLACE ";" "|" args "${args}")
  set(name itkgpurestoration-${tool}-badinput-${case})
  set(extra -DONE_LINE=ON)
  if(B_TMPFS)
    set(extra -DTMPFS=${B_TMPFS}) # after computing: the progress line may come first
  endif()
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} "-DTOOL=$<TARGET_FILE:itkgpurestoration-${tool}>" "-DARGS=${args}" "-DOUTPUT=${output}"
      "-DMESSAGE=${message}" -DPROGRAM=itkgpurestoration-${tool} ${extra}
      -P "${CMAKE_CURRENT_SOURCE_DIR}/ExpectFailure.cmake")
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED CliBadInputData LABELS "badinput;cli"
    SKIP_REGULAR_EXPRESSION "SKIP: cannot mount a tmpfs")
  math(EXPR count "${cli_bad_cases} + 1")
  set(cli_bad_cases ${count} PARENT_SCOPE)
endfunction()

# Options that make each tool quick on the 64^3 phantom (the disk-full cases compute first).
set(cli_bad_options_tv --backend cpu --lambda 8 --iterations 2)
set(cli_bad_options_stv --backend cpu --lambda 5 --iterations 2)
set(cli_bad_options_poisson --backend cpu)
set(q "'[^']*") # a quoted path, up to the file name
foreach(tool tv stv poisson)
  set(o ${cli_bad_options_${tool}})
  # Truncated or damaged files that ITK 5.2 reads without failing (MetaIO and libtiff only print,
  # NIfTI not even that), an impossible header (no bad_alloc), an empty one.
  cli_bad_input(${tool} truncated-mha "${q}truncated.mha' is truncated or its header is wrong: the header describes 64 x 64 x 64 float pixels \\(1048576 bytes\\) but the file holds 1043576 bytes of pixel data$"
    ${o} IN/truncated.mha)
  cli_bad_input(${tool} corrupt-zlib "reading ${q}corrupt-zlib.mha' failed: Uncompress failed$" ${o} IN/corrupt-zlib.mha)
  cli_bad_input(${tool} huge-header "${q}huge-header.mha' is truncated or its header is wrong: the header describes 800 x 800 x 800 float pixels \\(2048000000 bytes\\) but the file holds [0-9]+ bytes of pixel data$"
    ${o} IN/huge-header.mha)
  cli_bad_input(${tool} zero-size "${q}zero-size.mha' is empty: its size is 0 x 32 x 32; an image needs at least one voxel along every axis$"
    ${o} IN/zero-size.mha)
  cli_bad_input(${tool} truncated-nii "${q}truncated.nii' is truncated or its header is wrong: the header describes 64 x 64 x 64 float pixels \\(1048576 bytes\\) but the file holds 1043576 bytes of pixel data$"
    ${o} IN/truncated.nii)
  cli_bad_input(${tool} corrupt-gzip "${q}corrupt.nii.gz' has damaged or truncated compressed data \\(zlib: .*\\)$"
    ${o} IN/corrupt.nii.gz)
  cli_bad_input(${tool} truncated-tiff "reading (the header of )?${q}truncated.tif' failed: TIFF" ${o} IN/truncated.tif)
  # Pixels the tools do not take: refused as the Python package refuses them (not collapsed to one channel).
  cli_bad_input(${tool} vector "${q}vector.mha' has vector pixels \\(3 components per pixel\\); only scalar \\(grayscale\\) images are supported: convert it to grayscale first"
    ${o} IN/vector.mha)
  cli_bad_input(${tool} rgb "${q}rgb.png' has RGB pixels \\(3 components per pixel\\); only scalar \\(grayscale\\) images are supported"
    ${o} IN/rgb.png)
  # DICOM series that ITK 5.2 reads silently wrong: a short slice (zeros), a damaged slice left out
  # (the volume one slice thinner, or with a gap), a missing slice.
  cli_bad_input(${tool} dicom-truncated "the DICOM file ${q}dicom-truncated/slice003.dcm' is truncated: its pixel data has 460 of the 960 bytes its header describes$"
    ${o} IN/dicom-truncated)
  cli_bad_input(${tool} dicom-garbled "${q}dicom-garbled/slice003.dcm' starts like a DICOM file but GDCM cannot parse it \\(damaged\\?\\)"
    ${o} IN/dicom-garbled)
  cli_bad_input(${tool} dicom-garbled-first "${q}dicom-garbled-first/slice000.dcm' starts like a DICOM file but GDCM cannot parse it"
    ${o} IN/dicom-garbled-first)
  cli_bad_input(${tool} dicom-missing "the DICOM series in ${q}dicom-missing' is incomplete: 1 slice is missing between 'slice002.dcm' and 'slice004.dcm' \\(5 mm apart, the other slices 2.5 mm\\)$"
    ${o} IN/dicom-missing)
  # A full disk (a 200 KiB tmpfs) for a single file, a compressed NIfTI and a header + data pair:
  # the writers' complaints (only printed by ITK 5.2's MetaImage and NIfTI writers) fail the run.
  foreach(format mha nii.gz mhd)
    string(REPLACE "." "-" suffix "${format}")
    cli_bad_input(${tool} disk-full-${suffix} "writing ${q}out.${format}' failed: .* \\(the file system holding ${q}' is full: [0-9]+ bytes available\\)$"
      TMPFS 200k OUTPUT out.${format} ${o} IN/good.mha)
  endforeach()
endforeach()
# The 2D-only L1-mean-curvature tool reads through the same reader (the files above are 3D, which it
# refuses for that before reading): a 2D RGB picture is refused as by the others.
if(TARGET itkgpurestoration-l1mc)
  cli_bad_input(l1mc rgb "${q}rgb.png' has RGB pixels \\(3 components per pixel\\); only scalar \\(grayscale\\) images are supported"
    --backend cpu --r0 0.005 --iterations 2 IN/rgb.png)
endif()
# The level-line tool (2D and 3D) reads through the same reader: a truncated volume and a 2D RGB picture.
if(TARGET itkgpurestoration-levellines)
  cli_bad_input(levellines truncated-mha "${q}truncated.mha' is truncated or its header is wrong: the header describes 64 x 64 x 64 float pixels \\(1048576 bytes\\) but the file holds 1043576 bytes of pixel data$"
    --backend cpu IN/truncated.mha)
  cli_bad_input(levellines rgb "${q}rgb.png' has RGB pixels \\(3 components per pixel\\); only scalar \\(grayscale\\) images are supported"
    --backend cpu IN/rgb.png)
endif()
# The 2D curvature-flow tool reads through the same reader (as float for mean curvature, as double for Willmore).
if(TARGET itkgpurestoration-flow)
  cli_bad_input(flow rgb "${q}rgb.png' has RGB pixels \\(3 components per pixel\\); only scalar \\(grayscale\\) images are supported"
    --backend cpu IN/rgb.png)
  cli_bad_input(flow rgb-willmore "${q}rgb.png' has RGB pixels \\(3 components per pixel\\); only scalar \\(grayscale\\) images are supported"
    --backend cpu --flow willmore IN/rgb.png)
endif()
# A damaged --variance goes through the same reader.
cli_bad_input(stv truncated-variance "${q}truncated.mha' is truncated or its header is wrong"
  --variance IN/truncated.mha ${cli_bad_options_stv} IN/good.mha)
# An output name no ITK format writes.
cli_bad_input(tv no-format "no ITK image format writes ${q}out.xyz' \\(use e.g. .nrrd, .mha, .nii.gz, .tif\\)$"
  OUTPUT out.xyz ${cli_bad_options_tv} IN/good.mha)

# ITKGPUR_KERNEL_DIR naming no directory fails on OpenCL with a line naming the variable and the
# path; a folder holding only tv_rof.cl runs, and says which files came from the built-in copies.
set(cli_bad_kernels "${cli_bad_dir}/kernels-tv-rof-only")
file(MAKE_DIRECTORY "${cli_bad_kernels}")
configure_file("${PROJECT_SOURCE_DIR}/Modules/TotalVariation/kernels/tv_rof.cl" "${cli_bad_kernels}/tv_rof.cl" COPYONLY)
cli_bad_input(tv kernel-dir "ITKGPUR_KERNEL_DIR is set to ${q}no-such-kernel-folder', which is not a readable directory"
  --backend opencl --iterations 2 --quiet IN/good.mha)
set_property(TEST itkgpurestoration-tv-badinput-kernel-dir APPEND PROPERTY ENVIRONMENT
  "ITKGPUR_KERNEL_DIR=${cli_bad_dir}/no-such-kernel-folder")
add_test(NAME itkgpurestoration-tv-badinput-kernel-file
  COMMAND $<TARGET_FILE:itkgpurestoration-tv> --backend opencl --lambda 8 --iterations 2 --quiet "${cli_bad_dir}/good.mha"
    "${cli_bad_dir}/kernel-file.mha")
set_tests_properties(itkgpurestoration-tv-badinput-kernel-file PROPERTIES FIXTURES_REQUIRED CliBadInputData
  ENVIRONMENT "ITKGPUR_KERNEL_DIR=${cli_bad_kernels}" LABELS "badinput;cli"
  PASS_REGULAR_EXPRESSION "ITKGPUR_KERNEL_DIR: no 'gpur_common.cl' in '[^']*kernels-tv-rof-only', using the built-in copy")
math(EXPR cli_bad_cases "${cli_bad_cases} + 1")

# SIGINT / SIGTERM / SIGHUP while computing and while writing: exit code 128 + the signal's
# number, "<tool>: interrupted by SIG..." and no file left (ExpectInterrupt.py). A 160^3 volume,
# so that writing it (compressed) lasts about a second.
if(Python3_Interpreter_FOUND)
  add_test(NAME itkgpurestoration-badinput-large
    COMMAND $<TARGET_FILE:gpurTestData> phantom 160 0.1 7 "${cli_bad_dir}/large-truth.mha" "${cli_bad_dir}/large.mha")
  set_tests_properties(itkgpurestoration-badinput-large PROPERTIES FIXTURES_SETUP CliBadInputLarge
    LABELS "badinput;cli")
  # cli_interrupt(<tool> <signal> <phase> <output-name> <tool arguments>...)
  function(cli_interrupt tool signal phase output_name)
    set(output "${cli_bad_dir}/${tool}-interrupt-${signal}-${phase}/${output_name}")
    set(name itkgpurestoration-${tool}-badinput-sig${signal}-${phase})
    string(TOLOWER "${name}" name)
    add_test(NAME ${name}
      COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/ExpectInterrupt.py" --program itkgpurestoration-${tool}
        --signal ${signal} --phase ${phase} --output "${output}" -- $<TARGET_FILE:itkgpurestoration-${tool}> ${ARGN}
        "${output}")
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "CliBadInputData;CliBadInputLarge"
      LABELS "badinput;cli")
    math(EXPR count "${cli_bad_cases} + 1")
    set(cli_bad_cases ${count} PARENT_SCOPE)
  endfunction()
  set(large "${cli_bad_dir}/large.mha")
  cli_interrupt(tv INT compute out.mha --backend cpu --lambda 8 --iterations 100000 --tolerance 0 "${cli_bad_dir}/good.mha")
  cli_interrupt(tv TERM compute out.mha --backend cpu --lambda 8 --iterations 100000 --tolerance 0 "${cli_bad_dir}/good.mha")
  cli_interrupt(tv INT write out.nii.gz --backend cpu --lambda 8 --iterations 1 --quiet "${large}")
  cli_interrupt(tv TERM write out.mha --backend cpu --lambda 8 --iterations 1 --quiet "${large}")
  cli_interrupt(tv HUP write out.mhd --backend cpu --lambda 8 --iterations 1 --quiet "${large}")
  cli_interrupt(stv TERM write out.nii.gz --backend cpu --lambda 5 --iterations 1 --quiet "${large}")
  cli_interrupt(poisson INT write out.nii.gz --backend cpu --quiet "${large}")
  if(TARGET itkgpurestoration-l1mc)
    # The 2D tool while computing (a tolerance no run meets; about 130 iterations per second here).
    cli_interrupt(l1mc INT compute out.mha --backend cpu --r0 0.005 --iterations 100000 --tolerance 1e-300
      "${cli_tv_input}")
  endif()
  if(TARGET itkgpurestoration-flow)
    # The curvature-flow tool between steps (a tolerance that keeps Willmore flow's steps far too short to finish).
    cli_interrupt(flow INT compute out.mha --backend cpu --flow willmore --tolerance 1e-14 "${cli_tv_input}")
  endif()
else()
  message(STATUS "python3 not found: the interruption tests of the bad-input suite are disabled")
endif()
message(STATUS "Command-line bad-input suite: ${cli_bad_cases} cases")
