"""Where a session writes its events before it shows them as done.

The session needs one thing from the log: ``append(event)`` that returns only once the
event is durable. The events are the typed records of ``meridian_table.store.events``
(one frozen dataclass per kind: ``Action``, ``Undo``, ``Choice``, ``Sense``, ``Result``,
``Note``, ``Players``, ``Settings``, ``Clock``, ``Execute``, ``Cancel``, ``Board``,
``Remote``; docs/STORE.md lists their fields). The table builds them, a journal stores
each as its kind and JSON form, and every reader parses them back with
``events.parse``. ``MemoryJournal`` keeps events in a list (tests, and play with
``--db :memory:``); ``meridian_table.table.storejournal`` binds a game of the SQLite
store (docs/STORE.md).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from meridian_table.store.events import LogEvent, kind_of

LOGGER = logging.getLogger(__name__)

REPLAYED_KINDS = ("action", "undo", "choice", "result")


class Journal(Protocol):
    """The session's log of one game."""

    @property
    def game_id(self) -> int | None: ...

    def append(self, event: LogEvent) -> None:
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

    def append(self, event: LogEvent) -> None:
        with self._lock:
            self.events.append((kind_of(event), event.to_json()))

    def of_kind(self, *kinds: str) -> list[tuple[str, dict[str, Any]]]:
        with self._lock:
            return [e for e in self.events if e[0] in kinds]

    def __repr__(self) -> str:
        return f"MemoryJournal(game_id={self._game_id!r})"


def game_events(events: Iterable[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """The events a replay needs (actions, undos, choices, result), in order."""
    return [(kind, dict(payload)) for kind, payload in events if kind in REPLAYED_KINDS]
