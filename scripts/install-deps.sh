#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what ITKGPURestoration needs on Debian 12 (run as root). Idempotent.
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libinsighttoolkit5-dev              # ITK 5.2 (and itkTestDriver)
  ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers clinfo
  pocl-opencl-icd                     # OpenCL on the CPU, so the OpenCL backend runs without a GPU
  libgtest-dev
  doxygen                             # tests: ApiDocs builds the C++ API documentation and fails on a warning
  libfftw3-dev                        # the core's FFT plans on the CPU (gpurFFT.h), and pscr_bench's DST-I
  libvkfft-dev                        # the core's FFT plans on OpenCL devices (VkFFT, header-only)
  python3-pip python3-dev python3-venv # the Python package (pyproject.toml, wrapping/), its tests and
                                       # the wheel test's fresh virtual environments
  libvtk9-dev xvfb xauth              # optional: the VTK rendering example (examples/vtk) and a virtual X server
                                      # for it (Debian's VTK renders through X only); ~1 min and ~800 MB
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Python build and test dependencies of wrapping/ (itk-core: itk.Image without
# the several hundred MB of the full itk meta-package). Debian's own python3 is
# "externally managed" (PEP 668) and refuses pip installs outside a virtual
# environment; only there do we pass --break-system-packages (as an environment
# variable, which run-tests.sh sets the same way).
if python3 -c 'import os, sys, sysconfig; sys.exit(sys.prefix != sys.base_prefix or not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
  export PIP_BREAK_SYSTEM_PACKAGES=1
fi
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore \
  numpy pybind11 scikit-build-core pytest SimpleITK itk-core scikit-image "dask[array]" distributed
