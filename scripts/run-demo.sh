#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: install, build, then denoise a 3D CT-like phantom with TV, backend
# Auto: a GPU when there is one, else the faster of the CPU reference and a CPU
# OpenCL driver as measured (the demo prints which ran and why), so it runs on any
# machine. Output volumes and PNGs go to ./out (with VTK, also a 3D
# picture, out/tv_phantom_render.png). Extra arguments are passed to the demo (see
# build/bin/TVDenoisePhantom --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/bin/itkgpurestoration-devices
./build/bin/TVDenoisePhantom --output-dir out "$@"

# A 3D picture of both volumes (three orthogonal slices, noisy | denoised) when the
# VTK example was built; Debian's VTK needs an X display, so a virtual one if none.
dir=out
for ((i = 1; i <= $#; ++i)); do
  case "${!i}" in
    --output-dir) j=$((i + 1)); dir="${!j}" ;;
    --output-dir=*) dir="${!i#--output-dir=}" ;;
    -h | --help) exit 0 ;;
  esac
done
if [[ -x build/bin/TVRenderSlices ]]; then
  render=(./build/bin/TVRenderSlices --output "$dir/tv_phantom_render.png" "$dir/tv_noisy.mha" "$dir/tv_denoised.mha")
  if [[ -n "${DISPLAY:-}" ]]; then
    "${render[@]}"
  elif command -v xvfb-run >/dev/null; then
    xvfb-run -a -s "-screen 0 1280x1024x24" "${render[@]}"
  else
    echo "TVRenderSlices needs an X display or xvfb-run (apt-get install xvfb xauth): no 3D picture"
  fi
fi
