"""Each table log's identity is stored in the log (schema 2), so "a table switches to a
new log" is exact: two logs are two logs whatever they hold, and a log from before keeps
the identity the club already knows it by."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from meridian_table.club.replicator import LocalLog, Replicator
from meridian_table.store import Store
from meridian_table.store.schema import MIGRATIONS, Migration, derived_identity

from .conftest import Club

INSTANT = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)


def _same_game(path: Path, migrations: Sequence[Migration] = MIGRATIONS) -> None:
    """A game begun at one fixed instant: two such logs hold the very same rows."""
    with Store.open(path, clock=lambda: INSTANT, migrations=migrations) as store:
        gid = store.create_game("kato", {"size": 6, "pie": False}, ["Ann", "Bob"])
        store.append(gid, "action", {"notation": "G6", "player": "Ann"})
        store.append(gid, "action", {"notation": "D4", "player": "Bob"})


def _ship(log: Path, url: str) -> None:
    with Replicator(log, url) as replicator:
        assert replicator.wait_caught_up(30)


def _held(club: Club) -> list[tuple[str, int, int]]:
    with psycopg.connect(club.page_url) as conn:
        return [(str(log), int(g), int(s)) for log, g, s in conn.execute(
            "SELECT g.log_id, g.local_game, e.seq FROM club.events e JOIN club.games g "
            "USING (table_name, game_id) WHERE table_name = 'table7' ORDER BY 1, 2, 3")]


def test_a_new_log_has_its_own_identity_before_its_first_event(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.sqlite3") as one, Store.open(tmp_path / "b.sqlite3") as two:
        stored = one.log_id
        assert uuid.UUID(stored) and stored != two.log_id
    log = LocalLog(tmp_path / "a.sqlite3")
    try:
        assert log.identity() == stored
    finally:
        log.close()


def test_two_logs_with_the_same_rows_are_two_logs_in_the_club(
        club: Club, tmp_path: Path) -> None:
    """A second laptop whose log holds exactly what the first held (begun at the same
    instant): derived from the rows, both had one identity and the second log's game
    never reached the club."""
    with club.admin() as admin:
        url = admin.add_table("table7")
    first, second = tmp_path / "first.sqlite3", tmp_path / "second.sqlite3"
    _same_game(first)
    _same_game(second)
    _ship(first, url)
    _ship(second, url)
    held = _held(club)
    assert len(held) == 6 and len({log for log, _, _ in held}) == 2, held


def test_a_log_from_before_keeps_the_identity_the_club_knows(
        club: Club, tmp_path: Path) -> None:
    """A log of schema 1 shipped under its derived identity, then opened by this release
    (migrated to schema 2): it stores that same identity and goes on from its mark,
    nothing twice."""
    with club.admin() as admin:
        url = admin.add_table("table7")
    path = tmp_path / "old.sqlite3"
    _same_game(path, MIGRATIONS[:1])
    log = LocalLog(path)
    try:
        derived = log.identity()
        assert derived is not None and derived == derived_identity(log._conn)
    finally:
        log.close()
    _ship(path, url)
    with Store.open(path) as store:             # migrated here
        assert store.schema_version == 2 and store.log_id == derived
        store.append(1, "action", {"notation": "E4", "player": "Ann"})
    _ship(path, url)
    held = _held(club)
    assert held == [(derived, 1, seq) for seq in (1, 2, 3, 4)], held
