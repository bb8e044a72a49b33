# SPDX-License-Identifier: Apache-2.0
"""The Python examples in examples/ run and do what they claim."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from conftest import load_bench_script

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name):
    """Imports examples/<name>.py by path (examples/ is not a package)."""
    path = EXAMPLES / f"{name}.py"
    if not path.exists():
        pytest.skip(f"{path} not found (the package is tested outside the repository)")
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("backend", ["cpu", "auto"])
def test_tv_denoise_photo(tmp_path, backend):
    skimage_io = pytest.importorskip("skimage.io")
    example = load_example("tv_denoise_photo")
    output = tmp_path / "sub" / "photo.png"
    result = example.main(["--output", str(output), "--backend", backend])

    # The panel noisy | denoised | clean of the 512 x 512 photograph, uint8 grey.
    panel = skimage_io.imread(output)
    assert panel.shape == (512, 3 * 512) and panel.dtype == np.uint8
    noisy, denoised, clean = np.split(panel, 3, axis=1)
    assert not np.array_equal(noisy, denoised)
    assert clean.std() > 40  # the photograph, not a blank tile
    # Measured (lam 12, sigma 0.1, both backends): PSNR 19.99 -> 28.82 dB (+8.83),
    # SSIM 0.284 -> 0.769.
    assert result["psnr_noisy"] == pytest.approx(19.99, abs=0.05)
    assert result["psnr_denoised"] - result["psnr_noisy"] >= 8.5
    assert result["ssim_denoised"] >= 0.75 and result["ssim_noisy"] < 0.3
    # The same holds for what was written (8-bit, clipped to [0, 1], which already
    # removes some noise): measured 20.42 -> 28.82 dB (+8.39).
    gain_png = 10 * np.log10(255.0**2 / np.mean((denoised.astype(float) - clean) ** 2)) - 10 * np.log10(
        255.0**2 / np.mean((noisy.astype(float) - clean) ** 2)
    )
    assert gain_png >= 8.0


def test_l1mc_denoise_photo(tmp_path):
    skimage_io = pytest.importorskip("skimage.io")
    example = load_example("l1mc_denoise_photo")
    output = tmp_path / "l1mc.png"
    # A smaller sweep on the 128 x 128 image than the picture's (256 x 256, five r0 and six lams).
    result = example.main(["--output", str(output), "--size", "128", "--r0-factors", "0.5,1,2", "--lams", "8,12,16",
                           "--backend", "cpu"])

    # The panel noisy | L1 mean curvature | plain TV under title bars, uint8 grey.
    panel = skimage_io.imread(output)
    assert panel.shape == (128 + example.TITLE_HEIGHT, 3 * 128) and panel.dtype == np.uint8
    assert (panel[: example.TITLE_HEIGHT] < 128).any()  # the titles were drawn
    # Measured (seed 2024, sigma 0.1): noisy 20.07 dB; L1MC r0 x 0.5 / 1 / 2: 23.24 / 26.38 / 26.06 dB
    # (U-shaped, the sigma-chosen r0 best); TV lam 8 / 12 / 16: 26.57 / 27.78 / 27.71 dB.
    assert result["psnr_noisy"] == pytest.approx(20.07, abs=0.05)
    assert result["r0"] == result["r0_auto"]
    assert result["psnr_l1mc"] >= result["psnr_noisy"] + 5.5
    assert result["lam"] == 12.0 and result["psnr_tv"] >= result["psnr_noisy"] + 7.0


def test_statistical_tv_ct(tmp_path):
    skimage_io = pytest.importorskip("skimage.io")
    example = load_example("statistical_tv_ct")
    output = tmp_path / "ct.png"
    result = example.main(["--output", str(output)])

    # The panel noisy | S-PDU | plain TV | truth of the middle 128 x 128 slice, enlarged 2x, uint8 grey.
    panel = skimage_io.imread(output)
    assert panel.shape == (256, 4 * 256) and panel.dtype == np.uint8
    noisy, spdu, plain, truth = np.split(panel, 4, axis=1)
    assert set(np.unique(truth)) == {0, 128, 255}  # air, aluminium block, steel pin
    assert np.abs(noisy.astype(int) - truth).mean() > 2 * np.abs(spdu.astype(int) - truth).mean()
    assert not np.array_equal(spdu, plain)
    # Measured (seed 7, 1000 photons per ray): PSNR / SSIM / ROI SNR
    #   noisy 22.39 / 0.354 / 6.3, S-PDU 28.44 / 0.835 / 68.8 (lambda 27.9, calibrated discrepancy 0.73),
    #   plain TV 28.21 / 0.814 / 23.4 (lambda 29.6), TV-GD 28.53 / 0.893 / 102.3 (39 iterations, factor 1).
    assert result["noisy"]["psnr"] == pytest.approx(22.39, abs=0.05)
    for name in ("S-PDU", "plain TV", "TV-GD"):
        assert result[name]["psnr"] >= result["noisy"]["psnr"] + 5.5, name
        assert result[name]["ssim"] >= 0.8, name
        assert result[name]["discrepancy"] == pytest.approx(result[name]["target"], rel=0.03), name
    # The noise weights keep edges sharper and flatten the block more at the same discrepancy.
    assert result["S-PDU"]["ssim"] >= result["plain TV"]["ssim"] + 0.015
    assert result["S-PDU"]["snr"] >= 2 * result["plain TV"]["snr"]
    assert result["S-PDU"]["snr"] >= 10 * result["noisy"]["snr"]


def test_curvature_flow_height_map(tmp_path):
    skimage_io = pytest.importorskip("skimage.io")
    pytest.importorskip("SimpleITK")
    example = load_example("curvature_flow_height_map")
    output = tmp_path / "height_map.png"
    result = example.main(["--output", str(output), "--size", "128", "--backend", "cpu"])

    # Two rows of four shaded reliefs under title bars, uint8 grey.
    panel = skimage_io.imread(output)
    assert panel.shape == (2 * (128 + example.TITLE_HEIGHT), 4 * 128) and panel.dtype == np.uint8
    merit, reports = result["merit"], result["reports"]
    # Measured at 128^2 (seed 16, sigma 1, T = 2): PSNR / away from the cliff / area ratio / cliff kept
    #   noisy 30.85 / 30.88 / 1.551 / 99.7 %, graph mean curvature 42.71 / 44.95 / 0.991 / 78.8 %,
    #   Willmore (T = 4) 44.33 / 44.91 / 0.999 / 90.5 %, ITK CurvatureFlow 42.57 / 42.78 / 1.010 / 93.5 %,
    #   ITK MinMaxCurvatureFlow 33.84 / 33.90 / 1.306 / 97.0 %, TV (lam 0.354) 39.83 / 40.61 / 1.003 / 87.3 %.
    assert merit["noisy"]["psnr"] == pytest.approx(30.85, abs=0.05)
    mcf, willmore = merit["graph mean curvature"], merit["Willmore"]
    itk_flow, minmax, tv = merit["ITK CurvatureFlow"], merit["ITK MinMaxCurvatureFlow"], merit["TV"]
    # Fairing: the graph flows restore the smooth terrain best, and its area.
    assert mcf["psnr"] >= merit["noisy"]["psnr"] + 11.5 and willmore["psnr"] >= mcf["psnr"] + 1.0
    for other in (itk_flow, minmax, tv):
        assert min(mcf["psnr_smooth"], willmore["psnr_smooth"]) >= other["psnr_smooth"] + 2.0
    assert abs(mcf["area_ratio"] - 1) < 0.015 and abs(willmore["area_ratio"] - 1) < 0.005
    assert merit["noisy"]["area_ratio"] > 1.5 and minmax["area_ratio"] > 1.25
    # Edges: mean-curvature flow of the graph keeps the cliff least (the caveat); ITK's level-set flows
    # and TV keep more of it, Willmore flow in between.
    assert mcf["cliff_kept"] < 0.82 and mcf["cliff_kept"] < willmore["cliff_kept"] < itk_flow["cliff_kept"]
    assert tv["cliff_kept"] > mcf["cliff_kept"] + 0.05 and minmax["cliff_kept"] > 0.95
    for name in ("graph mean curvature", "Willmore"):
        assert reports[name]["time_reached"] == reports[name]["final_time"] and reports[name]["accepted_steps"] > 0
    assert reports["Willmore"]["final_time"] == 4.0 and result["itk_iterations"] == 16


@pytest.mark.parametrize("mass", ["lumped", "consistent"])
def test_poisson_nonuniform_mesh(tmp_path, mass):
    skimage_io = pytest.importorskip("skimage.io")
    example = load_example("poisson_nonuniform_mesh")
    output = tmp_path / "mesh.png"
    result = example.main(["--output", str(output), "--mass", mass, "--cells", "32,64,128"])

    # Second order on the graded mesh. Measured (lumped): errors 5.0e-3, 1.27e-3, 3.18e-4,
    # orders 1.982, 1.999 (consistent: 3.3e-3, 8.4e-4, 2.1e-4; 1.986, 1.994).
    assert len(result["orders"]) == 2
    for order in result["orders"]:
        assert 1.9 <= order <= 2.1
    assert result["errors"][-1] < 5e-4
    # The finest solve's report: its residual met its target, near float64's rounding floor.
    report = result["report"]
    assert report["relative_residual"] <= report["residual_target"]
    assert report["residual_target"] == pytest.approx(32 * report["rounding_floor"], abs=0)  # float64 data
    assert report["rounding_floor"] < 1e-12 and report["computed_in_double"] is False

    # The panel solution | |error| of the finest level, uint8 grey, 256 x 256 each.
    panel = skimage_io.imread(output)
    assert panel.shape == (256, 512) and panel.dtype == np.uint8
    solution, error = np.split(panel, 2, axis=1)
    assert solution.max() == 255 and error.max() == 255
    assert (solution == 0).mean() > 0.05  # the mesh lines


def test_statistical_tv_ct_study(tmp_path):
    """The CT study at a small size: the automatic lambda against the best lambda, as JSON."""
    pytest.importorskip("skimage.metrics")
    example = load_example("statistical_tv_ct_study")
    output = tmp_path / "study.json"
    result = example.main(["--size", "56", "--realisations", "0", "--search-steps", "5", "--backend", "cpu",
                           "--json", str(output)])
    assert output.exists() and json.loads(output.read_text())["rows"] == json.loads(json.dumps(result["rows"]))
    # Measured at 56^3 (6000 photons, 180 views): estimated mean variance +5 %, losses to the best lambda
    # 0.001-0.002 dB, every search on converged solves.
    assert result["estimated_mean_variance"] == pytest.approx(result["true_mean_variance"], rel=0.1)
    assert result["noise_estimation"]["gain_measured"]
    for row in result["rows"]:
        assert row["automatic"]["converged"] and row["automatic"]["largest_gap"] <= 1e-4, row["name"]
        assert row["loss_db"] < 0.05, row["name"]
    assert result["factor_one"]["psnr"] < result["rows"][0]["automatic"]["psnr"]


def test_l1mc_r0_calibration(tmp_path):
    """The r0 calibration at a small size: the rule's r0 against the PSNR-best r0 of a log grid, as JSON."""
    pytest.importorskip("skimage.data")
    example = load_example("l1mc_r0_calibration")
    output = tmp_path / "calibration.json"
    result = example.main(["--images", "camera,shapes", "--sigmas", "0.1", "--size", "48", "--steps", "4",
                           "--json", str(output)])
    assert result["ok"] and not result["failures"]
    assert json.loads(output.read_text())["rows"] == json.loads(json.dumps(result["rows"]))
    assert [(r["image"], r["noise"]) for r in result["rows"]] == [
        ("camera", "gaussian"), ("camera", "uniform"), ("shapes", "gaussian"), ("shapes", "uniform")]
    for row in result["rows"]:
        case, name = row["result"], f"{row['image']} {row['noise']}"
        psnrs = [g["psnr"] for g in case["grid"]]
        r0s = [g["r0"] for g in case["grid"]]
        # The climb stops at a peak of the grid, which the parabola's optimum can only improve on.
        best = int(np.argmax(psnrs))
        assert case["best_grid_r0"] == r0s[best] and 0 < best < len(psnrs) - 1, name
        assert case["optimal_psnr"] >= max(psnrs) >= case["rule_psnr"], name
        assert r0s[best - 1] <= case["optimal_r0"] <= r0s[best + 1], name
        # Measured at 48^2 (Gaussian / uniform): the optimum gains 5.5 / 5.6 (camera) and 6.0 / 7.3 dB
        # (shapes) over the noisy image; the rule's r0 loses 0.19 / 0.10 and 0.61 / 0.79 dB to it.
        assert case["optimal_psnr"] >= case["noisy_psnr"] + 5.0, name
        assert case["optimal_psnr"] - case["rule_psnr"] <= 1.0, name
        assert case["rule_r0"] == pytest.approx(0.005, rel=1e-12), name  # sigma 0.1: the rule's anchor
        assert case["sigma_given"]["r0"] == pytest.approx(
            0.005 * (0.1 / case["sigma_given"]["data_range"] / 0.1) ** 1.75, rel=1e-9), name
        assert case["sigma_estimated"]["sigma_estimated"] and not case["sigma_given"]["sigma_estimated"], name


def test_levellines_denoise_photo(tmp_path):
    skimage_io = pytest.importorskip("skimage.io")
    example = load_example("levellines_denoise_photo")
    output = tmp_path / "levellines.png"
    # The 256 x 256 photograph, a smaller TV sweep and no BM3D (not a test dependency), a 128 x 128 crop.
    result = example.main(["--output", str(output), "--size", "256", "--lams", "9,12,16", "--no-bm3d",
                           "--crop", "128", "--backend", "cpu"])

    # The panel noisy | level lines | hybrid | plain TV under title bars, uint8 grey.
    panel = skimage_io.imread(output)
    assert panel.shape == (128 + example.TITLE_HEIGHT, 4 * 128) and panel.dtype == np.uint8
    assert (panel[: example.TITLE_HEIGHT] < 128).any()  # the titles were drawn
    # Measured (seed 2026, sigma 25): noisy 20.60 dB, level lines 25.98, hybrid 25.82, TV (lam 16) 28.49.
    assert result["psnr_noisy"] == pytest.approx(20.60, abs=0.05)
    assert result["psnr_level_lines"] >= result["psnr_noisy"] + 5.0
    assert result["psnr_hybrid"] >= result["psnr_noisy"] + 4.8
    assert result["psnr_tv"] >= result["psnr_level_lines"] + 2.0
    assert result["psnr_bm3d"] is None


def test_levellines_compare_quick(tmp_path):
    """The peer benchmark's smoke run: every method gives a row with times and PSNRs (speed is not asserted)."""
    pytest.importorskip("SimpleITK")
    pytest.importorskip("skimage")
    module = load_bench_script("levellines_compare")
    result = module.main(["--quick", "--devices", "none", "--json", str(tmp_path / "compare.json")])
    assert json.loads((tmp_path / "compare.json").read_text())["benchmark"] == "levellines_compare"
    methods = [r["method"] for r in result["results"]]
    assert methods[:2] == ["level lines pipd", "level lines hybrid"]
    assert any(m.startswith("ITK median") for m in methods) and any(m.startswith("ITK bilateral") for m in methods)
    for row in result["results"]:
        assert row["ms"]["128"] > 0 and row["fps"] > 0
        assert row["psnr"]["camera"] > result["noisy_psnr"]["camera"]


def test_sparse_deblur_hubble(tmp_path):
    skimage_io = pytest.importorskip("skimage.io")
    pytest.importorskip("skimage.restoration")
    example = load_example("sparse_deblur_hubble")
    output = tmp_path / "hubble.png"
    # The 128 x 128 crop and 1000 iterations (the picture: 256 x 256, 3000 iterations, 42.34 dB against RL's 36.07).
    result = example.main(["--output", str(output), "--size", "128", "--iterations", "1000", "--backend", "cpu"])

    # The panel truth | blurred | Richardson-Lucy | compressed-sensing deblur under title bars, uint8 grey.
    panel = skimage_io.imread(output)
    assert panel.shape == (128 + example.TITLE_HEIGHT, 4 * 128) and panel.dtype == np.uint8
    assert (panel[: example.TITLE_HEIGHT] < 128).any()  # the titles were drawn
    # Measured (seed 2009, PSF sigma 2, m = n / 2): 10.0 % nonzero, blurred 28.34 dB, Richardson-Lucy 36.81 dB
    # (its best, 200 iterations), compressed-sensing deblur 40.89 dB from half the measurements.
    assert result["nonzero"] == pytest.approx(0.10, abs=0.002)
    assert result["psnr_blurred"] == pytest.approx(28.34, abs=0.05)
    assert result["psnr_rl"] >= result["psnr_blurred"] + 8.0
    assert result["psnr_cs"] >= 40.5
    assert result["psnr_cs"] >= result["psnr_rl"] + 3.5
    report = result["report"]
    assert report["measurements"] == 128 * 128 // 2 and report["iterations"] == 1000 and report["solver"] == "FISTA"
