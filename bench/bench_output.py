# SPDX-License-Identifier: Apache-2.0
"""Output files of the benchmark scripts that appear under their final name only complete.

The Python side of gpur::bench::OutputFile (bench/gpurBench.h): what is written goes to "<path>.partial-<pid>" in
path's folder, is flushed to the disk (os.fsync) and then renamed onto path (os.replace, atomic within one folder);
when writing fails, the temporary is removed and path is left as it was. A script run as ``python3 bench/x.py``
imports this module from its own folder; wrapping/tests/conftest.py::load_bench_script puts bench/ on sys.path.
"""

import contextlib
import json
import os


@contextlib.contextmanager
def open_output(path, mode="w", **kwargs):
    """open(path, mode, **kwargs) for writing, through a temporary that replaces path only when the block succeeds."""
    partial = f"{os.fspath(path)}.partial-{os.getpid()}"
    try:
        with open(partial, mode, **kwargs) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(partial)
        raise


def write_json(path, data, indent=1):
    """json.dump(data) as the file path, through open_output: path holds the whole document or is left as it was."""
    with open_output(path) as stream:
        json.dump(data, stream, indent=indent)
