#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Poisson's equation on a graded (non-uniform) mesh with itkgpurestoration's separable PSCR solver.

Solves -div grad u = f on the unit square with u = 0 on the boundary by linear
finite elements on a tensor-product mesh that is graded along both axes (x
refined towards both ends, y geometrically towards y = 0; neighbouring cells
differ smoothly, the largest cell is 9x (x) and 20x (y) the smallest), with the
manufactured solution

    u(x, y) = exp(x) sin(pi x) sin(pi y),
    f(x, y) = exp(x) sin(pi y) ((2 pi^2 - 1) sin(pi x) - 2 pi cos(pi x)).

Each axis is ``itkgpurestoration.p1_axis(nodes)`` (stiffness and mass of the
1D elements, the Dirichlet end nodes dropped); the discrete system is

    (A_y (x) M_x + M_y (x) A_x) u = (M_y (x) M_x) f(nodes)

(the lumped mass, i.e. nodal quadrature of the load), solved by
``SeparableSolver``. On meshes of 32, 64, 128, 256 cells per axis the maximum
nodal error falls by 4x per refinement (second order), which the example prints
with the solver's report of the finest solve (its relative residual, evaluated
in float64, against its target). It writes a PNG panel

    solution with every 16th mesh line | |error| (scaled to its maximum)

of the finest level resampled to a uniform picture.

    python3 examples/poisson_nonuniform_mesh.py [--output out/poisson_nonuniform_mesh.png]
        [--cells 32,64,128,256] [--mass lumped|consistent] [--dtype float64|float32]
        [--backend auto|cpu|opencl] [--device SELECTION]

Needs the package (``python3 -m pip install .`` from the repository root) and scikit-image (for the PNG).
"""

import argparse
import math
import os

import numpy as np

PICTURE = 256  # pixels per side of each panel
LINE_EVERY = 16  # mesh lines drawn on the solution panel (every 16th of the finest mesh)


def x_nodes(cells):
    """x(t) = t - 0.8 sin(2 pi t) / (2 pi): cells 5x finer at both ends (dx/dt from 0.2 to 1.8)."""
    t = np.linspace(0.0, 1.0, cells + 1)
    return t - 0.8 * np.sin(2 * math.pi * t) / (2 * math.pi)


def y_nodes(cells):
    """y(t) = (e^(3t) - 1) / (e^3 - 1): cells growing geometrically from y = 0, by e^3 = 20x in all."""
    t = np.linspace(0.0, 1.0, cells + 1)
    return np.expm1(3.0 * t) / math.expm1(3.0)


def exact(y, x):
    return np.exp(x) * np.sin(math.pi * x) * np.sin(math.pi * y)


def load(y, x):
    bracket = (2 * math.pi**2 - 1) * np.sin(math.pi * x) - 2 * math.pi * np.cos(math.pi * x)
    return np.exp(x) * np.sin(math.pi * y) * bracket


def solve_level(igr, cells, args):
    """(max nodal error, report, axes, u) on the mesh of `cells` cells per axis."""
    axes = [igr.p1_axis(y_nodes(cells), mass=args.mass), igr.p1_axis(x_nodes(cells), mass=args.mass)]
    y, x = np.meshgrid(axes[0].nodes, axes[1].nodes, indexing="ij")
    f = load(y, x)
    # The load vector (M_y (x) M_x) f: each tridiagonal mass applied along its axis.
    rhs = apply_tridiagonal(axes[0].mass_diagonal, axes[0].mass_off_diagonal, f, axis=0)
    rhs = apply_tridiagonal(axes[1].mass_diagonal, axes[1].mass_off_diagonal, rhs, axis=1)
    solver = igr.SeparableSolver(axes, dtype=args.dtype, backend=args.backend, device=args.device)
    u, report = solver.solve(rhs.astype(args.dtype), return_report=True)
    error = float(np.abs(u - exact(y, x)).max())
    return error, report, axes, u


def apply_tridiagonal(diagonal, off_diagonal, values, axis):
    """The symmetric tridiagonal matrix (diagonal, off_diagonal) applied along one axis of values."""
    v = np.moveaxis(values, axis, 0)
    out = diagonal[:, None] * v
    out[:-1] += off_diagonal[:, None] * v[1:]
    out[1:] += off_diagonal[:, None] * v[:-1]
    return np.moveaxis(out, 0, axis)


def to_picture(values, y, x):
    """Values on the tensor mesh (y, x) (Dirichlet boundary 0 added) resampled bilinearly to PICTURE^2 pixels."""
    full = np.pad(values, 1)
    y, x = np.concatenate(([0.0], y, [1.0])), np.concatenate(([0.0], x, [1.0]))
    centres = (np.arange(PICTURE) + 0.5) / PICTURE
    rows = np.array([np.interp(centres, x, row) for row in full])
    return np.array([np.interp(centres, y, column) for column in rows.T]).T


def panel(u, error, axes):
    """uint8 picture: solution (grey over [min, max]) with mesh lines | |error| / its maximum."""
    y, x = axes[0].nodes, axes[1].nodes
    solution = to_picture(u, y, x)
    solution = (solution - solution.min()) / (solution.max() - solution.min())
    for node in np.concatenate((y[LINE_EVERY - 1 :: LINE_EVERY], [0.0, 1.0])):
        solution[min(int(node * PICTURE), PICTURE - 1), :] = 0.0
    for node in np.concatenate((x[LINE_EVERY - 1 :: LINE_EVERY], [0.0, 1.0])):
        solution[:, min(int(node * PICTURE), PICTURE - 1)] = 0.0
    err = to_picture(np.abs(error), y, x)
    err /= err.max()
    # Rows from y = 1 at the top down to y = 0, as a plot would show them.
    picture = np.concatenate((solution, err), axis=1)[::-1]
    return np.round(255.0 * picture).astype(np.uint8)


def parse_cells(text):
    try:
        cells = [int(c) for c in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"needs integers separated by commas, got {text!r}") from None
    if len(cells) < 2 or any(c < 4 for c in cells):
        raise argparse.ArgumentTypeError(f"needs at least two levels of >= 4 cells, got {text!r}")
    return cells


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--output", default=os.path.join("out", "poisson_nonuniform_mesh.png"), help="PNG panel to write"
    )
    parser.add_argument("--cells", type=parse_cells, default=[32, 64, 128, 256], help="cells per axis of each level")
    parser.add_argument("--mass", default="lumped", choices=["lumped", "consistent"], help="the elements' mass matrix")
    parser.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "opencl"])
    parser.add_argument("--device", default="", help="OpenCL device selection (see itkgpurestoration.list_devices())")
    return parser.parse_args(argv)


def main(argv=None):
    """Runs the example; returns a dict with the numbers it printed (used by the tests)."""
    import skimage.io

    import itkgpurestoration as igr

    args = parse_args(argv)
    errors, orders = [], []
    print("cells  unknowns  max nodal error  observed order")
    for level, cells in enumerate(args.cells):
        error, report, axes, u = solve_level(igr, cells, args)
        errors.append(error)
        order = math.log2(errors[-2] / error) if level else None
        if order is not None:
            orders.append(order)
        print(f"{cells:5d}  {u.size:8d}  {error:15.3e}  {'' if order is None else f'{order:14.3f}'}")
    print(
        f"finest solve ({report['description']}): relative residual {report['relative_residual']:.2e} "
        f"(target {report['residual_target']:.2e}, rounding floor {report['rounding_floor']:.2e}), "
        f"{report['refinement_steps']} refinement steps, {report['solve_seconds']:.3f} s"
    )
    directory = os.path.dirname(args.output)
    if directory:
        os.makedirs(directory, exist_ok=True)
    y, x = np.meshgrid(axes[0].nodes, axes[1].nodes, indexing="ij")
    skimage.io.imsave(args.output, panel(u, u - exact(y, x), axes), check_contrast=False)
    print(f"wrote {args.output}")
    return {"cells": args.cells, "errors": errors, "orders": orders, "report": report}


if __name__ == "__main__":
    main()
