"""A game log that keeps what it cannot write yet, and says so.

When the log cannot be written (a full disk, another program holding the SQLite write
lock past its 10 s busy timeout, an I/O error: ``LogUnwritableError``), the event is kept
in memory, in order, with every event after it; the session's move stands, the page and
the board say plainly that the log cannot be written and why (``problem``), and a thread
of its own tries again every second. When the log is back, every kept event is written in
its order and the words go away: nothing is lost. Events are always written in the order
the table made them, so a kept event is never overtaken by a newer one.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from meridian_table.ledplan import BLINK, Light
from meridian_table.store import LogUnwritableError
from meridian_table.store.events import LogEvent, kind_of
from meridian_table.table.journal import Journal

LOGGER = logging.getLogger(__name__)

RETRY_S = 1.0
#: Every LED the game leaves dark blinks amber while the log cannot be written.
LOG_FAULT_LIGHT = Light(0xFF8C00, BLINK)


class PendingJournal:
    """``inner`` (a store's journal) with a queue for what it cannot write now.
    ``on_change()`` is called (on the retry thread) when the log fails or comes back."""

    def __init__(self, inner: Journal, on_change: Callable[[], None] = lambda: None,
                 retry_s: float = RETRY_S) -> None:
        self.inner = inner
        self._on_change = on_change
        self._retry_s = retry_s
        self._lock = threading.Lock()
        self._queue: collections.deque[LogEvent] = collections.deque()
        self._problem: str | None = None
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def game_id(self) -> int | None:
        return self.inner.game_id

    @property
    def problem(self) -> str | None:
        """Why the log cannot be written now (words for people), or None."""
        with self._lock:
            return self._problem

    @property
    def pending(self) -> int:
        """How many events wait to be written."""
        with self._lock:
            return len(self._queue)

    def append(self, event: LogEvent) -> None:
        """Write the event, or keep it (in order) when the log cannot be written now."""
        kind = kind_of(event)
        with self._lock:
            if self._queue:
                self._queue.append(event)
                return
            try:
                self.inner.append(event)
                return
            except LogUnwritableError as exc:
                self._queue.append(event)
                self._problem = exc.reason
                LOGGER.error("the game log cannot be written (%s): %s kept in memory, "
                             "written when it can be", exc, kind)
                self._start()

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._retry, name="log-retry", daemon=True)
            self._thread.start()

    def _retry(self) -> None:
        self._on_change()  # on this thread: the caller may hold the table's lock
        while not self._closed.wait(self._retry_s):
            if self.flush():
                return

    def flush(self) -> bool:
        """Write what is kept, in order; True when nothing is left."""
        changed = False
        while True:
            with self._lock:
                if not self._queue:
                    if self._problem is not None:
                        self._problem = None
                        changed = True
                    break
                event = self._queue[0]
            kind = kind_of(event)
            # Written outside the lock: a held write lock makes this wait its busy
            # timeout, and the table keeps adding events meanwhile (behind this one).
            try:
                self.inner.append(event)
            except LogUnwritableError as exc:
                with self._lock:
                    changed = changed or exc.reason != self._problem
                    self._problem = exc.reason
                break
            except Exception:  # the store refuses the event itself: a bug, not the disk
                LOGGER.exception("a kept %s event was refused by the log; dropped: %s", kind,
                                 json.dumps(event.to_json(), default=str))
            with self._lock:
                self._queue.popleft()
            LOGGER.info("the game log is back: a kept %s event was written", kind)
        if changed:
            self._on_change()
        return self.pending == 0

    def close(self, timeout: float = 5.0) -> list[tuple[str, dict[str, Any]]]:
        """Stop retrying after a last try; returns (and logs, as JSON lines a person can
        restore from) what could still not be written."""
        self._closed.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        self.flush()
        with self._lock:
            left = [(kind_of(event), event.to_json()) for event in self._queue]
        for kind, payload in left:
            LOGGER.error("NOT WRITTEN to the game log %s: %s", self.game_id,
                         json.dumps({"kind": kind, "payload": payload}, default=str))
        return left

    def __repr__(self) -> str:
        return f"PendingJournal({self.inner!r})"


def log_problem(journal: object) -> str | None:
    """Why ``journal`` cannot be written now, or None (always None for other journals)."""
    return journal.problem if isinstance(journal, PendingJournal) else None


def log_words(journal: object) -> str:
    """The page's sentence while the log cannot be written ("" when it can)."""
    if not isinstance(journal, PendingJournal) or (problem := journal.problem) is None:
        return ""
    return (f"The game log cannot be written: {problem}. Play on: the moves are kept "
            f"({journal.pending} waiting) and written as soon as the log can be; nothing "
            "is lost.")


__all__ = ["LOG_FAULT_LIGHT", "PendingJournal", "log_problem", "log_words"]
