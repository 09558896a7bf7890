"""Games between policies, with no board: what the bench and the tests play.

Each policy gets a copy of the engine (``clone``); a bot that must not see hidden cards
asks the engine for its own view (``hidden_from``), as it does at the table.

A game may be **adjudicated**, as engine matches do (resign adjudication): once a bot's
own analysis has given its seat at least ``Adjudication.win`` for ``moves`` of its moves
in a row, the game is scored as that seat's win; in a two-player game, at most
``1 - win`` that many times in a row scores it as the other seat's. A game that is played
to its end still records when that rule would have fired and whom it would have named
(``Played.would_adjudicate``), so a bench can show how often the rule is right.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from meridian_table.bots import Analyst
from meridian_table.games.contract import GameSpec, Options, Policy

LOGGER = logging.getLogger(__name__)

MAX_ACTIONS = 2000


@dataclass(frozen=True)
class Adjudication:
    """When a game counts as decided: a bot's value of its seat at least ``win`` (or, with
    two players, at most ``1 - win``) for ``moves`` of its own moves in a row."""

    win: float = 0.95
    moves: int = 3


@dataclass(frozen=True)
class Played:
    """One finished game: the winners (seats), the actions and each seat's think times.

    ``adjudicated``: the game was stopped by the adjudication rule (``winners`` is its
    call). ``would_adjudicate``: in a game played to its end, the winners the rule would
    have named and at which action, or None when it never fired."""

    winners: tuple[int, ...]
    actions: tuple[str, ...]
    think_s: tuple[tuple[float, ...], ...]
    adjudicated: bool = False
    would_adjudicate: tuple[tuple[int, ...], int] | None = None

    def share(self, seat: int) -> float:
        """``seat``'s share of the win: 1, 1/k on a k-way shared win, 0."""
        return 1.0 / len(self.winners) if seat in self.winners else 0.0


def game_options(spec: GameSpec, players: int) -> Options:
    """The engine options of a ``players``-player game (an option named ``players``
    when the game has one)."""
    return {"players": players} if any(o.name == "players" for o in spec.options) else {}


class _Referee:
    """Counts each analysing seat's run of decided verdicts."""

    def __init__(self, rule: Adjudication, players: int) -> None:
        self.rule = rule
        self.players = players
        self.runs = [0] * players  # > 0: a run of wins, < 0: a run of losses

    def verdict(self, seat: int, value: float) -> tuple[int, ...] | None:
        rule = self.rule
        run = self.runs[seat]
        if value >= rule.win:
            run = run + 1 if run > 0 else 1
        elif self.players == 2 and value <= 1.0 - rule.win:
            run = run - 1 if run < 0 else -1
        else:
            run = 0
        self.runs[seat] = run
        if run >= rule.moves:
            return (seat,)
        if -run >= rule.moves:
            return (1 - seat,)
        return None


def play(spec: GameSpec, policies: Sequence[Policy], seed: int, budget_s: float,
         adjudication: Adjudication | None = None, *, stop_when_decided: bool = True
         ) -> Played:
    """Play one game of ``spec`` with ``policies[seat]`` for each seat.

    With ``adjudication``, bots that can analyse are asked for their verdict with each
    move; the game stops when the rule fires (unless ``stop_when_decided`` is False: then
    it is played out and the rule's call is only recorded)."""
    engine = spec.new_game(game_options(spec, len(policies)), seed)
    actions: list[str] = []
    times: list[list[float]] = [[] for _ in policies]
    referee = _Referee(adjudication, len(policies)) if adjudication is not None else None
    would: tuple[tuple[int, ...], int] | None = None
    while (outcome := engine.outcome()) is None:
        seat = engine.turn().seat
        if seat is None or len(actions) >= MAX_ACTIONS:
            raise RuntimeError(f"{spec.id} game {seed} did not end after {len(actions)} actions")
        policy = policies[seat]
        start = time.perf_counter()
        if referee is not None and isinstance(policy, Analyst):
            verdict = policy.analyse(engine.clone(), budget_s)
            action = verdict.best
            call = referee.verdict(seat, verdict.seat_values[seat])
        else:
            action = policy.choose(engine.clone(), budget_s)
            call = None
        times[seat].append(time.perf_counter() - start)
        engine.play(action)
        actions.append(action)
        if call is not None and would is None:
            would = (call, len(actions))
            if stop_when_decided:
                return Played(call, tuple(actions), tuple(tuple(t) for t in times),
                              adjudicated=True)
    return Played(outcome.winners, tuple(actions), tuple(tuple(t) for t in times),
                  would_adjudicate=would)


__all__ = ["Adjudication", "Played", "game_options", "play"]
