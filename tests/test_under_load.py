"""`make test-under-load` (tools/under_load.py): runs in a row beside busy processes, and
each run's failures in the summary at the end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "under_load.py"

# Fails on its first run, passes on its second; prints how many busy processes it saw.
SCRIPT = """
import os, sys, psutil
marker = sys.argv[1]
busy = [p for p in psutil.Process(os.getppid()).children()
        if "while True: pass" in " ".join(p.cmdline())]
print("busy", len(busy))
if not os.path.exists(marker):
    open(marker, "w").close()
    print("FAILED tests/test_x.py::test_y - AssertionError: boom")
    sys.exit(1)
print("1 passed")
"""


def test_each_run_has_busy_processes_beside_it_and_its_failures_are_summed_up(
        tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(TOOL), "--here", "--runs", "2", "--busy", "2", "--",
         sys.executable, str(script), str(tmp_path / "marker")],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("busy 2") == 2
    summary = done.stdout.split("under_load: 2 runs of", 1)[1]
    assert "run 1: FAILED (exit 1)" in summary
    assert "FAILED tests/test_x.py::test_y - AssertionError: boom" in summary
    assert "run 2: passed" in summary
