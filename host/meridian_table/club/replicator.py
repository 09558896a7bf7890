"""Ship a table's SQLite log into the club's PostgreSQL, idempotently, in the background.

The table's log stays the source of truth: the replicator only reads it (its own
read-only SQLite connection, so the table never waits for it). The club's copy is keyed
by (table, game, sequence) and written with ``INSERT ... ON CONFLICT DO NOTHING``, one
batch per transaction, in the log's own order. So the highest local event id the club
holds for this table is a true high-water mark: everything below it is there. After any
outage (network, server restart, this process killed mid-batch) the replicator asks the
club for that mark and resumes after it; a batch that was cut off was rolled back by
the server, and one that committed is skipped by the conflict clause.
"""

from __future__ import annotations

import json
import logging
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from meridian_table.club.admin import NETWORK_OPTIONS, check_url, redact
from meridian_table.club.errors import ClubError
from meridian_table.club.schema import require_current
from meridian_table.store.schema import derived_identity

LOGGER = logging.getLogger(__name__)

BATCH = 500
POLL_S = 0.05
BACKOFF_S = (0.2, 0.5, 1.0, 2.0, 3.0)
PING_S = 2.0
REPLY_TIMEOUT_S = 5.0
FINISH_S = 5.0          # at exit: how long to wait for the last events to reach the club


@dataclass(frozen=True)
class ReplicatorStatus:
    """What the table page's link panel shows about the club."""

    club: str             # the connection string without its password
    state: str            # "connecting" | "connected" | "offline" | "refused" | "closed"
    shipped: int          # the club's high-water mark (a local event id)
    backlog: int          # local events the club does not hold yet
    detail: str = ""

    def to_json(self) -> dict[str, object]:
        return {"club": self.club, "state": self.state, "shipped": self.shipped,
                "backlog": self.backlog, "detail": self.detail}


class LocalLog:
    """A read-only view of a table's SQLite log: new events after a mark."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False,
                                     timeout=10)

    def close(self) -> None:
        self._conn.close()

    def last_id(self) -> int:
        row = self._conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()
        return int(row[0])

    def events_after(self, mark: int, limit: int = BATCH) -> list[tuple[Any, ...]]:
        return self._conn.execute(
            "SELECT id, game_id, seq, kind, at, payload FROM events WHERE id > ? "
            "ORDER BY id LIMIT ?", (mark, limit)).fetchall()

    def identity(self) -> str | None:
        """The log's identity (a UUID stored in it; the same file is the same log
        wherever it is copied, a new log is another one). A log of schema 1, not yet
        opened by this release, has the identity derived from its first game and event
        that its migration will store (None while it holds no event)."""
        try:
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'log_id'").fetchone()
        except sqlite3.OperationalError:   # no meta table: schema 1
            return derived_identity(self._conn)
        return str(row[0]) if row else derived_identity(self._conn)

    def event(self, local_id: int) -> tuple[int, int, str] | None:
        """(game, number, kind) of the event ``local_id``."""
        row = self._conn.execute("SELECT game_id, seq, kind FROM events WHERE id = ?",
                                 (local_id,)).fetchone()
        return None if row is None else (int(row[0]), int(row[1]), str(row[2]))

    def remote_ids(self, ids: set[int]) -> dict[int, str]:
        """The remote game each of these games is a side of (its ``remote`` event)."""
        marks = ",".join("?" * len(ids))
        found: dict[int, str] = {}
        for game_id, payload in self._conn.execute(
                f"SELECT game_id, payload FROM events WHERE kind = 'remote' AND game_id IN "
                f"({marks}) ORDER BY id", sorted(ids)):
            try:
                remote = json.loads(payload).get("id")
            except (ValueError, AttributeError):
                continue
            if isinstance(remote, str):
                found[int(game_id)] = remote
        return found

    def count_after(self, mark: int) -> int:
        row = self._conn.execute("SELECT count(*) FROM events WHERE id > ?", (mark,)).fetchone()
        return int(row[0])

    def games(self, ids: set[int]) -> list[tuple[Any, ...]]:
        marks = ",".join("?" * len(ids))
        return self._conn.execute(
            f"SELECT id, game, options, players, profile, versions, started FROM games "
            f"WHERE id IN ({marks}) ORDER BY id", sorted(ids)).fetchall()


class Shipper:
    """One connection's worth of replication: the synchronous core the thread runs.

    ``ship_once()`` sends at most one batch and returns how many events it sent.
    Errors from psycopg propagate: the caller decides when to reconnect.
    """

    def __init__(self, log: LocalLog, conn: psycopg.Connection[tuple[Any, ...]],
                 remote: dict[int, str] | None = None) -> None:
        self.log = log
        self.conn = conn
        require_current(conn)
        conn.commit()
        row = conn.execute("SELECT club.my_table()").fetchone()
        conn.commit()
        if row is None or row[0] is None:
            raise ClubError(
                f"the role {conn.info.user!r} is not an active table of this club (revoked, "
                "or never added); ask the club's admin for `club add-table NAME`")
        self.table = str(row[0])
        self.log_id: str | None = None
        self.mark = 0
        self._games: dict[int, int] = {}    # the log's game id -> the club's game id
        self.remote = remote or {}
        self._identify()

    def _identify(self) -> None:
        """Learn the log's identity and the club's mark for it (adopting what was
        shipped from this log before logs had an identity)."""
        self.log_id = self.log.identity()
        if self.log_id is None:
            return
        with self.conn.cursor() as cur:
            probe = cur.execute(
                "SELECT local_id, game_id, seq, kind FROM club.events WHERE table_name = %s "
                "AND log_id IS NULL ORDER BY local_id DESC LIMIT 1", (self.table,)).fetchone()
            if probe is not None and self.log.event(int(probe[0])) == (
                    int(probe[1]), int(probe[2]), str(probe[3])):
                adopted = cur.execute("SELECT club.adopt_log(%s, %s, %s, %s, %s)",
                                      (self.log_id, *probe)).fetchone()
                if adopted and adopted[0]:
                    LOGGER.info("this log (%s) adopted the %d events the club held from it "
                                "before logs had an identity", self.log_id, adopted[0])
            row = cur.execute(
                "SELECT COALESCE(MAX(local_id), 0) FROM club.events WHERE table_name = %s "
                "AND log_id = %s", (self.table, self.log_id)).fetchone()
        self.conn.commit()
        self.mark = int(row[0]) if row else 0

    def _club_games(self, cur: psycopg.Cursor[tuple[Any, ...]], needed: set[int]) -> None:
        """Give each of the log's games ``needed`` its number in the club: the one it got
        when first shipped, else the table's next number."""
        for local, club_id in cur.execute(
                "SELECT local_game, game_id FROM club.games WHERE table_name = %s "
                "AND log_id = %s AND local_game = ANY(%s)",
                (self.table, self.log_id, sorted(needed))).fetchall():
            self._games[int(local)] = int(club_id)
        missing = needed - set(self._games)
        if not missing:
            return
        # One number at a time per table, even with two logs shipping at once.
        cur.execute("SELECT pg_advisory_xact_lock(hashtext('club.games'), hashtext(%s))",
                    (self.table,))
        row = cur.execute("SELECT COALESCE(MAX(game_id), 0) FROM club.games "
                          "WHERE table_name = %s", (self.table,)).fetchone()
        number = int(row[0]) if row else 0
        remote = {**self.log.remote_ids(missing), **self.remote}
        rows = []
        for g in self.log.games(missing):
            number += 1
            self._games[int(g[0])] = number
            rows.append((number, g[1], Jsonb(_json(g[2])), Jsonb(_json(g[3])), g[4],
                         Jsonb(_json(g[5])), g[6], remote.get(int(g[0])), self.log_id,
                         g[0]))
        cur.executemany(
            "INSERT INTO club.games (game_id, game, options, players, profile, versions, "
            "started, remote, log_id, local_game) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", rows)

    def ship_once(self, limit: int = BATCH) -> int:
        if self.log_id is None:
            self._identify()
            if self.log_id is None:
                return 0
        rows = self.log.events_after(self.mark, limit)
        if not rows:
            return 0
        known = dict(self._games)
        try:
            with self.conn.cursor() as cur:
                needed = {int(r[1]) for r in rows} - set(self._games)
                if needed:
                    self._club_games(cur, needed)
                cur.executemany(
                    "INSERT INTO club.events (game_id, seq, local_id, kind, at, payload, "
                    "log_id) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    [(self._games[int(r[1])], r[2], r[0], r[3], r[4], Jsonb(_json(r[5])),
                      self.log_id) for r in rows])
            self.conn.commit()
        except BaseException:
            self._games = known   # the numbers given in a rolled-back batch are not kept
            raise
        self.mark = int(rows[-1][0])
        return len(rows)


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _json(text: str) -> object:
    return json.loads(text)


class Replicator:
    """A background thread that keeps the club's copy of one table's log up to date.

    It never blocks the table: it reads the log through its own connection, and every
    network wait happens on its thread. ``wake()`` makes it look at once (after a move).
    """

    def __init__(self, log_path: Path, url: str, *, poll_s: float = POLL_S,
                 remote: dict[int, str] | None = None,
                 on_change: Callable[[], None] | None = None, batch: int = BATCH) -> None:
        check_url(url)   # a connection string that cannot be read is refused at once
        self.log_path = Path(log_path)
        self.url = url
        self._shown_url = redact(url)   # status() runs at every poll: redact once
        self.poll_s = poll_s
        self.remote = dict(remote or {})
        self.on_change = on_change
        self.batch = batch
        self._shown: tuple[str, int] | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._state = "connecting"
        self._detail = ""
        self._mark = 0
        self._local_last = 0
        self._conn: psycopg.Connection[tuple[Any, ...]] | None = None
        self._busy_since: float | None = None
        self._thread = threading.Thread(target=self._run, name="club-replicator", daemon=True)
        self._watchdog = threading.Thread(target=self._watch, name="club-watchdog", daemon=True)

    def start(self) -> Replicator:
        self._thread.start()
        self._watchdog.start()
        return self

    def wake(self) -> None:
        self._wake.set()

    def close(self, timeout: float = 5.0) -> None:
        """Stop at once (what is not shipped yet goes at the next run): see finish()."""
        self._stop.set()
        self._wake.set()
        if self._thread.ident is not None:
            self._thread.join(timeout)
            self._watchdog.join(timeout)
        with self._lock:
            self._state = "closed"

    def finish(self, wait_s: float = FINISH_S) -> int:
        """Ship what is left, waiting at most ``wait_s`` while the club is reachable, then
        stop. Returns how many of the log's events the club does not hold (0: all of
        them made it), counted in the log itself."""
        if self._thread.is_alive() and self.status().state in ("connecting", "connected"):
            self.wait_caught_up(wait_s)
        self.close()
        with self._lock:
            mark = self._mark
        try:
            with _Opened(self.log_path) as log:
                left = log.count_after(mark)
                last = log.last_id()
        except sqlite3.Error as exc:
            LOGGER.warning("cannot count what the club still lacks (%s)", exc)
            return self.status().backlog
        with self._lock:
            self._local_last = last
        return left

    def __enter__(self) -> Replicator:
        return self if self._thread.ident is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.finish()

    def status(self) -> ReplicatorStatus:
        with self._lock:
            return ReplicatorStatus(self._shown_url, self._state, self._mark,
                                    max(0, self._local_last - self._mark), self._detail)

    def wait_caught_up(self, timeout: float) -> bool:
        """Wait until the club holds every event the log had when this was called."""
        deadline = time.monotonic() + timeout
        with _Opened(self.log_path) as log:
            target = log.last_id()
        while time.monotonic() < deadline:
            with self._lock:
                if self._mark >= target:
                    return True
            self._wake.set()
            time.sleep(0.02)
        return False

    def _set(self, state: str, detail: str = "") -> None:
        with self._lock:
            if state != self._state:
                LOGGER.info("club replication %s %s", state, detail)
            self._state, self._detail = state, detail
        self._changed()

    def _changed(self) -> None:
        """Tell ``on_change`` (the table page) when the state or the backlog changed."""
        status = self.status()
        shown = (status.state, status.backlog)
        if self.on_change is not None and shown != self._shown:
            self._shown = shown
            try:
                self.on_change()
            except Exception:  # the page's trouble must never stop the replication
                LOGGER.exception("club status callback failed")

    def link_figures(self) -> dict[str, object]:
        """The table page's link panel lines: the club, its state, the backlog."""
        status = self.status()
        return {"club": status.club, "club_state": status.state,
                "club_backlog": status.backlog}

    def _run(self) -> None:
        attempt = 0
        log: LocalLog | None = None
        while not self._stop.is_set():
            try:
                if log is None:
                    log = LocalLog(self.log_path)
                self._ship_forever(log)
            except ClubError as exc:
                self._set("refused", str(exc))
            except (psycopg.Error, OSError) as exc:
                self._set("offline", _first_line(exc))
            except sqlite3.Error as exc:
                self._set("offline", f"cannot read the table's log {self.log_path}: {exc}")
                if log is not None:
                    log.close()
                log = None
            self._close_conn()
            if self._stop.is_set():
                break
            self._wait_offline(log, BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
            attempt += 1
        self._close_conn()
        if log is not None:
            log.close()

    def _wait_offline(self, log: LocalLog | None, seconds: float) -> None:
        """Wait before the next attempt, keeping the backlog figure current."""
        deadline = time.monotonic() + seconds
        while not self._stop.is_set():
            if log is not None:
                try:
                    last = log.last_id()
                except sqlite3.Error:
                    last = self._local_last
                with self._lock:
                    self._local_last = last
                self._changed()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._stop.wait(min(left, 0.2))

    def _close_conn(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except psycopg.Error:
                pass

    def _watch(self) -> None:
        """The watchdog: a network that drops without a word (no reset, a proxy that
        swallows bytes) leaves a query waiting forever; past REPLY_TIMEOUT_S the socket
        is shut, so the query fails and the replicator reconnects."""
        while not self._stop.wait(0.5):
            since, conn = self._busy_since, self._conn
            if since is None or conn is None or time.monotonic() - since < REPLY_TIMEOUT_S:
                continue
            LOGGER.warning("the club has not answered for %.0f s: dropping the connection",
                           time.monotonic() - since)
            self._busy_since = None
            try:
                with socket.fromfd(conn.fileno(), socket.AF_INET, socket.SOCK_STREAM) as sock:
                    sock.shutdown(socket.SHUT_RDWR)
            except (OSError, psycopg.Error):
                pass

    def _ship_forever(self, log: LocalLog) -> None:
        self._set("connecting")
        self._conn = psycopg.connect(self.url, autocommit=False,
                                     application_name="meridian-table replicator",
                                     **NETWORK_OPTIONS)
        self._busy_since = time.monotonic()
        shipper = Shipper(log, self._conn, self.remote)
        self._busy_since = None
        with self._lock:
            self._mark = shipper.mark
        self._set("connected")
        idle_since = time.monotonic()
        while not self._stop.is_set():
            self._busy_since = time.monotonic()
            sent = shipper.ship_once(self.batch)
            if sent:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since > PING_S:
                # An idle connection learns of a server restart only when used.
                self._conn.execute("SELECT 1")
                self._conn.commit()
                idle_since = time.monotonic()
            self._busy_since = None
            last = log.last_id()
            with self._lock:
                self._mark = shipper.mark
                self._local_last = last
            self._changed()
            if sent == 0:
                self._wake.wait(self.poll_s)
                self._wake.clear()


class _Opened:
    """``with _Opened(path) as log``: a LocalLog closed at the end of the block."""

    def __init__(self, path: Path) -> None:
        self.log = LocalLog(path)

    def __enter__(self) -> LocalLog:
        return self.log

    def __exit__(self, *exc: object) -> None:
        self.log.close()
