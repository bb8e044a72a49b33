# SPDX-License-Identifier: Apache-2.0
"""bench/scaling.py: the slope fit, the driver and its guards on stand-in benchmark programs, and the two-device
TV run (one device vs two PoCL devices, bit for bit). The real programs' --quick run is the ctest scaling_quick."""

import json
import math
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load_bench_script

SCALING = Path(__file__).resolve().parents[2] / "bench" / "scaling.py"


def load_scaling():
    return load_bench_script("scaling")


def test_fit_slope_recovers_power_laws_and_its_standard_error():
    module = load_scaling()
    sizes = [256**2, 512**2, 1024**2, 2048**2]
    slope, stderr, intercept = module.fit_slope(sizes, [3e-9 * n**1.25 for n in sizes])
    assert slope == pytest.approx(1.25, rel=1e-12) and intercept == pytest.approx(math.log(3e-9), rel=1e-9)
    assert stderr == pytest.approx(0.0, abs=1e-12)
    # log N = 0, 1, 2 and log t = 0, 1 + d, 2: slope 1, residuals -d/3, 2d/3, -d/3, so the standard error is
    # sqrt(SSR / (3 - 2) / Sxx) = sqrt((6 d^2 / 9) / 2) = d / sqrt(3).
    d = 0.3
    slope, stderr, _ = module.fit_slope([1.0, math.e, math.e**2], [1.0, math.exp(1 + d), math.exp(2)])
    assert slope == pytest.approx(1.0, rel=1e-12) and stderr == pytest.approx(d / math.sqrt(3), rel=1e-12)
    slope, stderr, _ = module.fit_slope([10, 20], [1.0, 4.0])
    assert slope == pytest.approx(2.0) and stderr is None  # two sizes: no error estimate
    with pytest.raises(ValueError, match="two different sizes"):
        module.fit_slope([10], [1.0])


def test_untimed_two_device_rows_fail_unless_quick():
    """2N iterations no slower than N (noise): an error for doubling() to retry, or with allow_untimed (--quick)
    t(2N) / 2N marked "differenced": false."""
    module = load_scaling()
    rows = [{"selection": s, "used": "OpenCL", "timed": t, "secondsPerIteration": -0.5, "secondsPerIterationTotal": 2.0}
            for s, t in (("0", True), ("0,1", False))]
    worker = [sys.executable, "-c", "print(" + repr(json.dumps({"iterations": 4, "rows": rows})) + ")"]
    with pytest.raises(RuntimeError, match="8 iterations were not slower than 4"):
        module.run_worker(worker, dict(os.environ))
    one, two = module.run_worker(worker, dict(os.environ), allow_untimed=True)["rows"]
    assert one["differenced"] and one["secondsPerIteration"] == -0.5
    assert not two["differenced"] and two["secondsPerIteration"] == 2.0


def test_tv_iterations_are_fixed_per_size():
    module = load_scaling()
    # About 2^26 voxel updates per timed run, a power of two in [4, 1024].
    assert [module.tv_iterations(n * n, False) for n in (256, 512, 1024, 2048, 4096)] == [1024, 256, 64, 16, 4]
    assert [module.tv_iterations(n**3, False) for n in (64, 128, 256, 512)] == [256, 32, 4, 4]
    assert module.tv_iterations(1000 * 1000, False) == 64  # 67.1 updates per voxel, rounded down


FAKE_BENCH = '''#!{python}
# A stand-in for tv_bench / pscr_bench / statistical_tv_bench: times t = c N^slope, the JSON keys they write.
import json, sys
args, words = {{}}, sys.argv[1:]
for i, word in enumerate(words):
    if word.startswith("--"):
        following = words[i + 1] if i + 1 < len(words) else "--"
        args[word] = None if following.startswith("--") else following
name = sys.argv[0].rsplit("/", 1)[-1]
def unknowns(size):
    kind, n = size.split(":")
    return int(n) ** int(kind[0])
if name == "tv_bench":
    n = unknowns(args["--sizes"])
    rows = [{{"backend": b, "voxels": n, "iterations": int(args["--iterations"]), "secondsPerIteration": c * n,
             "mvoxPerSecond": 1 / c / 1e6, "bandwidthFraction": 0.5}} for b, c in (("CPU reference (2 threads)", 1e-9),
                                                                               ("[0] fake device", 2e-9))]
    if args.get("--devices") == "none":
        rows = rows[:1]
elif name == "pscr_bench":
    n = unknowns(args["--sizes"])
    rows = [{{"solver": s, "backend": b, "unknowns": n, "solveSeconds": c * n ** {pscr_slope}, "initSeconds": 0.0,
             "transferSeconds": None, "relativeResidual": 1e-15, "runs": 2, "solveOverFFTW": 1.0, "skipped": None}}
            for s, b, c in (("FFTW DST-I", "CPU reference (2 threads)", 1e-7),
                            ("PSCR q=4", "CPU reference (2 threads)", 3e-7),
                            ("PSCR q=4", "[0] fake device", 4e-7))]
else:
    rows = []
    scaling = [{{"size": int(s), "method": "S-PDU", "devices": 2, "secondsPerIterationOneDevice": 0.2,
                "secondsPerIterationNDevices": 0.125, "efficiency": 0.8}} for s in args["--sizes"].split(",")]
with open(args["--json"], "w") as f:
    json.dump({{"results": rows, "scaling": scaling if name == "statistical_tv_bench" else []}}, f)
'''


@pytest.fixture
def fake_bin(tmp_path):
    for name in ("tv_bench", "pscr_bench", "statistical_tv_bench"):
        path = tmp_path / name
        path.write_text(FAKE_BENCH.format(python=sys.executable, pscr_slope=1.1))
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return tmp_path


def test_driver_fits_every_series_and_writes_the_json(fake_bin, tmp_path):
    module = load_scaling()
    out = tmp_path / "scaling.json"
    summary = module.main(["--bin-dir", str(fake_bin), "--max-2d", "1024", "--max-3d", "128", "--no-two-device",
                           "--check", "--json", str(out), "--markdown", str(tmp_path / "scaling.md")])
    assert json.loads(out.read_text())["benchmark"] == "scaling"
    markdown = (tmp_path / "scaling.md").read_text(encoding="utf-8")
    assert "| size | load1 | N | cpu | [0] fake device |" in markdown and "| slope |  |  | 1.000 ± 0.000 |" in markdown
    sweeps = {(s["family"], s["dimension"]): s for s in summary["sweeps"]}
    assert set(sweeps) == {("tv", 2), ("tv", 3), ("pscr", 2), ("pscr", 3)}
    assert [r["size"] for r in sweeps["tv", 2]["runs"]] == [256, 512, 1024]  # --max-2d
    assert [r["size"] for r in sweeps["pscr", 3]["runs"]] == [63, 127]  # --max-3d
    for sweep in summary["sweeps"]:
        for fit in sweep["fits"]:
            expected = 1.0 if sweep["family"] == "tv" else 1.1
            assert fit["slope"] == pytest.approx(expected, rel=1e-6), fit
            assert fit["points"] == len(sweep["runs"])
    tv_cpu = next(f for f in sweeps["tv", 2]["fits"] if f["series"] == ["cpu"])
    assert tv_cpu["stderr"] == pytest.approx(0.0, abs=1e-6) and tv_cpu["sizes"] == [256, 512, 1024]
    assert {tuple(f["series"]) for f in sweeps["pscr", 2]["fits"]} == {
        ("FFTW DST-I", "cpu"), ("PSCR q=4", "cpu"), ("PSCR q=4", "[0] fake device")}
    # The TV runs at fixed N per size: 2^26 voxel updates.
    assert [r["rows"][0]["iterations"] for r in sweeps["tv", 2]["runs"]] == [1024, 256, 64]


def test_backends_option_leaves_series_out(fake_bin, tmp_path):
    module = load_scaling()
    summary = module.main(["--bin-dir", str(fake_bin), "--families", "pscr", "--backends", "cpu", "--max-2d", "511",
                           "--max-3d", "127", "--no-two-device", "--json", str(tmp_path / "s.json")])
    for sweep in summary["sweeps"]:
        # --devices none drops the device; fftw left out of --backends drops FFTW (the stand-in ignores --no-fftw,
        # so this is the driver's own filter).
        assert {tuple(f["series"]) for f in sweep["fits"]} == {("PSCR q=4", "cpu")}


def test_budget_guard_skips_sizes_predicted_too_long(fake_bin, tmp_path):
    module = load_scaling()
    # PSCR's stand-in times: (1, 3, 4) x 1e-7 N^1.1 s, each solved until 1 s (2 to 10 runs) and once more:
    # 2D 1023^2 predicts 0.42 x 4 + 1.26 x 3 + 1.68 x 3 = 10.5 s, 2047^2 (x 4^1.1 each) 46 s.
    summary = module.main(["--bin-dir", str(fake_bin), "--families", "pscr", "--max-seconds", "20",
                           "--no-two-device", "--json", str(tmp_path / "s.json")])
    sweep = next(s for s in summary["sweeps"] if s["dimension"] == 2)
    assert [r["size"] for r in sweep["runs"]] == [255, 511, 1023]
    assert [s["size"] for s in sweep["skipped"]] == [2047, 4095]
    assert sweep["skipped"][0]["why"].startswith("predicted 4") and "--max-seconds 20" in sweep["skipped"][0]["why"]
    assert 10 < sweep["runs"][-1]["predictedWall"] < 15  # plus the stand-in's start-up


def test_two_device_tables_from_statistical_tv_bench(fake_bin, monkeypatch):
    module = load_scaling()
    args = module.parse(["--bin-dir", str(fake_bin), "--two-device-sizes", "64", "--two-device-iterations", "2"])
    monkeypatch.setattr(module, "two_device_tv", lambda args, env, label, sizes: ([], None))
    result = module.two_device(args)
    assert [(r["threads"], r["size"]) for r in result["spdu"]] == [("PoCL default", 64), ("1 thread per device", 64)]
    assert result["spdu"][0]["speedup"] == pytest.approx(1.6) and result["spdu"][0]["efficiency"] == 0.8
    assert result["tv"] == [] and any("PSCR" in note for note in result["notes"])


def test_two_pocl_devices_give_one_device_result_bit_for_bit():
    """The z-slab split of the TV denoiser on POCL_DEVICES="pthread pthread": the same image, bit for bit."""
    module = load_scaling()
    igr = pytest.importorskip("itkgpurestoration")
    if not any(d["type"] == "cpu" and "pthread" in d["name"] for d in igr.list_devices()):
        pytest.skip("needs PoCL's pthread device")
    package = str(Path(igr.__file__).resolve().parents[1])
    env = dict(module.pocl_environment(1), PYTHONPATH=os.pathsep.join([package, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(SCALING), "--two-device-worker", "32", "--two-device-iterations", "4",
                           "--repeats", "1"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    row = json.loads(done.stdout)
    assert len(row["devices"]) == 2
    one, two = row["rows"]
    assert one["used"].startswith("OpenCL: ") and "2 devices" not in one["used"]
    assert "2 devices" in two["used"]
    assert row["bitwiseEqual"] and row["maxAbsDifference"] == 0.0
    # Timing (one["timed"]) is not asserted: at 32^3 on a busy machine 8 iterations can time no slower than 4.
