# SPDX-License-Identifier: Apache-2.0
"""circulant_sensing, measure_circulant, recover_sparse: the operator against a dense numpy one, recovery of
sparse signals and images, deblurring, image kinds and metadata, the callback, scaling, CPU vs OpenCL, errors."""

import numpy as np
import pytest

import itkgpurestoration as igr


def spikes(shape, k, seed=0):
    """k nonzeros of heights 1..3 at distinct random positions (a star field)."""
    rng = np.random.default_rng(seed)
    x = np.zeros(int(np.prod(shape)))
    x[rng.choice(x.size, k, replace=False)] = rng.uniform(1.0, 3.0, k)
    return x.reshape(shape)


def dense_operator_1d(generator):
    """C with C_ij = v_(j - i) mod n, written out."""
    n = generator.size
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return generator[(j - i) % n]


def relative_error(x, truth):
    return float(np.linalg.norm(x - truth) / np.linalg.norm(truth))


def test_circulant_sensing_is_reproducible_and_has_m_measurements():
    generator, mask = igr.circulant_sensing((24, 40), 0.3, seed=5)
    assert generator.shape == mask.shape == (24, 40)
    assert generator.dtype == np.float64 and mask.dtype == np.uint8
    assert set(np.unique(mask)) == {0, 1} and mask.sum() == round(0.3 * 24 * 40)
    again = igr.circulant_sensing((24, 40), 0.3, seed=5)
    np.testing.assert_array_equal(again[0], generator)
    np.testing.assert_array_equal(again[1], mask)
    other = igr.circulant_sensing((24, 40), 0.3, seed=6)
    assert not np.array_equal(other[1], mask)
    # N(0, 1/m) entries.
    assert np.std(generator) == pytest.approx(1 / np.sqrt(mask.sum()), rel=0.1)
    g1, m1 = igr.circulant_sensing(64, 0.5)
    assert g1.shape == m1.shape == (64,) and m1.sum() == 32


def test_measurements_equal_the_dense_operator_and_are_zero_filled():
    n = 96
    generator, mask = igr.circulant_sensing(n, 0.5, seed=1)
    x = np.random.default_rng(2).standard_normal(n)
    y = igr.measure_circulant(x, generator, mask, backend="cpu")
    expected = mask * (dense_operator_1d(generator) @ x)
    np.testing.assert_allclose(y, expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    assert y.dtype == np.float64 and np.all(y[mask == 0] == 0)
    # A PSF (centred at len // 2, periodic convolution): y = P C B x.
    psf = np.array([1.0, 2.0, 4.0, 2.0, 1.0])
    blurred = sum(w * np.roll(x, k - 2) for k, w in enumerate(psf / psf.sum()))
    y = igr.measure_circulant(x, generator, mask, psf, backend="cpu")
    np.testing.assert_allclose(y, mask * (dense_operator_1d(generator) @ blurred), rtol=0, atol=1e-12 * np.abs(y).max())
    unnormalised = igr.measure_circulant(x, generator, mask, psf, normalize_psf=False, backend="cpu")
    np.testing.assert_allclose(unnormalised, psf.sum() * y, rtol=1e-12, atol=1e-12)


def test_recovers_a_sparse_signal_and_reports():
    n, k = 1024, 40
    truth = spikes(n, k, seed=3)
    generator, mask = igr.circulant_sensing(n, 0.5, seed=4)
    y = igr.measure_circulant(truth, generator, mask, backend="cpu")
    seen = []
    x, report = igr.recover_sparse(y, mask, generator, relative_alpha=1e-4, backend="cpu", callback=seen.append,
                                   return_report=True)
    assert relative_error(x, truth) < 2e-3
    assert report["converged"] and report["stop"] == "converged"
    assert report["relative_gap"] <= 1e-3 and report["relative_residual"] < 1e-3
    assert report["solver"] == "FISTA" and report["measurements"] == n // 2 and report["backend"] == "CPU"
    assert report["alpha"] == pytest.approx(1e-4 * report["alpha_max"], rel=1e-12)
    assert report["nonzeros"] <= 2 * k and report["bytes"] > 0
    assert [s["iteration"] for s in seen] == list(range(1, report["iterations"] + 1))
    assert len(seen) == len(report["history"])
    for a, b in zip(seen, report["history"]):  # NaN between checks
        assert a.keys() == b.keys()
        np.testing.assert_array_equal(list(a.values()), list(b.values()))
    checked = [s for s in seen if not np.isnan(s["relative_gap"])]
    assert checked and all(np.isnan(s["relative_error"]) for s in seen)

    # The three solvers reach the same minimiser (relative alpha 1e-3, where CPISTA converges in a few thousand
    # iterations); FISTA in the fewest iterations.
    runs = {solver: igr.recover_sparse(y, mask, generator, solver=solver, max_iterations=20000, backend="cpu",
                                       return_report=True) for solver in ("fista", "cpista", "cpadmm")}
    for solver, (z, r) in runs.items():
        assert r["converged"], solver
        assert relative_error(z, runs["fista"][0]) < 1e-2, solver
        assert relative_error(z, truth) < 1e-2, solver
    assert runs["cpista"][1]["iterations"] > runs["fista"][1]["iterations"]

    # A truth stops the run at the target error, and says that this is not a converged LASSO solution.
    with pytest.warns(igr.ConvergenceWarning, match="target error against the truth"):
        _, r = igr.recover_sparse(y, mask, generator, relative_alpha=1e-4, truth=truth, target_relative_error=1e-2,
                                  backend="cpu", return_report=True)
    assert r["stop"] == "truth_reached" and r["relative_error"] <= 1e-2 and r["iterations"] < report["iterations"]
    assert not r["converged"]


@pytest.mark.filterwarnings("ignore::itkgpurestoration.ConvergenceWarning")  # a short budget on purpose
def test_scaling_the_measurements_scales_the_result():
    truth = spikes((32, 32), 20, seed=8)
    generator, mask = igr.circulant_sensing(truth.shape, 0.5, seed=9)
    y = igr.measure_circulant(truth, generator, mask, backend="cpu")
    kw = dict(max_iterations=150, backend="cpu")
    u = igr.recover_sparse(y, mask, generator, **kw)
    v = igr.recover_sparse(1000.0 * y, mask, generator, **kw)
    np.testing.assert_allclose(v / 1000.0, u, rtol=0, atol=1e-9 * np.abs(u).max())
    w = igr.recover_sparse(y, mask, 10.0 * generator, **kw)  # C -> 10 C: x -> x / 10
    np.testing.assert_allclose(10.0 * w, u, rtol=0, atol=1e-9 * np.abs(u).max())


def test_deblurs_stars_from_compressed_blurred_measurements():
    truth = spikes((48, 48), 25, seed=10)
    yy, xx = np.mgrid[-4:5, -4:5]
    psf = np.exp(-(xx**2 + yy**2) / (2 * 1.5**2))
    generator, mask = igr.circulant_sensing(truth.shape, 0.5, seed=11)
    y = igr.measure_circulant(truth, generator, mask, psf, backend="cpu")
    x, report = igr.recover_sparse(y, mask, generator, psf, nonnegative=True, solver="cpadmm", backend="cpu",
                                   return_report=True)
    blurred = igr.measure_circulant(truth, np.eye(1, truth.size).reshape(truth.shape), np.ones_like(mask), psf,
                                    backend="cpu")  # C = I, P = I: the fully sampled blurred image
    assert x.min() >= 0.0
    assert relative_error(x, truth) < 0.1 * relative_error(blurred, truth)
    assert report["converged"]


def test_float32_and_image_kinds_keep_metadata():
    # float32 at relative_alpha 1e-3: float resolves the duality gap to about 5e-7 / relative_alpha.
    truth = spikes((24, 32), 12, seed=12).astype(np.float32)
    generator, mask = igr.circulant_sensing(truth.shape, 0.5, seed=13)
    y = igr.measure_circulant(truth, generator, mask, backend="cpu")
    assert y.dtype == np.float32
    x = igr.recover_sparse(y, mask, generator, relative_alpha=1e-3, backend="cpu")
    assert x.dtype == np.float32 and relative_error(x, truth) < 1e-2

    sitk = pytest.importorskip("SimpleITK")
    image = sitk.GetImageFromArray(y)
    image.SetSpacing((0.5, 0.75))
    image.SetOrigin((3.0, -2.0))
    image.SetDirection((0.0, 1.0, -1.0, 0.0))
    out = igr.recover_sparse(image, mask, generator, relative_alpha=1e-3, backend="cpu")
    assert isinstance(out, sitk.Image)
    assert out.GetSpacing() == image.GetSpacing() and out.GetOrigin() == image.GetOrigin()
    assert out.GetDirection() == image.GetDirection()
    np.testing.assert_array_equal(sitk.GetArrayFromImage(out), x)
    # The mask as an image on another grid is refused.
    mask_image = sitk.GetImageFromArray(mask)
    with pytest.raises(ValueError, match="mask has spacing"):
        igr.recover_sparse(image, mask_image, generator, backend="cpu")
    mask_image.CopyInformation(image)
    np.testing.assert_array_equal(
        sitk.GetArrayFromImage(igr.recover_sparse(image, mask_image, generator, relative_alpha=1e-3, backend="cpu")), x)
    measured = igr.measure_circulant(sitk.GetImageFromArray(truth), generator, mask, backend="cpu")
    np.testing.assert_array_equal(sitk.GetArrayFromImage(measured), y)


def test_itk_image_keeps_metadata():
    itk = pytest.importorskip("itk")
    truth = spikes((24, 32), 12, seed=12).astype(np.float32)
    generator, mask = igr.circulant_sensing(truth.shape, 0.5, seed=13)
    y = igr.measure_circulant(truth, generator, mask, backend="cpu")
    image = itk.image_from_array(y)
    image.SetSpacing((0.5, 0.75))
    image.SetOrigin((3.0, -2.0))
    out = igr.recover_sparse(image, mask, generator, relative_alpha=1e-3, backend="cpu")
    assert tuple(out.GetSpacing()) == (0.5, 0.75) and tuple(out.GetOrigin()) == (3.0, -2.0)
    expected = igr.recover_sparse(y, mask, generator, relative_alpha=1e-3, backend="cpu")
    np.testing.assert_array_equal(itk.array_from_image(out), expected)


def test_callback_can_abort_and_raise():
    truth = spikes(256, 10, seed=14)
    generator, mask = igr.circulant_sensing(256, 0.5, seed=15)
    y = igr.measure_circulant(truth, generator, mask, backend="cpu")
    calls = []

    def stop_at_three(info):
        calls.append(info["iteration"])
        return info["iteration"] < 3

    with pytest.raises(igr.Aborted):
        igr.recover_sparse(y, mask, generator, callback=stop_at_three, backend="cpu")
    assert calls == [1, 2, 3]

    def fails(info):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        igr.recover_sparse(y, mask, generator, callback=fails, backend="cpu")


def test_not_converged_warns():
    truth = spikes(256, 10, seed=16)
    generator, mask = igr.circulant_sensing(256, 0.5, seed=17)
    y = igr.measure_circulant(truth, generator, mask, backend="cpu")
    with pytest.warns(igr.ConvergenceWarning):
        _, report = igr.recover_sparse(y, mask, generator, max_iterations=5, backend="cpu", return_report=True)
    assert not report["converged"] and report["stop"] == "maximum_iterations" and report["iterations"] == 5


@pytest.mark.filterwarnings("ignore::itkgpurestoration.ConvergenceWarning")  # a short budget on purpose
def test_cpu_and_opencl_agree(has_opencl):
    if not has_opencl:
        pytest.skip("no OpenCL device")
    truth = spikes((32, 32), 20, seed=18)
    generator, mask = igr.circulant_sensing(truth.shape, 0.5, seed=19)
    y = igr.measure_circulant(truth, generator, mask, backend="cpu")
    np.testing.assert_allclose(igr.measure_circulant(truth, generator, mask, backend="opencl"), y, rtol=0,
                               atol=1e-12 * np.abs(y).max())
    kw = dict(relative_alpha=1e-4, max_iterations=300)
    cpu, r_cpu = igr.recover_sparse(y, mask, generator, backend="cpu", return_report=True, **kw)
    ocl, r_ocl = igr.recover_sparse(y, mask, generator, backend="opencl", return_report=True, **kw)
    assert r_ocl["backend"] == "OpenCL" and r_ocl["iterations"] == r_cpu["iterations"]
    assert relative_error(ocl, cpu) < 1e-9


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(solver="omp"), "solver must be one of 'fista', 'cpista', 'cpadmm'"),
        (dict(alpha=-1.0), "alpha must be finite and > 0"),
        (dict(relative_alpha=1.0), r"relative_alpha must be in \(0, 1\)"),
        (dict(relative_alpha=float("nan")), "relative_alpha must be finite and > 0"),
        (dict(step=0.0), "step must be finite and > 0"),
        (dict(threshold="hard"), "threshold must be one of 'proximal', 'paper'"),
        (dict(rho=-1.0), "rho must be a real number >= 0"),
        (dict(nonnegative="yes"), "nonnegative must be True or False"),
        (dict(tolerance=0.0), "tolerance must be finite and > 0"),
        (dict(max_iterations=0), "max_iterations must be >= 1"),
        (dict(check_interval=1.5), "check_interval must be an integer"),
        (dict(target_relative_error=0.1), "needs a truth"),
        (dict(backend="cuda"), "backend"),
        (dict(callback=3), "callback must be callable"),
        (dict(num_threads=0), "num_threads"),
    ],
)
def test_bad_parameters_are_value_errors(kwargs, message):
    generator, mask = igr.circulant_sensing(64, 0.5, seed=1)
    with pytest.raises(ValueError, match=message):
        igr.recover_sparse(np.zeros(64), mask, generator, **kwargs)


def test_bad_inputs_are_value_errors():
    generator, mask = igr.circulant_sensing((16, 16), 0.5, seed=1)
    y = igr.measure_circulant(spikes((16, 16), 5), generator, mask, backend="cpu")
    with pytest.raises(ValueError, match="mask has shape"):
        igr.recover_sparse(y, mask[:, :8], generator)
    with pytest.raises(ValueError, match="generator has shape"):
        igr.recover_sparse(y, mask, generator[:8])
    with pytest.raises(ValueError, match="0 .not measured. and 1 .measured. only"):
        igr.recover_sparse(y, 255 * mask, generator)
    with pytest.raises(ValueError, match="mask is empty"):
        igr.recover_sparse(y, np.zeros_like(mask), generator)
    with pytest.raises(ValueError, match="1D signal or a 2D image"):
        igr.recover_sparse(np.zeros((4, 4, 4)), mask, generator)
    with pytest.raises(ValueError, match="psf must have 2 dimensions"):
        igr.recover_sparse(y, mask, generator, np.ones(3))
    with pytest.raises(ValueError):
        igr.recover_sparse(y, mask, generator, np.ones((17, 3)))  # larger than the image
    with pytest.raises(ValueError):
        igr.recover_sparse(y, mask, generator, np.zeros((3, 3)))  # zero sum
    bad = y.copy()
    bad[mask == 1] = np.nan
    with pytest.raises(ValueError):
        igr.recover_sparse(bad, mask, generator)
    bad_generator = generator.copy()
    bad_generator[0, 0] = np.inf
    with pytest.raises(ValueError):
        igr.measure_circulant(y, bad_generator, mask)
    for shape, ratio, message in (((1,), 0.5, "shape"), ((8, 8), 0.0, "ratio"), ((8, 8), 1.5, "ratio"),
                                  ((2, 3, 4), 0.5, "shape")):
        with pytest.raises(ValueError, match=message):
            igr.circulant_sensing(shape, ratio)
    with pytest.raises(ValueError, match="seed"):
        igr.circulant_sensing(8, 0.5, seed=-1)


def check_readme_snippet(namespace):
    """The sparse block of docs/sparse-recovery.md: 40 stars from half their measurements, and deblurred."""
    clean, x, deblurred, report = (namespace[k] for k in ("clean", "x", "deblurred", "report"))
    assert x.shape == deblurred.shape == clean.shape
    assert report["converged"] and report["measurements"] == clean.size // 2
    assert relative_error(x, clean) < 2e-3
    # Deblurred at the default relative alpha 1e-3 (FISTA, converged in 9390 iterations): measured 3.6e-3.
    assert relative_error(deblurred, clean) < 1e-2 and deblurred.min() >= 0
