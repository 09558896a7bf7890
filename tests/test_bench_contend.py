"""`bench NAME --contend`: the same bench idle and under a player's host's load, side by side."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from typing import Any

import psutil
from click.testing import CliRunner

from meridian_table.bench._contend import CONTEND_TARGETS, run_contended
from meridian_table.cli.main import main
from meridian_table.service import units


def _busy_children() -> list[int]:
    """The niceness of each busy process beside us. A child of another test in this
    worker may end while it is looked at (a zombie, then gone): it is not one of them
    (a `make test-under-load` run met one)."""
    out = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.is_running() and "while True: pass" in " ".join(child.cmdline()):
                out.append(child.nice())
        except psutil.Error:
            continue
    return out


def test_the_contended_run_has_busy_processes_and_a_bot_thinking_beside_it() -> None:
    seen: list[dict[str, Any]] = []

    def bench(options: dict[str, Any]) -> dict[str, Any]:
        seen.append({"busy": _busy_children(), **options})
        return {"switch_to_led_ms_p50": 5.0, "switch_to_led_ms_p99": 8.0 + len(seen)}

    told: list[tuple[int, str]] = []
    figures = run_contended("table", bench, {"quick": True}, cores=1,
                            on_phase=lambda i, words: told.append((i, words)))
    # each run is announced before it starts (a progress display), the end once
    assert [i for i, _ in told] == [0, 1, 2, 3] and told[-1][1] == "done"
    assert told[1][1].startswith("contended") and told[2][1].startswith("kiosk lowered")
    # idle first, then one busy process a core, then the same lowered as the kiosk is
    mine = psutil.Process().nice()
    assert [s["busy"] for s in seen] == [[], [mine], [max(mine, units.KIOSK_NICE)]]
    assert all(s["quick"] for s in seen)
    load = figures["contention"]
    assert load["busy_processes"] == 1 and load["bot_moves_chosen"] >= 1, load
    assert "bot_error" not in load
    assert figures["switch_to_led_ms_p99_idle"] == 9.0
    assert figures["switch_to_led_ms_p99_contended"] == 10.0
    assert figures["switch_to_led_ms_p99_contended_over_idle"] == 1.11
    assert figures["switch_to_led_ms_p99_kiosk_lowered"] == 11.0
    assert figures["contention_kiosk_lowered"]["busy_nice"] == units.KIOSK_NICE
    assert figures["idle"]["switch_to_led_ms_p50"] == figures["contended"]["switch_to_led_ms_p50"]
    assert _busy_children() == []  # stopped when the run ends


def test_every_contended_target_names_a_side_by_side_figure() -> None:
    from meridian_table.bench._contend import CONTENDED, targets
    from meridian_table.games import registry

    assert targets("any-game-table") == targets("table")
    for bench in CONTEND_TARGETS:
        for name in targets(bench):
            figure = name.removesuffix("_contended")
            assert figure in CONTENDED[bench] or figure.startswith("commit_ms_p99_"), name
    # bench feel judges each game's commit figure under load
    with_commit = {s.id for s in registry.specs().values()
                   if s.bench.hand_corpus and s.bench.commit_target_ms is not None}
    assert with_commit and {f"commit_ms_p99_{g}_contended" for g in with_commit} <= set(
        targets("feel"))


def test_the_bench_command_offers_contend() -> None:
    result = CliRunner().invoke(main, ["bench", "--help"])
    assert "--contend" in result.output


def test_a_bench_on_a_terminal_shows_its_progress_there_and_only_its_figures_on_stdout() -> None:
    """Some benches run for an hour: on a terminal a progress bar says which and how far
    (on stderr); piped, as everywhere else in these tests, nothing is drawn at all. The
    bench is Kato's kernel, under a second (`bench firmware` boots six emulated Picos
    where the checkout has rp2040js: three minutes of the unit stage in CI)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "meridian_table.cli.main", "bench", "kato", "--quick",
         "--json"], stdout=subprocess.PIPE, stderr=slave,
        env=dict(os.environ, TERM="xterm", COLUMNS="100"))
    os.close(slave)
    drawn = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal's other end closed: the bench ended
            break
        if not chunk:
            break
        drawn += chunk
    os.close(master)
    assert proc.stdout is not None
    figures = json.loads(proc.stdout.read())
    assert proc.wait(60) == 0
    assert figures["verdict"]
    assert b"bench kato" in drawn and b"0/1" in drawn, drawn[:300]
