"""Where a session writes its events before it shows them as done.

The session needs one thing from the log: ``append(kind, payload)`` that returns only
once the event is durable. ``MemoryJournal`` keeps events in a list (tests, and play
with ``--db :memory:``); ``meridian_table.table.storejournal`` binds a game of the SQLite
store (docs/STORE.md).

Event kinds written by the table (payloads are JSON-able dicts; each kind has its typed
dataclass in ``meridian_table.store.events``, which every reader parses them with):

- ``action``  ``{"notation": "G6", "player": "light", "source": "board|button|web"}``
- ``undo``    ``{"notation": "G6", "source": ...}`` (the action taken back)
- ``choice``  ``{"field": "pie", "value": "keep", "source": ...}`` (an input that is not
  an engine action)
- ``sense``   ``{"sensed": [...], "expected": [...], "meaning": "action|mistakes|..."}``
  (every settled board the table interpreted, enough to audit a dispute)
- ``result``  ``{"winner": "light", "reason": ..., "scores": ...}``
- ``note``    ``{"text": "Ghost switch at ...", "fault": "GHOST", "detail": ["17"]}`` (a board
  fault, once per distinct fault; not replayed); a flag fall under the ``warn`` rule
  notes ``{"text", "clock": seat, "clocks"}``
- ``players`` ``{"players": [...], "previous": [...]}`` (names changed before the first move)
- ``clock``   ``{"remaining": {seat: s}, "running": seat | None}`` (every 0.5 s while a clock
  runs; actions carry the same as ``clocks``), so ``--resume`` restores the clocks
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

LOGGER = logging.getLogger(__name__)

REPLAYED_KINDS = ("action", "undo", "choice", "result")


class Journal(Protocol):
    """The session's log of one game."""

    @property
    def game_id(self) -> int | None: ...

    def append(self, kind: str, payload: Mapping[str, Any]) -> None:
        """Durably record one event; raise on failure (the session then undoes)."""
        ...


class MemoryJournal:
    """A journal in memory: the same contract as the store, without durability."""

    def __init__(self, game_id: int | None = None) -> None:
        self._game_id = game_id
        self._lock = threading.Lock()
        self.events: list[tuple[str, dict[str, Any]]] = []

    @property
    def game_id(self) -> int | None:
        return self._game_id

    def append(self, kind: str, payload: Mapping[str, Any]) -> None:
        with self._lock:
            self.events.append((kind, dict(payload)))

    def of_kind(self, *kinds: str) -> list[tuple[str, dict[str, Any]]]:
        with self._lock:
            return [e for e in self.events if e[0] in kinds]

    def __repr__(self) -> str:
        return f"MemoryJournal(game_id={self._game_id!r})"


def game_events(events: Iterable[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """The events a replay needs (actions, undos, choices, result), in order."""
    return [(kind, dict(payload)) for kind, payload in events if kind in REPLAYED_KINDS]
