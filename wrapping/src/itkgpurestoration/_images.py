# SPDX-License-Identifier: Apache-2.0
"""Conversion between the accepted image kinds and NumPy arrays, and of arrays to what the engines take.

SimpleITK and itk are imported only when such an image is passed, so neither
is a dependency of the package. The arrays' compute dtype, their scaling as
scikit-image's ``img_as_float`` scales integers, and the spacing are checked
here for every front end.
"""

import math
import numbers
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
    """Return (array in (z, y, x) order, spacing in the same order or None, restore function) of a scalar image."""
    array, spacing, restore, vector = to_array_with_components(image)
    if vector:
        raise ValueError("only scalar images are supported, got a vector image")
    return array, spacing, restore


def to_array_with_components(image):
    """(array, spacing, restore, vector) of a scalar or vector image.

    A SimpleITK/itk image with vector pixels (RGB, RGBA, any number of
    components) gives vector True and an array whose last axis holds the
    components; restore turns an array of that shape back into a vector image
    with the input's origin, spacing and direction. NumPy arrays are never vector.
    """
    if _is_simpleitk(image):
        import SimpleITK as sitk

        vector = image.GetNumberOfComponentsPerPixel() != 1
        array = sitk.GetArrayViewFromImage(image)
        spacing = tuple(reversed(image.GetSpacing()))

        def restore(result):
            out = sitk.GetImageFromArray(result, isVector=vector)
            out.CopyInformation(image)
            return out

        return array, spacing, restore, vector
    if _is_itk(image):
        import itk

        vector = image.GetNumberOfComponentsPerPixel() != 1
        array = itk.array_view_from_image(image)
        spacing = tuple(reversed([float(s) for s in image.GetSpacing()]))

        def restore(result):
            out = itk.image_from_array(result, is_vector=vector)
            out.SetOrigin(image.GetOrigin())
            out.SetSpacing(image.GetSpacing())
            out.SetDirection(image.GetDirection())
            return out

        return array, spacing, restore, vector
    if isinstance(image, np.ndarray):
        return image, None, lambda result: result, False
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


def skimage_scale(dtype):
    """The intensity that scikit-image's ``img_as_float`` maps to 1: the maximum of an integer dtype, else 1."""
    return float(np.iinfo(dtype).max) if dtype.kind in "iu" else 1.0


def rescale_like_skimage(array, dtype):
    """Scales ``array`` (float, converted from integers of ``dtype``) in place as ``img_as_float`` scales ``dtype``.

    Unsigned integers are divided by the dtype's maximum (uint8 to [0, 1]);
    signed ones too, with the minimum clipped to -1 (int16 to [-1, 1]); bool
    and float data are left alone. Returns ``array``.
    """
    if dtype.kind in "iu":
        array *= array.dtype.type(1.0 / skimage_scale(dtype))
        if dtype.kind == "i":
            np.maximum(array, -1.0, out=array)
    return array


def compute_dtype(dtype):
    """float32 and float64 are computed as they are; other real dtypes in float32."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "biuf":
        raise ValueError(f"image must have a real dtype, got {dtype}")
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)


def spacing_tuple(spacing, ndim):
    """spacing as a tuple of ndim finite positive floats, else ValueError naming the parameter."""
    message = f"spacing must be a sequence of {ndim} positive numbers, got {spacing!r}"
    if isinstance(spacing, (str, bytes)) or not hasattr(spacing, "__len__") or len(spacing) != ndim:
        raise ValueError(message)
    values = []
    for s in spacing:
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not math.isfinite(s) or s <= 0:
            raise ValueError(message)
        values.append(float(s))
    return tuple(values)


def compute_array(array, skimage_range=False):
    """A 2D/3D array as a C-contiguous array in its compute dtype (no copy when it already is one).

    skimage_range: integer data are scaled as scikit-image's ``img_as_float``
    scales them (see ``rescale_like_skimage``; on the converted copy).
    """
    array = np.asarray(array)
    if array.ndim not in (2, 3):
        raise ValueError(f"image must be 2D or 3D, got {array.ndim} dimensions (shape {array.shape})")
    converted = np.ascontiguousarray(array, dtype=compute_dtype(array.dtype))
    return rescale_like_skimage(converted, array.dtype) if skimage_range else converted
