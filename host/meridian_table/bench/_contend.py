"""`bench NAME --contend`: the same bench idle and on a machine loaded as a player's host is.

The host a player uses runs the table beside a full-screen Chromium kiosk, often with a
bot thinking. ``contention()`` loads this machine the same way, for the length of a run:

- one busy process per core at normal priority, standing in for the kiosk browser;
- a level-5 Kato bot thinking without pause, exactly as the table runs it (``bots.worker``:
  a process of its own, at the worker's lowered priority).

``run_contended`` runs a bench idle, under that load, and under it with the busy processes
lowered as the installed kiosk lowers its browser, all in the same run, and lays the
figures side by side: ``idle``, ``contended`` and ``contended_kiosk_lowered`` hold each
run's figures, and the headline figures of ``CONTENDED`` are repeated at the top as
``NAME_idle``, ``NAME_contended`` and ``NAME_kiosk_lowered``; the targets
(``CONTEND_TARGETS``) judge the contended run, with the busy processes at normal priority.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

LOGGER = logging.getLogger(__name__)

BUSY = "while True: pass"


def _busy(niceness: int) -> str:
    """A busy loop at ``niceness`` (psutil: POSIX nice, or below normal on Windows)."""
    if niceness <= 0:
        return BUSY
    return ("import psutil\n"
            "me = psutil.Process()\n"
            "me.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS if hasattr(psutil, "
            f"'BELOW_NORMAL_PRIORITY_CLASS') else {niceness})\n" + BUSY)
BOT_LEVEL = 5
BOT_BUDGET_S = 1.0
BOT_START_TIMEOUT_S = 60.0

# The figures compared idle against contended, per bench, and the targets under load (a
# game's own table bench, GAME-table, as bench table).
CONTENDED: dict[str, tuple[str, ...]] = {
    "table": ("switch_to_led_ms_p50", "switch_to_led_ms_p99", "switch_to_led_ms_max"),
    # and every game's commit_ms_p99_GAME (bench feel's figure per game)
    "feel": ("ack_ms_p99", "misreads", "live_misreads", "live_fillers_lost"),
}
COMMIT_TARGET_MS = 150.0
CONTEND_TARGETS: dict[str, dict[str, tuple[str, float]]] = {
    "table": {"switch_to_led_ms_p99_contended": ("<", 20.0)},
    # and commit_ms_p99_GAME_contended < COMMIT_TARGET_MS for each game with a commit target
    "feel": {"ack_ms_p99_contended": ("<", 30.0),
             "misreads_contended": ("<=", 0.0), "live_misreads_contended": ("<=", 0.0),
             "live_fillers_lost_contended": ("<=", 0.0)},
}


def bot_game() -> str:
    """The game whose bot thinks beside the bench: the table bench's game (the first
    installed game with ``table_bench`` and a bot), else any game with a bot."""
    from meridian_table.games import registry

    with_bot = [s for s in registry.specs().values() if s.bot is not None]
    chosen = next((s for s in with_bot if s.bench.table_bench),
                  with_bot[0] if with_bot else None)
    if chosen is None:
        raise RuntimeError("no installed game has a bot to think beside the bench")
    return chosen.id


def _kind(name: str) -> str:
    """A game's own table bench (``GAME-table``) is judged as ``bench table`` is."""
    return "table" if name.endswith("-table") else name


def targets(name: str) -> dict[str, tuple[str, float]]:
    """The contended targets of bench ``name`` (each game's commit target for feel)."""
    out = dict(CONTEND_TARGETS.get(_kind(name), {}))
    if name == "feel":
        from meridian_table.games import registry

        for spec in registry.specs().values():
            if spec.bench.hand_corpus and spec.bench.commit_target_ms is not None:
                out[f"commit_ms_p99_{spec.id}_contended"] = ("<", COMMIT_TARGET_MS)
    return out


class _Thinker:
    """A level-5 bot thinking again and again in its worker process, until stopped."""

    def __init__(self) -> None:
        self.thoughts = 0
        self.error: str | None = None
        self._stop = threading.Event()
        self.thinking = threading.Event()  # set once the worker has chosen a first move
        self._thread = threading.Thread(target=self._run, name="contend-bot", daemon=True)

    def _run(self) -> None:
        from meridian_table import bots
        from meridian_table.bots.worker import WorkerPolicy
        from meridian_table.games import registry

        spec = registry.spec(bot_game())
        try:
            with WorkerPolicy(spec.id, bots.description(BOT_LEVEL), seed=1) as policy:
                engine = spec.new_game({}, 1)
                while not self._stop.is_set():
                    if engine.outcome() is not None:
                        engine = spec.new_game({}, self.thoughts)
                    action = policy.choose(engine.clone(), BOT_BUDGET_S, self._stop)
                    engine.play(action)
                    self.thoughts += 1
                    self.thinking.set()
        except Exception as exc:  # reported in the figures: the load was lighter than said
            if not self._stop.is_set():
                self.error = f"{type(exc).__name__}: {exc}"
                LOGGER.warning("the contending bot stopped: %s", self.error)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)


def _lowered(busy: list[subprocess.Popen[bytes]], niceness: int, timeout: float = 30.0) -> None:
    """Wait until each busy process has lowered itself (it does so as it starts), so that
    the measurement starts under the load it names."""
    if niceness <= 0:
        return
    import psutil

    deadline = time.monotonic() + timeout
    for proc in busy:
        while time.monotonic() < deadline:
            try:
                if psutil.Process(proc.pid).nice() != psutil.Process().nice():
                    break
            except psutil.Error:
                break
            time.sleep(0.02)


@contextlib.contextmanager
def busy_cores(cores: int | None = None) -> Iterator[dict[str, Any]]:
    """One busy process per core at normal priority while inside (no bot: ``bench bots
    --contend`` measures the bot itself beside them)."""
    count = cores if cores is not None else (os.cpu_count() or 1)
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(count)]
    report: dict[str, Any] = {"busy_processes": count}
    started = time.monotonic()
    try:
        yield report
    finally:
        for proc in busy:
            proc.kill()
        for proc in busy:
            proc.wait()
        report["seconds"] = round(time.monotonic() - started, 1)


@contextlib.contextmanager
def contention(cores: int | None = None, busy_nice: int = 0) -> Iterator[dict[str, Any]]:
    """Load the machine as a player's host (see the module docstring) while inside; the
    yielded dict is filled with what the load did when the block ends. ``busy_nice``
    lowers the busy processes as ``meridian-table kiosk`` lowers the browser."""
    count = cores if cores is not None else (os.cpu_count() or 1)
    busy = [subprocess.Popen([sys.executable, "-c", _busy(busy_nice)]) for _ in range(count)]
    _lowered(busy, busy_nice)
    thinker = _Thinker()
    thinker.start()
    # The measurement starts once the bot's worker is up and thinking (its start-up, a
    # spawned interpreter importing the engine, is not the load a game has).
    thinker.thinking.wait(BOT_START_TIMEOUT_S)
    report: dict[str, Any] = {"busy_processes": count, "busy_nice": busy_nice,
                              "bot": f"{bot_game()} level {BOT_LEVEL}",
                              "bot_budget_s": BOT_BUDGET_S}
    started = time.monotonic()
    try:
        yield report
    finally:
        thinker.stop()
        for proc in busy:
            proc.kill()
        for proc in busy:
            proc.wait()
        report["seconds"] = round(time.monotonic() - started, 1)
        report["bot_moves_chosen"] = thinker.thoughts
        if thinker.error is not None:
            report["bot_error"] = thinker.error


#: The three runs of a contended bench, in order, as a progress display names them.
PHASES = ("idle", "contended: a busy process per core and a level-5 bot",
          "kiosk lowered: the busy processes at the kiosk's nice")


def run_contended(name: str, run: Callable[[dict[str, Any]], dict[str, Any]],
                  options: dict[str, Any], cores: int | None = None,
                  on_phase: Callable[[int, str], None] | None = None) -> dict[str, Any]:
    """``run`` idle, then under ``contention(cores)`` (the busy processes at normal
    priority: the targets), then with them lowered as ``meridian-table kiosk`` lowers the
    browser (what install-service's set-up buys); the figures side by side.
    ``on_phase(index, words)`` is told as each of the three runs (``PHASES``) starts, and
    ``on_phase(3, "done")`` when the last has ended (a long bench's progress display)."""
    from meridian_table.service.units import KIOSK_NICE

    def phase(index: int) -> None:
        if on_phase is not None:
            on_phase(index, PHASES[index] if index < len(PHASES) else "done")

    phase(0)
    idle = run(dict(options))
    phase(1)
    with contention(cores) as load:
        contended = run(dict(options))
    phase(2)
    with contention(cores, busy_nice=KIOSK_NICE) as lowered_load:
        lowered = run(dict(options))
    phase(3)
    out: dict[str, Any] = {"idle": idle, "contended": contended,
                           "contended_kiosk_lowered": lowered, "contention": load,
                           "contention_kiosk_lowered": lowered_load}
    headline = [*CONTENDED.get(_kind(name), ()),
                *sorted(k for k in idle if name == "feel" and k.startswith("commit_ms_p99_"))]
    for key in headline:
        out[f"{key}_idle"] = idle.get(key)
        for label, figures in (("contended", contended), ("kiosk_lowered", lowered)):
            out[f"{key}_{label}"] = figures.get(key)
            value = figures.get(key)
            if isinstance(idle.get(key), (int, float)) and idle.get(key) and isinstance(
                    value, (int, float)):
                out[f"{key}_{label}_over_idle"] = round(value / idle[key], 2)
    return out


__all__ = ["CONTENDED", "CONTEND_TARGETS", "PHASES", "bot_game", "busy_cores", "contention", "run_contended",
           "targets"]
