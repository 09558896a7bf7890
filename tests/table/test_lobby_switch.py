"""A switch between games never leaves the table closed (issue 23): the TableHost opens
the new table and checks it before it closes the running one, and on any failure the
running game goes on — the same objects, never closed, never reopened. One test per
failure path, on the real table (virtual board, link, session, SQLite log)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.table.hosts import wait

from meridian_table.store import Store
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import RunningTable, SetupError, TableSetup, open_table


def _goes_on(host: TableHost, old: RunningTable) -> None:
    """The game in play is the old one, still open: its link is up, its log answers, and
    a stone put on the board is its next move."""
    assert host.table is old
    assert old.link.state == "connected"
    before = len(host.state()["moves"])
    site = host.state()["legal"][0]
    assert old.virtual is not None
    old.virtual.set_site(site, True)
    state = wait(host, lambda s: len(s["moves"]) > before)
    assert state["moves"][-1]["notation"] == site
    games = host.command({"cmd": "games"})
    assert games["ok"]
    [logged] = [g for g in games["games"] if g["game_id"] == state["game_id"]]
    assert logged["moves"] == len(state["moves"])


class Opener:
    """``open_table`` with a failure of the test's choosing; remembers what it opened."""

    def __init__(self, fail: Callable[[TableSetup], RunningTable] | None = None) -> None:
        self.fail = fail
        self.opened: list[RunningTable] = []

    def __call__(self, setup: TableSetup) -> RunningTable:
        table = self.fail(setup) if self.fail is not None else open_table(setup)
        self.opened.append(table)
        return table


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def opener() -> Opener:
    return Opener()


@pytest.fixture
def host(db: Path, opener: Opener) -> Iterator[TableHost]:
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       db=str(db), settle_s=0.03)
    with TableHost(open_table(setup), opener=opener) as lobby:
        wait(lobby, lambda s: s["phase"] == "play")
        try:
            yield lobby
        finally:
            for table in opener.opened:
                table.close()


def _new_game(host: TableHost) -> dict[str, Any]:
    return host.command({"cmd": "new_game", "game": "kato", "players": ["Cy", "Di"],
                         "profile": "kato-80"})


def test_a_new_table_refused_while_opening_leaves_the_game_in_play(
        host: TableHost, opener: Opener, db: Path) -> None:
    old = host.table

    def refuse(setup: TableSetup) -> RunningTable:
        raise SetupError("no board profile has the name 'kato-80'; list them with "
                         "`meridian-table profile list`")

    opener.fail = refuse
    answer = _new_game(host)
    assert answer["ok"] is False
    assert "no board profile" in answer["error"] and "the last game goes on" in answer["error"]
    _goes_on(host, old)
    with Store.open(db, readonly=True) as store:
        assert len(store.games()) == 1  # nothing reopened: one game in the log


def test_an_unexpected_failure_while_opening_leaves_the_game_in_play(
        host: TableHost, opener: Opener) -> None:
    old = host.table

    def crash(setup: TableSetup) -> RunningTable:
        raise RuntimeError("the virtual board's pty vanished")

    opener.fail = crash
    answer = host.command({"cmd": "rematch"})
    assert answer["ok"] is False
    assert answer["error"] == ("the new table could not be opened (RuntimeError: the "
                               "virtual board's pty vanished); the last game goes on")
    _goes_on(host, old)


def test_a_new_table_that_fails_its_check_is_closed_and_the_game_goes_on(
        host: TableHost, opener: Opener) -> None:
    old = host.table

    def wrong_game(setup: TableSetup) -> RunningTable:
        return open_table(replace(setup, game="toy", profile=None, players=()))

    opener.fail = wrong_game
    answer = _new_game(host)
    assert answer["ok"] is False
    assert "plays 'toy', not 'kato'" in answer["error"]
    [opened] = opener.opened
    assert opened.link.state == "closed"  # the table that failed its check is closed
    _goes_on(host, old)


def test_a_new_table_whose_state_fails_is_closed_and_the_game_goes_on(
        host: TableHost, opener: Opener) -> None:
    old = host.table

    def broken(setup: TableSetup) -> RunningTable:
        table = open_table(setup)

        def state() -> Any:
            raise KeyError("light")

        table.session.state = state  # type: ignore[method-assign]
        return table

    opener.fail = broken
    answer = _new_game(host)
    assert answer["ok"] is False and "'light'; the last game goes on" in answer["error"]
    assert opener.opened[0].link.state == "closed"
    _goes_on(host, old)


def test_the_old_table_failing_to_close_does_not_stop_the_new_game(
        host: TableHost, opener: Opener) -> None:
    old = host.table
    old_id = host.state()["game_id"]
    real_close = old.close

    def close() -> None:
        raise OSError("the log's disk is full")

    old.close = close  # type: ignore[method-assign]
    try:
        answer = _new_game(host)
        assert answer["ok"], answer
        state = wait(host, lambda s: s["game_id"] != old_id)
        assert state["players"] == ["Cy", "Di"] and host.table is opener.opened[0]
    finally:
        real_close()


def test_the_old_table_is_closed_only_after_the_new_one_opened(
        host: TableHost, opener: Opener) -> None:
    old = host.table
    seen: list[str] = []

    def watch(setup: TableSetup) -> RunningTable:
        seen.append(old.link.state)  # the old table is still up while the new one opens
        return open_table(setup)

    opener.fail = watch
    assert _new_game(host)["ok"]
    assert seen == ["connected"]
    assert old.link.state == "closed" and host.table is opener.opened[0]
