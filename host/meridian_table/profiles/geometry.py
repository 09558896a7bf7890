"""Which sites and buttons a board of a game must have, read from the game's spec.

Each game's :class:`~meridian_table.games.contract.BoardSpec` says it: this module only
looks the game up in the registry, so validating a profile names no game.
"""

from __future__ import annotations

from collections.abc import Mapping

from meridian_table.games import registry
from meridian_table.games.contract import BoardSpec, VariantError

#: The buttons every board may have (each game's BoardSpec may allow more).
CONTROL_BUTTONS = ("confirm", "undo", "pass", "swap", "menu", "plus", "minus")


def games() -> tuple[str, ...]:
    """The games a profile may be for: every installed game."""
    return registry.ids()


def board_spec(game: str) -> BoardSpec:
    """The board spec of ``game``; VariantError when no installed game has that id."""
    spec = registry.specs().get(game)
    if spec is None:
        raise VariantError("game", f"{game!r} is not a game this installation knows",
                           f"use one of {', '.join(games())}")
    return spec.board


def expected_sites(game: str, variant: Mapping[str, object]) -> tuple[str, ...]:
    """Every site a board of ``game`` with ``variant`` must have, in a stable order."""
    return board_spec(game).expected_sites(variant)


def allowed_buttons(game: str) -> tuple[str, ...]:
    """Button names a board of ``game`` may have."""
    return board_spec(game).buttons


def describe(game: str, variant: Mapping[str, object]) -> str:
    """The board in words, for messages, as the game says it."""
    return board_spec(game).describe(variant)


__all__ = ["CONTROL_BUTTONS", "VariantError", "allowed_buttons", "board_spec", "describe",
           "expected_sites", "games"]
