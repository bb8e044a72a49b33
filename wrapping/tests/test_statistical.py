# SPDX-License-Identifier: Apache-2.0
"""denoise_statistical_tv (primal-dual and gradient-descent methods) and make_ct_phantom."""

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom, psnr

SHAPE = (16, 40, 36)
# The test volume is too small and busy to measure the noise's spectrum (a RuntimeWarning says so:
# tested in test_white_noise_is_assumed_with_a_warning); its noise is white, which is then assumed.
pytestmark = pytest.mark.filterwarnings("ignore:.*noise spectrum could not be measured:RuntimeWarning")


def varying_noise(dtype=np.float32, seed=5):
    """(truth, noisy, variance): the conftest phantom with sigma 0.05 for z < 8 and 0.2 above."""
    truth, _ = phantom(SHAPE, sigma=0.0, dtype=np.float64)
    sigma = np.where(np.arange(SHAPE[0])[:, None, None] < SHAPE[0] // 2, 0.05, 0.2) * np.ones(SHAPE)
    noisy = truth + sigma * np.random.default_rng(seed).standard_normal(SHAPE)
    return truth.astype(dtype), noisy.astype(dtype), (sigma**2).astype(dtype)


def normalised_residual(u, f, variance):
    return float(np.mean((u.astype(np.float64) - f) ** 2 / variance))


@pytest.mark.parametrize("method", ["accelerated", "pdu"])
def test_automatic_lambda_meets_the_discrepancy(method):
    truth, noisy, variance = varying_noise()
    kwargs = {"max_iterations": 3000} if method == "pdu" else {}  # PDU needs more iterations to converge
    u, report = igr.denoise_statistical_tv(noisy, variance, method=method, return_report=True, **kwargs)
    assert u.shape == noisy.shape and u.dtype == np.float32
    # The calibrated target (about 0.9 for white noise); the engine's tolerance is 2 %.
    assert report["discrepancy_target"] == pytest.approx(0.9, abs=0.03)
    assert report["discrepancy"] == pytest.approx(report["discrepancy_target"], rel=0.02)
    assert report["discrepancy"] == pytest.approx(normalised_residual(u, noisy, variance), rel=1e-5)
    assert report["automatic_lam"] and report["solves"] == len(report["lam_history"]) == len(report["solve_history"])
    assert report["lam"] == report["lam_history"][-1][0] == report["solve_history"][-1]["lam"]
    # Every solve of the search converged at the default tolerance.
    for solve in report["solve_history"]:
        assert solve["converged"] and solve["relative_gap"] <= 1e-4 and solve["iterations"] > 0
    assert report["maximum_discrepancy"] > report["discrepancy_target"]
    assert not report["variance_estimated"] and report["noise_estimation"] is None
    assert report["mean_variance"] == pytest.approx(float(variance.mean()), rel=1e-6)
    assert report["variance_range"] == pytest.approx(16.0, rel=1e-5)  # (0.2 / 0.05)^2
    # Measured: PSNR 20.22 -> 29.60 dB (accelerated), 29.61 dB (pdu).
    assert psnr(u, truth) > psnr(noisy, truth) + 9.0
    if method == "accelerated":
        # The plain discrepancy principle smooths more. (PDU does not converge at the small lam it needs:
        # gap 16 after 12000 iterations at lam 1.7, reported as an error by the search.)
        _, plain = igr.denoise_statistical_tv(noisy, variance, discrepancy_factor=1.0, return_report=True)
        assert plain["discrepancy"] == pytest.approx(1.0, rel=0.02) and plain["lam"] < report["lam"]


@pytest.mark.parametrize("backend", ["cpu", "opencl"])
def test_automatic_lambda_is_scale_covariant(backend, has_opencl):
    if backend == "opencl" and not has_opencl:
        pytest.skip("no OpenCL device")
    _, noisy, variance = varying_noise()
    reference, r1 = igr.denoise_statistical_tv(noisy, variance, backend=backend, return_report=True)
    estimated, e1 = igr.denoise_statistical_tv(noisy, backend=backend, return_report=True)
    for c in (1e-6, 1e6):
        u, rc = igr.denoise_statistical_tv((noisy * c).astype(np.float32), (variance * c * c).astype(np.float32),
                                           backend=backend, return_report=True)
        assert rc["lam"] * c == pytest.approx(r1["lam"], rel=1e-5)
        assert np.abs(u / c - reference).max() <= 1e-5 * np.abs(reference).max()
        v, ec = igr.denoise_statistical_tv((noisy * c).astype(np.float32), backend=backend, return_report=True)
        assert ec["lam"] * c == pytest.approx(e1["lam"], rel=1e-5)
        assert np.abs(v / c - estimated).max() <= 1e-5 * np.abs(estimated).max()


def test_unreachable_target_and_weight_exponent_are_refused():
    _, noisy, variance = varying_noise()
    _, report = igr.denoise_statistical_tv(noisy, variance, lam=5.0, return_report=True)
    largest = report["maximum_discrepancy"]
    with pytest.raises(ValueError, match=r"cannot be reached.*reachable targets: \(0, "):
        igr.denoise_statistical_tv(noisy, variance, discrepancy_factor=1.5 * largest)
    with pytest.raises(ValueError, match="the weight exponent is 1000.*allowed: 0 to 2"):
        igr.denoise_statistical_tv(noisy, variance, weight_exponent=1000)
    with pytest.raises(ValueError, match="needs converged solves"):
        igr.denoise_statistical_tv(noisy, variance, tolerance=0)


def test_variance_weights_beat_plain_tv_where_the_noise_varies():
    """With the best lambda of each (a scan), gamma = 0.5 weights beat plain TV (gamma = 0).

    Measured: 32.68 dB (gamma 0.5, lam 8) vs 31.65 dB (gamma 0, lam 8); gamma 1: 31.74 dB.
    """
    truth, noisy, variance = varying_noise()
    best = {}
    for gamma in (0.0, 0.5):
        best[gamma] = max(
            psnr(igr.denoise_statistical_tv(noisy, variance, lam=lam, weight_exponent=gamma), truth)
            for lam in (4.0, 8.0, 16.0, 32.0)
        )
    assert best[0.5] > best[0.0] + 0.5, best


# AW-TV's delta must lie above the noise's differences (sigma up to 0.2 here) and
# below the edges (0.5, 1): with the default 0.1 it takes the noise for edges
# (500 iterations, discrepancy 0.59). delta 0.3 / 0.5 / 1.0: 35.8 / 35.3 / 32.5 dB.
@pytest.mark.parametrize("method, kwargs, gain", [("tvgd", {}, 9.0), ("awtv", {"delta": 0.5}, 13.0)])
def test_gradient_descent_stops_at_the_discrepancy_target(method, kwargs, gain):
    truth, noisy, variance = varying_noise()
    u, report = igr.denoise_statistical_tv(noisy, variance, method=method, return_report=True, **kwargs)
    target = np.sqrt(variance.astype(np.float64).sum())
    assert report["method"] == method and report["target_reached"]
    assert report["target_residual"] == pytest.approx(target, rel=1e-6)
    # The first iteration at or past the target: at most one step beyond it.
    assert target <= report["residual"] < target + report["step_length"]
    assert report["residual"] == pytest.approx(np.linalg.norm((u.astype(np.float64) - noisy).ravel()), rel=1e-5)
    assert report["discrepancy"] == pytest.approx(report["residual"] ** 2 / variance.astype(np.float64).sum())
    assert report["step_length"] == pytest.approx(0.004 * np.sqrt(noisy.size))
    assert 10 <= report["iterations"] < 500
    # Measured: PSNR 20.22 -> 30.74 dB (tvgd, 81 iterations), 35.28 dB (awtv, 116).
    assert psnr(u, truth) > psnr(noisy, truth) + gain


def test_gradient_descent_targets_and_fixed_iterations():
    _, noisy, variance = varying_noise(dtype=np.float64)
    u, report = igr.denoise_statistical_tv(noisy, method="tvgd", step=1.0, step_unit="l2", target_residual=0,
                                           max_iterations=7, return_report=True)
    assert report["iterations"] == 7 and not report["target_reached"] and report["target_residual"] == 0
    assert not report["variance_estimated"] and report["discrepancy"] == 0  # no variance given or needed
    assert u.dtype == np.float64
    explicit, report = igr.denoise_statistical_tv(noisy, method="tvgd", target_residual=5.0, return_report=True)
    assert report["target_reached"] and 5.0 <= report["residual"] < 5.0 + report["step_length"]
    # The discrepancy stop without a variance estimates one.
    _, report = igr.denoise_statistical_tv(noisy, method="awtv", delta=0.5, return_report=True)
    assert report["variance_estimated"] and report["target_reached"]
    assert report["mean_variance"] == pytest.approx(float(variance.mean()), rel=0.2)


def test_cpu_and_opencl_agree(has_opencl):
    if not has_opencl:
        pytest.skip("no OpenCL device")
    _, noisy, variance = varying_noise()
    for method in ("pdu", "awtv"):
        kwargs = dict(method=method, max_iterations=60)
        if method == "pdu":
            kwargs.update(lam=10.0, tolerance=0)
        cpu = igr.denoise_statistical_tv(noisy, variance, backend="cpu", **kwargs)
        ocl, report = igr.denoise_statistical_tv(noisy, variance, backend="opencl", return_report=True, **kwargs)
        assert report["backend"] == "OpenCL"
        assert np.abs(cpu - ocl).max() <= 1e-4, method


def test_simpleitk_images_keep_their_metadata():
    sitk = pytest.importorskip("SimpleITK")
    truth, noisy, variance = varying_noise()
    image, var_image = sitk.GetImageFromArray(noisy), sitk.GetImageFromArray(variance)
    for im in (image, var_image):
        im.SetSpacing((0.9, 0.8, 1.5))
        im.SetOrigin((-10.0, 4.0, 100.0))
        im.SetDirection((0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    for method in ("accelerated", "tvgd"):
        out, report = igr.denoise_statistical_tv(image, var_image, method=method, return_report=True)
        assert isinstance(out, sitk.Image)
        assert out.GetSize() == image.GetSize() and out.GetSpacing() == image.GetSpacing()
        assert out.GetOrigin() == image.GetOrigin() and out.GetDirection() == image.GetDirection()
        assert psnr(sitk.GetArrayFromImage(out), truth) > psnr(noisy, truth) + 5.0
        target = report["discrepancy_target"] if method != "tvgd" else 1.0  # TV-GD stops at factor 1
        assert report["discrepancy"] == pytest.approx(target, abs=0.05)
    # Without a variance it is estimated from the image.
    _, report = igr.denoise_statistical_tv(image, return_report=True)
    assert report["variance_estimated"]


def test_itk_images_keep_their_metadata():
    itk = pytest.importorskip("itk")
    _, noisy, variance = varying_noise()
    image, var_image = itk.image_from_array(noisy), itk.image_from_array(variance)
    for im in (image, var_image):
        im.SetSpacing((0.9, 0.8, 1.5))
        im.SetOrigin((-10.0, 4.0, 100.0))
    out = igr.denoise_statistical_tv(image, var_image, method="awtv")
    assert isinstance(out, type(image))
    assert tuple(out.GetSpacing()) == tuple(image.GetSpacing())
    assert tuple(out.GetOrigin()) == tuple(image.GetOrigin())
    shifted = itk.image_from_array(variance)
    shifted.SetSpacing((0.9, 0.8, 1.5))
    with pytest.raises(ValueError, match="origin"):
        igr.denoise_statistical_tv(image, shifted)


def test_bad_input_raises_value_error():
    sitk = pytest.importorskip("SimpleITK")
    _, noisy, variance = varying_noise()
    cases = [
        (dict(variance=variance[:, :, :-1]), "shape"),
        (dict(variance=np.zeros_like(variance)), "variance"),
        (dict(method="fast"), "method must be one of"),
        (dict(lam=-1.0), "lam"),
        (dict(method="tvgd", lam=5.0), "lam applies to method"),
        (dict(step=0.01), "step applies to method"),
        (dict(method="tvgd", delta=0.2), "delta applies to method 'awtv'"),
        (dict(method="awtv", step=0.0), "step"),
        (dict(method="tvgd", step_unit="cm"), "step_unit"),
        (dict(method="tvgd", target_residual=-1.0), "target_residual"),
        (dict(discrepancy_factor=0.0), "discrepancy_factor"),
        (dict(weight_exponent=2.5), "the weight exponent is 2.5"),
        (dict(weight_exponent=-1.0), "weight_exponent"),
        (dict(max_iterations=0), "max_iterations"),
    ]
    for kwargs, message in cases:
        kwargs = {"variance": variance, **kwargs}
        with pytest.raises(ValueError, match=message):
            igr.denoise_statistical_tv(noisy, **kwargs)
    image = sitk.GetImageFromArray(noisy)
    with pytest.raises(ValueError, match="must be a SimpleITK.Image like the image"):
        igr.denoise_statistical_tv(image, variance)
    other = sitk.GetImageFromArray(variance)
    other.SetSpacing((1.0, 1.0, 2.0))
    with pytest.raises(ValueError, match="spacing"):
        igr.denoise_statistical_tv(image, other)


def test_progress_and_abort():
    _, noisy, variance = varying_noise()
    calls = []
    igr.denoise_statistical_tv(noisy, variance, method="tvgd", progress=lambda done, maximum: calls.append(done))
    assert calls and calls == list(range(1, len(calls) + 1))
    with pytest.raises(igr.Aborted):
        igr.denoise_statistical_tv(noisy, variance, progress=lambda done, maximum: done < 5)


def test_make_ct_phantom():
    a = igr.make_ct_phantom((2, 48, 40), photons_per_ray=2000, seed=3)
    assert isinstance(a, igr.CTPhantom)
    for array in a:
        assert array.shape == (2, 48, 40) and array.dtype == np.float32
    assert set(np.unique(a.truth)) == {0.0, 0.5, 1.0}  # air, block, pin
    assert a.variance.min() > 0
    # The analytic variance describes the noise: compare with the error in the block's flat interior.
    b = igr.make_ct_phantom((2, 48, 40), photons_per_ray=2000, seed=3)
    np.testing.assert_array_equal(a.noisy, b.noisy)
    c = igr.make_ct_phantom((2, 48, 40), photons_per_ray=2000, seed=4)
    assert not np.array_equal(a.noisy, c.noisy)
    np.testing.assert_array_equal(a.variance, c.variance)
    empirical = np.mean((a.noisy - c.noisy) ** 2) / 2  # two independent realisations
    assert empirical == pytest.approx(float(a.variance.mean()), rel=0.2)
    slice2d = igr.make_ct_phantom((64, 64), phantom="shepp-logan")
    assert slice2d.noisy.shape == (64, 64)
    with pytest.raises(ValueError, match="unknown phantom"):
        igr.make_ct_phantom((32, 32), phantom="cube")
    with pytest.raises(ValueError, match="photons_per_ray"):
        igr.make_ct_phantom((32, 32), photons_per_ray=0)


def test_white_noise_is_assumed_with_a_warning():
    _, noisy, variance = varying_noise()
    with pytest.warns(RuntimeWarning, match="noise spectrum could not be measured .*give the variance"):
        _, report = igr.denoise_statistical_tv(noisy, return_report=True)
    assert report["variance_estimated"] and not report["noise_estimation"]["gain_measured"]
    assert report["noise_estimation"]["residual_gain"] == 1.0
    with pytest.warns(RuntimeWarning, match="discrepancy factor is that of white noise"):
        igr.denoise_statistical_tv(noisy, variance)
    with pytest.warns(RuntimeWarning, match="estimate_noise_variance: the noise spectrum could not be measured"):
        igr.estimate_noise_variance(noisy)
