"""The toy on a physical board: one switch and one LED per cell, and the two table buttons.

A one-piece-per-site game, so the platform's ready adapter does everything
(meridian_table.games.placement): the toy gives its sites and seats only.
"""

from __future__ import annotations

from typing import ClassVar

from meridian_table.games.placement import PlacementAdapter
from meridian_toygame.engine import CELLS, ToyGame

SEATS = ("cross", "nought")
#: Each cell's place on the drawing: a 3x3 grid, a b c on the top row.
SITES = {cell: (float(i % 3), float(i // 3)) for i, cell in enumerate(CELLS)}


class ToyAdapter(PlacementAdapter):
    """The toy at the table."""

    game: ClassVar[str] = "toy"
    seats_and_colours: ClassVar[tuple[tuple[str, int], ...]] = (
        ("cross", 0xFF2020), ("nought", 0x20FF20))
    piece_word: ClassVar[str] = "mark"

    def __init__(self, marks: str = "XO") -> None:
        super().__init__(ToyGame(marks), SITES, {"marks": marks}, labels=tuple(marks))
