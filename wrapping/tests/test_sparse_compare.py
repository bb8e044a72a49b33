# SPDX-License-Identifier: Apache-2.0
"""bench/sparse_compare.py on a problem written here the way sparse_bench --save-problems writes it."""

import json

import numpy as np

from conftest import load_bench_script


def write_problem(directory, n, seed=15):
    """A k-sparse signal (k/n = 0.05) seen through m = n/2 rows of a Gaussian circulant, as raw little-endian files."""
    rng = np.random.default_rng(seed)
    m, k = n // 2, round(0.05 * n)
    generator = rng.standard_normal(n) / np.sqrt(m)
    mask = np.zeros(n, np.uint8)
    mask[rng.permutation(n)[:m]] = 1
    truth = np.zeros(n)
    truth[rng.permutation(n)[:k]] = rng.standard_normal(k)
    # C x with C_ij = v_(j - i) mod n, zero-filled outside the mask.
    y = np.fft.irfft(np.conj(np.fft.rfft(generator)) * np.fft.rfft(truth), n) * mask
    for name, values in (("generator.f64", generator), ("mask.u8", mask), ("truth.f64", truth), ("y.f64", y)):
        values.astype(values.dtype.newbyteorder("<")).tofile(directory / f"sparse_{n}_{name}")


def test_sparse_compare_peers(tmp_path):
    """The FFT and dense FISTA (and PyLops's, when installed) run the same iteration: they reach 1e-4 together.

    Within 5 %, not exactly: rounding differs (FFT or matrix products), and over thousands of iterations near the
    threshold FISTA's path amplifies it (3928, 3970 and 4041 iterations at n = 512).
    """
    module = load_bench_script("sparse_compare")
    n = 512
    write_problem(tmp_path, n)
    summary = module.main(["--problems", str(tmp_path), "--min-log2", "9", "--max-log2", "9", "--ista-max-log2", "0",
                           "--budget", "30", "--json", str(tmp_path / "compare.json")])
    assert json.loads((tmp_path / "compare.json").read_text())["benchmark"] == "sparse_compare"
    rows = {r["method"]: r for r in summary["results"]}
    fista, dense = rows["numpy FFT FISTA"], rows["numpy dense FISTA"]
    assert fista["reached"] and fista["relativeError"] <= 1e-4 and 100 < fista["iterations"] < 20000
    assert dense["reached"] and abs(dense["iterations"] - fista["iterations"]) <= 0.05 * fista["iterations"]
    if summary["pylops"]:  # PyLops's FISTA with eps = 2 alpha and our step: the same iterates
        peer = rows["PyLops FISTA"]
        assert peer["reached"] and abs(peer["iterations"] - fista["iterations"]) <= 0.05 * fista["iterations"]
