# SPDX-License-Identifier: Apache-2.0
"""simulate_ct (parallel and cone beam), its FBP cross-checked against independent CT toolkits, and
estimate_noise_variance on the correlated noise of CT reconstructions."""

import numpy as np
import pytest

import itkgpurestoration as igr


def relative_l2(a, b):
    return float(np.linalg.norm(np.asarray(a, np.float64) - b) / np.linalg.norm(np.asarray(b, np.float64)))


def machined_slice(n):
    return igr.make_ct_phantom((n, n), photons_per_ray=1e4).truth


def test_simulate_ct_returns_what_was_asked_for():
    truth = igr.make_ct_phantom((8, 40, 36)).truth
    scan = igr.simulate_ct(truth, views=60, noise_free=True, sinogram=True, seed=2)
    assert isinstance(scan, igr.CTScan)
    assert scan.noisy.shape == scan.variance.shape == scan.noise_free.shape == truth.shape
    assert scan.sinogram.shape == (8, 60, scan.info["bins"])
    assert scan.info["views"] == 60 and scan.info["rows"] == 1 and scan.info["source_to_axis"] == 0
    assert scan.variance.min() > 0
    plain = igr.simulate_ct(truth, views=60, seed=2)
    assert plain.noise_free is None and plain.sinogram is None
    np.testing.assert_array_equal(plain.noisy, scan.noisy)
    cone = igr.simulate_ct(truth, geometry="cone", views=40, sinogram=True, source_to_axis=100.0)
    assert cone.sinogram.shape == (40, cone.info["rows"], cone.info["bins"])
    assert cone.info["source_to_axis"] == 100.0 and cone.info["source_to_detector"] == 200.0
    # The cone beam's noise is correlated between neighbouring slices (the detector rows are
    # interpolated), the parallel beam's is not.
    for geometry, low, high in (("parallel", -0.05, 0.05), ("cone", 0.1, 0.6)):
        a = igr.simulate_ct(truth, geometry=geometry, views=60, seed=3).noisy.astype(np.float64)
        b = igr.simulate_ct(truth, geometry=geometry, views=60, seed=4).noisy.astype(np.float64)
        noise = (a - b)[2:6]
        correlation = np.corrcoef(noise[:-1].ravel(), noise[1:].ravel())[0, 1]
        assert low < correlation < high, (geometry, correlation)
    cases = [
        (dict(geometry="fan"), "geometry must be one of"),
        (dict(filter="shepp"), "filter must be one of"),
        (dict(views=0), "views"),
        (dict(seed=-1), "seed"),
        (dict(spacing=(1.0, 1.0)), "spacing needs 3 values"),
        (dict(geometry="cone", source_to_axis=5.0), "source must stay outside the volume"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            igr.simulate_ct(truth, **kwargs)
    with pytest.raises(ValueError, match="cone beam needs a 3D grid"):
        igr.simulate_ct(truth[0], geometry="cone")


def test_fbp_agrees_with_scikit_image():
    """An independent implementation of the same discrete FBP: scikit-image's radon/iradon.

    On an odd-sized slice (skimage rotates about index n // 2, which is our centre (n - 1) / 2 only
    for odd n), with the image's y axis flipped (skimage's angles turn the other way):
    - sinogram: skimage rotates the image (bilinear) and sums columns, we sample the bilinear image
      along each ray every half voxel; two discretisations of the same line integrals, measured
      0.17 % apart (relative L2) on the machined part: bound 0.5 %;
    - FBP of our noise-free sinogram: iradon's "ramp" filter is built from the same spatial
      band-limited ramp (Kak and Slaney 1988) and back-projects with linear interpolation as we do,
      so the two agree to float rounding (measured 3e-8): bound 1e-5.
    """
    transform = pytest.importorskip("skimage.transform")
    n = 65
    truth = machined_slice(n)
    scan = igr.simulate_ct(truth, views=180, noise_free=True, sinogram=True)
    views, bins = scan.sinogram.shape
    degrees = np.degrees(np.pi * np.arange(views) / views)
    theirs = transform.radon(np.flipud(truth).astype(np.float64), theta=degrees, circle=False)
    # Both detectors are centred on the rotation axis; compare the bins both have.
    c, cb = theirs.shape[0] // 2, bins // 2
    h = min(c, theirs.shape[0] - 1 - c, cb, bins - 1 - cb)
    assert relative_l2(scan.sinogram[:, cb - h : cb + h + 1].T, theirs[c - h : c + h + 1]) < 5e-3
    fbp = transform.iradon(scan.sinogram.T.astype(np.float64), theta=degrees, filter_name="ramp",
                           interpolation="linear", circle=False, output_size=n)
    assert relative_l2(np.flipud(fbp), scan.noise_free) < 1e-5


def test_fbp_agrees_with_astra():
    """ASTRA Toolbox (CPU 2D parallel-beam projectors and FBP_CPU), when installed.

    ASTRA's volume y axis points the other way (the image is flipped up-down). Measured on the
    64 x 64 machined part, 180 views (relative L2):
    - sinogram: "strip" (area weights) 0.05 %, "linear" (Joseph) 0.23 %, "line" 1.6 %: bounds
      0.3 %, 0.5 % and 3 % (the line model ignores the voxel's width);
    - FBP_CPU with the Ram-Lak filter on our noise-free sinogram: 1.3 % (ASTRA filters in the
      frequency domain with its own discretisation of the ramp): bound 3 %.
    """
    astra = pytest.importorskip("astra", reason="astra-toolbox is not installed (pip install astra-toolbox)")
    n = 64
    truth = machined_slice(n)
    scan = igr.simulate_ct(truth, views=180, noise_free=True, sinogram=True)
    views, bins = scan.sinogram.shape
    volume = astra.create_vol_geom(n, n)
    projection = astra.create_proj_geom("parallel", 1.0, bins, np.pi * np.arange(views) / views)
    up = np.ascontiguousarray(np.flipud(truth))
    for projector, bound in (("strip", 3e-3), ("linear", 5e-3), ("line", 3e-2)):
        pid = astra.create_projector(projector, projection, volume)
        sid, sinogram = astra.create_sino(up, pid)
        astra.data2d.delete(sid)
        astra.projector.delete(pid)
        assert relative_l2(sinogram, scan.sinogram) < bound, projector
    pid = astra.create_projector("linear", projection, volume)
    sid = astra.data2d.create("-sino", projection, scan.sinogram)
    rid = astra.data2d.create("-vol", volume)
    config = astra.astra_dict("FBP")
    config.update(ProjectorId=pid, ProjectionDataId=sid, ReconstructionDataId=rid, option={"FilterType": "ram-lak"})
    algorithm = astra.algorithm.create(config)
    try:
        astra.algorithm.run(algorithm)
        fbp = np.flipud(astra.data2d.get(rid))
    finally:
        astra.algorithm.delete(algorithm)
        astra.data2d.delete([sid, rid])
        astra.projector.delete(pid)
    assert relative_l2(fbp, scan.noise_free) < 3e-2


@pytest.mark.parametrize("geometry, filter, tolerance", [("parallel", "ram-lak", 0.1), ("parallel", "hann", 0.1),
                                                           ("cone", "ram-lak", 0.15)])
def test_estimated_variance_of_ct_noise(geometry, filter, tolerance):
    """The estimator on FBP/FDK noise against the analytic variance (see gpurNoiseEstimationTest)."""
    truth = igr.make_ct_phantom((32, 64, 64)).truth
    scan = igr.simulate_ct(truth, geometry=geometry, filter=filter, views=180 if geometry == "parallel" else 200,
                           photons_per_ray=2000, seed=5)
    estimate, report = igr.estimate_noise_variance(scan.noisy, return_report=True)
    white = igr.estimate_noise_variance(scan.noisy, spectrum="white")
    truth_mean = float(scan.variance.mean())
    assert report["gain_measured"] and report["residual_gain"] < 0.65
    assert float(estimate.mean()) == pytest.approx(truth_mean, rel=tolerance)
    assert float(white.mean()) < 0.6 * truth_mean  # the white-noise estimator reads half or less
    assert estimate.dtype == np.float32 and estimate.min() > 0
    with pytest.raises(ValueError, match="spectrum must be one of"):
        igr.estimate_noise_variance(scan.noisy, spectrum="pink")
