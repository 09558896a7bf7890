"""The post-game review: which moves of a game lost the most against the bot's judgement.

Like a chess review, every position of the game is analysed by the game's bot (from the
mover's own view: a bot never sees hidden cards, so neither does its review). A move's
loss is how much the mover's chances fell: the mover's value of the position the bot's
best move leaves, less its value of the position the move really left (both judged the
same way, by the bot's analysis of the position). The
moves with the largest losses are marked, each with the move the bot prefers.
``meridian-table review ID`` prints it for any logged game.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from meridian_table import bots
from meridian_table.bots import Verdict
from meridian_table.games.contract import Engine, GameSpec, Options

LOGGER = logging.getLogger(__name__)

#: A loss below this (a share of a win) is the bot's own noise: never marked.
THRESHOLD = 0.1

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Mark:
    """One marked move: ``number`` counts the game's standing actions from 1."""

    number: int
    seat: int
    player: str
    played: str
    best: str
    before: float   # the mover's chances with the best move
    after: float    # the mover's chances after the move played
    source: str = ""

    @property
    def loss(self) -> float:
        return round(max(0.0, self.before - self.after), 3)

    @property
    def words(self) -> str:
        return (f"Move {self.number}: {self.player} played {self.played}; the bot prefers "
                f"{self.best} (chances {self.before:.0%} instead of {self.after:.0%}).")

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = asdict(self)
        out["loss"] = self.loss
        out["words"] = self.words
        return out


def _share(engine: Engine, seat: int) -> float | None:
    outcome = engine.outcome()
    if outcome is None:
        return None
    return 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0


def review(spec: GameSpec, options: Options, actions: Sequence[str],
           players: Sequence[str] = (), sources: Sequence[str] = (), *, level: int = 3,
           budget_s: float = 0.5, top: int = 3, seed: int = 0,
           iterations: int | None = None, cancel: threading.Event | None = None,
           progress: Progress | None = None) -> tuple[Mark, ...]:
    """The ``top`` moves of a game (``spec``, its logged engine ``options`` and its
    standing ``actions``) that lost the most, worst first; a loss under THRESHOLD is
    never marked. ``players`` name the seats in the words.

    Each position is analysed once: its verdict gives the mover's best value, and each
    seat's value of the position, which is the previous mover's value after its move."""
    analyst = bots.analyst(spec.id, level, seed, iterations)
    engine = spec.new_game(options, None)
    marks: list[Mark] = []
    before_engine = engine
    before = 0.0
    pending: tuple[int, int, str, Verdict] | None = None  # (number, seat, action, verdict)
    for number in range(1, len(actions) + 2):
        if progress is not None:
            progress(number - 1, len(actions))
        verdict = None
        if engine.outcome() is None:
            verdict = analyst.analyse(engine.clone(), budget_s, cancel)
        if pending is not None:
            done, seat, played, before_verdict = pending
            after = _share(engine, seat)
            if after is None and verdict is not None:
                after = verdict.seat_values[seat]
            best = before_verdict.best
            if after is not None and played != best:
                # The same judge for both moves: the position each leaves.
                other = before_engine.clone()
                other.play(best)
                shared = _share(other, seat)
                before = (analyst.analyse(other, budget_s, cancel).seat_values[seat]
                          if shared is None else shared)
            if after is not None and played != best and before - after >= THRESHOLD:
                name = players[seat] if seat < len(players) else f"Player {seat + 1}"
                marks.append(Mark(done, seat, name, played, best, round(before, 3),
                                  round(after, 3),
                                  sources[done - 1] if done - 1 < len(sources) else ""))
        if number > len(actions):
            break
        action = actions[number - 1]
        mover = engine.turn().seat
        if mover is None or verdict is None:
            raise ValueError(f"move {number} ({action!r}) comes after the end of the game")
        before_engine = engine.clone()
        engine.play(action)
        pending = (number, mover, action, verdict) if len(verdict.values) > 1 or (
            verdict.best != action) else None
    marks.sort(key=lambda m: (-m.loss, m.number))
    return tuple(marks[:top])


__all__ = ["THRESHOLD", "Mark", "review"]
