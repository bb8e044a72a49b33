# SPDX-License-Identifier: Apache-2.0
"""denoise_tv: the Python front end of the engine gpur::DenoiseTVAtNoiseLevel (gpur::DenoiseTV with lam chosen from the noise level)."""

import math
import numbers
import warnings

import numpy as np

from . import _core
from ._channels import Channels, channel_progress, merge_reports
from ._images import compute_array, skimage_scale, spacing_tuple, to_array


class ConvergenceWarning(UserWarning):
    """A solve ended without meeting its tolerance (the iteration budget ran out).

    The result is the last iterate; the report's ``relative_gap`` says how far
    it is from the minimiser. Raise ``max_iterations`` (or the tolerance), or
    turn the warning into an error with ``warnings.simplefilter("error",
    itkgpurestoration.ConvergenceWarning)``.
    """


def warn_report(report, stacklevel=3):
    """Issues each of the engine report's warnings as a ConvergenceWarning (from the caller's caller)."""
    for message in report.get("warnings", ()):
        warnings.warn(message, ConvergenceWarning, stacklevel=stacklevel)


def lam_from_skimage_weight(weight, dtype=None):
    """Fidelity weight lam equivalent to ``skimage.restoration.denoise_tv_chambolle``'s ``weight``.

    scikit-image minimises ||u - f||^2 / (2 weight) + TV(u) (unit spacing,
    isotropic TV, Neumann boundary), which is our model
    (lam / 2) ||u - f||^2 + TV(u) with lam = 1 / weight, on the image as
    ``img_as_float`` scales it.

    dtype: None or a float dtype: 1 / weight, for float images (which
    scikit-image does not rescale). An integer dtype: the lam that keeps the
    image in its own units, 1 / (weight * m) with m the dtype's maximum (255
    for uint8): ``denoise_tv(image, lam=lam_from_skimage_weight(w,
    image.dtype))`` is m times ``denoise_tv(image, weight=w)``, which is
    scikit-image's result in [0, 1] (signed integers: [-1, 1]).
    """
    weight = positive_finite(weight, "weight")
    return 1.0 / (weight * skimage_scale(np.dtype(dtype))) if dtype is not None else 1.0 / weight


def resolve_lam(weight, lam):
    """lam from exactly one of scikit-image's weight and our lam."""
    if (weight is None) == (lam is None):
        raise ValueError("give exactly one of weight (scikit-image convention) and lam")
    return lam_from_skimage_weight(weight) if weight is not None else positive_finite(lam, "lam")


def resolve_optional_lam(weight, lam):
    """lam from at most one of weight and lam; None (neither): lam is chosen from the noise level."""
    if weight is not None and lam is not None:
        raise ValueError("weight and lam are one setting (lam = 1 / weight): give exactly one of them, or neither "
                         "to choose lam from the noise level")
    return None if weight is None and lam is None else resolve_lam(weight, lam)


def _integer_in(value, name, low, high, allowed):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return int(value)


def thread_count(num_threads):
    """The engine's thread count of ``num_threads``: 0 for None (every core), else an int >= 1; else ValueError."""
    if num_threads is None:
        return 0
    return _integer_in(num_threads, "num_threads", 1, 2**32 - 1, "None (every core) or an integer >= 1")


def positive_int(value, name):
    """value as an int in [1, 2**32 - 1] (the engine's unsigned), else ValueError."""
    return _integer_in(value, name, 1, 2**32 - 1, ">= 1")


def non_negative_int(value, name):
    """value as an int in [0, 2**64 - 1] (a byte count), else ValueError."""
    return _integer_in(value, name, 0, 2**64 - 1, "between 0 and 2**64 - 1")


def prepare_image(image, spacing):
    """(C-contiguous array in its compute dtype, spacing tuple, restore function) of a 2D/3D image.

    spacing: in array-axis order, or None for the image's own (1 for arrays).
    """
    array, image_spacing, restore = to_array(image)
    array = compute_array(array)
    if spacing is None:
        spacing = image_spacing if image_spacing is not None else (1.0,) * array.ndim
    return array, spacing_tuple(spacing, array.ndim), restore


def callable_or_none(progress):
    """progress itself, or ValueError when it is neither None nor callable."""
    if progress is not None and not callable(progress):
        raise ValueError("progress must be callable or None")
    return progress


def positive_finite(value, name):
    """value as a float, finite and > 0, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return value


def non_negative_finite(value, name):
    """value as a float, finite and >= 0, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a real number >= 0, got {value!r}")
    return float(value)


def denoise_tv(
    image,
    weight=None,
    *,
    lam=None,
    sigma=None,
    discrepancy_factor=None,
    channel_axis=None,
    spacing=None,
    algorithm="accelerated",
    max_iterations=_core.TV_DEFAULT_MAX_ITERATIONS,
    tolerance=_core.TV_DEFAULT_TOLERANCE,
    backend="auto",
    device="",
    device_memory_limit=0,
    half_precision_dual=False,
    num_threads=None,
    progress=None,
    return_report=False,
):
    """Total-variation (ROF) denoising of a 2D or 3D image.

    Solves ``min_u (lam/2) ||u - f||^2 + TV(u)`` with the isotropic TV of the
    forward-difference gradient divided by the voxel spacing (Neumann boundary).
    Without ``weight`` and ``lam``, lam is chosen by the discrepancy principle
    from the noise level ``sigma`` (estimated from the image when not given):
    ``mean (u - f)**2 = discrepancy_factor * sigma**2`` on converged solves, so
    the call denoises [0, 1] images and CT volumes in HU at their spacing alike.
    lam has units 1 / (intensity * length): ``lam * sigma * spacing`` is what
    matters (about 1), e.g. lam 10 for sigma 0.1 at unit spacing is lam 0.057
    for sigma 25 HU at 0.7 mm.

    Parameters
    ----------
    image : numpy.ndarray, SimpleITK.Image or itk.Image
        2D or 3D image, scalar or with channels (see channel_axis). NumPy
        arrays are indexed (z, y, x) / (y, x), as ``SimpleITK.GetArrayFromImage``
        and ``itk.array_from_image`` give them. float32 is computed in float32,
        float64 in float64; any other real dtype (integers, bool, float16) is
        converted to float32.
    weight : float
        scikit-image's ``denoise_tv_chambolle`` weight (larger = smoother), with
        scikit-image's conversion of integer images (``img_as_float``): uint8
        and other unsigned integers are divided by the dtype's maximum (to
        [0, 1]), signed integers too (to [-1, 1]), and the result is in those
        units (float32), so the call gives scikit-image's result. On that
        image ``lam = 1 / weight``; to keep an integer image in its own units
        pass ``lam=lam_from_skimage_weight(weight, image.dtype)`` instead.
        At most one of weight and lam.
    lam : float, optional
        The fidelity weight lam > 0 of the model (larger keeps more of f), on
        the intensities as they are. None with weight None (the default):
        chosen from the noise level.
    sigma : float > 0, optional
        The noise standard deviation in the image's intensity units, for the
        automatic lam. None (default): estimated from the image (the square
        root of the median of ``estimate_noise_variance``; right for the
        correlated noise of CT reconstructions too). With lam or weight it only
        gives the report's discrepancy.
    discrepancy_factor : float > 0, optional
        The automatic lam's target of ``mean (u - f)**2 / sigma**2``. None
        (default): calibrated from the noise's spectrum, 0.9 for white noise,
        about 0.7 for a CT reconstruction (the plain principle, 1, over-smooths TV).
    channel_axis : int, optional
        As scikit-image's: None (default) for a scalar image; else the NumPy
        array axis that holds channels (e.g. -1 for RGB), each of which is
        denoised on its own (the 2D or 3D image of the other axes). The
        result has the input's shape. SimpleITK/itk images with vector pixels
        (RGB, ...) are denoised per component without it. A 3D array whose
        last axis has 3 or 4 entries, with neither channel_axis nor spacing
        given, is denoised as a volume with a :class:`ChannelAxisWarning`.
    spacing : sequence of float, optional
        Voxel spacing of the spatial axes in array-axis order ((z,) y, x; the
        channel axis left out), like scikit-image. Default: the image's
        spacing for SimpleITK/itk images, 1 for arrays.
    algorithm : {"accelerated", "cp", "pdu"}
    max_iterations : int >= 1
        The iteration budget (default 2000: enough for the default tolerance on
        the test volumes at lam >= 2). A run that ends above its tolerance
        issues a :class:`ConvergenceWarning`.
    tolerance : float >= 0
        Stop when the relative primal-dual gap |(P - D) / P| is <= tolerance
        (0: run all iterations). At least the rounding floor of the gap:
        2e-7 for float32 (1e-6 with "pdu"), 1e-12 for float64.
    backend : {"auto", "cpu", "opencl"}
        "auto": a GPU when there is one (or the device ``device`` names),
        else the faster of the CPU reference and a CPU OpenCL driver (PoCL)
        as measured on this machine, cached per process; the CPU for float64
        data on a device without fp64. $ITKGPUR_AUTO=cpu|opencl skips the
        measurement. The report says which ran and why.
    device : str
        OpenCL device selection: "" (default: $ITKGPUR_DEVICE, else the first
        GPU, else the first device), "gpu", "cpu", an index of list_devices(),
        or part of the device name.
    device_memory_limit : int >= 0
        Bytes of memory the run may use on each OpenCL device (0: 90 % of the
        device). A 3D volume whose state does not fit streams through host
        memory in z-regions with the same result; the report's
        ``stream_regions`` tells how many (0: it fit).
    half_precision_dual : bool
        Store the dual variable in IEEE half precision on OpenCL devices
        (arithmetic stays float32): fewer bytes per iteration, at a small
        objective excess (see docs/benchmarks.md). float32 images only
        (ValueError for float64); the CPU backend keeps float32 duals. The
        report's ``dual_storage`` says which ran ("float16", "float32",
        "float64").
    num_threads : int >= 1, optional
        Threads of the CPU backend (and of the host-side loops of an OpenCL
        run); None (default): every core. The result does not depend on it.
        An OpenCL driver's own threads (PoCL on a CPU) are the driver's
        (PoCL 3: ``POCL_MAX_PTHREAD_COUNT``, read when OpenCL starts).
    progress : callable(done, maximum), optional
        Called after every iteration, with the GIL held (with the automatic
        lam, done and maximum are those of the current solve of the search). Returning False (any
        falsy value except None) aborts the solve with ``itkgpurestoration.Aborted``
        (a RuntimeError); an exception it raises is propagated unchanged.
        Without it, Ctrl-C still stops the solve within about a second and
        raises KeyboardInterrupt. With channels, one range over all of them:
        channel c reports ``c * maximum + done`` of ``channels * maximum``.
    return_report : bool
        Also return a dict: backend ("CPU"/"OpenCL"), device, description,
        backend_reason (why: "backend CPU requested", "Auto: a GPU", or Auto's
        measurement), measured_mvox_per_s ({"cpu": ..., "opencl": ...} in
        Mvox/s when Auto measured, else empty), iterations, converged,
        relative_gap, primal, dual, seconds, gap_history, stream_regions,
        dual_storage, warnings (of the result's solve); lam (the one used),
        automatic_lam, sigma (0: none), sigma_estimated, noise_estimation (the
        estimator's report, or None), discrepancy (``mean (u - f)**2 /
        sigma**2``, 0 without sigma), discrepancy_target (0 for a given lam),
        maximum_discrepancy, residual_gain, residual_gain_measured, solves,
        lam_history [(lam, discrepancy)] and solve_history (lam, discrepancy,
        iterations, relative_gap, converged of every solve). With channels (each
        with its own noise level and lam), one merged report:
        iterations the most of any channel, converged when all are,
        relative_gap the largest, primal, dual and seconds summed, warnings
        prefixed with their channel, no gap_history, and ``channels``: the list
        of the channels' own reports.

    Returns
    -------
    The denoised image, of the same kind as ``image`` (NumPy array of the same
    shape; SimpleITK/itk image with the same origin, spacing and direction),
    or ``(image, report)`` when return_report is True.

    Raises
    ------
    ValueError for bad parameters or input (NaN/Inf, single voxel, wrong
    dimension, a bad channel_axis or num_threads, a lam outside what the
    dtype represents for the intensities, an image whose noise cannot be
    estimated for the automatic lam, ...), RuntimeError for device failures or
    an automatic lam whose solves do not converge.

    Warns
    -----
    ConvergenceWarning when the gap did not reach the tolerance within max_iterations.
    ChannelAxisWarning for an array that looks like an RGB(A) image (see channel_axis).

    The result scales with the image: ``denoise_tv(s * f, lam=lam / s)`` is
    ``s * denoise_tv(f, lam=lam)`` to rounding, and ``denoise_tv(s * f)`` is
    ``s * denoise_tv(f)`` (the chosen lam divided by s, sigma multiplied).
    """
    lam = resolve_optional_lam(weight, lam)
    sigma = 0.0 if sigma is None else positive_finite(sigma, "sigma")
    discrepancy_factor = 0.0 if discrepancy_factor is None else positive_finite(discrepancy_factor,
                                                                               "discrepancy_factor")
    max_iterations = positive_int(max_iterations, "max_iterations")
    tolerance = non_negative_finite(tolerance, "tolerance")
    progress = callable_or_none(progress)
    device_memory_limit = non_negative_int(device_memory_limit, "device_memory_limit")
    half_precision_dual = bool(half_precision_dual)
    threads = thread_count(num_threads)
    channels = Channels(image, spacing, channel_axis, "denoise_tv", skimage_range=weight is not None)

    results, reports = [], []
    for c, array in enumerate(channels.arrays):
        solve = _core.denoise_tv_float32 if array.dtype == np.float32 else _core.denoise_tv_float64
        result, report = solve(
            array,
            list(channels.spacing),
            lam,
            str(algorithm),
            max_iterations,
            tolerance,
            str(backend),
            str(device),
            device_memory_limit,
            threads,
            channel_progress(progress, c, len(channels.arrays)),
            sigma,
            discrepancy_factor,
            half_precision_dual,
        )
        results.append(result)
        reports.append(report)
    report = merge_reports(reports)
    warn_report(report)
    out = channels.assemble(results)
    return (out, report) if return_report else out
