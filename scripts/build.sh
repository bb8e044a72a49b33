#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds ITKGPURestoration in ./build (Release, tests on).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON
cmake --build build -j "$(nproc)"
