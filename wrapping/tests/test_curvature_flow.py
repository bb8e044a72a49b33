# SPDX-License-Identifier: Apache-2.0
"""graph_mean_curvature_flow and willmore_flow: exact solutions, the image kinds, spacing, backends, scaling, input."""

import numpy as np
import pytest

import itkgpurestoration as igr

FLOWS = [igr.graph_mean_curvature_flow, igr.willmore_flow]


def backends(has_opencl):
    return ["cpu", "opencl"] if has_opencl else ["cpu"]


def scherk(cells):
    """Scherk's surface u = ln cos y - ln cos x on the (cells + 1)^2 nodes of [-1, 1]^2, and the spacing."""
    x = np.linspace(-1.0, 1.0, cells + 1)
    return np.log(np.cos(x))[:, None] - np.log(np.cos(x))[None, :], (2.0 / cells,) * 2


def rings(cells):
    """The initial surface (35) of [Oberhuber2011], sin(3 pi sqrt(x^2 + y^2)) on [-2, 2]^2, and the spacing."""
    x = np.linspace(-2.0, 2.0, cells + 1)
    return np.sin(3 * np.pi * np.hypot(x[:, None], x[None, :])), (4.0 / cells,) * 2


def graph_area(u, spacing):
    """The area of the graph over the nodes' rectangle: cells h1 h2 sqrt(1 + |grad u|^2), the cell's gradient from
    the means of its opposite edges' differences (as gpur::GraphSurfaceArea)."""
    hy, hx = spacing
    ux = (np.diff(u, axis=1)[:-1] + np.diff(u, axis=1)[1:]) / (2 * hx)
    uy = (np.diff(u, axis=0)[:, :-1] + np.diff(u, axis=0)[:, 1:]) / (2 * hy)
    return float(np.sum(hx * hy * np.sqrt(1 + ux**2 + uy**2)))


def noisy_bump(shape=(24, 20), seed=3):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[: shape[0], : shape[1]]
    return np.exp(-((x - 9.0) ** 2 + (y - 12.0) ** 2) / 30.0) * 3 + 0.3 * rng.standard_normal(shape)


def test_scherk_surface_is_stationary_for_mean_curvature_flow():
    """The engine's L-infinity errors (gpurGraphMeanCurvatureFlowTest, ExactSolutionsWithoutForcing: T = 0.1,
    Dirichlet data of the exact solution) and their second order. Measured here: 2.26e-4, 6.07e-5, 1.53e-5."""
    previous = None
    for cells, engine in ((16, 2.25e-4), (32, 6.07e-5), (64, 1.53e-5)):
        u0, spacing = scherk(cells)
        u, report = igr.graph_mean_curvature_flow(u0, 0.1, spacing=spacing, boundary="dirichlet", backend="cpu",
                                                  return_report=True)
        error = np.abs(u - u0).max()
        assert error == pytest.approx(engine, rel=0.02), cells
        assert report["time_reached"] == 0.1 and report["accepted_steps"] > 0
        np.testing.assert_array_equal(u[0], u0[0])  # the Dirichlet values stay
        if previous is not None:
            assert 1.85 < np.log2(previous / error) < 2.1, cells
        previous = error


def test_scherk_surface_is_stationary_for_willmore_flow():
    """A minimal surface (w = 0) stays under Willmore flow: below the engine's bound 1e-3 at 16^2 (T = 1e-3),
    second order to 32^2. Measured: 9.9e-5, 2.66e-5."""
    errors = []
    for cells in (16, 32):
        u0, spacing = scherk(cells)
        u = igr.willmore_flow(u0, 1e-3, spacing=spacing, boundary="dirichlet", backend="cpu")
        errors.append(np.abs(u - u0).max())
    assert errors[0] < 1e-3 and errors[0] == pytest.approx(9.9e-5, rel=0.05)
    assert 1.8 < np.log2(errors[0] / errors[1]) < 2.1


@pytest.mark.parametrize("boundary", ["neumann", "dirichlet"])
def test_area_decreases_on_the_rings(boundary):
    """Mean-curvature flow decreases the graph's area [Oberhuber2011, (1)-(2)]; the rings flatten."""
    u0, spacing = rings(64)
    areas = [graph_area(u0, spacing)]
    for time in (0.02, 0.05, 0.1):
        u = igr.graph_mean_curvature_flow(u0, time, spacing=spacing, boundary=boundary, backend="cpu")
        areas.append(graph_area(u, spacing))
    assert all(b < a for a, b in zip(areas, areas[1:])), areas
    assert areas[-1] < 0.5 * areas[0]
    if boundary == "neumann":
        np.testing.assert_array_equal(u[:, 0], u[:, 1])  # the border copies its neighbour
        np.testing.assert_allclose(u, u.T, atol=1e-12)
    else:
        np.testing.assert_array_equal(u[0], u0[0])


@pytest.mark.parametrize("flow", FLOWS)
def test_image_kinds_agree_and_keep_their_geometry(flow):
    sitk = pytest.importorskip("SimpleITK")
    itk = pytest.importorskip("itk")
    f = noisy_bump().astype(np.float32)
    expected = flow(f, spacing=(2.0, 0.5), backend="cpu")
    assert expected.dtype == np.float32

    image = sitk.GetImageFromArray(f)
    image.SetOrigin((1.0, -2.0))
    image.SetSpacing((0.5, 2.0))
    image.SetDirection((0.0, 1.0, 1.0, 0.0))
    out = flow(image, backend="cpu")
    assert isinstance(out, sitk.Image) and out.GetPixelID() == sitk.sitkFloat32
    assert (out.GetOrigin(), out.GetSpacing(), out.GetDirection()) == (
        image.GetOrigin(), image.GetSpacing(), image.GetDirection())
    np.testing.assert_array_equal(sitk.GetArrayFromImage(out), expected)

    image = itk.image_from_array(f)
    image.SetOrigin((1.0, -2.0))
    image.SetSpacing((0.5, 2.0))
    direction = np.array([[0.0, 1.0], [1.0, 0.0]])
    image.SetDirection(itk.matrix_from_array(direction))
    out = flow(image, backend="cpu")
    assert type(out) is type(image)
    assert tuple(out.GetOrigin()) == (1.0, -2.0) and tuple(out.GetSpacing()) == (0.5, 2.0)
    np.testing.assert_array_equal(itk.array_from_matrix(out.GetDirection()), direction)
    np.testing.assert_array_equal(itk.array_from_image(out), expected)


@pytest.mark.parametrize("flow, power", [(igr.graph_mean_curvature_flow, 2), (igr.willmore_flow, 4)])
def test_spacing_is_honoured(flow, power):
    f = noisy_bump()
    reference, r1 = flow(f, 0.5, backend="cpu", return_report=True)
    # Lengths scaled by s = 2 (spacing, and the unit of height 1 / s against them): the same flow at time
    # s^power T, the same steps with the tolerance (relative to the regularization) scaled by s.
    scaled, r2 = flow(f, 0.5 * 2**power, spacing=(2.0, 2.0), regularization=0.5, tolerance=2e-5, backend="cpu",
                      return_report=True)
    np.testing.assert_allclose(scaled, reference, rtol=0, atol=1e-10)
    assert (r1["accepted_steps"], r1["rejected_steps"]) == (r2["accepted_steps"], r2["rejected_steps"])
    # Anisotropic: the axes are not mixed up (the transposed image with the spacing swapped)...
    a = flow(f, spacing=(0.5, 2.0), backend="cpu")
    np.testing.assert_allclose(flow(f.T.copy(), spacing=(2.0, 0.5), backend="cpu"), a.T, rtol=0, atol=1e-10)
    assert np.abs(a - flow(f, spacing=(2.0, 0.5), backend="cpu")).max() > 0.01
    # ... and a profile along x alone does not see the spacing in y (the automatic first step does: it follows the
    # smaller spacing, so both runs start with the same one).
    profile = np.repeat(f[:1], 8, axis=0)
    np.testing.assert_allclose(flow(profile, spacing=(0.5, 2.0), initial_step=1e-3, backend="cpu"),
                               flow(profile, spacing=(2.0, 2.0), initial_step=1e-3, backend="cpu"), rtol=0, atol=1e-10)


@pytest.mark.parametrize("flow", FLOWS)
@pytest.mark.parametrize("dtype, agreement", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_cpu_and_opencl_agree(has_opencl, flow, dtype, agreement):
    if not has_opencl:
        pytest.skip("no OpenCL device")
    f = noisy_bump().astype(dtype)
    a, ra = flow(f, 0.5, backend="cpu", return_report=True)
    b, rb = flow(f, 0.5, backend="opencl", return_report=True)
    assert ra["backend"] == "CPU" and rb["backend"] == "OpenCL" and rb["device"]
    assert (ra["accepted_steps"], ra["rejected_steps"]) == (rb["accepted_steps"], rb["rejected_steps"])
    assert a.dtype == b.dtype == dtype
    assert np.abs(a.astype(float) - b).max() < agreement * np.abs(f).max()


@pytest.mark.parametrize("flow", FLOWS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scaling_image_and_regularization_scales_the_result(flow, dtype):
    """Image and regularization times 4 (exact in binary): the same steps, the result times 4 bit for bit."""
    f = noisy_bump().astype(dtype)
    a, ra = flow(f, 0.5, regularization=0.5, backend="cpu", return_report=True)
    b, rb = flow(f * 4, 0.5, regularization=2.0, backend="cpu", return_report=True)
    assert (ra["accepted_steps"], ra["rejected_steps"]) == (rb["accepted_steps"], rb["rejected_steps"])
    np.testing.assert_array_equal(4 * a, b)
    # A smaller regularization, a steeper relief: the same image moves less far from where it started.
    c = flow(f, 0.5, regularization=0.125, backend="cpu")
    assert np.abs(c - f).mean() < np.abs(a - f).mean()


def test_willmore_float_input_is_computed_in_double():
    f = noisy_bump()
    single = f.astype(np.float32)
    u, report = igr.willmore_flow(single, 0.5, backend="cpu", return_report=True)
    assert u.dtype == np.float32
    double, r64 = igr.willmore_flow(single.astype(np.float64), 0.5, backend="cpu", return_report=True)
    np.testing.assert_array_equal(u, double.astype(np.float32))
    assert report["accepted_steps"] == r64["accepted_steps"]
    # Integers are converted to float32 as by the other functions (no rescaling), computed in double too.
    image = np.round(f * 10).astype(np.int16)
    u = igr.willmore_flow(image, 0.5, regularization=10.0, backend="cpu")
    assert u.dtype == np.float32
    np.testing.assert_array_equal(u, igr.willmore_flow(image.astype(np.float64), 0.5, regularization=10.0,
                                                      backend="cpu").astype(np.float32))
    # Mean-curvature flow computes float32 in float32: close to the double result, not the same.
    m32 = igr.graph_mean_curvature_flow(single, 0.5, backend="cpu")
    m64 = igr.graph_mean_curvature_flow(single.astype(np.float64), 0.5, backend="cpu")
    assert m32.dtype == np.float32 and 0 < np.abs(m32 - m64).max() < 1e-4


def test_report_and_progress_in_simulated_time():
    calls = []
    u, report = igr.graph_mean_curvature_flow(noisy_bump(), 2.0, tolerance=1e-6, backend="cpu",
                                              progress=lambda t, T: calls.append((t, T)), return_report=True)
    assert report["flow"] == "mean_curvature" and report["boundary"] == "neumann"
    assert report["time_reached"] == report["final_time"] == 2.0
    assert report["regularization"] == 1.0 and report["tolerance"] == 1e-6
    assert report["error_estimate"] <= 1e-6 and report["next_step"] > 0
    assert report["backend"] == "CPU" and report["seconds"] > 0
    assert len(calls) == report["accepted_steps"] > 10
    times = [t for t, _ in calls]
    assert times == sorted(times) and calls[-1] == (2.0, 2.0) and all(T == 2.0 for _, T in calls)
    # A tight tolerance from a too large first step: rejected steps, then the run recovers.
    _, tight = igr.willmore_flow(noisy_bump(), 0.5, tolerance=1e-8, initial_step=0.5, backend="cpu",
                                 return_report=True)
    assert tight["rejected_steps"] > 0 and tight["time_reached"] == 0.5


def test_progress_aborts_and_propagates():
    f = noisy_bump()
    seen = []

    def stop_after_three(t, T):
        seen.append(t)
        return len(seen) < 3

    with pytest.raises(igr.Aborted):
        igr.willmore_flow(f, 10.0, backend="cpu", progress=stop_after_three)
    assert len(seen) == 3

    def boom(t, T):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        igr.graph_mean_curvature_flow(f, backend="cpu", progress=boom)


@pytest.mark.parametrize("flow", FLOWS)
@pytest.mark.parametrize(
    "image, kwargs, message",
    [
        (np.zeros((4, 5, 6)), {}, r"take a 2D scalar image, got 3 dimensions \(shape \(4, 5, 6\)\)"),
        (np.zeros((2, 9)), {}, r"at least 3 x 3 pixels"),
        (np.full((8, 8), np.nan), {}, "not finite"),
        (np.zeros((8, 8), complex), {}, "real dtype"),
        (None, {"time": 0.0}, "time must be finite and > 0, got 0.0"),
        (None, {"time": float("inf")}, "time must be finite and > 0"),
        (None, {"tolerance": -1e-5}, "tolerance must be finite and > 0"),
        (None, {"regularization": "1"}, "regularization must be a number"),
        (None, {"boundary": "periodic"}, "boundary must be one of 'neumann', 'dirichlet', got 'periodic'"),
        (None, {"initial_step": -1.0}, "initial_step must be a real number >= 0"),
        (None, {"max_steps": 0}, "max_steps must be >= 1, got 0"),
        (None, {"max_steps": 2.5}, "max_steps must be an integer"),
        (None, {"spacing": (1.0, 0.0)}, "spacing must be a sequence of 2 positive numbers"),
        (None, {"backend": "cuda"}, "backend"),
        (None, {"num_threads": 0}, "num_threads must be None"),
        (None, {"progress": 3}, "progress must be callable or None"),
    ],
)
def test_bad_input_is_refused(flow, image, kwargs, message):
    with pytest.raises(ValueError, match=message):
        flow(np.zeros((8, 8)) if image is None else image, **kwargs)


def test_a_step_budget_too_small_raises_numerical_error():
    with pytest.raises(igr.NumericalError, match="accepted steps reached t = .* raise the maximum number of steps"):
        igr.graph_mean_curvature_flow(noisy_bump(), 1.0, max_steps=2, backend="cpu")


def check_readme_snippet(name, namespace):
    """The flow and flow_image blocks of docs/curvature-flow.md (run by test_readme.py).

    Measured: flow: PSNR 29.72 -> 45.87 dB (mean curvature, 21 steps) and 45.32 dB (Willmore), the millimetre run
    1000 times the metre one to 4e-15; flow_image: 29.32 -> 43.92 and 40.50 dB (Dirichlet), 24 progress calls.
    """
    from conftest import psnr

    clean, noisy = namespace["clean"], namespace["noisy"]
    if name == "flow":
        u, w, report = namespace["u"], namespace["w"], namespace["report"]
        assert psnr(u, clean) >= psnr(noisy, clean) + 15 and psnr(w, clean) >= psnr(noisy, clean) + 15
        assert report["time_reached"] == 2.0 and report["accepted_steps"] > 0
        np.testing.assert_allclose(namespace["u_mm"], 1000 * u, rtol=1e-12, atol=1e-9)
        return
    assert name == "flow_image", name
    sitk = pytest.importorskip("SimpleITK")
    dem, img, smooth = namespace["dem"], namespace["img"], namespace["smooth"]
    for out in (img, smooth):
        assert isinstance(out, sitk.Image) and out.GetPixelID() == sitk.sitkFloat32
        assert (out.GetSpacing(), out.GetOrigin(), out.GetDirection()) == (
            dem.GetSpacing(), dem.GetOrigin(), dem.GetDirection())
    before = psnr(noisy, clean)
    assert psnr(sitk.GetArrayFromImage(img), clean) >= before + 13
    assert psnr(sitk.GetArrayFromImage(smooth), clean) >= before + 10
    times = namespace["times"]
    assert times == sorted(times) and times[-1] == 8.0 and len(times) > 5
    np.testing.assert_array_equal(sitk.GetArrayFromImage(smooth)[0], sitk.GetArrayFromImage(dem)[0])
