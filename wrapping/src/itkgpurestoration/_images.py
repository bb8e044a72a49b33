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
