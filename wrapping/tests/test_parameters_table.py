# SPDX-License-Identifier: Apache-2.0
"""Keeps docs/parameters.md true: its names and defaults against the Python signatures, the tools'
--help and the filters' headers, and every keyword, option and setter in a row.

A table column is checked when its header names its target in a code span: "Python `denoise_tv`",
"C++ `itk::TotalVariationDenoisingImageFilter`", "CLI `itkgpurestoration-tv`". Every code span in
such a column's cells is a claim: `name=default` or `name` (Python), `SetName(default)` or `GetName()`
(C++), `--option default` or `--option` (CLI). The tools are looked for in $ITKGPUR_TOOLS_DIR, the
repository's build*/bin and PATH; a CLI column is skipped when its tool is not built.
"""

import ast
import inspect
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import itkgpurestoration as igr

ROOT = Path(__file__).resolve().parents[2]
TABLE_FILE = ROOT / "docs" / "parameters.md"
# Methods the filters inherit from ITK (itk::ProcessObject, itk::Object), not declared in our headers.
ITK_METHODS = {"SetInput", "SetNumberOfWorkUnits", "AddObserver", "AbortGenerateDataOn"}


def read_tables(text):
    """[(header cells, rows of cells)] of every Markdown table in text."""
    tables, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|(\s*-+\s*\|)+\s*$", lines[i + 1]):
            header = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            tables.append((header, rows))
        else:
            i += 1
    return tables


def spans(cell):
    return re.findall(r"`([^`]+)`", cell)


def columns(surface):
    """(target, [(setting, cell)]) of every checked column of that surface ("Python", "C++", "CLI")."""
    if not TABLE_FILE.exists():
        return []
    found = []
    for header, rows in read_tables(TABLE_FILE.read_text(encoding="utf-8")):
        for k, title in enumerate(header):
            names = spans(title)
            if title.startswith(surface + " ") and names:
                found.append((names[0], [(row[0], row[k]) for row in rows if len(row) == len(header)]))
    return found


def ids(found):
    return [target for target, _ in found]


PYTHON = columns("Python")
CPP = columns("C++")
CLI = columns("CLI")


def test_the_table_is_there():
    if not TABLE_FILE.exists():
        pytest.skip("docs/parameters.md is not part of this checkout")
    assert {"denoise_tv", "denoise_statistical_tv", "solve_poisson", "PoissonSolver", "SeparableSolver",
            "denoise_tv_dask", "estimate_noise_variance"} <= set(ids(PYTHON))
    assert {"itk::TotalVariationDenoisingImageFilter", "itk::StatisticalTVImageFilter",
            "itk::PSCRPoissonSolver"} <= set(ids(CPP))
    assert {"itkgpurestoration-tv", "itkgpurestoration-stv", "itkgpurestoration-poisson",
            "itkgpurestoration-devices"} <= set(ids(CLI))


def python_value(text):
    try:
        return ast.literal_eval(text)
    except ValueError:
        return eval(text, {"__builtins__": {}, "numpy": np})  # e.g. numpy.float64


@pytest.mark.parametrize("target, cells", PYTHON, ids=ids(PYTHON))
def test_python_names_and_defaults(target, cells):
    parameters = inspect.signature(getattr(igr, target)).parameters
    documented = set()
    for setting, cell in cells:
        for claim in spans(cell):
            name, _, default = claim.partition("=")
            assert name in parameters, f"{target} has no parameter {name!r} (row {setting!r})"
            documented.add(name)
            expected = parameters[name].default
            if default:
                assert expected is not inspect.Parameter.empty, f"{target}({name}) has no default"
                assert python_value(default) == expected, f"{target}({name}) defaults to {expected!r}, not {default}"
            else:
                assert expected is inspect.Parameter.empty, f"{target}({name}) has a default, {expected!r}"
    missing = set(parameters) - documented
    assert not missing, f"parameters of {target} without a row in docs/parameters.md: {sorted(missing)}"


def find_tool(name):
    if os.environ.get("ITKGPUR_TOOLS_DIR"):
        candidate = Path(os.environ["ITKGPUR_TOOLS_DIR"]) / name
        return candidate if candidate.exists() else None
    for folder in sorted(ROOT.glob("build*/bin")):
        if (folder / name).exists():
            return folder / name
    found = shutil.which(name)
    return Path(found) if found else None


def help_entries(tool):
    """{option: its --help text} from the tool's --help."""
    text = subprocess.run([str(tool), "--help"], capture_output=True, text=True, timeout=60, check=True).stdout
    entries, current = {}, None
    for line in text.splitlines():
        match = re.match(r"^  (--[\w-]+)", line)
        if match:
            current = match.group(1)
            entries[current] = line
        elif current and line.startswith("    "):
            entries[current] += " " + line.strip()
        else:
            current = None
    return entries


def same_value(documented, actual):
    try:
        return float(documented) == float(actual)
    except ValueError:
        return documented == actual


@pytest.mark.parametrize("target, cells", CLI, ids=ids(CLI))
def test_cli_options_and_defaults(target, cells):
    tool = find_tool(target)
    if tool is None:
        pytest.skip(f"{target} is not built (set ITKGPUR_TOOLS_DIR to its folder)")
    entries = help_entries(tool)
    documented = set()
    for setting, cell in cells:
        for claim in spans(cell):
            if not claim.startswith("--"):
                continue  # <input>, [selection]: positional arguments
            option, _, default = claim.partition(" ")
            assert option in entries, f"{target} --help has no {option} (row {setting!r})"
            documented.add(option)
            if default:
                shown = re.search(r"\[default: ([^\]]*)\]", entries[option])
                assert shown, f"{target} --help shows no default for {option}"
                assert same_value(default, shown.group(1)), f"{target} {option} defaults to {shown.group(1)}"
    missing = set(entries) - documented - {"--help"}
    assert not missing, f"options of {target} without a row in docs/parameters.md: {sorted(missing)}"


def headers():
    return list(ROOT.glob("include/itk*.h")) + list(ROOT.glob("Modules/*/include/itk*.h"))


def public_part(header_text, cls):
    """The public declarations of class cls (comments removed), and the name of its base class."""
    text = re.sub(r"/\*.*?\*/", "", header_text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    start = re.search(r"\bclass\s+" + cls + r"\s*:\s*public\s+(\w+)", text)
    assert start, f"class {cls} not found"
    body = text[start.end():]
    end = re.search(r"\n\s*(protected|private)\s*:", body)
    members = re.findall(r"\bm_(\w+)\s*\{([^}]*)\}", body)
    return body[: end.start()] if end else body, start.group(1), dict(members)


def class_chain(cls):
    """[(public declarations, {member: initialiser})] of cls and its bases that are ours."""
    chain = []
    while True:
        header = next((h for h in headers() if re.search(r"\bclass\s+" + cls + r"\s*:", h.read_text(encoding="utf-8"))), None)
        if header is None:
            return chain
        public, base, members = public_part(header.read_text(encoding="utf-8"), cls)
        chain.append((public, members))
        cls = base


def setters(public):
    return set(re.findall(r"itkSet\w*Macro\((\w+)", public)) | set(re.findall(r"\bSet(\w+)\s*\(", public))


def getters(public):
    return set(re.findall(r"itkGet\w*Macro\((\w+)", public)) | set(re.findall(r"\bGet(\w+)\s*\(", public))


def same_initialiser(documented, initialiser):
    initialiser = initialiser.strip()
    if "(" in initialiser:
        return True  # not a literal (e.g. the engine's default): not checked here
    if "::" in initialiser:
        return initialiser.endswith("::" + documented)
    return same_value(documented, initialiser)


@pytest.mark.parametrize("target, cells", CPP, ids=ids(CPP))
def test_cpp_setters_and_defaults(target, cells):
    chain = class_chain(target.split("::")[-1])
    assert chain, f"no header declares {target}"
    all_setters = set().union(*(setters(public) for public, _ in chain))
    all_getters = set().union(*(getters(public) for public, _ in chain))
    members = {}
    for _, m in reversed(chain):
        members.update(m)
    documented = set()
    for setting, cell in cells:
        for claim in spans(cell):
            match = re.match(r"^(Set|Get|Add|Abort)(\w+)\((.*)\)$", claim)
            assert match, f"{target}: {claim!r} is not a method call (row {setting!r})"
            method, name, argument = match.group(1) + match.group(2), match.group(2), match.group(3)
            if method in ITK_METHODS:
                continue
            if match.group(1) == "Get":
                assert name in all_getters, f"{target} has no Get{name}"
                continue
            assert name in all_setters, f"{target} has no Set{name} (row {setting!r})"
            documented.add(name)
            if name in members:
                assert same_initialiser(argument.strip('"'), members[name]), (
                    f"{target}: m_{name} starts as {members[name]!r}, the table says {argument}"
                )
    missing = all_setters - documented
    assert not missing, f"setters of {target} without a row in docs/parameters.md: {sorted(missing)}"
