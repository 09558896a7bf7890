"""The game log: an append-only SQLite event log (WAL, synchronous=FULL).

Every `append` is its own committed transaction: when it returns, the event is on
disk (the WAL is fsynced at commit), so a `kill -9` a moment later loses nothing the
caller went on to show as done. One connection is shared by every thread and guarded
by a lock, so the link thread and the web loop can both call in (docs/STORE.md).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shutil
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote

from meridian_table import __version__
from meridian_table.store import errors
from meridian_table.store.events import Action, CorruptEventError, Execute, LogEvent, parse
from meridian_table.store.paths import resolve
from meridian_table.store.schema import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    Migration,
    migrate,
    read_header,
)
from meridian_table.textload import json_loads

LOGGER = logging.getLogger(__name__)

Clock = Callable[[], datetime]

_KIND_RE = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_BUSY_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Event:
    """One committed entry of a game's log. `seq` counts from 1 within the game."""

    id: int
    game_id: int
    seq: int
    kind: str
    at: str
    payload: dict[str, Any] = field(hash=False)

    def typed(self) -> LogEvent:
        """The event as its kind's dataclass (``meridian_table.store.events``);
        CorruptEventError names this game, event and the field that cannot be read."""
        return parse(self.kind, self.payload, f"game {self.game_id}, event {self.seq}")

    @property
    def notation(self) -> str:
        """The move of an ``action`` (or ``execute``) event; CorruptEventError when the
        log lost it (a hand-edited log)."""
        event = self.typed()
        if not isinstance(event, Action | Execute):
            raise CorruptEventError(self.kind, "notation", "is asked of an event that has none",
                                    f"game {self.game_id}, event {self.seq}")
        return event.notation

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-able dict (one line of the JSON Lines export)."""
        return {
            "game_id": self.game_id,
            "seq": self.seq,
            "kind": self.kind,
            "at": self.at,
            "payload": self.payload,
        }


@dataclass(frozen=True)
class GameInfo:
    """A logged game as listed by `Store.games()`.

    `status` is "running" (no result yet), "finished" or "abandoned". `moves` counts
    the actions still standing after undos.
    """

    id: int
    game: str
    options: dict[str, Any] = field(hash=False)
    players: tuple[str, ...]
    profile: str | None
    versions: dict[str, Any] = field(hash=False)
    started: str
    updated: str
    moves: int
    status: str
    result: dict[str, Any] | None = field(hash=False)


def _now() -> datetime:
    return datetime.now(UTC)


def _dumps(value: object, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise errors.InvalidEventError(
            f"{what} is not JSON-serialisable ({exc}); pass plain dicts, lists, strings, "
            "finite numbers, booleans and None"
        ) from exc


def _writable(path: Path) -> bool:
    """Writable by us AND not marked read-only: root passes os.access on a 0444 file
    or a 0555 folder, but one whose owner removed every write bit was made read-only
    on purpose. Used for the file and for its folder alike."""
    mode = path.stat().st_mode
    return os.access(path, os.W_OK) and bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _empty_log(migrations: Sequence[Migration]) -> sqlite3.Connection:
    """An empty game log in memory: what a 0-byte file holds, read without writing it."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    migrate(conn, 0, migrations)
    return conn


def _ro_uri(path: Path) -> str:
    """A URI that reads `path` without writing anything next to it.

    With no -wal file there is nothing pending, so `immutable=1` reads the main file
    as it is and creates no -wal/-shm side files. With a -wal file (a writer is live,
    or crashed), `mode=ro` is needed to see the committed events still in it.
    """
    wal = path.with_name(path.name + "-wal")
    query = "mode=ro" if wal.exists() else "immutable=1"
    return f"file:{quote(str(path.resolve()))}?{query}"


def _probe(path: Path) -> sqlite3.Connection:
    """Open `path` read-only and check it is an intact Meridian Table log of a known version.

    Returns the read-only connection (the caller keeps or closes it). Raises a
    DatabaseFileError subclass, having written nothing.
    """
    header = read_header(path)
    if not header.is_sqlite:
        raise errors.CorruptDatabaseError(
            path,
            f"{path} is not an SQLite database (its first bytes are not the SQLite header). "
            "It was left untouched. Point --db or MERIDIAN_TABLE_DB at another file, or move "
            "this one aside to start a new log.",
        )
    if header.application_id not in (0, APPLICATION_ID):
        raise _foreign(path)
    if header.user_version > SCHEMA_VERSION:
        raise _newer(path, header.user_version)
    conn = sqlite3.connect(_ro_uri(path), uri=True, isolation_level=None, check_same_thread=False)
    try:
        check = conn.execute("PRAGMA quick_check").fetchall()
        if check != [("ok",)]:
            detail = "; ".join(str(row[0]) for row in check[:3])
            raise errors.CorruptDatabaseError(path, _corrupt_message(path, detail))
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise _newer(path, version)
        if app_id not in (0, APPLICATION_ID):
            raise _foreign(path)
        if version == 0:
            tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
            if tables:
                raise _foreign(path)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        conn.close()
        raise errors.CorruptDatabaseError(path, _corrupt_message(path, str(exc))) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _corrupt_message(path: Path, detail: str) -> str:
    return (
        f"{path} is damaged: SQLite reports {detail!r}. It was left untouched. Keep a copy; "
        f"`sqlite3 {path} .recover` may rescue its events into a new file. Meanwhile point "
        "--db or MERIDIAN_TABLE_DB at another file."
    )


def _newer(path: Path, found: int) -> errors.NewerSchemaError:
    return errors.NewerSchemaError(
        path,
        f"{path} uses game-log schema version {found}, but this Meridian Table "
        f"({__version__}) knows versions up to {SCHEMA_VERSION}. It was left untouched. "
        "Upgrade Meridian Table to read it, or use another file with --db or MERIDIAN_TABLE_DB.",
        found,
        SCHEMA_VERSION,
    )


def _foreign(path: Path) -> errors.ForeignDatabaseError:
    return errors.ForeignDatabaseError(
        path,
        f"{path} is an SQLite database but not a Meridian Table game log. It was left "
        "untouched. Point --db or MERIDIAN_TABLE_DB at a game log or at a new file name.",
    )


def _read_only(path: Path, why: str, fix: Path | None = None) -> errors.ReadOnlyDatabaseError:
    """``fix`` is what to make writable: the file (default) or its folder."""
    return errors.ReadOnlyDatabaseError(
        path,
        f"{path} cannot be written: {why}. It was left untouched. To only look at it, open it "
        "read-only (the `games`, `replay` and `export` commands do); to play, make it writable "
        f"(`chmod u+w {fix or path}`) or choose another file with --db or MERIDIAN_TABLE_DB.",
    )


def _stored(path: Path, text: object, what: str, kind: type) -> Any:
    """A JSON column as written by this store; anything else (a file edited by hand or by
    another program) is CorruptDatabaseError naming the file and the row."""
    try:
        if not isinstance(text, (str, bytes)):
            raise ValueError(f"a {type(text).__name__} where JSON text belongs")
        value = json_loads(text)
        if not isinstance(value, kind):
            raise ValueError(f"a {type(value).__name__} where a {kind.__name__} belongs")
    except ValueError as exc:
        raise errors.CorruptDatabaseError(
            path,
            f"{path} holds data this program did not write ({what}: {exc}). "
            "Keep a copy of the file and point --db or MERIDIAN_TABLE_DB at another one.",
        ) from None
    return value


class Store:
    """The game log. Open with `Store.open(path=None, readonly=False)`; close when done."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        *,
        readonly: bool,
        clock: Clock = _now,
    ) -> None:
        """Wrap an open connection; use `Store.open`, which checks and migrates the file."""
        self._conn = conn
        self._path = path
        self._readonly = readonly
        self._clock = clock
        # One connection for all threads: sqlite3 objects are not safe to share
        # without it, and appends must not interleave their seq computation.
        self._lock = threading.RLock()
        self._closed = False

    # ----------------------------------------------------------------- opening

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        readonly: bool = False,
        *,
        clock: Clock = _now,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> Store:
        """Open (and, when writable, create or migrate) the log at `path`.

        `path=None` means `$MERIDIAN_TABLE_DB`, else the user's data directory. A corrupt,
        foreign, newer-version or (for a writable open) read-only file raises a
        `DatabaseFileError` subclass and is never modified. A migration first copies the
        file to `<name>.v<old>.bak`.
        """
        target = resolve(path)
        if target.exists() and not target.is_file():
            raise errors.DatabaseFileError(
                target, f"{target} is not a regular file; pass the path of a game-log file."
            )
        latest = migrations[-1].version if migrations else 0
        if readonly:
            return cls._open_readonly(target, latest, clock, migrations)
        return cls._open_writable(target, clock, migrations)

    @classmethod
    def _open_readonly(
        cls, target: Path, latest: int, clock: Clock, migrations: Sequence[Migration]
    ) -> Store:
        if not target.exists():
            raise errors.MissingDatabaseError(
                target,
                f"{target} does not exist, so there are no logged games to show. Play a game "
                "first, or point --db or MERIDIAN_TABLE_DB at an existing log.",
            )
        conn = _probe(target)
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version == 0 and target.stat().st_size == 0:
            # A 0-byte file (touched, or created by a crash before its first write) is
            # an empty log: read it as one, and leave the file as it is.
            conn.close()
            return cls(_empty_log(migrations), target, readonly=True, clock=clock)
        if version < latest and target.stat().st_size > 0:
            conn.close()
            raise errors.OlderSchemaError(
                target,
                f"{target} uses game-log schema version {version} and needs migrating to "
                f"{latest}, which a read-only open cannot do. Open it writable once (for "
                "example `meridian-table games --upgrade`); a backup copy is made first.",
            )
        return cls(conn, target, readonly=True, clock=clock)

    @classmethod
    def _open_writable(
        cls, target: Path, clock: Clock, migrations: Sequence[Migration]
    ) -> Store:
        if target.exists():
            if not _writable(target):
                raise _read_only(target, "the file is read-only")
            if not _writable(target.parent):
                raise _read_only(
                    target, f"its folder {target.parent} is read-only (SQLite needs a -wal file)",
                    target.parent,
                )
            _probe(target).close()
        else:
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise _read_only(target, f"its folder cannot be created ({exc})") from exc
            if not _writable(target.parent):
                raise _read_only(target, f"its folder {target.parent} is read-only", target.parent)
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(
                str(target), isolation_level=None, check_same_thread=False,
                timeout=_BUSY_TIMEOUT_S,
            )
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if conn is not None:
                conn.close()
            reason = errors.unwritable_reason(str(exc))
            if reason is not None:  # a full disk, a held lock: said as such
                raise errors.LogUnwritableError(target, reason, str(exc)) from None
            # e.g. a folder that accepts no new files (/proc, an odd mount)
            raise errors.DatabaseFileError(
                target,
                f"{target} cannot be opened for writing: SQLite reports {str(exc)!r}. Choose a "
                "file in an ordinary writable folder with --db or MERIDIAN_TABLE_DB.",
            ) from exc
        try:
            if version > SCHEMA_VERSION:
                # A newer header only in the WAL: the pre-check could not see it.
                raise _newer(target, version)
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise _read_only(target, f"SQLite refused WAL mode (journal_mode is {mode!r})")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            latest = migrations[-1].version if migrations else 0
            if 0 < version < latest:
                backup = target.with_name(f"{target.name}.v{version}.bak")
                LOGGER.warning("backing up %s to %s before migrating", target, backup)
                conn.execute("PRAGMA wal_checkpoint(FULL)")
                shutil.copy2(target, backup)
            try:
                migrate(conn, version, migrations)
            except sqlite3.Error as exc:
                reason = errors.unwritable_reason(str(exc))
                if isinstance(exc, sqlite3.OperationalError) and reason is not None:
                    # Not a bug: a full disk or a held lock while the log was set up.
                    raise errors.LogUnwritableError(target, reason, str(exc)) from None
                reached = int(conn.execute("PRAGMA user_version").fetchone()[0])
                raise errors.MigrationError(
                    target,
                    f"migrating {target} to schema {latest} failed ({exc}); it was rolled back "
                    f"and the file is intact at version {reached}. Report this as a bug; "
                    "meanwhile use an older Meridian Table or another --db file.",
                ) from exc
        except sqlite3.OperationalError as exc:
            conn.close()
            reason = errors.unwritable_reason(str(exc))
            if reason is None:
                raise
            raise errors.LogUnwritableError(target, reason, str(exc)) from None
        except BaseException:
            conn.close()
            raise
        return cls(conn, target, readonly=False, clock=clock)

    # ----------------------------------------------------------- plumbing

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @property
    def readonly(self) -> bool:
        """True when opened read-only: every write raises ReadOnlyDatabaseError."""
        return self._readonly

    @property
    def log_id(self) -> str:
        """This log's identity (a UUID stored in it): a club keeps each log's games and
        high-water mark under it, so a new laptop's log never passes for the old one."""
        with self._lock:
            return str(self._conn.execute(
                "SELECT value FROM meta WHERE key = 'log_id'").fetchone()[0])

    @property
    def schema_version(self) -> int:
        """PRAGMA user_version of the open file."""
        with self._lock:
            return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        """Close the connection. Idempotent. A writable close checkpoints the WAL away."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store.open({str(self._path)!r}, readonly={self._readonly!r})"

    def _check_open(self, writing: bool) -> None:
        if self._closed:
            raise errors.StoreError(f"the game log {self._path} is closed; open it again")
        if writing and self._readonly:
            raise _read_only(self._path, "it was opened read-only")

    def _stamp(self) -> str:
        return self._clock().astimezone(UTC).isoformat(timespec="microseconds")

    def _transaction_insert(
        self, game_id: int, kind: str, payload: dict[str, Any], text: str
    ) -> Event:
        """Append one event in its own committed transaction (lock held by the caller)."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            self._check_appendable(game_id, kind, payload)
            row = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()
            seq = int(row[0])
            at = self._stamp()
            cursor = conn.execute(
                "INSERT INTO events (game_id, seq, kind, at, payload) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, kind, at, text),
            )
            event_id = int(cursor.lastrowid or 0)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        LOGGER.debug("game %d: appended %s #%d", game_id, kind, seq)
        return Event(event_id, game_id, seq, kind, at, payload)

    def _check_appendable(self, game_id: int, kind: str, payload: Mapping[str, Any]) -> None:
        exists = self._conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone()
        if exists is None:
            raise self._unknown(game_id)
        if kind != "note":
            done = self._conn.execute(
                "SELECT 1 FROM events WHERE game_id = ? AND kind = 'result'", (game_id,)
            ).fetchone()
            if done is not None:
                raise errors.GameFinishedError(
                    f"game {game_id} already has a result, so a {kind!r} event cannot be "
                    "appended; start a new game (a 'note' event is still allowed)"
                )
        if kind == "undo":
            standing = self._standing_actions(game_id)
            if not standing:
                raise errors.InvalidEventError(
                    f"game {game_id}: undo with no action left to undo; nothing was written"
                )
            expected = standing[-1].payload.get("notation")
            claimed = payload.get("notation")
            if claimed is not None and claimed != expected:
                raise errors.InvalidEventError(
                    f"game {game_id}: undo names {claimed!r} but the last standing action is "
                    f"{expected!r}; nothing was written (reload the game's state)"
                )

    def _unknown(self, game_id: int) -> errors.UnknownGameError:
        return errors.UnknownGameError(
            f"no game with id {game_id!r} in {self._path}; `meridian-table games` lists them"
        )

    # -------------------------------------------------------------- writing

    def create_game(
        self,
        game: str,
        options: Mapping[str, Any],
        players: Sequence[str],
        profile: str | None = None,
        versions: Mapping[str, Any] | None = None,
    ) -> int:
        """Log a new game and return its id. Its first event (seq 1) is "created".

        `players` are names in seat order (the first moves first). `options` must be
        exactly what `games.<game>.new_game(**options)` takes. `versions` records the
        firmware and protocol versions; the host version is filled in when missing.
        """
        self._check_open(writing=True)
        if not isinstance(game, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", game):
            raise errors.InvalidEventError(
                f"game name {game!r} is not a game id (lower-case letters, digits, _); nothing was written"
            )
        if isinstance(players, str) or not all(isinstance(p, str) and p for p in players):
            raise errors.InvalidEventError(
                f"players {players!r} must be a list of non-empty names; nothing was written"
            )
        if len(set(players)) != len(players):
            raise errors.InvalidEventError(
                f"players {list(players)!r} has a repeated name; names identify players in "
                "results and exports, so make them unique"
            )
        options_d = dict(options)
        versions_d = {"host": __version__, **dict(versions or {})}
        payload: dict[str, Any] = {
            "game": game,
            "options": options_d,
            "players": list(players),
            "profile": profile,
            "versions": versions_d,
        }
        text = _dumps(payload, f"the new {game!r} game")
        with self._lock, self._writing():
            self._check_open(writing=True)
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                at = self._stamp()
                cursor = conn.execute(
                    "INSERT INTO games (game, options, players, profile, versions, started) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        game,
                        _dumps(options_d, "options"),
                        _dumps(list(players), "players"),
                        profile,
                        _dumps(versions_d, "versions"),
                        at,
                    ),
                )
                game_id = int(cursor.lastrowid or 0)
                conn.execute(
                    "INSERT INTO events (game_id, seq, kind, at, payload) VALUES (?, 1, ?, ?, ?)",
                    (game_id, "created", at, text),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        LOGGER.info("game %d (%s) created for %s", game_id, game, ", ".join(players))
        return game_id

    def append(self, game_id: int, kind: str, payload: Mapping[str, Any] | None = None) -> Event:
        """Append one event and commit it; when this returns the event is durable.

        Kinds: "action" (payload needs "notation"), "undo" (takes back the last standing
        action; an optional "notation" must name it), "sense" (a sensed change the table
        interpreted), "note", or any other lower-case word for table events such as
        "choice" or "pause". "result" is the same as finish(game_id, payload) (checked the
        same way); "created" is written only by create_game().
        """
        self._check_open(writing=True)
        if not isinstance(kind, str) or not _KIND_RE.fullmatch(kind):
            raise errors.InvalidEventError(
                f"event kind {kind!r} must be a lower-case word like 'action' or 'sense'"
            )
        if kind == "created":
            raise errors.InvalidEventError(
                "event kind 'created' is written by the store itself; use create_game()"
            )
        body = dict(payload or {})
        if kind == "result":
            return self.finish(game_id, body)
        if kind == "action":
            notation = body.get("notation")
            if not isinstance(notation, str) or not notation.strip():
                raise errors.InvalidEventError(
                    f"game {game_id}: an action needs a non-empty 'notation' string, got "
                    f"{notation!r}; nothing was written"
                )
        try:  # what is written is what every reader can read back (store/events.py)
            parse(kind, body)
        except CorruptEventError as exc:
            raise errors.InvalidEventError(
                f"game {game_id}: the {kind!r} event's {exc.field!r} {exc.problem}; "
                "nothing was written"
            ) from None
        return self._append(game_id, kind, body)

    def _append(self, game_id: int, kind: str, body: dict[str, Any]) -> Event:
        text = _dumps(body, f"the {kind!r} payload for game {game_id}")
        with self._lock:
            self._check_open(writing=True)
            with self._writing():
                return self._transaction_insert(game_id, kind, body, text)

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A write that SQLite or the OS cannot do now (a full disk, a write lock held past
        the busy timeout) is :class:`~errors.LogUnwritableError` saying why."""
        try:
            yield
        except (sqlite3.OperationalError, OSError) as exc:
            reason = errors.unwritable_reason(str(exc))
            if reason is None:
                raise
            raise errors.LogUnwritableError(self._path, reason, str(exc)) from None

    def finish(self, game_id: int, result: Mapping[str, Any]) -> Event:
        """Log the game's result (and end it). See docs/STORE.md for the result's shape:
        {"winners": [names], "reason": str, "scores": [{"player", "seat", "total",
        "breakdown": [{"label", "value"}]}]}. Checked before anything is written."""
        self._check_open(writing=True)
        info = self.game(game_id)
        body = validate_result(dict(result), info.players, game_id)
        return self._append(game_id, "result", body)

    def rename_players(self, game_id: int, players: Sequence[str]) -> Event:
        """Give the game's seats new names before its first action: the game's row and a
        ``players`` event (``{"players": [...], "previous": [...]}``) in one transaction.
        Refused once an action stands or the game has a result, since results, exports
        and the players page name players by these names."""
        self._check_open(writing=True)
        names = list(players)
        if not all(isinstance(p, str) and p.strip() for p in names) or len(set(names)) != len(names):
            raise errors.InvalidEventError(
                f"players {names!r} must be different non-empty names; nothing was written"
            )
        with self._lock, self._writing():
            self._check_open(writing=True)
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._check_appendable(game_id, "players", {})
                row = conn.execute("SELECT players FROM games WHERE id = ?", (game_id,)).fetchone()
                previous = json.loads(row[0])
                if len(previous) != len(names):
                    raise errors.InvalidEventError(
                        f"game {game_id} has {len(previous)} players, not {len(names)}; give "
                        "one name per seat"
                    )
                if self._standing_actions(game_id):
                    raise errors.InvalidEventError(
                        f"game {game_id} has begun, so its players keep their names; start a "
                        "new game to play under other names"
                    )
                body = {"players": names, "previous": previous}
                conn.execute("UPDATE games SET players = ? WHERE id = ?",
                             (_dumps(names, "players"), game_id))
                seq = int(conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", (game_id,)
                ).fetchone()[0])
                at = self._stamp()
                cursor = conn.execute(
                    "INSERT INTO events (game_id, seq, kind, at, payload) VALUES (?, ?, ?, ?, ?)",
                    (game_id, seq, "players", at, _dumps(body, "players")),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        LOGGER.info("game %d: players renamed to %s", game_id, ", ".join(names))
        return Event(int(cursor.lastrowid or 0), game_id, seq, "players", at, body)

    def abandon(self, game_id: int, reason: str = "abandoned") -> Event:
        """End a game without a winner; it is then no longer offered for resuming."""
        return self.finish(game_id, {"winners": [], "abandoned": True, "reason": reason})

    # -------------------------------------------------------------- reading

    def _rows_to_events(self, rows: Iterable[sqlite3.Row | tuple[Any, ...]]) -> list[Event]:
        return [
            Event(int(r[0]), int(r[1]), int(r[2]), str(r[3]), str(r[4]),
                  _stored(self._path, r[5], f"event {r[0]}", object))
            for r in rows
        ]

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Turn what a damaged or hand-edited file makes SQLite or the row conversions
        raise into CorruptDatabaseError naming the file (the file is not touched)."""
        try:
            yield
        except errors.StoreError:
            raise
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise
            raise errors.CorruptDatabaseError(
                self._path, _corrupt_message(self._path, str(exc))
            ) from None
        except (sqlite3.DatabaseError, UnicodeDecodeError, TypeError, ValueError, KeyError,
                AttributeError) as exc:
            raise errors.CorruptDatabaseError(
                self._path, _corrupt_message(self._path, f"{type(exc).__name__}: {exc}")
            ) from None

    def events(self, game_id: int, kinds: Iterable[str] | None = None) -> list[Event]:
        """The game's events in order, optionally only those of the given kinds."""
        self._check_open(writing=False)
        with self._reading():
            return self._events(game_id, kinds)

    def _events(self, game_id: int, kinds: Iterable[str] | None) -> list[Event]:
        with self._lock:
            if self._conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                raise self._unknown(game_id)
            rows = self._conn.execute(
                "SELECT id, game_id, seq, kind, at, payload FROM events "
                "WHERE game_id = ? ORDER BY seq",
                (game_id,),
            ).fetchall()
        found = self._rows_to_events(rows)
        if kinds is not None:
            wanted = set(kinds)
            found = [e for e in found if e.kind in wanted]
        return found

    def _standing_actions(self, game_id: int) -> list[Event]:
        rows = self._conn.execute(
            "SELECT id, game_id, seq, kind, at, payload FROM events "
            "WHERE game_id = ? AND kind IN ('action', 'undo') ORDER BY seq",
            (game_id,),
        ).fetchall()
        return standing_actions(self._rows_to_events(rows))

    def moves(self, game_id: int) -> list[Event]:
        """The action events still standing after every undo, in order."""
        return standing_actions(self.events(game_id, ("action", "undo")))

    def actions(self, game_id: int) -> list[str]:
        """The notations of the standing actions: what replay plays, in order."""
        moves = self.moves(game_id)
        with self._reading():
            return [e.notation for e in moves]

    _GAMES_SQL = (
        "SELECT g.id, g.game, g.options, g.players, g.profile, g.versions, g.started, "
        "(SELECT MAX(e.at) FROM events e WHERE e.game_id = g.id), "
        "(SELECT COALESCE(SUM(CASE e.kind WHEN 'action' THEN 1 WHEN 'undo' THEN -1 ELSE 0 END), 0) "
        " FROM events e WHERE e.game_id = g.id), "
        "(SELECT e.payload FROM events e WHERE e.game_id = g.id AND e.kind = 'result') "
        "FROM games g"
    )

    def _info(self, row: Sequence[Any]) -> GameInfo:
        what = f"game {row[0]}"
        result = _stored(self._path, row[9], what, dict) if row[9] is not None else None
        if result is None:
            status = "running"
        elif result.get("abandoned"):
            status = "abandoned"
        else:
            status = "finished"
        return GameInfo(
            id=int(row[0]),
            game=str(row[1]),
            options=_stored(self._path, row[2], what, dict),
            players=tuple(_stored(self._path, row[3], what, list)),
            profile=row[4],
            versions=_stored(self._path, row[5], what, dict),
            started=str(row[6]),
            updated=str(row[7] or row[6]),
            moves=int(row[8]),
            status=status,
            result=result,
        )

    def game(self, game_id: int) -> GameInfo:
        """One game's summary; UnknownGameError when there is no such id."""
        self._check_open(writing=False)
        with self._reading():
            with self._lock:
                row = self._conn.execute(
                    self._GAMES_SQL + " WHERE g.id = ?", (game_id,)
                ).fetchone()
            if row is None:
                raise self._unknown(game_id)
            return self._info(row)

    def games(self, game: str | None = None) -> list[GameInfo]:
        """Every logged game (optionally of one game package), oldest first."""
        self._check_open(writing=False)
        with self._reading():
            with self._lock:
                if game is None:
                    rows = self._conn.execute(self._GAMES_SQL + " ORDER BY g.id").fetchall()
                else:
                    rows = self._conn.execute(
                        self._GAMES_SQL + " WHERE g.game = ? ORDER BY g.id", (game,)
                    ).fetchall()
            return [self._info(r) for r in rows]

    def last_unfinished(self, game: str | None = None) -> GameInfo | None:
        """The most recently created game that has no result yet (what --resume continues)."""
        for info in reversed(self.games(game)):
            if info.status == "running":
                return info
        return None


def standing_actions(events: Iterable[Event]) -> list[Event]:
    """Apply undos to a sequence of action/undo events: the actions still standing."""
    stack: list[Event] = []
    for event in events:
        if event.kind == "action":
            stack.append(event)
        elif event.kind == "undo" and stack:
            stack.pop()
    return stack


def _number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def validate_result(result: dict[str, Any], players: Sequence[str], game_id: int) -> dict[str, Any]:
    """Check a result's shape against the game's players; returns it unchanged."""
    where = f"result of game {game_id}"
    winners = result.get("winners")
    if not isinstance(winners, list) or not all(isinstance(w, str) for w in winners):
        raise errors.InvalidEventError(
            f"{where}: 'winners' must be a list of player names (empty for a draw), got "
            f"{winners!r}; nothing was written"
        )
    unknown = [w for w in winners if w not in players]
    if unknown:
        raise errors.InvalidEventError(
            f"{where}: winners {unknown!r} are not players of this game ({list(players)!r})"
        )
    reason = result.get("reason", "")
    if not isinstance(reason, str):
        raise errors.InvalidEventError(f"{where}: 'reason' must be a string, got {reason!r}")
    scores = result.get("scores", [])
    if not isinstance(scores, list):
        raise errors.InvalidEventError(f"{where}: 'scores' must be a list, got {scores!r}")
    seen: set[str] = set()
    for i, entry in enumerate(scores):
        if not isinstance(entry, dict):
            raise errors.InvalidEventError(f"{where}: scores[{i}] must be a dict, got {entry!r}")
        player = entry.get("player")
        if player not in players:
            raise errors.InvalidEventError(
                f"{where}: scores[{i}]['player'] is {player!r}, not one of {list(players)!r}"
            )
        if player in seen:
            raise errors.InvalidEventError(f"{where}: {player!r} has two score entries")
        seen.add(str(player))
        total = entry.get("total")
        if total is not None and not _number(total):
            raise errors.InvalidEventError(
                f"{where}: scores[{i}]['total'] must be a finite number or None, got {total!r}"
            )
        breakdown = entry.get("breakdown", [])
        if not isinstance(breakdown, list):
            raise errors.InvalidEventError(
                f"{where}: scores[{i}]['breakdown'] must be a list, got {breakdown!r}"
            )
        for j, item in enumerate(breakdown):
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("label"), str)
                or not _number(item.get("value"))
            ):
                raise errors.InvalidEventError(
                    f"{where}: scores[{i}]['breakdown'][{j}] must be "
                    f"{{'label': str, 'value': number}}, got {item!r}"
                )
    return result
