"""examples/five_in_a_row: a fresh game package written from docs/ADDING_A_GAME.md (the
Makefile installs it in the dev venv, as a user would pip install it). With nothing but
an engine, the sites of the ready adapter and a spec, it plays at the real table on the
virtual board, resumes after a kill, rematches from the page's command, and gets a bot,
hints and the review without a bot of its own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from meridian_five.engine import FiveInARow
from tests.games.driver import BoardDriver

from meridian_table.bots.review import review
from meridian_table.games import registry
from meridian_table.games.placement import PlacementAdapter
from meridian_table.games.search import SEARCH_BOT
from meridian_table.store import Store
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup, open_table
from meridian_table.table.storejournal import StoreArchive

CLI = [sys.executable, "-m", "meridian_table.cli.main"]
#: Blue builds column A (A1..A5, a straight line); Amber answers on column B.
WIN = ("A1", "B1", "A2", "B2", "A3", "B3", "A4", "B4", "A5")


def _run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True,
                          timeout=180, check=False)


def _records(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _wait(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return
        pause.wait(0.01)
    raise AssertionError("the condition never held")


def test_the_package_brings_only_what_the_docs_ask_for() -> None:
    spec = registry.spec("five")
    adapter = spec.adapter({}, {}, {"size": 5})
    assert isinstance(adapter, PlacementAdapter) and len(adapter.sites()) == 80
    assert spec.bot is SEARCH_BOT and spec.policies.keys() == {"random"}
    assert spec.plays_on == ("kato",) and spec.default_profile(2, {}) == "kato-114"
    assert spec.page.rules == ("en",)


def test_the_rules() -> None:
    game = FiveInARow(5)
    for move in WIN[:-1]:
        game.play(move)
        assert game.outcome() is None
    game.play("A5")
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (0,) and "Blue has 5" in outcome.reason
    assert game.legal() == () and game.turn().seat is None
    with pytest.raises(ValueError, match="'A6': the game is over"):
        game.play("A6")
    game.undo()
    with pytest.raises(ValueError, match="'A1' is taken"):
        game.play("A1")
    with pytest.raises(ValueError, match="'Z9' is not a point of the size-5 board"):
        game.play("Z9")


def test_a_whole_game_headless_on_the_virtual_board_then_exported(tmp_path: Path) -> None:
    db = str(tmp_path / "five.sqlite3")
    script = "".join(f"place {site}\nwait\n" for site in WIN)
    out = _run(["play", "five", "--headless", "--board", "sim", "--db", db,
                "--players", "Ann,Bob"], script)
    assert out.returncode == 0, out.stderr
    records = _records(out.stdout)
    assert [r["notation"] for r in records if r["event"] == "move"] == list(WIN)
    final = [r for r in records if r["event"] == "state"][-1]
    assert final["phase"] == "ended" and final["result"]["winner"] == "blue"
    record = _run(["export", "1", "--format", "record", "--db", db])
    assert record.returncode == 0, record.stderr
    assert '[Players "Ann, Bob"]' in record.stdout and '[Option size "6"]' in record.stdout
    assert record.stdout.rstrip().endswith("\n".join(WIN))
    headers, engine = registry.spec("five").records.parse(record.stdout)
    assert headers["Player1"] == "Ann" and engine.outcome() is not None


def test_a_game_resumes_after_the_process_is_killed(tmp_path: Path) -> None:
    db = str(tmp_path / "five.sqlite3")
    proc = subprocess.Popen([*CLI, "play", "five", "--headless", "--board", "sim", "--db", db],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        moves: list[str] = []
        proc.stdin.write("".join(f"place {site}\nwait\n" for site in WIN[:3]))
        proc.stdin.flush()
        for line in proc.stdout:
            if line.startswith("{") and json.loads(line)["event"] == "move":
                moves.append(json.loads(line)["notation"])
                if len(moves) == 3:
                    break
        assert moves == list(WIN[:3])
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # no goodbye: the log is all there is
        proc.wait(30)
    resumed = _run(["play", "five", "--headless", "--board", "sim", "--db", db, "--resume"],
                   "state\n" + "".join(f"place {site}\nwait\n" for site in WIN[3:]))
    assert resumed.returncode == 0, resumed.stderr
    records = _records(resumed.stdout)
    first = [r["state"] for r in records if r["event"] == "full-state"][0]
    assert [m["notation"] for m in first["moves"]] == list(WIN[:3])
    assert [r["notation"] for r in records if r["event"] == "move"] == list(WIN[3:])
    with Store.open(db, readonly=True) as store:
        (info,) = store.games("five")
        assert info.result is not None and info.profile == "kato-114"


@pytest.fixture
def host(tmp_path: Path) -> Iterator[TableHost]:
    setup = TableSetup(game="five", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    with TableHost(open_table(setup)) as lobby:
        assert lobby.table.wait_ready(30)
        yield lobby


def test_a_rematch_from_the_page_and_a_bot_seat(host: TableHost) -> None:
    d = BoardDriver(host.table)
    d.set("A1", True)
    _wait(lambda: len(host.state()["moves"]) == 1)
    old_id = host.state()["game_id"]
    answer = host.command({"cmd": "rematch"})
    assert answer["ok"], answer
    _wait(lambda: host.state()["game_id"] != old_id and host.state()["phase"] == "play")
    state = host.state()
    assert state["players"] == ["Bob", "Ann"] and state["moves"] == []
    assert state["game"] == "five" and state["options"]["size"] == 5  # the kato-80 board
    # The generic bot takes the second seat from the page's seat menu.
    assert host.command({"cmd": "seat", "seat": "2", "automaton": "bot:1:40"})["ok"]
    assert host.state()["seats_kind"]["amber"] == "bot:1:40"
    d = BoardDriver(host.table)  # the new game's table
    d.set("E5", True)
    _wait(lambda: host.state()["phase"] == "execute", timeout=60)
    state = host.state()
    assert state["automaton"]["automaton"] == "bot:1:40"
    target = state["diff"]["next"]
    d.set(target, True)
    _wait(lambda: len(host.state()["moves"]) == 2)
    assert [m["notation"] for m in host.state()["moves"]] == ["E5", target]


def test_a_hint_at_the_table_and_the_review_of_a_logged_game(tmp_path: Path) -> None:
    setup = TableSetup(game="five", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    with open_table(setup) as running:
        assert running.wait_ready(30)
        d = BoardDriver(running)
        for n, site in enumerate(WIN[:7], start=1):  # Blue has A1..A4 next
            d.set(site, True)
            _wait(lambda n=n: len(d.state()["moves"]) == n)  # type: ignore[misc]
        d.session.press("hint")  # Amber must block A5, the end of Blue's column
        _wait(lambda: d.state()["message"].startswith("Hint: "), timeout=90)
        assert "A5" in d.state()["message"], d.state()["message"]
    # The review marks Amber's "B4", which let Blue complete the column.
    marks = review(registry.spec("five"), {"size": 5}, WIN, ("Ann", "Bob"), level=3, seed=2,
                   iterations=400, top=3)
    assert marks and marks[0].player == "Bob"
    with Store.open(tmp_path / "games.sqlite3") as store:
        archive = StoreArchive(store)
        assert archive.games()[0]["reviewable"] is True
