# SPDX-License-Identifier: Apache-2.0
"""backend="auto": which backend ran and why, in every report.

Auto takes a GPU when there is one; with only a CPU OpenCL driver (PoCL on the
test machines) it measures the engine's own step on both backends and runs the
faster (the C++ tests check the rule with fake speeds, gpurAutoBackendTest).
Here: the reports carry the reason and the two speeds, the choice agrees with
them, and $ITKGPUR_AUTO and a named device skip the measurement.
"""

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom


def _default_is_cpu_driver():
    devices = igr.list_devices()
    return bool(devices) and not any(d["type"] in ("gpu", "accelerator") for d in devices)


measuring = pytest.mark.skipif(not _default_is_cpu_driver(), reason="Auto measures only on a CPU OpenCL driver")


@pytest.fixture
def auto_rule(monkeypatch):
    """Auto follows its measuring rule: no $ITKGPUR_AUTO, no $ITKGPUR_DEVICE."""
    monkeypatch.delenv("ITKGPUR_AUTO", raising=False)
    monkeypatch.delenv("ITKGPUR_DEVICE", raising=False)
    return monkeypatch


def _check_measured(report, probe):
    speeds = report["measured_mvox_per_s"]
    assert set(speeds) == {"cpu", "opencl"} and min(speeds.values()) > 0, report
    faster = "OpenCL" if speeds["opencl"] > speeds["cpu"] else "CPU"
    assert report["backend"] == faster, report
    reason = report["backend_reason"]
    assert reason.startswith("Auto: measured ") and probe in reason, reason
    for value in speeds.values():  # the reason prints the speeds the report gives
        assert f"{value:.1f} Mvox/s" in reason or f"{value:.2f} Mvox/s" in reason, (value, reason)


@measuring
def test_denoise_tv_reports_the_measured_choice(auto_rule):
    _, noisy = phantom((40, 36), seed=1, dtype=np.float32)
    u, report = igr.denoise_tv(noisy, lam=8.0, max_iterations=20, tolerance=0, return_report=True)
    _check_measured(report, "TV 2D float32 on 36x40 voxels")
    ran = igr.denoise_tv(noisy, lam=8.0, max_iterations=20, tolerance=0, backend=report["backend"].lower())
    np.testing.assert_array_equal(u, ran)


@measuring
def test_statistical_tv_and_poisson_report_the_measured_choice(auto_rule):
    _, noisy = phantom((12, 20, 16), seed=2, dtype=np.float64)
    variance = np.full(noisy.shape, 0.02)
    _, report = igr.denoise_statistical_tv(noisy, variance, lam=5.0, return_report=True)
    _check_measured(report, "weighted TV 3D float64 on 16x20x12 voxels")
    single = noisy.astype(np.float32)
    _, report = igr.denoise_statistical_tv(single, variance.astype(np.float32), method="tvgd", return_report=True)
    _check_measured(report, "TV-GD 3D float32 on 16x20x12 voxels")
    rhs = noisy[0] - noisy[0].mean()
    _, report = igr.solve_poisson(rhs, return_report=True)
    _check_measured(report, "PSCR 2D float64 on 16x20 voxels")
    solver = igr.PoissonSolver(rhs.shape)
    assert solver.backend_reason.startswith("Auto: measured "), solver.backend_reason


def test_explicit_backends_say_they_were_requested(has_opencl):
    noisy = phantom((16, 18), dtype=np.float32)[1]
    _, report = igr.denoise_tv(noisy, lam=8.0, backend="cpu", return_report=True)
    assert (report["backend"], report["backend_reason"], report["measured_mvox_per_s"]) == (
        "CPU",
        "backend CPU requested",
        {},
    )
    if has_opencl:
        _, report = igr.denoise_tv(noisy, lam=8.0, backend="opencl", return_report=True)
        assert (report["backend"], report["backend_reason"]) == ("OpenCL", "backend OpenCL requested")


@pytest.mark.parametrize("mode, backend", [("cpu", "CPU"), ("opencl", "OpenCL"), ("measure", None)])
def test_itkgpur_auto_chooses_without_measuring(auto_rule, has_opencl, mode, backend):
    if not has_opencl and mode == "opencl":
        pytest.skip("no OpenCL device")
    auto_rule.setenv("ITKGPUR_AUTO", mode)
    _, report = igr.denoise_tv(phantom((10, 12), dtype=np.float32)[1], lam=8.0, return_report=True)
    if backend is None:  # the default mode: whatever the rule gives, with its reason
        assert report["backend_reason"].startswith("Auto: "), report
        return
    assert report["backend"] == backend
    assert report["backend_reason"] == f"Auto: ITKGPUR_AUTO={mode}"
    assert report["measured_mvox_per_s"] == {}


def test_unknown_itkgpur_auto_is_a_value_error(auto_rule, has_opencl):
    if not has_opencl:
        pytest.skip("without an OpenCL device Auto never reads the variable")
    auto_rule.setenv("ITKGPUR_AUTO", "fastest")
    with pytest.raises(ValueError, match=r"ITKGPUR_AUTO='fastest'.*measure, cpu, opencl"):
        igr.denoise_tv(np.zeros((8, 8), np.float32), lam=1.0)


@measuring
def test_a_named_cpu_device_means_opencl_there(auto_rule):
    _, report = igr.denoise_tv(phantom((10, 12), dtype=np.float32)[1], lam=8.0, device="cpu", return_report=True)
    assert report["backend"] == "OpenCL"
    assert report["backend_reason"] == "Auto: device 'cpu' selected"
