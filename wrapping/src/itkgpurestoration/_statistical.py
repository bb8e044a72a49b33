# SPDX-License-Identifier: Apache-2.0
"""denoise_statistical_tv: the Python front end of statistical TV for CT.

Two engines: gpur::DenoiseStatisticalTV (the noise-weighted ROF model solved by
weighted Chambolle-Pock or S-PDU, lambda by the discrepancy principle) and
gpur::DenoiseStatisticalTVGD (TV gradient descent and AW-TV, stopped at the
discrepancy target).
"""

import warnings

import numpy as np

from . import _core
from ._channels import warn_if_channels_last
from ._denoise import (
    callable_or_none,
    non_negative_finite,
    non_negative_int,
    positive_finite,
    positive_int,
    prepare_image,
    thread_count,
    warn_report,
)
from ._images import check_same_grid
from ._noise import warn_if_white_assumed

PRIMAL_DUAL_METHODS = ("accelerated", "cp", "pdu")
# Python name -> the engine's TV-GD variant.
GRADIENT_DESCENT_METHODS = {"tvgd": "tv", "awtv": "awtv"}
# RMS change per voxel: lambda = 2 in the L2 unit of [Huang2023, Algorithm 2] on
# 64^3 (the best step there for noise sigma 0.1, measured).
DEFAULT_STEP = 0.004
DEFAULT_DELTA = 0.1


def _refuse(method, given, allowed_for):
    """ValueError naming the first parameter in `given` (name -> value) that is not None."""
    for name, value in given.items():
        if value is not None:
            raise ValueError(f"{name} applies to method {allowed_for} only, not to method {method!r}")


def denoise_statistical_tv(
    image,
    variance=None,
    *,
    lam=None,
    method="accelerated",
    weight_exponent=None,
    discrepancy_factor=None,
    max_iterations=_core.TV_DEFAULT_MAX_ITERATIONS,
    tolerance=None,
    step=None,
    step_unit=None,
    delta=None,
    target_residual=None,
    spacing=None,
    backend="auto",
    device="",
    device_memory_limit=0,
    half_precision_dual=False,
    num_threads=None,
    progress=None,
    return_report=False,
):
    """Statistical (noise-weighted) TV denoising of a CT image, or TV gradient descent.

    Primal-dual methods ("accelerated", the default: accelerated Chambolle-Pock;
    "cp"; "pdu", the S-PDU of [Huang2023]) solve
    ``min_u (lam/2) sum_i (u_i - f_i)^2 / w_i + TV(u)`` with
    ``w = var^weight_exponent / mean(var^weight_exponent)``: noisier voxels are
    smoothed more. Gradient-descent methods ("tvgd": the TV-GD of [Huang2023];
    "awtv": adaptive-weighted TV) take steps of length ``step`` along the
    normalised negative TV gradient from u = f and stop when ``||u - f||``
    reaches a target.

    Parameters
    ----------
    image : numpy.ndarray, SimpleITK.Image or itk.Image
        2D or 3D scalar image (axes and dtypes as for ``denoise_tv``).
    variance : same kind as image, optional
        Per-voxel noise variance (finite, > 0) on the image's grid (same shape;
        for SimpleITK/itk images also the same spacing, origin and direction).
        None: estimated from the image (when the method needs it).
    lam : float, optional
        Primal-dual methods: the fidelity weight. None (default): chosen by the
        discrepancy principle, ``sum (u - f)^2 / var = discrepancy_factor * N``,
        on converged solves (the result scales with the data: image * c and
        variance * c**2 give u * c and lam / c).
    method : {"accelerated", "cp", "pdu", "tvgd", "awtv"}
        "accelerated" (default) converges at the default tolerance within the
        default iterations on CT volumes, where "pdu" often does not.
    weight_exponent : float in [0, 2], optional
        Primal-dual methods: gamma of the weights (default 1; 0 is plain TV, 0.5
        weights by sigma). The weights var**gamma may span at most 1e6.
    discrepancy_factor : float > 0, optional
        Target of the mean normalised residual (both kinds of method); below
        the report's maximum_discrepancy for the primal-dual methods (else
        ValueError). None (default): for the automatic lam, calibrated from the
        noise's spectrum (0.9 for white noise, about 0.7 for a Ram-Lak FBP: the
        plain principle, 1, over-smooths TV; the report's discrepancy_target);
        1 for the gradient-descent stop.
    max_iterations : int >= 1
        Per solve (primal-dual) or in all (gradient descent); default 2000, as
        for ``denoise_tv`` (a primal-dual solve that ends above its tolerance
        issues a ``ConvergenceWarning``).
    tolerance : float >= 0, optional
        Primal-dual methods: relative primal-dual gap at which a solve stops (default 1e-4).
    step : float > 0, optional
        Gradient descent: the step length (default 0.004 in the "rms" unit; about
        sigma / 25 reaches the discrepancy target in 25-40 iterations).
    step_unit : {"rms", "l2"}, optional
        Gradient descent: "rms" (default) is the root-mean-square change per voxel,
        "l2" the lambda of [Huang2023, Algorithm 2] (the step in the global L2
        norm).
    delta : float > 0, optional
        "awtv": the weight scale (default 0.1, in intensity / length): differences
        much larger than delta are kept as edges.
    target_residual : float >= 0, optional
        Gradient descent: None (default) stops at ``||u - f||^2 =
        discrepancy_factor * sum(var)``; > 0 at ``||u - f|| = target_residual``
        (e.g. the residual of a primal-dual run); 0 runs all max_iterations.
    spacing, backend, device, device_memory_limit, num_threads, progress
        As for ``denoise_tv`` (the memory limit applies to the primal-dual
        methods; gradient descent keeps its volume on the device). progress
        restarts for every lambda of the automatic search. The image is
        scalar (no channel_axis): a 3D array whose last axis has 3 or 4
        entries, without spacing, is denoised as a volume with a
        ``ChannelAxisWarning``.
    half_precision_dual : bool
        Primal-dual methods: as for ``denoise_tv`` (the dual stored in IEEE
        half on OpenCL devices; float32 images only).
    return_report : bool
        Also return a dict. Always: method, backend, device, description,
        backend_reason, measured_mvox_per_s (as for ``denoise_tv``), iterations, seconds, discrepancy, variance_estimated, mean_variance.
        Also variance_range (max / min of the variance) and noise_estimation
        (None, or the estimator's report: residual_gain, gain_measured, ...).
        Primal-dual: lam, automatic_lam, discrepancy_target (the factor met, 0
        without automatic lam), residual_gain and residual_gain_measured (the
        noise's high-pass gain behind a calibrated factor), solves, lam_history
        [(lam, discrepancy)],
        solve_history [dicts of lam, discrepancy, iterations, relative_gap and
        converged of every solve], maximum_discrepancy (that of lam -> 0), and
        denoise_tv's converged, relative_gap, primal, dual, gap_history (of the
        last solve), dual_storage. Gradient descent: step_length (L2), residual
        (``||u - f||``), gradient_norm, target_residual, target_reached, stationary.
        discrepancy is ``sum (u - f)^2 / var / N`` for primal-dual methods and
        ``||u - f||^2 / sum(var)`` for gradient descent (0 without a variance).

    Returns
    -------
    The denoised image, of the same kind as ``image`` with its metadata, or
    ``(image, report)`` when return_report is True.

    Raises
    ------
    ValueError for bad parameters or input (including a variance of another
    kind or grid, parameters of the other kind of method, and a discrepancy
    target that no lam reaches), RuntimeError for device failures or an
    automatic lambda whose solves or search do not converge.

    References
    ----------
    [Huang2023] Y. Huang, Statistical 3D Denoising on GPUs for Industrial CT,
    Technical University of Munich, 2023 (the project's REFERENCES.md lists
    every cited work).
    """
    if method not in PRIMAL_DUAL_METHODS and method not in GRADIENT_DESCENT_METHODS:
        allowed = ", ".join(PRIMAL_DUAL_METHODS + tuple(GRADIENT_DESCENT_METHODS))
        raise ValueError(f"method must be one of {allowed}, got {method!r}")
    if discrepancy_factor is not None:
        discrepancy_factor = positive_finite(discrepancy_factor, "discrepancy_factor")
    max_iterations = positive_int(max_iterations, "max_iterations")
    progress = callable_or_none(progress)
    threads = thread_count(num_threads)
    if isinstance(image, np.ndarray):
        warn_if_channels_last(image.shape, spacing, "denoise_statistical_tv")
    array, spacing, restore = prepare_image(image, spacing)
    variance_array = None
    if variance is not None:
        check_same_grid(image, variance, "variance")
        variance_array, _, _ = prepare_image(variance, spacing)
        variance_array = np.ascontiguousarray(variance_array, dtype=array.dtype)
    suffix = "float32" if array.dtype == np.float32 else "float64"

    if method in PRIMAL_DUAL_METHODS:
        _refuse(method, {"step": step, "step_unit": step_unit, "delta": delta, "target_residual": target_residual},
                "'tvgd' or 'awtv'")
        lam = None if lam is None else positive_finite(lam, "lam")
        weight_exponent = 1.0 if weight_exponent is None else non_negative_finite(weight_exponent, "weight_exponent")
        tolerance = 1e-4 if tolerance is None else non_negative_finite(tolerance, "tolerance")
        solve = getattr(_core, "denoise_statistical_tv_" + suffix)
        result, report = solve(array, variance_array, list(spacing), lam, method, weight_exponent,
                               discrepancy_factor or 0.0, max_iterations, tolerance, str(backend), str(device),
                               non_negative_int(device_memory_limit, "device_memory_limit"), threads, progress,
                               bool(half_precision_dual))
    else:
        primal_dual = "'accelerated', 'cp' or 'pdu'"
        _refuse(method, {"lam": lam, "weight_exponent": weight_exponent, "tolerance": tolerance,
                         "half_precision_dual": half_precision_dual or None}, primal_dual)
        if method == "tvgd":
            _refuse(method, {"delta": delta}, "'awtv'")
        step = DEFAULT_STEP if step is None else positive_finite(step, "step")
        step_unit = "rms" if step_unit is None else step_unit
        if step_unit not in ("rms", "l2"):
            raise ValueError(f"step_unit must be 'rms' or 'l2', got {step_unit!r}")
        delta = DEFAULT_DELTA if delta is None else positive_finite(delta, "delta")
        if target_residual is not None:
            target_residual = non_negative_finite(target_residual, "target_residual")
        solve = getattr(_core, "denoise_statistical_tvgd_" + suffix)
        result, report = solve(array, variance_array, list(spacing), GRADIENT_DESCENT_METHODS[method], step,
                               step_unit, delta, max_iterations, target_residual, discrepancy_factor or 1.0,
                               str(backend), str(device), threads, progress)
    warn_report(report)
    if report["variance_estimated"]:
        warn_if_white_assumed(report["noise_estimation"], "denoise_statistical_tv (variance estimated)")
    elif report.get("discrepancy_target") and discrepancy_factor is None and not report["residual_gain_measured"]:
        warnings.warn("denoise_statistical_tv: the noise spectrum could not be measured on the image (too busy or "
                      "too small), so the discrepancy factor is that of white noise, 0.9 (for a CT reconstruction "
                      "about 0.7 fits better: pass discrepancy_factor)", RuntimeWarning, stacklevel=2)
    out = restore(result)
    return (out, report) if return_report else out
