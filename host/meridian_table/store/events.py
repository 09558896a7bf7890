"""The game log's events, typed: one frozen dataclass per kind, with its JSON form.

The table writes these, and everything that reads a log reads them through
:func:`parse`: resume (``table.storejournal``), the store's replay and exports, the
club's replicator. A log is a file people can open and edit, so reading is strict about
the fields a reader relies on (an ``action`` without its ``notation`` is a
:class:`CorruptEventError` naming the game, the event and the field) and lenient about
the rest: keys a kind does not declare are kept in ``extra`` and written back
unchanged, so a log written by a newer table round-trips through an older one, and an
unknown kind is read as an :class:`UnknownEvent` with its payload intact.

The kinds (docs/STORE.md, "Events"):

========  =====================================================================
action    a move that counts: ``notation``, ``player`` (seat), ``source`` (board,
          button, web, automaton's), ``by`` (person | automaton), ``removed``,
          ``automaton``, ``clocks``, ``placed`` and ``words`` (the table's history
          entry), ``dialogue`` (the adapter's record after it)
undo      a move taken back: ``notation``, ``source``, ``dialogue``
choice    an input that is not an engine action (a pie choice, a height), ``dialogue``
sense     a settled board the table interpreted (audit; not replayed)
result    how the game ended: ``winners``, ``scores``, ``reason`` and the game's extras
note      a board fault or a flag fall under the ``warn`` rule (not replayed)
players   names changed before the first move
settings  table options that are not engine options (seats, clocks, assist)
clock     the clocks' times, saved while a clock runs
execute   an automaton's move the board must carry out
cancel    an automaton's pending move called off
remote    the club's remote game this log belongs to
board     the board profile's file data at the game's start
========  =====================================================================
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import ClassVar, Self

from meridian_table.store.errors import StoreError

LOGGER = logging.getLogger(__name__)

JsonMap = Mapping[str, object]


class CorruptEventError(StoreError):
    """A logged event lacks a field its kind needs, or holds the wrong type there. The
    message names the event and the field; the log itself is never changed."""

    def __init__(self, kind: str, field_name: str, problem: str, where: str = "") -> None:
        place = f"{where}: " if where else ""
        super().__init__(
            f"{place}the {kind!r} event's {field_name!r} {problem}; the log was edited or "
            "damaged: restore it from a backup, or export the games that still read "
            "(meridian-table export) and start a new log"
        )
        self.kind = kind
        self.field = field_name
        self.problem = problem


# --- reading helpers: each names the field it could not read --------------------------


def _text(kind: str, payload: JsonMap, name: str) -> str:
    value = payload.get(name)
    if not isinstance(value, str) or not value:
        raise CorruptEventError(kind, name, "is missing or not text" if value is None
                                else f"is {type(value).__name__} {value!r}, not text")
    return value


def _opt_text(kind: str, payload: JsonMap, name: str) -> str | None:
    value = payload.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise CorruptEventError(kind, name, f"is {type(value).__name__} {value!r}, not text")
    return value


def _opt_map(kind: str, payload: JsonMap, name: str) -> dict[str, object] | None:
    value = payload.get(name)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CorruptEventError(kind, name, f"is {type(value).__name__}, not an object")
    return dict(value)


def _texts(kind: str, payload: JsonMap, name: str) -> tuple[str, ...]:
    value = payload.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CorruptEventError(kind, name, "is not a list of text")
    return tuple(value)


def _extra(payload: JsonMap, declared: frozenset[str]) -> dict[str, object]:
    return {k: v for k, v in payload.items() if k not in declared}


@dataclass(frozen=True)
class LogEvent:
    """One event of a game's log. Subclasses name their ``KIND`` and their fields; keys
    the kind does not declare travel in ``extra``."""

    KIND: ClassVar[str] = ""
    extra: Mapping[str, object] = field(default_factory=dict, kw_only=True)

    @classmethod
    def declared(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls) if f.name != "extra")

    def to_json(self) -> dict[str, object]:
        """The payload as the log stores it (None fields left out)."""
        out: dict[str, object] = dict(self.extra)
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:  # pragma: no cover - every kind overrides
        raise NotImplementedError(cls.__name__)


@dataclass(frozen=True)
class Action(LogEvent):
    KIND: ClassVar[str] = "action"
    notation: str
    player: str | None = None
    source: str | None = None
    by: str | None = None
    removed: tuple[str, ...] = ()
    automaton: str | None = None
    clocks: dict[str, object] | None = None
    #: The sites the action filled: None in a log written before the table owned its
    #: history (docs/STORE.md, "Logs of older versions"), else a list (maybe empty).
    placed: tuple[str, ...] | None = None
    #: The move in words as it was played ("" : the game says it from the notation).
    words: str | None = None
    #: The adapter's dialogue record right after the action (None: an older log).
    dialogue: dict[str, object] | None = None
    #: The table's language when ``words`` were said (None: not known).
    words_lang: str | None = None

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        placed = _texts(k, payload, "placed") if "placed" in payload else None
        return cls(_text(k, payload, "notation"), _opt_text(k, payload, "player"),
                   _opt_text(k, payload, "source"), _opt_text(k, payload, "by"),
                   _texts(k, payload, "removed"), _opt_text(k, payload, "automaton"),
                   _opt_map(k, payload, "clocks"), placed, _opt_text(k, payload, "words"),
                   _opt_map(k, payload, "dialogue"), _opt_text(k, payload, "words_lang"),
                   extra=_extra(payload, cls.declared()))

    def to_json(self) -> dict[str, object]:
        out = super().to_json()
        if not self.removed:
            out.pop("removed", None)
        return out


@dataclass(frozen=True)
class _MoveRef(LogEvent):
    """An event that names a move it takes back or calls off, and who did it."""

    notation: str | None = None
    source: str | None = None

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        return cls(_opt_text(k, payload, "notation"), _opt_text(k, payload, "source"),
                   extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Undo(LogEvent):
    """A move taken back, and the adapter's dialogue record after it."""

    KIND: ClassVar[str] = "undo"
    notation: str | None = None
    source: str | None = None
    dialogue: dict[str, object] | None = None

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        return cls(_opt_text(k, payload, "notation"), _opt_text(k, payload, "source"),
                   _opt_map(k, payload, "dialogue"), extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Choice(LogEvent):
    KIND: ClassVar[str] = "choice"
    field: str
    value: str
    source: str | None = None
    #: The adapter's dialogue record after the answer (None: an older log).
    dialogue: dict[str, object] | None = None

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        value = payload.get("value")
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise CorruptEventError(k, "value", "is missing or not text")
        return cls(_text(k, payload, "field"), str(value), _opt_text(k, payload, "source"),
                   _opt_map(k, payload, "dialogue"), extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Cancel(_MoveRef):
    """An automaton's pending move called off (never replayed, unlike an undo)."""

    KIND: ClassVar[str] = "cancel"


@dataclass(frozen=True)
class Execute(LogEvent):
    KIND: ClassVar[str] = "execute"
    notation: str
    player: str | None = None
    automaton: str | None = None

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        return cls(_text(k, payload, "notation"), _opt_text(k, payload, "player"),
                   _opt_text(k, payload, "automaton"), extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Result(LogEvent):
    """How the game ended. ``winners`` are player names; ``scores`` one entry a seat
    (``player``, ``seat``, ``total``, ``breakdown``); the game's own keys in ``extra``."""

    KIND: ClassVar[str] = "result"
    winners: tuple[str, ...] = ()
    reason: str | None = None
    scores: tuple[Mapping[str, object], ...] = ()

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        scores = payload.get("scores", [])
        if isinstance(scores, dict):  # an older shape: seat -> score, kept as it was
            scores = []
        if not isinstance(scores, list) or not all(isinstance(s, dict) for s in scores):
            raise CorruptEventError(k, "scores", "is not a list of objects")
        reason = payload.get("reason")
        extra = _extra(payload, cls.declared())
        if reason is not None and not isinstance(reason, str):
            extra["reason"] = reason  # a game's own shape of reason: kept as logged
            reason = None
        return cls(_texts(k, payload, "winners"), reason, tuple(dict(s) for s in scores),
                   extra=extra)

    def to_json(self) -> dict[str, object]:
        out = super().to_json()
        out["scores"] = [dict(s) for s in self.scores]
        return out


@dataclass(frozen=True)
class Note(LogEvent):
    KIND: ClassVar[str] = "note"
    text: str = ""

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        text = payload.get("text", "")
        return cls(text if isinstance(text, str) else str(text),
                   extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Players(LogEvent):
    KIND: ClassVar[str] = "players"
    players: tuple[str, ...]
    previous: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        return cls(_texts(k, payload, "players"), _texts(k, payload, "previous"),
                   extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Settings(LogEvent):
    """Table options that are not engine options; every key is the table's (``extra``)."""

    KIND: ClassVar[str] = "settings"

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        return cls(extra=dict(payload))

    @property
    def values(self) -> dict[str, object]:
        return dict(self.extra)


@dataclass(frozen=True)
class Clock(LogEvent):
    KIND: ClassVar[str] = "clock"
    remaining: dict[str, object]
    running: str | None = None

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        return cls(_opt_map(k, payload, "remaining") or {}, _opt_text(k, payload, "running"),
                   extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Remote(LogEvent):
    KIND: ClassVar[str] = "remote"
    id: str
    table: str | None = None

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        return cls(_text(k, payload, "id"), _opt_text(k, payload, "table"),
                   extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Board(LogEvent):
    KIND: ClassVar[str] = "board"
    name: str | None
    profile: dict[str, object]

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        k = cls.KIND
        profile = _opt_map(k, payload, "profile")
        if profile is None:
            raise CorruptEventError(k, "profile", "is missing")
        return cls(_opt_text(k, payload, "name"), profile, extra=_extra(payload, cls.declared()))


@dataclass(frozen=True)
class Sense(LogEvent):
    """A settled board the table read (for audits): every key is kept as logged."""

    KIND: ClassVar[str] = "sense"

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        return cls(extra=dict(payload))


@dataclass(frozen=True)
class UnknownEvent(LogEvent):
    """A kind this version does not know (a newer table wrote it): kept, never replayed."""

    kind: str = ""

    @classmethod
    def from_json(cls, payload: JsonMap) -> Self:
        return cls(extra=dict(payload))

    def to_json(self) -> dict[str, object]:
        return dict(self.extra)


KINDS: dict[str, type[LogEvent]] = {
    cls.KIND: cls
    for cls in (Action, Undo, Choice, Cancel, Execute, Result, Note, Players, Settings,
                Clock, Remote, Board, Sense)
}

#: The kinds a replay applies, in log order.
REPLAYED = ("action", "undo", "choice", "result")


def parse(kind: str, payload: JsonMap, where: str = "") -> LogEvent:
    """The typed event for a logged ``kind`` and ``payload``; CorruptEventError names
    ``where`` (e.g. "game 3, event 12"), the kind and the field that cannot be read."""
    cls = KINDS.get(kind)
    if cls is None:
        LOGGER.debug("%s: unknown event kind %r kept as it is", where or "log", kind)
        return UnknownEvent(kind=kind, extra=dict(payload))
    if not isinstance(payload, Mapping):
        raise CorruptEventError(kind, "payload", "is not an object", where)
    try:
        return cls.from_json(payload)
    except CorruptEventError as exc:
        if not where:
            raise
        raise CorruptEventError(exc.kind, exc.field, exc.problem, where) from None


def kind_of(event: LogEvent) -> str:
    """The kind an event is logged under."""
    return event.kind if isinstance(event, UnknownEvent) else event.KIND


__all__ = [
    "KINDS", "REPLAYED", "Action", "Board", "Cancel", "Choice", "Clock", "CorruptEventError",
    "Execute", "LogEvent", "Note", "Players", "Remote", "Result", "Sense", "Settings",
    "Undo", "UnknownEvent", "kind_of", "parse",
]
