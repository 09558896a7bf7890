"""Replication into a real PostgreSQL: the copy equals the log, through a server
restart while the table keeps playing, a table cut off, and a replicator killed -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from meridian_table.club.cluster import Cluster
from meridian_table.club.replicator import Replicator
from meridian_table.club.simtable import SimTable, two_player_game

from .conftest import Club, club_at_version

GAME = two_player_game()


def local_rows(path: Path) -> list[tuple[int, int, str, object]]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT game_id, seq, kind, payload FROM events ORDER BY id").fetchall()
    return [(int(g), int(s), str(k), json.loads(p)) for g, s, k, p in rows]


def club_rows(club: Club, table: str) -> list[tuple[int, int, str, object]]:
    with psycopg.connect(club.page_url) as conn:
        rows = conn.execute(
            "SELECT game_id, seq, kind, payload FROM club.events WHERE table_name = %s "
            "ORDER BY local_id", (table,)).fetchall()
    return [(int(g), int(s), str(k), p) for g, s, k, p in rows]


def wait_until(predicate: object, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.05)
    return False


def test_the_club_copy_equals_the_log(club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
    log = tmp_path / "games.sqlite3"
    with SimTable(log, GAME, ["Ann", "Bob"], seed=1) as table:
        for _ in range(40):
            table.step()
        with Replicator(log, url) as replicator:
            assert replicator.wait_caught_up(20)
            assert club_rows(club, "table7") == local_rows(log)
            for _ in range(10):
                table.step()
            assert replicator.wait_caught_up(20)
            status = replicator.status()
            assert status.state == "connected" and status.backlog == 0
            assert status.shipped == len(local_rows(log))
            assert "***" in status.club and url.split(":")[2].split("@")[0] not in status.club
    assert club_rows(club, "table7") == local_rows(log)


def test_a_restarted_server_and_a_long_outage_lose_nothing(club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
    log = tmp_path / "games.sqlite3"
    with SimTable(log, GAME, ["Ann", "Bob"], seed=2) as table, Replicator(log, url) as rep:
        for _ in range(20):
            table.step()
        assert rep.wait_caught_up(20)
        club.cluster.stop("immediate")           # the server dies mid-stream...
        try:
            for _ in range(30):                  # ...while the table keeps playing
                table.step()
            assert wait_until(lambda: rep.status().state == "offline")
            assert rep.status().backlog > 0
        finally:
            club.cluster.start()
        assert rep.wait_caught_up(30)            # it catches up by itself
        assert rep.status().state == "connected"
    assert club_rows(club, "table7") == local_rows(log)


@pytest.mark.slow
def test_a_replicator_killed_mid_batch_resumes_without_duplicates(
        club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
    log = tmp_path / "games.sqlite3"
    with SimTable(log, GAME, ["Ann", "Bob"], seed=3) as table:
        for _ in range(3000):
            table.step()
    command = [sys.executable, "-m", "meridian_table.cli.main", "club", "replicate",
               "--club", url, "--log", str(log), "--once", "--batch", "20"]
    for attempt in range(3):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # kill -9 as soon as the first batches are in, while later ones are in flight
        wait_until(lambda p=process: len(club_rows(club, "table7")) > 0 or p.poll() is not None)
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        if attempt == 0:
            shipped = len(club_rows(club, "table7"))
            assert 0 < shipped < 3000, "the kill should land mid-stream"
    finished = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout.splitlines()[-1])["backlog"] == 0
    assert club_rows(club, "table7") == local_rows(log)


def test_a_revoked_table_is_refused_and_says_so(club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
        admin.remove_table("table7")
    log = tmp_path / "games.sqlite3"
    with SimTable(log, GAME, ["Ann", "Bob"]) as table:
        table.step()
    with Replicator(log, url) as rep:
        assert wait_until(lambda: rep.status().state in ("offline", "refused"))
        assert "table7" in rep.status().detail or "not permitted" in rep.status().detail


def test_a_table_cut_off_from_the_network_catches_up(club: Club, tmp_path: Path) -> None:
    """The network vanishes without a word for a while (the bench does 60 s): the
    replicator notices by itself, the table plays on, and it catches up after."""
    from .proxy import Proxy

    with club.admin() as admin:
        url = admin.add_table("table7")
    proxy = Proxy(club.cluster.port)
    log = tmp_path / "games.sqlite3"
    try:
        with SimTable(log, GAME, ["Ann", "Bob"], seed=4) as table, \
                Replicator(log, proxy.url(url)) as rep:
            for _ in range(10):
                table.step()
            assert rep.wait_caught_up(20)
            proxy.cut()
            for _ in range(20):
                table.step()
                time.sleep(0.3)             # the table keeps playing through the cut
            assert wait_until(lambda: rep.status().state in ("offline", "connecting"), 15)
            assert rep.status().backlog > 0
            proxy.restore()
            assert rep.wait_caught_up(30)
    finally:
        proxy.close()
    assert club_rows(club, "table7") == local_rows(log)


def _club_games(club: Club, table: str) -> list[tuple[int, list[tuple[int, str]]]]:
    """Each of the table's games in the club: its number and its events (seq, kind)."""
    with psycopg.connect(club.page_url) as conn:
        rows = conn.execute("SELECT game_id, seq, kind FROM club.events WHERE table_name = %s "
                            "ORDER BY game_id, seq", (table,)).fetchall()
    games: dict[int, list[tuple[int, str]]] = {}
    for g, s, k in rows:
        games.setdefault(int(g), []).append((int(s), str(k)))
    return sorted(games.items())


def _local_games(log: Path) -> list[list[tuple[int, str]]]:
    import sqlite3

    with sqlite3.connect(log) as conn:
        rows = conn.execute("SELECT game_id, seq, kind FROM events ORDER BY game_id, seq")
        games: dict[int, list[tuple[int, str]]] = {}
        for g, s, k in rows:
            games.setdefault(int(g), []).append((int(s), str(k)))
    return [games[g] for g in sorted(games)]


def _play(log: Path, steps: int, seed: int) -> None:
    with SimTable(log, GAME, ["Ann", "Bob"], seed=seed) as table:
        for _ in range(steps):
            table.step()


def _ship(log: Path, url: str) -> None:
    with Replicator(log, url) as replicator:
        assert replicator.wait_caught_up(20)


def test_a_table_with_a_new_log_ships_everything_under_new_game_numbers(
        club: Club, tmp_path: Path) -> None:
    """A new laptop (another log) at the same table: its games arrive whole, beside the
    old log's, under numbers of their own; the old log, back again, goes on shipping."""
    with club.admin() as admin:
        url = admin.add_table("table7")
    old, new = tmp_path / "old.sqlite3", tmp_path / "new.sqlite3"
    _play(old, 60, seed=1)
    _ship(old, url)
    _play(new, 12, seed=2)     # fewer events than the old log: its ids stay below its mark
    _ship(new, url)
    _play(old, 5, seed=3)      # the old laptop comes back with one more game
    _ship(old, url)
    held = [events for _, events in _club_games(club, "table7")]
    expected = _local_games(old) + _local_games(new)
    assert sorted(held) == sorted(expected)          # lost 0, duplicated 0
    assert len(held) == len(expected)
    # the page shows the new log's game from its start, without "cannot show"
    from starlette.testclient import TestClient

    from meridian_table.club.web import create_club_app

    numbers = [g for g, _ in _club_games(club, "table7")]
    with TestClient(create_club_app(club.page_url), base_url="http://127.0.0.1") as page:
        for number in numbers:
            detail = page.get(f"/game/table7/{number}?format=json").json()
            assert detail["error"] is None, (number, detail["error"])


def test_an_upgraded_club_adopts_what_the_old_replicator_shipped(
        cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A club of schema 4 holds a log shipped before logs had an identity: after `club
    init` migrates it, that log goes on from its mark (nothing twice), and another log of
    the same table ships beside it."""
    import sqlite3

    from meridian_table.club.admin import init_club

    old = club_at_version(cluster, 4, monkeypatch)
    with old.admin() as admin:
        url = admin.add_table("table7")
    log = tmp_path / "games.sqlite3"
    _play(log, 30, seed=4)
    with sqlite3.connect(log) as local, psycopg.connect(url) as conn:   # as schema 4 did
        for gid, game, options, players, versions, started in local.execute(
                "SELECT id, game, options, players, versions, started FROM games"):
            conn.execute("INSERT INTO club.games (game_id, game, options, players, versions, "
                         "started) VALUES (%s, %s, %s, %s, %s, %s)",
                         (gid, game, options, players, versions, started))
        for lid, gid, seq, kind, at, payload in local.execute(
                "SELECT id, game_id, seq, kind, at, payload FROM events ORDER BY id"):
            conn.execute("INSERT INTO club.events (game_id, seq, local_id, kind, at, payload) "
                         "VALUES (%s, %s, %s, %s, %s, %s)", (gid, seq, lid, kind, at, payload))
    monkeypatch.undo()
    init_club(old.superuser_url)
    _play(log, 8, seed=5)
    _ship(log, url)
    other = tmp_path / "other.sqlite3"
    _play(other, 10, seed=6)
    _ship(other, url)
    held = [events for _, events in _club_games(old, "table7")]
    expected = _local_games(log) + _local_games(other)
    assert sorted(held) == sorted(expected) and len(held) == len(expected)


def test_a_remote_copy_shipped_by_a_later_run_keeps_its_remote_id(
        club: Club, tmp_path: Path) -> None:
    """The table's side of a remote game, shipped later by `club replicate` (not by the
    `play --remote` that logged it): the log's remote event names the remote game."""
    from meridian_table.club.remote import invite
    from meridian_table.store import Store

    with club.admin() as admin:
        north = admin.add_table("north")
        admin.add_table("south")
    invite(club.admin_url, "duel1", "kato", {"size": 5}, ["Ann", "Bob"], ["north", "south"])
    log = tmp_path / "north.sqlite3"
    store = Store.open(log)
    try:
        game = store.create_game("kato", {"size": 5}, ["Ann", "Bob"])
        store.append(game, "remote", {"id": "duel1", "table": "north"})
        store.append(game, "action", {"notation": "A1", "player": "Ann"})
    finally:
        store.close()
    _ship(log, north)
    with psycopg.connect(club.page_url) as conn:
        assert conn.execute("SELECT table_name, remote FROM club.games").fetchall() == [
            ("north", "duel1")]
