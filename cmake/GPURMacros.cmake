# SPDX-License-Identifier: Apache-2.0
# Small CMake helpers of ITKGPURestoration. Debian's ITK does not ship ITK's
# module macros (ITKModuleExternal, CreateTestDriver, itk_add_test), so these
# provide the little we need for a standalone build.

set(GPUR_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/GPUREmbedKernels.cmake")

# gpur_embed_kernels(<target> <namespace> <header-name> <file.cl>...)
# Generates <binary-dir>/generated/<header-name> embedding the .cl files
# (regenerated when any of them changes) and adds it to <target>.
function(gpur_embed_kernels target namespace header)
  set(files ${ARGN})
  set(abs_files "")
  foreach(f IN LISTS files)
    get_filename_component(a "${f}" ABSOLUTE)
    list(APPEND abs_files "${a}")
  endforeach()
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/generated")
  set(out "${out_dir}/${header}")
  string(REPLACE ";" "|" file_arg "${abs_files}") # "|": a list separator that survives the command line
  add_custom_command(
    OUTPUT "${out}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${out}" "-DNAMESPACE=${namespace}" "-DFILES=${file_arg}" -P "${GPUR_EMBED_SCRIPT}"
    DEPENDS ${abs_files} "${GPUR_EMBED_SCRIPT}"
    COMMENT "Embedding OpenCL kernels into ${header}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
  target_include_directories(${target} PRIVATE "${out_dir}")
endfunction()

# gpur_warnings(<target>): the project's warning flags, applied to our code only.
function(gpur_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra)
  endif()
endfunction()

# gpur_add_gtest(<name> SOURCES <files> LIBS <targets> [ENV <k=v>...] [LABELS <l>...])
# One GoogleTest executable registered as one CTest test per TEST() (gtest_discover_tests
# is avoided: it runs every binary at build time, which is slow on 2 cores).
function(gpur_add_gtest name)
  cmake_parse_arguments(G "" "" "SOURCES;LIBS;ENV;LABELS" ${ARGN})
  add_executable(${name} ${G_SOURCES})
  target_link_libraries(${name} PRIVATE ${G_LIBS} GTest::gtest GTest::gtest_main)
  # test/: helpers shared by the modules' tests (gpurAutoTesting.h).
  target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/test")
  gpur_warnings(${name})
  add_test(NAME ${name} COMMAND ${name} --gtest_color=no)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${G_ENV}" LABELS "${G_LABELS}")
endfunction()
