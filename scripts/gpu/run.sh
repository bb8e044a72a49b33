#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs in a bundle made by scripts/gpu/bundle.sh, on the GPU machine:
#   bash run.sh devices              the OpenCL devices the programs see (fails when there is none)
#   bash run.sh tests [FILTER]       the engine test programs (GoogleTest filter, default all), on device 0
#   bash run.sh bench NAME [ARGS]    one benchmark (tv_bench, pscr_bench, ...): its table and JSON
#   bash run.sh all                  devices, the engine tests, then every benchmark at its default sizes
# Everything is written under results/ beside this script; where $OUT is set (the device tool's folder of
# files that come back, at most a few files) results/ is also packed into $OUT/gpu-results.tar.gz on exit,
# whatever the outcome. Exits non-zero when anything fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Our vendor file only where the machine has none of its own (a loader reads one folder or the other).
if [ -z "${OCL_ICD_VENDORS:-}" ] && ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
  export OCL_ICD_VENDORS="$here/vendors"
fi
out=$here/results
mkdir -p "$out"
if [ -n "${OUT:-}" ]; then
  trap 'tar czf "$OUT/gpu-results.tar.gz" -C "$here" results' EXIT
fi
benches=(tv_bench statistical_tv_bench pscr_bench l1mc_bench levellines_bench sparse_bench flow_bench)

# The C library and C++ runtime are the machine's own: say so plainly when they are too old for the bundle.
# (Every reader here reads its whole input: a reader that stops early, such as head, would kill the writer
# with SIGPIPE, which pipefail turns into exit 141.)
requirements() {
  local need have
  for need in $(cat "$here/REQUIREMENTS"); do
    case $need in
      GLIBCXX_*) have=$(strings "$(ldconfig -p | awk '/libstdc\+\+\.so\.6 / && !found {print $NF; found = 1}')" | grep -c "^$need\$" || true) ;;
      GLIBC_*) have=$(ldd --version | awk 'NR == 1' | grep -o '[0-9.]*$' | awk -v n="${need#GLIBC_}" '{ split($0, a, "."); split(n, b, "."); print (a[1] > b[1] || (a[1] == b[1] && a[2] >= b[2])) ? 1 : 0 }') ;;
    esac
    [ "$have" != 0 ] || { echo "run.sh: this machine lacks $need, which the bundle needs (REQUIREMENTS)" >&2; return 1; }
  done
}

devices() {
  requirements
  "$here/bin/itkgpurestoration-devices" | tee "$out/devices.txt"
  grep -q "\] gpu '" "$out/devices.txt" || { echo "run.sh: no GPU among the OpenCL devices" >&2; return 1; }
}

tests() {
  local filter=${1:-*} failed=0
  for t in "$here"/bin/gpur*Test; do
    echo "== $(basename "$t")"
    "$t" --gtest_color=no --gtest_filter="$filter" >"$out/$(basename "$t").log" 2>&1 || {
      failed=1
      tail -30 "$out/$(basename "$t").log"
    }
    tail -1 "$out/$(basename "$t").log"
  done
  return $failed
}

bench() {
  local name=$1
  shift
  "$here/bin/$name" --json "$out/$name.json" "$@" 2>&1 | tee "$out/$name.txt"
}

case "${1:-}" in
  devices) devices ;;
  tests) tests "${2:-*}" ;;
  bench)
    shift
    bench "$@"
    ;;
  all)
    devices
    tests "*"
    for b in "${benches[@]}"; do bench "$b"; done
    ;;
  *)
    sed -n '3,11p' "$0" >&2
    exit 2
    ;;
esac
