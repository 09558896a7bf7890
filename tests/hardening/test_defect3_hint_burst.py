"""Defect 3 of issue 27: a burst of hint presses never blocks the table. A press while a
hint is pending is coalesced; the worker's pipe never holds more than one position;
rematch, new game and closing the table still answer (10,000 presses)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from meridian_table.games import registry
from meridian_table.games.contract import Engine
from meridian_table.table.hints import Hinter
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup, open_table

PRESSES = 10_000


def _within(seconds: float, work: Callable[[], Any]) -> Any:
    """``work()``'s answer, or a failure when it takes longer (a deadlock, not a delay)."""
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(work()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert out, f"{work} did not answer within {seconds} s: the table is stuck"
    return out[0]


def _bots() -> list[psutil.Process]:
    return [p for p in psutil.Process(os.getpid()).children(recursive=True)
            if any("meridian" in part for part in p.cmdline()) or p.name().startswith("meridian")]


@pytest.fixture
def host(tmp_path: Path) -> Iterator[TableHost]:
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    with TableHost(open_table(setup)) as lobby:
        assert lobby.table.wait_ready(30)
        yield lobby


def test_hint_burst_of_10000_presses_never_blocks_the_table(host: TableHost) -> None:
    answers: list[dict[str, Any]] = []
    lock = threading.Lock()

    def press(count: int) -> None:
        for _ in range(count):
            got = host.command({"cmd": "button", "name": "hint"})
            with lock:
                answers.append(got)

    pressers = [threading.Thread(target=press, args=(PRESSES // 4,), daemon=True)
                for _ in range(4)]
    for t in pressers:
        t.start()
    deadline = time.monotonic() + 300
    for t in pressers:
        t.join(max(1.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in pressers), "a hint press never answered"
    assert len(answers) == PRESSES and all(a["ok"] for a in answers), answers[:3]
    hinter = host.table.session._hinter  # noqa: SLF001 - the worker's bound is the point
    assert hinter is not None
    # The hint appears: the answer to the (coalesced) presses.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and hinter.current(0) is None:
        time.sleep(0.05)
    assert hinter.current(0) is not None, host.state()["message"]
    assert host.state()["message"].startswith("Hint:")
    assert _within(60, lambda: host.command({"cmd": "button", "name": "hint"}))["ok"]
    # The table still answers everything: a rematch, a new game, and it closes.
    answer = _within(120, lambda: host.command({"cmd": "rematch"}))
    assert answer["ok"], answer
    answer = _within(120, lambda: host.command({"cmd": "new_game", "game": "kato",
                                                "players": ["Cy", "Di"]}))
    assert answer["ok"], answer
    assert _within(60, host.state)["players"] == ["Cy", "Di"]


def test_hint_burst_coalesces_presses_into_one_search() -> None:
    spec = registry.spec("kato")
    made: list[int] = []
    done = threading.Event()

    def on_done(ply: int, action: str | None, error: str | None) -> None:
        done.set()

    hinter = Hinter(spec, on_done)
    engine = spec.new_game({"size": 5}, 1)

    def copy() -> Engine:
        made.append(1)
        return engine.clone()

    try:
        for _ in range(PRESSES):
            assert hinter.ask(0, copy) is None or done.is_set()
        assert done.wait(120), "the hint never came"
        # One search for one position, however many presses: a copy was made once.
        assert len(made) == 1
        assert len([p for p in _bots() if "bot" in " ".join(p.cmdline())]) <= 1
    finally:
        _within(30, hinter.close)
