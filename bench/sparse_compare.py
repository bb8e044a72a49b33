#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sparse recovery beside its peers: seconds and iterations to a relative error of 1e-4.

Runs ``sparse_bench`` (the C++ benchmark: CPISTA, FISTA and CPADMM on the CPU
reference and each OpenCL device) with ``--save-problems``, then, on the very
same problems (generator, sampling set, signal and measurements read back from
its files; the same alpha = ``--relative-alpha`` x ||A^T y||_inf and step
1 / max|FFT(v)|^2):

- PyLops [Ravasi2020] FISTA and ISTA (``pylops.optimization.cls_sparsity``)
  on PyLops's own FFT-based operator, ``Restriction @ FFT.H @ Diagonal @ FFT``
  (real FFT, orthonormal), stepped one iteration at a time so that the run
  stops at the target like ours (PyLops computes its cost every iteration,
  which is part of its time);
- FISTA in plain numpy with ``numpy.fft.rfft`` (what the engine does, in
  Python, float64);
- ISTA and FISTA with the dense m x n matrix in numpy (BLAS matrix-vector
  products), where it fits (``--dense-max-log2``).

A run that would exceed ``--budget`` seconds stops there and says so ("> S").
Prints one table (our rows from the benchmark's JSON) and writes JSON.

Installing the peer (never into the shared environment)::

    python3 -m pip install --target ../pylops-site pylops   # then PYTHONPATH=../pylops-site

    python3 bench/sparse_compare.py [--bench build/bin/sparse_bench] [--min-log2 10] [--max-log2 15]
        [--solvers ...] [--devices SELECTION] [--budget 20] [--ista-max-log2 12] [--dense-max-log2 13]
        [--bench-json FILE --problems DIR] [--json sparse_compare.json] [--quick]
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

from bench_output import write_json


class Problem:
    """One problem as sparse_bench wrote it: generator v, mask, signal and zero-filled measurements."""

    def __init__(self, directory, n):
        stem = os.path.join(directory, f"sparse_{n}_")
        self.n = n
        self.generator = np.fromfile(stem + "generator.f64", dtype="<f8")
        self.mask = np.fromfile(stem + "mask.u8", dtype=np.uint8).astype(bool)
        self.truth = np.fromfile(stem + "truth.f64", dtype="<f8")
        self.y = np.fromfile(stem + "y.f64", dtype="<f8")
        self.rows = np.flatnonzero(self.mask)
        # C x = IFFT(conj(FFT(v)) FFT(x)): C_ij = v_(j - i) mod n, the engine's convention.
        self.spectrum = np.conj(np.fft.rfft(self.generator))
        self.step = 1.0 / float(np.max(np.abs(self.spectrum) ** 2))
        self.measurements = self.y[self.rows]

    def apply(self, x):
        return np.fft.irfft(self.spectrum * np.fft.rfft(x), self.n)[self.rows]

    def apply_transpose(self, r):
        full = np.zeros(self.n)
        full[self.rows] = r
        return np.fft.irfft(np.conj(self.spectrum) * np.fft.rfft(full), self.n)

    def alpha(self, relative_alpha):
        return relative_alpha * float(np.max(np.abs(self.apply_transpose(self.measurements))))

    def error(self, x):
        return float(np.linalg.norm(x - self.truth) / np.linalg.norm(self.truth))


class Result:
    def __init__(self, method, backend, n):
        self.method, self.backend, self.n = method, backend, n
        self.setup = float("nan")
        self.iterations = 0
        self.seconds = float("nan")
        self.error = float("nan")
        self.reached = False
        self.note = ""
        self.seconds_per_iteration = None  # None: from the run, (seconds - setup) / iterations

    def per_iteration(self):
        if self.seconds_per_iteration is not None:
            return self.seconds_per_iteration
        return (self.seconds - self.setup) / self.iterations if self.iterations else float("nan")

    def as_json(self):
        return {
            "method": self.method,
            "backend": self.backend,
            "n": self.n,
            "setupSeconds": _finite(self.setup),
            "iterations": self.iterations,
            "seconds": _finite(self.seconds),
            "secondsPerIteration": _finite(self.per_iteration()),
            "relativeError": _finite(self.error),
            "reached": self.reached,
            "note": self.note,
        }


def _finite(value):
    return value if np.isfinite(value) else None


def iterate(result, problem, step, x, args, started):
    """Calls step(x) -> x until the target, the iteration budget or the time budget; fills result."""
    for k in range(1, args.max_iterations + 1):
        x = step(x)
        result.iterations = k
        result.error = problem.error(x)
        if result.error <= args.target:
            result.reached = True
            break
        if time.perf_counter() - started > args.budget:
            result.note = f"stopped at the budget of {args.budget:g} s"
            break
    result.seconds = time.perf_counter() - started
    return result


def soft(u, threshold):
    return np.sign(u) * np.maximum(np.abs(u) - threshold, 0.0)


def numpy_fista(problem, args):
    """FISTA [Beck2009] with numpy's real FFT, the engine's iteration in float64."""
    result = Result("numpy FFT FISTA", "CPU (numpy)", problem.n)
    started = time.perf_counter()
    alpha, step = problem.alpha(args.relative_alpha), problem.step
    state = {"z": np.zeros(problem.n), "t": 1.0}
    result.setup = time.perf_counter() - started

    def one(x):
        z = state["z"]
        x_new = soft(z + step * problem.apply_transpose(problem.measurements - problem.apply(z)), alpha * step)
        t_new = (1 + np.sqrt(1 + 4 * state["t"] ** 2)) / 2
        state["z"] = x_new + (state["t"] - 1) / t_new * (x_new - x)
        state["t"] = t_new
        return x_new

    return iterate(result, problem, one, np.zeros(problem.n), args, started)


def pylops_operator(problem):
    """A = R C with C = F^H diag(conj(FFT(v))) F in PyLops's own operators; checked against numpy's."""
    import pylops

    fft = pylops.signalprocessing.FFT(dims=problem.n, nfft=problem.n, real=True, norm="ortho", dtype="float64")
    circulant = fft.H @ pylops.Diagonal(problem.spectrum) @ fft
    # The spectrum is complex, so the product is typed complex; its values are real: toreal() drops the zero
    # imaginary parts, and the solvers then iterate in float64.
    operator = (pylops.Restriction(problem.n, problem.rows, dtype="float64") @ circulant).toreal()
    probe = np.random.default_rng(problem.n).standard_normal(problem.n)
    difference = np.linalg.norm(operator @ probe - problem.apply(probe)) / np.linalg.norm(problem.apply(probe))
    if not difference < 1e-10:
        raise RuntimeError(f"PyLops's operator differs from the benchmark's by {difference:.2e} at n = {problem.n}")
    return operator


def pylops_solver(problem, accelerated, args):
    """PyLops ISTA or FISTA with eps = 2 alpha (PyLops minimises ||y - A x||^2 + eps ||x||_1) and our step."""
    from pylops.optimization.cls_sparsity import FISTA, ISTA

    result = Result(f"PyLops {'FISTA' if accelerated else 'ISTA'}", "CPU (PyLops)", problem.n)
    started = time.perf_counter()
    operator = pylops_operator(problem)
    solver = (FISTA if accelerated else ISTA)(operator)
    x = solver.setup(
        problem.measurements,
        x0=np.zeros(problem.n),
        niter=args.max_iterations,
        eps=2 * problem.alpha(args.relative_alpha),
        alpha=problem.step,
        tol=0.0,
    )
    result.setup = time.perf_counter() - started
    if accelerated:
        state = {"z": x.copy()}

        def one(x):
            x, state["z"], _ = solver.step(x, state["z"])
            return x

    else:

        def one(x):
            return solver.step(x)[0]

    return iterate(result, problem, one, x, args, started)


def dense_solver(problem, accelerated, args):
    """ISTA (the paper's PISTA baseline [Fiandrotti2018]) or FISTA with the dense m x n matrix in numpy."""
    result = Result(f"numpy dense {'FISTA' if accelerated else 'ISTA'}", "CPU (numpy BLAS)", problem.n)
    started = time.perf_counter()
    n = problem.n
    columns = (np.arange(n)[None, :] - problem.rows[:, None]) % n
    matrix = problem.generator[columns]  # A_ij = v_(j - i) mod n on the rows of Omega
    del columns
    alpha, step = problem.alpha(args.relative_alpha), problem.step
    state = {"z": np.zeros(n), "t": 1.0}
    result.setup = time.perf_counter() - started

    def one(x):
        z = state["z"] if accelerated else x
        x_new = soft(z + step * (matrix.T @ (problem.measurements - matrix @ z)), alpha * step)
        if accelerated:
            t_new = (1 + np.sqrt(1 + 4 * state["t"] ** 2)) / 2
            state["z"] = x_new + (state["t"] - 1) / t_new * (x_new - x)
            state["t"] = t_new
        return x_new

    return iterate(result, problem, one, np.zeros(n), args, started)


def ours_from_bench(bench_json):
    """Our rows (the C++ benchmark's results) as Results."""
    rows = []
    for r in bench_json["results"]:
        if r.get("skipped"):
            continue
        result = Result(("" if r["solver"].startswith("dense") else "ours ") + r["solver"] + f" ({r['real']})",
                        r["backend"], r["n"])
        result.setup = r["setupSeconds"] if r["setupSeconds"] is not None else float("nan")
        result.iterations = r["iterations"]
        result.seconds = r["seconds"] if r["seconds"] is not None else float("nan")
        result.error = r["relativeError"] if r["relativeError"] is not None else float("nan")
        result.reached = r["reached"]
        if r.get("projected"):
            result.note = "projected"
        spi = r["secondsPerIteration"]
        result.seconds_per_iteration = spi if spi is not None else float("nan")
        rows.append(result)
    return rows


def run_bench(args, directory):
    """Runs sparse_bench with --save-problems DIR; returns its JSON."""
    out = os.path.join(directory, "sparse_bench.json")
    command = [args.bench, "--min-log2", str(args.min_log2), "--max-log2", str(args.max_log2),
               "--sparsity", str(args.sparsity), "--ratio", str(args.ratio), "--seed", str(args.seed),
               "--target", str(args.target), "--relative-alpha", str(args.relative_alpha),
               "--save-problems", directory, "--json", out]
    if args.devices:
        command += ["--devices", args.devices]
    if args.solvers:
        command += ["--solvers", args.solvers]
    if args.quick:
        command.append("--quick")
    print("running:", " ".join(command), flush=True)
    subprocess.run(command, check=True)
    with open(out) as f:
        return json.load(f)


def cell(value, digits):
    return "-" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"


def time_cell(r):
    if r.reached:
        return cell(r.seconds, 3)
    if r.note == "projected":
        return cell(r.seconds, 1) + " (proj.)"
    return "> " + cell(r.seconds, 1) if r.iterations else "-"  # no iterations: timed per iteration only


def print_table(results, target):
    header = ["n", "method", "backend", "setup s", "iter", f"s to {target:g}", "ms/it", "error"]
    rows = [header]
    for r in sorted(results, key=lambda r: (r.n, r.method, r.backend)):
        rows.append([f"2^{int(np.log2(r.n))}", r.method, r.backend, cell(r.setup, 4),
                     f"{r.iterations}{'' if r.reached or r.note == 'projected' else '+'}" if r.iterations else "-",
                     time_cell(r),
                     cell(1e3 * r.per_iteration(), 3), "-" if not np.isfinite(r.error) else f"{r.error:.1e}"])
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    for row in rows:
        print("  ".join(v.ljust(w) if c < 3 else v.rjust(w) for c, (v, w) in enumerate(zip(row, widths))).rstrip())


def problem_sizes(directory):
    """The n of every problem saved in directory (sparse_<n>_truth.f64)."""
    names = [f for f in os.listdir(directory) if f.startswith("sparse_") and f.endswith("_truth.f64")]
    return sorted(int(f.split("_")[1]) for f in names)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=os.path.join("build", "bin", "sparse_bench"), help="the C++ benchmark")
    parser.add_argument("--problems", help="run the peers on the problems saved here (sparse_bench --save-problems) "
                        "instead of running sparse_bench")
    parser.add_argument("--bench-json", help="with --problems: the JSON of the sparse_bench run that saved them, "
                        "for our rows")
    parser.add_argument("--min-log2", type=int, default=10)
    parser.add_argument("--max-log2", type=int, default=15)
    parser.add_argument("--solvers", default="", help="passed to sparse_bench (default: all three)")
    parser.add_argument("--devices", default="", help="passed to sparse_bench (default: every OpenCL device)")
    parser.add_argument("--sparsity", type=float, default=0.05)
    parser.add_argument("--ratio", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--target", type=float, default=1e-4)
    parser.add_argument("--relative-alpha", type=float, default=1e-5)
    parser.add_argument("--max-iterations", type=int, default=20000)
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per peer solve at most")
    parser.add_argument("--ista-max-log2", type=int, default=12,
                        help="largest n of the ISTA peers, PyLops and dense (they stay far from the target: see the "
                        "benchmark's CPISTA; 0: none)")
    parser.add_argument("--dense-max-log2", type=int, default=13, help="largest n of the dense numpy solvers")
    parser.add_argument("--no-pylops", action="store_true", help="leave PyLops out")
    parser.add_argument("--json", default="sparse_compare.json")
    parser.add_argument("--quick", action="store_true", help="n = 2^10, short budgets (smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.min_log2 = args.max_log2 = 10
        args.budget = min(args.budget, 10.0)
    if args.bench_json and not args.problems:
        parser.error("--bench-json needs --problems")

    pylops_version = None
    if not args.no_pylops:
        try:
            import pylops

            pylops_version = pylops.__version__
        except ImportError:
            print("PyLops not found (python3 -m pip install --target DIR pylops; PYTHONPATH=DIR): left out",
                  file=sys.stderr)

    with tempfile.TemporaryDirectory() as scratch:
        if args.problems:
            directory = args.problems
            bench = {"results": []}
            if args.bench_json:
                with open(args.bench_json) as f:
                    bench = json.load(f)
        else:
            directory = scratch
            bench = run_bench(args, scratch)
        results = ours_from_bench(bench)
        for n in problem_sizes(directory):
            if not 2**args.min_log2 <= n <= 2**args.max_log2:
                continue
            problem = Problem(directory, n)
            peers = [("numpy FFT FISTA", lambda p: numpy_fista(p, args))]
            if pylops_version:
                peers.append(("PyLops FISTA", lambda p: pylops_solver(p, True, args)))
                if n <= 2**args.ista_max_log2:
                    peers.append(("PyLops ISTA", lambda p: pylops_solver(p, False, args)))
            if n <= 2**args.dense_max_log2:
                peers.append(("numpy dense FISTA", lambda p: dense_solver(p, True, args)))
                if n <= 2**args.ista_max_log2:
                    peers.append(("numpy dense ISTA", lambda p: dense_solver(p, False, args)))
            for name, run in peers:
                print(f"sparse_compare: n = {n} {name}...", file=sys.stderr, flush=True)
                results.append(run(problem))

    print(f"\nSeconds to a relative error of {args.target:g} (set-up included; '> S': not reached in S seconds; "
          "iter with '+': not reached):")
    print_table(results, args.target)
    summary = {"benchmark": "sparse_compare", "quick": args.quick,
               "machine": platform.processor() or platform.machine(), "numpy": np.__version__,
               "pylops": pylops_version, "problem": bench.get("problem"), "relativeAlpha": args.relative_alpha,
               "target": args.target, "bench": {"devices": bench.get("devices"), "backends": bench.get("backends")},
               "results": [r.as_json() for r in results]}
    write_json(args.json, summary)
    print(f"\nwrote {args.json}")
    return summary


if __name__ == "__main__":
    main()
