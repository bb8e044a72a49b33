# SPDX-License-Identifier: Apache-2.0
"""estimate_noise_variance: the noise variance map of an image, estimated from the image itself."""

import warnings

import numpy as np

from . import _core
from ._denoise import prepare_image, thread_count

SPECTRA = ("measured", "white")


def warn_if_white_assumed(report, what):
    """RuntimeWarning when the spectrum was to be measured but could not be (too few flat tiles)."""
    if not report["gain_measured"]:
        warnings.warn(
            f"{what}: the noise spectrum could not be measured ({report['flat_tiles']} of {report['tiles']} tiles "
            "flat, too busy or too small an image), so white noise is assumed; for a CT reconstruction (filtered "
            "back-projection) that reads the variance about 2x low: give the variance",
            RuntimeWarning,
            stacklevel=3,
        )


def estimate_noise_variance(image, *, spectrum="measured", num_threads=None, return_report=False):
    """Per-voxel noise variance of a 2D or 3D image (gpur::EstimateNoiseVariance).

    A high-pass residual (Immerkaer's mask, extended to 3D) with the image's
    edges masked, averaged locally; its noise gain is measured in flat tiles of
    the image, so the map is right for spatially correlated noise such as a CT
    reconstruction (filtered back-projection, FDK) as well as for white noise.

    Parameters
    ----------
    image : numpy.ndarray, SimpleITK.Image or itk.Image
        2D or 3D scalar image.
    spectrum : {"measured", "white"}
        "measured" (default): measure the residual's noise gain; "white": assume
        uncorrelated noise (gain 1).
    num_threads : int >= 1, optional
        Threads of the computation; None (default): every core. The map does not depend on it.
    return_report : bool
        Also return a dict: residual_gain (G over the image: 1 for white noise,
        0.35-0.55 for a Ram-Lak FBP, about 0.05 with a Hann window),
        gain_measured, tiles, flat_tiles, mask_gain.

    Returns
    -------
    The variance map (strictly positive), of the same kind as ``image`` with its
    metadata, or ``(map, report)``. A RuntimeWarning says when the spectrum could
    not be measured (the map then assumes white noise).
    """
    if spectrum not in SPECTRA:
        raise ValueError(f"spectrum must be one of {', '.join(SPECTRA)}, got {spectrum!r}")
    threads = thread_count(num_threads)
    array, _, restore = prepare_image(image, None)
    suffix = "float32" if array.dtype == np.float32 else "float64"
    result, report = getattr(_core, "estimate_noise_variance_" + suffix)(array, spectrum, threads)
    if spectrum == "measured":
        warn_if_white_assumed(report, "estimate_noise_variance")
    out = restore(result)
    return (out, report) if return_report else out
