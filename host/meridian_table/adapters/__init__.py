"""Adapters: one per game. They say what a change in occupancy means and what the LEDs show.

``create(game, options, settings, variant)`` builds the adapter of a registered game
through its spec (``meridian_table.games.registry``); the interface is
:class:`meridian_table.adapters.base.Adapter` (docs/TABLE.md).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from meridian_table.adapters.base import Adapter, AdapterError
from meridian_table.games import registry
from meridian_table.games.contract import Options
from meridian_table.games.registry import UnknownGameError

LOGGER = logging.getLogger(__name__)


def create(
    game: str,
    options: Options | None = None,
    settings: Options | None = None,
    variant: Mapping[str, object] | None = None,
) -> Adapter:
    """A new adapter (and game) for ``game`` with the logged ``options`` and ``settings``
    on a board of profile ``variant``."""
    return registry.spec(game).adapter(options or {}, settings or {}, variant or {})


__all__ = ["Adapter", "AdapterError", "UnknownGameError", "create"]
