"""Plain-text drawings of a position that several games can share (``replay`` prints
them through a game's ``text_diagram``)."""

from __future__ import annotations

import logging

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


__all__ = ["hex_diagram"]
