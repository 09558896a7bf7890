"""Database files the store must refuse: each gives its message and is left byte-for-byte
untouched, with no -wal/-shm side files created. Also schema migrations."""

from __future__ import annotations

import hashlib
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from meridian_table.store import (
    SCHEMA_VERSION,
    CorruptDatabaseError,
    DatabaseFileError,
    ForeignDatabaseError,
    MigrationError,
    MissingDatabaseError,
    NewerSchemaError,
    OlderSchemaError,
    ReadOnlyDatabaseError,
    Store,
)
from meridian_table.store.schema import APPLICATION_ID, MIGRATIONS, Migration


def snapshot(folder: Path) -> dict[str, str]:
    """Every file in `folder` with the SHA-256 of its bytes."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def _log_with_a_game(path: Path) -> None:
    with Store.open(path) as store:
        gid = store.create_game("kato", {"size": 6, "pie": False}, ["Ann", "Bob"])
        store.append(gid, "action", {"notation": "G6"})


def _corrupt_pages(path: Path) -> None:
    _log_with_a_game(path)
    data = bytearray(path.read_bytes())
    # Keep the 100-byte header intact (so the magic check passes) and smash the rest
    # of the pages, so only SQLite's own check can tell.
    for i in range(100, len(data)):
        data[i] = (data[i] * 7 + 13) % 256
    path.write_bytes(bytes(data))


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"name,score\nAnn,14\n" * 20)


def _truncated_header(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 20)


def _newer(path: Path) -> None:
    _log_with_a_game(path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()


def _foreign_tables(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()


def _foreign_app_id(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 1234")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()


CASES: list[tuple[str, Callable[[Path], None], type[DatabaseFileError], str]] = [
    ("not-sqlite", _not_sqlite, CorruptDatabaseError, "is not an SQLite database"),
    ("truncated", _truncated_header, CorruptDatabaseError, "is not an SQLite database"),
    ("bad-pages", _corrupt_pages, CorruptDatabaseError, r"is damaged.*\.recover"),
    ("newer", _newer, NewerSchemaError, rf"schema version {SCHEMA_VERSION + 1}.*Upgrade"),
    ("foreign", _foreign_tables, ForeignDatabaseError, "not a Meridian Table game log"),
    ("foreign-id", _foreign_app_id, ForeignDatabaseError, "not a Meridian Table game log"),
]


@pytest.mark.parametrize("readonly", [False, True], ids=["writable", "readonly"])
@pytest.mark.parametrize(("name", "make", "error", "message"), CASES, ids=[c[0] for c in CASES])
def test_refused_files_are_untouched(
    tmp_path: Path,
    name: str,
    make: Callable[[Path], None],
    error: type[DatabaseFileError],
    message: str,
    readonly: bool,
) -> None:
    path = tmp_path / f"{name}.sqlite3"
    make(path)
    before = snapshot(tmp_path)
    assert list(before) == [path.name]  # the fixture left no side files either
    with pytest.raises(error, match=message) as info:
        Store.open(path, readonly=readonly)
    assert str(path) in str(info.value)
    assert "untouched" in str(info.value)
    assert info.value.path == path
    assert snapshot(tmp_path) == before


def test_newer_error_carries_both_versions(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite3"
    _newer(path)
    with pytest.raises(NewerSchemaError) as info:
        Store.open(path)
    assert (info.value.found, info.value.supported) == (SCHEMA_VERSION + 1, SCHEMA_VERSION)


def _make_read_only(path: Path) -> None:
    path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)


def test_read_only_file_refuses_a_writable_open_and_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "archive.sqlite3"
    _log_with_a_game(path)
    _make_read_only(path)
    before = snapshot(tmp_path)
    with pytest.raises(ReadOnlyDatabaseError, match=r"cannot be written: the file is read-only")\
            as info:
        Store.open(path)
    assert str(path) in str(info.value) and "chmod u+w" in str(info.value)
    assert snapshot(tmp_path) == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_read_only_file_can_still_be_read_without_side_files(tmp_path: Path) -> None:
    path = tmp_path / "archive.sqlite3"
    _log_with_a_game(path)
    _make_read_only(path)
    before = snapshot(tmp_path)
    with Store.open(path, readonly=True) as store:
        (info,) = store.games()
        assert info.moves == 1
        assert store.actions(info.id) == ["G6"]
        with pytest.raises(ReadOnlyDatabaseError, match="opened read-only"):
            store.append(info.id, "note", {})
    assert snapshot(tmp_path) == before


def test_read_only_folder_refuses_a_writable_open(tmp_path: Path) -> None:
    # As root too: the folder's mode bits are honoured, not only access().
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "log.sqlite3"
    _log_with_a_game(path)
    folder.chmod(0o555)
    try:
        with pytest.raises(ReadOnlyDatabaseError, match="folder"):
            Store.open(path)
    finally:
        folder.chmod(0o755)


def test_readonly_open_of_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nothing.sqlite3"
    with pytest.raises(MissingDatabaseError, match="does not exist") as info:
        Store.open(path, readonly=True)
    assert isinstance(info.value, FileNotFoundError)
    assert not path.exists()


def test_a_directory_is_not_a_log(tmp_path: Path) -> None:
    with pytest.raises(DatabaseFileError, match="not a regular file"):
        Store.open(tmp_path)


def test_a_new_log_is_wal_full_and_stamped(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "log.sqlite3"
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        conn = store._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    # A clean close checkpoints the WAL away: one self-contained file remains.
    assert sorted(p.name for p in path.parent.iterdir()) == ["log.sqlite3"]


def test_an_empty_file_becomes_a_new_log(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    with Store.open(path) as store:
        assert store.games() == []
        assert store.schema_version == SCHEMA_VERSION


def test_v0_to_v1_migration_creates_the_schema(tmp_path: Path) -> None:
    """Version 0 is a fresh SQLite file; the migrations create the tables."""
    path = tmp_path / "v0.sqlite3"
    sqlite3.connect(path).close()
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        tables = {r[0] for r in store._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"games", "events", "meta"} <= tables


NEXT = SCHEMA_VERSION + 1
V2 = Migration(NEXT, "a seat colour per game (test only)",
               ("ALTER TABLE games ADD COLUMN colour TEXT DEFAULT 'none'",))


def test_v1_to_v2_migration_keeps_data_and_makes_a_backup(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    path = tmp_path / "log.sqlite3"
    _log_with_a_game(path)
    original = path.read_bytes()
    # Pretend this program knows the next schema (a future release) for the whole test.
    monkeypatch.setattr("meridian_table.store.store.SCHEMA_VERSION", NEXT)
    with pytest.raises(OlderSchemaError, match=f"needs migrating to {NEXT}"):
        Store.open(path, readonly=True, migrations=(*MIGRATIONS, V2))
    assert path.read_bytes() == original
    with Store.open(path, migrations=(*MIGRATIONS, V2)) as store:
        assert store.schema_version == NEXT
        assert store.actions(1) == ["G6"]
        assert store._conn.execute("SELECT colour FROM games").fetchone()[0] == "none"
    backup = tmp_path / f"log.sqlite3.v{SCHEMA_VERSION}.bak"
    assert backup.exists()
    with Store.open(backup, readonly=True) as old:
        assert old.schema_version == SCHEMA_VERSION and old.actions(1) == ["G6"]


def test_a_failing_migration_rolls_back_to_the_last_good_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "log.sqlite3"
    _log_with_a_game(path)
    monkeypatch.setattr("meridian_table.store.store.SCHEMA_VERSION", NEXT)
    broken = Migration(NEXT, "broken", ("ALTER TABLE games ADD COLUMN x TEXT",
                                        "ALTER TABLE no_such_table ADD COLUMN y TEXT"))
    with pytest.raises(MigrationError, match=rf"no_such_table.*rolled back.*intact at version "
                                             rf"{SCHEMA_VERSION}"):
        Store.open(path, migrations=(*MIGRATIONS, broken))
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        columns = [r[1] for r in store._conn.execute("PRAGMA table_info(games)")]
        assert "x" not in columns
        assert store.actions(1) == ["G6"]


def test_migrations_must_raise_the_version_one_at_a_time(tmp_path: Path) -> None:
    skip = Migration(NEXT + 1, "skips one", ("SELECT 1",))
    with pytest.raises(ValueError, match=f"jumps from version {SCHEMA_VERSION} to {NEXT + 1}"):
        Store.open(tmp_path / "x.sqlite3", migrations=(*MIGRATIONS, skip))
