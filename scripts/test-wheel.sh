#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs a built wheel (scripts/build-wheel.sh) into a fresh virtual environment, without
# the system's site-packages (numpy, pytest and the package's optional test dependencies
# come from PyPI: the extra "test"), and runs the package's tests (wrapping/tests) against it.
# Before the tests it checks that the module imported is the installed wheel's, that it runs
# on the OpenCL ICD loader the wheel vendors (not the system's libOpenCL), and that this
# loader finds the machine's OpenCL drivers: at least one device when an ICD is registered
# in /etc/OpenCL/vendors (or OCL_ICD_VENDORS).
#
#   bash scripts/test-wheel.sh [--python PYTHON] [--minimal] WHEEL
#     --python PYTHON  the interpreter of the virtual environment (default python3)
#     --minimal        numpy and pytest only: the tests that need SimpleITK, itk,
#                      scikit-image or dask are skipped
set -euo pipefail
cd "$(dirname "$0")/.."
python=python3
extra="[test]"
wheel=""
while (($#)); do
  case "$1" in
    --python) python="$2"; shift 2 ;;
    --minimal) extra=""; shift ;;
    -h | --help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "test-wheel.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) wheel="$1"; shift ;;
  esac
done
[[ -f "$wheel" ]] || { echo "test-wheel.sh: give the wheel to test (see --help)" >&2; exit 2; }
wheel=$(realpath "$wheel")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS
echo "== fresh virtual environment: $(basename "$wheel")${extra:+ with its extra $extra}"
"$python" -m venv "$work/venv"
venv="$work/venv/bin"
packages=("$wheel$extra")
[[ -n "$extra" ]] || packages+=(pytest)
"$venv/python" -m pip install -q --disable-pip-version-check "${packages[@]}"
echo "   installed in $((SECONDS - start)) s"

echo "== the wheel's module, its vendored OpenCL loader, the machine's drivers"
(cd "$work" && "$venv/python" - "$work/venv") <<'PY'
import glob, os, pathlib, sys

import itkgpurestoration as igr

venv = pathlib.Path(sys.argv[1]).resolve()
module = pathlib.Path(igr.__file__).resolve()
assert venv in module.parents, f"imported {module}, not the wheel installed in {venv}"
devices = igr.list_devices()  # loads the OpenCL loader and the drivers it finds
loaders = {line.split()[-1] for line in open("/proc/self/maps") if "libOpenCL" in line}
vendored = {p for p in loaders if "itkgpurestoration.libs" in p}
assert vendored and loaders == vendored, f"OpenCL loaders in the process: {sorted(loaders)}; expected the wheel's only"
vendors = os.environ.get("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
icds = sorted(glob.glob(os.path.join(vendors, "*.icd"))) if os.path.isdir(vendors) else [vendors]
icds = [icd for icd in icds if os.path.isfile(icd)]
print(f"   {module.parent}\n   loader {sorted(vendored)[0]}\n   ICDs {icds}: {len(devices)} device(s)")
for d in devices:
    print(f"     {d}")
assert devices or not icds, f"the vendored loader found no device although {icds} are registered"
PY

echo "== the package's tests against the wheel"
# From the repository root (wrapping/tests reads README.md and examples/ there); the
# checkout's wrapping/src is not on the path, so the tests import the installed wheel.
echo "   (environment ready after $((SECONDS - start)) s)"
"$venv/python" -m pytest -q -p no:cacheprovider wrapping/tests
