# SPDX-License-Identifier: Apache-2.0
"""Checks the 3D Slicer Execution Model description printed by `<tool> --xml`.

usage: python3 CheckSlicerXML.py <itkgpurestoration-tv|itkgpurestoration-stv>

Asserts the elements Slicer needs to load the program as a CLI module
(executable, title, description, parameters groups with label and description;
every parameter has a name, a label or description and a longflag/flag or an
index; at least one input and one output image with a channel and an index,
indices 0, 1, ...; other images, such as an optional input, have a channel and
a flag instead of an index), and
that every longflag is a real option of the tool (it appears in --help) and
every enumeration default is one of its elements. Standard library only.
"""
import subprocess
import sys
import xml.etree.ElementTree as ET

PARAMETER_TAGS = {
    "integer", "float", "double", "boolean", "string", "integer-vector", "float-vector",
    "double-vector", "string-vector", "integer-enumeration", "float-enumeration",
    "double-enumeration", "string-enumeration", "point", "pointfile", "region", "file",
    "directory", "image", "geometry", "transform", "table", "measurement",
}
errors = []


def check(condition, what):
    if not condition:
        errors.append(what)


def text(element, tag):
    child = element.find(tag)
    return (child.text or "").strip() if child is not None else ""


tool = sys.argv[1]
run = subprocess.run([tool, "--xml"], capture_output=True, text=True)
check(run.returncode == 0, f"--xml exited with {run.returncode}: {run.stderr.strip()}")
help_text = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
root = ET.fromstring(run.stdout)  # raises on malformed XML

check(root.tag == "executable", f"root element is <{root.tag}>, not <executable>")
for tag in ("category", "title", "description", "version", "contributor"):
    check(text(root, tag) != "", f"<executable> lacks a non-empty <{tag}>")
groups = root.findall("parameters")
check(len(groups) > 0, "no <parameters> group")
images = {"input": [], "output": []}
names = set()
for group in groups:
    check(text(group, "label") != "", "a <parameters> group has no <label>")
    check(text(group, "description") != "", "a <parameters> group has no <description>")
    for p in group:
        if p.tag in ("label", "description"):
            continue
        check(p.tag in PARAMETER_TAGS, f"unknown parameter type <{p.tag}>")
        name = text(p, "name")
        check(name.isidentifier(), f"<{p.tag}> has no valid <name> ('{name}')")
        check(name not in names, f"duplicate parameter name '{name}'")
        names.add(name)
        check(text(p, "label") or text(p, "description"), f"'{name}' has no <label> or <description>")
        longflag, flag, index = text(p, "longflag"), text(p, "flag"), text(p, "index")
        check(longflag or flag or index, f"'{name}' has no <longflag>, <flag> or <index>")
        if index:
            check(index.isdigit(), f"'{name}': <index> '{index}' is not a number")
        if longflag:
            real = "--" + longflag.lstrip("-")
            check((real + " ") in help_text or (real + "\n") in help_text,
                  f"'{name}': {real} is not an option of the tool (not in --help)")
        if p.tag.endswith("-enumeration"):
            elements = [(e.text or "").strip() for e in p.findall("element")]
            check(len(elements) > 0, f"'{name}' has no <element>")
            check(text(p, "default") in elements, f"'{name}': default is not one of {elements}")
        if p.tag == "image":
            channel = text(p, "channel")
            check(channel in images, f"image '{name}' has no input/output <channel>")
            check(index != "" or longflag or flag, f"image '{name}' has no <index>, <longflag> or <flag>")
            if index:
                images.setdefault(channel, []).append(int(index) if index.isdigit() else -1)
check(len(images["input"]) >= 1, "no indexed input <image>")
check(len(images["output"]) >= 1, "no indexed output <image>")
indices = sorted(images["input"] + images["output"])
check(indices == list(range(len(indices))), f"image indices {indices} are not 0, 1, ...")

if errors:
    print("Slicer XML check FAILED:\n  " + "\n  ".join(errors))
    sys.exit(1)
print(f"Slicer XML OK: {len(names)} parameters in {len(groups)} groups")
