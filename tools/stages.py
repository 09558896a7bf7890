"""Run `make test`'s test stages side by side and say how each went.

    python tools/stages.py unit browser portable wheeltest

Each argument is a make target (a pytest stage in the Makefile). They start together,
each in a process group of its own, writing to ``test-artifacts/stages/<target>.log``.
Most of the suite waits on real time (settle windows, the link's timers, a browser
drawing, an emulated Pico), so stages side by side keep both cores of a small machine
busy where one after the other left them half idle. A progress bar a stage shows how far
pytest has got (its ``[ NN%]`` marks); without a terminal a line a minute says the same.

When a stage ends: its result line, its wall time and the CPU time it and its processes
used (``os.wait4``); at the end, each failed stage's failures as pytest printed them and
the unit stage's slowest tests. Exit 1 when any stage failed, 130 on Ctrl-C (every stage
is stopped, nothing is left running).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "test-artifacts" / "stages"
PERCENT = re.compile(rb"\[\s*(\d{1,3})%\]")
#: pytest's last line: "=== 12 passed, 1 xfailed in 3.2s ===" (or "no tests ran").
RESULT = re.compile(r"^=+ (.*(?:passed|failed|error|no tests ran).*) =+$")
QUIET_EVERY_S = 60.0


@dataclass
class Stage:
    target: str
    log: Path
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    ended: float | None = None
    status: int | None = None
    cpu_s: float = 0.0
    percent: int = 0
    _read: int = field(default=0, repr=False)

    def start(self, make: str) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        out = self.log.open("wb")
        self.started = time.monotonic()
        # A process group of its own: Ctrl-C here stops the stage and everything it
        # started, and a stage's own Ctrl-C handling never reaches the others.
        # Unbuffered: pytest's progress reaches the log (and the bar) as it is made.
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [make, "--no-print-directory", self.target], cwd=ROOT, stdout=out, env=env,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        out.close()

    def progress(self) -> int:
        """The last ``[ NN%]`` pytest printed (read incrementally)."""
        try:
            with self.log.open("rb") as f:
                f.seek(self._read)
                chunk = f.read()
        except OSError:
            return self.percent
        self._read += len(chunk)
        marks = PERCENT.findall(chunk)
        if marks:
            self.percent = min(100, int(marks[-1]))
        return self.percent

    @property
    def wall_s(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def lines(self) -> list[str]:
        return self.log.read_text(encoding="utf-8", errors="replace").splitlines()

    def result(self) -> str:
        for line in reversed(self.lines()):
            found = RESULT.match(line.strip())
            if found:
                return found.group(1)
        return "no pytest result line (see the log)"

    def summary(self) -> str:
        verdict = "passed" if self.status == 0 else f"FAILED (exit {self.status})"
        return (f"stage {self.target}: {verdict}: {self.result()}; {self.wall_s:.0f} s wall, "
                f"{self.cpu_s:.0f} s CPU")


def _section(lines: list[str], title: str) -> list[str]:
    """pytest's ``=== title ===`` section, up to the next one."""
    out: list[str] = []
    inside = False
    for line in lines:
        if line.startswith("=") and title in line:
            inside = True
        elif inside and line.startswith("=") and line.rstrip().endswith("="):
            if out:
                break
        if inside:
            out.append(line)
    return out


def _reap(stage: Stage, say: Callable[[str], None]) -> None:
    """Reap a stage's ended make: its status and the CPU time of all it ran."""
    assert stage.process is not None
    _, status, usage = os.wait4(stage.process.pid, 0)
    stage.ended = time.monotonic()
    stage.status = os.waitstatus_to_exitcode(status)
    stage.process.returncode = stage.status  # reaped here, not by Popen
    stage.cpu_s = usage.ru_utime + usage.ru_stime
    stage.percent = 100 if stage.status == 0 else stage.progress()
    say(stage.summary())


def run(targets: list[str], make: str) -> int:
    stages = [Stage(t, LOGS / f"{t}.log") for t in targets]
    started = time.monotonic()
    print(f"test stages side by side: {', '.join(targets)}; logs in "
          f"{LOGS.relative_to(ROOT)}/", flush=True)
    for stage in stages:
        stage.start(make)
    try:
        if sys.stdout.isatty():
            _watch_with_bars(stages)
        else:
            _watch_quietly(stages)
    except KeyboardInterrupt:
        for stage in stages:
            if stage.status is None and stage.process is not None:
                try:
                    os.killpg(stage.process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for stage in stages:
            if stage.process is not None and stage.status is None:
                try:
                    stage.process.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(stage.process.pid, signal.SIGKILL)
        print("\ninterrupted: every stage stopped; the logs so far are in "
              f"{LOGS.relative_to(ROOT)}/", flush=True)
        return 130
    failed = [s for s in stages if s.status != 0]
    for stage in stages:
        slowest = _section(stage.lines(), "slowest")
        if slowest:
            print(f"\n--- stage {stage.target}: the slowest tests ---")
            print("\n".join(slowest))
    for stage in failed:
        lines = stage.lines()
        shown = (_section(lines, "FAILURES") + _section(lines, "ERRORS")
                 + _section(lines, "short test summary")) or lines[-80:]
        print(f"\n--- stage {stage.target} FAILED: what it printed "
              f"(all of it: {stage.log.relative_to(ROOT)}) ---")
        print("\n".join(shown))
    print()
    for stage in stages:
        print(stage.summary())
    total_cpu = sum(s.cpu_s for s in stages)
    print(f"test stages: {time.monotonic() - started:.0f} s wall, {total_cpu:.0f} s CPU "
          f"in all; {'every stage passed' if not failed else 'FAILED: ' + ', '.join(s.target for s in failed)}",
          flush=True)
    return 1 if failed else 0


def _watch_quietly(stages: list[Stage]) -> None:
    last = time.monotonic()

    def say(text: str) -> None:
        print(text, flush=True)

    while any(s.status is None for s in stages):
        ended = _ended_soon(stages, 1.0)
        if ended is not None:
            _reap(ended, say)
        if time.monotonic() - last >= QUIET_EVERY_S:
            last = time.monotonic()
            running = [f"{s.target} {s.progress()}%" for s in stages if s.status is None]
            say(f"still running ({time.monotonic() - stages[0].started:.0f} s): "
                + ", ".join(running))


def _watch_with_bars(stages: list[Stage]) -> None:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:<10}"), BarColumn(),
                  TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn()) as bars:
        tasks = {s.target: bars.add_task(s.target, total=100) for s in stages}

        def say(text: str) -> None:
            bars.console.print(text)

        while any(s.status is None for s in stages):
            for s in stages:
                bars.update(tasks[s.target], completed=s.progress())
            ended = _ended_soon(stages, 0.5)
            if ended is not None:
                _reap(ended, say)
                for s in stages:
                    if s.status is not None:
                        bars.stop_task(tasks[s.target])


def _ended_soon(stages: list[Stage], within_s: float) -> Stage | None:
    """A stage whose make has ended, not yet reaped (waits up to ``within_s`` for one)."""
    deadline = time.monotonic() + within_s
    while True:
        for stage in stages:
            if stage.status is None and stage.process is not None:
                try:
                    waited = os.waitid(os.P_PID, stage.process.pid, os.WEXITED | os.WNOHANG
                                       | os.WNOWAIT)
                except ChildProcessError:
                    waited = None
                if waited is not None:
                    return stage
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+", help="make targets, one a stage")
    parser.add_argument("--make", default=os.environ.get("MAKE", "make"))
    args = parser.parse_args()
    return run(args.targets, args.make)


if __name__ == "__main__":
    sys.exit(main())
