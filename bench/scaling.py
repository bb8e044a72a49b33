#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How run time grows with size, and two-device strong scaling. Prints tables and writes JSON.

1. Size scaling. Runs the benchmark programs as they are, one run per size:
   ``tv_bench`` (accelerated Chambolle-Pock TV, float, seconds per iteration
   by t(2N) - t(N) at a fixed N per size) over 2D 256^2 ... 4096^2 and 3D
   64^3 ... 512^3, and ``pscr_bench`` (-Laplace u = f, Dirichlet, double,
   radix 4; solve seconds) over 2D 255^2 ... 4095^2 and 3D 63^3 ... 511^3, on
   the CPU reference and each OpenCL device, PSCR beside FFTW's DST-I solver
   and the solver's own fast-transform path. Per series (family, dimension,
   solver, backend) it fits log t = a + s log N by least squares over the
   sizes measured, N the number of unknowns, and gives s with its standard
   error. A method that streams each voxel a fixed number of times has s = 1
   (TV: the same bytes per voxel per iteration; steps above 1 where the
   working set leaves the caches); N log N methods (PSCR [Myllykoski2018],
   FFT) have s slightly above 1 (log N grows by 9 % to 16 % per doubling of
   the edge here).

   The TV iteration count N is fixed per size so that each timed run does
   about 2^26 voxel updates (N = 2^26 / voxels, between 4 and 1024; the same
   N on every backend, printed in the table), as the issue asks: fixed
   iterations, per-iteration time.

   The guards: before a size, the run's time is predicted from the sizes
   measured so far (each series' time from its fitted slope, slope 1 with one
   point; times the runs the benchmark makes of it, plus the last run's
   set-up overhead), and the run's peak memory from the last run's peak
   resident set, scaled by the unknowns. A size whose prediction exceeds
   --max-seconds or --max-memory-gib is skipped with the prediction printed,
   and so are the larger ones of that family and dimension.

2. Two-device strong scaling of the TV denoiser. The engine splits a 3D
   volume into z-slabs, one per selected device, with halos exchanged every
   few iterations (gpurSlabStepper.h; the domain decomposition of
   [Huang2023, §4.2]); the interiors are those of a one-device run bit for
   bit. With ``POCL_DEVICES="pthread pthread"`` PoCL exposes two CPU devices;
   on a machine with few cores they share the cores, so the script measures
   twice: with PoCL's default threads per device, and with one thread per
   device (``POCL_MAX_PTHREAD_COUNT=1``, read by PoCL's pthread driver when
   OpenCL starts), where 1 device x 1 thread against 2 devices x 1 thread is
   a fair strong-scaling figure (needs 2 cores). For each, the plain TV
   denoiser (the Python package's ``denoise_tv``, accelerated Chambolle-Pock,
   float, tolerance 0: no gap checks, all N iterations run) on device 0 and
   on devices 0,1: seconds per iteration by t(2N) - t(N) (best of --repeats;
   N about 2^29 voxel updates, as a whole call has set-up costs that vary by
   tenths of a second), speed-up t1 / t2, efficiency
   t1 / (2 t2), and whether the two results are equal bit for bit; then
   ``statistical_tv_bench`` (S-PDU, its own one-device vs all-devices rows)
   on the same sizes. The other engines run on one device: PSCR solves on
   its first selected device, TV-GD too.

   python3 bench/scaling.py [--bin-dir build/bin] [--families tv,pscr] [--backends cpu,opencl,fftw]
       [--max-2d N] [--max-3d N] [--max-seconds 600] [--max-memory-gib 12] [--two-device-sizes 128,256]
       [--two-device-iterations 8] [--no-two-device] [--repeats 2] [--json scaling.json] [--quick]

The two-device part needs the Python package (itkgpurestoration) importable;
without it the plain-TV rows are skipped with a note and the S-PDU rows of
statistical_tv_bench remain.
"""

import argparse
import contextlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

from bench_output import open_output, write_json

TV_SIZES = {2: [256, 512, 1024, 2048, 4096], 3: [64, 128, 256, 512]}
PSCR_SIZES = {2: [255, 511, 1023, 2047, 4095], 3: [63, 127, 255, 511]}
QUICK_TV_SIZES = {2: [32, 64], 3: [8, 16]}
QUICK_PSCR_SIZES = {2: [31, 63], 3: [7, 15]}
# Voxel updates per timed TV run (N iterations); tv_bench also runs an untimed
# warm-up (gpur::bench::kWarmupIterations), then N and 2N iterations.
TV_WORK = 1 << 26
QUICK_TV_WORK = 1 << 16
TV_MIN_ITERATIONS, TV_MAX_ITERATIONS = 4, 1024
TV_WARMUP_ITERATIONS = 2
# On a busy machine 2N iterations of a small size can time no slower than N: N is doubled, at most this often.
TV_RETRIES = 3
# pscr_bench times a solve at least twice and until 1 s, at most 10 times (kMinRuns, kMaxRuns), then
# solves once more for the residual and the report.
PSCR_MIN_RUNS, PSCR_MAX_RUNS, PSCR_MIN_SECONDS = 2, 10, 1.0
TWO_DEVICE_POCL = "pthread pthread"
# Voxel updates per timed two-device run: a whole denoise_tv call has about 0.6 s of set-up on PoCL (uploads, the
# final report) that varies by 0.2 s on a busy machine, so N iterations must take a few seconds for t(2N) - t(N).
TWO_DEVICE_WORK = 1 << 29
QUICK_TWO_DEVICE_WORK = 1 << 19
TWO_DEVICE_LAMBDA = 10.0


# ---------------------------------------------------------------------------------------------- fitting


def fit_slope(unknowns, seconds):
    """Least-squares fit of log t = a + s log N: (s, standard error of s or None with 2 points, a)."""
    x = np.log(np.asarray(unknowns, dtype=np.float64))
    y = np.log(np.asarray(seconds, dtype=np.float64))
    if len(x) < 2 or np.ptp(x) == 0:
        raise ValueError("a slope needs at least two different sizes")
    sxx = float(np.sum((x - x.mean()) ** 2))
    slope = float(np.sum((x - x.mean()) * (y - y.mean())) / sxx)
    intercept = float(y.mean() - slope * x.mean())
    if len(x) == 2:
        return slope, None, intercept
    residuals = y - (intercept + slope * x)
    stderr = math.sqrt(float(np.sum(residuals**2)) / (len(x) - 2) / sxx)
    return slope, stderr, intercept


def predict_seconds(points, unknowns):
    """A series' time at `unknowns` from its measured (unknowns, seconds) points: the fit, slope 1 with one point."""
    if len(points) >= 2:
        slope, _, intercept = fit_slope([p[0] for p in points], [p[1] for p in points])
        return math.exp(intercept + slope * math.log(unknowns))
    n, t = points[-1]
    return t * unknowns / n


def fixed_iterations(voxels, work, low, high):
    """work / voxels rounded down to a power of two, in [low, high]."""
    target = max(1, work // voxels)
    return int(min(high, max(low, 1 << (target.bit_length() - 1))))


def tv_iterations(voxels, quick):
    """The fixed N of a TV size: about TV_WORK voxel updates, a power of two in [4, 1024]."""
    return fixed_iterations(voxels, QUICK_TV_WORK if quick else TV_WORK, TV_MIN_ITERATIONS, TV_MAX_ITERATIONS)


def two_device_iterations(edge, args):
    """N of a two-device size: --two-device-iterations, else about TWO_DEVICE_WORK voxel updates in [8, 1024]."""
    if args.two_device_iterations:
        return args.two_device_iterations
    return fixed_iterations(edge**3, QUICK_TWO_DEVICE_WORK if args.quick else TWO_DEVICE_WORK, 8, 1024)


def pscr_runs(solve_seconds):
    """Solves pscr_bench makes of a row (timed runs plus the checked one)."""
    timed = math.ceil(PSCR_MIN_SECONDS / solve_seconds) if solve_seconds > 0 else PSCR_MAX_RUNS
    return min(PSCR_MAX_RUNS, max(PSCR_MIN_RUNS, timed)) + 1


# ---------------------------------------------------------------------------------------------- running


def load_average():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def run_program(command, env=None, quiet=False):
    """(JSON it wrote to --json, wall seconds, its peak resident set in bytes). Raises on a non-zero exit."""
    with tempfile.TemporaryDirectory(prefix="gpur-scaling-") as directory:
        out, log = os.path.join(directory, "out.json"), os.path.join(directory, "log.txt")
        full = command + ["--json", out]
        print("running", " ".join(full), file=sys.stderr, flush=True)
        started = time.perf_counter()
        with open(log, "w") as output:
            process = subprocess.Popen(full, stdout=output, stderr=subprocess.STDOUT, env=env)
            # wait4 gives this child's own peak resident set (ru_maxrss, kB on Linux).
            _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        with open(log) as f:
            text = f.read()
        if process.returncode != 0:
            raise RuntimeError(f"{os.path.basename(command[0])} exited with {process.returncode}:\n{text[-3000:]}")
        if not quiet:
            print(text, file=sys.stderr, end="")
        with open(out) as f:
            return json.load(f), wall, usage.ru_maxrss * 1024


def doubling(run, iterations, what):
    """run(iterations), doubling the iterations (at most TV_RETRIES times) while the timing found 2N no slower
    than N, which happens on a busy machine at small sizes."""
    for attempt in range(TV_RETRIES + 1):
        try:
            return run(iterations << attempt)
        except RuntimeError as e:
            if "were not slower" not in str(e) or attempt == TV_RETRIES:
                raise
            print(f"scaling: {what}: 2N iterations timed no slower than N; doubling N", file=sys.stderr)


def short_backend(name):
    """'cpu' for the CPU reference, else the OpenCL device's name as the benchmark printed it."""
    return "cpu" if name.startswith("CPU reference") else name


class Sweep:
    """One family (tv or pscr) in one dimension: its sizes in order, the guards, the series."""

    def __init__(self, family, dimension, sizes, args):
        self.family, self.dimension, self.sizes, self.args = family, dimension, sizes, args
        self.series = {}  # key -> list of (unknowns, seconds)
        self.runs = []  # per size: dict with size, wall, peak, rows
        self.skipped = []  # per size: why

    def run_size(self, n):
        """run_program of size n; TV with N doubled when the benchmark found 2N no slower than N (noise)."""
        if self.family != "tv":
            return run_program(self.command(n))
        return doubling(lambda factor: run_program(self.command(n, factor)), 1, f"TV {self.dimension}D {n}")

    def command(self, n, factor=1):
        bin_dir = self.args.bin_dir
        if self.family == "tv":
            iterations = factor * tv_iterations(n**self.dimension, self.args.quick)
            command = [os.path.join(bin_dir, "tv_bench"), "--sizes", f"{self.dimension}d:{n}",
                       "--iterations", str(iterations)]
        else:
            command = [os.path.join(bin_dir, "pscr_bench"), "--sizes", f"{self.dimension}d:{n}",
                       "--reals", "double", "--radices", "4"]
            if "fftw" not in self.args.backends:
                command.append("--no-fftw")
        if self.args.quick:
            command.append("--quick")
        if "opencl" not in self.args.backends:
            command += ["--devices", "none"]
        elif self.args.devices:
            command += ["--devices", self.args.devices]
        return command

    def rows_of(self, result):
        """(series key, seconds, extra) of a benchmark's JSON, keeping the backends asked for."""
        rows = []
        for r in result["results"]:
            backend = short_backend(r["backend"])
            kind = "cpu" if backend == "cpu" else "opencl"
            if self.family == "tv":
                if kind not in self.args.backends:
                    continue
                rows.append(((backend,), r["secondsPerIteration"],
                             {"iterations": r["iterations"], "mvoxPerSecond": r["mvoxPerSecond"],
                              "differenced": r.get("differenced", True),
                              "bandwidthFraction": r["bandwidthFraction"], "unknowns": r["voxels"]}))
            else:
                if r.get("skipped"):
                    rows.append(((r["solver"], backend), None, {"skipped": r["skipped"], "unknowns": r["unknowns"]}))
                    continue
                if ("fftw" if r["solver"] == "FFTW DST-I" else kind) not in self.args.backends:
                    continue
                rows.append(((r["solver"], backend), r["solveSeconds"],
                             {"initSeconds": r["initSeconds"], "transferSeconds": r["transferSeconds"],
                              "relativeResidual": r["relativeResidual"], "runs": r["runs"],
                              "solveOverFFTW": r["solveOverFFTW"], "unknowns": r["unknowns"]}))
        return rows

    def predicted_wall(self, n):
        """Seconds the run of size n should take (None before the first run), from the fitted series."""
        if not self.runs:
            return None
        last = self.runs[-1]
        unknowns = n**self.dimension
        model_last, model_next = 0.0, 0.0
        for key, points in self.series.items():
            seconds = predict_seconds(points, unknowns)
            if self.family == "tv":
                iterations = tv_iterations(unknowns, self.args.quick)
                last_iterations = tv_iterations(last["unknowns"], self.args.quick)
                model_next += seconds * (3 * iterations + TV_WARMUP_ITERATIONS)
                model_last += points[-1][1] * (3 * last_iterations + TV_WARMUP_ITERATIONS)
            else:
                model_next += seconds * pscr_runs(seconds)
                model_last += points[-1][1] * pscr_runs(points[-1][1])
        for init in last.get("init", []):  # PSCR plans and FFTW planning, taken as linear in the unknowns
            model_next += init * unknowns / last["unknowns"]
            model_last += init
        repeats = self.repeats()
        return max(0.0, last["wall"] - repeats * model_last) + repeats * model_next

    def predicted_peak(self, n):
        if not self.runs:
            return None
        last = self.runs[-1]
        return last["peak"] * n**self.dimension / last["unknowns"]

    def repeats(self):
        """Runs per size: TV best of --repeats; pscr_bench takes its own best of 2 to 10 solves."""
        return self.args.repeats if self.family == "tv" else 1

    def run(self):
        stop = None
        for n in self.sizes:
            if stop:
                self.skipped.append({"size": n, "unknowns": n**self.dimension, "why": stop})
                continue
            predicted = self.predicted_wall(n)
            peak = self.predicted_peak(n)
            if predicted is not None and predicted > self.args.max_seconds:
                stop = f"predicted {predicted:.0f} s from the fitted slopes > --max-seconds {self.args.max_seconds:g}"
            elif peak is not None and peak > self.args.max_memory_gib * 2**30:
                stop = (f"predicted peak memory {peak / 2**30:.1f} GiB (the last size's, scaled by the unknowns) > "
                        f"--max-memory-gib {self.args.max_memory_gib:g}")
            if stop:
                print(f"scaling: skipping {self.family} {self.dimension}D {n} and larger: {stop}", file=sys.stderr)
                self.skipped.append({"size": n, "unknowns": n**self.dimension, "why": stop})
                continue
            record = {"size": n, "unknowns": n**self.dimension, "wall": 0.0, "peak": 0, "load1": [],
                      "predictedWall": predicted, "rows": [], "init": []}
            best = {}  # series key -> (seconds, extra), the fastest of the repeats
            for _ in range(self.repeats()):
                record["load1"].append(load_average())
                result, wall, peak = self.run_size(n)
                record["wall"] += wall
                record["peak"] = max(record["peak"], peak)
                for key, seconds, extra in self.rows_of(result):
                    if key not in best or (seconds is not None and (best[key][0] is None or seconds < best[key][0])):
                        best[key] = (seconds, extra)
            for key, (seconds, extra) in best.items():
                record["rows"].append({"series": list(key), "seconds": seconds, **extra})
                if seconds is not None:
                    self.series.setdefault(key, []).append((extra["unknowns"], seconds))
                    if self.family == "pscr" and extra.get("initSeconds"):
                        record["init"].append(extra["initSeconds"])
            self.runs.append(record)

    def fits(self):
        fits = []
        for key, points in self.series.items():
            fit = {"family": self.family, "dimension": self.dimension, "series": list(key), "points": len(points),
                   "sizes": [round(p[0] ** (1 / self.dimension)) for p in points], "slope": None, "stderr": None}
            if len(points) >= 2:
                fit["slope"], fit["stderr"], _ = fit_slope([p[0] for p in points], [p[1] for p in points])
            fits.append(fit)
        return fits

    def to_json(self):
        runs = [{k: v for k, v in r.items() if k != "init"} for r in self.runs]
        return {"family": self.family, "dimension": self.dimension, "runs": runs, "skipped": self.skipped,
                "fits": self.fits()}


# ---------------------------------------------------------------------------------------------- two devices


def phantom(n, seed=2026):
    """A noisy piecewise-constant volume (nested boxes and a ball, sigma 0.1), float32, (z, y, x)."""
    z, y, x = np.meshgrid(*(np.linspace(-1, 1, n, dtype=np.float32),) * 3, indexing="ij")
    f = 0.2 * (np.maximum(np.maximum(abs(x), abs(y)), abs(z)) < 0.8).astype(np.float32)
    f += 0.5 * ((x - 0.2) ** 2 + y**2 + (z + 0.1) ** 2 < 0.25)
    f += 0.3 * ((abs(x + 0.4) < 0.15) & (abs(y - 0.3) < 0.4) & (abs(z) < 0.5))
    f += np.random.default_rng(seed).normal(0.0, 0.1, f.shape).astype(np.float32)
    return f


def two_device_worker(size, iterations, repeats):
    """In a process started with the PoCL environment: one device vs two on the plain TV denoiser (JSON on stdout)."""
    import itkgpurestoration as igr

    devices = igr.list_devices()
    f = phantom(size)

    def solve(selection, n):
        started = time.perf_counter()
        u, report = igr.denoise_tv(f, lam=TWO_DEVICE_LAMBDA, algorithm="accelerated", max_iterations=n, tolerance=0,
                                   backend="opencl", device=selection, return_report=True)
        seconds = time.perf_counter() - started
        if report["iterations"] != n:
            raise RuntimeError(f"denoise_tv ran {report['iterations']} iterations instead of {n}")
        return seconds, u, report

    out = {"devices": [d["description"] for d in devices], "size": size, "iterations": iterations, "rows": []}
    results = {}
    for selection in ("0", "0,1"):
        solve(selection, 2)  # warm-up: program builds, first allocations
        t_n = min(solve(selection, iterations)[0] for _ in range(repeats))
        t_2n, u, report = math.inf, None, None
        for _ in range(repeats):
            seconds, u, report = solve(selection, 2 * iterations)
            t_2n = min(t_2n, seconds)
        results[selection] = u
        # timed is false when 2N iterations were no slower than N (a busy machine): run_worker retries with more.
        out["rows"].append({"selection": selection, "used": report["description"], "timed": t_2n > t_n,
                            "secondsPerIteration": (t_2n - t_n) / iterations,
                            "secondsPerIterationTotal": t_2n / (2 * iterations)})
    one, two = results["0"], results["0,1"]
    out["bitwiseEqual"] = bool(np.array_equal(one, two))
    out["maxAbsDifference"] = float(np.max(np.abs(one.astype(np.float64) - two)))
    return out


def pocl_environment(threads_per_device):
    env = dict(os.environ, POCL_DEVICES=TWO_DEVICE_POCL)
    if threads_per_device:
        env["POCL_MAX_PTHREAD_COUNT"] = str(threads_per_device)
    else:
        env.pop("POCL_MAX_PTHREAD_COUNT", None)
    return env


def run_worker(command, env, allow_untimed=False):
    """The JSON a two-device worker printed; ModuleNotFoundError when it could not import the package.

    A row whose 2N iterations timed no slower than N raises (doubling() retries with more), unless allow_untimed
    (--quick smoke runs): then its time is t(2N) / 2N, set-up included, and the row says "differenced": false.
    """
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        if "No module named 'itkgpurestoration'" in done.stderr:
            raise ModuleNotFoundError("itkgpurestoration")
        raise RuntimeError(f"two-device worker failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout)
    for row in result["rows"]:
        row["differenced"] = row["timed"]
        if not row["timed"] and allow_untimed:
            row["secondsPerIteration"] = row["secondsPerIterationTotal"]
    if not allow_untimed and not all(row["timed"] for row in result["rows"]):
        raise RuntimeError(f"{2 * result['iterations']} iterations were not slower than {result['iterations']}")
    return result


def two_device_tv(args, env, label, sizes):
    """Plain TV rows on one and two devices, each size in its own process (PoCL reads env when it starts).

    Returns (rows, note): note says why there are none when the package cannot be imported.
    """
    rows = []
    for n in sizes:
        load = load_average()
        command = [sys.executable, os.path.abspath(__file__), "--two-device-worker", str(n), "--repeats",
                   str(args.repeats)]
        print("running", " ".join(command), f"(POCL_MAX_PTHREAD_COUNT={env.get('POCL_MAX_PTHREAD_COUNT', 'unset')})",
              file=sys.stderr, flush=True)
        try:
            row = doubling(lambda iterations: run_worker(command + ["--two-device-iterations", str(iterations)], env,
                                                         args.quick),
                           two_device_iterations(n, args), f"two devices {n}^3")
        except ModuleNotFoundError:
            return rows, ("plain TV rows left out: the Python package itkgpurestoration is not importable "
                          "(set PYTHONPATH to where it is installed)")
        one, two = row["rows"]
        rows.append({"threads": label, "size": n, "iterations": row["iterations"], "load1": load,
                     "devicesListed": len(row["devices"]), "oneDevice": one["secondsPerIteration"],
                     "twoDevices": two["secondsPerIteration"], "usedTwo": two["used"],
                     "speedup": one["secondsPerIteration"] / two["secondsPerIteration"],
                     "efficiency": one["secondsPerIteration"] / (2 * two["secondsPerIteration"]),
                     "bitwiseEqual": row["bitwiseEqual"], "maxAbsDifference": row["maxAbsDifference"],
                     "differenced": one["differenced"] and two["differenced"]})
    return rows, None


def two_device(args):
    """Strong scaling on two PoCL devices: plain TV from the Python package, S-PDU from statistical_tv_bench."""
    sizes = [int(s) for s in args.two_device_sizes.split(",") if s]
    settings = [("PoCL default", None), ("1 thread per device", 1)]
    tv, spdu, notes = [], [], []
    for label, threads in settings:
        env = pocl_environment(threads)
        rows, note = two_device_tv(args, env, label, sizes)
        tv += rows
        if note and note not in notes:
            notes.append(note)
        for n in sizes:  # one run per size, each with its own N
            load = load_average()
            command = [os.path.join(args.bin_dir, "statistical_tv_bench"), "--tables", "throughput", "--no-cpu",
                       "--sizes", str(n)] + (["--quick"] if args.quick else [])
            result, _, _ = doubling(lambda iterations: run_program(command + ["--iterations", str(iterations)],
                                                                   env=env, quiet=True),
                                    two_device_iterations(n, args), f"statistical_tv_bench {n}^3")
            throughput = [r for r in result.get("throughput", []) if not r.get("skipped")]
            iterations = {r["method"]: r["iterations"] for r in throughput}
            for s in result.get("scaling", []):
                spdu.append({"threads": label, "size": s["size"], "method": s["method"], "devices": s["devices"],
                             "iterations": iterations.get(s["method"]), "load1": load,
                             "oneDevice": s["secondsPerIterationOneDevice"],
                             "twoDevices": s["secondsPerIterationNDevices"],
                             "speedup": s["secondsPerIterationOneDevice"] / s["secondsPerIterationNDevices"],
                             "efficiency": s["efficiency"]})
    notes.append("single-device engines: PSCR (solves on its first selected device), TV-GD; "
                 "TV (ROF, PDU, S-PDU) splits 3D volumes into z-slabs across the selected devices")
    return {"pocl": TWO_DEVICE_POCL, "sizes": sizes, "tv": tv,
            "spdu": spdu, "notes": notes}


# ---------------------------------------------------------------------------------------------- output


def cell(value, digits=3, scientific=False):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.{digits}e}" if scientific else f"{value:.{digits}f}"


def print_table(rows, markdown=False):
    """Aligned columns (the first two left-aligned), or a Markdown table whose first row is the header."""
    if markdown:
        for i, r in enumerate(rows):
            print("| " + " | ".join(str(c) for c in r) + " |")
            if i == 0:
                print("|" + "---|" * len(r))
        return
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))))


def print_sweep(sweep, markdown=False):
    family = "TV (tv_bench, float, s/iteration)" if sweep.family == "tv" else "PSCR (pscr_bench, double, solve s)"
    print(f"\n{family}, {sweep.dimension}D")
    keys = list(sweep.series)
    header = ["size", "load1"] + [" / ".join(k) for k in keys]
    if sweep.family == "tv":
        header.insert(2, "N")
    table = [header]
    for r in sweep.runs:
        by_key = {tuple(row["series"]): row for row in r["rows"]}
        line = [f"{r['size']}^{sweep.dimension}", " ".join(cell(x, 2) for x in r["load1"])]
        if sweep.family == "tv":
            line.append(str(max((row.get("iterations", 0) for row in r["rows"]), default=0)))
        for k in keys:
            row = by_key.get(k)
            line.append(cell(row["seconds"], 3, True) if row and row["seconds"] is not None else "-")
        table.append(line)
    fit_line = ["slope", ""] + ([""] if sweep.family == "tv" else [])
    for fit in sweep.fits():
        fit_line.append("-" if fit["slope"] is None else
                        f"{fit['slope']:.3f}" + ("" if fit["stderr"] is None else
                                                 f" {'±' if markdown else '+/-'} {fit['stderr']:.3f}"))
    table.append(fit_line)
    print_table(table, markdown)
    for s in sweep.skipped:
        print(f"  skipped {s['size']}^{sweep.dimension}: {s['why']}")


def print_two_device(result, markdown=False):
    if result["tv"]:
        print(f"\nTwo PoCL devices (POCL_DEVICES=\"{result['pocl']}\"), plain TV (denoise_tv, accelerated, float), "
              "seconds per iteration")
        table = [["threads", "size", "N", "load1", "1 device", "2 devices", "speed-up", "efficiency", "equal"]]
        for r in result["tv"]:
            table.append([r["threads"], f"{r['size']}^3", str(r["iterations"]), cell(r["load1"], 2),
                          cell(r["oneDevice"], 4),
                          cell(r["twoDevices"], 4), cell(r["speedup"], 2), cell(r["efficiency"], 2),
                          "bitwise" if r["bitwiseEqual"] else f"max diff {r['maxAbsDifference']:.1e}"])
        print_table(table, markdown)
    if result["spdu"]:
        print("\nS-PDU (statistical_tv_bench), seconds per iteration")
        table = [["threads", "size", "N", "load1", "1 device", "2 devices", "speed-up", "efficiency"]]
        for r in result["spdu"]:
            table.append([r["threads"], f"{r['size']}^3", str(r["iterations"]), cell(r["load1"], 2),
                          cell(r["oneDevice"], 4),
                          cell(r["twoDevices"], 4), cell(r["speedup"], 2), cell(r["efficiency"], 2)])
        print_table(table, markdown)
    for note in result["notes"]:
        print("  " + note)


# ---------------------------------------------------------------------------------------------- check


def problems(summary, families):
    """What is wrong with a run's results (--check): empty when every sweep ran, fitted and agreed."""
    found = []
    seen = {(s["family"], s["dimension"]) for s in summary["sweeps"]}
    for family in families:
        for dimension in (2, 3):
            if (family, dimension) not in seen:
                found.append(f"no {family} {dimension}D sweep")
    for sweep in summary["sweeps"]:
        name = f"{sweep['family']} {sweep['dimension']}D"
        if len(sweep["runs"]) < 2:
            found.append(f"{name}: {len(sweep['runs'])} sizes ran (a slope needs 2)")
        if not sweep["fits"]:
            found.append(f"{name}: no series")
        for run in sweep["runs"]:
            for row in run["rows"]:
                if row["seconds"] is not None and not (row["seconds"] > 0 and math.isfinite(row["seconds"])):
                    found.append(f"{name} {run['size']}: {' / '.join(row['series'])} took {row['seconds']} s")
        for fit in sweep["fits"]:
            if fit["points"] >= 2 and not (fit["slope"] is not None and math.isfinite(fit["slope"])):
                found.append(f"{name} {' / '.join(fit['series'])}: slope {fit['slope']}")
    two = summary.get("twoDevice")
    if two:
        for row in two["tv"]:
            if not row["bitwiseEqual"]:
                found.append(f"two devices, TV {row['size']}^3 ({row['threads']}): differs from one device by "
                             f"{row['maxAbsDifference']:.3g}")
            if "2 devices" not in row["usedTwo"]:
                found.append(f"two devices, TV {row['size']}^3 ({row['threads']}): ran on {row['usedTwo']}")
        for row in two["tv"] + two["spdu"]:
            if not (math.isfinite(row["speedup"]) and row["speedup"] > 0):
                found.append(f"two devices, {row['size']}^3 ({row['threads']}): speed-up {row['speedup']}")
        if not two["spdu"]:
            found.append("two devices: statistical_tv_bench gave no scaling row (are two OpenCL devices listed?)")
    return found


# ---------------------------------------------------------------------------------------------- main


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", default=os.path.join("build", "bin"), help="where tv_bench, pscr_bench and "
                   "statistical_tv_bench are (default build/bin)")
    p.add_argument("--families", default="tv,pscr",
                   help="tv, pscr (comma-separated; default both); none: the two-device part alone")
    p.add_argument("--backends", default="cpu,opencl,fftw",
                   help="cpu, opencl, fftw (PSCR's competitor); the benchmarks always run the CPU reference, this "
                   "chooses the series reported (opencl off: --devices none)")
    p.add_argument("--devices", default="", help="OpenCL device selection passed to the benchmarks (default: all)")
    p.add_argument("--max-2d", type=int, default=0, help="largest 2D edge to run (0: all)")
    p.add_argument("--max-3d", type=int, default=0, help="largest 3D edge to run (0: all)")
    p.add_argument("--max-seconds", type=float, default=600.0,
                   help="skip a size whose run is predicted to take longer (default 600)")
    p.add_argument("--max-memory-gib", type=float, default=12.0,
                   help="skip a size whose run is predicted to need more memory (default 12)")
    p.add_argument("--no-two-device", action="store_true", help="leave out the two-device strong scaling")
    p.add_argument("--two-device-sizes", default="", help="cube edges (default 128,256; --quick: 32)")
    p.add_argument("--two-device-iterations", type=int, default=0,
                   help="N of t(2N) - t(N) (default: about 2^29 voxel updates per size, 128^3: 256, 256^3: 32)")
    p.add_argument("--two-device-worker", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--repeats", type=int, default=2,
                   help="best of, for each TV size and the two-device runs (default 2; pscr_bench takes its own best "
                   "of 2 to 10 solves)")
    p.add_argument("--json", default="scaling.json", help="where to write the results (default scaling.json)")
    p.add_argument("--markdown", default="", help="also write the tables as Markdown to this file")
    p.add_argument("--quick", action="store_true", help="tiny sizes, for smoke tests (seconds); a time whose 2N iterations ran no slower than N "
                   "(noise) is t(2N) / 2N, marked \"differenced\": false, not a failure")
    p.add_argument("--check", action="store_true", help="exit 1 unless every sweep ran with finite slopes and two "
                   "devices gave one device's result bit for bit")
    args = p.parse_args(argv)
    args.families = [f for f in args.families.split(",") if f and f != "none"]
    args.backends = [b for b in args.backends.split(",") if b]
    for f in args.families:
        if f not in ("tv", "pscr"):
            p.error(f"--families: unknown family '{f}' (allowed: tv, pscr)")
    for b in args.backends:
        if b not in ("cpu", "opencl", "fftw"):
            p.error(f"--backends: unknown backend '{b}' (allowed: cpu, opencl, fftw)")
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    if not args.two_device_sizes:
        args.two_device_sizes = "32" if args.quick else "128,256"
    if args.two_device_iterations < 0:
        p.error("--two-device-iterations must be at least 1 (0: about 2^29 voxel updates per size)")
    return args


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.two_device_worker:
        print(json.dumps(two_device_worker(args.two_device_worker, args.two_device_iterations, args.repeats)))
        return None
    started = time.perf_counter()
    summary = {"benchmark": "scaling", "quick": args.quick, "command": " ".join(["bench/scaling.py"] + (
        sys.argv[1:] if argv is None else list(argv))), "host": platform.node(), "cpus": os.cpu_count(),
        "load1AtStart": load_average(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "model": "log t = a + slope log N by least squares, N = unknowns; stderr of the slope (null with 2 sizes)",
        "sweeps": [], "twoDevice": None}
    def save():  # after each part, so that a failure later keeps what was measured
        summary["wallSeconds"] = time.perf_counter() - started
        summary["load1AtEnd"] = load_average()
        write_json(args.json, summary)

    # The two-device part first: it is the shortest, and the one that needs the Python package.
    if not args.no_two_device:
        summary["twoDevice"] = two_device(args)
        save()
    sweeps = []
    for family in args.families:
        table = (QUICK_TV_SIZES if args.quick else TV_SIZES) if family == "tv" else (
            QUICK_PSCR_SIZES if args.quick else PSCR_SIZES)
        for dimension in (2, 3):
            limit = args.max_2d if dimension == 2 else args.max_3d
            sizes = [n for n in table[dimension] if not limit or n <= limit]
            sweep = Sweep(family, dimension, sizes, args)
            sweep.run()
            sweeps.append(sweep)
            summary["sweeps"].append(sweep.to_json())
            save()
    for markdown in (False, True) if args.markdown else (False,):
        with open_output(args.markdown, encoding="utf-8") if markdown else contextlib.nullcontext(sys.stdout) as out:
            with contextlib.redirect_stdout(out):
                for sweep in sweeps:
                    print_sweep(sweep, markdown)
                if summary["twoDevice"]:
                    print_two_device(summary["twoDevice"], markdown)
    save()
    print(f"\nwall time {summary['wallSeconds']:.0f} s; wrote {args.json}")
    if args.check:
        found = problems(summary, args.families)
        for problem in found:
            print("scaling: check failed: " + problem, file=sys.stderr)
        if found:
            sys.exit(1)
    return summary


if __name__ == "__main__":
    main()
