# SPDX-License-Identifier: Apache-2.0
"""SeparableSolver and solve_separable: the PSCR engine (gpur::PSCRSolver) on general separable factors.

The operator, with symmetric tridiagonal factors per array axis,

    2D (y, x):     A = A_y (x) M_x + M_y (x) A_x + c M_y (x) M_x
    3D (z, y, x):  A = A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x + M_z (x) M_y (x) A_x + c M_z (x) M_y (x) M_x

acts on arrays of shape (n_y, n_x) / (n_z, n_y, n_x), ``(x)`` being the
Kronecker product in NumPy's C order (the last axis fastest). Each axis has a
"stiffness" A_d and a "mass" M_d (``AxisFactors``); ``second_difference_axis``
and ``p1_axis`` build the usual ones with the engine's generators
(gpurSeparableProblems.h), so that finite differences on a uniform grid and
linear finite elements on a non-uniform mesh are the engine's discretisations.
``PoissonSolver`` (``_poisson.py``) is this solver with second-difference axes.

Accuracy: every solve checks its relative residual ||f - A u|| / ||f||
(evaluated in float64) against a target, refines until it meets it, redoes
float32 solves in float64 when float32 cannot reach it (``precision="auto"``),
and raises ``NumericalError`` instead of returning a solution that misses it.
"""

import math
import numbers

import numpy as np

from . import _core
from ._core import NumericalError
from ._denoise import positive_finite, thread_count
from ._images import compute_dtype

BOUNDARIES = ("dirichlet", "neumann")
MASS_MATRICES = ("lumped", "consistent")
# Python's names of gpur::PSCRPrecision (the engine's names on the right).
PRECISIONS = {"auto": "Automatic", "dtype": "Scalar", "float64": "Double"}
MAX_REFINEMENT_STEPS = 16
_PLANS = {np.dtype(np.float32): _core.SeparablePlan_float32, np.dtype(np.float64): _core.SeparablePlan_float64}
# The engine's names in NumericalError messages, and what the Python user sets instead.
_ENGINE_TERMS = (
    ("PSCROptions::residualTolerance", "residual_tolerance"),
    ("raise residualTolerance", "raise residual_tolerance"),
    ("use PSCRPrecision::Automatic or Double, or double data", 'use precision="auto" or "float64", or float64 data'),
    ("allow more refinement steps", "allow more refinement steps (max_refinement_steps)"),
)


def real_finite(value, name):
    """value as a float, a finite real number, else ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def boundary_name(value, name):
    """'dirichlet' or 'neumann' (case-insensitive), else ValueError naming the parameter."""
    if not isinstance(value, str) or value.lower() not in BOUNDARIES:
        raise ValueError(f"{name} must be 'dirichlet' or 'neumann', got {value!r}")
    return value.lower()


def _vector(values, name, length=None):
    """A 1-D float64 copy of values, finite, of the given length, else ValueError naming it."""
    array = np.asarray(values)
    if array.dtype.kind == "c":
        raise ValueError(
            f"{name} is complex; complex factors are not supported in Python (the C++ engine's "
            "gpur::PSCRSolver<std::complex<double>> solves them)"
        )
    if array.dtype.kind not in "biuf" or array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of real numbers, got {array.dtype} with shape {array.shape}")
    if length is not None and array.size != length:
        raise ValueError(f"{name} needs {length} values, got {array.size}")
    array = np.array(array, dtype=np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} has non-finite values (at index {int(np.flatnonzero(~np.isfinite(array))[0])})")
    array.flags.writeable = False
    return array


def _first_non_positive_pivot(diagonal, off_diagonal):
    """(index, value) of the first LDL^T pivot <= 0 of a symmetric tridiagonal matrix; None: positive definite."""
    pivot = diagonal[0]
    if not pivot > 0:
        return 0, pivot
    for i in range(1, diagonal.size):
        pivot = diagonal[i] - off_diagonal[i - 1] ** 2 / pivot
        if not pivot > 0:
            return i, pivot
    return None


class AxisFactors:
    """The factor matrices of one axis: the stiffness A and the mass M, symmetric tridiagonal of the axis' size n.

    ``AxisFactors(stiffness_diagonal, stiffness_off_diagonal, mass_diagonal=None, mass_off_diagonal=None)``:
    the diagonals have n values, the off-diagonals n - 1 (the entries (i, i + 1)
    = (i + 1, i)); a missing mass is the identity (finite differences), a missing
    mass off-diagonal is zero (a diagonal, lumped mass). The values must be real
    and finite and M positive definite (ValueError otherwise); A may be anything
    symmetric (the shift c of the operator is added separately). Usually built
    by ``second_difference_axis`` or ``p1_axis``.

    Attributes (read-only float64 arrays): ``stiffness_diagonal``,
    ``stiffness_off_diagonal``, ``mass_diagonal``, ``mass_off_diagonal``;
    ``size`` (n); ``nodes``: the coordinates of the n unknowns when the axis
    was built from a mesh (``p1_axis``), else None.
    """

    def __init__(
        self, stiffness_diagonal, stiffness_off_diagonal, mass_diagonal=None, mass_off_diagonal=None, *, nodes=None
    ):
        self.stiffness_diagonal = _vector(stiffness_diagonal, "stiffness_diagonal")
        n = self.stiffness_diagonal.size
        if n < 1:
            raise ValueError("stiffness_diagonal is empty; an axis needs at least 1 unknown")
        self.stiffness_off_diagonal = _vector(stiffness_off_diagonal, "stiffness_off_diagonal", n - 1)
        self.mass_diagonal = _vector(np.ones(n) if mass_diagonal is None else mass_diagonal, "mass_diagonal", n)
        self.mass_off_diagonal = _vector(
            np.zeros(n - 1) if mass_off_diagonal is None else mass_off_diagonal, "mass_off_diagonal", n - 1
        )
        bad = _first_non_positive_pivot(self.mass_diagonal, self.mass_off_diagonal)
        if bad is not None:
            raise ValueError(
                f"the mass matrix is not positive definite (pivot {bad[0]} of its LDL^T factorisation is "
                f"{bad[1]:.3g}); "
                "M must be symmetric positive definite (e.g. a positive diagonal, or |off-diagonal| < diagonal / 2)"
            )
        self.nodes = None if nodes is None else _vector(nodes, "nodes", n)

    @property
    def size(self):
        return self.stiffness_diagonal.size

    def _engine(self):
        return (self.stiffness_diagonal, self.stiffness_off_diagonal, self.mass_diagonal, self.mass_off_diagonal)

    def __repr__(self):
        return f"AxisFactors(size={self.size}{'' if self.nodes is None else ', from a mesh'})"


def real_dtype(dtype, name):
    """The dtype an array of dtype is solved in (float32/float64 as they are, other reals float32), else ValueError."""
    try:
        return compute_dtype(dtype)
    except ValueError:
        raise ValueError(f"{name} must have a real dtype, got {np.dtype(dtype)}") from None


def _count(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def second_difference_axis(n, spacing=1.0, left="dirichlet", right="dirichlet"):
    """Second differences on n unknowns with spacing h (physical units), M = I: the axis of ``PoissonSolver``.

    A = tridiag(-1, 2, -1) / h^2 (``-u''``). Dirichlet: u = 0 one spacing outside
    the first / last unknown; Neumann: the edge unknown mirrored (zero flux, the
    end row becomes (u_0 - u_1) / h^2).
    """
    n = _count(n, "n")
    spacing = positive_finite(spacing, "spacing")
    left, right = boundary_name(left, "left"), boundary_name(right, "right")
    return AxisFactors(*_core.second_difference_axis(n, spacing, left == "neumann", right == "neumann"))


def p1_axis(nodes, left="dirichlet", right="dirichlet", mass="lumped"):
    """Linear finite elements on the mesh ``nodes`` (strictly increasing, both end nodes included).

    Stiffness A_ij = integral of phi_i' phi_j', mass M_ij = integral of phi_i phi_j
    (``mass="consistent"``) or its row sums on the diagonal (``"lumped"``,
    (h_l + h_{l+1}) / 2). A Dirichlet end (u = 0 there) drops its node from the
    unknowns, a Neumann end keeps it (natural, zero-flux condition); the
    unknowns' coordinates are the returned axis' ``nodes``. For -div grad u = f
    the right-hand side is the load vector, e.g. (M_y (x) M_x) f at the nodes.
    """
    mesh = _vector(nodes, "nodes")
    if mesh.size >= 2 and not np.all(np.diff(mesh) > 0):
        i = int(np.flatnonzero(~(np.diff(mesh) > 0))[0]) + 1
        raise ValueError(
            f"nodes must increase strictly, but nodes[{i}] = {mesh[i]!r} <= nodes[{i - 1}] = {mesh[i - 1]!r}"
        )
    left, right = boundary_name(left, "left"), boundary_name(right, "right")
    if not isinstance(mass, str) or mass.lower() not in MASS_MATRICES:
        raise ValueError(f"mass must be 'lumped' or 'consistent', got {mass!r}")
    unknowns = mesh.size - (left == "dirichlet") - (right == "dirichlet")
    if unknowns < 1:
        raise ValueError(
            f"nodes has {mesh.size} nodes; with these boundaries ({left}, {right}) at least "
            f"{mesh.size - unknowns + 1} are needed for one unknown"
        )
    factors = _core.p1_axis(mesh, left == "neumann", right == "neumann", mass.lower() == "consistent")
    first = 1 if left == "dirichlet" else 0
    return AxisFactors(*factors, nodes=mesh[first : first + unknowns])


def precision_name(value):
    """A valid precision setting, else ValueError listing them."""
    if not isinstance(value, str) or value not in PRECISIONS:
        allowed = ", ".join(repr(p) for p in PRECISIONS)
        raise ValueError(f"precision must be one of {allowed}, got {value!r}")
    return value


def _residual_tolerance(value):
    """A valid residual_tolerance (finite, >= 0), else ValueError naming it and the range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise ValueError(
            "residual_tolerance must be a finite number >= 0 (0: automatic, 8x the rounding floor of the "
            f"solution), got {value!r}"
        )
    return float(value)


def _max_refinement_steps(value):
    """None (automatic, the engine's -1) or an integer 0..16, else ValueError."""
    if value is None:
        return -1
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= MAX_REFINEMENT_STEPS:
        raise ValueError(
            f"max_refinement_steps must be None (automatic: 8) or an integer from 0 to {MAX_REFINEMENT_STEPS}, "
            f"got {value!r}"
        )
    return int(value)


def _python_terms(message):
    for engine, python in _ENGINE_TERMS:
        message = message.replace(engine, python)
    return message


class SeparableSolver:
    """A PSCR solver of ``A u = f`` for a separable operator given by its factors, planned once.

    ``axes``: one ``AxisFactors`` per array axis, in array-axis order ((z,) y, x:
    ``axes[-1]`` acts along the last, fastest axis); 2 or 3 of them. ``shift``: c
    (real). The plan (the block eigenproblems, the expensive part) is built by
    the constructor; ``solve`` then takes any number of right-hand sides of
    ``shape`` (the axes' sizes), each in O(N log n). The operator is the one in
    the module docstring; pass the right-hand side in the same (e.g. load
    vector) form.

    Parameters
    ----------
    axes : sequence of AxisFactors, array-axis order
    shift : float
        The constant c (times M_z (x) M_y (x) M_x).
    dtype : float32 or float64
        What the solves compute in, and the solution's dtype; right-hand sides
        of other real dtypes are converted to it.
    radix : {4, 2}
        The radix q of the reduction.
    fast_transforms : bool
        Diagonalise the axes that are uniform second differences with
        Dirichlet or (reflecting) Neumann at both ends by fast sine/cosine
        transforms (DST-I, DCT-II; FFTW on the CPU, VkFFT on OpenCL) and solve
        the rest per mode (default True): the classical FFT Poisson solver where every axis
        qualifies, several times faster than PSCR, the same result to
        rounding. False: PSCR on every axis. ``path`` and the report's
        ``path`` say which ran (axes named x, y, z: the last array axis is x).
    precision : {"auto", "dtype", "float64"}
        Where float32 solves compute (float64 solves always compute in float64).
        "auto": in float32, redone in float64 (the result rounded to float32)
        when float32 cannot reach the residual target; from then on this solver
        computes in float64 (``computes_in_double``). "dtype": in float32 only,
        raising NumericalError when that cannot reach the target. "float64":
        always in float64, the result rounded to float32.
    residual_tolerance : float
        The relative residual ||f - A u|| / ||f|| a solve must reach; 0
        (default) is 8x the rounding floor of its solution (the residual the
        exact solution has once rounded to ``dtype``). A value below the floor
        cannot be met: NumericalError.
    max_refinement_steps : None or int 0..16
        Most steps of iterative refinement per solve, u += A^-1 (f - A u);
        None: 8. 0 still checks the residual.
    project_rhs : bool
        Singular operators only (a null vector e, e.g. Neumann on every axis
        and shift 0): remove the component of f along M e instead of refusing
        an f that is not orthogonal to e up to rounding. The solution has
        e^T M u = 0.
    backend, device :
        As for ``PoissonSolver`` ("auto": a GPU, else the faster of the CPU
        and a CPU OpenCL driver as measured; see ``denoise_tv``).
    num_threads : int >= 1, optional
        Threads of the CPU backend and of the plan's setup (host-side loops
        of an OpenCL run too); None (default): every core. The results do not
        depend on it.

    Complex factors and right-hand sides are not supported in Python.

    Attributes: ``axes``, ``shape``, ``shift``, ``dtype``, ``radix``,
    ``fast_transforms``, ``path`` ("PSCR" or e.g. "fast transforms (x: DST-I,
    y: DST-I)"),
    ``precision``, ``residual_tolerance``, ``max_refinement_steps`` (the
    automatic choice resolved), ``backend`` ("CPU" or "OpenCL"), ``device``
    (its name, "" on the CPU), ``backend_reason``, ``singular``, ``well_posed`` (real positive
    (semi)definite: PSCR is stable in float32 on it), ``computes_in_double``,
    ``setup_seconds``, ``tridiagonal_solves`` (per solve, before refinement).
    """

    def __init__(
        self,
        axes,
        shift=0.0,
        *,
        dtype=np.float64,
        radix=4,
        fast_transforms=True,
        precision="auto",
        residual_tolerance=0.0,
        max_refinement_steps=None,
        project_rhs=False,
        backend="auto",
        device="",
        num_threads=None,
    ):
        if isinstance(axes, AxisFactors) or not hasattr(axes, "__len__"):
            raise ValueError(f"axes must be a sequence of 2 or 3 AxisFactors (array-axis order), got {axes!r}")
        axes = tuple(axes)
        if len(axes) not in (2, 3):
            raise ValueError(f"axes must have 2 or 3 AxisFactors (one per array axis), got {len(axes)}")
        for i, axis in enumerate(axes):
            if not isinstance(axis, AxisFactors):
                raise ValueError(
                    f"axes[{i}] must be an AxisFactors (see second_difference_axis, p1_axis), got {type(axis).__name__}"
                )
        self.axes = axes
        self.shape = tuple(axis.size for axis in axes)
        self.shift = real_finite(shift, "shift")
        self.dtype = np.dtype(dtype)
        if self.dtype not in _PLANS:
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype}")
        if isinstance(radix, bool) or radix not in (2, 4):
            raise ValueError(f"radix must be 2 or 4, got {radix!r}")
        self.radix = int(radix)
        if not isinstance(fast_transforms, (bool, np.bool_)):
            raise ValueError(f"fast_transforms must be True or False, got {fast_transforms!r}")
        self.fast_transforms = bool(fast_transforms)
        self.precision = precision_name(precision)
        self.residual_tolerance = _residual_tolerance(residual_tolerance)
        steps = _max_refinement_steps(max_refinement_steps)
        self.project_rhs = bool(project_rhs)
        self._plan = _PLANS[self.dtype](
            [axis._engine() for axis in axes],
            self.shift,
            self.radix,
            self.fast_transforms,
            self.project_rhs,
            PRECISIONS[self.precision],
            self.residual_tolerance,
            steps,
            str(backend),
            str(device),
            thread_count(num_threads),
        )

    @property
    def backend(self):
        """The backend the solves run on: "CPU" or "OpenCL"."""
        return self._plan.backend["backend"]

    @property
    def device(self):
        """The OpenCL device's name ("" on the CPU)."""
        return self._plan.backend["device"]

    @property
    def backend_reason(self):
        """Why that backend runs, e.g. "backend CPU requested" or Auto's measurement with its two speeds."""
        return self._plan.backend["backend_reason"]

    @property
    def path(self):
        """The method of the solves: "PSCR", or e.g. "fast transforms (x: DST-I, y: DST-I)" (x: the last array axis)."""
        return self._plan.path

    @property
    def singular(self):
        """True when the operator has a null vector (e.g. Neumann on every axis with shift 0)."""
        return self._plan.singular

    @property
    def well_posed(self):
        """True for real positive (semi)definite operators: PSCR is stable on them in float32 (no float64 needed)."""
        return self._plan.well_posed

    @property
    def computes_in_double(self):
        """True when float32 solves now run in float64 (precision "float64", or "auto" after float32 fell short)."""
        return self._plan.computes_in_double

    @property
    def max_refinement_steps(self):
        return self._plan.refinement_steps

    @property
    def setup_seconds(self):
        return self._plan.setup_seconds

    @property
    def tridiagonal_solves(self):
        return self._plan.tridiagonal_solves

    def solve(self, rhs, *, return_report=False):
        """The solution u of A u = rhs, an array of ``shape`` in ``dtype``; or ``(u, report)``.

        rhs: a real array of ``shape`` (other real dtypes are converted to the
        solver's dtype). The report is a dict: relative_residual (||f - A u|| /
        ||f|| of the returned u, evaluated in float64, for the operator the
        solver holds: a float32 solver's factors and shift are rounded to
        float32; singular operators: f after the projection), residual_target (what it had to reach),
        rounding_floor (the residual of the exact solution rounded to dtype),
        refinement_steps (taken), computed_in_double, incompatibility (singular
        operators: |e^T f| / (|e| |f|), the share of f projected out; else 0),
        solve_seconds, and backend, device, description, backend_reason,
        measured_mvox_per_s (see ``denoise_tv``), path (the method that ran:
        "PSCR" or the fast transforms per axis), radix, fast_transforms, shift,
        precision, singular, setup_seconds, tridiagonal_solves.

        Raises ValueError for a bad rhs (shape, dtype, NaN/Inf, incompatible
        with a singular operator) and NumericalError when the solution cannot
        reach its residual target (see ``precision``, ``residual_tolerance``).
        """
        array = self._checked_array(np.asarray(rhs))
        u, report = self._solve(array)
        return (u, report) if return_report else u

    def _checked_array(self, array):
        """array as a C-contiguous array of the solver's dtype, after checking its shape and kind."""
        real_dtype(array.dtype, "rhs")
        if array.shape != self.shape:
            raise ValueError(f"rhs has shape {array.shape}, the solver {self.shape} (the sizes of its axes)")
        return np.ascontiguousarray(array, dtype=self.dtype)

    def _incompatible_hint(self):
        """How to make a singular problem's right-hand side acceptable."""
        return (
            "the operator is singular (it has a null vector e) and a solution exists only when e^T rhs = 0; pass "
            "project_rhs=True to remove that component (the least-squares solution)"
        )

    def _settings(self):
        """The settings that go into every report."""
        return {
            "radix": self.radix,
            "fast_transforms": self.fast_transforms,
            "shift": self.shift,
            "precision": self.precision,
        }

    def _solve(self, array):
        """(u, report) for a C-contiguous array of the solver's shape and dtype."""
        try:
            u, accuracy = self._plan.solve(array)
        except NumericalError as e:
            raise NumericalError(_python_terms(str(e))) from None
        except _core.IncompatibleRightHandSide as e:
            raise ValueError(f"{e}. {self._incompatible_hint()}") from None
        report = dict(self._plan.backend)
        report.update(self._settings())
        report["singular"] = self.singular
        report["setup_seconds"] = self.setup_seconds
        report["tridiagonal_solves"] = self.tridiagonal_solves
        report.update(accuracy)
        return u, report


def solve_separable(rhs, axes, shift=0.0, *, return_report=False, **options):
    """Solve ``A u = rhs`` once for the separable operator of ``axes`` and ``shift`` (see ``SeparableSolver``).

    ``axes`` in array-axis order ((z,) y, x); ``options`` are those of
    ``SeparableSolver`` (radix, precision, residual_tolerance,
    max_refinement_steps, project_rhs, backend, device, num_threads) except dtype, which is
    the rhs's (float32 and float64 as they are, other real dtypes in float32).
    Returns u, or ``(u, report)``. To solve several right-hand sides with one
    operator, build a ``SeparableSolver`` once.
    """
    array = np.asarray(rhs)
    solver = SeparableSolver(axes, shift, dtype=real_dtype(array.dtype, "rhs"), **options)
    return solver.solve(array, return_report=return_report)
