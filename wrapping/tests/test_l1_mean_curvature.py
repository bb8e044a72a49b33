# SPDX-License-Identifier: Apache-2.0
"""denoise_l1_mean_curvature: image kinds and metadata, the callback, errors, CPU vs OpenCL, and a natural photograph."""

import numpy as np
import pytest

import itkgpurestoration as igr

from conftest import phantom, psnr

# Most runs here have a small budget on purpose (they test the interface): not converging is expected.
pytestmark = pytest.mark.filterwarnings("ignore::itkgpurestoration.ConvergenceWarning")


def small_noisy(shape=(40, 48), dtype=np.float64):
    truth, noisy = phantom(shape, sigma=0.1, seed=3, dtype=dtype)
    return truth, noisy


FAST = dict(r0=0.005, max_num_iter=20, backend="cpu")


def test_numpy_keeps_shape_and_dtype_and_reports():
    _, noisy = small_noisy()
    for dtype in (np.float32, np.float64):
        u, report = igr.denoise_l1_mean_curvature(noisy.astype(dtype), return_report=True, **FAST)
        assert u.shape == noisy.shape and u.dtype == dtype
        assert np.isfinite(u).all()
        assert report["backend"] == "CPU"
        assert 1 <= report["iterations"] <= 20
        assert len(report["history"]) == report["iterations"]
        assert report["r0"] == 0.005
        assert report["h"] == pytest.approx(1.0 / 47)  # 1 / (max(ny, nx) - 1)
        assert report["data_range"] == pytest.approx(float(noisy.max() - noisy.min()), rel=1e-6)
        assert report["epsilon"] == pytest.approx(0.005 / 47)
        for key in ("objective", "lagrangian", "relative_change", "r1_residual", "r2_residual", "r3_residual"):
            assert report[key] == report["history"][-1][key]
        assert set(report["timings"]) == {"sub1", "sub2", "sub3", "sub4", "misc"}


def test_simpleitk_keeps_metadata_and_uses_the_spacing():
    sitk = pytest.importorskip("SimpleITK")
    _, noisy = small_noisy()
    image = sitk.GetImageFromArray(noisy.astype(np.float32))
    image.SetSpacing((0.5, 0.75))
    image.SetOrigin((3.0, -2.0))
    image.SetDirection((0.0, 1.0, -1.0, 0.0))
    out = igr.denoise_l1_mean_curvature(image, **FAST)
    assert isinstance(out, sitk.Image)
    assert out.GetSpacing() == image.GetSpacing()
    assert out.GetOrigin() == image.GetOrigin()
    assert out.GetDirection() == image.GetDirection()
    # The image's spacing is the array's (y, x) = (0.75, 0.5).
    expected = igr.denoise_l1_mean_curvature(noisy.astype(np.float32), spacing=(0.75, 0.5), **FAST)
    np.testing.assert_array_equal(sitk.GetArrayFromImage(out), expected)


def test_itk_image_keeps_metadata():
    itk = pytest.importorskip("itk")
    _, noisy = small_noisy()
    image = itk.image_from_array(noisy.astype(np.float32))
    image.SetSpacing((0.5, 0.75))
    image.SetOrigin((3.0, -2.0))
    out = igr.denoise_l1_mean_curvature(image, **FAST)
    assert tuple(out.GetSpacing()) == (0.5, 0.75)
    assert tuple(out.GetOrigin()) == (3.0, -2.0)
    expected = igr.denoise_l1_mean_curvature(noisy.astype(np.float32), spacing=(0.75, 0.5), **FAST)
    np.testing.assert_array_equal(itk.array_from_image(out), expected)


def test_callback_sees_every_iteration_and_can_abort():
    _, noisy = small_noisy()
    seen = []
    u, report = igr.denoise_l1_mean_curvature(noisy, callback=seen.append, return_report=True, **FAST)
    assert [s["iteration"] for s in seen] == list(range(1, report["iterations"] + 1))
    assert seen == report["history"]
    for s in seen:
        assert {"objective", "lagrangian", "r1_residual", "r2_residual", "r3_residual"} <= set(s)

    calls = []

    def stop_at_three(info):
        calls.append(info["iteration"])
        return info["iteration"] < 3

    with pytest.raises(igr.Aborted):
        igr.denoise_l1_mean_curvature(noisy, callback=stop_at_three, **FAST)
    assert calls == [1, 2, 3]

    def fails(info):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        igr.denoise_l1_mean_curvature(noisy, callback=fails, **FAST)


def test_sigma_chooses_r0_and_the_result_scales_with_the_data():
    _, noisy = small_noisy()
    _, report = igr.denoise_l1_mean_curvature(noisy, sigma=0.1, max_num_iter=3, backend="cpu", return_report=True)
    assert not report["sigma_estimated"] and report["sigma"] == 0.1
    assert report["r0"] == pytest.approx(igr.l1mc_r0_for_noise(0.1 / report["data_range"]), rel=1e-12)
    _, report = igr.denoise_l1_mean_curvature(noisy, max_num_iter=3, backend="cpu", return_report=True)
    assert report["sigma_estimated"] and 0.05 < report["sigma"] < 0.2
    # The same image in other units (times 1000): the same result times 1000.
    u = igr.denoise_l1_mean_curvature(noisy, **FAST)
    v = igr.denoise_l1_mean_curvature(1000.0 * noisy, **FAST)
    np.testing.assert_allclose(v / 1000.0, u, rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(r0=-1.0), "r0 must be finite and > 0"),
        (dict(r0=float("nan")), "r0 must be finite and > 0"),
        (dict(sigma=0.0), "sigma must be finite and > 0"),
        (dict(h=-0.1), "h must be finite and > 0"),
        (dict(data_range=0), "data_range must be finite and > 0"),
        (dict(r2="big"), "r2 must be a number"),
        (dict(max_num_iter=0), "max_num_iter must be >= 1"),
        (dict(tol=0.0), "tol must be finite and > 0"),
        (dict(initialization="random"), "initialization must be one of 'zero', 'data'"),
        (dict(corner_mass="lumped"), "corner_mass must be one of 'exact', 'separable'"),
        (dict(sub2_solver="jacobi"), "sub2_solver must be one of 'direct', 'cg'"),
        (dict(backend="cuda"), "backend"),
        (dict(callback=3), "callback must be callable"),
        (dict(num_threads=0), "num_threads"),
    ],
)
def test_bad_parameters_are_value_errors(kwargs, message):
    _, noisy = small_noisy()
    with pytest.raises(ValueError, match=message):
        igr.denoise_l1_mean_curvature(noisy, **kwargs)


def test_bad_images_are_value_errors():
    with pytest.raises(ValueError, match="2D"):
        igr.denoise_l1_mean_curvature(np.zeros((8, 8, 8)), **FAST)
    with pytest.raises(ValueError):
        igr.denoise_l1_mean_curvature(np.zeros((1, 1)), **FAST)
    _, noisy = small_noisy()
    noisy[5, 7] = np.nan
    with pytest.raises(ValueError):
        igr.denoise_l1_mean_curvature(noisy, **FAST)


@pytest.mark.filterwarnings("default::itkgpurestoration.ConvergenceWarning")
def test_direct_and_cg_sub2_solvers_give_the_same_run():
    """The p3-subproblem solved directly (default) or by the paper's CG: one system, one run up to CG's tolerance."""
    _, noisy = small_noisy()
    runs = {
        solver: igr.denoise_l1_mean_curvature(noisy, r0=0.005, max_num_iter=300, backend="cpu", sub2_solver=solver,
                                              return_report=True)
        for solver in ("direct", "cg")
    }
    (u, a), (v, b) = runs["direct"], runs["cg"]
    assert a["converged"] and b["converged"]
    assert abs(a["iterations"] - b["iterations"]) <= 2
    assert a["sub2_residual"] < 1e-13 < b["sub2_residual"] < 1e-7
    assert all(info["cg_iterations"] == 0 for info in a["history"])
    assert sum(info["cg_iterations"] for info in b["history"]) > 0
    np.testing.assert_allclose(u, v, rtol=0, atol=1e-5 * np.abs(v).max())


def test_not_converged_warns():
    _, noisy = small_noisy()
    with pytest.warns(igr.ConvergenceWarning):
        igr.denoise_l1_mean_curvature(noisy, r0=0.005, max_num_iter=2, backend="cpu")


def test_cpu_and_opencl_agree(has_opencl):
    if not has_opencl:
        pytest.skip("no OpenCL device")
    _, noisy = small_noisy()
    runs = {
        backend: igr.denoise_l1_mean_curvature(noisy, r0=0.005, max_num_iter=300, backend=backend,
                                               return_report=True)
        for backend in ("cpu", "opencl")
    }
    (u, a), (v, b) = runs["cpu"], runs["opencl"]
    assert b["backend"] == "OpenCL"
    assert a["iterations"] == b["iterations"]
    assert b["objective"] == pytest.approx(a["objective"], rel=1e-10)
    np.testing.assert_allclose(v, u, rtol=0, atol=1e-8)



def test_float32_on_both_backends_matches_float64(has_opencl):
    """float32 images are solved in float32 (on the device too): rounding changes the path, not the result.

    Measured (40 x 48, r0 0.005, range 2.1): 123 iterations in each run, PSNR 29.2836 (float32) and 29.2829 dB
    (float64), float32 within 2.2e-4 of float64, CPU and OpenCL float32 equal to 7 digits.
    """
    truth, noisy = small_noisy(dtype=np.float32)
    backends = ("cpu", "opencl") if has_opencl else ("cpu",)
    reference, ref_report = igr.denoise_l1_mean_curvature(noisy.astype(np.float64), r0=0.005, max_num_iter=300,
                                                          backend="cpu", return_report=True)
    for backend in backends:
        u, report = igr.denoise_l1_mean_curvature(noisy, r0=0.005, max_num_iter=300, backend=backend,
                                                  return_report=True)
        assert u.dtype == np.float32 and report["converged"]
        assert abs(report["iterations"] - ref_report["iterations"]) <= 0.1 * ref_report["iterations"]
        assert psnr(u, truth) == pytest.approx(psnr(reference, truth), abs=0.02)
        np.testing.assert_allclose(u, reference, rtol=0, atol=1e-3)

def test_photograph_gains_six_db_at_sigma_0_1():
    """The issue's test: PSNR gain >= 6 dB on a natural photograph with Gaussian noise 0.1 on [0, 1], r0 from sigma.

    scikit-image's bundled camera, 2 x 2 block means to 256 x 256 so that the test takes about 20 s on 2 CPU cores
    (the 512 x 512 original costs about 0.27 s per outer iteration on the CPU reference there). Measured: 20.01 ->
    27.61 dB (+7.6) in 166 iterations (r0 0.005), the same on OpenCL.
    """
    data = pytest.importorskip("skimage.data")
    camera = data.camera().astype(np.float64) / 255.0
    truth = 0.25 * (camera[0::2, 0::2] + camera[1::2, 0::2] + camera[0::2, 1::2] + camera[1::2, 1::2])
    noisy = truth + 0.1 * np.random.default_rng(7).standard_normal(truth.shape)
    u, report = igr.denoise_l1_mean_curvature(noisy, sigma=0.1, data_range=1.0, return_report=True)
    gain = psnr(u, truth) - psnr(noisy, truth)
    assert gain >= 6.0, f"PSNR gain {gain:.2f} dB with r0 {report['r0']:.4g}, {report['iterations']} iterations"


def check_readme_snippet(namespace):
    """The l1mc block of docs/l1-mean-curvature.md: a converged run on a 128^2 photograph, every iteration seen.

    Measured: PSNR 20.03 -> 26.14 dB (+6.1) at r0 0.005 from sigma 0.1, 101 iterations.
    """
    clean, noisy, u, report = (namespace[k] for k in ("clean", "noisy", "u", "report"))
    assert u.shape == clean.shape == (128, 128)
    assert report["converged"] and report["relative_change"] < 1e-4
    assert report["r0"] == pytest.approx(igr.l1mc_r0_for_noise(0.1))
    assert len(namespace["history"]) == report["iterations"]
    assert psnr(u, clean) - psnr(noisy, clean) >= 5.5
