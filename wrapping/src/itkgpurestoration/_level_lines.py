# SPDX-License-Identifier: Apache-2.0
"""denoise_level_lines and denoise_level_lines_dask: the Python front ends of gpur::DenoiseLevelLines.

PI-PD level-line (isoline) denoising [Perrot2013]: each pixel becomes the mean
grey level along the poly-line of straight segments through it that a
generalised likelihood-ratio test accepts as a level line. A local filter of
bounded footprint (``level_lines_radius``), so chunks padded by that radius
give exactly the whole-image result.
"""

import functools
import warnings

import numpy as np

from . import _core
from ._chunked import _require_finite
from ._denoise import _integer_in, positive_finite, thread_count
from ._images import to_array

_CHOICES = {"mode": ("pipd", "hybrid"), "test": ("pooled", "separate"), "turn_back": ("flip", "stop")}


def _choice(value, name):
    allowed = _CHOICES[name]
    if not isinstance(value, str) or value.lower() not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}")
    return value.lower()


def _flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _parameters(values):
    """The engine's gpur::LevelLinesParameters from the keywords of the front ends (a dict such as their
    ``locals()``), every value checked with a ValueError naming it."""
    v = values
    p = _core.LevelLinesParameters()
    p.segment_length = _integer_in(v["segment_length"], "segment_length", 2, 12, "between 2 and 12")
    allowed = f"between segment_length ({p.segment_length}) and 64"
    p.maximum_length = _integer_in(v["maximum_length"], "maximum_length", p.segment_length, 64, allowed)
    p.lengthening_threshold = positive_finite(v["threshold"], "threshold")
    p.edge_threshold = positive_finite(v["edge_threshold"], "edge_threshold")
    p.variance_floor = positive_finite(v["variance_floor"], "variance_floor")
    if p.variance_floor > 4.0:
        raise ValueError(f"variance_floor must be > 0 and <= 4, got {p.variance_floor!r}")
    p.noise_sigma = 0.0 if v["sigma"] is None else positive_finite(v["sigma"], "sigma")
    p.mode, p.test, p.turn_back = (_choice(v[name], name) for name in ("mode", "test", "turn_back"))
    p.thick, p.include_center, p.bidirectional = (
        _flag(v[name], name) for name in ("thick", "include_center", "bidirectional")
    )
    p.validate()
    return p


def _float32_frames(array):
    """A 2D image or a stack of 2D frames as a C-contiguous float32 array; ValueError for other shapes and dtypes."""
    if array.ndim not in (2, 3):
        raise ValueError(
            f"level-line denoising takes a 2D image or a stack of 2D frames (3D, frames along the first axis), got "
            f"{array.ndim} dimensions (shape {array.shape})"
        )
    if array.dtype.kind not in "biuf":
        raise ValueError(f"image must have a real dtype, got {array.dtype}")
    if array.shape[-1] < 2 or array.shape[-2] < 2 or (array.ndim == 3 and array.shape[0] < 1):
        raise ValueError(f"each frame must be at least 2 x 2 pixels, got shape {array.shape}")
    return np.ascontiguousarray(array, dtype=np.float32)


def _check_finite(array):
    bad = ~np.isfinite(array)
    if bad.any():
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), array.shape))
        raise ValueError(
            f"the image holds a non-finite value ({array[index]}) at index {index}; NaN and Inf are not allowed"
        )


def _warn(report):
    for message in report.get("warnings", ()):
        warnings.warn(message, UserWarning, stacklevel=3)


def _device(device):
    if device is not None and not isinstance(device, str):
        raise ValueError(f"device must be a string or None, got {device!r}")
    return device or ""


def level_lines_radius(segment_length=5, maximum_length=25, *, thick=False, mode="pipd"):
    """The radius in pixels (Chebyshev) of the neighbourhood one output pixel of ``denoise_level_lines`` depends on.

    ``maximum_length`` (+1 when ``thick``; at least ``segment_length``): a
    block padded by it on every side gives the same interior as the whole
    image, which is the overlap ``denoise_level_lines_dask`` uses.
    """
    values = dict(locals(), sigma=None, threshold=1.0, edge_threshold=2.0, test="pooled", turn_back="flip")
    values.update(include_center=True, bidirectional=True, variance_floor=1.0)
    return int(_core.level_lines_radius(_parameters(values)))


def denoise_level_lines(
    image,
    sigma=None,
    *,
    segment_length=5,
    maximum_length=25,
    threshold=1.0,
    edge_threshold=2.0,
    mode="pipd",
    test="pooled",
    turn_back="flip",
    thick=False,
    include_center=True,
    bidirectional=True,
    variance_floor=1.0,
    backend="auto",
    device=None,
    num_threads=None,
    return_report=False,
    return_maps=False,
):
    """PI-PD level-line (isoline) denoising of a 2D image or a stack of 2D frames [Perrot2013].

    Each pixel becomes the mean grey level along an estimated level line
    through it: a poly-line of straight segments of ``segment_length`` pixels
    in 32 directions, the first chosen by minimum variance, the next ones
    added while a generalised likelihood-ratio test accepts them, up to
    ``maximum_length`` pixels per arm. A local, non-iterative filter: edges
    and thin lines are kept (no average across a level line), milliseconds per
    image on a GPU. See docs/level-lines.md.

    Parameters
    ----------
    image : numpy.ndarray, SimpleITK.Image or itk.Image
        A 2D scalar image, or a 3D one read as a stack of 2D frames along the
        first NumPy axis (video, or the slices of a volume), filtered in one
        call with the frames kept on the device. Any real dtype (uint8,
        uint16, int16, float64, ...) is computed in float32 in the image's
        own units; the result is float32.
    sigma : float > 0, optional
        The noise standard deviation in the image's units. None (default):
        estimated from the image (the median of the frames' estimates for a
        stack). It sets the variance floor.
    segment_length : int, 2 to 12
        Segment length l (default 5, the paper's).
    maximum_length : int, segment_length to 64
        Maximum line length n per arm in pixels (default 25).
    threshold : float > 0
        T_max of the lengthening test (default 1): larger lengthens more.
    edge_threshold : float > 0
        T2_max of the hybrid mode's edge test (default 2).
    mode : {"pipd", "hybrid"}
        "pipd" (default): the line mean everywhere; "hybrid": classify each
        pixel as low-slope region, single edge or complex first.
    test : {"pooled", "separate"}
        The lengthening test's variance model (default "pooled").
    turn_back : {"flip", "stop"}
        When the direction at a segment's end points back: continue along the
        opposite direction ("flip", default) or stop the line.
    thick : bool
        3-pixel-wide lines: more smoothing, finer details lost (default False).
    include_center : bool
        Count the pixel itself in the first segment and the mean (default True).
    bidirectional : bool
        Grow the line both ways from the pixel (default True).
    variance_floor : float in (0, 4]
        Variances in the tests are floored at ``variance_floor * sigma**2`` (default 1).
    backend : {"auto", "cpu", "opencl"}
        As for :func:`denoise_tv`.
    device : str, optional
        OpenCL device selection (None or "": ``$ITKGPUR_DEVICE``, else the default device).
    num_threads : int >= 1, optional
        Threads of the CPU backend; None: every core. The result does not depend on it.
    return_report : bool
        Also return a dict: backend, device, description, backend_reason,
        measured_mvox_per_s, frames, sigma, sigma_estimated, mean_length
        (pixels averaged per output pixel), stopped_by_test,
        stopped_by_turn_back, stopped_by_border, stopped_by_length (shares of
        the lengthening attempts), class_shares (hybrid: low_slope,
        single_edge, complex), seconds, kernel_seconds, warnings.
    return_maps : bool
        Also return a dict of NumPy arrays of the image's shape: "direction"
        (uint8, stage 1's direction 0..31), "length" (uint16, pixels in the
        mean) and, in hybrid mode, "class" (uint8: 0 low slope, 1 single
        edge, 2 complex).

    Returns
    -------
    The denoised image (float32), of the same kind as ``image`` (SimpleITK/itk
    images keep origin, spacing and direction), followed by the report and the
    maps when asked for: ``out``, ``(out, report)``, ``(out, maps)`` or
    ``(out, report, maps)``.

    Raises
    ------
    ValueError for bad parameters or input (not 2D/3D, a frame smaller than
    2 x 2, NaN/Inf, ...), RuntimeError for device failures.
    """
    parameters = _parameters(locals())
    threads = thread_count(num_threads)
    device = _device(device)
    array, _, restore = to_array(image)
    f = _float32_frames(np.asarray(array))
    _check_finite(f)
    u, report, maps = _core.denoise_level_lines(f, parameters, str(backend), device, 0, threads, bool(return_maps))
    _warn(report)
    result = (restore(u),)
    if return_report:
        result += (report,)
    if return_maps:
        result += (maps,)
    return result if len(result) > 1 else result[0]


def _frame_sigmas(block, *, threads):
    """The engine's noise estimate (gpur::EstimateNoiseSigma) of each whole frame of a block, as an array."""
    frames = block.reshape((-1,) + block.shape[-2:])
    return np.array([_core.estimate_noise_sigma_float32(np.ascontiguousarray(f), threads) for f in frames])


def _filter_block(block, *, parameters, backend, device, threads):
    u, _, _ = _core.denoise_level_lines(np.ascontiguousarray(block), parameters, backend, device, 0, threads, False)
    return u


def denoise_level_lines_dask(
    image,
    sigma=None,
    *,
    segment_length=5,
    maximum_length=25,
    threshold=1.0,
    edge_threshold=2.0,
    mode="pipd",
    test="pooled",
    turn_back="flip",
    thick=False,
    include_center=True,
    bidirectional=True,
    variance_floor=1.0,
    backend="auto",
    device=None,
    num_threads=None,
    chunks="auto",
):
    """:func:`denoise_level_lines` of a chunked 2D image or stack of frames (a dask array), exactly.

    Every chunk is filtered with an overlap of ``level_lines_radius(...)``
    pixels of its neighbours along the two image axes (none along the frame
    axis; ``dask.array.map_overlap``): an output pixel reads nothing farther,
    so each chunk's interior equals the whole-image result, bit for bit. At
    the image's own border a chunk is not padded (``boundary="none"``): the
    engine then meets the true border, where it clamps reads and stops lines
    as it does for the whole image.

    Parameters
    ----------
    image : dask.array.Array or numpy.ndarray
        2D, or 3D with frames along the first axis. A NumPy array is wrapped
        with ``dask.array.from_array(image, chunks)``. Chunks split along an
        image axis must be at least the radius wide.
    sigma : float > 0, optional
        The noise level. None: estimated once, on the whole image (per whole
        frame, the median over frames, as :func:`denoise_level_lines` does;
        this computes the input once), and given to every chunk.
    segment_length, ..., num_threads
        As for :func:`denoise_level_lines` (``num_threads`` per chunk task).
    chunks
        For a NumPy input: the chunks of ``dask.array.from_array``.

    Returns
    -------
    A lazy float32 dask array of the image's shape and chunks.
    """
    try:
        import dask.array as da
    except ImportError as error:  # pragma: no cover - dask is an optional dependency
        raise ImportError("denoise_level_lines_dask needs dask: pip install 'dask[array]'") from error

    parameters = _parameters(locals())
    threads = thread_count(num_threads)
    device = _device(device)
    if not isinstance(image, da.Array):
        image = da.from_array(np.asarray(image), chunks=chunks)
    if image.ndim not in (2, 3):
        raise ValueError(
            f"level-line denoising takes a 2D image or a stack of 2D frames (3D, frames along the first axis), got "
            f"{image.ndim} dimensions (shape {image.shape})"
        )
    if image.dtype.kind not in "biuf":
        raise ValueError(f"image must have a real dtype, got {image.dtype}")
    if image.shape[-1] < 2 or image.shape[-2] < 2:
        raise ValueError(f"each frame must be at least 2 x 2 pixels, got shape {image.shape}")
    radius = int(_core.level_lines_radius(parameters))
    depth = {axis: 0 for axis in range(image.ndim)}
    for axis in (image.ndim - 2, image.ndim - 1):
        sizes = image.chunks[axis]
        if len(sizes) > 1:
            depth[axis] = radius
            if min(sizes) < radius:
                raise ValueError(
                    f"chunks along axis {axis} are as small as {min(sizes)} pixels, less than the filter's radius "
                    f"{radius} (level_lines_radius); use larger chunks"
                )

    f = image.astype(np.float32).map_blocks(_require_finite, dtype=np.float32)
    if parameters.noise_sigma <= 0.0:
        parameters.noise_sigma = _whole_image_sigma(f, parameters, threads)
        if parameters.noise_sigma <= 0.0:  # a constant image: the engine returns it as it is
            return f
    step = functools.partial(_filter_block, parameters=parameters, backend=str(backend), device=device, threads=threads)
    return f.map_overlap(step, depth=depth, boundary="none", trim=True, dtype=np.float32)


def _whole_image_sigma(f, parameters, threads):
    """sigma as denoise_level_lines estimates it on the whole image: the median of the whole frames' estimates.

    For an image without measurable noise (estimate 0) the engine floors the
    variances at 1e-12 * range**2; the sigma returned gives that floor (to
    rounding) with the parameters' variance floor; 0 for a constant image.
    """
    frames = f.rechunk({f.ndim - 2: -1, f.ndim - 1: -1})
    drop = [f.ndim - 2, f.ndim - 1] if f.ndim == 3 else [0, 1]
    new = None if f.ndim == 3 else 0
    sigmas = frames.map_blocks(
        functools.partial(_frame_sigmas, threads=threads), drop_axis=drop, new_axis=new, dtype=np.float64
    )
    sigma = float(np.median(sigmas.compute()))
    if sigma > 0.0:
        return sigma
    import dask

    low, high = (float(v) for v in dask.compute(f.min(), f.max()))
    if high == low:
        return 0.0
    warnings.warn(
        "the noise level estimated from the image is 0 (a noise-free image?): the variances are floored at "
        "1e-12 * range**2; give sigma",
        UserWarning,
        stacklevel=3,
    )
    return 1e-6 * (high - low) / np.sqrt(parameters.variance_floor)
