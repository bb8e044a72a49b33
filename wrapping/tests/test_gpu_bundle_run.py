# SPDX-License-Identifier: Apache-2.0
"""scripts/gpu/run.sh, the runner of the GPU bundle, on a stand-in bundle: it refuses a machine whose glibc is too
old, fails unless a GPU is listed, and packs its results into $OUT whatever the outcome."""

import os
import shutil
import stat
import subprocess
import tarfile
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parents[2] / "scripts" / "gpu" / "run.sh"


def make_bundle(root, listing, requirements):
    """A bundle whose device tool prints `listing`, with `requirements` as its REQUIREMENTS."""
    (root / "bin").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "vendors").mkdir()
    shutil.copy(RUN, root / "run.sh")
    tool = root / "bin" / "itkgpurestoration-devices"
    tool.write_text("#!/bin/sh\ncat <<'END'\n" + listing + "\nEND\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    (root / "REQUIREMENTS").write_text(requirements + "\n")
    return root


def run(bundle, *args, out=None):
    env = dict(os.environ)
    env.pop("OUT", None)
    if out:
        env["OUT"] = str(out)
    return subprocess.run(["bash", str(bundle / "run.sh"), *args], env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.skipif(shutil.which("ldd") is None, reason="needs ldd (glibc)")
def test_devices_needs_a_gpu_and_the_glibc_it_was_built_for(tmp_path):
    gpu = "Platform: NVIDIA CUDA\n  [0] gpu 'NVIDIA H100' (NVIDIA Corporation, OpenCL 3.0 CUDA), fp64 yes"
    cpu = "Platform: Portable Computing Language\n  [0] cpu 'pthread' (PoCL), fp64 yes\nSelection: $ITKGPUR_DEVICE"
    done = run(make_bundle(tmp_path / "a", gpu, "GLIBC_2.2.5"), "devices")
    assert done.returncode == 0, done.stderr
    done = run(make_bundle(tmp_path / "b", cpu, "GLIBC_2.2.5"), "devices")
    assert done.returncode == 1 and "no GPU among the OpenCL devices" in done.stderr
    done = run(make_bundle(tmp_path / "c", gpu, "GLIBC_2.999"), "devices")
    assert done.returncode == 1 and "lacks GLIBC_2.999" in done.stderr


def test_results_are_packed_into_out_even_on_failure(tmp_path):
    bundle = make_bundle(tmp_path / "bundle", "[0] cpu 'pthread'", "")
    out = tmp_path / "out"
    out.mkdir()
    done = run(bundle, "devices", out=out)
    assert done.returncode == 1
    with tarfile.open(out / "gpu-results.tar.gz") as packed:
        assert "results/devices.txt" in packed.getnames()
    assert run(bundle, "nonsense").returncode == 2
