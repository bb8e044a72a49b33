#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Level-line (PI-PD) denoising beside its peers, time and PSNR in one table.

Runs, on the same noisy images (Gaussian noise of ``--sigma`` on the 0-255
scale, clipped and rounded as an 8-bit camera delivers them):

- ``itkgpurestoration.denoise_level_lines`` in PI-PD and hybrid mode, on the
  CPU reference and on each OpenCL device;
- ITK's median and bilateral filters (through SimpleITK, which wraps them), at
  their PSNR-best radius / sigmas among a few;
- plain TV of this project (``denoise_tv``, CPU reference) at its PSNR-best
  lam among a few;
- scikit-image's non-local means (``denoise_nl_means``, fast mode, the
  settings its gallery recommends for a known sigma);
- BM3D (PyPI ``bm3d``) where installed.

Columns: milliseconds per image at each ``--sizes`` (scikit-image's camera
resized), frames per second on ``--frames`` 1920 x 1080 frames (our stack entry
filters them in one call; peers frame by frame), and the PSNR on camera and on
the astronaut (gray) at 512 x 512. Slow peers skip sizes above
``--slow-max-size``. Prints the table and writes JSON.

    python3 bench/levellines_compare.py [--sizes 512,1024,2048] [--frames 8] [--sigma 25]
        [--devices SELECTION] [--slow-max-size 1024] [--json levellines_compare.json] [--quick]
"""

import argparse
import os
import platform
import time

import numpy as np

from bench_output import write_json

SEED = 14


def noisy_of(clean, sigma, seed):
    rng = np.random.default_rng(seed)
    return np.clip(np.round(clean + sigma * rng.standard_normal(clean.shape)), 0, 255).astype(np.float32)


def psnr(clean, image):
    return float(10 * np.log10(255.0**2 / np.mean((np.asarray(image, np.float64) - clean) ** 2)))


def test_images():
    """The two 512 x 512 photographs of the PSNR columns, float64 on 0-255."""
    import skimage.color
    import skimage.data

    camera = skimage.data.camera().astype(np.float64)
    astronaut = np.round(255 * skimage.color.rgb2gray(skimage.data.astronaut()))
    return {"camera": camera, "astronaut": astronaut}


def resized(image, shape):
    import skimage.transform

    return np.round(skimage.transform.resize(image, shape, order=1, anti_aliasing=True, preserve_range=True))


def timed(run, image, repeats):
    """(median seconds, result) of run(image) after one untimed warm-up."""
    result = run(image)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run(image)
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds)), result


class Method:
    """A denoiser with its settings: name, backend column, run(image) on 0-255 floats, stack-aware or not."""

    def __init__(self, name, backend, run, stack=None, slow=False):
        self.name, self.backend, self.run, self.stack, self.slow = name, backend, run, stack, slow


def ours(sigma, devices):
    import itkgpurestoration as igr

    methods = []
    targets = [("cpu", "CPU reference", "")] + [("opencl", f"OpenCL {d['name']}", str(d["index"])) for d in devices]
    for mode in ("pipd", "hybrid"):
        for backend, label, selection in targets:
            options = dict(sigma=sigma, mode=mode, backend=backend, device=selection)
            run = lambda image, o=options: igr.denoise_level_lines(image, **o)  # noqa: E731
            methods.append(Method(f"level lines {mode}", label, run, stack=run))
    return methods


def best_setting(name, make, settings, clean, noisy):
    """The Method of the PSNR-best setting on one image (peers are given their best chance)."""
    best = None
    for setting in settings:
        value = psnr(clean, make(setting)(noisy))
        if best is None or value > best[0]:
            best = (value, setting)
    print(f"  {name}: best setting {best[1]} ({best[0]:.2f} dB)")
    return best[1]


def peers(sigma, clean, noisy):
    import SimpleITK as sitk

    def median(radius):
        return lambda image: sitk.GetArrayFromImage(sitk.Median(sitk.GetImageFromArray(image), [radius] * 2))

    def bilateral(s):
        return lambda image: sitk.GetArrayFromImage(
            sitk.Bilateral(sitk.GetImageFromArray(image), domainSigma=s[0], rangeSigma=s[1])
        )

    methods = []
    r = best_setting("ITK median", median, [1, 2, 3], clean, noisy)
    methods.append(Method(f"ITK median r={r}", "CPU (SimpleITK)", median(r)))
    b = best_setting("ITK bilateral", bilateral, [(d, k * sigma) for d in (1.5, 3.0) for k in (1.5, 2.5, 4.0)], clean,
                     noisy)
    methods.append(Method(f"ITK bilateral {b[0]}/{b[1]:g}", "CPU (SimpleITK)", bilateral(b), slow=True))

    import itkgpurestoration as igr

    def tv(lam):
        return lambda image: 255 * igr.denoise_tv(image / 255, lam=lam, backend="cpu")

    lam = best_setting("plain TV", tv, [9, 12, 16, 22], clean, noisy)
    methods.append(Method(f"plain TV lam={lam}", "CPU reference (this project)", tv(lam), slow=True))

    from skimage.restoration import denoise_nl_means

    # scikit-image's gallery: h = 0.8 sigma with the sigma given, fast mode, 5x5 patches, 13x13 search.
    def nlm(image):
        return 255 * denoise_nl_means(image / 255, h=0.8 * sigma / 255, sigma=sigma / 255, fast_mode=True,
                                      patch_size=5, patch_distance=6)

    methods.append(Method("scikit-image NL-means", "CPU", nlm, slow=True))
    try:
        import bm3d
    except ImportError:
        print("  BM3D: not installed (pip install bm3d), skipped")
    else:
        from importlib.metadata import version

        methods.append(Method("BM3D", f"CPU (bm3d {version('bm3d')})",
                              lambda image: 255 * bm3d.bm3d(image / 255, sigma_psd=sigma / 255), slow=True))
    return methods


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="512,1024,2048", help="comma-separated square sides to time")
    parser.add_argument("--frames", type=int, default=8, help="1920x1080 frames for the frames/s column (0: none)")
    parser.add_argument("--sigma", type=float, default=25.0, help="noise sigma on the 0-255 scale")
    parser.add_argument("--devices", default="", help="OpenCL selection (itkgpurestoration.list_devices()); none")
    parser.add_argument("--slow-max-size", type=int, default=1024, help="largest side timed for slow peers")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per cell (median)")
    parser.add_argument("--json", default="levellines_compare.json")
    parser.add_argument("--quick", action="store_true", help="128^2 and two small frames, for smoke tests")
    args = parser.parse_args(argv)
    import itkgpurestoration as igr

    sizes = [128] if args.quick else [int(s) for s in args.sizes.split(",")]
    frame_shape = (270, 480) if args.quick else (1080, 1920)
    frames = min(args.frames, 2) if args.quick else args.frames
    devices = [] if args.devices == "none" else [
        d for d in igr.list_devices() if not args.devices or args.devices in (str(d["index"]), d["name"])
    ]
    images = test_images()
    if args.quick:
        images = {k: resized(v, (128, 128)) for k, v in images.items()}
    noisy = {k: noisy_of(v, args.sigma, SEED) for k, v in images.items()}
    print("choosing the peers' settings on camera:")
    methods = ours(args.sigma, devices) + peers(args.sigma, images["camera"], noisy["camera"])

    camera = images["camera"]
    timing_images = {n: noisy_of(resized(camera, (n, n)), args.sigma, SEED + n) for n in sizes}
    clean_frame = resized(camera, frame_shape)
    stack = np.stack([noisy_of(clean_frame, args.sigma, SEED + k) for k in range(frames)]) if frames else None
    rows = []
    for m in methods:
        row = {"method": m.name, "backend": m.backend, "ms": {}, "psnr": {}}
        for name in images:
            row["psnr"][name] = psnr(images[name], m.run(noisy[name]))
        for n, image in timing_images.items():
            if m.slow and n > args.slow_max_size:
                continue
            row["ms"][str(n)] = 1e3 * timed(m.run, image, args.repeats)[0]
        if stack is not None and not (m.slow and max(frame_shape) > args.slow_max_size):
            if m.stack is not None:
                seconds = timed(m.stack, stack, args.repeats)[0]
            else:
                seconds = timed(lambda s: [m.run(f) for f in s], stack, 1)[0]
            row["fps"] = frames / seconds
        rows.append(row)
        print(f"  {m.name} on {m.backend}: done", flush=True)

    header = ["method", "backend"] + [f"ms {n}^2" for n in sizes] + ["fps 1080p"] + [f"PSNR {k}" for k in images]
    table = [header]
    for r in rows:
        table.append([r["method"], r["backend"]]
                     + [f"{r['ms'][str(n)]:.1f}" if str(n) in r["ms"] else "-" for n in sizes]
                     + [f"{r['fps']:.1f}" if "fps" in r else "-"]
                     + [f"{r['psnr'][k]:.2f}" for k in images])
    noisy_row = ["noisy input", ""] + ["" for _ in sizes] + [""] + [f"{psnr(images[k], noisy[k]):.2f}" for k in images]
    table.append(noisy_row)
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    print()
    for row in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    result = {
        "benchmark": "levellines_compare",
        "sigma": args.sigma,
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "frame_shape": list(frame_shape),
        "frames": frames,
        "noisy_psnr": {k: psnr(images[k], noisy[k]) for k in images},
        "timing": "median wall seconds of the Python call after a warm-up, conversions included",
        "results": rows,
    }
    write_json(args.json, result)
    print(f"\nwrote {args.json}")
    return result


if __name__ == "__main__":
    main()
