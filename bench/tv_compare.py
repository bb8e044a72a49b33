#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ROF TV denoising beside its peers, in one run: time to the same objective, and Mvox·it/s.

Two parts (``--parts``), both on the package's numpy API (no ITK):

1. ``objective``: seconds to an ROF objective within ``--target`` (relative,
   5e-4) of the optimum, this project's CPU reference (``denoise_tv``,
   ``backend="cpu"``, its default accelerated Chambolle-Pock and gap stop)
   beside scikit-image's ``denoise_tv_chambolle`` (Chambolle's projection,
   numpy, one thread), on a float32 disc-and-step image with Gaussian noise of
   0.1, at ``--sizes`` (1024 and 2048). Both results are scored with one
   function, ``rof_objective``: P(u) = (lam / 2) ||u - f||^2 + sum |grad u|,
   isotropic, forward differences with a zero difference past the last
   row/column (Neumann), in float64, lam = 1 / weight. That is the functional
   both solvers minimise: scikit-image's iteration minimises
   ||u - f||^2 / 2 + weight TV(u) with the same gradient (its docstring;
   its cost is weight P(u)), ours (lam / 2) ||u - f||^2 + TV(u). The
   optimum is a float64 solve of ours to a relative primal-dual gap of 1e-9
   (its dual energy, a lower bound of the optimum, is printed beside). Each
   solver's tolerance is tightened along a ladder until its result is within
   the target; that setting's time is the best of ``--repeats`` runs.
2. ``throughput``: Mvox·it/s at a fixed number of iterations (the time per
   iteration from runs of N and 3N iterations, their difference, so set-up and
   copies cancel), float32, ``--threads`` threads, 2D 2048² and 3D 256³: our
   CPU reference, our OpenCL backend on each device (PoCL here), and, with
   ``--ccpi-lib``, CCPi-Regularisation-Toolkit's PD-TV C function
   (``PDTV_CPU_main``, OpenMP, called through ctypes; see
   docs/benchmarks.md for how to build it). Without ``--ccpi-lib`` that column
   is left out, and the table says so. A quality check runs beside: CCPi's
   result and ours after the same iterations at a smaller size, both scored by
   rof_objective against the optimum, with CCPi's lambda = 1 / lam (CCPi
   minimises ||u - f||^2 / (2 lambda) + TV(u)).

Every figure has the 1-minute load average beside it. Prints tables and writes JSON.

    python3 bench/tv_compare.py [--parts objective,throughput] [--sizes 1024,2048] [--target 5e-4]
        [--repeats 3] [--cases 2d:2048,3d:256] [--iterations N] [--threads 2]
        [--algorithm accelerated|cp|pdu] [--weighted] [--ccpi-lib PATH] [--json tv_compare.json] [--quick]
"""

import argparse
import ctypes
import os
import platform
import sys
import time

import numpy as np

from bench_output import write_json

WEIGHT = 0.1  # scikit-image's default weight; lam = 1 / weight
NOISE = 0.1
EDGE = 16  # samples left out at every side for the interior differences of the quality check
OUR_TOLERANCES = [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6]
SKIMAGE_EPS = [2e-4, 1e-4, 5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6, 5e-7, 2e-7, 1e-7, 5e-8]


def load():
    return os.getloadavg()[0]


def phantom(shape, seed=0):
    """A disc and a step (values 0.2 to 1.5) with Gaussian noise of NOISE, float32."""
    grids = np.meshgrid(*[(np.arange(n) + 0.5) / n for n in shape], indexing="ij")
    truth = 0.2 + 0.5 * (grids[-1] > 0.6)
    radius = sum((g - 0.4) ** 2 for g in grids)
    truth = truth + 0.8 * (radius < 0.25**2)
    rng = np.random.default_rng(seed)
    return (truth + NOISE * rng.standard_normal(shape)).astype(np.float32)


def rof_objective(u, f, lam):
    """P(u) = lam/2 ||u - f||^2 + sum |grad u|: forward differences, zero past the last sample (Neumann), float64."""
    u = np.asarray(u, np.float64)
    f = np.asarray(f, np.float64)
    squared = np.zeros_like(u)
    for axis in range(u.ndim):
        lead = [slice(None)] * u.ndim
        lead[axis] = slice(0, -1)
        d = np.diff(u, axis=axis)
        squared[tuple(lead)] += d * d
    return lam / 2 * float(((u - f) ** 2).sum()) + float(np.sqrt(squared).sum())


def timed(run, repeats):
    """(best seconds, last result) of repeats calls."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def excess_of(u, f, lam, optimum):
    return (rof_objective(u, f, lam) - optimum) / optimum


def ladder(name, settings, run, f, lam, optimum, target, repeats, log):
    """The loosest of settings (a stop tolerance) whose result is within target of the optimum, its best time."""
    for setting in settings:
        seconds, u = timed(lambda: run(setting), 1)
        excess = excess_of(u, f, lam, optimum)
        log(f"  {name} {setting:g}: {seconds:.3f} s, excess {excess:.2e} (load {load():.2f})")
        if excess <= target:
            if repeats > 1:
                seconds = min(seconds, timed(lambda: run(setting), repeats - 1)[0])
            return dict(setting=setting, seconds=seconds, excess=excess, reached=True, load=load())
    return dict(setting=settings[-1], seconds=seconds, excess=excess, reached=False, load=load())


def fewest_iterations(name, run, f, lam, optimum, target, repeats, log, limit=100000):
    """The fewest iterations (to 5 %) whose result is within target, found by doubling then bisection, and the
    best time of that many: the solver stopped by an oracle, the most favourable stop it could have."""
    low, high, u = 0, 16, None
    while excess_of(run(high), f, lam, optimum) > target:
        low, high = high, 2 * high
        if high > limit:
            return dict(setting=limit, seconds=float("nan"), excess=float("nan"), reached=False, load=load())
    while high - low > max(1, high // 20):
        middle = (low + high) // 2
        if excess_of(run(middle), f, lam, optimum) <= target:
            high = middle
        else:
            low = middle
    seconds, u = timed(lambda: run(high), repeats)
    excess = excess_of(u, f, lam, optimum)
    log(f"  {name}: {high} iterations, {seconds:.3f} s, excess {excess:.2e} (load {load():.2f})")
    return dict(setting=high, seconds=seconds, excess=excess, reached=excess <= target, load=load())


def objective_part(args, igr, log):
    """Time to the same objective: ours (CPU reference) and scikit-image's denoise_tv_chambolle."""
    try:
        from skimage.restoration import denoise_tv_chambolle
    except ImportError:
        denoise_tv_chambolle = None
        log("scikit-image is not installed: its rows are left out")
    lam = igr.lam_from_skimage_weight(WEIGHT)
    rows = []
    for n in args.sizes:
        f = phantom((n, n))
        start = time.perf_counter()
        reference, report = igr.denoise_tv(f.astype(np.float64), lam=lam, backend="cpu", tolerance=1e-9,
                                           max_iterations=200000, num_threads=args.threads, return_report=True)
        optimum = rof_objective(reference, f, lam)
        log(f"{n}²: optimum {optimum:.9g} (float64 solve, relative gap {report['relative_gap']:.1e}, "
            f"dual bound {report['dual']:.9g}, {time.perf_counter() - start:.1f} s)")
        if not report["converged"]:
            raise RuntimeError(f"the reference solve at {n}² did not converge: {report['warnings']}")

        def ours(tolerance, iterations=100000):
            return igr.denoise_tv(f, lam=lam, backend="cpu", tolerance=tolerance, max_iterations=iterations,
                                  num_threads=args.threads)

        row = dict(size=n, optimum=optimum, dualBound=report["dual"], target=args.target)
        row["ours"] = ladder("ours, gap tolerance", OUR_TOLERANCES, ours, f, lam, optimum, args.target,
                             args.repeats, log)
        row["oursFewest"] = fewest_iterations("ours, fewest iterations", lambda k: ours(0, k), f, lam, optimum,
                                              args.target, args.repeats, log)
        if denoise_tv_chambolle is not None:

            def peer(eps, iterations=100000):
                return denoise_tv_chambolle(f, weight=WEIGHT, eps=eps, max_num_iter=iterations)

            row["skimage"] = ladder("scikit-image, eps", SKIMAGE_EPS, peer, f, lam, optimum, args.target,
                                    args.repeats, log)
            # eps 0 never stops early: max_num_iter iterations.
            row["skimageFewest"] = fewest_iterations("scikit-image, fewest iterations", lambda k: peer(0.0, k), f,
                                                     lam, optimum, args.target, args.repeats, log)
        rows.append(row)
    return rows


class CCPi:
    """CCPi-Regularisation-Toolkit's PD-TV through ctypes: PDTV_CPU_main(Input, U, info, lambda, iterations,
    epsilon, Lipschitz constant, TV type, non-negativity, dimX, dimY, dimZ), dimX the fastest axis."""

    def __init__(self, path, threads):
        self.lib = ctypes.CDLL(path)
        self.main = self.lib.PDTV_CPU_main
        pointer = ctypes.POINTER(ctypes.c_float)
        self.main.argtypes = [pointer, pointer, pointer, ctypes.c_float, ctypes.c_int, ctypes.c_float,
                              ctypes.c_float, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        self.main.restype = ctypes.c_float
        # libgomp is a dependency of the library: its symbols resolve through the handle.
        self.lib.omp_set_num_threads.argtypes = [ctypes.c_int]
        self.lib.omp_set_num_threads(threads)

    def __call__(self, f, lam, iterations):
        f = np.ascontiguousarray(f, np.float32)
        u = np.empty_like(f)
        info = np.zeros(2, np.float32)
        shape = (1,) * (3 - f.ndim) + f.shape
        pointer = ctypes.POINTER(ctypes.c_float)
        # epsilon 0: no early stop; the Lipschitz constant 4 d bounds ||grad||^2 (8 in 2D, 12 in 3D); isotropic TV.
        self.main(f.ctypes.data_as(pointer), u.ctypes.data_as(pointer), info.ctypes.data_as(pointer),
                  ctypes.c_float(1.0 / lam), iterations, 0.0, 4.0 * f.ndim, 0, 0, shape[2], shape[1], shape[0])
        return u


def per_iteration(run, iterations, repeats):
    """(seconds per iteration, N): (best time of 3N - best time of N) / 2N, N doubled until the difference is at
    least 0.2 s and half the time of N, so that set-up, copies and timer noise cancel or stay small."""
    while True:
        short = timed(lambda: run(iterations), repeats)[0]
        long = timed(lambda: run(3 * iterations), repeats)[0]
        if long - short >= max(0.2, 0.5 * short) or iterations >= 4096:
            return max(long - short, 1e-9) / (2 * iterations), iterations
        iterations *= 2


def case_shape(case):
    kind, n = case.split(":")
    return (int(n),) * (2 if kind == "2d" else 3)


def throughput_part(args, igr, log):
    """Mvox·it/s at fixed iterations: our CPU reference, our OpenCL devices and CCPi's PD-TV."""
    lam = igr.lam_from_skimage_weight(WEIGHT)
    ccpi = CCPi(args.ccpi_lib, args.threads) if args.ccpi_lib else None
    devices = [] if args.no_opencl else igr.list_devices()

    def ours(f, backend, device=""):
        variance = (0.5 + np.abs(f)).astype(f.dtype) if args.weighted else None

        def run(iterations):
            if args.weighted:
                return igr.denoise_statistical_tv(f, variance, lam=lam, method=args.algorithm, tolerance=0,
                                                  max_iterations=iterations, backend=backend, device=device,
                                                  num_threads=args.threads)
            return igr.denoise_tv(f, lam=lam, algorithm=args.algorithm, tolerance=0, max_iterations=iterations,
                                  backend=backend, device=device, num_threads=args.threads)

        return run

    rows = []
    for case in args.cases:
        shape = case_shape(case)
        f = phantom(shape)
        iterations = args.iterations or (10 if len(shape) == 2 else 4)
        mvox = f.size / 1e6
        columns = [("ours CPU", ours(f, "cpu"))]
        columns += [(f"ours OpenCL {d['name']}", ours(f, "opencl", str(d["index"]))) for d in devices]
        if ccpi is not None:
            columns.append(("CCPi PD-TV", lambda k: ccpi(f, lam, k)))
        row = dict(case=case, shape=list(shape), results={})
        for name, run in columns:
            seconds, n = per_iteration(run, iterations, args.repeats)
            row["results"][name] = dict(mvoxItPerS=mvox / seconds, secondsPerIteration=seconds, iterations=n,
                                        load=load())
            log(f"  {case} {name}: {mvox / seconds:.1f} Mvox·it/s (load {load():.2f})")
        row["load"] = load()
        rows.append(row)
    quality = quality_check(args, igr, ccpi, lam, log) if ccpi is not None else []
    return rows, quality


def quality_check(args, igr, ccpi, lam, log):
    """CCPi's result and ours after the same iterations, scored against the optimum (like for like).

    CCPi's gradient at the last row/column is the mirrored difference (u[n-2] - u[n-1]), not 0: its fixed point
    minimises a slightly different functional, which shows at the edges. The differences are reported over the
    whole image and over the interior (EDGE samples from every side).
    """
    checks = []
    for shape in [(512, 512), (64, 64, 64)] if not args.quick else [(128, 128), (40, 40, 40)]:
        f = phantom(shape)
        reference = igr.denoise_tv(f.astype(np.float64), lam=lam, backend="cpu", tolerance=1e-9,
                                   max_iterations=200000, num_threads=args.threads)
        optimum = rof_objective(reference, f, lam)
        interior = (slice(EDGE, -EDGE),) * f.ndim
        for iterations in (50, 200, 1000):
            entry = dict(shape=list(shape), iterations=iterations)
            results = dict(ccpi=ccpi(f, lam, iterations))
            for algorithm in ("cp", "accelerated"):
                results[algorithm] = igr.denoise_tv(f, lam=lam, algorithm=algorithm, tolerance=0,
                                                    max_iterations=iterations, backend="cpu",
                                                    num_threads=args.threads)
            for name, u in results.items():
                difference = np.abs(u - reference)
                entry[name] = dict(excess=excess_of(u, f, lam, optimum), maxDifference=float(difference.max()),
                                   maxDifferenceInterior=float(difference[interior].max()))
            log(f"  quality {shape} {iterations} it: excess CCPi {entry['ccpi']['excess']:.2e}, "
                f"ours cp {entry['cp']['excess']:.2e}, accelerated {entry['accelerated']['excess']:.2e}")
            checks.append(entry)
    return checks


def cell(result):
    if result is None:
        return "– (not installed)"
    text = f"{result['seconds']:.3f} ({result['setting']:g})"
    return text if result["reached"] else text + " not reached"


def print_tables(summary):
    if summary.get("objective"):
        print(f"\nSeconds to an ROF objective within {summary['target']:g} of the optimum (P(u) = lam/2 ||u - f||^2 + "
              f"sum |grad u|, forward differences, Neumann, lam = 1/weight = {1 / WEIGHT:g}); ours "
              f"{summary['threads']} threads, scikit-image numpy (one thread). 'stop': each solver's own stop "
              "(ours: gap tolerance, scikit-image: eps); 'fewest': the fewest iterations that reach the target "
              "(an oracle stop):")
        print("| size | ours, stop (tol) | ours, fewest (it) | scikit-image, stop (eps) | scikit-image, fewest (it) "
              "| ratio stop | ratio fewest | load |")
        print("|---|---|---|---|---|---|---|---|")
        for row in summary["objective"]:
            peer, fewest = row.get("skimage"), row.get("skimageFewest")
            ratios = [f"{p['seconds'] / o['seconds']:.1f}" if p else "–"
                      for p, o in ((peer, row["ours"]), (fewest, row["oursFewest"]))]
            print(f"| {row['size']}² | {cell(row['ours'])} | {cell(row['oursFewest'])} | {cell(peer)} | "
                  f"{cell(fewest)} | {ratios[0]} | {ratios[1]} | {row['ours']['load']:.2f} |")
    if summary.get("throughput"):
        names = []
        for row in summary["throughput"]:
            names += [n for n in row["results"] if n not in names]
        print(f"\nMvox·it/s at fixed iterations (per-iteration time from N and 3N), float32, {summary['threads']} "
              f"threads, ours {summary['algorithm']}{' weighted' if summary['weighted'] else ''}"
              f"{'' if summary['ccpi'] else '; the CCPi column is left out (no --ccpi-lib)'}:")
        print("| case | " + " | ".join(names) + " | load |")
        print("|---|" + "---|" * (len(names) + 1))
        for row in summary["throughput"]:
            cells = [f"{row['results'][n]['mvoxItPerS']:.1f}" if n in row["results"] else "–" for n in names]
            print(f"| {row['case']} | " + " | ".join(cells) + f" | {row['load']:.2f} |")
    if summary.get("quality"):
        print(f"\nCCPi PD-TV and ours after the same iterations (CCPi lambda = 1/lam): objective excess over the "
              f"optimum; max |u - optimum| overall and {EDGE} samples in from the edges:")
        print("| shape | iterations | CCPi excess | ours cp excess | ours accelerated excess | CCPi max diff "
              "(interior) | ours cp max diff (interior) |")
        print("|---|---|---|---|---|---|---|")
        for e in summary["quality"]:
            c, p, a = e["ccpi"], e["cp"], e["accelerated"]
            print(f"| {'×'.join(map(str, e['shape']))} | {e['iterations']} | {c['excess']:.1e} | {p['excess']:.1e} | "
                  f"{a['excess']:.1e} | {c['maxDifference']:.1e} ({c['maxDifferenceInterior']:.1e}) | "
                  f"{p['maxDifference']:.1e} ({p['maxDifferenceInterior']:.1e}) |")


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", default="objective,throughput", help="objective, throughput or both")
    parser.add_argument("--sizes", default=None, help="edge lengths of the objective part (1024,2048)")
    parser.add_argument("--target", type=float, default=5e-4, help="relative objective excess to reach")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many timed runs")
    parser.add_argument("--cases", default=None, help="throughput cases, 2d:N or 3d:N (2d:2048,3d:256)")
    parser.add_argument("--iterations", type=int, default=0, help="N of the throughput part (10 in 2D, 4 in 3D)")
    parser.add_argument("--threads", type=int, default=2, help="threads of our CPU reference and of CCPi")
    parser.add_argument("--algorithm", default="accelerated", choices=["accelerated", "cp", "pdu"],
                        help="our method in the throughput part")
    parser.add_argument("--weighted", action="store_true", help="throughput of statistical (weighted) TV")
    parser.add_argument("--ccpi-lib", default=None, help="CCPi's shared library with PDTV_CPU_main")
    parser.add_argument("--no-opencl", action="store_true", help="leave out our OpenCL backend")
    parser.add_argument("--json", default="tv_compare.json", help="where to write the results")
    parser.add_argument("--quick", action="store_true", help="small sizes (256², 2d:256, 3d:32) for smoke tests")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    if not parts or not parts <= {"objective", "throughput"}:
        parser.error(f"--parts: {args.parts!r} (allowed: objective, throughput, or both comma-separated)")
    args.parts = parts
    args.sizes = [int(s) for s in (args.sizes or ("256" if args.quick else "1024,2048")).split(",")]
    args.cases = (args.cases or ("2d:256,3d:32" if args.quick else "2d:2048,3d:256")).split(",")
    for case in args.cases:
        kind, _, n = case.partition(":")
        if kind not in ("2d", "3d") or not n.isdigit() or int(n) < 2:
            parser.error(f"--cases: unknown case {case!r} (allowed: 2d:N, 3d:N with N >= 2)")
    if args.ccpi_lib and not os.path.isfile(args.ccpi_lib):
        parser.error(f"--ccpi-lib: {args.ccpi_lib} is not a file")
    return args


def main(argv=None):
    args = parse(argv)
    import itkgpurestoration as igr

    def log(message):
        print(message, flush=True)

    summary = dict(benchmark="tv_compare", date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   machine=platform.platform(), cpus=os.cpu_count(), threads=args.threads, target=args.target,
                   algorithm=args.algorithm, weighted=args.weighted, ccpi=bool(args.ccpi_lib),
                   loadBefore=load())
    if "objective" in args.parts:
        summary["objective"] = objective_part(args, igr, log)
    if "throughput" in args.parts:
        summary["throughput"], summary["quality"] = throughput_part(args, igr, log)
    print_tables(summary)
    write_json(args.json, summary)
    return summary


if __name__ == "__main__":
    main()
    sys.exit(0)
