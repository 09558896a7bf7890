"""Plain-text diagrams of a replayed position, for `meridian-table replay`.

A game's spec may provide ``text_diagram(engine) -> str``; ``hex_diagram`` draws points
on an axial hexagonal grid for the games that use one.
"""

from __future__ import annotations

import logging

from meridian_table.games.contract import Engine, GameSpec

LOGGER = logging.getLogger(__name__)


def hex_diagram(points: tuple[str, ...], position: str, coordinates: dict[str, tuple[int, int]]) -> str:
    """Draw axial-coordinate points as rows of a hexagon: one row per r, offset by r."""
    if len(points) != len(position):
        raise ValueError(
            f"position has {len(position)} characters for {len(points)} points; "
            "they must match one to one"
        )
    rows: dict[int, dict[int, str]] = {}
    for name, char in zip(points, position, strict=True):
        q, r = coordinates[name]
        rows.setdefault(r, {})[2 * q + r] = char
    columns = [c for row in rows.values() for c in row]
    left, right = min(columns), max(columns)
    lines = []
    for r in sorted(rows):
        cells = rows[r]
        lines.append("".join(cells.get(c, " ") for c in range(left, right + 1)).rstrip())
    return "\n".join(lines)


def text_diagram(spec: GameSpec, engine: Engine) -> str | None:
    """A diagram of ``engine``'s position, or None when the game offers no way to draw it."""
    if spec.text_diagram is None:
        return None
    try:
        return spec.text_diagram(engine)
    except (KeyError, ValueError, TypeError) as exc:
        LOGGER.warning("cannot draw the %s position: %s", spec.id, exc)
        return None
