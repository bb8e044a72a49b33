# SPDX-License-Identifier: Apache-2.0
"""denoise_tv_dask: chunked runs equal the single-array run (exact by rounds)."""

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom

da = pytest.importorskip("dask.array")


def single_array(noisy, **kwargs):
    iterations = kwargs.pop("iterations")
    return igr.denoise_tv(noisy, max_iterations=iterations, tolerance=0, **kwargs)


@pytest.mark.parametrize("algorithm", ["accelerated", "cp", "pdu"])
def test_threaded_chunks_equal_the_single_array_run_3d(algorithm):
    _, noisy = phantom((20, 26, 30), dtype=np.float32, seed=1)
    spacing = (1.5, 1.0, 0.8)
    reference = single_array(noisy, lam=8.0, spacing=spacing, algorithm=algorithm, iterations=17, backend="cpu")
    chunked = igr.denoise_tv_dask(
        da.from_array(noisy, chunks=(10, 13, 15)),
        lam=8.0,
        spacing=spacing,
        algorithm=algorithm,
        iterations=17,
        round_length=5,
        backend="cpu",
    )
    assert chunked.chunks == da.from_array(noisy, chunks=(10, 13, 15)).chunks
    result = chunked.compute(scheduler="threads")
    assert result.dtype == np.float32
    assert np.max(np.abs(result - reference)) <= 1e-5
    # The CPU backend does the same arithmetic per voxel: bit for bit.
    assert np.array_equal(result, reference)


def test_2d_float64_and_weight():
    _, noisy = phantom((40, 36), seed=2)
    reference = single_array(noisy, weight=0.1, iterations=12, backend="cpu")
    result = igr.denoise_tv_dask(noisy, weight=0.1, iterations=12, round_length=3, chunks=(20, 12), backend="cpu")
    result = result.compute(scheduler="sync")
    assert result.dtype == np.float64
    assert np.max(np.abs(result - reference)) <= 1e-12


def test_opencl_chunks(has_opencl):
    if not has_opencl:
        pytest.skip("no OpenCL device")
    _, noisy = phantom((16, 24, 24), dtype=np.float32, seed=3)
    reference = single_array(noisy, lam=10.0, iterations=10, backend="opencl")
    result = igr.denoise_tv_dask(
        noisy, lam=10.0, iterations=10, round_length=4, chunks=(8, 12, 24), backend="opencl"
    ).compute(scheduler="threads")
    assert np.max(np.abs(result - reference)) <= 1e-5


def test_local_distributed_cluster_on_loopback():
    distributed = pytest.importorskip("distributed")
    _, noisy = phantom((24, 32, 32), dtype=np.float32, seed=4)
    reference = single_array(noisy, lam=10.0, iterations=24, backend="cpu")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        darr = da.from_array(noisy, chunks=(12, 16, 16))
        result = igr.denoise_tv_dask(darr, lam=10.0, iterations=24, round_length=6, backend="cpu").compute()
        workers = client.scheduler_info()["workers"]
    assert len(workers) == 2
    assert all(address.startswith("tcp://127.0.0.1:") for address in workers)
    assert np.max(np.abs(result - reference)) <= 1e-5


def test_bad_arguments_are_refused():
    noisy = np.zeros((20, 20), np.float32)
    with pytest.raises(ValueError, match="halo"):
        igr.denoise_tv_dask(noisy, lam=1.0, round_length=5, halo=5)
    with pytest.raises(ValueError, match="smaller round_length"):
        igr.denoise_tv_dask(noisy, lam=1.0, round_length=5, chunks=(4, 20))
    with pytest.raises(ValueError, match="exactly one"):
        igr.denoise_tv_dask(noisy)
    with pytest.raises(ValueError, match="2D or 3D"):
        igr.denoise_tv_dask(np.zeros(20, np.float32), lam=1.0)
    with pytest.raises(ValueError, match="spacing must be a sequence of 2 positive numbers, got 5.0"):
        igr.denoise_tv_dask(noisy, lam=1.0, spacing=5.0)
    # The index in the whole array, not in the chunk (row 13 is row 3 of the second chunk).
    bad = noisy.copy()
    bad[13, 7] = np.nan
    with pytest.raises(ValueError, match=r"non-finite value \(nan\) at index \(13, 7\)"):
        igr.denoise_tv_dask(bad, lam=1.0, iterations=2, round_length=1, chunks=(10, 20)).compute(scheduler="sync")
