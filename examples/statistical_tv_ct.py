#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Statistical TV on a simulated industrial CT scan, with itkgpurestoration.

Scans the machined-part phantom (an aluminium-like block with bores, a steel
pin and fine slots; 8 slices of 128 x 128) with Poisson noise and reconstructs
it by filtered back-projection (``itkgpurestoration.make_ct_phantom``, which
also gives the analytic noise variance of every voxel). Then denoises it three
ways, each with its smoothing chosen by the discrepancy principle from that
variance (no parameter to tune; the primal-dual methods' target is calibrated
from the noise's spectrum, TV-GD's is the noise level):

- S-PDU: ``denoise_statistical_tv(noisy, variance)``, the noise-weighted
  model of [Huang2023] (see REFERENCES.md), solved by the default accelerated
  Chambolle-Pock method;
- plain TV: the same with ``weight_exponent=0`` (no weights);
- TV-GD: ``method="tvgd"``, gradient descent until ||u - f||^2 = sum(var).

Writes a PNG panel of the middle slice

    noisy | S-PDU | plain TV | truth

(uint8 over the window [0, 1], each tile enlarged 2x) and prints PSNR and SSIM
against the truth and the SNR (mean / standard deviation, [Huang2023,
eq. (6.7)]) in a homogeneous region of the block.

    python3 examples/statistical_tv_ct.py [--output out/statistical_tv_ct.png]
                                          [--photons 1000] [--backend auto|cpu|opencl] [--device SELECTION]

Needs the package (``python3 -m pip install .`` from the repository root) and scikit-image. The
larger studies (the automatic lambda against the PSNR-best lambda at 96^3, and
where the variance weights help) are in ``statistical_tv_ct_study.py``.
"""

import argparse
import os
import time

import numpy as np

SHAPE = (8, 128, 128)
SEED = 7  # fixed, so that runs are comparable
ZOOM = 2


def to_uint8(image):
    """[0, 1] -> uint8, clipping what the noise pushed outside the window, enlarged ZOOM times."""
    tile = np.round(255.0 * np.clip(image, 0.0, 1.0)).astype(np.uint8)
    return np.repeat(np.repeat(tile, ZOOM, axis=0), ZOOM, axis=1)


def positive(text):
    value = float(text)
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"needs a finite number > 0, got {text!r}")
    return value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=os.path.join("out", "statistical_tv_ct.png"), help="PNG panel to write")
    parser.add_argument("--photons", type=positive, default=1000.0,
                        help="photons per ray of the scan: fewer, more noise (default %(default)s)")
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "opencl"])
    parser.add_argument("--device", default="", help="OpenCL device selection (see itkgpurestoration.list_devices())")
    return parser.parse_args(argv)


def main(argv=None):
    """Runs the example; returns a dict with the numbers it printed (used by the tests)."""
    import skimage.io
    from scipy.ndimage import binary_erosion  # scikit-image depends on SciPy
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    import itkgpurestoration as igr

    args = parse_args(argv)
    scan = igr.make_ct_phantom(SHAPE, "machined-part", photons_per_ray=args.photons, seed=SEED)
    # A homogeneous region: block voxels whose 7 x 7 in-slice neighbourhood is all block.
    roi = binary_erosion(scan.truth == 0.5, structure=np.ones((1, 7, 7), dtype=bool))
    execution = dict(backend=args.backend, device=args.device, return_report=True)
    methods = {
        "S-PDU": dict(),
        "plain TV": dict(weight_exponent=0.0),
        "TV-GD": dict(method="tvgd"),
    }
    images = {"noisy": scan.noisy}
    result = {"output": args.output}
    reports = {}
    for name, options in methods.items():
        start = time.perf_counter()
        images[name], reports[name] = igr.denoise_statistical_tv(scan.noisy, scan.variance, **options, **execution)
        reports[name]["wall_seconds"] = time.perf_counter() - start
    for name, image in images.items():
        region = image[roi].astype(np.float64)
        result[name] = {
            "psnr": peak_signal_noise_ratio(scan.truth, image, data_range=1.0),
            "ssim": structural_similarity(scan.truth, image, data_range=1.0),
            "snr": region.mean() / region.std(),
        }
        if name in reports:
            result[name]["discrepancy"] = reports[name]["discrepancy"]
            result[name]["iterations"] = reports[name]["iterations"]
            # The primal-dual methods' calibrated target; TV-GD stops at ||u - f||^2 = sum(var).
            result[name]["target"] = reports[name].get("discrepancy_target", 1.0)

    middle = SHAPE[0] // 2
    panel = np.hstack([to_uint8(images[name][middle]) for name in ("noisy", "S-PDU", "plain TV")]
                      + [to_uint8(scan.truth[middle])])
    directory = os.path.dirname(args.output)
    if directory:
        os.makedirs(directory, exist_ok=True)
    skimage.io.imsave(args.output, panel, check_contrast=False)

    print(f"scan:     machined part {SHAPE[2]} x {SHAPE[1]} x {SHAPE[0]}, {args.photons:g} photons per ray, "
          f"mean noise sigma {np.sqrt(scan.variance.mean()):.4f}")
    print(f"backend:  {reports['S-PDU']['description']} ({reports['S-PDU']['backend_reason']})")
    print(f"{'':10s} {'PSNR dB':>8s} {'SSIM':>6s} {'ROI SNR':>8s}   smoothing (discrepancy: sum (u - f)^2 / var / N)")
    for name, r in ((name, result[name]) for name in images):
        if name == "noisy":
            how = ""
        elif name == "TV-GD":
            how = f"{r['iterations']} iterations, discrepancy {r['discrepancy']:.3f}"
        else:
            report = reports[name]
            how = (f"lambda {report['lam']:.2f} ({report['solves']} solves), discrepancy {r['discrepancy']:.3f} "
                   f"(calibrated target {report['discrepancy_target']:.3f})")
        seconds = f", {reports[name]['wall_seconds']:.2f} s" if name in reports else ""
        print(f"{name:10s} {r['psnr']:8.2f} {r['ssim']:6.3f} {r['snr']:8.1f}   {how}{seconds}")
    print(f"wrote:    {args.output} (middle slice: noisy | S-PDU | plain TV | truth)")
    return result


if __name__ == "__main__":
    main()
