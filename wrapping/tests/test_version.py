# SPDX-License-Identifier: Apache-2.0
"""The version has one source: the project() line of the root CMakeLists.txt."""
import importlib.metadata
import re
from pathlib import Path

import itkgpurestoration


def test_version_comes_from_the_root_cmakelists():
    text = (Path(__file__).resolve().parents[2] / "CMakeLists.txt").read_text()
    version = re.search(r"project\(ITKGPURestoration VERSION ([0-9][0-9.]*)", text).group(1)
    assert itkgpurestoration.__version__ == version
    assert importlib.metadata.version("itkgpurestoration") == version
