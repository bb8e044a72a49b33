# SPDX-License-Identifier: Apache-2.0
# The C++ and shell snippets of README.md and the user guides docs/*.md, run as tests
# (the Python ones are run by wrapping/tests/test_readme.py). The documents stay the
# only copy: a fenced block is tested when the line before it is
# "<!-- tested: <language> <name> -->", and the blocks are extracted here at configure
# time (the documents are configure dependencies, so editing one re-extracts them).
# Block names are unique across the documents. The blocks marked "downstream" are the
# downstream project of docs/cpp.md, built against the installed package by Downstream.cmake.
#
# - cxx: the block's #include lines go to the top of a generated .cxx, the rest
#   becomes the body of main() (an exception prints its message and returns 1).
#   It is compiled against the library as readme_<name> and run by the test
#   readme-cxx-<name> in a folder holding the inputs below; each cxx block needs
#   an entry in the table of checks below.
# - sh: every command line is a test readme-sh-<name>-<k>, run by sh in a folder
#   holding the inputs, with "build/bin/" standing for this build's bin folder.
#   A line "... > FILE" must write a non-empty FILE (an .xml one: a Slicer
#   <executable>); any other line is "<program> [options] <input> <output>" and
#   its output must have a PSNR at least 3 dB above its input's (lambda 12 gives
#   +6.4 dB; the lines with default options choose lambda from the noise), unless
#   the block has its own check
#   readme_sh_<name>_check below (a gpurTestData command with INPUT and OUTPUT
#   standing for the line's last two words).
# Inputs (the fixture readme-inputs): noisy.nrrd and in.mha, a 48^3 Shepp-Logan
# phantom in [0, 1] with unit spacing plus noise of sigma 0.1 (PSNR 20 dB),
# truth.mha, the phantom without noise, and variance.nrrd, their noise variance
# (0.01 everywhere, for --variance); ct_hu.nrrd and truth_hu.mha, the same phantom in
# Hounsfield units (2000 v - 1000) at 0.7 mm with noise of 25 HU, and without; rhs.nrrd, the right-hand side f of a Poisson
# problem on a 47 x 40 x 24 grid (spacing 1 x 1.5 x 2.5, an oblique direction) with
# Dirichlet, Neumann, Dirichlet boundaries, and exact.mha, its solution u; slice.nrrd and
# truth2d.mha, a 64^2 Shepp-Logan slice with noise of sigma 0.1 and without (for the 2D-only
# L1-mean-curvature filter and tool).
file(GLOB gpur_guides LIST_DIRECTORIES false "${PROJECT_SOURCE_DIR}/docs/*.md")
list(SORT gpur_guides)
set(readme "${PROJECT_SOURCE_DIR}/README.md" ${gpur_guides})
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${readme})
set(readme_dir "${CMAKE_CURRENT_BINARY_DIR}/readme")
set(readme_runner "${CMAKE_CURRENT_SOURCE_DIR}/RunReadmeSnippet.cmake")

# Checks of the cxx blocks: the regular expression their stdout (stripped) must match, and the
# gpurTestData command ("|"-separated) run on their output afterwards.
# tv_filter: converged (gap <= the default tolerance 1e-4) and a better PSNR.
# (std::cout writes 1e-4 as 0.0001 and smaller values as 9.5e-05.)
set(readme_cxx_tv_filter_stdout
  "^(CPU|OpenCL: .+): [0-9]+ iterations, gap ([0-9](\\.[0-9]+)?e-(0[5-9]|[1-9][0-9])|0\\.0001|0)$")
set(readme_cxx_tv_filter_check "psnr-gain|noisy.nrrd|denoised.mha|truth.mha|5")
# quickstart (README.md): the same program as tv_filter, written with itk::ReadImage / itk::WriteImage.
set(readme_cxx_quickstart_stdout "${readme_cxx_tv_filter_stdout}")
set(readme_cxx_quickstart_check "${readme_cxx_tv_filter_check}")
# statistical_tv: the automatic lambda met the calibrated discrepancy target (0.9 for this white noise,
# +- 2 %) and the PSNR rose.
set(readme_cxx_statistical_tv_stdout "^(CPU|OpenCL: .+): lambda [0-9.]+, discrepancy (0\\.8[89]|0\\.9[0-2])[0-9]*$")
set(readme_cxx_statistical_tv_check "psnr-gain|noisy.nrrd|ct_denoised.mha|truth.mha|3")
# statistical_tvgd: TV-GD stopped at the first iteration past the discrepancy target, and a better PSNR.
set(readme_cxx_statistical_tvgd_stdout
  "^(CPU|OpenCL: .+): [0-9]+ iterations, \\|\\|u - f\\|\\| [0-9.]+ reached [0-9.]+$")
set(readme_cxx_statistical_tvgd_check "psnr-gain|noisy.nrrd|tvgd.mha|truth.mha|3")
# tv_streaming: 4 slabs of 12 of the 48 slices, the last one solved with the 21-slice halo
# below it (33 slices), 20 iterations, and a better PSNR.
set(readme_cxx_tv_streaming_stdout "^last slab solved on \\[48, 48, 33\\], 20 iterations$")
set(readme_cxx_tv_streaming_check "psnr-gain|in.mha|denoised.mha|truth.mha|5")
# tv_hu (docs/total-variation.md): the defaults on the phantom in HU (25 HU of noise, 0.7 mm): lambda from
# the estimated noise (about 25 HU) on converged solves, and a better PSNR (measured +7.3 dB).
set(readme_cxx_tv_hu_stdout "^lambda 0\\.[0-9]+ for sigma 2[3-7][0-9.]* \\(estimated\\), [2-9] solves, converged: yes$")
set(readme_cxx_tv_hu_check "psnr-gain|ct_hu.nrrd|ct_denoised.mha|truth_hu.mha|5")
# poisson_filter: the solution of rhs.nrrd within the discretisation error of exact.mha
# (measured 6.9e-4 of its range) and on its grid, with its checked residual printed.
# l1mc_filter: r0 from sigma 0.1, the IterationEvents counted, converged, a better PSNR (+6.5 dB measured).
set(readme_cxx_l1mc_filter_stdout
  "^(CPU|OpenCL: .+): r0 0\\.00[0-9]+, [0-9]+ iterations, [0-9]+ events, converged: yes$")
set(readme_cxx_l1mc_filter_check "psnr-gain|slice.nrrd|denoised.mha|truth2d.mha|5")
# levellines_filter (docs/level-lines.md): the paper's defaults on the 2D slice, sigma estimated (about 0.1), and a
# better PSNR (measured +2.4 dB: the 64^2 phantom's details are a few pixels wide, its lines short).
set(readme_cxx_levellines_filter_stdout "^(CPU|OpenCL: .+): sigma 0\\.[0-9]+, mean length [0-9.]+ pixels$")
set(readme_cxx_levellines_filter_check "psnr-gain|slice.nrrd|denoised.mha|truth2d.mha|2")
# sparse_filter (docs/sparse-recovery.md): 30 stars recovered from half their circulant measurements, converged,
# within 1e-3 of their range (the l1 bias of relative alpha 1e-4; the filter tests measure 1.7e-4).
set(readme_cxx_sparse_filter_stdout "^(CPU|OpenCL: .+): [0-9]+ iterations, converged: yes$")
set(readme_cxx_sparse_filter_check "compare|recovered.mha|stars.mha|stars.mha|1e-6|1e-3")
# graph_flow_filter (docs/curvature-flow.md): both flows reach their final time on the 2D slice, and the
# mean-curvature flow's output has a better PSNR (measured +1.99 dB; the 64^2 phantom's details are a few pixels
# wide, so any smoothing of it gains little).
set(readme_cxx_graph_flow_filter_stdout
  "^(CPU|OpenCL: .+): mean curvature t = 0\\.1, [0-9]+ steps, [0-9]+ rejected.(CPU|OpenCL: .+): Willmore t = 0\\.2, [0-9]+ steps, [0-9]+ rejected$")
set(readme_cxx_graph_flow_filter_check "psnr-gain|slice.nrrd|smoothed.mha|truth2d.mha|1.5")
# cli_flow: the 2D slice against its truth (measured +1.99 dB mean curvature, +2.12 dB Willmore).
set(readme_sh_cli_flow_check "psnr-gain|INPUT|OUTPUT|truth2d.mha|1.5")
# cli_l1mc: the 2D slice against its truth (the default check reads the 3D phantom's).
set(readme_sh_cli_l1mc_check "psnr-gain|INPUT|OUTPUT|truth2d.mha|5")
set(readme_cxx_poisson_filter_stdout
  "^(CPU|OpenCL: .+): plan [0-9.e-]+ s, solve [0-9.e-]+ s, relative residual [0-9.e+-]+ <= [0-9.e+-]+$")
set(readme_cxx_poisson_filter_check "compare|u.mha|exact.mha|rhs.nrrd|1e-6|1.5e-3")
# cli_hu (docs/total-variation.md): the phantom in HU, against its truth (measured +7.3 dB with the
# automatic lambda, +4.7 dB with the fixed 1/(sigma h) = 0.06, which smooths this sharp phantom too little).
set(readme_sh_cli_hu_check "psnr-gain|INPUT|OUTPUT|truth_hu.mha|4")
# Shell blocks whose lines are not denoising: the check of each solving line (see above).
# cli_poisson: as poisson_filter (NIfTI stores the geometry in single precision).
set(readme_sh_cli_poisson_check "compare|OUTPUT|exact.mha|INPUT|1e-4|1.5e-3")

# gpur_readme_blocks(<markdown-files> <language> <prefix>): sets <prefix>_NAMES to the
# names of the blocks marked "<!-- tested: <language> <name> -->" in the files and
# <prefix>_<name> to each block's text (without the fences). A marker must be followed
# by a fence; a name is unique across the files.
function(gpur_readme_blocks files language prefix)
  set(marker "\n<!-- tested: ${language} ") # at the start of a line
  string(LENGTH "${marker}" marker_length)
  set(names "")
  foreach(file IN LISTS files)
    file(READ "${file}" text)
    while(TRUE)
      string(FIND "${text}" "${marker}" at)
      if(at EQUAL -1)
        break()
      endif()
      math(EXPR at "${at} + ${marker_length}")
      string(SUBSTRING "${text}" ${at} -1 text)
      if(NOT text MATCHES "^([A-Za-z0-9_]+) -->\n```[a-z+]*\n")
        string(SUBSTRING "${text}" 0 60 context)
        message(FATAL_ERROR "${file}: a '<!-- tested: ${language} <name> -->' line must come right before a fenced block: "
          "'${context}'")
      endif()
      set(name "${CMAKE_MATCH_1}")
      if(name IN_LIST names)
        message(FATAL_ERROR "${file}: two blocks are named '${language} ${name}'")
      endif()
      string(LENGTH "${CMAKE_MATCH_0}" header_length)
      string(SUBSTRING "${text}" ${header_length} -1 text)
      string(FIND "${text}" "\n```" end)
      if(end EQUAL -1)
        message(FATAL_ERROR "${file}: the block '${language} ${name}' is not closed")
      endif()
      math(EXPR end "${end} + 1")
      string(SUBSTRING "${text}" 0 ${end} block)
      set(${prefix}_${name} "${block}" PARENT_SCOPE)
      list(APPEND names "${name}")
      string(SUBSTRING "${text}" ${end} -1 text)
    endwhile()
  endforeach()
  set(${prefix}_NAMES "${names}" PARENT_SCOPE)
endfunction()

# Every marker (at the start of a line) names a language someone tests.
foreach(document IN LISTS readme)
  file(READ "${document}" readme_text)
  string(REGEX MATCHALL "\n<!-- tested: [^ \n]*" readme_markers "${readme_text}")
  foreach(m IN LISTS readme_markers)
    string(STRIP "${m}" m)
    if(NOT m MATCHES "tested: (cxx|sh|python|downstream)$")
      message(FATAL_ERROR "${document}: '${m}': the tested languages are cxx, sh, python and downstream")
    endif()
  endforeach()
endforeach()

add_test(NAME readme-inputs
  COMMAND $<TARGET_FILE:gpurTestData> phantom 48 0.1 7 "${readme_dir}/inputs/truth.mha"
    "${readme_dir}/inputs/noisy.nrrd" "${readme_dir}/inputs/in.mha")
set_tests_properties(readme-inputs PROPERTIES FIXTURES_SETUP ReadmeInputs LABELS readme)
add_test(NAME readme-inputs-variance
  COMMAND $<TARGET_FILE:gpurTestData> variance "${readme_dir}/inputs/noisy.nrrd" 0.1
    "${readme_dir}/inputs/variance.nrrd")
set_tests_properties(readme-inputs-variance PROPERTIES DEPENDS readme-inputs FIXTURES_SETUP ReadmeInputs
  LABELS readme)
add_test(NAME readme-inputs-hounsfield
  COMMAND $<TARGET_FILE:gpurTestData> hu-phantom 48 25 0.7 7 "${readme_dir}/inputs/truth_hu.mha"
    "${readme_dir}/inputs/ct_hu.nrrd")
set_tests_properties(readme-inputs-hounsfield PROPERTIES FIXTURES_SETUP ReadmeInputs LABELS readme)
add_test(NAME readme-inputs-poisson
  COMMAND $<TARGET_FILE:gpurTestData> poisson dirichlet,neumann,dirichlet 0 47,40,24 1,1.5,2.5
    "${readme_dir}/inputs/rhs.nrrd" "${readme_dir}/inputs/exact.mha")
set_tests_properties(readme-inputs-poisson PROPERTIES FIXTURES_SETUP ReadmeInputs LABELS readme)
add_test(NAME readme-inputs-slice
  COMMAND $<TARGET_FILE:gpurTestData> phantom2d 64 0.1 3 "${readme_dir}/inputs/truth2d.mha"
    "${readme_dir}/inputs/slice.nrrd")
set_tests_properties(readme-inputs-slice PROPERTIES FIXTURES_SETUP ReadmeInputs LABELS readme)
file(MAKE_DIRECTORY "${readme_dir}/inputs")

gpur_readme_blocks("${readme}" cxx readme_cxx)
foreach(name IN LISTS readme_cxx_NAMES)
  if(NOT DEFINED readme_cxx_${name}_check)
    message(FATAL_ERROR "documentation block 'cxx ${name}': add its checks to ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  string(REGEX MATCHALL "#include[^\n]*\n" includes "${readme_cxx_${name}}")
  string(REGEX REPLACE "#include[^\n]*\n" "" body "${readme_cxx_${name}}")
  string(REGEX REPLACE "^\n+" "" body "${body}")
  string(REGEX REPLACE "([^\n]+)" "    \\1" body "${body}")
  string(REPLACE ";" "" includes "${includes}")
  set(source "// Generated from the documentation (block 'cxx ${name}') by test/ReadmeSnippets.cmake: edit the .md file.\n")
  string(APPEND source "${includes}\n#include <exception>\n#include <iostream>\n\nint\nmain()\n{\n  try\n  {\n"
    "${body}  }\n  catch (const std::exception & e)\n  {\n    std::cerr << e.what() << \"\\n\";\n    return 1;\n  }\n"
    "  return 0;\n}\n")
  # Rewritten only when it changes, so that a reconfigure does not rebuild it.
  file(WRITE "${readme_dir}/readme_${name}.cxx.new" "${source}")
  configure_file("${readme_dir}/readme_${name}.cxx.new" "${readme_dir}/readme_${name}.cxx" COPYONLY)
  add_executable(readme_${name} "${readme_dir}/readme_${name}.cxx")
  target_link_libraries(readme_${name} PRIVATE ITKGPURestorationTotalVariation ITKGPURestorationPSCR
    ITKGPURestorationL1MeanCurvature ITKGPURestorationLevelLines ITKGPURestorationSparseRecovery
    ITKGPURestorationCurvatureFlow ${ITK_LIBRARIES})
  gpur_warnings(readme_${name})
  add_test(NAME readme-cxx-${name}
    COMMAND ${CMAKE_COMMAND} "-DPROGRAM=$<TARGET_FILE:readme_${name}>" "-DWORK=${readme_dir}/cxx-${name}"
      "-DINPUTS=${readme_dir}/inputs" "-DSTDOUT_REGEX=${readme_cxx_${name}_stdout}"
      "-DCHECK=$<TARGET_FILE:gpurTestData>|${readme_cxx_${name}_check}" -P "${readme_runner}")
  set_tests_properties(readme-cxx-${name} PROPERTIES FIXTURES_REQUIRED ReadmeInputs LABELS readme)
endforeach()

gpur_readme_blocks("${readme}" sh readme_sh)
foreach(name IN LISTS readme_sh_NAMES)
  set(text "${readme_sh_${name}}")
  set(k 0)
  while(NOT text STREQUAL "")
    string(FIND "${text}" "\n" end)
    string(SUBSTRING "${text}" 0 ${end} line)
    math(EXPR end "${end} + 1")
    string(SUBSTRING "${text}" ${end} -1 text)
    string(REGEX REPLACE "[ \t]+#.*$" "" line "${line}") # a trailing comment
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    endif()
    math(EXPR k "${k} + 1")
    set(program "")
    if(line MATCHES "^build/bin/([A-Za-z0-9_-]+)")
      set(program "${CMAKE_MATCH_1}")
    endif()
    if(NOT TARGET "${program}")
      message(FATAL_ERROR "documentation block 'sh ${name}': '${line}' does not run a program of build/bin")
    endif()
    string(REGEX REPLACE "^build/bin/" "$<TARGET_FILE_DIR:${program}>/" command "${line}")
    set(checks "")
    if(line MATCHES ">[ \t]*([^ \t]+)$")
      set(checks "-DFILE=${CMAKE_MATCH_1}")
      if(CMAKE_MATCH_1 MATCHES "\\.xml$")
        list(APPEND checks "-DFILE_REGEX=^<\\?xml.*<executable>.*</executable>")
      endif()
    else()
      separate_arguments(words UNIX_COMMAND "${line}")
      list(GET words -2 input)
      list(GET words -1 output)
      if(DEFINED readme_sh_${name}_check)
        set(check "${readme_sh_${name}_check}")
        string(REPLACE "INPUT" "${input}" check "${check}")
        string(REPLACE "OUTPUT" "${output}" check "${check}")
        list(APPEND checks "-DCHECK=$<TARGET_FILE:gpurTestData>|${check}")
      else()
        list(APPEND checks "-DCHECK=$<TARGET_FILE:gpurTestData>|psnr-gain|${input}|${output}|truth.mha|3")
      endif()
    endif()
    add_test(NAME readme-sh-${name}-${k}
      COMMAND ${CMAKE_COMMAND} "-DSHELL_LINE=${command}" "-DWORK=${readme_dir}/sh-${name}-${k}"
        "-DINPUTS=${readme_dir}/inputs" ${checks} -P "${readme_runner}")
    set_tests_properties(readme-sh-${name}-${k} PROPERTIES FIXTURES_REQUIRED ReadmeInputs LABELS readme)
  endwhile()
endforeach()
