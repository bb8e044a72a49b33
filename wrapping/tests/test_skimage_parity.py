# SPDX-License-Identifier: Apache-2.0
"""Parity with skimage.restoration.denoise_tv_chambolle: weight on every dtype, channel_axis, colour arrays."""

import warnings

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom, rof_objective

restoration = pytest.importorskip("skimage.restoration")
skimage_util = pytest.importorskip("skimage.util")

WEIGHT = 0.1  # scikit-image's default
# Both solves converged: scikit-image's Chambolle projection far past its default
# eps (2e-4), ours to a relative primal-dual gap of 1e-6.
SKIMAGE = dict(eps=1e-9, max_num_iter=4000)
OURS = dict(tolerance=1e-6, max_iterations=5000, backend="cpu")


def image_of(dtype, shape=(48, 48), seed=0):
    """The noisy phantom (values about -0.3 to 1.8) in the units of dtype, using most of an integer dtype's range."""
    _, noisy = phantom(shape, sigma=0.1, seed=seed)
    if np.dtype(dtype).kind == "f":
        return noisy.astype(dtype)
    info = np.iinfo(dtype)
    if info.min < 0:
        scaled = (noisy - 0.75) * (0.9 * info.max)  # both signs
    else:
        scaled = noisy / 1.8 * info.max
    return np.clip(np.round(scaled), info.min, info.max).astype(dtype)


def agreement(ours, reference):
    """(max |difference|, PSNR of ours against the reference over the reference's range) in the reference's units."""
    difference = np.asarray(ours, np.float64) - reference
    value_range = reference.max() - reference.min()
    return np.abs(difference).max(), 10 * np.log10(value_range**2 / np.mean(difference**2))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32, np.float64])
def test_weight_gives_skimage_result(dtype):
    """The same call gives scikit-image's result, integer images included (img_as_float's scaling).

    Measured: max |difference| 3e-4 to 3.2e-3 (units of [0, 1]), PSNR 59-88 dB between
    the two, our objective at most scikit-image's (its Chambolle iteration converges slower).
    """
    image = image_of(dtype)
    reference = restoration.denoise_tv_chambolle(image, weight=WEIGHT, **SKIMAGE)
    ours, report = igr.denoise_tv(image, weight=WEIGHT, return_report=True, **OURS)
    assert report["converged"] and report["relative_gap"] <= 1e-6
    assert ours.dtype == (dtype if np.dtype(dtype).kind == "f" else np.float32)
    max_difference, psnr = agreement(ours, reference)
    assert max_difference < 5e-3 and psnr > 55, (max_difference, psnr)
    f = skimage_util.img_as_float(image)
    lam = igr.lam_from_skimage_weight(WEIGHT)
    assert rof_objective(ours, f, lam) <= rof_objective(reference, f, lam) * (1 + 1e-6)
    assert rof_objective(ours, f, lam) == pytest.approx(rof_objective(reference, f, lam), rel=1e-3)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16])
def test_lam_keeps_integer_units(dtype):
    """lam_from_skimage_weight(w, dtype) solves on the integers as they are: dtype's maximum times the weight result.

    Up to img_as_float's one non-linearity: it clips a signed dtype's minimum (-32768 / 32767) to -1; kept out here.
    """
    image = np.maximum(image_of(dtype, (32, 40)), np.iinfo(dtype).min + 1)
    scale = np.iinfo(dtype).max
    kwargs = dict(backend="cpu", tolerance=0, max_iterations=300)
    in_units = igr.denoise_tv(image, lam=igr.lam_from_skimage_weight(WEIGHT, dtype), **kwargs)
    rescaled = igr.denoise_tv(image, weight=WEIGHT, **kwargs)
    np.testing.assert_allclose(in_units / scale, rescaled, rtol=0, atol=2e-6)
    assert igr.lam_from_skimage_weight(WEIGHT, np.float32) == igr.lam_from_skimage_weight(WEIGHT) == 10.0


def test_weight_on_integer_images_changes_them():
    """The defect: uint8 with lam = 1 / weight on raw intensities left the image almost as it was."""
    image = image_of(np.uint8)
    u = igr.denoise_tv(image, weight=WEIGHT, backend="cpu")
    assert u.max() <= 1.0 and u.min() >= 0.0
    change = np.abs(u - image / 255.0).mean()
    assert change > 0.02  # the noise (sigma 0.1 / 1.8 of the range) is removed
    raw = igr.denoise_tv(image, lam=1 / WEIGHT, backend="cpu")
    assert np.abs(raw - image).mean() / 255 < 0.1 * change


def test_weight_scales_integer_sitk_images():
    """weight means scikit-image's convention whatever the container: an integer SimpleITK image is scaled too."""
    sitk = pytest.importorskip("SimpleITK")
    image = image_of(np.uint16, (24, 28))
    sitk_image = sitk.GetImageFromArray(image)
    sitk_image.SetSpacing((1.0, 1.0))
    u = igr.denoise_tv(sitk_image, weight=WEIGHT, backend="cpu", tolerance=0, max_iterations=100)
    expected = igr.denoise_tv(image, weight=WEIGHT, backend="cpu", tolerance=0, max_iterations=100)
    np.testing.assert_array_equal(sitk.GetArrayFromImage(u), expected)


def rgb_image(shape=(40, 36)):
    """A uint8 colour image: three differently scaled noisy phantoms."""
    channels = [image_of(np.uint8, shape, seed=s) // (s + 1) for s in range(3)]
    return np.stack(channels, axis=-1)


def test_channel_axis_matches_skimage():
    """Each channel denoised on its own, as scikit-image does with channel_axis."""
    image = rgb_image()
    reference = restoration.denoise_tv_chambolle(image, weight=WEIGHT, channel_axis=-1, **SKIMAGE)
    with warnings.catch_warnings():
        warnings.simplefilter("error", igr.ChannelAxisWarning)
        ours, report = igr.denoise_tv(image, weight=WEIGHT, channel_axis=-1, return_report=True, **OURS)
    assert ours.shape == image.shape
    max_difference, psnr = agreement(ours, reference)
    assert max_difference < 5e-3 and psnr > 55, (max_difference, psnr)
    # The merged report: every channel's own, and the worst of them on top.
    assert len(report["channels"]) == 3 and "gap_history" not in report
    assert report["converged"] and report["relative_gap"] == max(r["relative_gap"] for r in report["channels"])
    assert report["iterations"] == max(r["iterations"] for r in report["channels"])
    assert report["primal"] == pytest.approx(sum(r["primal"] for r in report["channels"]))
    # Channel c alone gives channel c.
    for c in range(3):
        alone = igr.denoise_tv(image[..., c], weight=WEIGHT, **OURS)
        np.testing.assert_array_equal(ours[..., c], alone)


def test_channel_axis_anywhere_and_volumes():
    """channel_axis names any axis (negative too); a channel of a 4D array is a volume, spacing its three axes."""
    image = rgb_image((20, 24)).astype(np.float32) / 255
    kwargs = dict(lam=10.0, backend="cpu", tolerance=0, max_iterations=50)
    last = igr.denoise_tv(image, channel_axis=-1, **kwargs)
    first = igr.denoise_tv(np.moveaxis(image, -1, 0).copy(), channel_axis=0, **kwargs)
    np.testing.assert_array_equal(np.moveaxis(first, 0, -1), last)

    volume = np.stack([image[..., 0]] * 4)  # (4, 20, 24)
    multichannel = np.stack([volume, 2 * volume], axis=1)  # (z, c, y, x)
    out = igr.denoise_tv(multichannel, channel_axis=1, spacing=(2.0, 1.0, 1.0), **kwargs)
    np.testing.assert_array_equal(out[:, 0], igr.denoise_tv(volume, spacing=(2.0, 1.0, 1.0), **kwargs))


def test_channel_progress_is_one_range():
    image = rgb_image((16, 16))
    calls = []
    igr.denoise_tv(image, weight=WEIGHT, channel_axis=2, backend="cpu", tolerance=0, max_iterations=5,
                   progress=lambda done, maximum: calls.append((done, maximum)))
    assert calls == [(k, 15) for k in range(1, 16)]


def test_rgb_array_without_channel_axis_warns():
    image = rgb_image((16, 16))
    with pytest.warns(igr.ChannelAxisWarning, match="channel_axis=-1"):
        igr.denoise_tv(image, weight=WEIGHT, backend="cpu", max_iterations=10, tolerance=0)
    with pytest.warns(igr.ChannelAxisWarning):
        igr.denoise_statistical_tv(image.astype(np.float32), np.ones(image.shape, np.float32), lam=10.0, backend="cpu",
                                   max_iterations=10, tolerance=0)
    # Saying which: a volume with its spacing, or another shape, is quiet.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        igr.denoise_tv(image, weight=WEIGHT, spacing=(1, 1, 1), backend="cpu", max_iterations=10, tolerance=0)
        igr.denoise_tv(image[..., :2], weight=WEIGHT, backend="cpu", max_iterations=10, tolerance=0)
        igr.denoise_tv(np.moveaxis(image, -1, 0), weight=WEIGHT, backend="cpu", max_iterations=10, tolerance=0)


def test_vector_sitk_image_per_component():
    sitk = pytest.importorskip("SimpleITK")
    image = rgb_image((20, 18))
    vector = sitk.GetImageFromArray(image, isVector=True)
    vector.SetSpacing((0.5, 2.0))
    vector.SetOrigin((3.0, -1.0))
    kwargs = dict(weight=WEIGHT, backend="cpu", tolerance=0, max_iterations=60)
    out = igr.denoise_tv(vector, **kwargs)
    assert out.GetNumberOfComponentsPerPixel() == 3
    assert out.GetSpacing() == vector.GetSpacing() and out.GetOrigin() == vector.GetOrigin()
    expected = igr.denoise_tv(image, channel_axis=-1, spacing=(2.0, 0.5), **kwargs)
    np.testing.assert_array_equal(sitk.GetArrayFromImage(out), expected)
    with pytest.raises(ValueError, match="channel_axis is for NumPy arrays"):
        igr.denoise_tv(vector, channel_axis=-1, **kwargs)
    with pytest.raises(ValueError, match="scalar"):
        igr.denoise_statistical_tv(vector)


@pytest.mark.parametrize(
    "image, channel_axis, message",
    [
        (np.zeros((8, 8, 3)), 3, "channel_axis must be None or an integer axis"),
        (np.zeros((8, 8, 3)), -4, "channel_axis must be None or an integer axis"),
        (np.zeros((8, 8, 3)), 1.0, "channel_axis must be None or an integer axis"),
        (np.zeros((8, 8, 3)), True, "channel_axis must be None or an integer axis"),
        (np.zeros((8, 3)), -1, "2D or 3D"),
        (np.zeros((2, 8, 8, 8, 3)), -1, "2D or 3D"),
        (np.zeros((4, 8, 8, 3)), None, "pass channel_axis"),
        (np.zeros((8, 8, 3)), -1, "spacing"),  # with spacing=(1, 1, 1): two spatial axes
    ],
)
def test_bad_channel_axis_raises(image, channel_axis, message):
    spacing = (1, 1, 1) if message == "spacing" else None
    with pytest.raises(ValueError, match=message):
        igr.denoise_tv(image, lam=1.0, channel_axis=channel_axis, spacing=spacing)


def test_dask_weight_scales_integers():
    pytest.importorskip("dask.array")
    image = image_of(np.uint16, (24, 32))
    chunked = igr.denoise_tv_dask(image, weight=WEIGHT, iterations=20, round_length=5, chunks=(12, 16), backend="cpu")
    whole = igr.denoise_tv(image, weight=WEIGHT, max_iterations=20, tolerance=0, backend="cpu")
    np.testing.assert_array_equal(chunked.compute(), whole)
