#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""L1-mean-curvature denoising of a photograph beside plain TV, each at its best setting.

Takes scikit-image's bundled "camera" photograph (no download), downscaled to
``--size`` pixels (256 by default: 2 x 2 means of the 512 x 512 original, so
the sweep runs in about a minute on two CPU cores), scales it to [0, 1], adds
Gaussian noise (fixed seed), and denoises it with

- ``itkgpurestoration.denoise_l1_mean_curvature`` at the r0 of the best PSNR
  among ``--r0-factors`` times the r0 chosen from the noise level, and
- ``itkgpurestoration.denoise_tv`` at the lam of the best PSNR among ``--lams``,

then writes a PNG panel with the PSNR of each in its title:

    noisy | L1 mean curvature | plain TV

    python3 examples/l1mc_denoise_photo.py [--output out/l1mc_photo.png] [--size 256]
        [--sigma 0.1] [--backend auto|cpu|opencl] [--device SELECTION]

Needs the package (``python3 -m pip install .`` from the repository root) and
scikit-image (whose dependency Pillow draws the titles).
"""

import argparse
import os
import time

import numpy as np

DEFAULT_SIGMA = 0.1
SEED = 2024  # fixed, so that runs are comparable
# Multiples of the r0 that sigma picks (l1mc_r0_for_noise), and the TV weights, that the sweep tries.
DEFAULT_R0_FACTORS = (0.5, 0.7, 1.0, 1.4, 2.0)
DEFAULT_LAMS = (6.0, 8.0, 10.0, 12.0, 15.0, 19.0)
TITLE_HEIGHT = 18


def to_uint8(image):
    """[0, 1] -> uint8, clipping what the noise pushed outside the window."""
    return np.round(255.0 * np.clip(image, 0.0, 1.0)).astype(np.uint8)


def positive(text):
    value = float(text)
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"needs a finite number > 0, got {text!r}")
    return value


def positive_list(text):
    return tuple(positive(t) for t in text.split(","))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=os.path.join("out", "l1mc_photo.png"), help="PNG panel to write")
    parser.add_argument("--size", type=int, default=256, choices=[128, 256, 512], help="image side in pixels")
    parser.add_argument("--sigma", type=positive, default=DEFAULT_SIGMA, help="noise stddev (default %(default)s)")
    parser.add_argument("--r0-factors", type=positive_list, default=DEFAULT_R0_FACTORS,
                        help="comma-separated multiples of the automatic r0 to try")
    parser.add_argument("--lams", type=positive_list, default=DEFAULT_LAMS, help="comma-separated TV lams to try")
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "opencl"])
    parser.add_argument("--device", default="", help="OpenCL device selection (see itkgpurestoration.list_devices())")
    return parser.parse_args(argv)


def photograph(size):
    """scikit-image's camera in [0, 1], downscaled to size x size by block means."""
    import skimage.data

    clean = skimage.data.camera().astype(np.float64) / 255.0
    k = clean.shape[0] // size
    return clean.reshape(size, k, size, k).mean(axis=(1, 3))


def best_of(run, settings, clean):
    """(PSNR, setting, result, report, seconds) of the setting whose result has the best PSNR against clean."""
    from skimage.metrics import peak_signal_noise_ratio

    best = None
    for setting in settings:
        start = time.perf_counter()
        result, report = run(setting)
        seconds = time.perf_counter() - start
        psnr = peak_signal_noise_ratio(clean, result, data_range=1.0)
        print(f"  {setting:10.4g}: PSNR {psnr:6.2f} dB, {report['iterations']:4d} iterations, {seconds:6.2f} s")
        if best is None or psnr > best[0]:
            best = (psnr, setting, result, report, seconds)
    return best


def titled(image, title):
    """The uint8 image under a white title bar holding title (Pillow's built-in font)."""
    from PIL import Image, ImageDraw

    bar = Image.new("L", (image.shape[1], TITLE_HEIGHT), 255)
    ImageDraw.Draw(bar).text((4, 3), title, fill=0)
    return np.vstack([np.asarray(bar), to_uint8(image)])


def main(argv=None):
    """Runs the example; returns a dict with the numbers it printed (used by the tests)."""
    import skimage.io
    from skimage.metrics import peak_signal_noise_ratio

    import itkgpurestoration as igr

    args = parse_args(argv)
    clean = photograph(args.size)
    noisy = clean + args.sigma * np.random.default_rng(SEED).standard_normal(clean.shape)
    execution = dict(backend=args.backend, device=args.device)
    # data_range 1: the photograph's scale, not the noisy image's wider max - min.
    r0_auto = igr.l1mc_r0_for_noise(args.sigma)

    print(f"L1 mean curvature (r0 from sigma {args.sigma}: {r0_auto:.4g}):")
    l1mc = best_of(
        lambda r0: igr.denoise_l1_mean_curvature(noisy, r0=r0, data_range=1.0, return_report=True, **execution),
        [f * r0_auto for f in args.r0_factors],
        clean,
    )
    print("plain TV:")
    tv = best_of(lambda lam: igr.denoise_tv(noisy, lam=lam, return_report=True, **execution), args.lams, clean)

    psnr_noisy = peak_signal_noise_ratio(clean, noisy, data_range=1.0)
    panel = np.hstack(
        [
            titled(noisy, f"noisy: {psnr_noisy:.2f} dB"),
            titled(l1mc[2], f"L1MC r0={l1mc[1]:.3g}: {l1mc[0]:.2f} dB"),
            titled(tv[2], f"TV lam={tv[1]:.3g}: {tv[0]:.2f} dB"),
        ]
    )
    directory = os.path.dirname(args.output)
    if directory:
        os.makedirs(directory, exist_ok=True)
    skimage.io.imsave(args.output, panel, check_contrast=False)

    print(f"image:   camera {args.size} x {args.size}, noise sigma {args.sigma}, PSNR {psnr_noisy:.2f} dB")
    print(f"backend: {l1mc[3]['description']} ({l1mc[3]['backend_reason']})")
    print(f"L1MC:    r0 {l1mc[1]:.4g}, PSNR {l1mc[0]:.2f} dB, {l1mc[3]['iterations']} iterations, {l1mc[4]:.2f} s")
    print(f"TV:      lam {tv[1]:.4g}, PSNR {tv[0]:.2f} dB, {tv[3]['iterations']} iterations, {tv[4]:.2f} s")
    print(f"wrote:   {args.output} (noisy | L1 mean curvature | plain TV)")
    return {
        "psnr_noisy": psnr_noisy,
        "psnr_l1mc": l1mc[0],
        "r0": l1mc[1],
        "r0_auto": r0_auto,
        "psnr_tv": tv[0],
        "lam": tv[1],
        "output": args.output,
    }


if __name__ == "__main__":
    main()
