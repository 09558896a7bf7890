"""A logged game reopened: the engine replayed, the table's history and the adapter's
dialogue read from the log (docs/STORE.md, "Resume").

Resume and the page's replay and review open the game's adapter with the logged
options and settings, play the standing actions into its engine with the store's one
replay loop (:mod:`meridian_table.store.replay`), and take the rest from the log: each
``action`` event carries the table's history entry (``placed``, ``removed``, ``words``
beside ``notation`` and ``player``), and each action, undo and choice the adapter's
dialogue record after it (``dialogue``), which :meth:`Adapter.reopen` takes back.

Logs written before the table owned its history lack ``placed`` and ``dialogue``. For
them :func:`read_old_log` (the reader for old rows) plays the logged actions, undos and
choices through a scratch adapter once, which gives the same entries and record; the
game then reopens the same way as a new log's, and the moves it plays from then on are
logged in the new form.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from meridian_table.games import registry
from meridian_table.games.board import Adapter, AdapterError, Applied, History, JsonObject
from meridian_table.store import Event, GameInfo, Store
from meridian_table.store.errors import ReplayError
from meridian_table.store.events import (
    Action,
    Choice,
    CorruptEventError,
    LogEvent,
    Settings,
    Undo,
)
from meridian_table.store.replay import replay

LOGGER = logging.getLogger(__name__)


class ResumeError(ValueError):
    """A logged game that cannot be continued (finished, unknown, or it does not replay)."""


@dataclass(frozen=True)
class LoggedHistory:
    """The table's history entries and the adapter's last dialogue record of a log."""

    entries: tuple[Applied, ...]
    dialogue: JsonObject
    #: True when the log is of the older form and :func:`read_old_log` read it.
    old: bool = False


def typed_events(info: GameInfo, events: Sequence[Event]) -> list[LogEvent]:
    """Every event typed; ResumeError names the one that cannot be read."""
    try:
        return [event.typed() for event in events]
    except CorruptEventError as exc:
        raise ResumeError(f"game {info.id}: {exc}") from exc


def logged_settings(typed: Sequence[LogEvent]) -> dict[str, Any]:
    """The table settings the log holds (the ``settings`` events, merged in order): JSON
    values as logged (seats, clocks), passed back to the adapter's factory."""
    out: dict[str, Any] = {}
    for entry in typed:
        if isinstance(entry, Settings):
            out.update(entry.values)
    return out


def entry_of(action: Action) -> Applied:
    """The table's history entry an ``action`` event of the new form carries."""
    return Applied(action.notation, action.player or "", frozenset(action.placed or ()),
                   frozenset(action.removed), action.words or "", action.words_lang or "")


def read_log(info: GameInfo, typed: Sequence[LogEvent],
             settings: Mapping[str, Any]) -> LoggedHistory:
    """The standing history entries and the last dialogue record of a log; a log of the
    older form goes through :func:`read_old_log`."""
    standing: list[Action] = []
    dialogue: dict[str, object] | None = {}
    for entry in typed:
        if isinstance(entry, Action):
            standing.append(entry)
            dialogue = entry.dialogue
        elif isinstance(entry, Undo):
            if standing:
                standing.pop()
            dialogue = entry.dialogue
        elif isinstance(entry, Choice):
            dialogue = entry.dialogue
    if dialogue is None or any(action.placed is None for action in standing):
        return read_old_log(info, typed, settings)
    return LoggedHistory(tuple(entry_of(a) for a in standing), dialogue)


def read_old_log(info: GameInfo, typed: Sequence[LogEvent],
                 settings: Mapping[str, Any]) -> LoggedHistory:
    """The reader for logs written before the table owned its history: their actions
    carry no ``placed``/``words`` and nothing logs the dialogue, so the actions, undos
    and choices are played through a scratch adapter once, in log order, and its
    history entries and dialogue record are read off it."""
    adapter = registry.create_adapter(info.game, info.options, dict(settings))
    history = History(adapter)
    for number, entry in enumerate(typed, start=1):
        try:
            if isinstance(entry, Action):
                history.play(entry.notation)
            elif isinstance(entry, Undo):
                history.undo()
            elif isinstance(entry, Choice):
                adapter.answer(entry.field, entry.value)
        except (ValueError, KeyError) as exc:
            raise ResumeError(
                f"game {info.id} (a log of an older version) does not replay at its event "
                f"{number} ({entry.to_json()!r}): {exc}; the log is unchanged, start a new "
                "game") from exc
    LOGGER.info("game %d: read a log of the older form (%d actions standing)",
                info.id, len(history))
    return LoggedHistory(history.entries(), adapter.dialogue(), old=True)


def reopen(store: Store, info: GameInfo, events: Sequence[Event],
           ply: int | None = None) -> tuple[Adapter, History, dict[str, Any]]:
    """The game's adapter with its engine replayed from the log (up to ``ply`` standing
    actions), its history and (for the whole game) its dialogue; and the settings."""
    typed = typed_events(info, events)
    settings = logged_settings(typed)
    try:
        logged = read_log(info, typed, settings)
        adapter = registry.create_adapter(info.game, info.options, settings)
        done = replay(store, info.id, ply, engine=adapter.engine)
    except (ReplayError, registry.UnknownGameError) as exc:
        raise ResumeError(f"{exc}") from exc
    if done.total != len(logged.entries):
        raise ResumeError(
            f"game {info.id}: the log's {done.total} standing actions and its "
            f"{len(logged.entries)} history entries differ; the log was edited, export it "
            "(meridian-table export) and start a new game")
    history = History(adapter, logged.entries[: done.ply])
    if ply is None or ply == done.total:
        try:
            adapter.reopen(logged.dialogue)
        except AdapterError as exc:
            raise ResumeError(f"game {info.id}: {exc}") from exc
    return adapter, history, settings


__all__ = ["LoggedHistory", "ResumeError", "entry_of", "logged_settings", "read_log",
           "read_old_log", "reopen", "typed_events"]
