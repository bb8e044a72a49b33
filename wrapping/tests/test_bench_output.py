# SPDX-License-Identifier: Apache-2.0
"""bench/bench_output.py: the benchmark scripts' outputs appear under their final name only complete."""

import json
import os
import subprocess
import sys

import pytest

from conftest import BENCH, load_bench_script


@pytest.fixture
def output():
    return load_bench_script("bench_output")


def test_written_file_appears_whole_without_temporary(output, tmp_path):
    path = tmp_path / "result.json"
    output.write_json(path, {"a": [1, 2.5]})
    assert json.loads(path.read_text()) == {"a": [1, 2.5]}
    assert os.listdir(tmp_path) == ["result.json"]
    with output.open_output(path, encoding="utf-8") as stream:  # over an existing file, as text
        assert sorted(os.listdir(tmp_path)) == ["result.json", f"result.json.partial-{os.getpid()}"]
        stream.write("| table |\n")
    assert path.read_text(encoding="utf-8") == "| table |\n"
    assert os.listdir(tmp_path) == ["result.json"]


def test_failure_leaves_no_temporary_and_the_old_file(output, tmp_path):
    path = tmp_path / "result.json"
    with pytest.raises(RuntimeError, match="a run failed"):
        with output.open_output(path) as stream:
            stream.write('{"runs": [')
            raise RuntimeError("a run failed")
    assert os.listdir(tmp_path) == []
    path.write_text("old")
    with pytest.raises(TypeError):
        output.write_json(path, {"not JSON": object()})  # fails half-way through json.dump
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["result.json"]


def test_missing_folder_raises(output, tmp_path):
    with pytest.raises(FileNotFoundError):
        output.write_json(tmp_path / "no such folder" / "result.json", {})
    assert os.listdir(tmp_path) == []


def test_scripts_import_it_when_run_as_scripts(output):
    """``python3 bench/x.py`` finds bench_output beside it (the tests above load it through conftest's sys.path)."""
    done = subprocess.run([sys.executable, str(BENCH / "levellines_compare.py"), "--help"], capture_output=True,
                          text=True, cwd=BENCH.parent, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "--json" in done.stdout
