"""The rules: two players put a stone in turn on any empty point; five (or more) in a
straight line wins; a full board is a draw. Actions are point names (``G6``)."""

from __future__ import annotations

from typing import Self

from meridian_five.board import neighbours, points
from meridian_table.games.contract import Engine, Options, Outcome, Turn

SEATS = ("blue", "amber")
ROW = 5


class IllegalMoveError(ValueError):
    """A move the rules refuse: the message names the move and the rule."""


class FiveInARow(Engine):
    """One game on the board of ``size`` 5, 6 or 7 (80, 114 or 154 points)."""

    def __init__(self, size: int = 6) -> None:
        self.size = size
        self._points = points(size)
        self._next = neighbours(size)
        self.stones: dict[str, int] = {}
        self.history: list[str] = []
        self._winner: int | None = None

    def turn(self) -> Turn:
        if self.outcome() is not None:
            return Turn(None, "ended")
        return Turn(len(self.history) % 2)

    def legal(self) -> tuple[str, ...]:
        if self.outcome() is not None:
            return ()
        return tuple(p for p in self._points if p not in self.stones)

    def play(self, action: str) -> str:
        if self.outcome() is not None:
            raise IllegalMoveError(f"{action!r}: the game is over")
        if action not in self._next:
            raise IllegalMoveError(f"{action!r} is not a point of the size-{self.size} board")
        if action in self.stones:
            raise IllegalMoveError(f"{action!r} is taken: a stone goes on an empty point")
        seat = len(self.history) % 2
        self.stones[action] = seat
        self.history.append(action)
        if self._makes_row(action, seat):
            self._winner = seat
        return action

    def _makes_row(self, point: str, seat: int) -> bool:
        """Whether the stone just put on ``point`` stands in a row of ``ROW`` or more."""
        for direction in range(len(self._next[point])):
            count = 1
            for way in (0, 1):  # forward, then back along the line
                step = self._next[point][direction][way]
                while step is not None and self.stones.get(step) == seat:
                    count += 1
                    step = self._next[step][direction][way]
            if count >= ROW:
                return True
        return False

    def undo(self) -> str:
        if not self.history:
            raise IndexError("nothing to undo: no stone has been played")
        last = self.history.pop()
        del self.stones[last]
        self._winner = None
        return last

    def outcome(self) -> Outcome | None:
        if self._winner is not None:
            return Outcome((self._winner,), (), f"{SEATS[self._winner].capitalize()} has "
                           f"{ROW} in a row")
        if len(self.stones) == len(self._points):
            return Outcome((), (), "the board is full: a draw")
        return None

    def clone(self) -> Self:
        twin = type(self)(self.size)
        twin.stones = dict(self.stones)
        twin.history = list(self.history)
        twin._winner = self._winner
        return twin

    # What the plain record format writes: the options, then one move a line.
    def actions(self) -> tuple[str, ...]:
        return tuple(self.history)

    def record_options(self) -> Options:
        return {"size": self.size}
