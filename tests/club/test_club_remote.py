"""Two boards, one game: a remote Kato game between two virtual boards played to the end
through a real PostgreSQL. Each board's LEDs show the other side's moves (the execute
phase) for its people to carry out, a PostgreSQL restart mid-game pauses and then
resynchronises, and both tables' logs equal the club's copy."""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from tests.games.kato.test_kato_virtual import Driver, red, white
from tests.table.test_automata_virtual import carry_out, resolve

from meridian_table.club.errors import ClubError
from meridian_table.club.remote import attach, invite, remote_setup
from meridian_table.table.runner import TableSetup, open_table

from .conftest import Club


def _actions(log: Path) -> list[str]:
    with sqlite3.connect(log) as conn:
        rows = conn.execute("SELECT kind, payload FROM events ORDER BY id").fetchall()
    out: list[str] = []
    for kind, payload in rows:
        if kind == "action":
            out.append(__import__("json").loads(payload)["notation"])
        elif kind == "undo":
            out.pop()
    return out


def _club_copy(club: Club, table: str) -> list[tuple[int, str]]:
    with psycopg.connect(club.page_url) as conn:
        return [(int(s), str(k)) for s, k in conn.execute(
            "SELECT seq, kind FROM club.events WHERE table_name = %s ORDER BY local_id",
            (table,))]


def _local_copy(log: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(log) as conn:
        return [(int(s), str(k)) for s, k in conn.execute(
            "SELECT seq, kind FROM events ORDER BY id")]


def play_remote(urls: dict[str, str], remote_id: str, tmp_path: Path,
                midway: Callable[[], None] | None = None) -> dict[str, Path]:
    """Play remote game ``remote_id`` to its end between two virtual boards, one per
    table of ``urls`` (north, south), each carrying out the other side's moves as its
    LEDs show them; ``midway`` runs once after six moves. Returns each table's log, all
    of it in the club."""
    tables, drivers, replicators, logs = {}, {}, {}, {}
    try:
        for name in ("north", "south"):
            logs[name] = tmp_path / f"{name}.sqlite3"
            base = TableSetup(game="kato", board="sim", db=str(logs[name]), settle_s=0.04)
            setup, link = remote_setup(urls[name], remote_id, base)
            assert setup.players == ("Ann", "Bob") and setup.options["size"] == 5
            tables[name] = open_table(setup)
            assert tables[name].wait_ready(30)
            replicators[name] = attach(tables[name], link)
            drivers[name] = Driver(tables[name])
        rng = random.Random(4)
        shown = {"north": 0, "south": 0}
        done_midway = midway is None
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            done = 0
            for name, d in drivers.items():
                if d.session.settling:
                    continue
                state = d.state()
                phase = state["phase"]
                if phase == "ended":
                    done += 1
                elif phase == "execute":   # the other side's move, lit on this board
                    d.idle()
                    state = d.state()
                    if state["phase"] != "execute":
                        continue
                    target = state["diff"]["next"]
                    d.shows(target, white if target in state["diff"]["put_back"] else red)
                    shown[name] += 1
                    carry_out(d)
                elif phase == "resync":     # dead stones to take off, guided one by one
                    resolve(d)
                elif phase == "pass":
                    d.session.press("confirm")
                elif phase == "play":
                    d.set(rng.choice(state["legal"]), True)
                    if not done_midway and len(state["moves"]) >= 6:
                        assert midway is not None
                        midway()
                        done_midway = True
            if done == 2:
                break
            time.sleep(0.02)
        else:
            raise AssertionError(f"the remote game did not end: {[d.state()['phase'] for d in drivers.values()]}")
        assert done_midway and shown["north"] > 3 and shown["south"] > 3
        north, south = drivers["north"].state(), drivers["south"].state()
        assert north["result"] is not None and south["result"] is not None
        assert _actions(logs["north"]) == _actions(logs["south"])
        assert len(_actions(logs["north"])) >= 8
        for name in ("north", "south"):
            assert replicators[name].wait_caught_up(30)
    finally:
        for rep in replicators.values():
            rep.close()
        for table in tables.values():
            table.close()
    return logs


@pytest.mark.slow
def test_a_remote_kato_game_between_two_virtual_boards(club: Club, tmp_path: Path) -> None:
    """A PostgreSQL restart mid-game pauses both sides, then they go on."""
    with club.admin() as admin:
        urls = {name: admin.add_table(name) for name in ("north", "south")}
    invite(club.admin_url, "duel-1", "kato", {"size": 5, "pie": False}, ["Ann", "Bob"],
           ["north", "south"])
    logs = play_remote(urls, "duel-1", tmp_path,
                       midway=lambda: club.cluster.restart("immediate"))
    for name in ("north", "south"):
        assert _club_copy(club, name) == _local_copy(logs[name])
    # the game's sources: each side played its own seat, the other came through the club
    with psycopg.connect(club.page_url) as conn:
        remote = conn.execute("SELECT table_name, remote FROM club.games ORDER BY 1").fetchall()
    assert remote == [("north", "duel-1"), ("south", "duel-1")]


def test_a_remote_game_without_a_seat_here_is_refused(club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        east = admin.add_table("east")
        admin.add_table("north")
        admin.add_table("south")
    invite(club.admin_url, "duel-2", "kato", {"size": 5}, ["Ann", "Bob"], ["north", "south"])
    base = TableSetup(game="kato", board="sim", db=str(tmp_path / "g.sqlite3"))
    with pytest.raises(ClubError, match="no remote game 'duel-2' with a seat at this table"):
        remote_setup(east, "duel-2", base)
    with pytest.raises(ClubError, match="no active table 'west'"):
        invite(club.admin_url, "duel-3", "kato", {}, ["A", "B"], ["north", "west"])
    with pytest.raises(ClubError, match="already a remote game"):
        invite(club.admin_url, "duel-2", "kato", {}, ["A", "B"], ["north", "south"])
