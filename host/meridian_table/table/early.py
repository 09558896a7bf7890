"""Early reading (adaptive settling, docs/TABLE.md): a move read before the table's full
settle window, applied and shown at once, logged only once the window passes.

A pure part of the table core (``core.py``). When the game judges a change clear (its
``settle_time``), the board is read early and the move applied at once; it stays
*provisional* until the full window has passed with no contradicting change. A change
within the window takes it back (it was never logged: :meth:`EarlyReading.retract`);
any other input accepts it (the core logs it first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from meridian_table.games.board import Applied


@dataclass
class Provisional:
    """A move read early: applied and shown, logged once the table's full window has
    passed with no change that contradicts it."""

    applied: Applied
    sense: dict[str, Any]
    deadline: float
    prior: str | None
    seen_empty: set[str]
    #: The adapter's dialogue record right after the move, logged with it.
    dialogue: dict[str, object] | None = None


class EarlyReading:
    """The move read early, if any, and what the settled board it came from was."""

    def __init__(self) -> None:
        self.provisional: Provisional | None = None
        self.quick = False  # the board being read was settled early (adaptive window)
        self.unread: frozenset[str] = frozenset()  # pieces of a move read early, taken back
        self.full_window_end = 0.0  # when that board's full window ends

    def settled(self, quick: bool, full_window_end: float) -> None:
        """A board was settled (early when ``quick``); its full window ends then."""
        self.quick = quick
        self.full_window_end = full_window_end
        self.unread = frozenset()

    def begin(self, play: Callable[[str], Applied], action: str, sense: dict[str, Any],
              prior: str | None, seen_empty: set[str],
              dialogue: Callable[[], dict[str, object]] | None = None) -> Applied:
        """Apply ``action`` now (``play``), to be logged when the full window ends with
        the dialogue record (``dialogue()``) it left."""
        applied = play(action)
        self.provisional = Provisional(applied, sense, self.full_window_end, prior, seen_empty,
                                       None if dialogue is None else dialogue())
        self.quick = False
        return applied

    def retract(self, undo: Callable[[], object]) -> Provisional | None:
        """Take the move back (a change came within its window): its pieces are unread."""
        provisional = self.provisional
        if provisional is None:
            return None
        self.provisional = None
        undo()
        self.unread = frozenset(provisional.applied.placed)
        return provisional

    def take(self) -> Provisional | None:
        """The move to log now (its window passed, or another input accepts it)."""
        provisional, self.provisional = self.provisional, None
        return provisional

    def left(self, now: float) -> float | None:
        """Seconds until the move's window ends (0 or less: now), None without one."""
        return None if self.provisional is None else self.provisional.deadline - now


__all__ = ["EarlyReading", "Provisional"]
