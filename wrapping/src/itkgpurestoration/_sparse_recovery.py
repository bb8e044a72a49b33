# SPDX-License-Identifier: Apache-2.0
"""circulant_sensing, measure_circulant and recover_sparse: the Python front ends of the sparse-recovery engine.

Compressed sensing with partial circulant matrices [Fiandrotti2018]: the
measurements of a 1D signal or 2D image x are ``y = P C B x``, with C
circulant (per axis) from its first row, the *generator*, P the sampling
*mask* and B an optional periodic blur (a point-spread function). They travel
zero-filled: an array of x's shape holding y on the mask and 0 elsewhere.
``recover_sparse`` solves the LASSO ``1/2 ||y - A x||^2 + alpha ||x||_1`` by
CPISTA, FISTA or CPADMM with FFTs, on OpenCL or the CPU.
"""

import numbers

import numpy as np

from . import _core
from ._denoise import (
    _integer_in,
    non_negative_finite,
    positive_finite,
    positive_int,
    thread_count,
    warn_report,
)
from ._images import _kind, check_same_grid, to_array
from ._level_lines import _flag

_CHOICES = {"solver": ("fista", "cpista", "cpadmm"), "threshold": ("proximal", "paper")}


def _choice(value, name):
    allowed = _CHOICES[name]
    if not isinstance(value, str) or value.lower() not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}")
    return value.lower()


def _shape(shape):
    """shape as a tuple of 1 or 2 ints >= 2, else ValueError."""
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__") or len(shape) not in (1, 2):
        raise ValueError(f"shape must be (n,) or (ny, nx), got {shape!r}")
    return tuple(_integer_in(n, "shape", 2, 2**40, "an integer >= 2 per axis") for n in shape)


def _seed(seed):
    return _integer_in(seed, "seed", 0, 2**64 - 1, "an integer between 0 and 2**64 - 1")


def circulant_sensing(shape, ratio, seed=0):
    """A random Gaussian partial circulant sensing operator: ``(generator, mask)``.

    The same seed draws the same operator as ``itk::CirculantSensingImageFilter``
    (SetSeed, SetSamplingRatio) and ``itkgpurestoration-sparse --seed --ratio``
    on every platform: generator entries N(0, 1/m) (the first row of C) and a
    mask with exactly ``m = round(ratio * n)`` ones at positions drawn
    uniformly without replacement.

    Parameters
    ----------
    shape : int or tuple of one or two ints >= 2
        The signal's length ``n`` or the image's ``(ny, nx)`` (NumPy order).
    ratio : float in (0, 1]
        The sampling ratio m / n.
    seed : int >= 0
        The seed (default 0).

    Returns
    -------
    generator : numpy.ndarray of float64, of ``shape``
    mask : numpy.ndarray of uint8 (0 and 1), of ``shape``
    """
    ratio = positive_finite(ratio, "ratio")
    if ratio > 1.0:
        raise ValueError(f"ratio must be in (0, 1], got {ratio!r}")
    return _core.circulant_sensing(list(_shape(shape)), ratio, _seed(seed))


def _signal(image, name):
    """(C-contiguous array (float32 stays float32, other real dtypes float64), restore) of a 1D or 2D image."""
    array, _, restore = to_array(image)
    array = np.asarray(array)
    if array.ndim not in (1, 2):
        raise ValueError(f"{name} must be a 1D signal or a 2D image, got {array.ndim} dimensions (shape {array.shape})")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must have a real dtype, got {array.dtype}")
    dtype = np.float32 if array.dtype == np.float32 else np.float64
    return np.ascontiguousarray(array, dtype=dtype), restore


def _beside(reference, other, name, shape):
    """The array of `other` (an array, or an image of the reference's kind on its grid) with the reference's shape."""
    if not isinstance(other, np.ndarray) and _kind(other) == _kind(reference):
        check_same_grid(reference, other, name)
    array, _, _ = to_array(other)
    array = np.asarray(array)
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape}, the measurements {shape}; they must be equal")
    return array


def _mask_array(reference, mask, shape):
    mask = _beside(reference, mask, "mask", shape)
    if mask.dtype.kind not in "biuf":
        raise ValueError(f"mask must hold 0 and 1, got dtype {mask.dtype}")
    if not np.all((mask == 0) | (mask == 1)):
        bad = mask[(mask != 0) & (mask != 1)].flat[0]
        raise ValueError(f"mask must hold 0 (not measured) and 1 (measured) only, got {bad!r}")
    if not mask.any():
        raise ValueError("mask is empty (every entry 0): at least one entry must be measured")
    return np.ascontiguousarray(mask, dtype=np.uint8)


def _generator_array(reference, generator, shape):
    generator = _beside(reference, generator, "generator", shape)
    if generator.dtype.kind not in "biuf":
        raise ValueError(f"generator must have a real dtype, got {generator.dtype}")
    return np.ascontiguousarray(generator, dtype=np.float64)


def _psf_array(psf, ndim):
    if psf is None:
        return None
    array, _, _ = to_array(psf)
    array = np.asarray(array)
    if array.ndim != ndim:
        raise ValueError(f"psf must have {ndim} dimensions like the measurements, got {array.ndim}")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"psf must have a real dtype, got {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.float64)


def _execution(backend, device, num_threads):
    if device is not None and not isinstance(device, str):
        raise ValueError(f"device must be a string or None, got {device!r}")
    return dict(backend=str(backend), device=device or "", threads=thread_count(num_threads))


def measure_circulant(
    x,
    generator,
    mask,
    psf=None,
    *,
    normalize_psf=True,
    backend="auto",
    device=None,
    num_threads=None,
):
    """The zero-filled measurements ``y = P C B x`` of a signal or image (the forward operator).

    Parameters
    ----------
    x : numpy.ndarray, SimpleITK.Image or itk.Image
        A 1D signal or 2D image (NumPy: (ny, nx)). float32 is computed in
        float32, other real dtypes in float64.
    generator, mask : arrays of x's shape (or images of x's kind on its grid)
        The first row v of C (``C x`` is the periodic cross-correlation of x
        with v) and the sampling set (0 and 1), e.g. from
        :func:`circulant_sensing`.
    psf : array or image, optional
        The blur B: a point-spread function with x's number of dimensions,
        each axis at most x's, centred at index ``shape // 2`` (ITK's
        convention), applied as a periodic convolution.
    normalize_psf : bool
        Scale the psf to a unit sum (default True).
    backend, device, num_threads
        As for :func:`denoise_tv`.

    Returns
    -------
    y of x's kind, shape and dtype: the measurements on the mask, 0 elsewhere
    (SimpleITK/itk images keep x's origin, spacing and direction).
    """
    array, restore = _signal(x, "x")
    generator = _generator_array(x, generator, array.shape)
    mask = _mask_array(x, mask, array.shape)
    psf = _psf_array(psf, array.ndim)
    measure = _core.measure_circulant_float32 if array.dtype == np.float32 else _core.measure_circulant_float64
    y, _ = measure(array, generator, mask, psf, _flag(normalize_psf, "normalize_psf"),
                   **_execution(backend, device, num_threads))
    return restore(y)


def _parameters(values):
    """The engine's gpur::SparseRecoveryParameters from recover_sparse's keywords, each checked by name."""
    v = values
    p = _core.SparseRecoveryParameters()
    p.solver = _choice(v["solver"], "solver")
    p.alpha = 0.0 if v["alpha"] is None else positive_finite(v["alpha"], "alpha")
    p.relative_alpha = positive_finite(v["relative_alpha"], "relative_alpha")
    if p.relative_alpha >= 1.0:
        raise ValueError(f"relative_alpha must be in (0, 1), got {p.relative_alpha!r}")
    p.step = 0.0 if v["step"] is None else positive_finite(v["step"], "step")
    p.threshold = _choice(v["threshold"], "threshold")
    p.rho = non_negative_finite(v["rho"], "rho")
    p.relative_sigma = non_negative_finite(v["relative_sigma"], "relative_sigma")
    p.dual_step = positive_finite(v["dual_step"], "dual_step")
    p.nonnegative = _flag(v["nonnegative"], "nonnegative")
    p.tolerance = positive_finite(v["tolerance"], "tolerance")
    p.gap_tolerance = positive_finite(v["gap_tolerance"], "gap_tolerance")
    p.maximum_iterations = positive_int(v["max_iterations"], "max_iterations")
    p.check_interval = positive_int(v["check_interval"], "check_interval")
    p.validate()
    return p


_DEFAULTS = _core.SparseRecoveryParameters()


def recover_sparse(
    measurements,
    mask,
    generator,
    psf=None,
    *,
    solver="fista",
    alpha=None,
    relative_alpha=_DEFAULTS.relative_alpha,
    step=None,
    threshold="proximal",
    rho=_DEFAULTS.rho,
    relative_sigma=_DEFAULTS.relative_sigma,
    dual_step=_DEFAULTS.dual_step,
    nonnegative=False,
    tolerance=_DEFAULTS.tolerance,
    gap_tolerance=_DEFAULTS.gap_tolerance,
    max_iterations=_DEFAULTS.maximum_iterations,
    check_interval=_DEFAULTS.check_interval,
    normalize_psf=True,
    truth=None,
    target_relative_error=0.0,
    backend="auto",
    device=None,
    num_threads=None,
    callback=None,
    return_report=False,
):
    """Recovers a sparse signal or image from compressed measurements with partial circulant sensing.

    Minimises the LASSO ``1/2 ||y - P C B x||^2 + alpha ||x||_1`` (with
    ``nonnegative``, also ``x >= 0``) [Fiandrotti2018], every product by C
    and its transpose an FFT pair: memory linear in n, O(n log n) per
    iteration, on OpenCL (everything stays on the device) or the CPU. With a
    ``psf`` it deblurs as it recovers: the output is the sparse scene before
    the blur.

    Units: ``alpha`` None is ``relative_alpha * ||A^T y||_inf`` and the step
    and CPADMM's sigma are relative to ``||A||^2``, so scaling the
    measurements scales the result by the same factor.

    Parameters
    ----------
    measurements : numpy.ndarray, SimpleITK.Image or itk.Image
        The zero-filled measurements (y on the mask, 0 elsewhere; values off
        the mask are ignored): a 1D signal or 2D image (NumPy: (ny, nx)).
        float32 is computed in float32, other real dtypes in float64.
    mask, generator : arrays of the measurements' shape (or images of their kind on their grid)
        The sampling set (0 and 1) and the first row of C, e.g. from
        :func:`circulant_sensing`.
    psf : array or image, optional
        The blur B (see :func:`measure_circulant`).
    solver : {"fista", "cpista", "cpadmm"}
        FISTA [Beck2009] (default), CPISTA [Fiandrotti2018, Algorithm 1] or
        CPADMM [Fiandrotti2018, Algorithm 3].
    alpha : float > 0, optional
        The l1 weight in the units of ``A^T y``; None: ``relative_alpha * ||A^T y||_inf``.
    relative_alpha : float in (0, 1)
        alpha as a fraction of the smallest alpha whose solution is 0 (default 1e-3).
    step : float > 0, optional
        CPISTA/FISTA step, below ``2 / ||A||^2``; None: ``1 / ||C B||^2``.
    threshold : {"proximal", "paper"}
        CPISTA/FISTA threshold: the proximal step ``alpha * step`` (default)
        or ``alpha`` as printed in [Fiandrotti2018, Algorithm 1].
    rho, relative_sigma : float >= 0
        CPADMM's penalty of ``v = C x`` and of ``z = x`` relative to
        ``||A||^2``; 0 (default): automatic, ``100 a`` and ``10 a`` with
        ``a = alpha / alpha_max`` (the calibration in docs/benchmarks.md).
    dual_step : float > 0
        CPADMM's dual steps (default 1, below ``(1 + sqrt 5) / 2``).
    nonnegative : bool
        Constrain x >= 0 (light sources, densities; default False).
    tolerance : float > 0
        Stop when the relative change of x falls below it (default 1e-6)...
    gap_tolerance : float > 0
        ...and the relative duality gap is below it (default 1e-3); a run that
        ends otherwise issues a :class:`ConvergenceWarning`.
    max_iterations : int >= 1
        The iteration budget (default 5000).
    check_interval : int >= 1
        Iterations between evaluations of the objective and the gap (default 10).
    normalize_psf : bool
        Scale the psf to a unit sum (default True).
    truth : array of the measurements' shape, optional
        A known solution (tests, benchmarks): its relative error is reported,
        and the run stops once it is below ``target_relative_error`` (> 0).
    target_relative_error : float >= 0
        See truth (default 0: never stop by it).
    backend, device, num_threads
        As for :func:`denoise_tv`.
    callback : callable(info), optional
        Called after every iteration, with the GIL held, with a dict:
        ``iteration``, ``relative_change``, ``objective`` and
        ``relative_gap`` (NaN between checks), ``relative_error`` (NaN
        without a truth). Returning False (any falsy value except None)
        aborts with ``itkgpurestoration.Aborted``; an exception it raises is
        propagated unchanged. Ctrl-C stops the solve too.
    return_report : bool
        Also return a dict: backend, device, description, backend_reason,
        solver, measurements (m), stop ("converged", "truth_reached" or
        "maximum_iterations"), converged, iterations, the resolved alpha,
        alpha_max, step, rho, sigma and norm_squared_bound, at the output the
        objective, relative_gap, relative_residual (``||y - A x|| / ||y||``),
        nonzeros, relative_change and relative_error, history (the callback's
        dict of every iteration), bytes, setup_seconds, seconds and warnings.

    Returns
    -------
    The recovered signal or image, of the measurements' kind and dtype
    (SimpleITK/itk images keep origin, spacing and direction), or ``(x, report)``.

    Raises
    ------
    ValueError for bad parameters or input (shapes, a mask not 0/1 or empty,
    NaN/Inf, ...), RuntimeError for device failures, Aborted when the
    callback stops the run.
    """
    parameters = _parameters(locals())
    if callback is not None and not callable(callback):
        raise ValueError("callback must be callable or None")
    target = non_negative_finite(target_relative_error, "target_relative_error")
    execution = _execution(backend, device, num_threads)
    array, restore = _signal(measurements, "measurements")
    generator = _generator_array(measurements, generator, array.shape)
    mask = _mask_array(measurements, mask, array.shape)
    psf = _psf_array(psf, array.ndim)
    if truth is not None:
        truth, _, _ = to_array(truth)
        truth = np.ascontiguousarray(truth, dtype=array.dtype)
        if truth.shape != array.shape:
            raise ValueError(f"truth has shape {truth.shape}, the measurements {array.shape}; they must be equal")
    elif target > 0:
        raise ValueError("target_relative_error needs a truth to measure the error against")
    recover = _core.recover_sparse_float32 if array.dtype == np.float32 else _core.recover_sparse_float64
    result, report = recover(array, generator, mask, psf, _flag(normalize_psf, "normalize_psf"), parameters,
                             callback=callback, truth=truth, target_relative_error=target, **execution)
    warn_report(report)
    out = restore(result)
    return (out, report) if return_report else out
