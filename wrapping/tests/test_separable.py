# SPDX-License-Identifier: Apache-2.0
"""SeparableSolver, solve_separable and the factor builders: general separable operators on non-uniform meshes.

The operators are checked against factors assembled here, element by element,
from the mesh (``p1_matrices``), combined as dense Kronecker products (2D) or
applied axis by axis (3D), so the tests pin the documented operator and its
axis order, not only the engine's self-consistency.
"""

import numpy as np
import pytest

import itkgpurestoration as igr
from test_poisson import relative_residual


def p1_matrices(nodes, left="dirichlet", right="dirichlet", mass="lumped"):
    """Dense stiffness and mass of linear elements on nodes; a Dirichlet end drops its node."""
    n = len(nodes)
    A, M = np.zeros((n, n)), np.zeros((n, n))
    for e, h in enumerate(np.diff(nodes)):
        pair = np.ix_([e, e + 1], [e, e + 1])
        A[pair] += np.array([[1.0, -1.0], [-1.0, 1.0]]) / h
        M[pair] += h / 6 * np.array([[2.0, 1.0], [1.0, 2.0]]) if mass == "consistent" else h / 2 * np.eye(2)
    keep = slice(1 if left == "dirichlet" else 0, n - 1 if right == "dirichlet" else n)
    return A[keep, keep], M[keep, keep]


def dense(axis):
    """(A, M) of an AxisFactors as dense matrices."""
    def tridiagonal(diagonal, off):
        return np.diag(diagonal) + np.diag(off, 1) + np.diag(off, -1)

    return (
        tridiagonal(axis.stiffness_diagonal, axis.stiffness_off_diagonal),
        tridiagonal(axis.mass_diagonal, axis.mass_off_diagonal),
    )


def apply_separable(u, factors, shift):
    """sum_d (A_d on axis d, M on the others) u + shift (M on every axis) u; factors in array-axis order."""

    def along(matrices, v):
        for d, m in enumerate(matrices):
            v = np.moveaxis(np.tensordot(m, v, axes=([1], [d])), 0, d)
        return v

    masses = [M for _, M in factors]
    out = shift * along(masses, u)
    for d, (A, _) in enumerate(factors):
        out = out + along(masses[:d] + [A] + masses[d + 1 :], u)
    return out


def graded_nodes(count, seed, a=0.0, b=1.0):
    """count nodes from a to b with random spacings between 0.2 and 1.8 of the mean (non-uniform)."""
    h = np.random.default_rng(seed).uniform(0.2, 1.8, count - 1)
    return a + (b - a) * np.concatenate(([0.0], np.cumsum(h))) / h.sum()


@pytest.mark.parametrize("mass", ["lumped", "consistent"])
@pytest.mark.parametrize("left, right", [("dirichlet", "dirichlet"), ("neumann", "dirichlet"), ("neumann", "neumann")])
def test_p1_axis_is_the_element_assembly(mass, left, right):
    nodes = graded_nodes(12, 1, -1.0, 2.0)
    axis = igr.p1_axis(nodes, left=left, right=right, mass=mass)
    A, M = p1_matrices(nodes, left, right, mass)
    assert axis.size == A.shape[0] == len(nodes) - (left == "dirichlet") - (right == "dirichlet")
    DA, DM = dense(axis)
    np.testing.assert_allclose(DA, A, rtol=1e-14, atol=1e-14 * np.abs(A).max())
    np.testing.assert_allclose(DM, M, rtol=1e-14, atol=0)
    # The unknowns' coordinates: the nodes not on a Dirichlet end.
    first = 1 if left == "dirichlet" else 0
    np.testing.assert_array_equal(axis.nodes, nodes[first : first + axis.size])
    with pytest.raises(ValueError, match="read-only"):
        axis.mass_diagonal[0] = 1.0


def test_second_difference_axis():
    axis = igr.second_difference_axis(5, 0.5, left="neumann")
    np.testing.assert_array_equal(axis.stiffness_diagonal, [4.0, 8.0, 8.0, 8.0, 8.0])
    np.testing.assert_array_equal(axis.stiffness_off_diagonal, [-4.0] * 4)
    np.testing.assert_array_equal(axis.mass_diagonal, np.ones(5))
    assert not axis.mass_off_diagonal.any() and axis.nodes is None


@pytest.mark.parametrize("shift", [0.0, 3.0, -40.0])
def test_p1_2d_against_the_dense_kronecker_operator(shift):
    """2D, a non-uniform mesh per axis, mixed boundaries and mass matrices, array axes (y, x)."""
    y = igr.p1_axis(graded_nodes(25, 2, 0.0, 2.0), left="neumann", mass="consistent")
    x = igr.p1_axis(graded_nodes(33, 3), right="neumann", mass="lumped")
    (Ay, My), (Ax, Mx) = dense(y), dense(x)
    # x is the last (fastest) array axis: the Kronecker factor of y comes first.
    operator = np.kron(Ay, Mx) + np.kron(My, Ax) + shift * np.kron(My, Mx)
    f = np.random.default_rng(4).uniform(-1, 1, (y.size, x.size))
    u, report = igr.solve_separable(f, [y, x], shift, return_report=True)
    assert u.shape == f.shape and u.dtype == np.float64
    r = operator @ u.ravel() - f.ravel()
    residual = np.linalg.norm(r) / np.linalg.norm(f)
    # Measured: 6e-15 to 1e-14 (shift -40 is indefinite: 7 of the operator's eigenvalues are below 40).
    assert residual <= 1e-13
    assert report["relative_residual"] <= report["residual_target"] and not report["singular"]
    np.testing.assert_allclose(u.ravel(), np.linalg.solve(operator, f.ravel()), rtol=0, atol=1e-10 * np.abs(u).max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_p1_3d_against_the_axis_by_axis_operator(dtype):
    z = igr.p1_axis(graded_nodes(14, 5), mass="lumped")
    y = igr.p1_axis(graded_nodes(18, 6, 0.0, 0.5), left="neumann", right="neumann", mass="consistent")
    x = igr.p1_axis(graded_nodes(23, 7, 0.0, 3.0), left="neumann")
    factors = [p1_matrices(graded_nodes(14, 5))]
    factors += [p1_matrices(graded_nodes(18, 6, 0.0, 0.5), "neumann", "neumann", "consistent")]
    factors += [p1_matrices(graded_nodes(23, 7, 0.0, 3.0), "neumann")]
    f = np.random.default_rng(8).uniform(-1, 1, (z.size, y.size, x.size)).astype(dtype)
    solver = igr.SeparableSolver([z, y, x], 0.25, dtype=dtype)
    assert solver.shape == f.shape and solver.well_posed and not solver.singular
    u, report = solver.solve(f, return_report=True)
    assert u.dtype == dtype
    fd = f.astype(np.float64)
    residual = np.linalg.norm(apply_separable(u.astype(np.float64), factors, 0.25) - fd) / np.linalg.norm(fd)
    if dtype == np.float64:
        assert residual <= 1e-13  # measured 2.6e-15
    else:
        # Within 10x the measured float32 floor: the float64 solution rounded to float32.
        exact = igr.solve_separable(fd, [z, y, x], 0.25)
        r = apply_separable(exact.astype(np.float32).astype(np.float64), factors, 0.25) - fd
        floor = np.linalg.norm(r) / np.linalg.norm(fd)
        assert residual <= 10 * floor  # measured 3.1x
        assert report["rounding_floor"] == pytest.approx(floor, rel=0.2, abs=0)
    assert report["relative_residual"] <= report["residual_target"]


def test_poisson_solver_is_the_separable_solver_with_second_differences():
    shape, spacing = (17, 24, 13), (1.5, 0.5, 1.0)
    boundary = ("neumann", "dirichlet", "neumann")
    f = np.random.default_rng(9).uniform(-1, 1, shape)
    axes = [igr.second_difference_axis(n, h, b, b) for n, h, b in zip(shape, spacing, boundary)]
    u = igr.solve_separable(f, axes, 2.0)
    np.testing.assert_array_equal(u, igr.solve_poisson(f, spacing=spacing, boundary=boundary, shift=2.0))
    assert relative_residual(u, f, spacing, boundary, 2.0) <= 1e-13
    assert isinstance(igr.PoissonSolver(shape), igr.SeparableSolver)


def test_singular_separable_operator():
    """P1 with Neumann on every axis and shift 0: the constants are the null space (e^T M u = 0 returned)."""
    y = igr.p1_axis(graded_nodes(20, 10), left="neumann", right="neumann")
    x = igr.p1_axis(graded_nodes(26, 11), left="neumann", right="neumann")
    f = np.random.default_rng(12).uniform(-1, 1, (y.size, x.size)) + 0.5
    solver = igr.SeparableSolver([y, x])
    assert solver.singular
    with pytest.raises(ValueError, match="project_rhs=True"):
        solver.solve(f)
    u, report = igr.solve_separable(f, [y, x], project_rhs=True, return_report=True)
    assert report["singular"] and report["incompatibility"] > 0.1
    mass = np.outer(y.mass_diagonal, x.mass_diagonal)  # lumped: M e is the mass diagonal
    assert abs(float((mass * u).sum())) <= 1e-12 * float(np.abs(mass * u).sum())


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: igr.AxisFactors([2.0, np.nan], [-1.0]), r"stiffness_diagonal has non-finite values \(at index 1\)"),
        (lambda: igr.AxisFactors([2.0, 2.0], [np.inf]), "stiffness_off_diagonal has non-finite values"),
        (lambda: igr.AxisFactors([2.0, 2.0], [-1.0, -1.0]), "stiffness_off_diagonal needs 1 values, got 2"),
        (lambda: igr.AxisFactors([2.0, 2.0], [-1.0], [1.0]), "mass_diagonal needs 2 values, got 1"),
        (lambda: igr.AxisFactors([[2.0, 2.0]], []), "stiffness_diagonal must be a 1-D array of real numbers"),
        (lambda: igr.AxisFactors([], []), "stiffness_diagonal is empty"),
        (lambda: igr.AxisFactors([2.0, 2.0], [-1.0], [1.0, -1.0]), r"mass matrix is not positive definite \(pivot 1"),
        (lambda: igr.AxisFactors([2.0, 2.0], [-1.0], [1.0, 1.0], [1.0]), "mass matrix is not positive definite"),
        (lambda: igr.AxisFactors([2.0, 2.0j], [-1.0]), "complex factors are not supported in Python"),
        (lambda: igr.p1_axis([0.0, 0.5, 0.5, 1.0]), r"nodes must increase strictly, but nodes\[2\]"),
        (lambda: igr.p1_axis([0.0, 1.0]), "at least 3 are needed for one unknown"),
        (lambda: igr.p1_axis([0.0, 0.5, 1.0], mass="diagonal"), "mass must be 'lumped' or 'consistent'"),
        (lambda: igr.p1_axis([0.0, 0.5, 1.0], left="periodic"), "left must be 'dirichlet' or 'neumann'"),
        (lambda: igr.second_difference_axis(0), "n must be an integer >= 1"),
        (lambda: igr.second_difference_axis(4, spacing=0.0), "spacing must be finite and > 0"),
    ],
)
def test_bad_factors_raise_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_solver_arguments_raise_value_error():
    x, y = igr.second_difference_axis(8), igr.second_difference_axis(6)
    with pytest.raises(ValueError, match="axes must have 2 or 3 AxisFactors"):
        igr.SeparableSolver([x])
    with pytest.raises(ValueError, match="axes must be a sequence"):
        igr.SeparableSolver(x)
    with pytest.raises(ValueError, match=r"axes\[1\] must be an AxisFactors"):
        igr.SeparableSolver([x, np.ones(6)])
    with pytest.raises(ValueError, match="shift must be finite"):
        igr.SeparableSolver([y, x], float("nan"))
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        igr.SeparableSolver([y, x], dtype=np.int32)
    solver = igr.SeparableSolver([y, x])
    assert solver.shape == (6, 8)
    with pytest.raises(ValueError, match=r"rhs has shape \(8, 6\), the solver \(6, 8\)"):
        solver.solve(np.zeros((8, 6)))
    with pytest.raises(ValueError, match="rhs must have a real dtype"):
        solver.solve(np.zeros((6, 8), dtype=np.complex128))
    with pytest.raises(ValueError, match="non-finite"):
        solver.solve(np.full((6, 8), np.inf))


def check_readme_snippet(namespace):
    """The documentation's ``separable`` block (run by test_readme.py): -div grad u = 1 on a graded P1 mesh."""
    u, report = namespace["u"], namespace["report"]
    y_nodes, x_nodes = np.linspace(0, 1, 41) ** 2, np.linspace(0, 2, 81)
    assert u.shape == (39, 80) and u.dtype == np.float64  # y: both ends Dirichlet; x: the Neumann end kept
    factors = [p1_matrices(y_nodes), p1_matrices(x_nodes, "dirichlet", "neumann")]
    load = np.outer(np.diag(factors[0][1]), np.diag(factors[1][1]))
    residual = np.linalg.norm(apply_separable(u, factors, 0.0) - load) / np.linalg.norm(load)
    assert residual <= 1e-12 and report["relative_residual"] <= report["residual_target"]
    # The solution of -div grad u = 1 with these boundaries is positive, largest at the Neumann end x = 2.
    assert u.min() > 0 and np.argmax(u.max(axis=0)) == u.shape[1] - 1
