# SPDX-License-Identifier: Apache-2.0
"""denoise_tv without lam: lam chosen from the noise level (sigma given or estimated) by the
discrepancy principle, so that the defaults denoise [0, 1] images at unit spacing and CT slices in
Hounsfield units at 0.7 mm alike, on converged solves, with results that do not depend on the units."""

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom, psnr


@pytest.fixture(scope="module")
def hounsfield_slice():
    """A CT slice in HU at 0.7 mm: the Shepp-Logan slice scanned (parallel beam, Ram-Lak FBP), mapped by
    HU = 2000 v - 1000 with the reconstruction's noise scaled to 25 HU; the reference is the noise-free
    reconstruction (the FBP's own error is not noise)."""
    from itkgpurestoration import _core

    truth = _core.phantom([256, 256], "shepp-logan")
    scan = igr.simulate_ct(truth, spacing=(0.7, 0.7), photons_per_ray=1e5, noise_free=True, seed=3)
    noise = scan.noisy.astype(np.float64) - scan.noise_free
    gain = 25.0 / (2000.0 * noise.std())
    reference = (2000.0 * scan.noise_free - 1000.0).astype(np.float32)
    noisy = (2000.0 * (scan.noise_free + gain * noise) - 1000.0).astype(np.float32)
    return reference, noisy


def hu_psnr(u, reference):
    return 10 * np.log10(2000.0**2 / np.mean((np.asarray(u, np.float64) - reference) ** 2))


def check_converged_search(report, max_iterations=igr._core.TV_DEFAULT_MAX_ITERATIONS):
    assert report["automatic_lam"]
    assert report["solves"] == len(report["solve_history"]) == len(report["lam_history"]) >= 1
    for solve in report["solve_history"]:
        assert solve["converged"] and abs(solve["relative_gap"]) <= 1e-4
        assert 0 < solve["iterations"] < max_iterations
    assert report["converged"] and not report["warnings"]
    assert report["lam"] == report["solve_history"][-1]["lam"]
    assert report["discrepancy"] == pytest.approx(report["discrepancy_target"], rel=0.02)


def test_defaults_denoise_a_ct_slice_in_hounsfield_units(hounsfield_slice):
    reference, noisy = hounsfield_slice
    u, report = igr.denoise_tv(noisy, spacing=(0.7, 0.7), return_report=True)
    before, after = hu_psnr(noisy, reference), hu_psnr(u, reference)
    assert after > before + 3.0, (before, after)  # measured 38.06 -> 42.03 dB
    check_converged_search(report)
    assert report["sigma_estimated"] and report["sigma"] == pytest.approx(25.0, rel=0.15)
    assert report["noise_estimation"]["residual_gain"] < 1.0  # the FBP's correlated noise
    assert report["discrepancy_target"] < 0.9
    # lam sigma h, the dimensionless weight, near 1 (lam about 10 for sigma 0.1 at unit spacing).
    assert 0.5 < report["lam"] * report["sigma"] * 0.7 < 3.0
    # The fixed lam 8 of earlier versions changes nothing here (lam sigma h = 140).
    fixed = igr.denoise_tv(noisy, lam=8.0, spacing=(0.7, 0.7))
    assert hu_psnr(fixed, reference) < before + 0.3


@pytest.mark.parametrize("scale, length", [(1 / 1024, 1.0), (1 / 2000, 1.0), (1.0, 1 / 0.7), (1e3, 1e-3)])
def test_defaults_do_not_depend_on_the_units(hounsfield_slice, scale, length):
    _, noisy = hounsfield_slice
    u, report = igr.denoise_tv(noisy, spacing=(0.7, 0.7), return_report=True)
    scaled = (noisy.astype(np.float64) * scale).astype(np.float32)
    us, rs = igr.denoise_tv(scaled, spacing=(0.7 * length,) * 2, return_report=True)
    assert rs["lam"] * scale * length == pytest.approx(report["lam"], rel=1e-4)
    assert rs["sigma"] / scale == pytest.approx(report["sigma"], rel=1e-5)
    assert rs["solves"] == report["solves"]
    tolerance = 0.0 if scale == 1 / 1024 else 1e-5  # a power of two is exact
    assert np.abs(us / scale - u).max() <= tolerance * np.abs(u).max()


def test_defaults_denoise_a_unit_range_phantom():
    truth, noisy = phantom((96, 96), sigma=0.1, seed=4, dtype=np.float32)
    u, report = igr.denoise_tv(noisy, return_report=True)
    assert psnr(u, truth) > psnr(noisy, truth) + 6.0
    check_converged_search(report)
    assert report["sigma"] == pytest.approx(0.1, rel=0.1)
    assert report["discrepancy_target"] == pytest.approx(0.9, abs=0.03)  # white noise


def test_known_sigma_and_fixed_lam():
    truth, noisy = phantom((64, 64), sigma=0.1, seed=5, dtype=np.float32)
    u, report = igr.denoise_tv(noisy, sigma=0.1, return_report=True)
    assert not report["sigma_estimated"] and report["sigma"] == 0.1 and report["noise_estimation"] is None
    assert report["solve_history"][0]["lam"] == pytest.approx(10.0)  # the search starts at 1 / (sigma h)
    check_converged_search(report)
    # The plain principle (factor 1) smooths more than the calibrated one.
    _, plain = igr.denoise_tv(noisy, sigma=0.1, discrepancy_factor=1.0, return_report=True)
    assert plain["discrepancy_target"] == 1.0 and plain["lam"] < report["lam"]
    # A fixed lam is used as given (one solve, as before); sigma then only gives the discrepancy.
    fixed, r = igr.denoise_tv(noisy, lam=12.0, sigma=0.1, return_report=True)
    np.testing.assert_array_equal(fixed, igr.denoise_tv(noisy, lam=12.0))
    assert not r["automatic_lam"] and r["lam"] == 12.0 and r["solves"] == 1 and r["discrepancy_target"] == 0.0
    assert r["discrepancy"] == pytest.approx(np.mean((fixed.astype(np.float64) - noisy) ** 2) / 0.01, rel=1e-6)
    _, r = igr.denoise_tv(noisy, weight=0.1, return_report=True)
    assert r["lam"] == pytest.approx(10.0) and r["sigma"] == 0.0 and r["discrepancy"] == 0.0


def test_image_spacing_and_progress():
    sitk = pytest.importorskip("SimpleITK")
    _, noisy = phantom((48, 40), sigma=0.1, seed=6, dtype=np.float32)
    image = sitk.GetImageFromArray(noisy)
    image.SetSpacing((0.7, 1.4))  # x, y
    out, report = igr.denoise_tv(image, return_report=True)
    array, expected = igr.denoise_tv(noisy, spacing=(1.4, 0.7), return_report=True)  # (y, x)
    np.testing.assert_array_equal(sitk.GetArrayFromImage(out), array)
    assert report["lam"] == expected["lam"] and out.GetSpacing() == image.GetSpacing()
    # progress sees every solve of the search; returning False aborts it.
    calls = []
    igr.denoise_tv(noisy, progress=lambda done, maximum: calls.append((done, maximum)))
    assert sum(1 for done, _ in calls if done == 1) == report["solves"]
    with pytest.raises(igr.Aborted):
        igr.denoise_tv(noisy, progress=lambda done, maximum: done < 5)


def check_readme_snippet(namespace):
    """The tv_hu block of docs/total-variation.md: CT in HU (sigma about 25 HU, 0.7 mm) with the defaults.

    The PSNR is taken against the block's noise-free reconstruction ``clean`` over 2000 HU (measured
    38.4 -> 43.6 dB); every solve of the search converged within the iteration budget.
    """
    clean, noisy, u, report = (namespace[k] for k in ("clean", "noisy", "u", "report"))
    assert u.shape == noisy.shape
    assert hu_psnr(u, clean) > hu_psnr(noisy, clean) + 4.0
    check_converged_search(report)
    assert report["sigma_estimated"]
    assert report["sigma"] == pytest.approx(np.std(noisy.astype(np.float64) - clean), rel=0.1)
