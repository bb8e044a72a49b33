#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Statistical TV on simulated industrial CT: the automatic lambda against the PSNR-best one.

Two studies, each printed as a table and written as JSON:

``--study ct`` (default): a machined part (96^3) scanned with Poisson noise and
reconstructed by filtered back-projection (180 parallel-beam views), denoised
by statistical TV with the variance given (the generator's analytic FBP
variance, or the empirical variance of 16 further realisations, as in issue 10)
or estimated from the image, and by plain ROF (weight exponent 0). For each:
the automatic lambda (discrepancy principle, calibrated factor) and the
lambda of the best PSNR (a golden-section search on log lambda, which needs
the truth), with PSNR, SSIM (scikit-image, 7^3 window, data range 1), the
solves' iterations and largest relative gap.

``--study weights``: where do the variance weights (gamma = 1, 0.5) gain over
plain TV (gamma = 0)? White Gaussian noise whose variance varies by a factor
R = max/min across a 64^3 machined part (two halves, or a ramp), at a fixed
mean variance, and the CT scans (parallel beam and cone beam): the best PSNR
of each gamma, and that of the automatic lambda.

    python3 examples/statistical_tv_ct_study.py [--study ct|weights] [--size N] [--views N]
        [--photons I0] [--realisations N] [--search-steps N] [--backend auto|cpu|opencl] [--json FILE]

Needs the package (``python3 -m pip install .`` from the repository root) and scikit-image.
"""

import argparse
import math
import os
import sys
import time

import numpy as np

# Examples are not installed: they run from the repository, where bench/'s output helper writes their JSON whole.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "bench"))
from bench_output import write_json  # noqa: E402

GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def psnr(u, truth):
    """PSNR in dB for data range 1 (the phantom's steel pin)."""
    return float(10.0 * np.log10(1.0 / np.mean((np.asarray(u, np.float64) - truth) ** 2)))


def ssim(u, truth):
    from skimage.metrics import structural_similarity

    return float(structural_similarity(truth, np.asarray(u, np.float32), data_range=1.0))


def solve_summary(report):
    """What the solves of a run did: count, iterations, largest relative gap, all converged."""
    history = report["solve_history"]
    return {
        "lam": report["lam"],
        "solves": report["solves"],
        "iterations": [s["iterations"] for s in history],
        "largest_gap": max(s["relative_gap"] for s in history),
        "converged": history[-1]["converged"],
    }


def best_lambda(evaluate, low, high, steps):
    """Golden-section search of the largest PSNR over log lambda in [low, high]; returns (lam, cache)."""
    cache = {}

    def at(log_lam):
        lam = float(math.exp(log_lam))
        if lam not in cache:
            cache[lam] = evaluate(lam)
        return cache[lam]["psnr"]

    a, b = math.log(low), math.log(high)
    for _ in range(steps):
        c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
        if at(c) > at(d):
            b = d
        else:
            a = c
    lam = max(cache, key=lambda k: cache[k]["psnr"])
    return lam, cache


def denoise_row(igr, truth, noisy, variance, execution, gamma, steps, name):
    """Automatic and PSNR-best lambda of one model: a dict for the table."""
    start = time.perf_counter()
    u, report = igr.denoise_statistical_tv(noisy, variance, weight_exponent=gamma, return_report=True, **execution)
    automatic = {"psnr": psnr(u, truth), "ssim": ssim(u, truth), **solve_summary(report),
                 "discrepancy_target": report["discrepancy_target"], "seconds": time.perf_counter() - start}

    def evaluate(lam):
        v, r = igr.denoise_statistical_tv(noisy, variance, lam=lam, weight_exponent=gamma, return_report=True,
                                          **execution)
        return {"psnr": psnr(v, truth), "ssim": ssim(v, truth), "iterations": r["iterations"],
                "gap": r["relative_gap"], "converged": r["converged"]}

    lam, cache = best_lambda(evaluate, report["lam"] / 4.0, report["lam"] * 4.0, steps)
    best = {"lam": lam, **cache[lam], "all_converged": all(c["converged"] for c in cache.values())}
    row = {"name": name, "weight_exponent": gamma, "mean_variance": report["mean_variance"],
           "variance_estimated": report["variance_estimated"], "automatic": automatic, "best": best,
           "loss_db": best["psnr"] - automatic["psnr"]}
    print(f"  {name:44s} auto lam {automatic['lam']:7.2f} {automatic['psnr']:6.2f} dB {automatic['ssim']:.4f}"
          f" | best lam {lam:7.2f} {best['psnr']:6.2f} dB {best['ssim']:.4f} | loss {row['loss_db']:+.3f} dB"
          f" | solves {automatic['solves']}, iterations {automatic['iterations']}, gap <= "
          f"{automatic['largest_gap']:.1e}", flush=True)
    return row


def ct_study(args, igr, execution):
    shape = (args.size,) * 3
    scan = igr.make_ct_phantom(shape, photons_per_ray=args.photons, views=args.views, seed=1)
    truth = scan.truth.astype(np.float64)
    range_ = scan.variance.max() / scan.variance.min()
    print(f"CT scan: machined part {args.size}^3, {args.views} parallel-beam views, {args.photons:g} photons per "
          f"ray, mean FBP noise variance {scan.variance.mean():.3e} (max/min {range_:.1f})")
    estimated, noise = igr.estimate_noise_variance(scan.noisy, return_report=True)
    print(f"estimated variance: mean {estimated.mean():.3e} ({estimated.mean() / scan.variance.mean() - 1:+.1%} of the "
          f"analytic), residual gain {noise['residual_gain']:.3f} (white-noise estimator: "
          f"{igr.estimate_noise_variance(scan.noisy, spectrum='white').mean():.3e})")
    variances = {"analytic variance": scan.variance}
    if args.realisations > 1:
        stack = np.stack([igr.make_ct_phantom(shape, photons_per_ray=args.photons, views=args.views,
                                              seed=100 + k).noisy.astype(np.float64)
                          for k in range(args.realisations)])
        variances[f"variance of {args.realisations} realisations"] = stack.var(axis=0, ddof=1).astype(np.float32)
    rows = []
    print(f"  {'noisy FBP':44s} {psnr(scan.noisy, truth):6.2f} dB {ssim(scan.noisy, truth):.4f}")
    for label, variance in variances.items():
        rows.append(denoise_row(igr, truth, scan.noisy, variance, execution, 1.0, args.search_steps,
                                f"statistical TV, {label}"))
    rows.append(denoise_row(igr, truth, scan.noisy, None, execution, 1.0, args.search_steps,
                            "statistical TV, variance estimated"))
    rows.append(denoise_row(igr, truth, scan.noisy, scan.variance, execution, 0.0, args.search_steps,
                            "plain ROF (gamma 0), analytic variance"))
    plain, report = igr.denoise_statistical_tv(scan.noisy, scan.variance, discrepancy_factor=1.0, return_report=True,
                                               **execution)
    factor_one = {"lam": report["lam"], "psnr": psnr(plain, truth), "ssim": ssim(plain, truth)}
    print(f"  {'statistical TV, analytic variance, factor 1':44s} auto lam {factor_one['lam']:7.2f} "
          f"{factor_one['psnr']:6.2f} dB {factor_one['ssim']:.4f} (the plain discrepancy principle)")
    return {"study": "ct", "size": args.size, "views": args.views, "photons_per_ray": args.photons,
            "true_mean_variance": float(scan.variance.mean()),
            "variance_range": float(scan.variance.max() / scan.variance.min()),
            "estimated_mean_variance": float(estimated.mean()), "noise_estimation": noise,
            "noisy": {"psnr": psnr(scan.noisy, truth), "ssim": ssim(scan.noisy, truth)},
            "rows": rows, "factor_one": factor_one}


def varying_noise(truth, ratio, layout, mean_variance, seed):
    """White Gaussian noise whose variance spans max/min = ratio across x, with the given mean."""
    x = np.linspace(0.0, 1.0, truth.shape[2])
    if layout == "halves":
        profile = np.where(x < 0.5, 1.0, ratio)
    else:  # a ramp of the standard deviation
        profile = (1.0 + (math.sqrt(ratio) - 1.0) * x) ** 2
    variance = np.broadcast_to(profile / profile.mean() * mean_variance, truth.shape).astype(np.float32)
    noise = np.random.default_rng(seed).standard_normal(truth.shape) * np.sqrt(variance)
    return (truth + noise).astype(np.float32), np.ascontiguousarray(variance)


def weights_study(args, igr, execution):
    truth = igr.make_ct_phantom((64, 64, 64)).truth.astype(np.float64)
    rows = []
    print("white noise of mean variance 1e-3 across the 64^3 machined part, max/min variance R:")
    for layout in ("halves", "ramp"):
        for ratio in (1, 4, 16, 64):
            noisy, variance = varying_noise(truth, ratio, layout, 1e-3, seed=ratio)
            case = {"case": f"white noise, {layout}", "variance_range": float(ratio)}
            for gamma in (0.0, 0.5, 1.0):
                row = denoise_row(igr, truth, noisy, variance, execution, gamma, args.search_steps,
                                  f"{layout}, R {ratio:3d}, gamma {gamma}")
                case[f"gamma {gamma}"] = row
            rows.append(case)
    for geometry, size, views in (("parallel", 96, 180), ("cone", 64, 300)):
        scan = igr.make_ct_phantom((size,) * 3, photons_per_ray=args.photons, views=views, geometry=geometry, seed=1)
        range_ = float(scan.variance.max() / scan.variance.min())
        inside = scan.truth > 0
        range_inside = float(scan.variance[inside].max() / scan.variance[inside].min())
        print(f"CT, {geometry} beam {size}^3: variance max/min {range_:.1f} (inside the part {range_inside:.1f})")
        case = {"case": f"CT {geometry} beam {size}^3", "variance_range": range_, "variance_range_inside": range_inside}
        for gamma in (0.0, 0.5, 1.0):
            case[f"gamma {gamma}"] = denoise_row(igr, scan.truth.astype(np.float64), scan.noisy, scan.variance,
                                                 execution, gamma, args.search_steps, f"CT {geometry}, gamma {gamma}")
        rows.append(case)
    print("\ngain of the weights over plain TV at the best lambda of each (dB):")
    print(f"  {'case':34s} {'R':>6s} {'gamma 0.5':>10s} {'gamma 1':>9s}")
    for case in rows:
        base = case["gamma 0.0"]["best"]["psnr"]
        print(f"  {case['case']:34s} {case['variance_range']:6.1f} {case['gamma 0.5']['best']['psnr'] - base:+10.3f} "
              f"{case['gamma 1.0']['best']['psnr'] - base:+9.3f}")
    return {"study": "weights", "photons_per_ray": args.photons, "cases": rows}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", choices=["ct", "weights"], default="ct")
    parser.add_argument("--size", type=int, default=96, help="CT study: cube edge (default %(default)s)")
    parser.add_argument("--views", type=int, default=180, help="CT study: parallel-beam views (default %(default)s)")
    parser.add_argument("--photons", type=float, default=6000.0, help="photons per ray (default %(default)s)")
    parser.add_argument("--realisations", type=int, default=16,
                        help="CT study: realisations for the empirical variance; 0 leaves it out (default %(default)s)")
    parser.add_argument("--search-steps", type=int, default=14,
                        help="golden-section steps of the best-lambda search (default %(default)s)")
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "opencl"])
    parser.add_argument("--json", default=None, help="JSON file (default out/statistical_tv_<study>.json)")
    return parser.parse_args(argv)


def main(argv=None):
    """Runs a study; returns its dict (also written as JSON)."""
    import itkgpurestoration as igr

    args = parse_args(argv)
    execution = {"backend": args.backend}
    start = time.perf_counter()
    result = ct_study(args, igr, execution) if args.study == "ct" else weights_study(args, igr, execution)
    result["seconds"] = time.perf_counter() - start
    path = args.json or os.path.join("out", f"statistical_tv_{args.study}.json")
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    write_json(path, result)
    print(f"wrote {path} ({result['seconds']:.0f} s)")
    return result


if __name__ == "__main__":
    main()
