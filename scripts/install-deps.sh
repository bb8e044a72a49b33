#!/usr/bin/env bash
# Installs what ITKGPURestoration needs on Debian 12 (run as root). Idempotent.
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libinsighttoolkit5-dev              # ITK 5.2 (and itkTestDriver)
  ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers clinfo
  pocl-opencl-icd                     # OpenCL on the CPU, so the OpenCL backend runs without a GPU
  libgtest-dev
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
