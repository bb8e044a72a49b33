# SPDX-License-Identifier: Apache-2.0
"""bench/flow_compare.py's ITK side on an image written here the way flow_bench --save writes it."""

import json
import math

import numpy as np
import pytest

from conftest import load_bench_script


def load_compare():
    return load_bench_script("flow_compare")


def test_itk_schedule_lands_on_the_time_within_the_stability_limit():
    module = load_compare()
    for final_time, spacing in ((0.002, 4 / 512), (0.002, 4 / 1024), (1e-3, 4 / 64), (0.5, 0.25), (1e-9, 1.0)):
        iterations, step = module.itk_schedule(final_time, spacing)
        assert step <= spacing**2 / 8 * (1 + 1e-12)
        assert iterations * step == pytest.approx(final_time, rel=1e-12)
        # The fewest such steps: one fewer would need a step above h^2 / 8.
        assert iterations == 1 or final_time / (iterations - 1) > spacing**2 / 8


def test_flow_compare_runs_itk_on_the_saved_image(tmp_path):
    """The surface of Figs. 1-2 at 32^2: ITK runs the scheduled steps to T, stays stable and smooths the rings."""
    pytest.importorskip("SimpleITK")
    module = load_compare()
    cells, final_time = 32, 1e-3
    h = 4.0 / cells
    x = -2 + h * np.arange(cells + 1)
    initial = np.sin(3 * np.pi * np.hypot(*np.meshgrid(x, x))).astype("<f4")
    initial.tofile(tmp_path / f"compare_{cells}_initial.f32")
    summary = module.main(["--images", str(tmp_path), "--sizes", str(cells), "--time", str(final_time),
                           "--json", str(tmp_path / "compare.json")])
    assert json.loads((tmp_path / "compare.json").read_text())["benchmark"] == "flow_compare"
    (row,) = summary["results"]
    assert row["method"] == "CurvatureFlowImageFilter" and row["cells"] == cells
    assert row["iterations"] == math.ceil(final_time / (h * h / 8)) and row["finalTime"] == pytest.approx(final_time)
    assert row["seconds"] > 0
    # Measured: RMS change 0.0110 (the level-set flow moves the rings' isolines by their curvature only).
    assert 0.005 < row["rmsChange"] < 0.1
