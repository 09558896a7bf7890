"""Run `make test`'s test stages side by side and say how each went.

    python tools/stages.py "emu>browser" unit "portable:10>realtime" wheeltest:10

Each argument is a chain of make targets (pytest stages in the Makefile) joined by ``>``:
the chains start together, and a chain's next stage starts when the one before it ends
(whatever its result). ``:N`` runs a stage at niceness N: a stage with slack then fills
the cores the others leave idle instead of slowing the longest one down. ``--last``
stages start once every other one has ended: alone, on a quiet machine. Each stage runs
in a process group of its own, writing to ``test-artifacts/stages/<target>.log``.
Most of the suite waits on real time (settle windows, the link's timers, a browser
drawing, an emulated Pico), so stages side by side keep both cores of a small machine
busy where one after the other left them half idle. A progress bar a stage shows how far
pytest has got (its ``[ NN%]`` marks); without a terminal a line a minute says the same.

When a stage ends: its result line, its wall time and the CPU time it and every process
it started used. A stage runs under a reaper (``--reap``, Linux): a child subreaper
(``PR_SET_CHILD_SUBREAPER``), so a process whose parent exits without waiting for it
(Chromium's browser and zygote, a PostgreSQL server started by ``pg_ctl``) is handed to
the reaper instead of to init, and its CPU time counts in its stage's (``os.wait4``).
Where there is no subreaper, the figure leaves such processes out and says so. At the
end, the whole machine's busy CPU time over the run (psutil's system-wide CPU times:
every process on it, the stages' and anything else), each failed stage's failures as
pytest printed them and the unit stage's slowest tests. Exit 1 when any stage failed, 130 on Ctrl-C (every stage
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

import psutil

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "test-artifacts" / "stages"
PERCENT = re.compile(rb"\[\s*(\d{1,3})%\]")
#: A line of pytest's progress: one letter a test (passed, failed, error, skipped,
#: xfailed, xpassed), then "[ NN%]" once the line is full.
PROGRESS_LINE = re.compile(rb"^(?:\S+\.py )?([.FEsxX]+)\s*(?:\[\s*(\d{1,3})%\])?\s*$")
#: pytest's last line: "=== 12 passed, 1 xfailed in 3.2s ===" (or "no tests ran").
RESULT = re.compile(r"^=+ (.*(?:passed|failed|error|no tests ran).*) =+$")
QUIET_EVERY_S = 60.0


@dataclass
class Stage:
    target: str
    log: Path
    nice: int = 0
    after: Stage | None = None
    waits_for_all: bool = False
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    ended: float | None = None
    status: int | None = None
    cpu_s: float = 0.0
    percent: float = 0.0
    done: int = 0
    #: The tests done, those on the line pytest is still writing included.
    shown: int = 0
    _read: int = field(default=0, repr=False)
    _partial: bytes = field(default=b"", repr=False)
    _total: float | None = field(default=None, repr=False)

    def start(self, make: str) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        out = self.log.open("wb")
        self.started = time.monotonic()
        # A process group of its own: Ctrl-C here stops the stage and everything it
        # started, and a stage's own Ctrl-C handling never reaches the others.
        # Unbuffered: pytest's progress reaches the log (and the bar) as it is made. A
        # stage is a make of its own: it keeps the command line's variables (XDIST=...)
        # but not our jobserver.
        env = dict(os.environ)
        env.pop("MFLAGS", None)
        env["MAKEFLAGS"] = " ".join(
            word for word in env.get("MAKEFLAGS", "").split(" ")
            if not word.startswith(("--jobserver", "-j")) and word != "j")
        env["PYTHONUNBUFFERED"] = "1"
        command = [make, "--no-print-directory", self.target]
        if sys.platform == "linux":
            command = [sys.executable, str(Path(__file__).resolve()), "--reap", "--", *command]
        if self.nice:
            command = ["nice", "-n", str(self.nice), *command]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=out, env=env,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        out.close()

    def progress(self) -> float:
        """How far the stage is, in percent: the tests done (one letter each on pytest's
        progress lines) over the total that its last ``[ NN%]`` mark implies."""
        try:
            with self.log.open("rb") as f:
                f.seek(self._read)
                chunk = f.read()
        except OSError:
            return self.percent
        self._read += len(chunk)
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()
        for line in [*lines, self._partial]:
            found = PROGRESS_LINE.match(line)
            if found is None:
                continue
            letters = len(found.group(1))
            if line is self._partial:  # a line still being written: count it, not keep it
                self.percent = self._percent(self.done + letters)
                self.shown = self.done + letters
                continue
            self.done += letters
            if found.group(2) and int(found.group(2)) > 0:
                self._total = self.done * 100 / int(found.group(2))
            self.percent = self._percent(self.done)
            self.shown = self.done
        return self.percent

    def _percent(self, done: int) -> float:
        if self._total is None:
            return self.percent
        return min(99.0, 100.0 * done / self._total)

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


def _stage(argument: str) -> Stage:
    """``target`` or ``target:nice``."""
    target, _, nice = argument.partition(":")
    if not target or (nice and not nice.isdigit()) or int(nice or 0) > 19:
        raise SystemExit(f"stages: {argument!r} is not TARGET or TARGET:NICE (NICE 0 to 19)")
    return Stage(target, LOGS / f"{target}.log", int(nice or 0))


def _chains(arguments: list[str]) -> list[Stage]:
    """Every stage of ``a>b c`` chains, each knowing the one it waits for."""
    stages: list[Stage] = []
    for chain in arguments:
        before: Stage | None = None
        for part in chain.split(">"):
            stage = _stage(part.strip())
            stage.after = before
            stages.append(stage)
            before = stage
    return stages


def _start_ready(stages: list[Stage], make: str) -> None:
    """Start every stage not started whose chain has come to it."""
    others_done = all(s.status is not None for s in stages if not s.waits_for_all)
    for stage in stages:
        if stage.process is not None:
            continue
        if stage.waits_for_all:
            if others_done:
                stage.start(make)
        elif stage.after is None or stage.after.status is not None:
            stage.start(make)


def machine_busy_s() -> float | None:
    """CPU-seconds the whole machine has been busy since boot (psutil's system-wide CPU
    times: every CPU, every state but idle and iowait), or None where psutil cannot
    tell."""
    try:
        times = psutil.cpu_times()
    except (OSError, RuntimeError):
        return None
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def run(arguments: list[str], make: str, last: list[str] | None = None) -> int:
    stages = _chains(arguments)
    busy_at_start = machine_busy_s()
    # The last stages wait for every other one: they run alone, on a quiet machine.
    finals = [_stage(t) for t in last or ()]
    for final in finals:
        final.waits_for_all = True
    stages += finals
    started = time.monotonic()
    print(f"test stages side by side: {'; '.join(' then '.join(c.split('>')) for c in arguments)}"
          f"{'; then alone: ' + ', '.join(last) if last else ''}; logs in "
          f"{LOGS.relative_to(ROOT)}/", flush=True)
    _start_ready(stages, make)
    try:
        if sys.stdout.isatty():
            _watch_with_bars(stages, make)
        else:
            _watch_quietly(stages, make)
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
    wall = time.monotonic() - started
    busy_at_end = machine_busy_s()
    machine = ""
    if busy_at_start is not None and busy_at_end is not None and wall > 0:
        busy = busy_at_end - busy_at_start
        cores = os.cpu_count() or 1
        machine = (f"; the machine: {busy:.0f} s of CPU busy out of {cores * wall:.0f} "
                   f"({100 * busy / (cores * wall):.0f} % of {cores} cores)")
    print(f"test stages: {wall:.0f} s wall, {total_cpu:.0f} s CPU in the stages{machine}; "
          f"{'every stage passed' if not failed else 'FAILED: ' + ', '.join(s.target for s in failed)}",
          flush=True)
    return 1 if failed else 0


def _watch_quietly(stages: list[Stage], make: str) -> None:
    last = time.monotonic()

    def say(text: str) -> None:
        print(text, flush=True)

    while any(s.status is None for s in stages):
        ended = _ended_soon(stages, 1.0)
        if ended is not None:
            _reap(ended, say)
            _start_ready(stages, make)
        if time.monotonic() - last >= QUIET_EVERY_S:
            last = time.monotonic()
            running = [f"{s.target} {s.progress():.0f}% ({s.shown} tests)" for s in stages
                       if s.status is None and s.process is not None]
            say(f"still running ({time.monotonic() - stages[0].started:.0f} s): "
                + ", ".join(running))


def _watch_with_bars(stages: list[Stage], make: str) -> None:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:<10}"), BarColumn(),
                  TextColumn("{task.percentage:>3.0f}%"),
                  TextColumn("{task.fields[done]:>5} tests"), TimeElapsedColumn()) as bars:
        tasks = {s.target: bars.add_task(s.target, total=100, done=0) for s in stages}

        def say(text: str) -> None:
            bars.console.print(text)

        while any(s.status is None for s in stages):
            for s in stages:
                bars.update(tasks[s.target], completed=s.progress(), done=s.shown)
            ended = _ended_soon(stages, 0.5)
            if ended is not None:
                _reap(ended, say)
                _start_ready(stages, make)
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


PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> bool:
    """Make this process a child subreaper (Linux): orphans below it come to it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def reap(command: list[str], linger_s: float = 5.0) -> int:
    """Run ``command`` as a child subreaper and wait for it, then for every process of
    its that is left (orphans handed here): their CPU time then counts in this process's
    children's, which the stage's ``os.wait4`` reads. A process still running
    ``linger_s`` after the command ended (a server a test leaves up on purpose) is left
    alone; it goes on to init when this process exits. Returns the command's exit code."""
    subreaper = _become_subreaper()
    if not subreaper:
        print("stages: no child subreaper here: processes left behind by the stage "
              "(Chromium's, PostgreSQL's) are not in its CPU figure", flush=True)
    # Ctrl-C reaches the whole process group: the command handles it, this goes on
    # waiting (a handler, not SIG_IGN, which the command would inherit).
    signal.signal(signal.SIGINT, lambda *_: None)
    child = subprocess.Popen(command)
    status: int | None = None
    deadline: float | None = None
    while True:
        try:
            pid, wstatus = os.waitpid(-1, os.WNOHANG if status is not None else 0)
        except ChildProcessError:
            break  # nothing left below this process
        if pid == 0:  # the command ended; orphans still running
            assert deadline is not None
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
            continue
        if pid == child.pid:
            status = os.waitstatus_to_exitcode(wstatus)
            child.returncode = status
            deadline = time.monotonic() + linger_s
    return status if status is not None else 1


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--reap" and sys.argv[2] == "--":
        return reap(sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chains", nargs="+",
                        help="chains of make targets, TARGET[:NICE][>TARGET[:NICE]...]")
    parser.add_argument("--make", default=os.environ.get("MAKE", "make"))
    parser.add_argument("--last", action="append", default=[],
                        help="a stage to run alone once every other stage has ended")
    args = parser.parse_args()
    return run(args.chains, args.make, args.last)


if __name__ == "__main__":
    sys.exit(main())
