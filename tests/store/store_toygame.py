"""The toy game (tests/toygame, installed as its own package) as the store tests use it.

``loader`` finds its spec by name, as the registry would; the tests pass it explicitly
so that a test about the store never depends on what else is installed.
"""

from __future__ import annotations

from meridian_toygame.engine import CELLS, IllegalMoveError, ToyGame
from meridian_toygame.spec import SPEC

from meridian_table.games.contract import GameSpec


def new_game(**options: str) -> ToyGame:
    return ToyGame(**options)


def loader(name: str) -> GameSpec:
    if name != "toy":
        raise AssertionError(f"the toy loader only knows 'toy', not {name!r}")
    return SPEC


__all__ = ["CELLS", "SPEC", "IllegalMoveError", "ToyGame", "loader", "new_game"]
