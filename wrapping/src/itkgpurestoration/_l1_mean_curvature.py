# SPDX-License-Identifier: Apache-2.0
"""denoise_l1_mean_curvature: the Python front end of the engine gpur::DenoiseL1MeanCurvature."""

import numpy as np

from . import _core
from ._denoise import (
    positive_finite,
    positive_int,
    prepare_image,
    thread_count,
    warn_report,
)

_CHOICES = {
    "initialization": ("zero", "data"),
    "corner_mass": ("exact", "separable"),
    "sub2_solver": ("direct", "cg"),
}


def _automatic_or_positive(value, name):
    """0.0 (the engine's automatic choice) for None, else value as a float, finite and > 0; else ValueError."""
    return 0.0 if value is None else positive_finite(value, name)


def _choice(value, name):
    allowed = _CHOICES[name]
    if not isinstance(value, str) or value.lower() not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}")
    return value.lower()


def denoise_l1_mean_curvature(
    image,
    r0=None,
    *,
    sigma=None,
    h=None,
    data_range=None,
    epsilon=None,
    r1=None,
    r2=None,
    r3=None,
    max_num_iter=_core.L1MC_DEFAULT_MAX_ITERATIONS,
    tol=_core.L1MC_DEFAULT_TOLERANCE,
    initialization="zero",
    corner_mass="exact",
    sub2_solver="direct",
    spacing=None,
    backend="auto",
    device=None,
    num_threads=None,
    callback=None,
    return_report=False,
):
    """L1-mean-curvature denoising of a 2D image by the augmented Lagrangian method.

    Solves ``min_u eps * integral |div(grad u / sqrt(1 + |grad u|**2))| + 1/2 integral (f - u)**2``
    (Zhu and Chan's model as solved by Myllykoski et al. 2015, linear finite
    elements on the triangulated pixel grid). Unlike total variation it
    penalises the curvature of the image's graph, not its slope: ramps stay
    ramps (no staircasing) and small features keep their contrast.

    The model is not scale-invariant, so it is solved on ``f / data_range``
    over a domain whose longer side has length 1 (mesh step ``h``) and scaled
    back: the same image in other intensity units gives the same result.

    Parameters
    ----------
    image : numpy.ndarray, SimpleITK.Image or itk.Image
        A 2D scalar image; NumPy arrays are indexed (y, x). float32 is
        computed in float32, float64 in float64, other real dtypes are
        converted to float32.
    r0 : float > 0, optional
        The regularisation knob: ``eps = r0 h``, ``r1 = 10 r0 h``,
        ``r2 = 5 r0``, ``r3 = 5 r0 h**2``. None (default): chosen from the
        noise level, ``l1mc_r0_for_noise(sigma / data_range)`` (the PSNR-best
        r0 of photographs, fitted as a power law of sigma).
    sigma : float > 0, optional
        The noise standard deviation in the image's intensity units, used
        when r0 is None. None (default): estimated from the image.
    h : float > 0, optional
        The mesh step of the normalised domain; None: ``1 / (max(ny, nx) - 1)``.
    data_range : float > 0, optional
        The intensity span the model treats as 1 (as scikit-image's
        ``data_range``); None: ``max - min`` of the image.
    epsilon, r1, r2, r3 : float > 0, optional
        Overrides of the curvature weight and the three penalties (None: from r0).
    max_num_iter : int >= 1
        The budget of outer iterations (default 1000). A run that ends before
        meeting ``tol`` issues a :class:`ConvergenceWarning`.
    tol : float > 0
        Stop when the relative change of the augmented Lagrangian falls below it
        while the constraint residuals R1-R3 are below 0.05.
    initialization : {"zero", "data"}
        "zero" (default): every variable 0, the paper's choice; "data": u = f
        and the auxiliary fields from it, which at the default ``h`` hardly
        leaves the noisy image (the model is not convex; see the user guide).
    corner_mass : {"exact", "separable"}
        The lumped mass at the four corners in the u-subproblem: "exact"
        (default) or the separable approximation.
    sub2_solver : {"direct", "cg"}
        How the p3-subproblem is solved: "direct" (default; one fast
        Dirichlet Helmholtz solve on the vertices, exact to rounding) or "cg"
        (the paper's conjugate gradients, relative residual 1e-8 in double).
    spacing : sequence of two floats, optional
        Pixel spacing (y, x); default the image's (1 for arrays). The mesh
        steps are ``h * spacing / min(spacing)``.
    backend : {"auto", "cpu", "opencl"}
        As for :func:`denoise_tv`.
    device : str, optional
        OpenCL device selection (None or "": ``$ITKGPUR_DEVICE``, else the
        default device), as for :func:`denoise_tv`.
    num_threads : int >= 1, optional
        Threads of the CPU backend; None: every core.
    callback : callable(info), optional
        Called after every outer iteration, with the GIL held, with a dict:
        ``iteration``, ``objective`` (J), ``lagrangian`` (L),
        ``relative_change``, ``r1_residual``, ``r2_residual``, ``r3_residual``
        (R1-R3), ``newton_success``, ``cg_iterations`` (0 with
        ``sub2_solver="direct"``). Returning False (any
        falsy value except None) aborts with ``itkgpurestoration.Aborted``; an
        exception it raises is propagated unchanged. Ctrl-C stops the solve too.
    return_report : bool
        Also return a dict: backend, device, description, backend_reason,
        measured_mvox_per_s, iterations, converged, objective, lagrangian,
        relative_change, r1_residual, r2_residual, r3_residual,
        objective_of_data (J of the input), the parameters used (r0, h,
        data_range, epsilon, r1, r2, r3, sigma, sigma_estimated),
        sub2_residual and sub4_residual (relative residuals of the last inner
        solves), timings (seconds per subproblem), seconds, history (the
        callback's dict of every iteration) and warnings.

    Returns
    -------
    The denoised image, of the same kind as ``image`` (SimpleITK/itk images
    keep origin, spacing and direction), or ``(image, report)``.

    Raises
    ------
    ValueError for bad parameters or input (not 2D, smaller than 3 x 3,
    NaN/Inf, ...), RuntimeError for device failures, Aborted when the callback
    stops the run.
    """
    parameters = dict(
        r0=_automatic_or_positive(r0, "r0"),
        sigma=_automatic_or_positive(sigma, "sigma"),
        h=_automatic_or_positive(h, "h"),
        data_range=_automatic_or_positive(data_range, "data_range"),
        epsilon=_automatic_or_positive(epsilon, "epsilon"),
        r1=_automatic_or_positive(r1, "r1"),
        r2=_automatic_or_positive(r2, "r2"),
        r3=_automatic_or_positive(r3, "r3"),
        max_iterations=positive_int(max_num_iter, "max_num_iter"),
        tolerance=positive_finite(tol, "tol"),
        initialization=_choice(initialization, "initialization"),
        corner_mass=_choice(corner_mass, "corner_mass"),
        sub2_solver=_choice(sub2_solver, "sub2_solver"),
    )
    if callback is not None and not callable(callback):
        raise ValueError("callback must be callable or None")
    if device is not None and not isinstance(device, str):
        raise ValueError(f"device must be a string or None, got {device!r}")
    threads = thread_count(num_threads)
    array, spacing, restore = prepare_image(image, spacing)
    if array.ndim != 2:
        raise ValueError(
            f"L1-mean-curvature denoising takes a 2D scalar image, got {array.ndim} dimensions (shape "
            f"{array.shape}); denoise the slices or channels one by one"
        )
    solve = (
        _core.denoise_l1_mean_curvature_float32
        if array.dtype == np.float32
        else _core.denoise_l1_mean_curvature_float64
    )
    result, report = solve(
        array,
        list(spacing),
        backend=str(backend),
        device=device or "",
        threads=threads,
        callback=callback,
        **parameters,
    )
    warn_report(report)
    out = restore(result)
    return (out, report) if return_report else out


def l1mc_r0_for_noise(normalized_sigma):
    """The r0 that ``denoise_l1_mean_curvature`` uses for a noise level ``sigma / data_range``.

    ``0.005 * (normalized_sigma / 0.1) ** 1.75``: a power law fitted to the
    PSNR-optimal r0 of four photographs at 256 x 256 with Gaussian and uniform
    noise, sigma 0.025 to 0.2 (``examples/l1mc_r0_calibration.py``); within
    20 % of the choices of Myllykoski et al. (2015, Table 1) for uniform noise
    p = 0.1 to 0.4. Piecewise-constant images do best with about 2.5 times more.
    """
    return _core.l1mc_r0_for_noise(positive_finite(normalized_sigma, "normalized_sigma"))
