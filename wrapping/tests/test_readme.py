# SPDX-License-Identifier: Apache-2.0
"""The Python snippets of README.md, the user guides docs/*.md and wrapping/README.md run as shown.

Every ```python block of those documents is tested, and must be marked by the line
``<!-- tested: python <name> -->`` before it (the C++ and shell blocks are run by
CTest, see test/ReadmeSnippets.cmake). A block runs as it stands, with nothing
defined beforehand, in a folder holding the file the C++ and shell snippets read
too: ``noisy.nrrd``, a noisy 3D phantom (values in [0, 1], noise sigma 0.15) with
non-trivial spacing, origin and direction. The variables it assigns are then
checked: ``u`` a denoised array, ``img`` a denoised SimpleITK image with the
metadata of the ``image`` it read, ``report`` the solver's report (for gradient
descent: the target reached at discrepancy 1 +- 0.1); a block that makes its own
data names the noise-free image ``clean`` and the noisy one ``noisy``. The
``poisson`` and ``separable`` blocks solve rather than denoise, and the ``tv_hu`` block
denoises CT in HU, whose FBP error bounds the PSNR gain, and the 2D ``l1mc`` block reports no
gap: the ``check_readme_snippet`` of test_poisson.py, test_separable.py, test_noise_level.py and
test_l1_mean_curvature.py check what they assign; the ``levellines`` block (a photograph on the 0-255
scale) is checked by test_level_lines.py, the ``sparse`` block (stars recovered and deblurred from compressed
measurements) by test_sparse_recovery.py, the ``flow`` and ``flow_image`` blocks (curvature flows of height maps,
which smooth rather than denoise to a gap) by test_curvature_flow.py.
"""

import re
from pathlib import Path

import numpy as np
import pytest

import itkgpurestoration as igr
from conftest import phantom, psnr
from test_curvature_flow import check_readme_snippet as check_flow_snippet
from test_poisson import check_readme_snippet as check_poisson_snippet
from test_l1_mean_curvature import check_readme_snippet as check_l1mc_snippet
from test_level_lines import check_readme_snippet as check_level_lines_snippet
from test_noise_level import check_readme_snippet as check_hounsfield_snippet
from test_separable import check_readme_snippet as check_separable_snippet
from test_sparse_recovery import check_readme_snippet as check_sparse_snippet

REPOSITORY = Path(__file__).resolve().parents[2]
READMES = [REPOSITORY / "README.md", REPOSITORY / "wrapping" / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
MARKED_BLOCK = re.compile(r"^<!-- tested: python (\w+) -->\n```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_blocks():
    blocks = []
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        found = MARKED_BLOCK.findall(text)
        markers = re.findall(r"^<!-- tested: python ", text, re.MULTILINE)
        # A marker whose block does not follow the pattern would silently test nothing,
        # and every Python block is tested.
        assert len(found) == len(markers), f"{readme}: a python marker is not followed by a ```python block"
        fences = re.findall(r"^```python", text, re.MULTILINE)
        assert len(fences) == len(found), f"{readme}: a ```python block has no '<!-- tested: python NAME -->' line"
        label = readme.relative_to(REPOSITORY).as_posix()
        blocks += [pytest.param(readme, name, code, id=f"{label}:{name}") for name, code in found]
    return blocks


BLOCKS = readme_blocks()


def test_the_package_readme_has_a_tested_python_block():
    assert REPOSITORY / "wrapping" / "README.md" in {readme for readme, _, _ in (b.values for b in BLOCKS)}



@pytest.fixture
def inputs(tmp_path, monkeypatch):
    """The folder the snippets run in, holding noisy.nrrd; (SimpleITK, truth, the image written)."""
    sitk = pytest.importorskip("SimpleITK")
    truth, noisy = phantom((16, 40, 36), sigma=0.15, seed=3, dtype=np.float32)
    image = sitk.GetImageFromArray(noisy)
    image.SetSpacing((0.9, 0.9, 1.2))
    image.SetOrigin((-16.0, 8.5, 120.0))
    image.SetDirection((0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    sitk.WriteImage(image, str(tmp_path / "noisy.nrrd"))
    monkeypatch.chdir(tmp_path)
    return sitk, truth, image


@pytest.mark.parametrize("readme, name, code", BLOCKS)
def test_readme_python_block(readme, name, code, inputs):
    sitk, truth, sitk_image = inputs
    namespace = {}
    exec(compile(code, f"{readme}:{name}", "exec"), namespace)
    if name == "poisson":
        check_poisson_snippet(namespace, sitk)
        return
    if name == "separable":
        check_separable_snippet(namespace)
        return
    if name == "tv_hu":
        check_hounsfield_snippet(namespace)
        return
    if name == "l1mc":
        check_l1mc_snippet(namespace)
        return
    if name == "levellines":
        check_level_lines_snippet(namespace)
        return
    if name == "sparse":
        check_sparse_snippet(namespace)
        return
    if name in ("flow", "flow_image"):
        check_flow_snippet(name, namespace)
        return
    if "clean" in namespace:  # the block made its own data
        truth, noisy = namespace["clean"], namespace["noisy"]
    else:
        noisy = sitk.GetArrayFromImage(sitk_image)
        if "noisy" in namespace:  # the block's array of noisy.nrrd: the solves left it as it was
            np.testing.assert_array_equal(namespace["noisy"], noisy)
    before = psnr(noisy, truth)

    assigned = {k for k in namespace if k in ("u", "img", "report")}
    assert assigned, f"block {name} assigns none of u, img, report"
    if "u" in namespace:
        u = namespace["u"]
        assert isinstance(u, np.ndarray) and u.shape == noisy.shape
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


def heading_anchors(text):
    """GitHub's anchors of a Markdown document's headings: lower case, punctuation dropped, spaces to '-'."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("document", READMES, ids=lambda p: p.relative_to(REPOSITORY).as_posix())
def test_documentation_links_resolve(document):
    """Every relative link and picture of the documents names a file (and heading) that exists."""
    text = document.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        assert linked.exists(), f"{document.name}: link to {target}: no such file"
        if anchor:
            assert anchor in heading_anchors(linked.read_text(encoding="utf-8")), f"{document.name}: no heading #{anchor}"
