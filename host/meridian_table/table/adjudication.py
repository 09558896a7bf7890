"""Ending a game by its count (adjudication): offered with Menu, agreed by every seat.

A pure part of the table core (``core.py``): Menu offers the game's count (its
``adjudicate()``: safe points, the score so far) or withdraws it; each seat agrees on
the page, or with a physical Confirm (which cannot tell who pressed it: the first press
agrees for one seat, the next for another). Once every seat agrees, the count ends the
game. A move or an undo withdraws the offer.
"""

from __future__ import annotations

from meridian_table.games.board import Adapter
from meridian_table.table.errors import SessionError


class Adjudication:
    """Whether a count is offered, and which seats agreed to it."""

    def __init__(self) -> None:
        self.active = False
        self.agreed: set[str] = set()

    def withdraw(self) -> None:
        self.active = False
        self.agreed.clear()

    def toggle(self, game: Adapter) -> None:
        """Menu: offer the count, or withdraw the one offered."""
        if self.active:
            self.withdraw()
            return
        if game.result() is not None:
            raise SessionError("the game is over; there is nothing to count")
        if game.adjudicate() is None:
            raise SessionError(f"{game.game} offers no count to end the game by")
        self.active = True

    def agree(self, game: Adapter, player: str) -> None:
        """``player`` (a seat) agrees; the count ends the game once every seat did."""
        if not self.active:
            raise SessionError("no count is offered; press Menu to offer the safe-points count")
        if player not in game.colours:
            raise SessionError(f"player {player!r} is not one of {', '.join(game.colours)}")
        self.agreed.add(player)
        self.settle(game)

    def confirm(self, game: Adapter) -> None:
        """A physical Confirm: agrees for the next seat that has not agreed yet."""
        left = [c for c in game.colours if c not in self.agreed]
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
