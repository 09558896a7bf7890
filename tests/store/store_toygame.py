"""A tiny stand-in game package for store tests: the game-package surface, nothing more.

Two players claim the cells a..i of a 3x3 grid in turn ("pass" is always legal). It
has `new_game(**options)`, `engine.play/undo`, and `record.export/parse`, exactly the
surface docs/ARCHITECTURE.md asks of every game package.
"""

from __future__ import annotations

import types
from typing import Any

CELLS = "abcdefghi"


class IllegalMoveError(ValueError):
    """The toy's rejection of a move."""


class ToyGame:
    def __init__(self, marks: str = "XO", strict: bool = True) -> None:
        self.marks = marks
        self.strict = strict
        self.board = dict.fromkeys(CELLS, ".")
        self.history: list[str] = []

    @property
    def to_move(self) -> str:
        return self.marks[len(self.history) % 2]

    def play(self, notation: str) -> str:
        if notation != "pass":
            if notation not in self.board:
                raise IllegalMoveError(f"{notation!r} is not a cell a..i")
            if self.board[notation] != ".":
                raise IllegalMoveError(f"{notation!r} is taken")
            self.board[notation] = self.to_move
        self.history.append(notation)
        return notation

    def undo(self) -> None:
        last = self.history.pop()
        if last != "pass":
            self.board[last] = "."

    def position(self) -> str:
        return "".join(self.board[c] for c in CELLS)


def new_game(**options: Any) -> ToyGame:
    return ToyGame(**options)


def _export(engine: ToyGame, headers: dict[str, str]) -> str:
    lines = [f'[{key} "{value}"]' for key, value in headers.items()]
    return "\n".join([*lines, "", " ".join(engine.history)]) + "\n"


record = types.SimpleNamespace(export=_export)

# What a store loader returns for the name "toy".
PACKAGE = types.SimpleNamespace(new_game=new_game, record=record)


def loader(name: str) -> Any:
    if name != "toy":
        raise AssertionError(f"the toy loader only knows 'toy', not {name!r}")
    return PACKAGE
