"""The log's schema, its version, and the ordered list of migrations that reach it.

The SQL is kept to what SQLite and PostgreSQL both understand (TEXT, INTEGER, plain
primary keys, no AUTOINCREMENT, no triggers), so a shared server can take the same
tables later (docs/STORE.md, "Towards PostgreSQL").
"""

from __future__ import annotations

import json
import logging
import sqlite3
import struct
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

LOGGER = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\x00"
# "MRDT": stamped in the header so a Meridian Table log is recognisable from its bytes.
APPLICATION_ID = 0x4D524454


# Logs from before schema 2 were known to a club by an identity derived from their first
# game and first event; schema 2 stores each log's identity, keeping that one for them.
LOG_NAMESPACE = uuid.UUID("6f1d1c52-2b8e-4c5e-9a43-1f0c2d7e9b10")


@dataclass(frozen=True)
class Migration:
    """The statements that take a database from `version - 1` to `version` (then
    `step`, when given, in the same transaction)."""

    version: int
    description: str
    statements: tuple[str, ...]
    step: Callable[[sqlite3.Connection], None] | None = None


def derived_identity(conn: sqlite3.Connection) -> str | None:
    """The identity a log without a stored one had (derived from its first game and
    first event), or None while it holds no event."""
    row = conn.execute(
        "SELECT g.id, g.game, g.players, g.started, e.id, e.at, e.kind FROM games g "
        "JOIN events e ON e.game_id = g.id ORDER BY g.id, e.id LIMIT 1").fetchone()
    if row is None:
        return None
    return str(uuid.uuid5(LOG_NAMESPACE, json.dumps([str(x) for x in row])))


def _store_identity(conn: sqlite3.Connection) -> None:
    """A log that already holds events keeps the identity a club knows it by; a new one
    gets a random identity of its own, before its first event."""
    identity = derived_identity(conn) or str(uuid.uuid4())
    conn.execute("INSERT INTO meta (key, value) VALUES ('log_id', ?)", (identity,))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "games and their append-only events",
        (
            """CREATE TABLE games (
                id INTEGER PRIMARY KEY,
                game TEXT NOT NULL,
                options TEXT NOT NULL,
                players TEXT NOT NULL,
                profile TEXT,
                versions TEXT NOT NULL,
                started TEXT NOT NULL
            )""",
            """CREATE TABLE events (
                id INTEGER PRIMARY KEY,
                game_id INTEGER NOT NULL REFERENCES games (id),
                seq INTEGER NOT NULL,
                kind TEXT NOT NULL,
                at TEXT NOT NULL,
                payload TEXT NOT NULL,
                UNIQUE (game_id, seq)
            )""",
            "CREATE INDEX events_kind ON events (game_id, kind)",
        ),
    ),
    Migration(
        2,
        "each log has a stored identity (a UUID), so a club tells every log apart",
        ("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",),
        _store_identity,
    ),
)

SCHEMA_VERSION = MIGRATIONS[-1].version


@dataclass(frozen=True)
class Header:
    """What the first 100 bytes of an SQLite file say, read without opening it in SQLite."""

    size: int
    is_sqlite: bool
    user_version: int
    application_id: int


def read_header(path: Path) -> Header:
    """Read the SQLite file header; never writes. An empty file is a valid, empty database."""
    with path.open("rb") as handle:
        head = handle.read(100)
    size = path.stat().st_size
    if size == 0:
        return Header(0, True, 0, 0)
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        return Header(size, False, 0, 0)
    user_version, = struct.unpack(">I", head[60:64])
    application_id, = struct.unpack(">I", head[68:72])
    return Header(size, True, user_version, application_id)


def migrate(
    conn: sqlite3.Connection,
    current: int,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> int:
    """Apply every migration above `current`, each in its own transaction; return the new version.

    A migration that fails is rolled back completely, so the file stays at the last
    version that was reached. `conn` must be in autocommit mode (isolation_level=None).
    """
    version = current
    for step in migrations:
        if step.version <= version:
            continue
        if step.version != version + 1:
            raise ValueError(
                f"migration list jumps from version {version} to {step.version}; "
                "each migration must raise the version by exactly one"
            )
        LOGGER.info("migrating game log to schema %d: %s", step.version, step.description)
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in step.statements:
                conn.execute(statement)
            if step.step is not None:
                step.step(conn)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {step.version}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        version = step.version
    return version
