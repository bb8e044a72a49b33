#!/usr/bin/env bash
# Install, build and run every test (CTest: GoogleTest suites, itkTestDriver
# baseline comparisons, the downstream find_package project).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j 2 --timeout 600
