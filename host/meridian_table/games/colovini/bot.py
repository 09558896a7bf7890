"""Computer players for Colovini's Meridian: the levelled bot and a greedy one-ply player.

The bot never cheats: before it looks at anything it asks the engine for the position
as its seat sees it (``hidden_from``: its own face-up cards, every card played and the
board; the others' cards and every deck's order re-dealt at random from what they could
be). It then searches by determinisation: every candidate action is scored one ply deep
(the score of the islands now, less the pieces it spends), and the best few are played
out to the end of the game on several re-deals of the hidden cards, with the same
re-deals for every candidate. Playing a card to no meridian (not to play) is one of the
candidates. Levels 1 and 2 play one ply deep (level 1 with noise), level 3 plays out a
fixed number of re-deals, levels 4 and 5 use half and all of the time budget.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from meridian_table.games.colovini.engine import Action, Game
from meridian_table.games.contract import Engine, PolicyCancelled

LOGGER = logging.getLogger(__name__)

Clock = Callable[[], float]

#: What a piece spent is worth against a point of score, one ply deep.
PIECE_COST = 0.08
#: Playouts build towers of at most this height (random heights burn every piece).
PLAYOUT_HEIGHT = 3
#: The share of a timed level's budget that one-ply scoring may take before playouts.
SCORING_SHARE = 0.4


@dataclass(frozen=True)
class Level:
    """``candidates`` played out (0: one ply deep), ``deals`` re-deals (None: until the
    budget's ``share`` is spent), ``noise`` on the one-ply score (level 1)."""

    candidates: int
    deals: int | None
    share: float = 1.0
    noise: float = 0.0


LEVELS: dict[int, Level] = {
    1: Level(0, 0, noise=2.5),
    2: Level(0, 0),
    3: Level(4, 6),
    4: Level(8, None, share=0.5),
    5: Level(12, None, share=1.0),
}


@dataclass(frozen=True)
class Analysis:
    """A search's verdict: the best action, each scored action's value for the player
    to move (an expected share of the win), and each seat's value of the position."""

    best: str
    values: dict[str, float]
    seat_values: tuple[float, ...]
    iterations: int


def _need_colovini(game: Engine, who: str) -> Game:
    if not isinstance(game, Game):
        raise ValueError(f"the {who} plays Colovini's Meridian, not {type(game).__name__}")
    return game


def _margin(g: Game, seat: int) -> float:
    """``seat``'s score now less the best other score."""
    result = g.result()
    totals = [result.totals.get(name, 0) for name in g.names]
    mine = totals[seat]
    return mine - max(t for i, t in enumerate(totals) if i != seat)


def _one_ply(g: Game, action: Action, seat: int) -> float:
    g.play(action)
    try:
        return _margin(g, seat) - PIECE_COST * action.height
    finally:
        g.undo()


def _one_ply_analysis(scored: list[tuple[float, int, Action]], seat: int,
                      players: int) -> Analysis:
    best = scored[0][2]
    values = {a.notation(): 1.0 / (1.0 + math.exp(-v / 4.0)) for v, _, a in scored[:8]}
    mine = values[best.notation()]
    seat_values = tuple(mine if s == seat else (1.0 - mine) / max(1, players - 1)
                        for s in range(players))
    return Analysis(best.notation(), values, seat_values, 0)


def _rewards(g: Game) -> list[float]:
    """Each seat's reward for a finished game: a share of the win, plus a little for the
    margin (so that a near miss beats a rout)."""
    outcome = g.outcome()
    if outcome is None:
        raise RuntimeError("the playout stopped before the game ended")
    scores = [float(s or 0) for s in outcome.scores]
    out: list[float] = []
    for seat in range(g.players):
        win = 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0
        margin = scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
        out.append(0.8 * win + 0.2 / (1.0 + math.exp(-margin / 4.0)))
    return out


def _playout(g: Game, rng: random.Random) -> list[float]:
    """Play to the end with low towers and the odd pass, at random."""
    while not g.is_over:
        actions = g.legal_actions()
        low = [a for a in actions if 0 < a.height <= PLAYOUT_HEIGHT or a.kind == "remove"]
        pool: Sequence[Action] = low if low and rng.random() < 0.9 else actions
        g.play(pool[int(rng.random() * len(pool))])
    return _rewards(g)


def _rng(seed: int | None, g: Game, seat: int, salt: str) -> random.Random:
    """A generator seeded only by what ``seat`` sees (never the hidden cards)."""
    state = g.state
    seen = (state.columns, state.hands, g.face_up(seat),
            tuple(len(cards) for cards in state.unplayed), state.turn)
    return random.Random(f"{salt}|{seed}|{seen!r}")


def _parse_level(argument: str | None) -> tuple[int, int | None]:
    text = argument or "3"
    level_text, _, deals_text = text.partition(":")
    if not (level_text.isascii() and level_text.isdigit()) or int(level_text) not in LEVELS:
        raise ValueError(f"level {level_text!r} is not one of 1 to {len(LEVELS)} (bot:1 ... "
                         f"bot:{len(LEVELS)})")
    if deals_text and not (deals_text.isascii() and deals_text.isdigit() and int(deals_text) > 0):
        raise ValueError(f"re-deals {deals_text!r} is not a positive whole number")
    return int(level_text), int(deals_text) if deals_text else None


class ColoviniBot:
    """The levelled bot (``bot:1`` ... ``bot:5``, or ``bot:LEVEL:DEALS`` for a fixed
    number of re-deals)."""

    def __init__(self, seed: int | None = None, argument: str | None = None,
                 clock: Clock = time.monotonic) -> None:
        self.level, self.deals = _parse_level(argument)
        self._seed = seed
        self._clock = clock

    @property
    def name(self) -> str:
        return f"bot:{self.level}"

    def analyse(self, game: Engine, budget_s: float = 1.0,
                cancel: threading.Event | None = None) -> Analysis:
        real = _need_colovini(game, "Colovini bot")
        if real.is_over:
            raise ValueError("the Colovini bot has no move to make: the game is over")
        start = self._clock()
        seat = real.to_move
        rng = _rng(self._seed, real, seat, "bot")
        # From here on only the seat's own view is used.
        view = real.hidden_from(seat, rng)
        del real, game
        level = LEVELS[self.level]
        actions = view.legal_actions()
        order = list(range(len(actions)))
        scoring_ends = None
        if self.deals is None:
            # Timed: score a random sample (every pass first) if the actions are too many
            # to score within the share of the budget left for it.
            rng.shuffle(order)
            order.sort(key=lambda k: actions[k].kind != "pass")
            scoring_ends = start + budget_s * (SCORING_SHARE if level.candidates else 0.85)
        scored: list[tuple[float, int, Action]] = []
        for j, k in enumerate(order):
            if j % 32 == 0:
                if cancel is not None and cancel.is_set():
                    raise PolicyCancelled("the bot was cancelled")
                if scoring_ends is not None and j and self._clock() >= scoring_ends:
                    break
            action = actions[k]
            value = _one_ply(view, action, seat)
            if level.noise:
                value += rng.gauss(0.0, level.noise)
            scored.append((value, k, action))
        scored.sort(key=lambda t: (-t[0], t[1]))
        deals = self.deals if self.deals is not None else level.deals
        if level.candidates == 0 or len(scored) == 1 or deals == 0:
            return _one_ply_analysis(scored, seat, view.players)
        candidates = [a for _, _, a in scored[: level.candidates]]
        if not any(a.kind == "pass" for a in candidates):
            # Not playing is always weighed in the search.
            candidates.append(next(a for _, _, a in scored if a.kind == "pass"))
        totals = [[0.0] * view.players for _ in candidates]
        deadline = (None if self.deals is not None
                    else start + budget_s * level.share - min(0.04, budget_s / 4))
        done = 0
        first = self._clock()
        while deals is None or done < deals:
            if cancel is not None and cancel.is_set():
                raise PolicyCancelled("the bot was cancelled")
            now = self._clock()
            # Stop before a re-deal that would end past the deadline.
            if deadline is not None and (now >= deadline or done and now + (now - first) / done
                                         >= deadline):
                break
            deal_seed = rng.getrandbits(64)
            results: list[list[float]] = []
            for i, action in enumerate(candidates):
                if deadline is not None and done and self._clock() >= deadline:
                    break  # a re-deal cut short counts for no candidate
                world = view.hidden_from(seat, random.Random(deal_seed))
                world.play(action)
                results.append(_playout(world, random.Random(deal_seed ^ i)))
            if len(results) < len(candidates):
                break
            for row, rewards in zip(totals, results, strict=True):
                for s, r in enumerate(rewards):
                    row[s] += r
            done += 1
        if done == 0:  # the one-ply scoring used the whole budget
            return _one_ply_analysis(scored, seat, view.players)
        means = [[t / done for t in row] for row in totals]
        best_i = max(range(len(candidates)), key=lambda i: (means[i][seat], -i))
        values = {a.notation(): means[i][seat] for i, a in enumerate(candidates)}
        return Analysis(candidates[best_i].notation(), values, tuple(means[best_i]), done)

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        return self.analyse(game, budget_s, cancel).best

    def __repr__(self) -> str:
        return f"ColoviniBot(seed={self._seed!r}, argument={str(self.level)!r})"


class GreedyPlayer:
    """One ply deep (``greedy``): the action that leaves the best score margin now
    (ties broken at random), whatever it spends."""

    name = "greedy"

    def __init__(self, seed: int | None = None, argument: str | None = None) -> None:
        if argument:
            raise ValueError(f"the greedy player takes no setting, got {argument!r}")
        self._seed = seed

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        real = _need_colovini(game, "greedy player")
        if cancel is not None and cancel.is_set():
            raise PolicyCancelled("the greedy player was cancelled")
        if real.is_over:
            raise ValueError("the greedy player has no move to make: the game is over")
        seat = real.to_move
        rng = _rng(self._seed, real, seat, "greedy")
        view = real.hidden_from(seat, rng)
        best: list[Action] = []
        best_value = -math.inf
        for action in view.legal_actions():
            view.play(action)
            value = _margin(view, seat)
            view.undo()
            if value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return rng.choice(best).notation()


__all__ = ["LEVELS", "Analysis", "ColoviniBot", "GreedyPlayer", "Level"]
