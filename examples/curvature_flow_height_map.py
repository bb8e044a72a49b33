#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fairing of a noisy height map by curvature flows of graphs, beside ITK's curvature flows and plain TV.

Makes a synthetic terrain (smooth hills on a gentle slope, with one cliff of 8
units: heights in units of the pixel spacing, so the height map is a surface
in space), adds Gaussian noise (sigma 1, fixed seed, as a range scanner's),
and smooths it with

- ``itkgpurestoration.graph_mean_curvature_flow`` to time T (length^2),
- ``itkgpurestoration.willmore_flow`` to time T^2 (length^4: the same
  smoothing length sqrt(T) in the linear limit, heat equation against
  biharmonic),
- ITK's ``CurvatureFlowImageFilter`` and ``MinMaxCurvatureFlowImageFilter``
  to the same T (time step 0.125, T / 0.125 iterations; through SimpleITK,
  which wraps these ITK filters: the ``itk`` package's itk-core lacks the
  ITKCurvatureFlow module),
- ``itkgpurestoration.denoise_tv`` with lam chosen from the noise level,

then prints and writes the figures of merit: PSNR against the clean surface
(over the whole map, and away from the cliff), the surface area relative to
the clean one (noise inflates it), and the cliff's height kept across +-2
pixels (edge sharpness). The PNG shows each surface as shaded relief (light
from the north-west) under its numbers:

    clean | noisy | graph mean curvature | Willmore
    ITK CurvatureFlow | ITK MinMaxCurvatureFlow | TV | |error| of mean curvature (black: sigma)

    python3 examples/curvature_flow_height_map.py [--output out/curvature_flow_height_map.png]
        [--size 256] [--time 2] [--backend auto|cpu|opencl] [--device SELECTION]

Needs the package (``python3 -m pip install .`` from the repository root),
SimpleITK and scikit-image (whose dependency Pillow draws the titles).
"""

import argparse
import os
import time

import numpy as np

SEED = 16  # fixed, so that runs are comparable
SIGMA = 1.0  # the noise, in units of the spacing
CLIFF = 8.0  # the cliff's height
ITK_TIME_STEP = 0.125  # stable for ITK's explicit 2D curvature flows (their default is 0.05)
TITLE_HEIGHT = 30


def positive(text):
    value = float(text)
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"needs a finite number > 0, got {text!r}")
    return value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=os.path.join("out", "curvature_flow_height_map.png"),
                        help="PNG panel to write")
    parser.add_argument("--size", type=int, default=256, help="side of the height map in pixels (>= 32)")
    parser.add_argument("--time", type=positive, default=2.0,
                        help="the time T of the second-order flows, in pixels^2 (default %(default)s)")
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "opencl"])
    parser.add_argument("--device", default="", help="OpenCL device selection (see itkgpurestoration.list_devices())")
    args = parser.parse_args(argv)
    if args.size < 32:
        parser.error(f"--size must be >= 32, got {args.size}")
    return args


def terrain(size):
    """(clean height map, signed distance of each pixel from the cliff) of a size x size terrain.

    The layout is drawn on the unit square and scaled with the size, so the
    slopes are the same at every size: twelve Gaussian hills and hollows, a
    slope of 0.08, and a cliff of CLIFF across a straight line (a logistic
    step 0.7 pixels wide).
    """
    rng = np.random.default_rng(SEED)
    scale = size / 256.0
    y, x = np.mgrid[:size, :size].astype(np.float64)
    z = 0.08 * x
    for _ in range(12):
        cx, cy = rng.uniform(0, size, 2)
        width = rng.uniform(15, 45) * scale
        z += rng.uniform(-25, 35) * scale * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * width**2))
    distance = (x + 0.4 * y - 200 * scale) / np.sqrt(1.16)
    return z + CLIFF / (1 + np.exp(-distance / 0.7)), distance


def graph_area(u):
    """The area of the graph over the pixels' rectangle at unit spacing, per pixel of the domain."""
    ux = (np.diff(u, axis=1)[:-1] + np.diff(u, axis=1)[1:]) / 2
    uy = (np.diff(u, axis=0)[:, :-1] + np.diff(u, axis=0)[:, 1:]) / 2
    return float(np.mean(np.sqrt(1 + ux**2 + uy**2)))


def figures_of_merit(u, clean, distance):
    """PSNR (whole map and more than 6 pixels from the cliff), area ratio and the cliff's height kept at +-2 px."""
    peak = (clean.max() - clean.min()) ** 2

    def psnr(mask):
        return float(10 * np.log10(peak / np.mean((u - clean)[mask] ** 2)))

    high = (distance > 1.5) & (distance < 2.5)
    low = (distance < -1.5) & (distance > -2.5)
    return {
        "psnr": psnr(np.ones(u.shape, bool)),
        "psnr_smooth": psnr(np.abs(distance) > 6),
        "area_ratio": graph_area(u) / graph_area(clean),
        "cliff_kept": float((u[high].mean() - u[low].mean()) / (clean[high].mean() - clean[low].mean())),
    }


def itk_flows(noisy, final_time):
    """ITK's CurvatureFlowImageFilter and MinMaxCurvatureFlowImageFilter (stencil radius 2) to final_time."""
    import SimpleITK as sitk

    image = sitk.GetImageFromArray(noisy.astype(np.float32))
    iterations = max(1, int(round(final_time / ITK_TIME_STEP)))
    curvature = sitk.CurvatureFlow(image, timeStep=ITK_TIME_STEP, numberOfIterations=iterations)
    minmax = sitk.MinMaxCurvatureFlow(image, timeStep=ITK_TIME_STEP, numberOfIterations=iterations, stencilRadius=2)
    return (sitk.GetArrayFromImage(curvature).astype(np.float64), sitk.GetArrayFromImage(minmax).astype(np.float64),
            iterations)


def shaded(u):
    """Shaded relief of a height map at unit spacing, light from the north-west 45 degrees up, as uint8."""
    gy, gx = np.gradient(u)
    light = np.array([-1.0, -1.0, np.sqrt(2.0)]) / 2.0  # (x, y, z): from the upper left, 45 degrees up
    shade = (-gx * light[0] - gy * light[1] + light[2]) / np.sqrt(1 + gx**2 + gy**2)
    return np.round(255 * np.clip(shade, 0, 1)).astype(np.uint8)


def titled(tile, lines):
    """The uint8 tile under a white title bar holding two lines of text (Pillow's built-in font)."""
    from PIL import Image, ImageDraw

    bar = Image.new("L", (tile.shape[1], TITLE_HEIGHT), 255)
    draw = ImageDraw.Draw(bar)
    for k, line in enumerate(lines):
        draw.text((4, 3 + 13 * k), line, fill=0)
    return np.vstack([np.asarray(bar), tile])


def main(argv=None):
    """Runs the example; returns a dict with the numbers it printed (used by the tests)."""
    import skimage.io

    import itkgpurestoration as igr

    args = parse_args(argv)
    clean, distance = terrain(args.size)
    noisy = clean + SIGMA * np.random.default_rng(SEED).standard_normal(clean.shape)
    execution = dict(backend=args.backend, device=args.device)
    T = args.time

    results, reports, seconds = {}, {}, {}

    def timed(name, run):
        start = time.perf_counter()
        out = run()
        seconds[name] = time.perf_counter() - start
        results[name], reports[name] = out if isinstance(out, tuple) else (out, None)

    timed("graph mean curvature", lambda: igr.graph_mean_curvature_flow(noisy, T, return_report=True, **execution))
    timed("Willmore", lambda: igr.willmore_flow(noisy, T**2, return_report=True, **execution))
    start = time.perf_counter()
    results["ITK CurvatureFlow"], results["ITK MinMaxCurvatureFlow"], iterations = itk_flows(noisy, T)
    seconds["ITK CurvatureFlow"] = seconds["ITK MinMaxCurvatureFlow"] = (time.perf_counter() - start) / 2
    timed("TV", lambda: igr.denoise_tv(noisy, sigma=SIGMA, return_report=True, **execution))

    merit = {"noisy": figures_of_merit(noisy, clean, distance)}
    merit.update({name: figures_of_merit(u, clean, distance) for name, u in results.items()})

    print(f"terrain {args.size} x {args.size}, heights {clean.min():.1f} to {clean.max():.1f}, cliff {CLIFF}, "
          f"noise sigma {SIGMA}; T = {T} (Willmore: T^2 = {T**2}; ITK: {iterations} steps of {ITK_TIME_STEP})")
    print(f"{'':24s} {'PSNR':>7s} {'smooth':>7s} {'area':>6s} {'cliff':>6s} {'seconds':>8s}  steps")
    for name, m in merit.items():
        report = reports.get(name)
        steps = ""
        if report is not None and "accepted_steps" in report:
            steps = f"{report['accepted_steps']} accepted, {report['rejected_steps']} rejected ({report['description']})"
        elif report is not None:
            steps = f"lam {report['lam']:.3g}, {report['iterations']} iterations"
        print(f"{name:24s} {m['psnr']:7.2f} {m['psnr_smooth']:7.2f} {m['area_ratio']:6.3f} {m['cliff_kept']:6.1%} "
              f"{seconds.get(name, 0.0):8.2f}  {steps}")

    def tile(name, u, title):
        m = merit[name]
        return titled(shaded(u), [title, f"{m['psnr']:.1f} dB, cliff {m['cliff_kept']:.0%}"])

    error = np.abs(results["graph mean curvature"] - clean)
    error_tile = np.round(255 * np.clip(1 - error / SIGMA, 0, 1)).astype(np.uint8)
    rows = [
        [titled(shaded(clean), ["clean", f"area {graph_area(clean):.3f} / px"]),
         tile("noisy", noisy, f"noisy, sigma {SIGMA:g}"),
         tile("graph mean curvature", results["graph mean curvature"], f"graph mean curvature T={T:g}"),
         tile("Willmore", results["Willmore"], f"Willmore T={T**2:g}")],
        [tile("ITK CurvatureFlow", results["ITK CurvatureFlow"], f"ITK CurvatureFlow T={T:g}"),
         tile("ITK MinMaxCurvatureFlow", results["ITK MinMaxCurvatureFlow"], f"ITK MinMaxCurvature T={T:g}"),
         tile("TV", results["TV"], f"TV lam={reports['TV']['lam']:.2g}"),
         titled(error_tile, ["|mean curvature - clean|", f"black: >= sigma = {SIGMA:g}"])],
    ]
    panel = np.vstack([np.hstack(row) for row in rows])
    directory = os.path.dirname(args.output)
    if directory:
        os.makedirs(directory, exist_ok=True)
    skimage.io.imsave(args.output, panel, check_contrast=False)
    print(f"wrote {args.output}")
    return {"merit": merit, "reports": reports, "itk_iterations": iterations, "output": args.output}


if __name__ == "__main__":
    main()
