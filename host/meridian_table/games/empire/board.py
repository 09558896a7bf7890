"""The sites of an Empire in Space board: 8 sectors of 4 quadrants, planets and moons."""

from __future__ import annotations

from collections.abc import Mapping

from meridian_table.games.contract import VariantError

SECTORS = 8
QUADRANTS = 4
# The rule book ships 11 planet tokens for ring-coloured areas and 15 moon cards.
RING_COLOURS = ("yellow", "white", "orange")
PLANET_TOKENS = 11
MOON_CARDS = 15
BUTTONS = ("confirm", "undo", "pass", "swap", "menu", "plus", "minus")


def quadrants() -> tuple[str, ...]:
    """``S1Q1`` ... ``S8Q4``."""
    return tuple(f"S{s}Q{q}" for s in range(1, SECTORS + 1) for q in range(1, QUADRANTS + 1))


def bodies(planets: Mapping[str, int], moons: int) -> tuple[str, ...]:
    """Body ids: ``planet.<ring>.<n>`` per ring colour, then ``moon.<n>``."""
    out = [f"planet.{ring}.{n}" for ring in RING_COLOURS for n in range(1, planets.get(ring, 0) + 1)]
    out.extend(f"moon.{n}" for n in range(1, moons + 1))
    return tuple(out)


def expected_sites(variant: Mapping[str, object]) -> tuple[str, ...]:
    """Every quadrant and body of a board with ``variant`` (its planet areas and moons)."""
    planets = variant.get("planets")
    if not isinstance(planets, dict) or set(planets) - set(RING_COLOURS):
        raise VariantError(
            "variant.planets", f"must map ring colours to planet-area counts, found {planets!r}",
            f"use the ring colours {', '.join(RING_COLOURS)} as keys",
        )
    counts: dict[str, int] = {}
    for ring, count in planets.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise VariantError(f"variant.planets.{ring}", f"must be a count, found {count!r}",
                               "use a whole number of 0 or more")
        counts[ring] = count
    if sum(counts.values()) != PLANET_TOKENS:
        raise VariantError(
            "variant.planets",
            f"adds up to {sum(counts.values())} planet areas, but the rule book places "
            f"one of its {PLANET_TOKENS} planet tokens on each",
            f"make the counts add up to {PLANET_TOKENS}",
        )
    moons = variant.get("moons")
    if isinstance(moons, bool) or not isinstance(moons, int):
        raise VariantError("variant.moons", f"must be a whole number, found {moons!r}",
                           "see hardware/README.md, 'Profiles'")
    if not 0 <= moons <= MOON_CARDS:
        raise VariantError("variant.moons", f"{moons} is more than the {MOON_CARDS} moon cards "
                           "in the box", f"use 0..{MOON_CARDS}")
    return quadrants() + bodies(counts, moons)


def describe(variant: Mapping[str, object]) -> str:
    del variant
    return "the Empire in Space board"
