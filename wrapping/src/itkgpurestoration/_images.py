# SPDX-License-Identifier: Apache-2.0
"""Conversion between the accepted image kinds and NumPy arrays.

SimpleITK and itk are imported only when such an image is passed, so neither
is a dependency of the package.
"""

import sys

import numpy as np


def _is_simpleitk(image):
    sitk = sys.modules.get("SimpleITK")
    return sitk is not None and isinstance(image, sitk.Image)


def _is_itk(image):
    # itk is lazy-loading and heavy: test the type's module before importing.
    module = type(image).__module__ or ""
    return module.startswith("itk") and "SimpleITK" not in module and hasattr(image, "GetSpacing")


def to_array(image):
    """Return (array in (z, y, x) order, spacing in the same order or None, restore function)."""
    if _is_simpleitk(image):
        import SimpleITK as sitk

        if image.GetNumberOfComponentsPerPixel() != 1:
            raise ValueError("only scalar images are supported, got a vector image")
        array = sitk.GetArrayViewFromImage(image)
        spacing = tuple(reversed(image.GetSpacing()))

        def restore(result):
            out = sitk.GetImageFromArray(result)
            out.CopyInformation(image)
            return out

        return array, spacing, restore
    if _is_itk(image):
        import itk

        if image.GetNumberOfComponentsPerPixel() != 1:
            raise ValueError("only scalar images are supported, got a vector image")
        array = itk.array_view_from_image(image)
        spacing = tuple(reversed([float(s) for s in image.GetSpacing()]))

        def restore(result):
            out = itk.image_from_array(result)
            out.SetOrigin(image.GetOrigin())
            out.SetSpacing(image.GetSpacing())
            out.SetDirection(image.GetDirection())
            return out

        return array, spacing, restore
    if isinstance(image, np.ndarray):
        return image, None, lambda result: result
    raise TypeError(
        "image must be a numpy.ndarray, SimpleITK.Image or itk.Image, got " + type(image).__name__
    )


def _kind(image):
    if _is_simpleitk(image):
        return "SimpleITK.Image"
    if _is_itk(image):
        return "itk.Image"
    if isinstance(image, np.ndarray):
        return "numpy.ndarray"
    return type(image).__name__


def _geometry(image):
    """(size in (x, y, z) order, spacing, origin, flattened direction) of a SimpleITK or itk image."""
    if _is_simpleitk(image):
        return (tuple(image.GetSize()), image.GetSpacing(), image.GetOrigin(), image.GetDirection())
    import itk

    size = tuple(int(n) for n in image.GetLargestPossibleRegion().GetSize())
    direction = itk.array_from_matrix(image.GetDirection()).ravel()
    return (size, tuple(image.GetSpacing()), tuple(image.GetOrigin()), tuple(direction))


def check_same_grid(image, other, name):
    """ValueError unless `other` is the same kind of image as `image`, on the same grid.

    Arrays: the same shape. SimpleITK/itk images: the same size, and spacing,
    origin and direction equal within ITK's default tolerances (1e-6 of the
    first spacing for coordinates, 1e-6 for the direction).
    """
    if _kind(other) != _kind(image):
        raise ValueError(f"{name} must be a {_kind(image)} like the image, got {_kind(other)}")
    if isinstance(image, np.ndarray):
        if other.shape != image.shape:
            raise ValueError(f"{name} has shape {other.shape}, the image {image.shape}; they must be equal")
        return
    size, spacing, origin, direction = _geometry(image)
    other_size, other_spacing, other_origin, other_direction = _geometry(other)
    tolerance = 1e-6 * abs(spacing[0])
    for what, a, b, atol in (
        ("size", size, other_size, 0),
        ("spacing", spacing, other_spacing, tolerance),
        ("origin", origin, other_origin, tolerance),
        ("direction", direction, other_direction, 1e-6),
    ):
        if len(a) != len(b) or not np.allclose(a, b, rtol=0, atol=atol):
            raise ValueError(f"{name} has {what} {tuple(b)}, the image {tuple(a)}; it must be on the image's grid")
