#!/usr/bin/env bash
# Configures and builds ITKGPURestoration in ./build (Release, tests on).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON
cmake --build build -j "$(nproc)"
