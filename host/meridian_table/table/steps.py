"""What goes into the table core's :meth:`~meridian_table.table.core.TableCore.step` and
what comes out of it.

Events are what happened (a switch sensed, the board's snapshot, a board fault, the link
going up or down, the log failing or coming back, time passing, a command, an automaton's or a hint's answer). Effects
are what the shell (``session.py``) must do about them, in order: show an LED plan,
tell the page's subscribers, start or cancel an automaton's thinking, ask for a hint,
or report a refusal to whoever sent the command. Moves are written to the log by the
core itself through its journal, before they count: a move that could not be stored is
not taken (docs/TABLE.md), so the log is not an effect that could still fail later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from meridian_table.games.contract import Engine, Policy
from meridian_table.ledplan import LedPlan
from meridian_table.table.commands import Agree, Button, Choose, Rename, Resign, Seat

# --- events ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sensed:
    """A switch opened or closed (a site, or a button of the board)."""

    pos: int
    closed: bool


@dataclass(frozen=True)
class SnapshotSeen:
    """The board's whole occupancy (after a reconnect or a resync)."""

    closed: frozenset[int]


@dataclass(frozen=True)
class Faulted:
    """A FAULT line from the firmware."""

    code: str
    detail: tuple[str, ...]


@dataclass(frozen=True)
class LinkChanged:
    """The link's state changed; ``occupancy``: what the board holds now."""

    state: str
    detail: str
    occupancy: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Tick:
    """Time passed: a settle window may have ended, a flag fallen, clocks to save."""


@dataclass(frozen=True)
class Refresh:
    """Say everything again (the table's language changed)."""


@dataclass(frozen=True)
class Chose:
    """The thinking automaton's answer: its action, or why it has none."""

    action: str | None
    error: str | None


@dataclass(frozen=True)
class LogChanged:
    """The log failed or came back (``pending_log.py``): the board and the page say so."""


@dataclass(frozen=True)
class Hinted:
    """The hint's answer for the position after ``ply`` moves."""

    ply: int
    action: str | None
    error: str | None


@dataclass(frozen=True)
class CountAnswered:
    """An automaton's answer to the offered count (``countoffer.py``), for offer ``token``."""

    token: int
    seat: str
    agreed: bool


Command = Button | Choose | Agree | Resign | Seat | Rename
Event = (Sensed | SnapshotSeen | Faulted | LinkChanged | LogChanged | Tick | Refresh | Chose
         | Hinted | CountAnswered | Command)

# --- effects ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ShowPlan:
    """Send this LED plan to the board."""

    plan: LedPlan


@dataclass(frozen=True)
class Notify:
    """The page's state changed: tell the subscribers."""


@dataclass(frozen=True)
class Think:
    """Start ``policy`` on ``engine`` (a copy) for ``player``, for ``budget_s``."""

    player: int
    policy: Policy
    engine: Engine
    budget_s: float


@dataclass(frozen=True)
class Cancel:
    """Stop the automaton thinking now (its answer, if it still comes, is dropped)."""


@dataclass(frozen=True)
class AskHint:
    """Ask the bot for a hint at the position after ``ply`` moves (``engine`` makes a
    copy of it, called only when a search is really needed)."""

    ply: int
    engine: Callable[[], Engine]


@dataclass(frozen=True)
class OfferCount:
    """Ask the automata at ``automata`` (seat: (player, description)) whether they agree
    to ``count``; their answers come back as :class:`CountAnswered` for offer ``token``."""

    token: int
    count: Mapping[str, Any]
    automata: Mapping[str, tuple[int, str]]
    engine: Engine


@dataclass(frozen=True)
class WithdrawCount:
    """The count offer is withdrawn: the automata's answers still thinking are dropped."""


@dataclass(frozen=True)
class Refused:
    """The command was refused: the sender is told ``error`` (already shown on the page)."""

    error: ValueError


Effect = ShowPlan | Notify | Think | Cancel | AskHint | OfferCount | WithdrawCount | Refused

__all__ = [
    "AskHint", "Cancel", "Chose", "Command", "CountAnswered", "Effect", "Event", "Faulted", "Hinted",
    "LinkChanged", "LogChanged", "Notify", "OfferCount", "Refresh", "Refused", "Sensed", "ShowPlan", "SnapshotSeen",
    "Think", "Tick", "WithdrawCount",
]
