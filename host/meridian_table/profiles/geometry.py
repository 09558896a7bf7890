"""Which sites and buttons each game expects on a board, by variant.

Kato sites come from the Kato engine's geometry and Empire in Space sites from its
package's geometry (``games/empire/geometry.py``, the spec's BoardSpec); Colovini cities
are simple enough to derive here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from meridian_table.games.contract import VariantError
from meridian_table.games.empire import geometry as empire_geometry
from meridian_table.games.kato import geometry as kato_geometry

GAMES = ("kato", "colovini", "empire")

CONTROL_BUTTONS = ("confirm", "undo", "pass", "swap", "menu", "plus", "minus")
MERIDIAN_BUTTONS = tuple(f"meridian{m}" for m in range(1, 11))

COLOVINI_MERIDIANS = 10
# Side -> cities per meridian: the 50-city side (2 or 4 players), the 40-city side (3).
COLOVINI_SIDES: dict[int, int] = {50: 5, 40: 4}


def colovini_cities(side: int) -> tuple[str, ...]:
    """City ids ``"<meridian>.<index>"`` for a board side (50 or 40), index 1 at the north."""
    per = COLOVINI_SIDES[side]
    return tuple(f"{m}.{i}" for m in range(1, COLOVINI_MERIDIANS + 1) for i in range(1, per + 1))


def _int_field(variant: Mapping[str, Any], key: str) -> int:
    value = variant.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise VariantError(f"variant.{key}", f"must be a whole number, found {value!r}",
                           "see hardware/README.md, 'Profiles'")
    return value


def expected_sites(game: str, variant: Mapping[str, Any]) -> tuple[str, ...]:
    """Every site a board of ``game`` with ``variant`` must have, in a stable order."""
    if game == "kato":
        size = _int_field(variant, "size")
        if size not in kato_geometry.SIZES:
            raise VariantError(
                "variant.size", f"{size} is not a Kato board size",
                "use 5 (80 points), 6 (114) or 7 (154)",
            )
        return kato_geometry.points(size)
    if game == "colovini":
        side = _int_field(variant, "side")
        if side not in COLOVINI_SIDES:
            raise VariantError(
                "variant.side", f"{side} is not a Colovini board side",
                "use 50 (5 cities per meridian, 2 or 4 players) or 40 (4 per meridian, 3 players)",
            )
        return colovini_cities(side)
    if game == "empire":
        return empire_geometry.expected_sites(variant)
    raise VariantError("game", f"{game!r} is not a game this project knows",
                       f"use one of {', '.join(GAMES)}")


def allowed_buttons(game: str) -> tuple[str, ...]:
    """Button names a board of ``game`` may have."""
    if game == "colovini":
        return CONTROL_BUTTONS + MERIDIAN_BUTTONS
    return CONTROL_BUTTONS
