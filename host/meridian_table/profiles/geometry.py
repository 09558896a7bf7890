"""Which sites and buttons each game expects on a board, by variant.

Kato sites come from the Kato engine's geometry; Colovini cities and Empire in Space
quadrants and bodies are simple enough to derive here, so validating a profile never
needs a rules engine beyond Kato's geometry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from meridian_table.games.kato import geometry as kato_geometry

GAMES = ("kato", "colovini", "empire")

CONTROL_BUTTONS = ("confirm", "undo", "pass", "swap", "menu", "plus", "minus")
MERIDIAN_BUTTONS = tuple(f"meridian{m}" for m in range(1, 11))

COLOVINI_MERIDIANS = 10
# Side -> cities per meridian: the 50-city side (2 or 4 players), the 40-city side (3).
COLOVINI_SIDES: dict[int, int] = {50: 5, 40: 4}

EMPIRE_SECTORS = 8
EMPIRE_QUADRANTS = 4
# The rule book ships 11 planet tokens for ring-coloured areas and 15 moon cards.
EMPIRE_RING_COLOURS = ("yellow", "white", "orange")
EMPIRE_PLANET_TOKENS = 11
EMPIRE_MOON_CARDS = 15


class VariantError(ValueError):
    """The variant of a game is not one this project knows; the message says which are."""

    def __init__(self, key: str, problem: str, fix: str) -> None:
        super().__init__(f"{key}: {problem}; {fix}")
        self.key = key
        self.problem = problem
        self.fix = fix


def colovini_cities(side: int) -> tuple[str, ...]:
    """City ids ``"<meridian>.<index>"`` for a board side (50 or 40), index 1 at the north."""
    per = COLOVINI_SIDES[side]
    return tuple(f"{m}.{i}" for m in range(1, COLOVINI_MERIDIANS + 1) for i in range(1, per + 1))


def empire_quadrants() -> tuple[str, ...]:
    """``S1Q1`` ... ``S8Q4``."""
    return tuple(
        f"S{s}Q{q}"
        for s in range(1, EMPIRE_SECTORS + 1)
        for q in range(1, EMPIRE_QUADRANTS + 1)
    )


def empire_bodies(planets: Mapping[str, int], moons: int) -> tuple[str, ...]:
    """Body ids: ``planet.<ring>.<n>`` per ring colour, then ``moon.<n>``."""
    out = [
        f"planet.{ring}.{n}"
        for ring in EMPIRE_RING_COLOURS
        for n in range(1, planets.get(ring, 0) + 1)
    ]
    out.extend(f"moon.{n}" for n in range(1, moons + 1))
    return tuple(out)


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
        planets = variant.get("planets")
        if not isinstance(planets, dict) or set(planets) - set(EMPIRE_RING_COLOURS):
            raise VariantError(
                "variant.planets", f"must map ring colours to planet-area counts, found {planets!r}",
                f"use the ring colours {', '.join(EMPIRE_RING_COLOURS)} as keys",
            )
        counts: dict[str, int] = {}
        for ring, count in planets.items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise VariantError(
                    f"variant.planets.{ring}", f"must be a count, found {count!r}",
                    "use a whole number of 0 or more",
                )
            counts[ring] = count
        if sum(counts.values()) != EMPIRE_PLANET_TOKENS:
            raise VariantError(
                "variant.planets",
                f"adds up to {sum(counts.values())} planet areas, but the rule book places "
                f"one of its {EMPIRE_PLANET_TOKENS} planet tokens on each",
                f"make the counts add up to {EMPIRE_PLANET_TOKENS}",
            )
        moons = _int_field(variant, "moons")
        if not 0 <= moons <= EMPIRE_MOON_CARDS:
            raise VariantError(
                "variant.moons", f"{moons} is more than the {EMPIRE_MOON_CARDS} moon cards in the box",
                f"use 0..{EMPIRE_MOON_CARDS}",
            )
        return empire_quadrants() + empire_bodies(counts, moons)
    raise VariantError("game", f"{game!r} is not a game this project knows",
                       f"use one of {', '.join(GAMES)}")


def allowed_buttons(game: str) -> tuple[str, ...]:
    """Button names a board of ``game`` may have."""
    if game == "colovini":
        return CONTROL_BUTTONS + MERIDIAN_BUTTONS
    return CONTROL_BUTTONS
