"""Games between policies, with no board: what the bench and the tests play.

Each policy gets a copy of the engine (``clone``); a bot that must not see hidden cards
asks the engine for its own view (``hidden_from``), as it does at the table.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from meridian_table.games.contract import GameSpec, Options, Policy

LOGGER = logging.getLogger(__name__)

MAX_ACTIONS = 2000


@dataclass(frozen=True)
class Played:
    """One finished game: the winners (seats), the actions and each seat's think times."""

    winners: tuple[int, ...]
    actions: tuple[str, ...]
    think_s: tuple[tuple[float, ...], ...]

    def share(self, seat: int) -> float:
        """``seat``'s share of the win: 1, 1/k on a k-way shared win, 0."""
        return 1.0 / len(self.winners) if seat in self.winners else 0.0


def game_options(spec: GameSpec, players: int) -> Options:
    """The engine options of a ``players``-player game (an option named ``players``
    when the game has one)."""
    return {"players": players} if any(o.name == "players" for o in spec.options) else {}


def play(spec: GameSpec, policies: Sequence[Policy], seed: int, budget_s: float) -> Played:
    """Play one game of ``spec`` with ``policies[seat]`` for each seat."""
    engine = spec.new_game(game_options(spec, len(policies)), seed)
    actions: list[str] = []
    times: list[list[float]] = [[] for _ in policies]
    while (outcome := engine.outcome()) is None:
        seat = engine.turn().seat
        if seat is None or len(actions) >= MAX_ACTIONS:
            raise RuntimeError(f"{spec.id} game {seed} did not end after {len(actions)} actions")
        start = time.perf_counter()
        action = policies[seat].choose(engine.clone(), budget_s)
        times[seat].append(time.perf_counter() - start)
        engine.play(action)
        actions.append(action)
    return Played(outcome.winners, tuple(actions), tuple(tuple(t) for t in times))


__all__ = ["Played", "game_options", "play"]
