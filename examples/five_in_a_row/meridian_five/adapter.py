"""The game on a physical Kato board: one switch and one LED under each point.

A one-piece-per-site game, so the platform's ready adapter does all of it
(meridian_table.games.placement): this gives the points and the seats' colours.
"""

from __future__ import annotations

from typing import ClassVar

from meridian_five.board import drawing
from meridian_five.engine import FiveInARow
from meridian_table.games.placement import PlacementAdapter


class FiveAdapter(PlacementAdapter):
    """Five in a row at the table."""

    game: ClassVar[str] = "five"
    seats_and_colours: ClassVar[tuple[tuple[str, int], ...]] = (
        ("blue", 0x2050FF), ("amber", 0xFFA000))
    piece_word: ClassVar[str] = "stone"
    pass_action: ClassVar[str | None] = None  # there is always an empty point until the end

    def __init__(self, size: int = 6) -> None:
        super().__init__(FiveInARow(size), drawing(size), {"size": size})
