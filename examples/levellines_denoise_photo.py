#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Level-line (PI-PD) denoising of a photograph beside plain TV and BM3D.

Takes scikit-image's bundled "camera" photograph (512 x 512, no download),
adds Gaussian noise of ``--sigma`` on the 0-255 scale (fixed seed), clipped and
rounded as an 8-bit camera delivers it (the protocol of [Perrot2013]), and
denoises it with

- ``itkgpurestoration.denoise_level_lines`` (defaults: PI-PD, sigma given) and
  its hybrid mode,
- ``itkgpurestoration.denoise_tv`` at the lam of the best PSNR among ``--lams``,
- BM3D (PyPI ``bm3d``) where installed, the quality reference,

then writes a PNG panel with the PSNR and time of each in its title:

    noisy | level lines | level lines hybrid | plain TV | BM3D

    python3 examples/levellines_denoise_photo.py [--output out/levellines_photo.png] [--size 512]
        [--sigma 25] [--crop 256] [--backend auto|cpu|opencl] [--device SELECTION]

Needs the package (``python3 -m pip install .`` from the repository root) and
scikit-image (whose dependency Pillow draws the titles).
"""

import argparse
import os
import time

import numpy as np

DEFAULT_SIGMA = 25.0
SEED = 2026  # fixed, so that runs are comparable
DEFAULT_LAMS = (6.0, 9.0, 12.0, 16.0, 22.0)  # TV weights tried, for images scaled to [0, 1]
TITLE_HEIGHT = 18


def positive(text):
    value = float(text)
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"needs a finite number > 0, got {text!r}")
    return value


def positive_list(text):
    return tuple(positive(t) for t in text.split(","))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=os.path.join("out", "levellines_photo.png"), help="PNG panel to write")
    parser.add_argument("--size", type=int, default=512, choices=[128, 256, 512], help="image side in pixels")
    parser.add_argument("--sigma", type=positive, default=DEFAULT_SIGMA, help="noise stddev, 0-255 scale")
    parser.add_argument("--crop", type=int, default=0,
                        help="show only a crop of this side around the photographer's head and camera (0: all)")
    parser.add_argument("--lams", type=positive_list, default=DEFAULT_LAMS, help="comma-separated TV lams to try")
    parser.add_argument("--no-bm3d", action="store_true", help="leave BM3D out even when installed")
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "opencl"])
    parser.add_argument("--device", default="", help="OpenCL device selection (see itkgpurestoration.list_devices())")
    return parser.parse_args(argv)


def photograph(size):
    """scikit-image's camera on 0-255, downscaled to size x size by block means."""
    import skimage.data

    clean = skimage.data.camera().astype(np.float64)
    k = clean.shape[0] // size
    return clean.reshape(size, k, size, k).mean(axis=(1, 3))


def psnr(clean, image):
    return float(10 * np.log10(255.0**2 / np.mean((np.asarray(image, np.float64) - clean) ** 2)))


def timed(run):
    start = time.perf_counter()
    result = run()
    return result, time.perf_counter() - start


def titled(image, title, crop=0):
    """The image (0-255), or its crop x crop part at the head and camera, under a white title bar holding title."""
    from PIL import Image, ImageDraw

    if crop:
        top, left = [max(0, min(n - crop, int(f * n) - crop // 2)) for f, n in zip((0.38, 0.59), image.shape)]
        image = image[top : top + crop, left : left + crop]

    bar = Image.new("L", (image.shape[1], TITLE_HEIGHT), 255)
    ImageDraw.Draw(bar).text((4, 3), title, fill=0)
    return np.vstack([np.asarray(bar), np.round(np.clip(image, 0, 255)).astype(np.uint8)])


def main(argv=None):
    """Runs the example; returns a dict with the numbers it printed (used by the tests)."""
    import skimage.io

    import itkgpurestoration as igr

    args = parse_args(argv)
    clean = photograph(args.size)
    rng = np.random.default_rng(SEED)
    noisy = np.clip(np.round(clean + args.sigma * rng.standard_normal(clean.shape)), 0, 255).astype(np.float32)
    execution = dict(backend=args.backend, device=args.device)

    igr.denoise_level_lines(noisy, sigma=args.sigma, **execution)  # warm-up: the OpenCL program build
    (lines, report), lines_s = timed(
        lambda: igr.denoise_level_lines(noisy, sigma=args.sigma, return_report=True, **execution))
    hybrid, hybrid_s = timed(lambda: igr.denoise_level_lines(noisy, sigma=args.sigma, mode="hybrid", **execution))
    panels = [
        titled(noisy, f"noisy: {psnr(clean, noisy):.2f} dB", args.crop),
        titled(lines, f"level lines: {psnr(clean, lines):.2f} dB, {1e3 * lines_s:.0f} ms", args.crop),
        titled(hybrid, f"hybrid: {psnr(clean, hybrid):.2f} dB, {1e3 * hybrid_s:.0f} ms", args.crop),
    ]

    print("plain TV (image scaled to [0, 1]):")
    tv = None
    for lam in args.lams:
        result, seconds = timed(lambda: 255 * igr.denoise_tv(noisy / 255, lam=lam, **execution))
        value = psnr(clean, result)
        print(f"  lam {lam:6.3g}: PSNR {value:6.2f} dB, {seconds:6.2f} s")
        if tv is None or value > tv[0]:
            tv = (value, lam, result, seconds)
    panels.append(titled(tv[2], f"TV lam={tv[1]:.3g}: {tv[0]:.2f} dB, {tv[3]:.1f} s", args.crop))

    psnr_bm3d = None
    try:
        import bm3d
    except ImportError:
        bm3d = None
        print("BM3D: not installed (pip install bm3d), left out of the panel")
    if bm3d is not None and not args.no_bm3d:
        result, seconds = timed(lambda: 255 * bm3d.bm3d(noisy / 255, sigma_psd=args.sigma / 255))
        psnr_bm3d = psnr(clean, result)
        panels.append(titled(result, f"BM3D: {psnr_bm3d:.2f} dB, {seconds:.1f} s", args.crop))

    directory = os.path.dirname(args.output)
    if directory:
        os.makedirs(directory, exist_ok=True)
    skimage.io.imsave(args.output, np.hstack(panels), check_contrast=False)

    print(f"image:       camera {args.size} x {args.size}, noise sigma {args.sigma:g}, PSNR {psnr(clean, noisy):.2f} dB")
    print(f"backend:     {report['description']} ({report['backend_reason']})")
    print(f"level lines: PSNR {psnr(clean, lines):.2f} dB, mean length {report['mean_length']:.1f} px, "
          f"{1e3 * lines_s:.1f} ms")
    print(f"hybrid:      PSNR {psnr(clean, hybrid):.2f} dB, {1e3 * hybrid_s:.1f} ms")
    print(f"TV:          lam {tv[1]:.4g}, PSNR {tv[0]:.2f} dB, {tv[3]:.2f} s")
    if psnr_bm3d is not None:
        print(f"BM3D:        PSNR {psnr_bm3d:.2f} dB")
    print(f"wrote:       {args.output}")
    return {
        "psnr_noisy": psnr(clean, noisy),
        "psnr_level_lines": psnr(clean, lines),
        "psnr_hybrid": psnr(clean, hybrid),
        "psnr_tv": tv[0],
        "lam": tv[1],
        "psnr_bm3d": psnr_bm3d,
        "output": args.output,
    }


if __name__ == "__main__":
    main()
