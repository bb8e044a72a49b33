# SPDX-License-Identifier: Apache-2.0
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench_script(name):
    """bench/<name>.py as a module; the test is skipped where the package is tested outside the repository.

    bench/ goes on sys.path, as when the script runs as ``python3 bench/<name>.py``: the scripts import
    bench/bench_output.py.
    """
    path = BENCH / f"{name}.py"
    if not path.exists():
        pytest.skip(f"bench/{name}.py not found (the package is tested outside the repository)")
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def phantom(shape, sigma=0.15, seed=0, dtype=np.float64):
    """A piecewise-constant image and a noisy copy, (truth, noisy)."""
    rng = np.random.default_rng(seed)
    truth = np.zeros(shape)
    inner = tuple(slice(n // 4, 3 * n // 4) for n in shape)
    truth[inner] = 1.0
    bar = tuple(slice(3 * n // 8, 5 * n // 8) for n in shape[:-1]) + (slice(shape[-1] // 8, 7 * shape[-1] // 8),)
    truth[bar] += 0.5
    noisy = truth + sigma * rng.standard_normal(shape)
    return truth.astype(dtype), noisy.astype(dtype)


def rof_objective(u, f, lam, spacing=None):
    """P(u) = lam/2 ||u - f||^2 + sum |grad u|, forward differences / spacing, Neumann."""
    u = np.asarray(u, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    spacing = spacing or (1.0,) * u.ndim
    squared = np.zeros_like(u)
    for axis, h in enumerate(spacing):
        g = np.zeros_like(u)
        lead = [slice(None)] * u.ndim
        lead[axis] = slice(0, -1)
        g[tuple(lead)] = np.diff(u, axis=axis) / h
        squared += g * g
    return lam / 2 * ((u - f) ** 2).sum() + np.sqrt(squared).sum()


def psnr(u, truth):
    return 10 * np.log10((truth.max() - truth.min()) ** 2 / np.mean((u - truth) ** 2))


@pytest.fixture
def has_opencl():
    import itkgpurestoration as igr

    return len(igr.list_devices()) > 0
