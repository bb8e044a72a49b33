# SPDX-License-Identifier: Apache-2.0
# Downstream package tests: install this build tree into a prefix, build projects
# against it with find_package, and run them. Catches broken install rules, package
# configuration and RPATHs, which the in-tree tests cannot see. Two projects:
# - the documentation's (docs/cpp.md, "Using the library from another project"): its blocks
#   "<!-- tested: downstream CMakeLists -->" and "<!-- tested: downstream app -->" are
#   written, as they stand, to CMakeLists.txt and app.cxx of a fresh source folder at
#   configure time (the documents are configure dependencies, ReadmeSnippets.cmake), and the
#   program is run on the README snippets' noisy phantom;
# - test/downstream: every installed public header, and the README's app.cxx, compiled
#   against failing stand-ins for the OpenCL headers, and a Poisson program.
# The steps are ordered by CTest fixtures, so `ctest -R DownstreamRun` runs the whole chain.
# Needs gpur_readme_blocks and the ReadmeInputs fixture of ReadmeSnippets.cmake.
set(downstream_prefix "${CMAKE_BINARY_DIR}/downstream-prefix")
set(downstream_build "${CMAKE_BINARY_DIR}/downstream-build")
set(downstream_readme_source "${CMAKE_BINARY_DIR}/downstream-readme")
set(downstream_readme_build "${CMAKE_BINARY_DIR}/downstream-readme-build")

gpur_readme_blocks("${readme}" downstream downstream_readme)
foreach(name CMakeLists app)
  if(NOT DEFINED downstream_readme_${name})
    message(FATAL_ERROR "docs/cpp.md: no block '<!-- tested: downstream ${name} -->' (the downstream project)")
  endif()
endforeach()
# Rewritten only when they change, so that a reconfigure does not rebuild them.
file(WRITE "${downstream_readme_source}/CMakeLists.txt.new" "${downstream_readme_CMakeLists}")
configure_file("${downstream_readme_source}/CMakeLists.txt.new" "${downstream_readme_source}/CMakeLists.txt" COPYONLY)
file(WRITE "${downstream_readme_source}/app.cxx.new" "${downstream_readme_app}")
configure_file("${downstream_readme_source}/app.cxx.new" "${downstream_readme_source}/app.cxx" COPYONLY)

# A fresh prefix each time: headers that are no longer installed must not linger. The README
# project's build folder goes too: it is configured afresh each time, as a user's would be.
add_test(NAME DownstreamCleanPrefix
  COMMAND ${CMAKE_COMMAND} -E rm -rf "${downstream_prefix}" "${downstream_readme_build}")
set_tests_properties(DownstreamCleanPrefix PROPERTIES FIXTURES_SETUP DownstreamClean)
add_test(NAME DownstreamInstall
  COMMAND ${CMAKE_COMMAND} --install "${CMAKE_BINARY_DIR}" --prefix "${downstream_prefix}" --config $<CONFIG>)
set_tests_properties(DownstreamInstall PROPERTIES FIXTURES_REQUIRED DownstreamClean FIXTURES_SETUP DownstreamPrefix)

# Same generator, compiler and ITK as this build, so the result means the same.
set(downstream_options -G "${CMAKE_GENERATOR}"
  "-DCMAKE_PREFIX_PATH=${downstream_prefix}"
  "-DCMAKE_BUILD_TYPE=$<CONFIG>"
  "-DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}"
  "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
  "-DITK_DIR=${ITK_DIR}")
add_test(NAME DownstreamConfigure
  COMMAND ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_SOURCE_DIR}/downstream" -B "${downstream_build}"
    ${downstream_options} "-DGPUR_README_APP=${downstream_readme_source}/app.cxx")
set_tests_properties(DownstreamConfigure PROPERTIES
  FIXTURES_REQUIRED DownstreamPrefix FIXTURES_SETUP DownstreamConfigured)

# The README's project (its build folder is emptied with the prefix).
add_test(NAME DownstreamReadmeConfigure
  COMMAND ${CMAKE_COMMAND} -S "${downstream_readme_source}" -B "${downstream_readme_build}" ${downstream_options})
set_tests_properties(DownstreamReadmeConfigure PROPERTIES
  FIXTURES_REQUIRED DownstreamPrefix FIXTURES_SETUP DownstreamReadmeConfigured)
add_test(NAME DownstreamReadmeBuild
  COMMAND ${CMAKE_COMMAND} --build "${downstream_readme_build}" --config $<CONFIG>)
set_tests_properties(DownstreamReadmeBuild PROPERTIES
  FIXTURES_REQUIRED "DownstreamPrefix;DownstreamReadmeConfigured" FIXTURES_SETUP DownstreamReadmeBuilt)
# Run as the README says, on the 48^3 noisy phantom of the README snippets (lambda 12: +6 dB).
add_test(NAME DownstreamRunReadme
  COMMAND ${CMAKE_COMMAND} "-DSHELL_LINE='${downstream_readme_build}/app' noisy.nrrd denoised.mha"
    "-DWORK=${CMAKE_BINARY_DIR}/downstream-readme-run" "-DINPUTS=${readme_dir}/inputs"
    "-DSTDOUT_REGEX=^(CPU|OpenCL: .+): [0-9]+ iterations$"
    "-DCHECK=$<TARGET_FILE:gpurTestData>|psnr-gain|noisy.nrrd|denoised.mha|truth.mha|5"
    -P "${CMAKE_CURRENT_SOURCE_DIR}/RunReadmeSnippet.cmake")
set_tests_properties(DownstreamRunReadme PROPERTIES
  FIXTURES_REQUIRED "DownstreamPrefix;DownstreamReadmeConfigured;DownstreamReadmeBuilt;ReadmeInputs")

add_test(NAME DownstreamBuild
  COMMAND ${CMAKE_COMMAND} --build "${downstream_build}" --config $<CONFIG>)
set_tests_properties(DownstreamBuild PROPERTIES
  FIXTURES_REQUIRED "DownstreamPrefix;DownstreamConfigured" FIXTURES_SETUP DownstreamBuilt)

add_test(NAME DownstreamRunPoisson COMMAND "${downstream_build}/poisson_downstream")
set_tests_properties(DownstreamRunPoisson PROPERTIES
  FIXTURES_REQUIRED "DownstreamPrefix;DownstreamConfigured;DownstreamBuilt")

# The installed bin/ holds the user tools (itkgpurestoration-*) only, no benchmark or demo.
add_test(NAME DownstreamInstalledBin
  COMMAND ${CMAKE_COMMAND} "-DBIN=${downstream_prefix}/${CMAKE_INSTALL_BINDIR}"
    "-DCMAKE_EXECUTABLE_SUFFIX=${CMAKE_EXECUTABLE_SUFFIX}" -P "${CMAKE_CURRENT_SOURCE_DIR}/CheckInstalledBin.cmake")
set_tests_properties(DownstreamInstalledBin PROPERTIES FIXTURES_REQUIRED DownstreamPrefix)

set_tests_properties(DownstreamCleanPrefix DownstreamInstall DownstreamConfigure DownstreamBuild DownstreamRunPoisson
  DownstreamReadmeConfigure DownstreamReadmeBuild DownstreamRunReadme DownstreamInstalledBin PROPERTIES LABELS downstream)
