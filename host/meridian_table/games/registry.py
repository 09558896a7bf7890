"""The one list of games: every :class:`GameSpec` registered under the entry-point group
``meridian_table.games``. the games shipped here register there too (pyproject.toml), so a game
in its own package is found exactly as they are, and nothing else lists games.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING

from meridian_table.games.contract import GameSpec, Options

if TYPE_CHECKING:  # the board half is imported by a game's adapter, when a game is played
    from meridian_table.games.board import Adapter

LOGGER = logging.getLogger(__name__)

GROUP = "meridian_table.games"

_lock = threading.Lock()
_specs: dict[str, GameSpec] | None = None
_broken: dict[str, str] = {}


class UnknownGameError(ValueError):
    """A game id that no installed package registers."""


def _load(point: EntryPoint) -> GameSpec | None:
    try:
        spec = point.load()
    except Exception as exc:  # one broken game package must never hide the others
        LOGGER.warning("game %r (%s) could not be loaded: %s", point.name, point.value, exc)
        _broken[point.name] = f"{point.value} could not be loaded: {exc}"
        return None
    if not isinstance(spec, GameSpec):
        _broken[point.name] = f"{point.value} is {type(spec).__name__}, not a GameSpec"
        LOGGER.warning("game %r: %s", point.name, _broken[point.name])
        return None
    if spec.id != point.name:
        _broken[point.name] = f"{point.value} declares id {spec.id!r}, not {point.name!r}"
        LOGGER.warning("game %r: %s", point.name, _broken[point.name])
        return None
    return spec


def specs() -> dict[str, GameSpec]:
    """Every installed game by id, in id order (loaded once)."""
    global _specs
    with _lock:
        if _specs is None:
            found: dict[str, GameSpec] = {}
            for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
                spec = _load(point)
                if spec is not None:
                    found[spec.id] = spec
            _specs = found
        return dict(_specs)


def ids() -> tuple[str, ...]:
    """The installed games' ids."""
    return tuple(specs())


def spec(game: str) -> GameSpec:
    """The spec of ``game``; UnknownGameError names the installed games."""
    found = specs().get(game)
    if found is None:
        why = _broken.get(game)
        if why is not None:
            raise UnknownGameError(f"game {game!r} is installed but broken: {why}")
        raise UnknownGameError(
            f"no game {game!r} is installed; choose one of: {', '.join(ids()) or 'none'}"
        )
    return found


def default_game() -> str:
    """The game played when none is named (``install-service``, ``bench host``): the first
    installed game whose spec says ``bench.table_bench`` (random play of it exercises the
    whole table), else the first by id. UnknownGameError when no game is installed."""
    found = specs()
    for game, candidate in found.items():
        if candidate.bench.table_bench:
            return game
    if not found:
        raise UnknownGameError("no game is installed: install a game package "
                               "(docs/ADDING_A_GAME.md)")
    return next(iter(found))


def create_adapter(
    game: str,
    options: Options | None = None,
    settings: Options | None = None,
    variant: Mapping[str, object] | None = None,
) -> Adapter:
    """A new adapter (and game) for ``game`` with the logged ``options`` and ``settings``
    on a board of profile ``variant`` (the board half of the game's contract)."""
    return spec(game).adapter(options or {}, settings or {}, variant or {})


__all__ = ["GROUP", "UnknownGameError", "create_adapter", "default_game", "ids", "spec", "specs"]
