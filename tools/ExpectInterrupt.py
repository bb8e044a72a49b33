#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Interrupts a command-line tool mid-run and checks that it cleans up.

ExpectInterrupt.py --program NAME --signal INT|TERM|HUP --phase compute|write --output FILE -- TOOL ARGS...

Starts TOOL ARGS (whose output file is FILE), waits for the phase, sends the
signal and fails unless the tool exits with 128 + the signal's number, its last
stderr line is "NAME: interrupted by SIG<signal>", and neither FILE nor a
temporary of it (<stem>.partial-*) is left in FILE's folder. The phases:
  compute  a <filter-progress> line has appeared on stdout (the filter is
           running; stdout is a pipe here, so the tool reports progress the
           3D Slicer way, gpurCommandLineITK.h);
  write    the temporary folder of FILE exists (the output is being written:
           the input must be large enough that this lasts, e.g. a 160^3 volume
           written as .nii.gz takes about a second).
A run that ends before the phase is reached, or takes longer than --timeout
seconds, fails.
"""

import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import threading
import time


def temporaries(output):
    folder = os.path.dirname(output) or "."
    stem = os.path.basename(output).split(".")[0]
    return glob.glob(os.path.join(folder, stem + ".partial-*"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--program", required=True)
    parser.add_argument("--signal", required=True, choices=["INT", "TERM", "HUP"])
    parser.add_argument("--phase", required=True, choices=["compute", "write"])
    parser.add_argument("--output", required=True)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    signo = getattr(signal, "SIG" + options.signal)

    folder = os.path.dirname(options.output) or "."
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)

    tool = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout = bytearray()
    stderr = bytearray()

    def collect(stream, into):
        while True:
            chunk = stream.read1(4096)
            if not chunk:
                return
            into.extend(chunk)

    readers = [threading.Thread(target=collect, args=(tool.stdout, stdout), daemon=True),
               threading.Thread(target=collect, args=(tool.stderr, stderr), daemon=True)]
    for reader in readers:
        reader.start()

    def reached():
        if options.phase == "compute":
            return b"<filter-progress>" in stdout
        return bool(temporaries(options.output))

    start = time.monotonic()
    while not reached():
        if tool.poll() is not None:
            for reader in readers:
                reader.join()
            sys.exit("the run ended (exit code %d) before the %s phase; stderr: %s"
                     % (tool.returncode, options.phase, stderr.decode(errors="replace")))
        if time.monotonic() - start > options.timeout:
            tool.kill()
            sys.exit("the %s phase was not reached in %g s" % (options.phase, options.timeout))
        time.sleep(0.002)
    waited = time.monotonic() - start
    tool.send_signal(signo)
    try:
        code = tool.wait(timeout=options.timeout)
    except subprocess.TimeoutExpired:
        tool.kill()
        sys.exit("the tool did not end within %g s of SIG%s" % (options.timeout, options.signal))
    for reader in readers:
        reader.join()
    text = stderr.decode(errors="replace")
    lines = [line for line in text.replace("\r", "\n").split("\n") if line.strip()]
    last = lines[-1] if lines else ""
    print("SIG%s after %.2f s (%s phase): exit code %d, last stderr line '%s'"
          % (options.signal, waited, options.phase, code, last))

    problems = []
    if code != 128 + signo:
        problems.append("expected exit code %d, got %d" % (128 + signo, code))
    expected = "%s: interrupted by SIG%s" % (options.program, options.signal)
    if last != expected:
        problems.append("expected the last stderr line '%s'" % expected)
    if os.path.exists(options.output):
        problems.append("the output %s exists" % options.output)
    left = temporaries(options.output) + [
        os.path.join(folder, name) for name in os.listdir(folder)]
    if left:
        problems.append("files left behind: %s" % ", ".join(sorted(set(left))))
    if problems:
        sys.exit("\n".join(problems) + "\nstderr: " + text)


if __name__ == "__main__":
    main()
