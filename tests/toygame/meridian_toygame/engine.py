"""The toy's rules: claim a free cell (or pass); three in a row wins; a full grid draws."""

from __future__ import annotations

from meridian_table.games.contract import Engine, Options, Outcome, Turn

CELLS = "abcdefghi"
LINES = ("abc", "def", "ghi", "adg", "beh", "cfi", "aei", "ceg")


class IllegalMoveError(ValueError):
    """The toy's rejection of a move."""


class ToyGame(Engine):
    """A toy game. ``marks`` are the two players' marks; ``strict`` refuses a taken cell."""

    def __init__(self, marks: str = "XO", strict: bool = True) -> None:
        if len(marks) != 2:
            raise ValueError(f"marks {marks!r}: give two marks, one per player")
        self.marks = marks
        self.strict = strict
        self.board = dict.fromkeys(CELLS, ".")
        self.history: list[str] = []

    @property
    def to_move(self) -> str:
        return self.marks[len(self.history) % 2]

    def _winner(self) -> str | None:
        for line in LINES:
            marks = {self.board[c] for c in line}
            if len(marks) == 1 and "." not in marks:
                return marks.pop()
        return None

    def turn(self) -> Turn:
        if self.outcome() is not None:
            return Turn(None, "ended")
        return Turn(len(self.history) % 2, "play")

    def legal(self) -> tuple[str, ...]:
        if self.outcome() is not None:
            return ()
        return (*(c for c in CELLS if self.board[c] == "."), "pass")

    def play(self, action: str) -> str:
        if self.outcome() is not None:
            raise IllegalMoveError(f"{action!r}: the game is over")
        if action != "pass":
            if action not in self.board:
                raise IllegalMoveError(f"{action!r} is not a cell a..i")
            if self.board[action] != "." and self.strict:
                raise IllegalMoveError(f"{action!r} is taken")
            self.board[action] = self.to_move
        self.history.append(action)
        return action

    def undo(self) -> str:
        if not self.history:
            raise IndexError("nothing to undo")
        last = self.history.pop()
        if last != "pass":
            self.board[last] = "."
        return last

    def outcome(self) -> Outcome | None:
        winner = self._winner()
        if winner is not None:
            return Outcome((self.marks.index(winner),), (), f"{winner} has three in a row")
        if "." not in self.board.values():
            return Outcome((), (), "the grid is full")
        return None

    def actions(self) -> tuple[str, ...]:
        return tuple(self.history)

    def record_options(self) -> Options:
        return {"marks": self.marks}

    def position(self) -> str:
        return "".join(self.board[c] for c in CELLS)
