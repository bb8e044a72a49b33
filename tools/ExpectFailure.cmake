# SPDX-License-Identifier: Apache-2.0
# cmake -DTOOL=<program> -DARGS=<a|b|c> -DOUTPUT=<file> -DMESSAGE=<regex> [-DPROGRAM=<name>] [-DONE_LINE=ON]
#       [-DTMPFS=<size>] -P ExpectFailure.cmake
# Runs TOOL with ARGS ("|"-separated) and fails unless it exits non-zero with
# a last stderr line "<PROGRAM>: <reason>" (PROGRAM: itkgpurestoration-tv unless
# given) matching MESSAGE (a progress bar may come before it), and leaves neither OUTPUT nor a
# temporary file of OUTPUT (the tools' <stem>.partial-*, the benchmarks' <name>.partial-*) in
# OUTPUT's directory or its parent (only OUTPUT's own: other tests write into the parent at the
# same time). With -DONE_LINE=ON that
# line must be all of stderr (for failures before any progress is shown).
# With -DTMPFS=<size> (e.g. 200k) OUTPUT's directory is a tmpfs of that size, mounted for the run
# (a full disk) and unmounted after it, and must be left empty; where mounting is not allowed the
# script prints "SKIP: cannot mount a tmpfs" (the test's SKIP_REGULAR_EXPRESSION) and returns.
foreach(v TOOL ARGS OUTPUT MESSAGE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "ExpectFailure.cmake: -D${v}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" args "${ARGS}")
get_filename_component(dir "${OUTPUT}" DIRECTORY)
get_filename_component(parent "${dir}" DIRECTORY)
get_filename_component(stem "${OUTPUT}" NAME_WE)
get_filename_component(name "${OUTPUT}" NAME)
if(TMPFS)
  # A mount left by an interrupted earlier run would hide the folder's contents.
  execute_process(COMMAND umount "${dir}" RESULT_VARIABLE ignored OUTPUT_QUIET ERROR_QUIET)
endif()
file(REMOVE_RECURSE "${dir}")
if(EXISTS "${parent}")
  file(GLOB leftovers "${parent}/${stem}.partial-*" "${parent}/${name}.partial-*")
  if(leftovers)
    file(REMOVE_RECURSE ${leftovers})
  endif()
endif()
if(NOT dir MATCHES "no-such-directory$")
  file(MAKE_DIRECTORY "${dir}")
endif()
if(TMPFS)
  execute_process(COMMAND mount -t tmpfs -o size=${TMPFS} tmpfs "${dir}" RESULT_VARIABLE mounted
    ERROR_VARIABLE mount_error)
  if(NOT mounted EQUAL 0)
    string(STRIP "${mount_error}" mount_error)
    message("SKIP: cannot mount a tmpfs on ${dir} (${mount_error}): needs root or CAP_SYS_ADMIN")
    return()
  endif()
endif()

execute_process(COMMAND "${TOOL}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "exit code: ${rc}\nstderr: ${err}")
# The checks collect their findings, so that a tmpfs is unmounted before the script fails.
set(problems "")
if(rc EQUAL 0)
  list(APPEND problems "expected a non-zero exit code")
endif()
# The progress bar may precede the reason: the reason is the last line.
string(REGEX REPLACE "\n$" "" err_trimmed "${err}")
string(REGEX REPLACE "^.*\n" "" last_line "${err_trimmed}")
if(last_line STREQUAL "" OR NOT last_line MATCHES "${MESSAGE}")
  list(APPEND problems "expected a last stderr line matching '${MESSAGE}', got '${last_line}'")
endif()
if(ONE_LINE AND NOT err_trimmed STREQUAL last_line)
  list(APPEND problems "expected one line on stderr, got '${err}'")
endif()
if(NOT DEFINED PROGRAM)
  set(PROGRAM itkgpurestoration-tv)
endif()
if(NOT last_line MATCHES "^${PROGRAM}: ")
  list(APPEND problems "the reason should start with the program name: '${last_line}'")
endif()
if(EXISTS "${OUTPUT}")
  list(APPEND problems "a failed run left the output ${OUTPUT}")
endif()
foreach(d "${dir}" "${parent}")
  if(EXISTS "${d}")
    file(GLOB leftovers "${d}/${stem}.partial-*" "${d}/${name}.partial-*")
    if(leftovers)
      list(APPEND problems "a failed run left temporary files: ${leftovers}")
    endif()
  endif()
endforeach()
if(TMPFS)
  file(GLOB left "${dir}/*")
  if(left)
    list(APPEND problems "a failed run left files on the full disk: ${left}")
  endif()
  execute_process(COMMAND umount "${dir}")
endif()
if(problems)
  string(REPLACE ";" "\n" problems "${problems}")
  message(FATAL_ERROR "${problems}")
endif()
