"""Ending a game by its count (adjudication): offered with Menu, agreed by every seat.

A pure part of the table core (``core.py``): Menu offers the game's count (its
``adjudicate()``: safe points, the score so far) or withdraws it; each seat agrees on
the page, or with a physical Confirm (which cannot tell who pressed it: the first press
agrees for one seat, the next for another). Once every seat agrees, the count ends the
game. A move or an undo withdraws the offer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from meridian_table.games.board import Adapter
from meridian_table.table.errors import SessionError


class Adjudication:
    """Whether a count is offered, and which seats agreed to it."""

    def __init__(self) -> None:
        self.active = False
        self.agreed: set[str] = set()
        #: Which offer this is: an automaton's answer to an older one is dropped.
        self.token = 0

    def withdraw(self) -> None:
        self.active = False
        self.agreed.clear()
        self.token += 1

    def offer(self, game: Adapter) -> dict[str, Any]:
        """Menu: offer the count (a new offer, :attr:`token`); returns the count."""
        if game.result() is not None:
            raise SessionError("the game is over; there is nothing to count")
        count = game.adjudicate()
        if count is None:
            raise SessionError(f"{game.game} offers no count to end the game by")
        self.active = True
        self.agreed.clear()
        self.token += 1
        return count

    def agree(self, game: Adapter, player: str) -> None:
        """``player`` (a seat) agrees; the count ends the game once every seat did."""
        if not self.active:
            raise SessionError("no count is offered; press Menu to offer the safe-points count")
        if player not in game.colours:
            raise SessionError(f"player {player!r} is not one of {', '.join(game.colours)}")
        self.agreed.add(player)
        self.settle(game)

    def confirm(self, game: Adapter, automaton: Callable[[str], bool]) -> None:
        """A physical Confirm: agrees for the next seat that has not agreed yet (people
        first: ``automaton(seat)`` seats answer alone)."""
        left = sorted((c for c in game.colours if c not in self.agreed), key=automaton)
        if left:
            self.agreed.add(left[0])
        self.settle(game)

    def settle(self, game: Adapter) -> None:
        """End the game by the count once every seat agreed."""
        if set(game.colours) <= self.agreed:
            result = game.adjudicate()
            if result is None:
                raise SessionError("the count is no longer available")
            self.active = False
            game.conclude(result)


__all__ = ["Adjudication"]
