# SPDX-License-Identifier: Apache-2.0
# Script mode (the test ItkModuleDepends): checks that each itk-module.cmake says what
# the build really does.
#   cmake -DLINKS=<build>/GPURItkModuleLinks.cmake [-DREPLACE=<folder> -DREPLACEMENT=<file>]
#         -P GPURItkModuleCheck.cmake
# LINKS (written at configure time by gpur_add_itk_module_check, cmake/GPURModule.cmake)
# lists, for each folder with an itk-module.cmake, its libraries and test programs and
# what each links. For every module:
# - DEPENDS (with PRIVATE_DEPENDS) must be exactly the modules its libraries link
#   directly: a library of another of our modules counts as that module (GPURCore and
#   ITKGPURestoration as ITKGPURestoration), an ITK library as the ITK module that owns
#   it; other libraries (OpenCL, Threads) are not ITK modules and are only listed.
# - TEST_DEPENDS names ITKGoogleTest exactly when its tests link GoogleTest (ITK's
#   module of it), and every other of our modules its tests link. Its other entries (image IO for the tests' files, ITKTestKernel for
#   itkTestDriver) are not checked: the IO libraries a test links are all those of the
#   build's find_package(ITK) (ITK's IO factory registration asks for every one).
# - COMPILE_DEPENDS is not checked (header-only modules leave no trace in the links).
# REPLACE/REPLACEMENT read another file in place of <folder>/itk-module.cmake (the
# test ItkModuleDependsDetectsMismatch: the check must see a wrong DEPENDS).
cmake_minimum_required(VERSION 3.16)
include("${LINKS}")

# itk_module(<name> DEPENDS ... ): what ITK's module macro would receive, kept here.
macro(itk_module name)
  cmake_parse_arguments(_m "EXCLUDE_FROM_DEFAULT;ENABLE_SHARED"
    "DESCRIPTION" "DEPENDS;PRIVATE_DEPENDS;COMPILE_DEPENDS;TEST_DEPENDS;FACTORY_NAMES" ${ARGN})
  set(module_name "${name}")
  set(module_depends ${_m_DEPENDS} ${_m_PRIVATE_DEPENDS})
  set(module_test_depends ${_m_TEST_DEPENDS})
endmacro()

function(read_module file prefix)
  set(module_name "")
  include("${file}")
  if(module_name STREQUAL "")
    message(FATAL_ERROR "${file}: no itk_module() call")
  endif()
  set(${prefix}_name "${module_name}" PARENT_SCOPE)
  set(${prefix}_depends "${module_depends}" PARENT_SCOPE)
  set(${prefix}_test_depends "${module_test_depends}" PARENT_SCOPE)
endfunction()

# Our module of each of our libraries.
set(index 0)
foreach(folder IN LISTS GPUR_FOLDERS)
  set(file "${folder}/itk-module.cmake")
  if(DEFINED REPLACE AND folder STREQUAL REPLACE)
    set(file "${REPLACEMENT}")
  endif()
  read_module("${file}" m${index})
  set(m${index}_file "${folder}/itk-module.cmake")
  foreach(library IN LISTS GPUR_LIBRARIES_${index})
    set(owner_${library} "${m${index}_name}")
  endforeach()
  list(APPEND owners "${m${index}_name}")
  math(EXPR index "${index} + 1")
endforeach()
math(EXPR last "${index} - 1")

# The libraries a target names in its link lists, without generator-expression wrappers
# ($<LINK_ONLY:x>, $<BUILD_INTERFACE:x>) and CMake's directory markers (::@...).
function(linked_names target out)
  string(REPLACE "|" ";" links "${GPUR_LINKS_${target}}")
  set(names "")
  foreach(link IN LISTS links)
    string(REGEX REPLACE "^\\$<(LINK_ONLY|BUILD_INTERFACE):(.*)>$" "\\2" link "${link}")
    if(link MATCHES "^::@" OR link MATCHES "^\\$<INSTALL_INTERFACE:")
      continue()
    endif()
    list(APPEND names "${link}")
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

set(failures "")
foreach(i RANGE ${last})
  set(name "${m${i}_name}")
  set(linked "")
  set(external "")
  foreach(library IN LISTS GPUR_LIBRARIES_${i})
    linked_names(${library} names)
    foreach(link IN LISTS names)
      if(DEFINED owner_${link})
        if(NOT owner_${link} STREQUAL name)
          list(APPEND linked "${owner_${link}}")
        endif()
      elseif(DEFINED GPUR_ITK_OWNER_${link})
        list(APPEND linked "${GPUR_ITK_OWNER_${link}}")
      else()
        list(APPEND external "${link}")
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES linked)
  list(REMOVE_DUPLICATES external)
  set(missing "${linked}")
  set(extra "${m${i}_depends}")
  if(m${i}_depends)
    list(REMOVE_ITEM missing ${m${i}_depends})
  endif()
  if(linked)
    list(REMOVE_ITEM extra ${linked})
  endif()
  string(REPLACE ";" ", " linked_text "${linked}")
  foreach(module IN LISTS missing)
    list(APPEND failures "${m${i}_file}: ${name} DEPENDS lacks ${module}, which its libraries link (they link: ${linked_text})")
  endforeach()
  foreach(module IN LISTS extra)
    list(APPEND failures "${m${i}_file}: ${name} DEPENDS declares ${module}, which no library of the module links (they link: ${linked_text})")
  endforeach()

  set(gtest FALSE)
  foreach(test IN LISTS GPUR_TESTS_${i})
    linked_names(${test} names)
    if(names MATCHES "(^|;)GTest::")
      set(gtest TRUE)
    endif()
    # Another of our modules that a test links (TotalVariation's tests measure with Evaluation's metrics).
    foreach(link IN LISTS names)
      if(DEFINED owner_${link} AND NOT owner_${link} STREQUAL name AND NOT owner_${link} IN_LIST m${i}_depends
         AND NOT owner_${link} IN_LIST m${i}_test_depends AND NOT DEFINED lacking_${owner_${link}})
        set(lacking_${owner_${link}} TRUE)
        list(APPEND failures "${m${i}_file}: ${name} TEST_DEPENDS lacks ${owner_${link}}, which its test ${test} links")
      endif()
    endforeach()
  endforeach()
  foreach(link IN LISTS owners)
    unset(lacking_${link})
  endforeach()
  if("ITKGoogleTest" IN_LIST m${i}_test_depends AND NOT gtest)
    list(APPEND failures "${m${i}_file}: ${name} TEST_DEPENDS declares ITKGoogleTest, but no test of the module uses GoogleTest")
  elseif(gtest AND NOT "ITKGoogleTest" IN_LIST m${i}_test_depends)
    list(APPEND failures "${m${i}_file}: ${name} TEST_DEPENDS lacks ITKGoogleTest, which its tests use")
  endif()
  string(REPLACE ";" ", " external_text "${external}")
  if(external_text STREQUAL "")
    set(external_text "none")
  endif()
  message(STATUS "${name}: DEPENDS ${linked_text}; not ITK modules: ${external_text}")
endforeach()

if(failures)
  string(REPLACE ";" "\n  " failures "${failures}")
  message(FATAL_ERROR "itk-module.cmake does not match the build:\n  ${failures}")
endif()
