"""Logs written before the table owned its history still open (docs/STORE.md, "Logs of
older versions").

``old_logs/main-2c75809.sqlite3`` was written by main at 2c75809 playing the games of
``old_logs/scenario.py`` (its ``action`` events carry no ``placed``/``words``, nothing
logs the dialogue). The same scenario played by today's table writes the new form.
Both must resume to the same game: the same history entries, the same dialogue, the
same position, and the page's replay must draw the same positions.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.table.fakes import FakeBoard, FakeClock
from tests.table.old_logs.scenario import play_all

from meridian_table.profiles import load_profile
from meridian_table.store import Store
from meridian_table.table import TableSession
from meridian_table.table.logged import read_log, typed_events
from meridian_table.table.storejournal import StoreArchive, resume_game

FIXTURE = Path(__file__).parent / "old_logs" / "main-2c75809.sqlite3"
NAMES = ("kato-kept", "kato-undone", "toy", "colovini")


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[Store, Store, dict[str, int]]]:
    """(the old log, a copy of the fixture; the same games logged by today's table;
    the scenario's game ids, the same in both)."""
    shutil.copy(FIXTURE, tmp_path / "old.sqlite3")
    with Store.open(tmp_path / "old.sqlite3") as old, \
            Store.open(tmp_path / "new.sqlite3") as new:
        ids = play_all(new)
        yield old, new, ids


def test_the_fixture_is_a_log_of_the_older_form() -> None:
    with sqlite3.connect(FIXTURE) as db:
        rows = [(kind, json.loads(payload)) for kind, payload in db.execute(
            "SELECT kind, payload FROM events WHERE kind IN ('action', 'undo', 'choice')")]
    assert rows and all("placed" not in p and "dialogue" not in p for _k, p in rows)


@pytest.mark.parametrize("name", NAMES)
def test_an_old_log_resumes_to_the_same_game_as_a_new_one(
        stores: tuple[Store, Store, dict[str, int]], name: str) -> None:
    old, new, ids = stores
    was, now = resume_game(old, ids[name]), resume_game(new, ids[name])
    old_info = old.game(ids[name])
    assert read_log(old_info, typed_events(old_info, old.events(ids[name])), {}).old
    new_info = new.game(ids[name])
    assert not read_log(new_info, typed_events(new_info, new.events(ids[name])),
                        now.settings).old
    assert was.history.entries() == now.history.entries()
    assert was.adapter.dialogue() == now.adapter.dialogue()
    assert was.adapter.pieces() == now.adapter.pieces()
    assert was.adapter.view(None) == now.adapter.view(None)


def test_what_the_old_log_kept_in_the_dialogue_comes_back(
        stores: tuple[Store, Store, dict[str, int]]) -> None:
    old, _new, ids = stores
    kept = resume_game(old, ids["kato-kept"])
    assert kept.adapter.dialogue() == {"kept_at": 2}  # the pie was kept: no question
    assert kept.adapter.view(None).question is None
    tower = resume_game(old, ids["colovini"])
    assert tower.adapter.dialogue()["meridian"] == 5  # Black's meridian, chosen
    assert tower.history[-1].words == "card 3: a 4-high tower on meridian 3, city 1"
    toy = resume_game(old, ids["toy"])
    assert toy.adapter.pieces() == {"a": "X", "e": "O", "i": "X"}


def test_the_page_replays_an_old_log_as_a_new_one(
        stores: tuple[Store, Store, dict[str, int]]) -> None:
    old, new, ids = stores
    for name in NAMES:
        was = StoreArchive(old).replay(ids[name])
        now = StoreArchive(new).replay(ids[name])
        assert was["positions"] == now["positions"] and was["moves"] == now["moves"]


def test_an_old_log_plays_on_and_resumes_again(
        stores: tuple[Store, Store, dict[str, int]]) -> None:
    old, _new, ids = stores
    resumed = resume_game(old, ids["toy"])
    profile = load_profile("toy-9")
    board, clock = FakeBoard(profile), FakeClock()
    for site in resumed.adapter.expected():
        board.closed.add(profile.sites[site].pos)
    session = TableSession(resumed.adapter, profile, board, journal=resumed.journal,  # type: ignore[arg-type]
                           clock=clock, players=("Ann", "Bob"), history=resumed.history)
    board.session = session
    board.set("b", True)
    clock.advance(0.31)
    session.tick()
    assert [a.notation for a in session.history] == ["a", "e", "i", "b"]
    logged = [e.payload for e in old.events(ids["toy"]) if e.kind == "action"]
    assert "placed" not in logged[0] and logged[-1]["placed"] == ["b"]  # a mixed log
    again = resume_game(old, ids["toy"])
    assert [a.notation for a in again.history] == ["a", "e", "i", "b"]
    assert again.adapter.pieces() == {"a": "X", "e": "O", "i": "X", "b": "O"}


def test_a_damaged_dialogue_record_is_named(tmp_path: Path) -> None:
    with Store.open(tmp_path / "log.sqlite3") as store:
        ids = play_all(store)
        gid = ids["kato-kept"]
    with sqlite3.connect(tmp_path / "log.sqlite3") as db:
        db.execute("UPDATE events SET payload = ? WHERE game_id = ? AND kind = 'choice'",
                   (json.dumps({"field": "pie", "value": "keep",
                                "dialogue": {"kept_at": "two"}}), gid))
    with Store.open(tmp_path / "log.sqlite3") as store:
        with pytest.raises(ValueError, match=r"game \d+: .*'kept_at'.*start a new game"):
            resume_game(store, gid)
