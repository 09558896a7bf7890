"""The page's commands as typed records, parsed once at the boundary.

A command arrives as any JSON the sender liked (docs/TABLE.md). :func:`parse` reads it
into one small frozen record per kind, each field checked by ``fields.py`` with its type
and bounds, so a bad one is refused with a message naming the field and what it must
be, and the table dispatches on the record's type (a table of handlers, no chain of
``if``). Three groups answer them:

- moves and seats (:data:`TABLE_COMMANDS`): the running game (``table/session.py``);
- the archive (:data:`ARCHIVE_COMMANDS`: ``games``, ``replay``, ``review``,
  ``review_progress``): the lobby (``table/lobby.py``), which keeps the log across games;
- the lobby's own (:data:`HOST_COMMANDS`: ``catalog``, ``new_game``, ``rematch``,
  ``language``), read by the lobby from the raw command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from meridian_table.table import fields
from meridian_table.table.fields import CommandFieldError


class CommandError(ValueError):
    """A command that is not one of the table's, or whose fields are wrong."""


@dataclass(frozen=True)
class Button:
    """Press a button by name (the physical button of that name does the same)."""

    name: str
    source: str = "web"


@dataclass(frozen=True)
class Toggle:
    """Toggle a site's simulated switch (virtual board only)."""

    site: str


@dataclass(frozen=True)
class Choose:
    """Answer the game's current question (``pie`` = ``swap``/``keep``)."""

    field: str
    value: str


@dataclass(frozen=True)
class Resign:
    """Seat ``player`` (a colour) resigns: the game ends now (table/ending.py)."""

    player: str


@dataclass(frozen=True)
class Agree:
    """One player agrees to end the game by the offered count."""

    player: str


@dataclass(frozen=True)
class Seat:
    """Give a seat to an automaton (``random``, ``bot:4``) or back to a person (None)."""

    seat: str
    automaton: str | None


@dataclass(frozen=True)
class Rename:
    """New names for the players, in seat order (before the first move)."""

    players: tuple[str, ...]


@dataclass(frozen=True)
class State:
    """The page's state, as an answer."""


@dataclass(frozen=True)
class Games:
    """The logged games (the history panel)."""


@dataclass(frozen=True)
class Replay:
    """The positions of a logged game, move by move."""

    game_id: int


@dataclass(frozen=True)
class Review:
    """The bot's review of a logged game: optional level, seconds a position, marks."""

    game_id: int
    level: int | None = None
    budget_s: float | None = None
    top: int | None = None


@dataclass(frozen=True)
class ReviewProgress:
    """How far a running review has got."""

    game_id: int


TableCommand = Button | Toggle | Choose | Agree | Resign | Seat | Rename | State
ArchiveCommand = Games | Replay | Review | ReviewProgress
Command = TableCommand | ArchiveCommand


def _rename(cmd: Mapping[str, Any]) -> Rename:
    names = cmd.get("players")
    if not isinstance(names, list):
        # The count of names is the session's to say (it knows the players).
        raise CommandError(
            "rename needs 'players', a list of names in seat order, e.g. "
            "{\"cmd\": \"rename\", \"players\": [\"Ann\", \"Bob\"]}"
        )
    return Rename(tuple(str(n) for n in names))


def _seat(cmd: Mapping[str, Any]) -> Seat:
    automaton = None if cmd.get("automaton") is None else fields.text(cmd, "automaton")
    return Seat(fields.text(cmd, "seat"), automaton)


def _review(cmd: Mapping[str, Any]) -> Review:
    return Review(fields.game_id(cmd), level=fields.whole(cmd, "level", 1, 5),
                  budget_s=fields.seconds(cmd, "budget_s", 0.01, 10.0),
                  top=fields.whole(cmd, "top", 1, 20))


#: Each command's reader: the raw command to its typed record.
PARSERS: dict[str, Callable[[Mapping[str, Any]], Command]] = {
    "button": lambda c: Button(fields.text(c, "name"), fields.text(c, "source", "web")),
    "toggle": lambda c: Toggle(fields.text(c, "site")),
    "choose": lambda c: Choose(fields.text(c, "field"), fields.text(c, "value")),
    "agree": lambda c: Agree(fields.text(c, "player")),
    "resign": lambda c: Resign(fields.text(c, "player")),
    "seat": _seat,
    "rename": _rename,
    "state": lambda c: State(),
    "games": lambda c: Games(),
    "replay": lambda c: Replay(fields.game_id(c)),
    "review": _review,
    "review_progress": lambda c: ReviewProgress(fields.game_id(c)),
}

TABLE_COMMANDS = ("button", "toggle", "choose", "agree", "resign", "seat", "rename", "state")
ARCHIVE_COMMANDS = ("games", "replay", "review", "review_progress")
HOST_COMMANDS = ("catalog", "new_game", "rematch", "language")


def kind_of(cmd: object) -> str | None:
    """The command's ``cmd`` field, or None when it has none (or is no mapping)."""
    if not isinstance(cmd, Mapping):
        return None
    kind = cmd.get("cmd")
    return kind if isinstance(kind, str) else None


def parse(cmd: object) -> Command:
    """The typed record of a table or archive command; CommandError (or the field's
    CommandFieldError) names what is wrong and what to send instead."""
    if not isinstance(cmd, Mapping):
        raise CommandError(
            f"command {cmd!r:.80} must be an object with a string 'cmd' field, "
            'e.g. {"cmd": "button", "name": "undo"}'
        )
    kind = cmd.get("cmd")
    reader = PARSERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise CommandError(
            f"unknown command {kind!r}; use button, toggle, choose, agree, resign, seat, rename, "
            "replay, review, review_progress, games or state"
        )
    return reader(cmd)


__all__ = [
    "ARCHIVE_COMMANDS",
    "HOST_COMMANDS",
    "PARSERS",
    "TABLE_COMMANDS",
    "Agree",
    "ArchiveCommand",
    "Button",
    "Choose",
    "Command",
    "CommandError",
    "CommandFieldError",
    "Games",
    "Rename",
    "Resign",
    "Replay",
    "Review",
    "ReviewProgress",
    "Seat",
    "State",
    "TableCommand",
    "Toggle",
    "kind_of",
    "parse",
]
