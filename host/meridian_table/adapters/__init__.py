"""Adapters: one per game. They say what a change in occupancy means and what the LEDs show.

``create(game, **options)`` builds the adapter of a game by its package name; the
interface is :class:`meridian_table.adapters.base.Adapter` (docs/TABLE.md).
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from meridian_table.adapters.base import Adapter, AdapterError

LOGGER = logging.getLogger(__name__)

#: game name -> "module:Class" of its adapter. Imported lazily so one game's missing
#: engine never breaks another game.
ADAPTERS: dict[str, str] = {
    "kato": "meridian_table.adapters.kato:KatoAdapter",
    "colovini": "meridian_table.adapters.colovini:ColoviniAdapter",
}


class UnknownGameError(ValueError):
    """A game name with no adapter."""


def adapter_class(game: str) -> type[Adapter]:
    """The adapter class for ``game`` (``"kato"``, ``"colovini"``)."""
    target = ADAPTERS.get(game)
    if target is None:
        raise UnknownGameError(
            f"no adapter for game {game!r}; choose one of: {', '.join(sorted(ADAPTERS))}"
        )
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UnknownGameError(f"the adapter for game {game!r} is not available: {exc}") from exc
    cls: type[Adapter] = getattr(module, class_name)
    return cls


def create(game: str, **options: Any) -> Adapter:
    """A new adapter (and game) for ``game`` with the logged ``options``."""
    return adapter_class(game)(**options)


__all__ = ["ADAPTERS", "Adapter", "AdapterError", "UnknownGameError", "adapter_class", "create"]
