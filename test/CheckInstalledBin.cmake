# SPDX-License-Identifier: Apache-2.0
# Checks that an installed bin/ holds the user tools only: every entry is named
# itkgpurestoration-* (benchmarks and demos stay in the build tree), and the device
# lister, installed in every configuration, is there.
#   cmake -DBIN=<prefix>/bin -P CheckInstalledBin.cmake
if(NOT IS_DIRECTORY "${BIN}")
  message(FATAL_ERROR "no installed bin/ folder at ${BIN}")
endif()
file(GLOB entries RELATIVE "${BIN}" "${BIN}/*")
set(unexpected "")
foreach(entry IN LISTS entries)
  if(NOT entry MATCHES "^itkgpurestoration-")
    list(APPEND unexpected "${entry}")
  endif()
endforeach()
if(unexpected)
  list(JOIN unexpected ", " unexpected)
  message(FATAL_ERROR "installed bin/ holds more than the user tools (itkgpurestoration-*): ${unexpected}")
endif()
if(NOT EXISTS "${BIN}/itkgpurestoration-devices${CMAKE_EXECUTABLE_SUFFIX}")
  message(FATAL_ERROR "installed bin/ lacks itkgpurestoration-devices (found: ${entries})")
endif()
list(JOIN entries ", " entries)
message(STATUS "installed bin/: ${entries}")
