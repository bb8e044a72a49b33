# SPDX-License-Identifier: Apache-2.0
# Downstream package test: install this build tree into a prefix, build the
# small project in test/downstream against it with find_package, and run it.
# Catches broken install rules, package configuration and RPATHs, which the
# in-tree tests cannot see. The steps are ordered by CTest fixtures, so
# `ctest -R DownstreamRun` runs the whole chain.
set(downstream_prefix "${CMAKE_BINARY_DIR}/downstream-prefix")
set(downstream_build "${CMAKE_BINARY_DIR}/downstream-build")

# A fresh prefix each time: headers that are no longer installed must not linger.
add_test(NAME DownstreamCleanPrefix COMMAND ${CMAKE_COMMAND} -E rm -rf "${downstream_prefix}")
set_tests_properties(DownstreamCleanPrefix PROPERTIES FIXTURES_SETUP DownstreamClean)
add_test(NAME DownstreamInstall
  COMMAND ${CMAKE_COMMAND} --install "${CMAKE_BINARY_DIR}" --prefix "${downstream_prefix}" --config $<CONFIG>)
set_tests_properties(DownstreamInstall PROPERTIES FIXTURES_REQUIRED DownstreamClean FIXTURES_SETUP DownstreamPrefix)

# Same generator, compiler and ITK as this build, so the result means the same.
add_test(NAME DownstreamConfigure
  COMMAND ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_SOURCE_DIR}/downstream" -B "${downstream_build}"
    -G "${CMAKE_GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${downstream_prefix}"
    "-DCMAKE_BUILD_TYPE=$<CONFIG>"
    "-DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}"
    "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
    "-DITK_DIR=${ITK_DIR}")
set_tests_properties(DownstreamConfigure PROPERTIES
  FIXTURES_REQUIRED DownstreamPrefix FIXTURES_SETUP DownstreamConfigured)

add_test(NAME DownstreamBuild
  COMMAND ${CMAKE_COMMAND} --build "${downstream_build}" --config $<CONFIG>)
set_tests_properties(DownstreamBuild PROPERTIES
  FIXTURES_REQUIRED "DownstreamPrefix;DownstreamConfigured" FIXTURES_SETUP DownstreamBuilt)

add_test(NAME DownstreamRun COMMAND "${downstream_build}/tv_downstream")
add_test(NAME DownstreamRunPoisson COMMAND "${downstream_build}/poisson_downstream")
set_tests_properties(DownstreamRun DownstreamRunPoisson PROPERTIES
  FIXTURES_REQUIRED "DownstreamPrefix;DownstreamConfigured;DownstreamBuilt")

# The installed bin/ holds the user tools (itkgpurestoration-*) only, no benchmark or demo.
add_test(NAME DownstreamInstalledBin
  COMMAND ${CMAKE_COMMAND} "-DBIN=${downstream_prefix}/${CMAKE_INSTALL_BINDIR}"
    "-DCMAKE_EXECUTABLE_SUFFIX=${CMAKE_EXECUTABLE_SUFFIX}" -P "${CMAKE_CURRENT_SOURCE_DIR}/CheckInstalledBin.cmake")
set_tests_properties(DownstreamInstalledBin PROPERTIES FIXTURES_REQUIRED DownstreamPrefix)

set_tests_properties(DownstreamCleanPrefix DownstreamInstall DownstreamConfigure DownstreamBuild DownstreamRun DownstreamRunPoisson
  DownstreamInstalledBin PROPERTIES LABELS downstream)
