#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mean-curvature flow of graphs beside ITK's CurvatureFlowImageFilter: same image, same time horizon, one table.

Runs ``flow_bench --tables compare --save DIR`` (the C++ benchmark: our
graph flow, Runge-Kutta-Merson with automatic steps, on the CPU reference and
each OpenCL device, float), then ITK's ``CurvatureFlowImageFilter`` on the very
image it saved: the surface sin(3 pi |x|) of [Oberhuber2011, Figs. 1-2] on
(-2, 2)^2 with (N + 1)^2 nodes, spacing h = 4 / N, float, evolved to the same
time T.

ITK's filter takes the explicit Euler step of the level-set flow
I_t = kappa |grad I| with the image's spacing, TimeStep in physical units,
NumberOfIterations of them. Its finite-difference filters are stable for a
step up to 0.5 / 2^d in pixel units (the rule ITK's anisotropic diffusion
filters enforce), h^2 / 8 with spacing h in 2D, so the script takes the
fewest iterations with a step <= h^2 / 8 and the step T / iterations that
lands on T exactly. (Twice that step already diverges on this image at
512^2.) The two equations are not the same: the graph flow
u_t = Q div(grad u / Q), Q = sqrt(1 + |grad u|^2), tends to ITK's where
|grad u| >> 1 and to the heat equation where the surface is flat, so the
table shows how far each moved the image (RMS change), not a difference.

ITK runs from the ``itk`` package when it has the filter (``itk-filtering``),
else from SimpleITK, which wraps the same C++ filter; the thread count is
ITK's default (every core), as is ours.

    python3 bench/flow_compare.py [--bench build/bin/flow_bench] [--sizes 512,1024] [--time 0.002]
        [--devices SELECTION] [--repeats 1] [--images DIR [--bench-json FILE]] [--json flow_compare.json] [--quick]
"""

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

from bench_output import write_json


def itk_schedule(final_time, spacing):
    """(iterations, time step): the fewest steps of at most spacing^2 / 8 that land on final_time exactly."""
    stable = spacing * spacing / 8
    iterations = max(1, math.ceil(final_time / stable * (1 - 1e-12)))
    return iterations, final_time / iterations


def itk_runner():
    """(name, run(image, spacing, step, iterations) -> array) of ITK's CurvatureFlowImageFilter."""
    try:
        import itk

        itk.CurvatureFlowImageFilter  # noqa: B018 (itk-core alone lacks it; the lazy loader raises here)

        def run_itk(image, spacing, step, iterations):
            img = itk.image_view_from_array(np.ascontiguousarray(image, np.float32))
            img.SetSpacing([spacing, spacing])
            f = itk.CurvatureFlowImageFilter[type(img), type(img)].New(img)
            f.SetTimeStep(step)
            f.SetNumberOfIterations(iterations)
            f.Update()
            return np.array(itk.array_view_from_image(f.GetOutput()))

        return f"ITK {itk.__version__} (itk)", run_itk
    except (ImportError, AttributeError):
        import SimpleITK as sitk

        def run_sitk(image, spacing, step, iterations):
            img = sitk.GetImageFromArray(np.ascontiguousarray(image, np.float32))
            img.SetSpacing([spacing, spacing])
            f = sitk.CurvatureFlowImageFilter()
            f.SetTimeStep(step)
            f.SetNumberOfIterations(iterations)
            return sitk.GetArrayFromImage(f.Execute(img))

        return f"ITK (SimpleITK {sitk.Version.VersionString()})", run_sitk


def read_image(directory, cells, which):
    nodes = cells + 1
    return np.fromfile(os.path.join(directory, f"compare_{cells}_{which}.f32"), dtype="<f4").reshape(nodes, nodes)


def rms(a, b):
    return float(np.sqrt(np.mean((np.asarray(a, np.float64) - b) ** 2)))


def run_bench(args, directory):
    """Runs flow_bench on the compare case, saving its images in directory; returns its JSON."""
    out = os.path.join(directory, "flow_bench.json")
    command = [args.bench, "--tables", "compare", "--compare-sizes", args.sizes, "--compare-time", str(args.time),
               "--save", directory, "--json", out]
    if args.devices:
        command += ["--devices", args.devices]
    if args.repeats:
        command += ["--repeats", str(args.repeats)]
    print("running", " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True, stdout=sys.stderr)
    with open(out) as f:
        return json.load(f)


def ours_rows(bench, directory):
    rows = []
    for r in bench.get("results", []):
        if r["table"] != "compare":
            continue
        cells = r["cells"]
        steps = r["accepted"] + r["rejected"]
        row = {"cells": cells, "method": "graph MCF, Runge-Kutta-Merson", "backend": r["backend"], "real": r["real"],
               "steps": f"{r['accepted']} + {r['rejected']} rejected", "seconds": r["seconds"],
               "secondsPerStep": r["seconds"] / steps, "finalTime": r["finalTime"]}
        final = os.path.join(directory, f"compare_{cells}_final.f32")
        if r["backend"].startswith("CPU") and os.path.exists(final):
            row["rmsChange"] = rms(read_image(directory, cells, "final"), read_image(directory, cells, "initial"))
        rows.append(row)
    return rows


def itk_rows(args, directory, cells_list):
    name, run = itk_runner()
    rows = []
    for cells in cells_list:
        initial = read_image(directory, cells, "initial")
        spacing = 4.0 / cells
        iterations, step = itk_schedule(args.time, spacing)
        best, output = math.inf, None
        for _ in range(max(1, args.repeats)):
            started = time.perf_counter()
            output = run(initial, spacing, step, iterations)
            best = min(best, time.perf_counter() - started)
        if not np.all(np.isfinite(output)):
            raise RuntimeError(f"ITK's CurvatureFlowImageFilter diverged at {cells}^2 with TimeStep {step:.3e}")
        rows.append({"cells": cells, "method": "CurvatureFlowImageFilter", "backend": name, "real": "float",
                     "steps": f"{iterations} x {step:.3e}", "iterations": iterations, "timeStep": step,
                     "seconds": best, "secondsPerStep": best / iterations, "finalTime": iterations * step,
                     "rmsChange": rms(output, initial)})
    return rows


def print_table(rows):
    header = ["N", "method", "backend/device", "steps", "s", "ms/step", "ns/node/step", "RMS change"]
    table = [header]
    for r in rows:
        nodes = (r["cells"] + 1) ** 2
        table.append([f"{r['cells']}^2", r["method"], r["backend"], r["steps"], f"{r['seconds']:.3f}",
                      f"{1e3 * r['secondsPerStep']:.3f}", f"{1e9 * r['secondsPerStep'] / nodes:.2f}",
                      f"{r['rmsChange']:.4f}" if "rmsChange" in r else "-"])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(c.ljust(w) if i < 4 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default=os.path.join("build", "bin", "flow_bench"), help="the C++ benchmark")
    parser.add_argument("--sizes", default="512,1024", help="N of the (N + 1)^2-node grids")
    parser.add_argument("--time", type=float, default=0.002, help="the time horizon T of both flows")
    parser.add_argument("--devices", default="", help="passed to flow_bench (default: every OpenCL device)")
    parser.add_argument("--repeats", type=int, default=0, help="runs per row, best taken (flow_bench's default; "
                        "ITK: 1)")
    parser.add_argument("--images", help="run ITK on the images flow_bench --save wrote here instead of running it")
    parser.add_argument("--bench-json", help="with --images: the JSON of that flow_bench run (our rows)")
    parser.add_argument("--json", default="flow_compare.json")
    parser.add_argument("--quick", action="store_true", help="64^2 to T = 1e-3 (smoke test)")
    args = parser.parse_args(argv)
    if args.bench_json and not args.images:
        parser.error("--bench-json needs --images")
    if args.quick:
        args.sizes, args.time = "64", 1e-3
    if not args.time > 0:
        parser.error("--time must be > 0")
    cells_list = [int(s) for s in args.sizes.split(",") if s]

    with tempfile.TemporaryDirectory() as scratch:
        if args.images:
            directory = args.images
            bench = {"results": []}
            if args.bench_json:
                with open(args.bench_json) as f:
                    bench = json.load(f)
        else:
            directory = scratch
            bench = run_bench(args, directory)
        rows = ours_rows(bench, directory) + itk_rows(args, directory, cells_list)
    rows.sort(key=lambda r: (r["cells"], r["method"] != "graph MCF, Runge-Kutta-Merson"))
    print(f"\nMCF of sin(3 pi |x|) on (-2,2)^2, Neumann, to T = {args.time:g}: ours (flow_bench) and ITK's "
          "CurvatureFlowImageFilter on the same image")
    print_table(rows)
    summary = {"benchmark": "flow_compare", "quick": args.quick, "finalTime": args.time, "sizes": cells_list,
               "machine": platform.processor() or platform.machine(), "cpuCount": os.cpu_count(),
               "bench": {"devices": bench.get("devices"), "backends": bench.get("backends")}, "results": rows}
    write_json(args.json, summary, indent=2)
    print(f"\nwrote {args.json}")
    return summary


if __name__ == "__main__":
    main()
