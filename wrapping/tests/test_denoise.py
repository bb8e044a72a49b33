# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom, psnr, rof_objective

LAM = 8.0


@pytest.mark.parametrize("shape", [(48, 40), (12, 20, 16)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numpy_round_trip(shape, dtype):
    truth, noisy = phantom(shape, dtype=dtype)
    u, report = igr.denoise_tv(noisy, lam=LAM, return_report=True)
    assert isinstance(u, np.ndarray)
    assert u.shape == noisy.shape and u.dtype == dtype
    assert psnr(u, truth) > psnr(noisy, truth) + 3
    assert set(report) >= {"backend", "device", "iterations", "converged", "relative_gap", "primal", "dual", "seconds"}
    assert report["converged"] and report["relative_gap"] <= 1e-4
    assert report["primal"] == pytest.approx(rof_objective(u, noisy, LAM), rel=1e-3)


def test_integer_input_becomes_float32():
    _, noisy = phantom((32, 32))
    u = igr.denoise_tv(np.round(noisy * 100).astype(np.int16), lam=LAM / 100)
    assert u.dtype == np.float32


def test_non_contiguous_input():
    _, noisy = phantom((40, 40))
    view = noisy.T  # Fortran order: copied to C order, result equals the C-order input's
    expected = igr.denoise_tv(np.ascontiguousarray(view), lam=LAM, backend="cpu")
    np.testing.assert_allclose(igr.denoise_tv(view, lam=LAM, backend="cpu"), expected, atol=1e-12)


def test_engine_never_converts_silently():
    """The binding takes only C-contiguous arrays of its dtype, so the front end's
    np.ascontiguousarray (a no-op for such arrays) is the only place a copy can happen."""
    from itkgpurestoration import _core

    _, noisy = phantom((16, 16), dtype=np.float32)
    args = ([1.0, 1.0], LAM, "accelerated", 10, 0.0, "cpu", "", 0, 0, None)
    u, _ = _core.denoise_tv_float32(noisy, *args)
    assert u.dtype == np.float32
    with pytest.raises(TypeError):
        _core.denoise_tv_float32(noisy.T, *args)
    with pytest.raises(TypeError):
        _core.denoise_tv_float32(noisy.astype(np.float64), *args)


def test_spacing_honoured():
    _, noisy = phantom((40, 48))
    unit, r_unit = igr.denoise_tv(noisy, lam=LAM, backend="cpu", tolerance=1e-6, return_report=True)
    aniso, r_aniso = igr.denoise_tv(noisy, lam=LAM, spacing=(2.0, 1.0), backend="cpu", tolerance=1e-6, return_report=True)
    assert np.abs(unit - aniso).max() > 1e-2
    # Each result minimises the objective of its own spacing (y spacing 2 comes first).
    assert r_aniso["primal"] == pytest.approx(rof_objective(aniso, noisy, LAM, (2.0, 1.0)), rel=1e-4)
    assert rof_objective(aniso, noisy, LAM, (2.0, 1.0)) < rof_objective(unit, noisy, LAM, (2.0, 1.0))
    assert rof_objective(unit, noisy, LAM) < rof_objective(aniso, noisy, LAM)


def test_cpu_and_opencl_agree(has_opencl):
    if not has_opencl:
        pytest.skip("no OpenCL device")
    _, noisy = phantom((10, 24, 20), dtype=np.float32)
    cpu = igr.denoise_tv(noisy, lam=LAM, backend="cpu", tolerance=0, max_iterations=100)
    ocl, report = igr.denoise_tv(noisy, lam=LAM, backend="opencl", tolerance=0, max_iterations=100, return_report=True)
    assert report["backend"] == "OpenCL" and report["device"]
    assert np.abs(cpu - ocl).max() <= 1e-4


def test_device_memory_limit_streams_with_the_same_result(has_opencl):
    if not has_opencl:
        pytest.skip("no OpenCL device")
    # Accelerated CP: 9 KiB per slice on a device (f, u twice, p twice), 1440 KiB in all; halos of 9 slices
    # (exchange interval 8).
    _, noisy = phantom((160, 16, 16), dtype=np.float32)
    kwargs = dict(lam=LAM, backend="opencl", tolerance=0, max_iterations=20, return_report=True)
    whole, r_whole = igr.denoise_tv(noisy, **kwargs)
    streamed, r_streamed = igr.denoise_tv(noisy, device_memory_limit=900 * 1024, **kwargs)
    assert r_whole["stream_regions"] == 0
    assert r_streamed["stream_regions"] >= 5
    assert np.array_equal(streamed, whole)
    with pytest.raises(ValueError, match="at least"):
        igr.denoise_tv(noisy, device_memory_limit=300 * 1024, **kwargs)


def test_matches_skimage():
    """lam = 1 / weight reproduces skimage.restoration.denoise_tv_chambolle."""
    restoration = pytest.importorskip("skimage.restoration")
    truth, noisy = phantom((64, 64))
    weight = 0.1
    ref = restoration.denoise_tv_chambolle(noisy, weight=weight, eps=1e-7, max_num_iter=3000)
    ours = igr.denoise_tv(noisy, weight=weight, tolerance=1e-6, max_iterations=3000, backend="cpu")
    lam = igr.lam_from_skimage_weight(weight)
    assert lam == 10.0
    # Measured: objectives agree to ~2e-5 relative, max |difference| ~1e-3, PSNR within 0.01 dB.
    assert rof_objective(ours, noisy, lam) == pytest.approx(rof_objective(ref, noisy, lam), rel=1e-3)
    assert abs(psnr(ours, truth) - psnr(ref, truth)) < 0.1
    assert np.abs(ours - ref).max() < 1e-2
    # The other plausible mapping (lam = 2 / weight) is clearly different.
    other = igr.denoise_tv(noisy, lam=2 / weight, tolerance=1e-6, backend="cpu")
    assert np.abs(other - ref).max() > 0.1


@pytest.mark.parametrize(
    "image, kwargs, message",
    [
        (np.full((8, 8), np.nan), {"lam": 1.0}, "finite"),
        (np.zeros((8, 8)), {"weight": -1.0}, "weight"),
        (np.zeros((8, 8)), {"lam": 0.0}, "lam"),
        (np.zeros((1, 1)), {"lam": 1.0}, "single voxel"),
        (np.zeros((1, 1, 1)), {"lam": 1.0}, "single voxel"),
        (np.zeros((8, 8), dtype=complex), {"lam": 1.0}, "real dtype"),
        (np.zeros(8), {"lam": 1.0}, "2D or 3D"),
        (np.zeros((2, 2, 2, 2)), {"lam": 1.0}, "2D or 3D"),
        # No lam: chosen from the noise level, which a constant image does not have.
        (np.zeros((8, 8)), {}, "give the noise sigma or a fixed lambda"),
        (np.zeros((8, 8)), {"lam": 1.0, "weight": 1.0}, "exactly one"),
        (np.zeros((8, 8)), {"sigma": -1.0}, "sigma must be finite and > 0"),
        (np.zeros((8, 8)), {"sigma": 0.0}, "sigma must be finite and > 0"),
        (np.zeros((8, 8)), {"discrepancy_factor": np.inf}, "discrepancy_factor"),
        (np.zeros((8, 8)), {"sigma": 0.1, "tolerance": 0}, "automatic lambda needs converged solves"),
        (np.zeros((8, 8)), {"lam": 1.0, "spacing": (1.0,)}, "spacing"),
        (np.zeros((8, 8)), {"lam": 1.0, "spacing": (1.0, -1.0)}, "spacing"),
        (np.zeros((8, 8)), {"lam": 1.0, "backend": "quantum"}, "quantum"),
        (np.zeros((8, 8)), {"lam": 1.0, "algorithm": "magic"}, "magic"),
        (np.zeros((8, 8)), {"lam": 1.0, "max_iterations": 0}, "max_iterations"),
        (np.zeros((8, 8)), {"lam": 1.0, "device_memory_limit": -1}, "device_memory_limit"),
        (np.zeros((8, 8)), {"lam": 1.0, "backend": "opencl", "device": "no-such-device"}, "no-such-device"),
    ],
)
def test_bad_input_raises_value_error(image, kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        igr.denoise_tv(image, **kwargs)
    assert str(info.value)


def test_progress_called():
    _, noisy = phantom((32, 32))
    calls = []
    igr.denoise_tv(noisy, lam=LAM, max_iterations=20, tolerance=0, progress=lambda d, m: calls.append((d, m)))
    assert calls == [(k, 20) for k in range(1, 21)]


def test_progress_abort():
    _, noisy = phantom((32, 32))
    calls = []

    def stop_after_three(done, maximum):
        calls.append(done)
        return done < 3

    with pytest.raises(igr.Aborted, match="aborted"):
        igr.denoise_tv(noisy, lam=LAM, max_iterations=100, tolerance=0, progress=stop_after_three)
    assert calls == [1, 2, 3]
    assert issubclass(igr.Aborted, RuntimeError)


def test_progress_exception_propagates():
    _, noisy = phantom((32, 32))

    def boom(done, maximum):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        igr.denoise_tv(noisy, lam=LAM, progress=boom)


def test_list_devices():
    devices = igr.list_devices()
    assert isinstance(devices, list)
    for i, d in enumerate(devices):
        assert d["index"] == i and d["name"] and d["type"] in ("gpu", "cpu", "accelerator", "other")


def test_half_precision_dual(has_opencl):
    """half_precision_dual stores p in float16 on OpenCL (reported), stays near the float32 result, refuses float64."""
    _, noisy = phantom((48, 40), dtype=np.float32)
    kwargs = dict(lam=LAM, tolerance=0, max_iterations=200, return_report=True)
    if has_opencl:
        full, r_full = igr.denoise_tv(noisy, backend="opencl", **kwargs)
        half, r_half = igr.denoise_tv(noisy, backend="opencl", half_precision_dual=True, **kwargs)
        assert r_full["dual_storage"] == "float32"
        assert r_half["dual_storage"] == "float16"
        assert np.abs(half - full).max() <= 2e-2
        assert abs(r_half["primal"] - r_full["primal"]) <= 1e-3 * r_full["primal"]
    _, r_cpu = igr.denoise_tv(noisy, backend="cpu", half_precision_dual=True, **kwargs)
    assert r_cpu["dual_storage"] == "float32"  # the CPU reference keeps float p
    with pytest.raises(ValueError, match="float images"):
        igr.denoise_tv(noisy.astype(np.float64), backend="cpu", half_precision_dual=True, **kwargs)
    with pytest.raises(ValueError, match="half_precision_dual"):
        igr.denoise_statistical_tv(noisy, method="tvgd", half_precision_dual=True)
