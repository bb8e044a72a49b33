# SPDX-License-Identifier: Apache-2.0
# Finds the two FFT libraries of gpur::FFTPlan (include/gpurFFT.h) for GPURCore:
# FFTW 3 in double and single precision (pkg-config fftw3, fftw3f; its threaded
# libraries when present) and VkFFT's header (vkFFT.h, used with its OpenCL
# backend). Sets GPUR_FFTW_LIBRARIES, GPUR_FFTW_INCLUDE_DIRS, GPUR_FFTW_THREADS
# (TRUE when libfftw3_threads and libfftw3f_threads were found) and
# GPUR_VKFFT_INCLUDE_DIR, or stops with the packages to install.
# Included (not a function): the variables belong to the caller.

find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(GPUR_FFTW3 QUIET fftw3 fftw3f)
endif()
if(NOT GPUR_FFTW3_FOUND)
  message(FATAL_ERROR
    "FFTW 3 not found (pkg-config fftw3 and fftw3f): install it (Debian/Ubuntu: apt-get install pkg-config "
    "libfftw3-dev; Fedora: dnf install fftw-devel), or add the folder of fftw3.pc to PKG_CONFIG_PATH.")
endif()
set(GPUR_FFTW_LIBRARIES ${GPUR_FFTW3_LINK_LIBRARIES})
set(GPUR_FFTW_INCLUDE_DIRS ${GPUR_FFTW3_INCLUDE_DIRS})
# The threaded libraries have no .pc file of their own; they sit next to the serial ones.
find_library(GPUR_FFTW3_THREADS_LIBRARY fftw3_threads HINTS ${GPUR_FFTW3_LIBRARY_DIRS})
find_library(GPUR_FFTW3F_THREADS_LIBRARY fftw3f_threads HINTS ${GPUR_FFTW3_LIBRARY_DIRS})
set(GPUR_FFTW_THREADS FALSE)
if(GPUR_FFTW3_THREADS_LIBRARY AND GPUR_FFTW3F_THREADS_LIBRARY)
  set(GPUR_FFTW_THREADS TRUE)
  list(PREPEND GPUR_FFTW_LIBRARIES ${GPUR_FFTW3_THREADS_LIBRARY} ${GPUR_FFTW3F_THREADS_LIBRARY})
endif()

find_path(GPUR_VKFFT_INCLUDE_DIR NAMES vkFFT.h PATH_SUFFIXES vkFFT DOC "Folder holding vkFFT.h (VkFFT, header-only)")
if(NOT GPUR_VKFFT_INCLUDE_DIR)
  message(FATAL_ERROR
    "VkFFT not found (vkFFT.h): install it (Debian/Ubuntu: apt-get install libvkfft-dev), or point "
    "-DGPUR_VKFFT_INCLUDE_DIR at the folder that holds vkFFT.h (https://github.com/DTolm/VkFFT).")
endif()
