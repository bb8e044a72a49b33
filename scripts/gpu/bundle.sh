#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a self-contained bundle of the ITK-free part of the project (the
# engines, the benchmarks, the device tool and the engine test programs) for a
# machine that has a GPU driver but none of our build dependencies: no ITK, no
# OpenCL ICD loader or vendor file, no FFTW, and possibly another libstdc++.
# The bundle carries the non-glibc libraries the programs load (the ICD loader,
# FFTW, libstdc++, libgcc_s), a vendor file naming NVIDIA's OpenCL library and
# run.sh (scripts/gpu/run.sh), which sets the environment and runs the checks
# and benchmarks there. See docs/benchmarks.md, "On a GPU machine without ITK".
#
#   bash scripts/gpu/bundle.sh [BUNDLE_DIR]        (default: .gpubundle, git-ignored)
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=${1:-.gpubundle}
build=build-gpubundle
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUR_WITH_ITK=OFF -DBUILD_TESTING=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/vendors"
# The benchmarks, the device tool and the engine tests (not the VTK example), and our engine libraries.
cp "$build"/bin/*_bench "$build"/bin/itkgpurestoration-devices "$build"/bin/gpur*Test "$bundle/bin/"
cp -P "$build"/lib/libGPUR*.so* "$bundle/lib/"
# The libraries they load from the system, except glibc's and the C++ runtime: the target's own, because
# this machine's libstdc++ may need a newer glibc than the target has (Debian 12's needs 2.36); the
# versions needed are written to REQUIREMENTS.
for program in "$bundle"/bin/* "$bundle"/lib/*.so*; do
  ldd "$program" | awk '$3 ~ /^\// { print $3 }'
done | sort -u | while read -r library; do
  case "$(basename "$library")" in
    libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libstdc++.so* | libgcc_s.so*) ;;
    libGPUR*) ;;
    *) cp -L "$library" "$bundle/lib/" ;;
  esac
done
# The ICD loader finds a driver through vendor files; a container often has the
# driver's libnvidia-opencl.so.1 but no /etc/OpenCL/vendors/nvidia.icd.
echo "libnvidia-opencl.so.1" >"$bundle/vendors/nvidia.icd"
cp scripts/gpu/run.sh "$bundle/run.sh"
# The newest glibc and libstdc++ symbol versions anything in the bundle needs: the target must have them.
symbols=$(for f in "$bundle"/bin/* "$bundle"/lib/*; do objdump -T "$f" 2>/dev/null; done)
glibc=$(grep -o 'GLIBC_[0-9.]*' <<<"$symbols" | sort -u -V | tail -1)
glibcxx=$(grep -o 'GLIBCXX_[0-9.]*' <<<"$symbols" | sort -u -V | tail -1)
printf '%s\n%s\n' "$glibc" "$glibcxx" >"$bundle/REQUIREMENTS"
echo "bundle: $bundle ($(du -sh "$bundle" | cut -f1)); the target needs $glibc and $glibcxx (libstdc++)"
