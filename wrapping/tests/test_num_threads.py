# SPDX-License-Identifier: Apache-2.0
"""num_threads: every solve function takes it, checks it, and gives the same result for any thread count."""

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom

_, NOISY = phantom((12, 20, 18), dtype=np.float32)
VARIANCE = np.full(NOISY.shape, 0.15**2, dtype=np.float32)
AXES = [igr.second_difference_axis(n) for n in NOISY.shape]

# name -> a call taking num_threads (on the CPU backend, whose loops it controls).
SOLVES = {
    "denoise_tv": lambda t: igr.denoise_tv(
        NOISY, lam=8.0, max_iterations=40, tolerance=0, backend="cpu", num_threads=t
    ),
    "denoise_tv channels": lambda t: igr.denoise_tv(
        NOISY, lam=8.0, channel_axis=0, max_iterations=20, tolerance=0, backend="cpu", num_threads=t
    ),
    "denoise_statistical_tv": lambda t: igr.denoise_statistical_tv(
        NOISY, VARIANCE, discrepancy_factor=0.9, max_iterations=400, backend="cpu", num_threads=t
    ),
    "denoise_statistical_tv tvgd": lambda t: igr.denoise_statistical_tv(
        NOISY, VARIANCE, method="tvgd", max_iterations=20, backend="cpu", num_threads=t
    ),
    "estimate_noise_variance": lambda t: igr.estimate_noise_variance(NOISY, spectrum="white", num_threads=t),
    "solve_poisson": lambda t: igr.solve_poisson(NOISY, backend="cpu", num_threads=t),
    "PoissonSolver": lambda t: igr.PoissonSolver(NOISY.shape, dtype=np.float32, backend="cpu", num_threads=t).solve(
        NOISY
    ),
    "solve_separable": lambda t: igr.solve_separable(NOISY, AXES, 1.0, backend="cpu", num_threads=t),
    "SeparableSolver": lambda t: igr.SeparableSolver(AXES, 1.0, backend="cpu", num_threads=t).solve(NOISY),
    "denoise_l1_mean_curvature": lambda t: igr.denoise_l1_mean_curvature(
        NOISY[0], r0=0.005, backend="cpu", num_threads=t  # a 20 x 18 slice; converges in 131 iterations
    ),
    "denoise_tv_dask": lambda t: igr.denoise_tv_dask(
        NOISY, lam=8.0, iterations=12, round_length=4, chunks=(6, 20, 18), backend="cpu", num_threads=t
    ).compute(),
}


@pytest.mark.parametrize("name", sorted(SOLVES))
def test_same_result_for_any_thread_count(name):
    """The chunks follow num_threads, the reductions do not (gpur::ParallelSum), so results are bit-identical."""
    if name == "denoise_tv_dask":
        pytest.importorskip("dask.array")
    one, two, default = SOLVES[name](1), SOLVES[name](2), SOLVES[name](None)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one, default)


@pytest.mark.parametrize("name", sorted(SOLVES))
@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2", 2**32])
def test_bad_num_threads_raises_value_error(name, bad):
    if name == "denoise_tv_dask":
        pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="num_threads must be"):
        SOLVES[name](bad)
