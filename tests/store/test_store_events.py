"""The typed log (``meridian_table.store.events``): one dataclass per kind, read strictly
where a reader relies on a field and leniently elsewhere; a hand-edited log is a named
error in every command that reads it, never a traceback."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from meridian_table.store import Store
from meridian_table.store import events as ev
from meridian_table.store.events import CorruptEventError, parse

SAMPLES: list[ev.LogEvent] = [
    ev.Action("G6", "light", "board", "person", ("F5", "F6"), None,
              {"remaining": {"light": 12.5}, "running": "dark"}),
    ev.Action("pass", "dark", "automaton", "automaton", (), "bot:3"),
    ev.Undo("G6", "web"),
    ev.Choice("pie", "keep", "button"),
    ev.Cancel("G6", "button"),
    ev.Execute("H7", "dark", "bot:2"),
    ev.Result(("Ann",), "more islands", ({"player": "Ann", "seat": "light", "total": 9},),
              extra={"by_seat": {"light": {"total": 9}}}),
    ev.Note("Ghost switch at G6", extra={"fault": "GHOST", "detail": ["17"]}),
    ev.Players(("Ann", "Bob"), ("Player 1", "Player 2")),
    ev.Settings(extra={"seats": {"2": "bot:3"}, "assist": "full"}),
    ev.Clock({"light": 10.0, "dark": 9.5}, "light"),
    ev.Remote("duel1", "table-a"),
    ev.Board("kato-80", {"name": "kato-80", "game": "kato"}),
    ev.Sense(extra={"sensed": ["G6"], "expected": [], "meaning": "action"}),
]


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: ev.kind_of(e))
def test_every_kind_round_trips_through_its_json(event: ev.LogEvent) -> None:
    payload = event.to_json()
    assert parse(ev.kind_of(event), payload) == event
    assert parse(ev.kind_of(event), payload).to_json() == payload


def test_every_kind_the_table_writes_has_a_class() -> None:
    written = {"action", "undo", "choice", "sense", "result", "note", "players", "settings",
               "clock", "execute", "cancel", "remote", "board"}
    assert written <= set(ev.KINDS)


def test_keys_a_kind_does_not_declare_are_kept_and_written_back() -> None:
    payload = {"notation": "G6", "player": "light", "from_a_newer_table": [1, 2]}
    event = parse("action", payload)
    assert isinstance(event, ev.Action) and event.extra == {"from_a_newer_table": [1, 2]}
    assert event.to_json() == payload


def test_an_unknown_kind_is_kept_as_it_is() -> None:
    event = parse("hologram", {"x": 1})
    assert isinstance(event, ev.UnknownEvent) and ev.kind_of(event) == "hologram"
    assert event.to_json() == {"x": 1}


def test_the_store_refuses_to_write_what_it_could_not_read_back(tmp_path: Path) -> None:
    with Store.open(tmp_path / "games.sqlite3") as store:
        gid = store.create_game("kato", {"size": 6, "pie": False}, ["Ann", "Bob"])
        with pytest.raises(ValueError, match="'players'.*nothing was written"):
            store.append(gid, "players", {"players": "Ann"})
        assert [e.kind for e in store.events(gid)] == ["created"]


@pytest.mark.parametrize(("kind", "payload", "field"), [
    ("action", {"player": "light"}, "notation"),
    ("action", {"notation": 5}, "notation"),
    ("action", {"notation": "G6", "removed": "F5"}, "removed"),
    ("choice", {"field": "pie"}, "value"),
    ("players", {"players": "Ann"}, "players"),
    ("board", {"name": "x"}, "profile"),
    ("result", {"scores": [1]}, "scores"),
    ("remote", {}, "id"),
])
def test_a_field_a_reader_needs_is_named_when_it_is_wrong(
        kind: str, payload: dict[str, object], field: str) -> None:
    with pytest.raises(CorruptEventError) as caught:
        parse(kind, payload, "game 3, event 12")
    message = str(caught.value)
    assert caught.value.field == field
    assert message.startswith("game 3, event 12: ") and repr(field) in message
    assert "backup" in message  # what to do next


def test_a_log_whose_move_lost_its_notation_is_a_named_error_in_every_command(
        tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with Store.open(db) as store:
        gid = store.create_game("kato", {"size": 6, "pie": False}, ["Ann", "Bob"])
        store.append(gid, "action", {"notation": "G6", "player": "light"})
        store.append(gid, "action", {"notation": "H7", "player": "dark", "source": "board"})
    with sqlite3.connect(db) as conn:  # the log edited by hand: the second move's notation lost
        conn.execute("UPDATE events SET payload = ? WHERE game_id = ? AND seq = ?",
                     (json.dumps({"player": "dark", "source": "board"}), gid, 3))
    cli = [sys.executable, "-m", "meridian_table.cli.main"]
    for args in (["replay", str(gid)], ["export", str(gid), "--format", "record"],
                 ["review", str(gid)]):
        out = subprocess.run([*cli, *args, "--db", str(db)], capture_output=True, text=True,
                             timeout=120, check=False)
        assert out.returncode != 0, (args, out.stdout)
        assert "Traceback" not in out.stderr, (args, out.stderr)
        assert "'notation'" in out.stderr and f"game {gid}, event 3" in out.stderr, (
            args, out.stderr)
