# SPDX-License-Identifier: Apache-2.0
# cmake -DTOOL=<program> -DARGS=<a|b|c> -DMATCH=<regex> [-DNOT_MATCH=<regex>] -P ExpectHelp.cmake
# Runs TOOL with ARGS ("|"-separated, e.g. --help) and fails unless it exits with 0,
# prints nothing on stderr, and its stdout matches MATCH (e.g. the usage line) and,
# when given, does not match NOT_MATCH (e.g. an option the tool must not advertise).
foreach(v TOOL ARGS MATCH)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "ExpectHelp.cmake: -D${v}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${TOOL}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "exit code: ${rc}\nstdout:\n${out}\nstderr: ${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "expected exit code 0")
endif()
if(NOT err STREQUAL "")
  message(FATAL_ERROR "expected nothing on stderr")
endif()
if(NOT out MATCHES "${MATCH}")
  message(FATAL_ERROR "expected stdout matching '${MATCH}'")
endif()
if(DEFINED NOT_MATCH AND out MATCHES "${NOT_MATCH}")
  message(FATAL_ERROR "stdout must not match '${NOT_MATCH}'")
endif()
