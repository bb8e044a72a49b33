#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Total-variation denoising of a real photograph with itkgpurestoration.

Takes scikit-image's bundled "camera" photograph (512 x 512, no download),
scales it to [0, 1], adds Gaussian noise (fixed seed), denoises it with
``itkgpurestoration.denoise_tv`` and writes a PNG panel

    noisy | denoised | clean

(uint8, each image shown over the same window [0, 1]). Prints PSNR and SSIM of
the noisy and the denoised image against the clean one.

    python3 examples/tv_denoise_photo.py [--output out/tv_photo.png] [--lam 12]
                                         [--sigma 0.1] [--backend auto|cpu|opencl] [--device SELECTION]

Needs the package (``python3 -m pip install .`` from the repository root) and scikit-image.
"""

import argparse
import os
import time

import numpy as np

# lam = 12 for sigma = 0.1 (intensities in [0, 1], unit pixel spacing). A scan of
# lam with this seed (noisy: PSNR 19.99 dB, SSIM 0.28) gave PSNR / SSIM
#   lam  5: 26.86 / 0.720    8: 28.06 / 0.750   10: 28.57 / 0.768   11: 28.74 / 0.772
#   lam 12: 28.82 / 0.769   12.5: 28.83 / 0.765  13: 28.81 / 0.759   14: 28.73 / 0.742
#   lam 17: 28.14 / 0.673   20: 27.33 / 0.604
# The PSNR plateau is 11.5-13; 12 is within 0.01 dB of the best PSNR and keeps a
# better SSIM than 12.5-13 (fewer flattened textures in the grass). Other noise
# seeds give the same +8.8 dB. The best lam scales roughly like 1/sigma.
DEFAULT_LAM = 12.0
DEFAULT_SIGMA = 0.1
SEED = 2024  # fixed, so that runs are comparable


def to_uint8(image):
    """[0, 1] -> uint8, clipping what the noise pushed outside the window."""
    return np.round(255.0 * np.clip(image, 0.0, 1.0)).astype(np.uint8)


def positive(text):
    value = float(text)
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"needs a finite number > 0, got {text!r}")
    return value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=os.path.join("out", "tv_photo.png"), help="PNG panel to write")
    parser.add_argument("--lam", type=positive, default=DEFAULT_LAM, help="fidelity weight (default %(default)s)")
    parser.add_argument("--sigma", type=positive, default=DEFAULT_SIGMA, help="noise stddev (default %(default)s)")
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "opencl"])
    parser.add_argument("--device", default="", help="OpenCL device selection (see itkgpurestoration.list_devices())")
    return parser.parse_args(argv)


def main(argv=None):
    """Runs the example; returns a dict with the numbers it printed (used by the tests)."""
    import skimage.data
    import skimage.io
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    import itkgpurestoration as igr

    args = parse_args(argv)
    clean = skimage.data.camera().astype(np.float32) / 255.0
    rng = np.random.default_rng(SEED)
    noisy = (clean + args.sigma * rng.standard_normal(clean.shape)).astype(np.float32)

    start = time.perf_counter()
    denoised, report = igr.denoise_tv(
        noisy, lam=args.lam, backend=args.backend, device=args.device, return_report=True
    )
    seconds = time.perf_counter() - start

    result = {
        "psnr_noisy": peak_signal_noise_ratio(clean, noisy, data_range=1.0),
        "psnr_denoised": peak_signal_noise_ratio(clean, denoised, data_range=1.0),
        "ssim_noisy": structural_similarity(clean, noisy, data_range=1.0),
        "ssim_denoised": structural_similarity(clean, denoised, data_range=1.0),
        "output": args.output,
    }
    panel = np.hstack([to_uint8(noisy), to_uint8(denoised), to_uint8(clean)])
    directory = os.path.dirname(args.output)
    if directory:
        os.makedirs(directory, exist_ok=True)
    skimage.io.imsave(args.output, panel, check_contrast=False)

    print(f"image:         camera {clean.shape[1]} x {clean.shape[0]}, noise sigma {args.sigma}, lambda {args.lam}")
    print(f"backend:       {report['description']} ({report['backend_reason']})")
    print(f"iterations:    {report['iterations']}{' (converged)' if report['converged'] else ''}, {seconds:.2f} s")
    print(f"PSNR noisy:    {result['psnr_noisy']:.2f} dB   SSIM {result['ssim_noisy']:.3f}")
    print(f"PSNR denoised: {result['psnr_denoised']:.2f} dB   SSIM {result['ssim_denoised']:.3f}")
    print(f"wrote:         {args.output} (noisy | denoised | clean)")
    return result


if __name__ == "__main__":
    main()
