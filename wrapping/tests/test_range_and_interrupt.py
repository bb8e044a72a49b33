# SPDX-License-Identifier: Apache-2.0
"""denoise_tv over the numerical range, its convergence warning, Ctrl-C (TV, L1-mean-curvature, Willmore flow), named parameters."""

import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom


def backends(has_opencl):
    return ["cpu", "opencl"] if has_opencl else ["cpu"]


@pytest.mark.parametrize("dtype, tolerance", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_scale_covariance(has_opencl, dtype, tolerance):
    """denoise_tv(s f, lam / s) = s denoise_tv(f, lam), to rounding (before: 15-34 % off at s >= 1e3)."""
    _, noisy = phantom((24, 28, 20), sigma=0.1, seed=6, dtype=dtype)
    for backend in backends(has_opencl):
        reference, r1 = igr.denoise_tv(noisy, lam=10.0, backend=backend, return_report=True)
        for s in (1e-6, 1e-3, 1e3, 1e6):
            u, rs = igr.denoise_tv((noisy * s).astype(dtype), lam=10.0 / s, backend=backend, return_report=True)
            assert np.max(np.abs(u / s - reference)) <= tolerance * np.max(np.abs(reference)), (backend, s)
            assert rs["converged"] and rs["iterations"] == r1["iterations"]


def test_unrepresentable_parameters_are_refused():
    _, noisy = phantom((16, 16), dtype=np.float32)
    with pytest.raises(ValueError, match=r"lambda = 1e\+40 is outside the range a float solve represents"):
        igr.denoise_tv(noisy, lam=1e40)
    # Intensities up to 3e38 (near FLT_MAX; before: NaN/Inf): refused with an ordinary lam,
    # solved with the matching one.
    huge = (noisy / np.abs(noisy).max() * 3e38).astype(np.float32)
    with pytest.raises(ValueError, match="outside the range"):
        igr.denoise_tv(huge, lam=8.0)
    u = igr.denoise_tv(huge, lam=8.0 / 3e38)
    assert np.all(np.isfinite(u))
    reference = igr.denoise_tv(huge / np.float32(3e38), lam=8.0)
    assert np.max(np.abs(u / 3e38 - reference)) <= 1e-5
    with pytest.raises(ValueError, match="below what float32 arithmetic reaches"):
        igr.denoise_tv(noisy, lam=8.0, tolerance=1e-8)
    # float64 represents both.
    u, report = igr.denoise_tv(noisy.astype(np.float64), lam=1e40, return_report=True)
    assert report["converged"] and np.array_equal(u, noisy.astype(np.float64))
    igr.denoise_tv(noisy.astype(np.float64), lam=8.0, tolerance=1e-8)


def test_non_convergence_warns():
    _, noisy = phantom((32, 32))
    with pytest.warns(igr.ConvergenceWarning, match=r"did not converge: .* after 5 iterations \(the maximum\)"):
        _, report = igr.denoise_tv(noisy, lam=4.0, max_iterations=5, return_report=True)
    assert not report["converged"] and report["relative_gap"] > 1e-4
    assert len(report["warnings"]) == 1
    assert issubclass(igr.ConvergenceWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", igr.ConvergenceWarning)
        with pytest.raises(igr.ConvergenceWarning):
            igr.denoise_tv(noisy, lam=4.0, max_iterations=5)
        # No claim, no warning: tolerance 0, or a run that converged within the default budget.
        igr.denoise_tv(noisy, lam=4.0, max_iterations=5, tolerance=0)
        _, report = igr.denoise_tv(noisy, lam=4.0, return_report=True)
    assert report["converged"] and report["warnings"] == []


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"spacing": 5.0}, "spacing must be a sequence of 2 positive numbers, got 5.0"),
        ({"spacing": "ab"}, "spacing must be a sequence of 2 positive numbers, got 'ab'"),
        ({"spacing": (1.0, float("nan"))}, r"spacing must be a sequence of 2 positive numbers, got \(1.0, nan\)"),
        ({"spacing": (1.0, 0.0)}, "spacing must be a sequence of 2 positive numbers"),
        ({"tolerance": "a"}, "tolerance must be a real number >= 0, got 'a'"),
        ({"tolerance": -1e-3}, "tolerance must be a real number >= 0, got -0.001"),
        ({"tolerance": float("inf")}, "tolerance must be a real number >= 0, got inf"),
    ],
)
def test_messages_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        igr.denoise_tv(np.zeros((8, 8)), lam=1.0, **kwargs)


# Solves of minutes (the tolerance is never met), each started with the backend as its argument.
INTERRUPTED_SOLVES = {
    "tv": """
    import sys
    import numpy as np
    import itkgpurestoration as igr
    f = np.random.default_rng(0).standard_normal((96, 96, 96)).astype(np.float32)
    print("solving", flush=True)
    igr.denoise_tv(f, lam=8.0, max_iterations=1000000, tolerance=0, backend=sys.argv[1])
    print("finished", flush=True)
    """,
    "flow": """
    import sys
    import numpy as np
    import itkgpurestoration as igr
    f = np.random.default_rng(0).standard_normal((256, 256))
    print("solving", flush=True)
    igr.willmore_flow(f, 1e6, tolerance=1e-12, backend=sys.argv[1])
    print("finished", flush=True)
    """,
    "l1mc": """
    import sys
    import numpy as np
    import itkgpurestoration as igr
    f = np.random.default_rng(0).standard_normal((256, 256))
    print("solving", flush=True)
    igr.denoise_l1_mean_curvature(f, r0=0.004, max_num_iter=1000000, tol=1e-300, backend=sys.argv[1])
    print("finished", flush=True)
    """,
}


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
@pytest.mark.parametrize("solve", sorted(INTERRUPTED_SOLVES))
def test_ctrl_c_interrupts_a_running_solve(has_opencl, solve):
    """SIGINT (Ctrl-C) ends a solve of minutes with KeyboardInterrupt within a few seconds
    (before: only when the solve ended)."""
    for backend in backends(has_opencl):
        child = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(INTERRUPTED_SOLVES[solve]), backend],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        )
        try:
            assert child.stdout.readline().strip() == "solving"
            time.sleep(1.0)  # into the iterations
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            _, stderr = child.communicate(timeout=10)
            elapsed = time.monotonic() - sent
        finally:
            child.kill()
        assert child.returncode != 0, backend
        assert stderr.rstrip().endswith("KeyboardInterrupt"), (backend, stderr[-500:])
        assert elapsed < 3.0, (backend, elapsed)
