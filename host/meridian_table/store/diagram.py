"""Plain-text diagrams of a replayed position, for `meridian-table replay`.

A game's spec may provide ``text_diagram(engine) -> str``; a game on an axial hexagonal
grid draws it with :func:`meridian_table.games.diagrams.hex_diagram`.
"""

from __future__ import annotations

import logging

from meridian_table.games.contract import Engine, GameSpec
from meridian_table.games.diagrams import hex_diagram

LOGGER = logging.getLogger(__name__)


def text_diagram(spec: GameSpec, engine: Engine) -> str | None:
    """A diagram of ``engine``'s position, or None when the game offers no way to draw it."""
    if spec.text_diagram is None:
        return None
    try:
        return spec.text_diagram(engine)
    except (KeyError, ValueError, TypeError) as exc:
        LOGGER.warning("cannot draw the %s position: %s", spec.id, exc)
        return None


__all__ = ["hex_diagram", "text_diagram"]
