# SPDX-License-Identifier: Apache-2.0
"""SimpleITK and itk images come back as the same kind with their geometry."""

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom

LAM = 8.0


def test_simpleitk_round_trip():
    sitk = pytest.importorskip("SimpleITK")
    _, noisy = phantom((10, 24, 20), dtype=np.float32)
    image = sitk.GetImageFromArray(noisy)
    image.SetOrigin((1.0, -2.0, 3.5))
    image.SetSpacing((0.5, 0.5, 2.0))
    image.SetDirection((0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    out = igr.denoise_tv(image, lam=LAM, backend="cpu")
    assert isinstance(out, sitk.Image)
    assert out.GetSize() == image.GetSize()
    assert out.GetPixelID() == sitk.sitkFloat32
    assert out.GetOrigin() == image.GetOrigin()
    assert out.GetSpacing() == image.GetSpacing()
    assert out.GetDirection() == image.GetDirection()
    # The image's spacing is used, in (z, y, x) order for the engine.
    expected = igr.denoise_tv(noisy, lam=LAM, spacing=(2.0, 0.5, 0.5), backend="cpu")
    np.testing.assert_allclose(sitk.GetArrayFromImage(out), expected, atol=1e-6)


def test_simpleitk_integer_image():
    sitk = pytest.importorskip("SimpleITK")
    _, noisy = phantom((32, 32))
    image = sitk.GetImageFromArray(np.round(noisy * 100).astype(np.int16))
    out = igr.denoise_tv(image, lam=LAM / 100)
    assert out.GetPixelID() == sitk.sitkFloat32 and out.GetSize() == image.GetSize()


def test_itk_round_trip():
    itk = pytest.importorskip("itk")
    _, noisy = phantom((10, 24, 20), dtype=np.float32)
    image = itk.image_from_array(noisy)
    image.SetOrigin((1.0, -2.0, 3.5))
    image.SetSpacing((0.5, 0.5, 2.0))
    direction = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    image.SetDirection(itk.matrix_from_array(direction))
    out = igr.denoise_tv(image, lam=LAM, backend="cpu")
    assert type(out) is type(image)
    assert tuple(out.GetLargestPossibleRegion().GetSize()) == tuple(image.GetLargestPossibleRegion().GetSize())
    assert tuple(out.GetOrigin()) == tuple(image.GetOrigin())
    assert tuple(out.GetSpacing()) == tuple(image.GetSpacing())
    np.testing.assert_array_equal(itk.array_from_matrix(out.GetDirection()), direction)
    expected = igr.denoise_tv(noisy, lam=LAM, spacing=(2.0, 0.5, 0.5), backend="cpu")
    np.testing.assert_allclose(itk.array_from_image(out), expected, atol=1e-6)
