#!/usr/bin/env python3
"""Run a command (``make test``) several times in a row with one busy process per core
beside it, as on a developer's busy machine or a CI runner, and print each run's failures.

By default every run happens in a fresh clone of this checkout's HEAD (made once, in a
temp dir; its first run builds the venv): that is how CI sees the project. ``--here`` runs
in the checkout instead (uncommitted changes included).

    python tools/under_load.py [--runs 3] [--here] -- make test

Exits non-zero when any run failed. The busy processes run at normal priority and are
stopped at the end, whatever happens.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUSY = "while True: pass"
# What a failed run leaves in its output: pytest's short summary, make's error lines,
# mptest's FAIL lines, ruff/mypy's error counts.
FAILURE = re.compile(r"^(FAILED |ERROR |FAIL |make(\[\d+\])?: \*\*\* |Found \d+ errors?)")


def busy_processes(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(count)]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for proc in processes:
        proc.kill()
    for proc in processes:
        proc.wait()


def run_once(command: list[str], cwd: Path, log: Path) -> tuple[int, float, list[str]]:
    """(exit code, wall seconds, failure lines) of one run; its output goes to ``log``
    and to our stdout."""
    started = time.monotonic()
    failures: list[str] = []
    with log.open("w") as out, subprocess.Popen(
            command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.write(line)
            sys.stdout.write(line)
            if FAILURE.match(line):
                failures.append(line.rstrip())
        code = proc.wait()
    return code, time.monotonic() - started, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="how many runs in a row")
    parser.add_argument("--here", action="store_true",
                        help="run in this checkout, not in a fresh clone of its HEAD")
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 1,
                        help="busy processes beside the runs (default: one per core)")
    parser.add_argument("command", nargs="+", help="the command to run (after --)")
    args = parser.parse_args(argv)

    workdir = ROOT
    clone_parent: str | None = None
    if not args.here:
        clone_parent = tempfile.mkdtemp(prefix="meridian-under-load-")
        # mkdtemp makes it 0700: the tests that run a command as nobody (a serial port
        # that refuses them) must reach the clone's venv, as in any checkout.
        os.chmod(clone_parent, 0o755)
        workdir = Path(clone_parent) / "clone"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(workdir)], check=True)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, text=True,
                               capture_output=True).stdout.strip()
        if dirty:
            print("under_load: uncommitted changes are not in the fresh clone (use --here)")
    if workdir != ROOT:
        # The fresh clone lives in a temp dir: the emulated Pico's files beside this
        # checkout (../shared/pico, docs/FIRMWARE.md) are not beside it. Name them, and
        # require them, so its emulated-Pico tests run instead of skipping.
        pico = ROOT.parent / "shared" / "pico"
        if (pico / "RPI_PICO-v1.23.0.uf2").exists() and "MERIDIAN_PICO_IMAGE" not in os.environ:
            os.environ["MERIDIAN_PICO_IMAGE"] = str(pico / "RPI_PICO-v1.23.0.uf2")
            os.environ["MERIDIAN_PICO_BOOTROM"] = str(pico / "rp2040-bootrom-b1.bin")
            os.environ.setdefault("MERIDIAN_REQUIRE_EMU", "1")
    logs = Path(tempfile.mkdtemp(prefix="meridian-under-load-logs-"))
    results: list[tuple[int, float, list[str]]] = []
    busy = busy_processes(args.busy)
    try:
        for run in range(1, args.runs + 1):
            print(f"under_load: run {run} of {args.runs} in {workdir}, "
                  f"{args.busy} busy processes beside it", flush=True)
            results.append(run_once(args.command, workdir, logs / f"run{run}.log"))
    finally:
        stop(busy)
        if clone_parent is not None:
            shutil.rmtree(clone_parent, ignore_errors=True)
    print(f"\nunder_load: {args.runs} runs of {' '.join(args.command)} with {args.busy} busy "
          f"processes (logs in {logs})")
    for run, (code, seconds, failures) in enumerate(results, 1):
        verdict = "passed" if code == 0 else f"FAILED (exit {code})"
        print(f"run {run}: {verdict} in {seconds:.0f} s")
        for line in failures:
            print(f"    {line}")
    return 0 if all(code == 0 for code, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
