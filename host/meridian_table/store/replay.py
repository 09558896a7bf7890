"""Rebuild a game from its log through the game contract (docs/ARCHITECTURE.md).

Replay knows no game: it finds the game's spec in the registry, calls
``spec.new_game(options, None)`` with the options logged at creation, and plays the
standing actions (undos already applied) with ``engine.play(notation)``.

This is the one replay of a log: the table's resume and the page's replay and review
pass the engine of a freshly opened adapter (``replay(..., engine=adapter.engine)``)
and take the table's history and the adapter's dialogue from the log
(``meridian_table.table.logged``); the command line's ``replay`` and exports use a
fresh engine of their own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from meridian_table.games import registry
from meridian_table.games.contract import Engine, GameSpec
from meridian_table.store.errors import ReplayError

if TYPE_CHECKING:
    from meridian_table.store.store import Event, GameInfo, Store

LOGGER = logging.getLogger(__name__)

#: Finds a game's spec by id (the registry by default; tests may pass their own).
GameLoader = Callable[[str], GameSpec]


def load_game_spec(name: str) -> GameSpec:
    """The installed game ``name``; ReplayError when no installed package registers it."""
    try:
        return registry.spec(name)
    except registry.UnknownGameError as exc:
        raise ReplayError(
            f"{exc}; install the package that provides it, or export the raw events with "
            "--format jsonl"
        ) from exc


@dataclass(frozen=True)
class Replay:
    """A game rebuilt from its log, up to `ply` standing actions out of `total`."""

    info: GameInfo
    spec: GameSpec = field(repr=False)
    engine: Engine = field(repr=False)
    moves: tuple[Event, ...]
    ply: int

    @property
    def actions(self) -> tuple[str, ...]:
        """The notations played into `engine`, in order."""
        return tuple(e.notation for e in self.moves[: self.ply])

    @property
    def total(self) -> int:
        """How many actions stand in the whole game (after undos)."""
        return len(self.moves)


def new_engine(info: GameInfo, loader: GameLoader | None = None) -> tuple[GameSpec, Engine]:
    """The game's spec and a fresh engine built with the logged options."""
    spec = (loader or load_game_spec)(info.game)
    try:
        engine = spec.new_game(info.options, None)
    except (TypeError, ValueError) as exc:
        raise ReplayError(
            f"game {info.id}: {info.game} cannot start from its logged options "
            f"{info.options!r} ({exc}); the log is intact, export it with --format jsonl"
        ) from exc
    return spec, engine


def play_moves(info: GameInfo, engine: Engine, moves: Sequence[Event]) -> Iterator[int]:
    """Play the standing ``moves`` into ``engine`` one by one, yielding the number of
    each (1, 2, ...) once it is played: the loop every replay of a log goes through.
    ReplayError names the move the rules reject."""
    for number, event in enumerate(moves, start=1):
        notation = event.notation
        try:
            engine.play(notation)
        except ValueError as exc:
            raise ReplayError(
                f"game {info.id}: logged action {notation!r} (move {number}, event seq "
                f"{event.seq}) is rejected by the {info.game} rules: {exc}. The log is "
                f"intact; `meridian-table export {info.id} --format jsonl` shows every event"
            ) from exc
        yield number


def replay(
    store: Store, game_id: int, ply: int | None = None, loader: GameLoader | None = None,
    engine: Engine | None = None,
) -> Replay:
    """Replay game `game_id` from `store`, stopping after `ply` standing actions if given.

    ``engine``: a fresh engine to play into (an adapter's, opened with the logged options
    and settings) instead of one from ``spec.new_game``."""
    info = store.game(game_id)
    moves = tuple(store.moves(game_id))
    if ply is None:
        ply = len(moves)
    if not 0 <= ply <= len(moves):
        raise ReplayError(
            f"ply {ply!r} is outside game {game_id}, which has {len(moves)} standing "
            f"actions; choose 0..{len(moves)}"
        )
    if engine is None:
        spec, engine = new_engine(info, loader)
    else:
        spec = (loader or load_game_spec)(info.game)
    for _number in play_moves(info, engine, moves[:ply]):
        pass
    LOGGER.debug("replayed game %d to ply %d of %d", game_id, ply, len(moves))
    return Replay(info, spec, engine, moves, ply)
