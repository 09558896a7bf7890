"""Plain-text diagrams of a replayed position, for `meridian-table replay`.

A game package may provide `text_diagram(engine) -> str`; otherwise Kato-style engines
(cell names in `points` and one character per point from `position()`) are drawn as a
hexagon, and anything else by its own `str()` when it defines one.
"""

from __future__ import annotations

import logging
from typing import Any

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


def text_diagram(package: Any, engine: Any, game: str) -> str | None:
    """A diagram of `engine`'s position, or None when this game offers no way to draw it."""
    custom = getattr(package, "text_diagram", None)
    if callable(custom):
        return str(custom(engine))
    points = getattr(engine, "points", None)
    position = getattr(engine, "position", None)
    geometry = getattr(package, "geometry", None)
    coords_of = getattr(geometry, "coordinates", None)
    if isinstance(points, tuple) and callable(position) and callable(coords_of):
        size = getattr(engine, "size", None)
        try:
            coords = coords_of(size) if isinstance(size, int) else coords_of()
            return hex_diagram(points, str(position()), coords)
        except (KeyError, ValueError, TypeError) as exc:
            LOGGER.warning("cannot draw the %s position as a hexagon: %s", game, exc)
    if getattr(type(engine), "__str__", None) is not getattr(object, "__str__", None):
        return str(engine)
    return None
