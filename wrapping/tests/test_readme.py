# SPDX-License-Identifier: Apache-2.0
"""The Python snippets of README.md and wrapping/README.md run as written.

A fenced block is tested when the line before it is ``<!-- tested: python <name> -->``
(the C++ and shell blocks are run by CTest, see test/ReadmeSnippets.cmake). Each
block runs with ``noisy`` (a noisy 3D phantom, float32 NumPy array) and
``sitk_image`` (the same as a SimpleITK image with non-trivial spacing, origin and
direction) defined; the variables it assigns are then checked: ``u`` a denoised
array, ``img`` a denoised SimpleITK image with the input's metadata, ``report``
the solver's report (for gradient descent: the target reached at discrepancy 1 +- 0.1).
The ``poisson`` and ``separable`` blocks solve rather than denoise: the
``check_readme_snippet`` of test_poisson.py and test_separable.py check what they assign.

On a machine without a GPU, ``device="gpu"`` is replaced by the first OpenCL
device there is (PoCL's CPU device on the test machines), and without any OpenCL
device ``backend="opencl"`` by ``backend="cpu"``: the call is otherwise the one
the README shows.
"""

import re
from pathlib import Path

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom, psnr
from test_poisson import check_readme_snippet as check_poisson_snippet
from test_separable import check_readme_snippet as check_separable_snippet

REPOSITORY = Path(__file__).resolve().parents[2]
READMES = [REPOSITORY / "README.md", REPOSITORY / "wrapping" / "README.md"]
MARKED_BLOCK = re.compile(r"^<!-- tested: python (\w+) -->\n```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_blocks():
    blocks = []
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        found = MARKED_BLOCK.findall(text)
        markers = re.findall(r"^<!-- tested: python ", text, re.MULTILINE)
        # A marker whose block does not follow the pattern would silently test nothing.
        assert len(found) == len(markers), f"{readme}: a python marker is not followed by a ```python block"
        label = readme.relative_to(REPOSITORY).as_posix()
        blocks += [pytest.param(readme, name, code, id=f"{label}:{name}") for name, code in found]
    return blocks


BLOCKS = readme_blocks()


def test_every_readme_has_a_tested_python_block():
    assert {readme for readme, _, _ in (b.values for b in BLOCKS)} == set(READMES)


def fit_to_machine(code):
    """The README's device choices, mapped onto the devices this machine has."""
    devices = igr.list_devices()
    if not devices:
        code = re.sub(r'backend="opencl"', 'backend="cpu"', code)
        return re.sub(r',\s*device="[^"]*"', "", code)
    if not any(d["type"] == "gpu" for d in devices):
        code = code.replace('device="gpu"', f'device="{devices[0]["index"]}"')
    return code


@pytest.fixture
def inputs():
    sitk = pytest.importorskip("SimpleITK")
    truth, noisy = phantom((16, 40, 36), sigma=0.15, seed=3, dtype=np.float32)
    image = sitk.GetImageFromArray(noisy)
    image.SetSpacing((0.9, 0.9, 1.2))
    image.SetOrigin((-16.0, 8.5, 120.0))
    image.SetDirection((0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    return sitk, truth, noisy, image


@pytest.mark.parametrize("readme, name, code", BLOCKS)
def test_readme_python_block(readme, name, code, inputs):
    sitk, truth, noisy, sitk_image = inputs
    before = psnr(noisy, truth)
    namespace = {"noisy": noisy.copy(), "sitk_image": sitk_image}
    exec(compile(fit_to_machine(code), f"{readme}:{name}", "exec"), namespace)
    if name == "poisson":
        check_poisson_snippet(namespace, sitk, sitk_image)
        return
    if name == "separable":
        check_separable_snippet(namespace)
        return

    assigned = {k for k in namespace if k in ("u", "img", "report")}
    assert assigned, f"block {name} assigns none of u, img, report"
    if "u" in namespace:
        u = namespace["u"]
        assert isinstance(u, np.ndarray) and u.shape == noisy.shape and u.dtype == noisy.dtype
        assert psnr(u, truth) > before + 6.0, (before, psnr(u, truth))
    if "img" in namespace:
        img = namespace["img"]
        assert isinstance(img, sitk.Image)
        assert img.GetSize() == sitk_image.GetSize()
        assert img.GetSpacing() == sitk_image.GetSpacing()
        assert img.GetOrigin() == sitk_image.GetOrigin()
        assert img.GetDirection() == sitk_image.GetDirection()
        assert psnr(sitk.GetArrayFromImage(img), truth) > before + 6.0
    if "report" in namespace:
        report = namespace["report"]
        assert report["iterations"] >= 1 and report["backend"] in ("CPU", "OpenCL")
        if "target_reached" in report:  # denoise_statistical_tv's gradient descent: no gap, a target
            assert report["target_reached"] and report["discrepancy"] == pytest.approx(1.0, abs=0.1)
        else:
            assert report["relative_gap"] >= 0 and len(report["gap_history"]) >= 1
    # The input is not modified.
    np.testing.assert_array_equal(namespace["noisy"], noisy)
