#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Deblurring a sparse astronomical image from compressed measurements, beside Richardson-Lucy.

Takes scikit-image's bundled Hubble deep field (no download), in grey, a
``--size`` x ``--size`` crop of its centre; subtracts the sky at the 90th
percentile (the faint 90 % of the pixels become 0: a sparse scene of stars and
galaxies); blurs it with a Gaussian point-spread function of ``--psf-sigma``
pixels (periodic convolution) and measures it compressed, ``m = --ratio * n``
partial circulant measurements of the blurred image [Fiandrotti2018, §5].
Then it compares

- ``itkgpurestoration.recover_sparse`` with the PSF (nonnegative LASSO, FISTA):
  deblurring directly from the m compressed measurements, and
- Richardson-Lucy [Richardson1972; Lucy1974] (``skimage.restoration.richardson_lucy``)
  on the *fully sampled* blurred image (n values, twice as many at the default
  ratio), at the number of iterations of its best PSNR among ``--rl-iterations``,

and writes a PNG panel, each with its PSNR in its title:

    truth | blurred (fully sampled) | Richardson-Lucy | compressed-sensing deblur

    python3 examples/sparse_deblur_hubble.py [--output docs/images/sparse_deblur_hubble.png] [--size 256]
        [--ratio 0.5] [--psf-sigma 2] [--noise 0] [--relative-alpha 1e-4] [--iterations 3000]
        [--solver fista] [--backend auto|cpu|opencl] [--device SELECTION]

Needs the package (``python3 -m pip install .`` from the repository root) and
scikit-image (whose dependency Pillow draws the titles).
"""

import argparse
import os
import time
import warnings

import numpy as np

SEED = 2009  # fixed, so that runs are comparable
SKY_QUANTILE = 0.9  # the faint 90 % of the pixels are sky
DEFAULT_RL_ITERATIONS = (10, 20, 30, 50, 100, 200)
TITLE_HEIGHT = 18


def positive(text):
    value = float(text)
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"needs a finite number > 0, got {text!r}")
    return value


def non_negative(text):
    value = float(text)
    if not np.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"needs a finite number >= 0, got {text!r}")
    return value


def ratio(text):
    value = positive(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"needs a number in (0, 1], got {text!r}")
    return value


def int_list(text):
    return tuple(int(t) for t in text.split(","))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=os.path.join("docs", "images", "sparse_deblur_hubble.png"),
                        help="PNG panel to write")
    parser.add_argument("--size", type=int, default=256, help="side of the centre crop in pixels (16 to 800)")
    parser.add_argument("--ratio", type=ratio, default=0.5, help="measurements per pixel m / n")
    parser.add_argument("--psf-sigma", type=positive, default=2.0, help="Gaussian PSF's sigma in pixels")
    parser.add_argument("--noise", type=non_negative, default=0.0,
                        help="Gaussian noise on the measurements and on the blurred image, relative to the "
                             "blurred image's peak (0: none)")
    parser.add_argument("--relative-alpha", type=positive, default=1e-4, help="the LASSO's alpha / alpha_max")
    parser.add_argument("--iterations", type=int, default=3000, help="iteration budget of the sparse recovery")
    parser.add_argument("--solver", default="fista", choices=["fista", "cpista", "cpadmm"])
    parser.add_argument("--rl-iterations", type=int_list, default=DEFAULT_RL_ITERATIONS,
                        help="comma-separated Richardson-Lucy iteration counts to try (the best PSNR is shown)")
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "opencl"])
    parser.add_argument("--device", default="", help="OpenCL device selection (see itkgpurestoration.list_devices())")
    args = parser.parse_args(argv)
    if not 16 <= args.size <= 800:
        parser.error(f"--size must be between 16 and 800, got {args.size}")
    return args


def sparse_scene(size):
    """The centre size x size crop of the Hubble deep field in grey ([0, 1]), minus the sky (90th percentile)."""
    import skimage.color
    import skimage.data

    grey = skimage.color.rgb2gray(skimage.data.hubble_deep_field())
    top, left = (grey.shape[0] - size) // 2, (grey.shape[1] - size) // 2
    crop = grey[top : top + size, left : left + size]
    return np.maximum(crop - np.quantile(crop, SKY_QUANTILE), 0.0)


def gaussian_psf(sigma):
    """A normalised Gaussian PSF of (2 ceil(3 sigma) + 1)^2 pixels, centred at its middle pixel (size // 2)."""
    radius = int(np.ceil(3 * sigma))
    yy, xx = np.mgrid[-radius : radius + 1, -radius : radius + 1]
    psf = np.exp(-(xx**2 + yy**2) / (2 * sigma**2))
    return psf / psf.sum()


def psnr(truth, image):
    return float(10 * np.log10((truth.max() - truth.min()) ** 2 / np.mean((np.asarray(image) - truth) ** 2)))


def titled(image, title, peak):
    """image as 8 bits (0 to peak, gamma 0.5 to show faint galaxies) under a white title bar holding title."""
    from PIL import Image, ImageDraw

    shown = np.round(255 * np.sqrt(np.clip(image / peak, 0, 1))).astype(np.uint8)
    bar = Image.new("L", (image.shape[1], TITLE_HEIGHT), 255)
    ImageDraw.Draw(bar).text((4, 3), title, fill=0)
    return np.vstack([np.asarray(bar), shown])


def main(argv=None):
    """Runs the example; returns a dict with the numbers it printed (used by the tests)."""
    import skimage.io
    from skimage.restoration import richardson_lucy

    import itkgpurestoration as igr

    args = parse_args(argv)
    truth = sparse_scene(args.size)
    psf = gaussian_psf(args.psf_sigma)
    rng = np.random.default_rng(SEED)

    # The fully sampled blurred image (C = I: the generator e_0, every pixel measured) for Richardson-Lucy, and
    # the compressed measurements of the same blurred scene (a Gaussian circulant C, m = ratio * n pixels).
    identity = np.zeros(truth.shape)
    identity[0, 0] = 1.0
    blurred = igr.measure_circulant(truth, identity, np.ones(truth.shape, np.uint8), psf, backend="cpu")
    generator, mask = igr.circulant_sensing(truth.shape, args.ratio, seed=SEED)
    y = igr.measure_circulant(truth, generator, mask, psf, backend="cpu")
    if args.noise > 0:
        # The same relative noise for both: sigma relative to the blurred image's peak, scaled to the measurements'.
        blurred = blurred + args.noise * blurred.max() * rng.standard_normal(blurred.shape)
        scale = np.std(y[mask == 1]) / np.std(blurred)
        y = y + mask * args.noise * blurred.max() * scale * rng.standard_normal(y.shape)

    execution = dict(backend=args.backend, device=args.device)
    start = time.perf_counter()
    with warnings.catch_warnings():
        # The budget usually ends before the gap tolerance on this ill-conditioned blur; said in the summary below.
        warnings.simplefilter("ignore", igr.ConvergenceWarning)
        recovered, report = igr.recover_sparse(y, mask, generator, psf, solver=args.solver, nonnegative=True,
                                               relative_alpha=args.relative_alpha, max_iterations=args.iterations,
                                               return_report=True, **execution)
    seconds = time.perf_counter() - start

    print("Richardson-Lucy on the fully sampled blurred image:")
    rl = None
    for iterations in args.rl_iterations:
        start = time.perf_counter()
        result = richardson_lucy(np.maximum(blurred, 0), psf, num_iter=iterations, clip=False)
        elapsed = time.perf_counter() - start
        value = psnr(truth, result)
        print(f"  {iterations:4d} iterations: PSNR {value:6.2f} dB, {elapsed:6.2f} s")
        if rl is None or value > rl[0]:
            rl = (value, iterations, result, elapsed)

    peak = truth.max()
    panel = np.hstack([
        titled(truth, "truth (sky subtracted)", peak),
        titled(blurred, f"blurred: {psnr(truth, blurred):.2f} dB", peak),
        titled(rl[2], f"Richardson-Lucy x{rl[1]}: {rl[0]:.2f} dB", peak),
        titled(recovered, f"CS deblur, m = n/{1 / args.ratio:.3g}: {psnr(truth, recovered):.2f} dB", peak),
    ])
    directory = os.path.dirname(args.output)
    if directory:
        os.makedirs(directory, exist_ok=True)
    skimage.io.imsave(args.output, panel, check_contrast=False)

    nonzero = float(np.mean(truth > 0))
    print(f"scene:        Hubble deep field {args.size} x {args.size}, {100 * nonzero:.1f} % nonzero, "
          f"Gaussian PSF sigma {args.psf_sigma:g}, noise {args.noise:g}")
    print(f"blurred:      PSNR {psnr(truth, blurred):.2f} dB (fully sampled, n = {truth.size})")
    print(f"RL:           PSNR {rl[0]:.2f} dB ({rl[1]} iterations, {rl[3]:.2f} s)")
    print(f"CS deblur:    PSNR {psnr(truth, recovered):.2f} dB from m = {report['measurements']} measurements, "
          f"{report['solver']}, {report['iterations']} iterations "
          f"({'converged' if report['converged'] else 'the budget, not converged'}), relative gap "
          f"{report['relative_gap']:.2e}, {seconds:.2f} s")
    print(f"backend:      {report['description']} ({report['backend_reason']})")
    print(f"wrote:        {args.output}")
    return {
        "nonzero": nonzero,
        "psnr_blurred": psnr(truth, blurred),
        "psnr_rl": rl[0],
        "rl_iterations": rl[1],
        "psnr_cs": psnr(truth, recovered),
        "report": report,
        "output": args.output,
    }


if __name__ == "__main__":
    main()
