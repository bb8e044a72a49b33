"""solve_poisson and PoissonSolver: the Python front end of the PSCR engine (gpur::PSCRSolver).

The discrete problem is the one ``itk::PSCRPoissonSolver`` solves:
``-Lap_h u + shift * u = f`` with the second-order finite-difference Laplacian
in physical units (each axis' second difference divided by its spacing
squared), on the grid of the right-hand side.
"""

import math
import numbers

import numpy as np

from . import _core
from ._denoise import compute_dtype, positive_finite, prepare_image
from ._images import to_array

BOUNDARIES = ("dirichlet", "neumann")
_PLANS = {np.dtype(np.float32): _core.PoissonPlan_float32, np.dtype(np.float64): _core.PoissonPlan_float64}


def _neumann_flags(boundary, ndim):
    """Per-axis True for Neumann from one name or a sequence of ndim names (array-axis order)."""
    names = [boundary] * ndim if isinstance(boundary, str) else list(boundary)
    if len(names) != ndim:
        raise ValueError(f"boundary needs one name or {ndim} (one per axis), got {len(names)}")
    flags = []
    for name in names:
        if not isinstance(name, str) or name.lower() not in BOUNDARIES:
            raise ValueError(f"boundary must be 'dirichlet' or 'neumann' (or one per axis), got {name!r}")
        flags.append(name.lower() == "neumann")
    return flags


def _finite(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


class PoissonSolver:
    """A fast direct solver of ``-Lap_h u + shift * u = f`` on one grid, planned once.

    The plan (the block eigenproblems of PSCR, the expensive part) is built by
    the constructor; ``solve`` then takes any number of right-hand sides of
    ``shape``, each in O(N log n). See ``solve_poisson`` for the discretisation
    and the parameters; ``shape`` and ``spacing`` are in array-axis order
    ((z,) y, x), ``dtype`` is float32 or float64 (what the solves compute in).

    Attributes: ``shape``, ``spacing``, ``dtype``, ``shift``, ``boundary``
    (per axis), ``radix``, ``backend`` ("CPU" or "OpenCL"), ``device`` (its
    name, "" on the CPU), ``singular`` (pure-Neumann Poisson),
    ``setup_seconds`` (time of the plan and, on OpenCL, its upload),
    ``tridiagonal_solves`` (per solve).
    """

    def __init__(
        self,
        shape,
        *,
        spacing=None,
        shift=0.0,
        boundary="dirichlet",
        radix=4,
        dtype=np.float64,
        project_rhs=False,
        backend="auto",
        device="",
    ):
        self.shape = tuple(int(n) for n in shape)
        ndim = len(self.shape)
        if ndim not in (2, 3):
            raise ValueError(f"shape must have 2 or 3 values, got {ndim}")
        self.spacing = (1.0,) * ndim if spacing is None else tuple(positive_finite(s, "spacing") for s in spacing)
        self.shift = _finite(shift, "shift")
        neumann = _neumann_flags(boundary, ndim)
        self.boundary = tuple(BOUNDARIES[n] for n in neumann)
        if isinstance(radix, bool) or radix not in (2, 4):
            raise ValueError(f"radix must be 2 or 4, got {radix!r}")
        self.radix = int(radix)
        self.dtype = np.dtype(dtype)
        if self.dtype not in _PLANS:
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype}")
        self.project_rhs = bool(project_rhs)
        self._plan = _PLANS[self.dtype](
            list(self.shape),
            list(self.spacing),
            neumann,
            self.shift,
            self.radix,
            self.project_rhs,
            str(backend),
            str(device),
        )

    @property
    def backend(self):
        """The backend the solves run on: "CPU" or "OpenCL"."""
        return self._plan.backend[0]

    @property
    def device(self):
        """The OpenCL device's name ("" on the CPU)."""
        return self._plan.backend[1]

    @property
    def singular(self):
        """True for pure-Neumann Poisson (shift 0, Neumann on every axis): u is unique up to a constant."""
        return self._plan.singular

    @property
    def setup_seconds(self):
        return self._plan.setup_seconds

    @property
    def tridiagonal_solves(self):
        return self._plan.tridiagonal_solves

    def solve(self, rhs, *, return_report=False):
        """The solution for the right-hand side ``rhs`` (array or image of ``shape``), of the same kind.

        A SimpleITK/itk image must have the solver's spacing (else ValueError:
        the plan depends on it); its metadata is kept. Any real dtype is
        converted to the solver's dtype.
        """
        array, image_spacing, restore = to_array(rhs)
        array = np.asarray(array)
        if array.shape != self.shape:
            raise ValueError(f"rhs has shape {array.shape}, the solver {self.shape}")
        compute_dtype(array.dtype)  # ValueError for complex and other non-real dtypes
        if image_spacing is not None and not np.allclose(image_spacing, self.spacing, rtol=1e-6, atol=0):
            raise ValueError(
                f"rhs has spacing {tuple(image_spacing)}, the solver {self.spacing}; build a solver for that spacing"
            )
        u, report = self._solve(np.ascontiguousarray(array, dtype=self.dtype))
        out = restore(u)
        return (out, report) if return_report else out

    def _solve(self, array):
        """(u, report) for a C-contiguous array of the solver's shape and dtype."""
        try:
            u, seconds = self._plan.solve(array)
        except ValueError as e:
            if self.singular and "not compatible" in str(e):
                raise ValueError(
                    f"{e}. With Neumann on every axis and shift 0 a solution exists only when the sum of rhs is 0; "
                    "pass project_rhs=True to subtract its mean (the least-squares solution)"
                ) from None
            raise
        backend, device, description = self._plan.backend
        report = {
            "backend": backend,
            "device": device,
            "description": description,
            "radix": self.radix,
            "boundary": self.boundary,
            "spacing": self.spacing,
            "shift": self.shift,
            "singular": self.singular,
            "setup_seconds": self.setup_seconds,
            "solve_seconds": seconds,
            "tridiagonal_solves": self.tridiagonal_solves,
        }
        return u, report


def solve_poisson(
    rhs,
    *,
    shift=0.0,
    boundary="dirichlet",
    spacing=None,
    radix=4,
    project_rhs=False,
    backend="auto",
    device="",
    return_report=False,
):
    """Solve ``-Lap_h u + shift * u = f`` on the grid of a 2D or 3D image by PSCR.

    The Laplacian is the standard second-order finite difference in physical
    units (5-point stencil in 2D, 7-point in 3D, each axis' difference divided
    by its spacing squared), as in ``itk::PSCRPoissonSolver``. shift 0 is
    Poisson, > 0 modified Helmholtz (screened Poisson), < 0 Helmholtz. The
    method is PSCR (partial solution variant of cyclic reduction), a direct
    solver in O(N log n): the result is exact up to rounding.

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
    project_rhs : bool
        Singular problems only (Neumann on every axis, shift 0): subtract the
        mean of f instead of refusing an f whose sum is not 0 up to rounding.
        The solution of a singular problem has zero mean.
    backend : {"auto", "cpu", "opencl"}
        auto uses OpenCL when a device exists (and supports fp64 for float64
        data), else the CPU (all cores).
    device : str
        OpenCL device selection, as for ``denoise_tv``.
    return_report : bool
        Also return a dict: backend ("CPU"/"OpenCL"), device, description,
        radix, boundary, spacing, shift, singular, setup_seconds (the plan; on
        OpenCL with its upload), solve_seconds (host arrays in and out),
        tridiagonal_solves.

    Returns
    -------
    u, of the same kind as ``rhs`` (SimpleITK/itk images keep origin, spacing
    and direction), or ``(u, report)``. To solve many right-hand sides on one
    grid, build a ``PoissonSolver`` once and call its ``solve``.

    Raises
    ------
    ValueError for bad parameters or input (NaN/Inf, single voxel, wrong
    dimension, an incompatible f of a singular problem, ...).
    """
    array, spacing, restore = prepare_image(rhs, spacing)
    solver = PoissonSolver(
        array.shape,
        spacing=spacing,
        shift=shift,
        boundary=boundary,
        radix=radix,
        dtype=array.dtype,
        project_rhs=project_rhs,
        backend=backend,
        device=device,
    )
    u, report = solver._solve(array)
    out = restore(u)
    return (out, report) if return_report else out
