"""Computer players for Kato's Meridians: the levelled bot, a greedy one-ply player and
plain UCT (the bench's reference).

The bot is Monte Carlo tree search on the fast kernel of :mod:`.game` (``clone``,
``legal_mask``, ``play_index``, ``safe_mask``): UCT with RAVE (all moves as first,
which shares what a point is worth across the tree), playouts cut short after a few
plies and scored by the secondary ending's estimate (the safe points of each side),
and solved wins (a move that wins at once is played). It decides the pie rule's swap
and passes like any other move. Levels 1 to 3 search a fixed number of iterations,
level 4 half the time budget and level 5 all of it (docs/BOTS.md). Given a seed and
a fixed number of iterations, it is deterministic.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from meridian_table.games.contract import Engine, PolicyCancelled
from meridian_table.games.kato import kernel
from meridian_table.games.kato.game import LIGHT, PASS, SWAP, Game
from meridian_table.games.kato.tables import bits

LOGGER = logging.getLogger(__name__)

Clock = Callable[[], float]


@dataclass(frozen=True)
class Level:
    """How hard one level plays: a fixed number of iterations (levels 1-3) or a share of
    the time budget (4, 5); ``playout`` plies before the estimate scores the position."""

    iterations: int | None
    share: float = 1.0
    playout: int = 12
    #: Score every root move one ply deep first (the greedy player's judgement) and
    #: count it as PRIOR_VISITS visits: the search starts from there.
    prior: bool = True


LEVELS: dict[int, Level] = {
    1: Level(24, playout=6, prior=False),
    2: Level(120),
    3: Level(500),
    4: Level(None, share=0.5),
    5: Level(None, share=1.0),
}
#: RAVE's equivalence parameter: how long the all-moves-as-first value keeps its weight.
RAVE_K = 600.0
EXPLORE = 0.25
#: How many safe points of difference make a position about 73 % won (the logistic scale).
SAFE_SCALE = 4.0
CHECK_EVERY = 8
#: Stop this much before the budget ends: the answer still has to travel.
MARGIN_S = 0.04
PRIOR_VISITS = 8


def _need_kato(game: Engine, who: str) -> Game:
    if not isinstance(game, Game):
        raise ValueError(f"the {who} plays Kato's Meridians, not {type(game).__name__}")
    return game


def _codes(g: Game) -> list[int]:
    """The legal move codes: points, then SWAP while the pie choice is open; PASS alone
    when nothing can be placed."""
    if kernel.compiled() and not g.is_over:
        codes = list(kernel.legal(kernel.state_of(g))) or [PASS]  # the same list, in C
    else:
        mask = g.legal_mask()
        codes = bits(mask) if mask else [PASS]
    if g.choice_open:
        codes.append(SWAP)
    return codes


def _name(g: Game, code: int) -> str:
    if code == PASS:
        return "pass"
    if code == SWAP:
        return "swap"
    return g.points[code]


def _seat_of_colour(g: Game, c: int) -> int:
    return g.seat("light" if c == 0 else "dark") - 1


def estimate_value(g: Game, seat: int) -> float:
    """How likely ``seat`` (0 or 1) wins from ``g``: 1 or 0 once over, else a logistic
    of the safe-point difference (the secondary ending's estimate)."""
    winner = g.winner
    if winner is not None:
        return 1.0 if g.seat(winner) - 1 == seat else 0.0
    light_safe, dark_safe = kernel.game_safe_counts(g)
    light = _logistic(light_safe - dark_safe)
    return light if _seat_of_colour(g, 0) == seat else 1.0 - light


def _logistic(diff: int) -> float:
    """Light's winning chance from its lead in safe points."""
    return 1.0 / (1.0 + math.exp(-diff / SAFE_SCALE))


class _Node:
    __slots__ = ("aw", "an", "children", "codes", "index", "n", "seat", "visits", "w")

    def __init__(self, g: Game) -> None:
        self.codes = _codes(g)
        self.index = {c: i for i, c in enumerate(self.codes)}
        k = len(self.codes)
        self.n = [0] * k
        self.w = [0.0] * k
        self.an = [0] * k
        self.aw = [0.0] * k
        self.children: list[_Node | None] = [None] * k
        self.visits = 0
        self.seat = g.seat_to_move - 1


@dataclass(frozen=True)
class Analysis:
    """A search's verdict: the best action, each action's value for the player to move
    (a win probability), and the position's value for each seat."""

    best: str
    values: dict[str, float]
    seat_values: tuple[float, ...]
    iterations: int


class Search:
    """One MCTS run from a position (RAVE and the estimate, or plain UCT)."""

    def __init__(self, game: Game, rng: random.Random, *, rave: bool, playout: int | None,
                 clock: Clock = time.monotonic) -> None:
        self.root_game = game
        self.rng = rng
        self.rave = rave
        self.playout = playout  # None: random playouts to the end (plain UCT)
        self.clock = clock
        self.root = _Node(game)
        self.iterations = 0
        self.prior_n = 0
        self.prior_w = 0.0

    def seed_prior(self) -> None:
        """Every root move's one-ply value (the safe-point estimate after it), counted
        as PRIOR_VISITS visits: the same for every move, so the final choice by visits
        is still the search's, but the first iterations go to the promising moves."""
        root = self.root
        for i, code in enumerate(root.codes):
            child = self.root_game.clone()
            child.play_index(code)
            root.n[i] = PRIOR_VISITS
            root.w[i] = PRIOR_VISITS * estimate_value(child, root.seat)
        root.visits = PRIOR_VISITS * len(root.codes)
        self.prior_n = root.visits
        self.prior_w = sum(root.w)

    def run(self, iterations: int | None, deadline: float | None,
            cancel: threading.Event | None) -> None:
        if len(self.root.codes) == 1:
            return
        while True:
            if iterations is not None and self.iterations >= iterations:
                return
            if self.iterations % CHECK_EVERY == 0:
                if cancel is not None and cancel.is_set():
                    raise PolicyCancelled("the bot was cancelled")
                if deadline is not None and self.iterations and self.clock() >= deadline:
                    return
            self._iterate()
            self.iterations += 1

    def _select(self, node: _Node) -> int:
        return kernel.select(node.n, node.w, node.an, node.aw, node.visits, self.rave,
                             RAVE_K, EXPLORE)

    def _iterate(self) -> None:
        g = self.root_game.clone()
        node = self.root
        path: list[tuple[_Node, int]] = []
        seq: list[tuple[int, int]] = []  # (seat, code) of every move in this iteration
        while not g.is_over:
            i = self._select(node)
            code = node.codes[i]
            path.append((node, i))
            seq.append((node.seat, code))
            g.play_index(code)
            child = node.children[i]
            if child is None:
                if not g.is_over:
                    node.children[i] = _Node(g)
                break
            node = child
        value0 = self._rollout(g, seq)
        # Back up; RAVE counts every move a seat played from a node on as if played there.
        after: tuple[set[int], set[int]] = (set(), set())
        for s, c in seq[len(path):]:
            after[s].add(c)
        for d in range(len(path) - 1, -1, -1):
            node, i = path[d]
            s, c = seq[d]
            after[s].add(c)
            r = value0 if node.seat == 0 else 1.0 - value0
            node.visits += 1
            node.n[i] += 1
            node.w[i] += r
            if self.rave:
                index = node.index
                an, aw = node.an, node.aw
                for c in after[node.seat]:
                    k = index.get(c)
                    if k is not None:
                        an[k] += 1
                        aw[k] += r

    def _rollout(self, g: Game, seq: list[tuple[int, int]]) -> float:
        """Play on in the playout kernel (compiled where it is built) and return seat 0's
        value. The kernel draws from its own generator, seeded from ``rng``."""
        seed = self.rng.getrandbits(64)
        if self.playout is None:
            _, final = kernel.playout(kernel.state_of(g), seed)
            won = kernel.winner(final)
            if won >= 0:
                return 1.0 if kernel.seat_of_colour(final, won) == 0 else 0.0
            return estimate_value(kernel.game_of(final), 0)
        out = kernel.rollout_game(g, seed, self.playout)
        if self.rave:
            seq.extend(out.moves)
        final = out.state
        won = kernel.winner(final)
        if won >= 0:
            return 1.0 if kernel.seat_of_colour(final, won) == 0 else 0.0
        light = _logistic(out.light_safe - out.dark_safe)
        return light if kernel.seat_of_colour(final, LIGHT) == 0 else 1.0 - light

    def analysis(self) -> Analysis:
        root = self.root
        g = self.root_game
        values: dict[str, float] = {}
        for i, code in enumerate(root.codes):
            if root.n[i]:
                values[_name(g, code)] = root.w[i] / root.n[i]
        if len(root.codes) == 1:
            only = _name(g, root.codes[0])
            child = g.clone()
            child.play_index(root.codes[0])
            v = estimate_value(child, root.seat)
            values[only] = v
            best = only
        else:
            k = max(range(len(root.codes)), key=lambda i: (root.n[i], root.w[i]))
            best = _name(g, root.codes[k])
        # The position's value: the root's mean (the best child's value is biased upwards
        # by the maximum over noisy estimates, the mean far less).
        total = sum(root.n) - self.prior_n
        mine = ((sum(root.w) - self.prior_w) / total if total > 0
                else values.get(best, 0.5))
        seat_values = (mine, 1.0 - mine) if root.seat == 0 else (1.0 - mine, mine)
        return Analysis(best, values, seat_values, self.iterations)


def _winning_code(g: Game) -> int | None:
    """A move that wins at once (the solver's shortcut), if there is one."""
    me = g.seat_to_move - 1
    for code in _codes(g):
        child = g.clone()
        child.play_index(code)
        winner = child.winner
        if winner is not None and child.seat(winner) - 1 == me:
            return code
    return None


def _parse_level(argument: str | None) -> tuple[int, int | None]:
    """``"4"`` or ``"4:300"`` (level, fixed iterations)."""
    text = argument or "3"
    level_text, _, iterations_text = text.partition(":")
    if not (level_text.isascii() and level_text.isdigit()) or int(level_text) not in LEVELS:
        raise ValueError(f"level {level_text!r} is not one of 1 to {len(LEVELS)} (bot:1 ... "
                         f"bot:{len(LEVELS)})")
    if iterations_text and not (iterations_text.isascii() and iterations_text.isdigit() and int(iterations_text) > 0):
        raise ValueError(f"iterations {iterations_text!r} is not a positive whole number")
    return int(level_text), int(iterations_text) if iterations_text else None


def _rng(seed: int | None, g: Game, salt: str) -> random.Random:
    # A string seed is hashed with SHA-512: the same on every run and in every process.
    return random.Random(f"{salt}|{seed}|{g.position()}|{g.to_move}|{g.choice_open}|"
                         f"{g.turn_number()}")


class KatoBot:
    """The levelled bot (``bot:1`` ... ``bot:5``, or ``bot:LEVEL:ITERATIONS``)."""

    def __init__(self, seed: int | None = None, argument: str | None = None,
                 clock: Clock = time.monotonic) -> None:
        self.level, self.iterations = _parse_level(argument)
        self._seed = seed
        self._clock = clock
        self.last: Analysis | None = None

    @property
    def name(self) -> str:
        return f"bot:{self.level}"

    def analyse(self, game: Engine, budget_s: float = 1.0,
                cancel: threading.Event | None = None) -> Analysis:
        g = _need_kato(game, "Kato bot")
        if g.is_over:
            raise ValueError("the Kato bot has no move to make: the game is over")
        start = self._clock()
        level = LEVELS[self.level]
        search = Search(g, _rng(self._seed, g, "bot"), rave=True, playout=level.playout,
                        clock=self._clock)
        if level.prior and len(search.root.codes) > 1:
            search.seed_prior()
        win = _winning_code(g)
        if win is not None:
            name = _name(g, win)
            mine = 1.0
            seats = (1.0, 0.0) if search.root.seat == 0 else (0.0, 1.0)
            return Analysis(name, {name: mine}, seats, 0)
        iterations = self.iterations if self.iterations is not None else level.iterations
        # Levels 1-3 stop at their iteration count, or at the budget, whichever is first;
        # a fixed iteration count (tests) ignores the clock.
        deadline = (None if self.iterations is not None
                    else start + budget_s * level.share - min(MARGIN_S, budget_s / 4))
        search.run(iterations, deadline, cancel)
        self.last = search.analysis()
        return self.last

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        return self.analyse(game, budget_s, cancel).best

    def __repr__(self) -> str:
        return f"KatoBot(seed={self._seed!r}, argument={self.name[4:]!r})"


class UctPlayer:
    """Plain UCT with uniformly random playouts to the end (``uct``): the reference the
    bench measures the bot against at equal think time."""

    name = "uct"

    def __init__(self, seed: int | None = None, argument: str | None = None,
                 clock: Clock = time.monotonic) -> None:
        if argument:
            raise ValueError(f"plain UCT takes no setting, got {argument!r}")
        self._seed = seed
        self._clock = clock

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        g = _need_kato(game, "UCT player")
        if g.is_over:
            raise ValueError("the UCT player has no move to make: the game is over")
        search = Search(g, _rng(self._seed, g, "uct"), rave=False, playout=None,
                        clock=self._clock)
        # The same stop before the budget as the bot's: equal time.
        search.run(None, self._clock() + budget_s - min(MARGIN_S, budget_s / 4), cancel)
        return search.analysis().best


class GreedyPlayer:
    """One ply deep (``greedy``): a winning move if there is one, else the move that
    leaves the best safe-point difference (ties broken at random)."""

    name = "greedy"

    def __init__(self, seed: int | None = None, argument: str | None = None) -> None:
        if argument:
            raise ValueError(f"the greedy player takes no setting, got {argument!r}")
        self._seed = seed

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        g = _need_kato(game, "greedy player")
        if cancel is not None and cancel.is_set():
            raise PolicyCancelled("the greedy player was cancelled")
        if g.is_over:
            raise ValueError("the greedy player has no move to make: the game is over")
        rng = _rng(self._seed, g, "greedy")
        me = g.seat_to_move - 1
        best: list[int] = []
        best_value = -1.0
        for code in _codes(g):
            child = g.clone()
            child.play_index(code)
            value = estimate_value(child, me)
            if value > best_value + 1e-9:
                best, best_value = [code], value
            elif abs(value - best_value) <= 1e-9:
                best.append(code)
        return _name(g, rng.choice(best))


__all__ = ["LEVELS", "Analysis", "GreedyPlayer", "KatoBot", "Level", "Search", "UctPlayer",
           "estimate_value"]
