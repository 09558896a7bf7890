"""Rebuild a game from its log through the game-package surface of docs/ARCHITECTURE.md.

Replay knows no game: it imports `meridian_table.games.<name>`, calls
`new_game(**options)` with the options logged at creation, and plays the standing
actions (undos already applied) with `engine.play(notation)`.
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from meridian_table.store.errors import ReplayError

if TYPE_CHECKING:
    from meridian_table.store.store import Event, GameInfo, Store

LOGGER = logging.getLogger(__name__)

GameLoader = Callable[[str], Any]


def load_game_package(name: str) -> Any:
    """Import `meridian_table.games.<name>`; ReplayError when it is missing or incomplete."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ReplayError(f"game name {name!r} is not a game package name like 'kato'")
    module_name = f"meridian_table.games.{name}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise ReplayError(
                f"no rules engine for game {name!r} (module {module_name} is missing); "
                "upgrade Meridian Table, or export the raw events with --format jsonl"
            ) from exc
        raise
    if not callable(getattr(module, "new_game", None)):
        raise ReplayError(
            f"{module_name} has no new_game() yet, so its games cannot be replayed; export "
            "the raw events with --format jsonl meanwhile"
        )
    return module


@dataclass(frozen=True)
class Replay:
    """A game rebuilt from its log, up to `ply` standing actions out of `total`."""

    info: GameInfo
    package: Any = field(repr=False)
    engine: Any = field(repr=False)
    moves: tuple[Event, ...]
    ply: int

    @property
    def actions(self) -> tuple[str, ...]:
        """The notations played into `engine`, in order."""
        return tuple(str(e.payload["notation"]) for e in self.moves[: self.ply])

    @property
    def total(self) -> int:
        """How many actions stand in the whole game (after undos)."""
        return len(self.moves)


def new_engine(info: GameInfo, loader: GameLoader | None = None) -> tuple[Any, Any]:
    """The game package and a fresh engine built with the logged options."""
    package = (loader or load_game_package)(info.game)
    try:
        engine = package.new_game(**info.options)
    except (TypeError, ValueError) as exc:
        raise ReplayError(
            f"game {info.id}: {info.game}.new_game(**{info.options!r}) failed ({exc}); the "
            "log is intact, export it with --format jsonl"
        ) from exc
    return package, engine


def replay(
    store: Store, game_id: int, ply: int | None = None, loader: GameLoader | None = None
) -> Replay:
    """Replay game `game_id` from `store`, stopping after `ply` standing actions if given."""
    info = store.game(game_id)
    moves = tuple(store.moves(game_id))
    if ply is None:
        ply = len(moves)
    if not 0 <= ply <= len(moves):
        raise ReplayError(
            f"ply {ply!r} is outside game {game_id}, which has {len(moves)} standing "
            f"actions; choose 0..{len(moves)}"
        )
    package, engine = new_engine(info, loader)
    for number, event in enumerate(moves[:ply], start=1):
        notation = str(event.payload["notation"])
        try:
            engine.play(notation)
        except ValueError as exc:
            raise ReplayError(
                f"game {game_id}: logged action {notation!r} (move {number}, event seq "
                f"{event.seq}) is rejected by the {info.game} rules: {exc}. The log is "
                f"intact; `meridian-table export {game_id} --format jsonl` shows every event"
            ) from exc
    LOGGER.debug("replayed game %d to ply %d of %d", game_id, ply, len(moves))
    return Replay(info, package, engine, moves, ply)
