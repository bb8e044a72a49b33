#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install, build and run every test (CTest: GoogleTest suites, itkTestDriver
# baseline comparisons, the downstream find_package project, the Python sdist ->
# manylinux wheel -> fresh virtual environment path PythonWheel, which downloads from
# PyPI: `ctest -LE network` leaves it out), then the Python package (pyproject.toml,
# sources in wrapping/) with pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j 2 --timeout 600
cd ..
# The Python package: built against the dependencies install-deps.sh put in place
# (no build isolation: no downloads, same pybind11/scikit-build-core), then tested.
if python3 -c 'import os, sys, sysconfig; sys.exit(sys.prefix != sys.base_prefix or not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
  export PIP_BREAK_SYSTEM_PACKAGES=1 # Debian's python3 (PEP 668), as in install-deps.sh
fi
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-build-isolation .
python3 -m pytest -q wrapping/tests
