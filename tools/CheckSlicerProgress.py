#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks a command-line tool's progress reporting, as 3D Slicer and a terminal see it.

CheckSlicerProgress.py --program NAME [--terminal] [--min-progress N] [--summary REGEX] -- TOOL ARGS...

Default (Slicer mode): runs TOOL ARGS with stdout and stderr on pipes, as
Slicer runs an executable CLI module, and fails unless it exits with 0 and
  - stdout holds exactly one <filter-start> (with a filter-name and a
    filter-comment), as the first progress line, and exactly one <filter-end>
    (same filter-name, a filter-time >= 0), as the last;
  - between them at least N (default 5) <filter-progress> lines whose values
    are in [0, 1], never decrease, end at 1, and are throttled (at most one per
    1 % plus one per 0.1 s of the run);
  - the summary line "NAME: ..." is on stdout (and matches REGEX if given);
  - stderr is empty: no progress bar, no carriage return (Slicer logs every
    stderr line as an error; the runs tested here end without warnings).
--terminal: runs TOOL ARGS with stdout and stderr on a pseudo-terminal and
fails unless it exits with 0, draws the bar ("\\r[###...]  NN%") and prints no
<filter-...> line.
"""

import argparse
import os
import pty
import re
import subprocess
import sys
import time

START = re.compile(r"^<filter-start><filter-name>([^<]+)</filter-name>"
                   r"<filter-comment>([^<]*)</filter-comment></filter-start>$")
PROGRESS = re.compile(r"^<filter-progress>([^<]+)</filter-progress>$")
END = re.compile(r"^<filter-end><filter-name>([^<]+)</filter-name>"
                 r"<filter-time>([^<]+)</filter-time></filter-end>$")


def run_on_terminal(command):
    master, slave = pty.openpty()
    tool = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    text = bytearray()
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the tool closed the terminal
            break
        if not chunk:
            break
        text.extend(chunk)
    os.close(master)
    return tool.wait(), text.decode(errors="replace")


def check_terminal(options, command):
    code, text = run_on_terminal(command)
    print("exit code %d; terminal output:\n%s" % (code, text.replace("\r", "\\r")))
    problems = []
    if code != 0:
        problems.append("expected exit code 0, got %d" % code)
    if not re.search(r"\r\[[#.]{40}\] +\d+%", text):
        problems.append("no progress bar on the terminal")
    if "<filter-" in text:
        problems.append("Slicer progress lines on a terminal")
    if not re.search(r"(^|\n)%s: " % re.escape(options.program), text):
        problems.append("no summary line '%s: ...'" % options.program)
    return problems


def check_slicer(options, command):
    start = time.monotonic()
    tool = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.monotonic() - start
    stdout = tool.stdout.decode(errors="replace")
    stderr = tool.stderr.decode(errors="replace")
    print("exit code %d after %.2f s\nstdout:\n%s\nstderr:\n%s" % (tool.returncode, elapsed, stdout, stderr))
    problems = []
    if tool.returncode != 0:
        problems.append("expected exit code 0, got %d" % tool.returncode)
    lines = stdout.split("\n")
    tagged = [line for line in lines if line.startswith("<filter-")]
    starts = [line for line in tagged if START.match(line)]
    ends = [line for line in tagged if END.match(line)]
    progress = [line for line in tagged if PROGRESS.match(line)]
    if len(starts) + len(ends) + len(progress) != len(tagged):
        problems.append("malformed <filter-...> lines: %s"
                        % [line for line in tagged if line not in starts + ends + progress])
    if len(starts) != 1 or not tagged or tagged[0] != starts[0]:
        problems.append("expected exactly one <filter-start>, as the first progress line")
    if len(ends) != 1 or not tagged or tagged[-1] != ends[0]:
        problems.append("expected exactly one <filter-end>, as the last progress line")
    if len(starts) == 1 and len(ends) == 1:
        name = START.match(starts[0]).group(1)
        end_name, seconds = END.match(ends[0]).groups()
        if end_name != name:
            problems.append("<filter-end> names %s, <filter-start> %s" % (end_name, name))
        try:
            if not float(seconds) >= 0.0:
                problems.append("<filter-time> %s is not >= 0" % seconds)
        except ValueError:
            problems.append("<filter-time> %s is not a number" % seconds)
    try:
        values = [float(PROGRESS.match(line).group(1)) for line in progress]
    except ValueError:
        values = []
        problems.append("a <filter-progress> value is not a number")
    if len(values) < options.min_progress:
        problems.append("%d <filter-progress> lines, expected at least %d" % (len(values), options.min_progress))
    if any(not 0.0 <= v <= 1.0 for v in values):
        problems.append("a <filter-progress> value outside [0, 1]")
    if any(b < a for a, b in zip(values, values[1:])):
        problems.append("<filter-progress> decreases")
    if values and values[-1] != 1.0:
        problems.append("<filter-progress> ends at %g, not 1" % values[-1])
    if len(values) > 100 + 10 * elapsed + 2:
        problems.append("%d <filter-progress> lines in %.2f s: not throttled" % (len(values), elapsed))
    summary = [line for line in lines if line.startswith(options.program + ": ")]
    if not summary:
        problems.append("no summary line '%s: ...' on stdout" % options.program)
    elif options.summary and not re.search(options.summary, summary[0]):
        problems.append("the summary line does not match '%s'" % options.summary)
    if "\r" in stderr:
        problems.append("a carriage return (progress bar) on stderr, which is not a terminal")
    if stderr:
        problems.append("stderr is not empty")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--program", required=True)
    parser.add_argument("--terminal", action="store_true")
    parser.add_argument("--min-progress", type=int, default=5)
    parser.add_argument("--summary", help="a regular expression the summary line must match")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    problems = check_terminal(options, command) if options.terminal else check_slicer(options, command)
    if problems:
        sys.exit("\n".join(problems))


if __name__ == "__main__":
    main()
