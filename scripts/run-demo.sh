#!/usr/bin/env bash
# The main job: install, build, then denoise a 3D CT-like phantom with TV on the
# default OpenCL device. Output volume and PNG go to ./out. Extra arguments are
# passed to the demo (see build/bin/TVDenoisePhantom --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/bin/itkgpurestoration-devices
./build/bin/TVDenoisePhantom --output-dir out "$@"
