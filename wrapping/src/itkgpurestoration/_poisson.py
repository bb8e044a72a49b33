# SPDX-License-Identifier: Apache-2.0
"""solve_poisson and PoissonSolver: the Python front end of the PSCR engine (gpur::PSCRSolver) for images.

The discrete problem is the one ``itk::PSCRPoissonSolver`` solves:
``-Lap_h u + shift * u = f`` with the second-order finite-difference Laplacian
in physical units (each axis' second difference divided by its spacing
squared), on the grid of the right-hand side. It is the separable operator of
``SeparableSolver`` with one ``second_difference_axis`` per array axis, built by
the engine's ``gpur::MakePoissonOperator`` as the filter's is.
"""

import numbers

import numpy as np

from ._denoise import prepare_image
from ._images import to_array
from . import _core
from ._separable import AxisFactors, SeparableSolver, boundary_name


def _boundaries(boundary, ndim):
    """Per-axis names from one name or a sequence of ndim names (array-axis order)."""
    if isinstance(boundary, str):
        return (boundary_name(boundary, "boundary"),) * ndim
    if not isinstance(boundary, (list, tuple)):
        raise ValueError(
            f"boundary must be 'dirichlet' or 'neumann', or a sequence of them (one per axis), got {boundary!r}"
        )
    if len(boundary) != ndim:
        raise ValueError(f"boundary needs one name or {ndim} (one per axis), got {len(boundary)}")
    return tuple(boundary_name(b, "boundary") for b in boundary)


def _spacing(spacing, ndim):
    """spacing as a tuple of ndim floats (array-axis order), or ValueError naming it; None: unit spacing."""
    if spacing is None:
        return (1.0,) * ndim
    if isinstance(spacing, (str, bytes)) or not hasattr(spacing, "__len__"):
        raise ValueError(
            f"spacing must be a sequence of {ndim} numbers (one per axis, array-axis order), got {spacing!r}"
        )
    if len(spacing) != ndim:
        raise ValueError(f"spacing needs {ndim} values, got {len(spacing)}")
    for s in spacing:
        if isinstance(s, bool) or not isinstance(s, numbers.Real):
            raise ValueError(f"spacing must hold numbers, got {s!r}")
    return tuple(float(s) for s in spacing)


class PoissonSolver(SeparableSolver):
    """A fast direct solver of ``-Lap_h u + shift * u = f`` on one grid, planned once.

    The plan (the block eigenproblems of PSCR, the expensive part) is built by
    the constructor; ``solve`` then takes any number of right-hand sides of
    ``shape``, each in O(N log n). See ``solve_poisson`` for the discretisation
    and the parameters; ``shape`` and ``spacing`` are in array-axis order
    ((z,) y, x), ``dtype`` is float32 or float64 (what the solves compute in).
    It is a ``SeparableSolver`` whose axes are ``second_difference_axis(n, h,
    boundary, boundary)``; the accuracy options (``precision``,
    ``residual_tolerance``, ``max_refinement_steps``) are that class'.

    Attributes: those of ``SeparableSolver`` and ``spacing``, ``boundary`` (per
    axis).
    """

    def __init__(
        self,
        shape,
        *,
        spacing=None,
        shift=0.0,
        boundary="dirichlet",
        radix=4,
        fast_transforms=True,
        dtype=np.float64,
        project_rhs=False,
        precision="auto",
        residual_tolerance=0.0,
        max_refinement_steps=None,
        backend="auto",
        device="",
        num_threads=None,
    ):
        shape = tuple(int(n) for n in shape)
        ndim = len(shape)
        if ndim not in (2, 3):
            raise ValueError(f"shape must have 2 or 3 values, got {ndim}")
        if any(n < 1 for n in shape):
            raise ValueError(f"every size of shape must be >= 1, got {shape}")
        if all(n == 1 for n in shape):
            raise ValueError(f"shape {shape} is a single voxel; the solver needs at least 2 voxels")
        self.spacing = _spacing(spacing, ndim)
        self.boundary = _boundaries(boundary, ndim)
        neumann = [b == "neumann" for b in self.boundary]
        axes = [AxisFactors(*arrays) for arrays in _core.poisson_axes(shape, self.spacing, neumann)]
        super().__init__(
            axes,
            shift,
            dtype=dtype,
            radix=radix,
            fast_transforms=fast_transforms,
            precision=precision,
            residual_tolerance=residual_tolerance,
            max_refinement_steps=max_refinement_steps,
            project_rhs=project_rhs,
            backend=backend,
            device=device,
            num_threads=num_threads,
        )

    def solve(self, rhs, *, return_report=False):
        """The solution for the right-hand side ``rhs`` (array or image of ``shape``), of the same kind.

        A SimpleITK/itk image must have the solver's spacing (else ValueError:
        the plan depends on it); its metadata is kept. Any real dtype is
        converted to the solver's dtype. The report is ``SeparableSolver.solve``'s
        with ``boundary`` and ``spacing``.
        """
        array, image_spacing, restore = to_array(rhs)
        array = self._checked_array(np.asarray(array))
        if image_spacing is not None and not np.allclose(image_spacing, self.spacing, rtol=1e-6, atol=0):
            raise ValueError(
                f"rhs has spacing {tuple(image_spacing)}, the solver {self.spacing}; build a solver for that spacing"
            )
        u, report = self._solve(array)
        out = restore(u)
        return (out, report) if return_report else out

    def _incompatible_hint(self):
        return (
            "With Neumann on every axis and shift 0 a solution exists only when the sum of rhs is 0; "
            "pass project_rhs=True to subtract its mean (the least-squares solution)"
        )

    def _settings(self):
        settings = super()._settings()
        settings.update({"boundary": self.boundary, "spacing": self.spacing})
        return settings


def solve_poisson(
    rhs,
    *,
    shift=0.0,
    boundary="dirichlet",
    spacing=None,
    radix=4,
    fast_transforms=True,
    project_rhs=False,
    precision="auto",
    residual_tolerance=0.0,
    max_refinement_steps=None,
    backend="auto",
    device="",
    num_threads=None,
    return_report=False,
):
    """Solve ``-Lap_h u + shift * u = f`` on the grid of a 2D or 3D image by PSCR.

    The Laplacian is the standard second-order finite difference in physical
    units (5-point stencil in 2D, 7-point in 3D, each axis' difference divided
    by its spacing squared), as in ``itk::PSCRPoissonSolver``. shift 0 is
    Poisson, > 0 modified Helmholtz (screened Poisson), < 0 Helmholtz. The
    method is PSCR (partial solution variant of cyclic reduction), a direct
    solver in O(N log n); on the CPU backend the image's uniform axes are
    instead diagonalised by fast sine/cosine transforms (``fast_transforms``).
    Every solve checks its relative residual
    ||f - A u|| / ||f|| (in float64) against a target near the rounding floor
    of its dtype, refines until it meets it, and raises NumericalError rather
    than return a solution that does not (see ``precision``).

    Parameters
    ----------
    rhs : numpy.ndarray, SimpleITK.Image or itk.Image
        The right-hand side f, 2D or 3D, arrays indexed (z, y, x) / (y, x).
        float32 is computed in float32, float64 in float64, other real dtypes
        in float32.
    shift : float
        The constant c of ``-Lap u + c u = f``.
    boundary : {"dirichlet", "neumann"} or a sequence of them, one per axis in
        array-axis order. Both ends of an axis alike. Dirichlet: u = 0 one
        spacing outside the first and the last voxel (the voxels are the
        interior nodes; a nonzero boundary value g next to voxel i is the
        right-hand side f_i + g / h^2). Neumann: zero flux, the edge voxel
        mirrored half a spacing outside the image.
    spacing : sequence of float, optional
        Voxel spacing in array-axis order. Default: the image's spacing for
        SimpleITK/itk images, 1 for arrays.
    radix : {4, 2}
        The radix q of the reduction.
    fast_transforms : bool
        On both backends (default True), solve by fast sine/cosine
        transforms (DST-I for Dirichlet, DCT-II for Neumann axes; FFTW, VkFFT on
        OpenCL), the classical FFT Poisson solver, several times faster than PSCR and the
        same to rounding; False: PSCR. The report's ``path`` says which ran.
    project_rhs : bool
        Singular problems only (Neumann on every axis, shift 0): subtract the
        mean of f instead of refusing an f whose sum is not 0 up to rounding.
        The solution of a singular problem has zero mean.
    precision : {"auto", "dtype", "float64"}
        Where float32 data are solved. "auto" (default): in float32, redone in
        float64 (the result rounded to float32) when float32 cannot reach the
        residual target, as for indefinite Helmholtz (shift below minus the
        smallest eigenvalue) on large grids. "dtype": float32 only
        (NumericalError when that is not enough). "float64": always in
        float64. float64 data are always solved in float64.
    residual_tolerance : float
        The relative residual a solve must reach; 0 (default): 8x the
        rounding floor, the residual of the exact solution rounded to the
        dtype (about 1e-7 in float32, 1e-15 in float64, larger on
        ill-conditioned problems).
    max_refinement_steps : None or int 0..16
        Most steps of iterative refinement, u += A^-1 (f - A u); None: 8.
    backend : {"auto", "cpu", "opencl"}
        As for ``denoise_tv`` (an OpenCL device needs fp64 here for any
        dtype); "auto" on a CPU OpenCL driver measures solves of a part of the
        problem.
    device : str
        OpenCL device selection, as for ``denoise_tv``.
    num_threads : int >= 1, optional
        Threads of the CPU backend and of the plan's setup; None (default):
        every core. The solution does not depend on it.
    return_report : bool
        Also return a dict: relative_residual (of the returned u, evaluated in
        float64 for the operator solved; float32 solves round 1/h^2 and the
        shift to float32),
        residual_target, rounding_floor, refinement_steps, computed_in_double,
        incompatibility (singular problems: the share of f projected out; else
        0), backend ("CPU"/"OpenCL"), device, description, backend_reason,
        measured_mvox_per_s (as for ``denoise_tv``), path ("PSCR" or the
        fast transforms per axis, x the last array axis), radix,
        fast_transforms, boundary,
        spacing, shift, precision, singular, setup_seconds (the plan; on
        OpenCL with its upload), solve_seconds (host arrays in and out, the
        checks and refinement included), tridiagonal_solves.

    Returns
    -------
    u, of the same kind as ``rhs`` (SimpleITK/itk images keep origin, spacing
    and direction), or ``(u, report)``. To solve many right-hand sides on one
    grid, build a ``PoissonSolver`` once and call its ``solve``.

    Raises
    ------
    ValueError for bad parameters or input (NaN/Inf, single voxel, wrong
    dimension, an incompatible f of a singular problem, ...); NumericalError
    (an ArithmeticError) when the solution cannot reach its residual target.
    """
    array, image_spacing, restore = prepare_image(rhs, None)
    solver = PoissonSolver(
        array.shape,
        spacing=image_spacing if spacing is None else spacing,
        shift=shift,
        boundary=boundary,
        radix=radix,
        fast_transforms=fast_transforms,
        dtype=array.dtype,
        project_rhs=project_rhs,
        precision=precision,
        residual_tolerance=residual_tolerance,
        max_refinement_steps=max_refinement_steps,
        backend=backend,
        device=device,
        num_threads=num_threads,
    )
    u, report = solver._solve(array)
    out = restore(u)
    return (out, report) if return_report else out
