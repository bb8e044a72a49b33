# SPDX-License-Identifier: Apache-2.0
"""graph_mean_curvature_flow and willmore_flow: the Python front ends of the engine gpur::GraphFlow."""

import numpy as np

from . import _core
from ._denoise import (
    callable_or_none,
    non_negative_finite,
    positive_finite,
    positive_int,
    prepare_image,
    thread_count,
)

_BOUNDARIES = ("neumann", "dirichlet")

_COMMON_PARAMETERS = """
    Parameters
    ----------
    image : numpy.ndarray, SimpleITK.Image or itk.Image
        A 2D scalar image of at least 3 x 3 pixels, seen as the height map
        z = u(x, y); NumPy arrays are indexed (y, x). {dtypes}
    time : float > 0
        The final time T the flow runs to from 0 (default 1), in units of
        {time_units} (physical spacing). At unit spacing T = {one_pixel}
        smooths about one pixel; the smoothing length grows as {growth}.
    tolerance : float > 0
        The error estimate an accepted Runge-Kutta-Merson step may have
        (Algorithm 4.1 of [Oberhuber2011]; default 1e-5), relative to the
        regularization (the unit of height).
    regularization : float > 0
        The unit of height against the spacing (default 1, in intensity
        units): the flow moves the graph of ``u / regularization`` and scales
        back, so scaling the image and the regularization by one factor scales
        the result by it. Larger: flatter relief, nearer to {linear};
        smaller: steeper relief{limit}.
    boundary : {{"neumann", "dirichlet"}}
        "neumann" (default): zero normal derivative, each border pixel copies
        its inner neighbour (an image has no prescribed border values; ITK's
        smoothing filters behave alike). "dirichlet": the border pixels keep
        their values{dirichlet_w}.
    initial_step : float >= 0
        The first step; 0 (default): {initial} with h the smaller spacing.
        Later steps follow the step control.
    max_steps : int >= 1
        Accepted steps at most (default 10000000); a run that needs more
        raises :class:`NumericalError` (one whose step is rejected 64 times
        in a row raises RuntimeError): a result is always at time T.
    spacing : sequence of two floats, optional
        Pixel spacing (y, x); default the image's (1 for arrays).
    backend : {{"auto", "cpu", "opencl"}}
        As for :func:`denoise_tv`; the CPU reference and OpenCL take the same
        steps and agree to rounding.
    device : str
        OpenCL device selection ("" (default): ``$ITKGPUR_DEVICE``, else the
        default device), as for :func:`denoise_tv`.
    num_threads : int >= 1, optional
        Threads of the CPU backend; None (default): every core.
    progress : callable(t, T), optional
        Called after every accepted step, with the GIL held, with the
        simulated time reached and the final time (the last call gets
        ``(T, T)``). Returning False (any falsy value except None) aborts with
        ``itkgpurestoration.Aborted``; an exception it raises is propagated
        unchanged. Ctrl-C stops the run too.
    return_report : bool
        Also return a dict: backend, device, description, backend_reason,
        measured_mvox_per_s (as every report), flow, accepted_steps,
        rejected_steps (steps whose error estimate exceeded the tolerance,
        redone with a smaller step), time_reached (T), final_time,
        next_step (the step the control proposes next), error_estimate (of
        the last step), tolerance, regularization, boundary and seconds.

    Returns
    -------
    The evolved image, of the same kind as ``image`` (SimpleITK/itk images
    keep origin, spacing and direction), or ``(image, report)``.

    Raises
    ------
    ValueError for bad parameters or input (not 2D, smaller than 3 x 3,
    NaN/Inf, an unknown boundary, ...), NumericalError when max_steps do not
    reach T, RuntimeError for device failures or a step rejected 64 times in a
    row, Aborted when progress stops the run.
"""


def _flow(flow, image, time, tolerance, regularization, boundary, initial_step, max_steps, spacing, backend,
          device, num_threads, progress, return_report):
    if not isinstance(boundary, str) or boundary.lower() not in _BOUNDARIES:
        raise ValueError(f"boundary must be one of {', '.join(repr(b) for b in _BOUNDARIES)}, got {boundary!r}")
    parameters = dict(
        time=positive_finite(time, "time"),
        tolerance=positive_finite(tolerance, "tolerance"),
        regularization=positive_finite(regularization, "regularization"),
        boundary=boundary.lower(),
        initial_step=non_negative_finite(initial_step, "initial_step"),
        max_steps=positive_int(max_steps, "max_steps"),
    )
    progress = callable_or_none(progress)
    if not isinstance(device, str):
        raise ValueError(f"device must be a string, got {device!r}")
    threads = thread_count(num_threads)
    array, spacing, restore = prepare_image(image, spacing)
    if array.ndim != 2:
        raise ValueError(
            f"curvature flows of graphs take a 2D scalar image, got {array.ndim} dimensions (shape {array.shape}); "
            "evolve the slices one by one"
        )
    returned = array.dtype
    if flow == "willmore":
        # The fourth-order scheme needs double precision (the engine refuses float, as [Oberhuber2011, §5] found
        # float runs unusable): computed in float64, returned in the input's compute dtype.
        array = array.astype(np.float64)
    solve = _core.graph_flow_float32 if array.dtype == np.float32 else _core.graph_flow_float64
    result, report = solve(
        array,
        list(spacing),
        flow,
        backend=str(backend),
        device=device,
        threads=threads,
        progress=progress,
        **parameters,
    )
    out = restore(result.astype(returned, copy=False))
    return (out, report) if return_report else out


def graph_mean_curvature_flow(
    image,
    time=1.0,
    *,
    tolerance=_core.GRAPH_FLOW_DEFAULT_TOLERANCE,
    regularization=1.0,
    boundary="neumann",
    initial_step=0.0,
    max_steps=_core.GRAPH_FLOW_DEFAULT_MAX_STEPS,
    spacing=None,
    backend="auto",
    device="",
    num_threads=None,
    progress=None,
    return_report=False,
):
    """Mean-curvature flow of the graph of a 2D image, to time T.

    The surface z = u(x, y) / regularization moves with normal velocity equal
    to its mean curvature, ``du/dt = Q div(grad u / Q)``,
    ``Q = sqrt(regularization**2 + |grad u|**2)``: the flow that decreases the
    graph's area fastest (Oberhuber, Suzuki and Zabka 2011, [Oberhuber2011] in
    REFERENCES.md: complementary finite volumes in space, Runge-Kutta-Merson
    with automatic steps in time). As an image filter it is a
    slope-dependent diffusion: it fairs smooth height maps and removes noise
    without a level-set formulation, and it blurs edges more than total
    variation (:func:`denoise_tv`). See docs/curvature-flow.md.
    """
    return _flow("mean_curvature", image, time, tolerance, regularization, boundary, initial_step, max_steps,
                 spacing, backend, device, num_threads, progress, return_report)


def willmore_flow(
    image,
    time=1.0,
    *,
    tolerance=_core.GRAPH_FLOW_DEFAULT_TOLERANCE,
    regularization=1.0,
    boundary="neumann",
    initial_step=0.0,
    max_steps=_core.GRAPH_FLOW_DEFAULT_MAX_STEPS,
    spacing=None,
    backend="auto",
    device="",
    num_threads=None,
    progress=None,
    return_report=False,
):
    """Willmore flow of the graph of a 2D image, to time T.

    The surface z = u(x, y) / regularization moves with normal velocity
    ``-(Laplace-Beltrami H + H**3 / 2 - 2 K H)``, H and K its mean and Gauss
    curvatures: the flow that decreases the Willmore energy (the integral of
    H**2 over the surface) fastest, fourth order in space ([Oberhuber2011],
    as :func:`graph_mean_curvature_flow`). Planes, spheres and minimal
    surfaces stay; curvature is evened out rather than removed, so bends and
    ramps keep their shape better than under mean-curvature flow while noise
    (large curvature at small scales) goes fast. See docs/curvature-flow.md.
    """
    return _flow("willmore", image, time, tolerance, regularization, boundary, initial_step, max_steps, spacing,
                 backend, device, num_threads, progress, return_report)


graph_mean_curvature_flow.__doc__ += _COMMON_PARAMETERS.format(
    dtypes="float32 is computed in float32, float64 in\n        float64, other real dtypes are converted to float32.",
    time_units="length^2",
    one_pixel="1",
    growth="sqrt(T)",
    linear="the heat equation",
    limit=", nearer to the level-set mean-curvature flow of the isolines",
    dirichlet_w="",
    initial="h**2 / 4",
)
willmore_flow.__doc__ += _COMMON_PARAMETERS.format(
    dtypes="It is computed in float64 whatever the\n        input (float32 cannot carry the fourth-order "
    "scheme) and returned in the\n        input's dtype: float32 for float32 and other real dtypes (integers, "
    "converted\n        as by the other functions), float64 for float64.",
    time_units="length^4",
    one_pixel="1",
    growth="T**(1/4)",
    linear="biharmonic smoothing",
    limit=", where the surface's own curvatures drive it",
    dirichlet_w=" and the curvature w there is 0",
    initial="h**4 / 16",
)
