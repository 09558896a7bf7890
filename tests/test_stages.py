"""`make test`'s stages side by side (tools/stages.py), on a Makefile of its own whose
targets print what pytest prints: chains run one after the other, the last stage alone
after every other, a failed stage's failures and every stage's result at the end, and
the machine's busy CPU beside the stages' own."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Each target notes when it started and ended (a line in times.txt), prints pytest's
# progress and result lines, and ends with the status pytest would.
MAKEFILE = """\
define STAGE
	@echo "$@ start $$(date +%s.%N)" >> times.txt
	@sleep $(2)
	@printf '$(3)  [100%%]\\n'
	@printf '$(4)'
	@echo "$@ end $$(date +%s.%N)" >> times.txt
	@exit $(5)
endef
first:
\t$(call STAGE,first,1.5,..,=== 2 passed in 1.50s ===\\n,0)
second:
\t$(call STAGE,second,0.1,.,=== 1 passed in 0.10s ===\\n,0)
broken:
\t$(call STAGE,broken,0.2,.F,=== FAILURES ===\\n___ test_two ___\\nE   assert 1 == 2\\n=== short test summary info ===\\nFAILED tests/test_x.py::test_two - assert 1 == 2\\n=== 1 failed$(comma) 1 passed in 0.20s ===\\n,1)
alone:
\t$(call STAGE,alone,0.1,.,=== 1 passed in 0.10s ===\\n,0)
comma := ,
""".replace("\\t", "\t")


def load_stages(folder: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("stages_under_test", ROOT / "tools" / "stages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    module.ROOT = folder  # type: ignore[attr-defined]
    module.LOGS = folder / "test-artifacts" / "stages"  # type: ignore[attr-defined]
    return module


def times(folder: Path) -> dict[str, float]:
    noted: dict[str, float] = {}
    for line in (folder / "times.txt").read_text().splitlines():
        target, what, at = line.split()
        noted[f"{target} {what}"] = float(at)
    return noted


def test_chains_run_in_order_the_last_alone_and_failures_are_printed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "Makefile").write_text(MAKEFILE)
    stages: Any = load_stages(tmp_path)
    status = stages.run(["first>second", "broken"], "make", ["alone"])
    out = capsys.readouterr().out
    assert status == 1, out
    noted = times(tmp_path)
    assert noted["second start"] >= noted["first end"]  # a chain: one after the other
    assert noted["broken start"] < noted["first end"]  # chains side by side
    assert noted["alone start"] >= max(noted["second end"], noted["broken end"])
    # Each stage's own log, and its result line in the summary.
    assert "2 passed" in (tmp_path / "test-artifacts" / "stages" / "first.log").read_text()
    assert re.search(r"stage first: passed: 2 passed in 1\.50s; \d+ s wall, \d+ s CPU", out)
    assert "stage broken: FAILED (exit 2): 1 failed, 1 passed in 0.20s" in out
    # The failed stage's failures as pytest printed them, and the verdict naming it.
    assert "--- stage broken FAILED" in out
    assert "FAILED tests/test_x.py::test_two - assert 1 == 2" in out
    verdict = out.strip().splitlines()[-1]
    assert verdict.startswith("test stages: ") and verdict.endswith("FAILED: broken"), verdict
    assert stages.machine_busy_s() is None or re.search(
        r"the machine: \d+ s of CPU busy out of \d+ \(\d+ % of \d+ cores\)", verdict), verdict


def test_every_stage_passing_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "Makefile").write_text(MAKEFILE)
    stages: Any = load_stages(tmp_path)
    assert stages.run(["first", "second:5"], "make", []) == 0
    assert capsys.readouterr().out.strip().endswith("every stage passed")


def test_the_machine_busy_time_grows_with_work() -> None:
    stages: Any = load_stages(ROOT)
    before = stages.machine_busy_s()
    if before is None:
        pytest.skip("psutil cannot tell the machine's CPU times here: the machine's busy time is not reported")
    end = time.process_time() + 0.2
    while time.process_time() < end:
        pass
    assert stages.machine_busy_s() - before >= 0.1


#: A program that leaves an orphan behind (forked twice, its parent gone at once) which
#: spends ``SPEND`` s of CPU, as Chromium's zygote or a server started by ``pg_ctl`` do.
SPEND = 0.6
ORPHAN = f"""
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        end = time.process_time() + {SPEND}
        while time.process_time() < end:
            pass
    os._exit(0)
os.wait()
"""


@pytest.mark.skipif(sys.platform != "linux", reason="a child subreaper is Linux's")
def test_a_stage_counts_the_cpu_of_the_processes_it_leaves_behind() -> None:
    """The reaper a stage runs under waits for the orphans of its command: their CPU time
    is in what the stage's ``os.wait4`` reads (before, Chromium's was not)."""
    reaper = subprocess.Popen([sys.executable, str(ROOT / "tools" / "stages.py"), "--reap", "--",
                               sys.executable, "-c", ORPHAN])
    _, status, usage = os.wait4(reaper.pid, 0)
    reaper.returncode = os.waitstatus_to_exitcode(status)
    assert reaper.returncode == 0
    assert usage.ru_utime + usage.ru_stime >= SPEND


@pytest.mark.skipif(sys.platform != "linux", reason="a child subreaper is Linux's")
def test_the_reaper_passes_the_commands_exit_code_on() -> None:
    for code in (0, 3):
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "stages.py"), "--reap", "--",
                               sys.executable, "-c", f"raise SystemExit({code})"], check=False)
        assert done.returncode == code
