"""A simulated table for the club's tests and bench: a real SQLite log played by a game's
random policy, one action per ``step()``, through the game's engine (no board, no link).

It writes exactly what a table writes for a game (``created``, ``action``s, the
``result``), so the replicator, the page and the standings see a real log.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from meridian_table.games import registry
from meridian_table.games.contract import Engine, parse_options
from meridian_table.store import Store


def two_player_game() -> str:
    """The first installed game that two people can play (the bench's default)."""
    specs = registry.specs()
    for game_id, spec in specs.items():
        if spec.player_counts == (2,):
            return game_id
    for game_id, spec in specs.items():
        if 2 in spec.player_counts:
            return game_id
    raise LookupError("no installed game is played by two; install a game package")


class SimTable:
    """One table's log with a game in progress (a context manager; ``close()``)."""

    def __init__(self, path: Path, game: str, players: Sequence[str], *, seed: int = 0,
                 options: dict[str, object] | None = None) -> None:
        self.store = Store.open(Path(path))
        self.game = game
        self.players = tuple(players)
        self.rng = random.Random(seed)
        spec = registry.spec(game)
        given: dict[str, object] = dict(options or {})
        if any(o.name == "players" and o.kind == "engine" for o in spec.options):
            given.setdefault("players", len(self.players))
        parsed, _ = parse_options(spec.options, given, spec.id)
        self.options = dict(spec.prepare(parsed) if spec.prepare is not None else parsed)
        self.game_id = 0
        self.engine: Engine | None = None
        self.games_done = 0

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> SimTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def new_game(self) -> int:
        spec = registry.spec(self.game)
        self.engine = spec.new_game(self.options, self.rng.randrange(1 << 30))
        self.game_id = self.store.create_game(self.game, self.options, self.players)
        return self.game_id

    def step(self) -> str:
        """Log one random legal action (starting a new game after a finished one);
        return what was logged: "created", the action's notation, or "result"."""
        if self.engine is None:
            self.new_game()
            return "created"
        engine = self.engine
        outcome = engine.outcome()
        if outcome is not None or not engine.legal():
            winners = [self.players[i] for i in (outcome.winners if outcome else ())]
            scores = []
            if outcome is not None and outcome.scores:
                scores = [{"player": p, "total": s}
                          for p, s in zip(self.players, outcome.scores, strict=False)]
            self.store.finish(self.game_id, {
                "winners": winners, "scores": scores,
                "reason": (outcome.reason if outcome else "") or "the game ended"})
            self.engine = None
            self.games_done += 1
            return "result"
        turn = engine.turn()
        action = self.rng.choice(engine.legal())
        engine.play(action)
        player = self.players[turn.seat] if turn.seat is not None else ""
        self.store.append(self.game_id, "action", {"notation": action, "player": player,
                                                    "source": "automaton"})
        return action
