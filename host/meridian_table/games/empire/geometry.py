"""Which sites a board of Empire in Space must have, by the profile's variant.

Moved here from ``profiles/geometry.py`` so the game owns its board: the spec's
:class:`~meridian_table.games.contract.BoardSpec` uses :func:`expected_sites`,
:func:`describe` and :data:`BUTTONS`. A site per quadrant (``S1Q1`` .. ``S8Q4``) senses a
starship, a site per body (``planet.<ring>.<n>``, ``moon.<n>``) senses a colony. The
shipped map (``data/sample-map.toml``) names its bodies with the same site names.
"""

from __future__ import annotations

from collections.abc import Mapping

from meridian_table.games.contract import VariantError

EMPIRE_SECTORS = 8
EMPIRE_QUADRANTS = 4
# The rule book ships 11 planet tokens for ring-coloured areas and 15 moon cards.
EMPIRE_RING_COLOURS = ("yellow", "white", "orange")
EMPIRE_PLANET_TOKENS = 11
EMPIRE_MOON_CARDS = 15
BUTTONS = ("confirm", "undo", "pass", "swap", "menu", "plus", "minus")


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


def _counts(variant: Mapping[str, object]) -> tuple[dict[str, int], int]:
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
        counts[str(ring)] = count
    if sum(counts.values()) != EMPIRE_PLANET_TOKENS:
        raise VariantError(
            "variant.planets",
            f"adds up to {sum(counts.values())} planet areas, but the rule book places "
            f"one of its {EMPIRE_PLANET_TOKENS} planet tokens on each",
            f"make the counts add up to {EMPIRE_PLANET_TOKENS}",
        )
    moons = variant.get("moons")
    if isinstance(moons, bool) or not isinstance(moons, int):
        raise VariantError("variant.moons", f"must be a whole number, found {moons!r}",
                           "see hardware/README.md, 'Profiles'")
    if not 0 <= moons <= EMPIRE_MOON_CARDS:
        raise VariantError(
            "variant.moons", f"{moons} is more than the {EMPIRE_MOON_CARDS} moon cards in the box",
            f"use 0..{EMPIRE_MOON_CARDS}",
        )
    return counts, moons


def expected_sites(variant: Mapping[str, object]) -> tuple[str, ...]:
    """Every site of an Empire board with ``variant``: quadrants, then bodies."""
    counts, moons = _counts(variant)
    return empire_quadrants() + empire_bodies(counts, moons)


def describe(variant: Mapping[str, object]) -> str:
    planets = variant.get("planets")
    total = sum(v for v in planets.values() if isinstance(v, int)) \
        if isinstance(planets, dict) else "?"
    return (f"the Empire in Space board: {EMPIRE_SECTORS} sectors of {EMPIRE_QUADRANTS} "
            f"quadrants, {total} planet areas and {variant.get('moons')} moons")


__all__ = ["BUTTONS", "EMPIRE_MOON_CARDS", "EMPIRE_PLANET_TOKENS", "EMPIRE_RING_COLOURS",
           "describe", "empire_bodies", "empire_quadrants", "expected_sites"]
