# SPDX-License-Identifier: Apache-2.0
# cmake -DTOOL=<program> -DARGS=<a|b|c> -DOUTPUT=<file> -DMESSAGE=<regex> [-DPROGRAM=<name>] -P ExpectWarning.cmake
# Runs TOOL with ARGS ("|"-separated) and fails unless it exits with 0, writes
# OUTPUT, and prints a stderr line "<PROGRAM>: warning: <text>" (PROGRAM:
# itkgpurestoration-tv unless given) whose
# text matches MESSAGE (a run that did what was asked but whose result the user
# must be told about, e.g. not converged within the iteration budget).
foreach(v TOOL ARGS OUTPUT MESSAGE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "ExpectWarning.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT DEFINED PROGRAM)
  set(PROGRAM itkgpurestoration-tv)
endif()
string(REPLACE "|" ";" args "${ARGS}")
file(REMOVE "${OUTPUT}")
execute_process(COMMAND "${TOOL}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "exit code: ${rc}\nstderr: ${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "expected exit code 0")
endif()
if(NOT err MATCHES "(^|\n)${PROGRAM}: warning: ${MESSAGE}")
  message(FATAL_ERROR "expected a stderr line '${PROGRAM}: warning: ' matching '${MESSAGE}'")
endif()
if(NOT EXISTS "${OUTPUT}")
  message(FATAL_ERROR "no output ${OUTPUT}")
endif()
