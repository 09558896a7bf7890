"""The generic search bot: Monte Carlo tree search over the contract, for every game.

A game that brings no bot of its own (``GameSpec.bot`` left at its default) gets this
one: levels for its seats, hints for the person to move and the post-game review, with
no game-specific code. It uses only the engine's contract: ``turn()``, ``legal()``,
``play()``, ``undo()``, ``outcome()`` and ``hidden_from()`` (docs/BOTS.md, "The generic
bot").

- **Search**: UCT (upper confidence bounds on trees). Each iteration walks down the
  tree by the best bound, adds one node, plays the rest of the game at random (up to
  ``PLAYOUT_PLIES`` actions) and adds the result to every node on the way: 1 for a
  winner (shared on a shared win), 1/n each on a draw or an unfinished playout.
- **Hidden information**: each iteration searches on a fresh determinisation,
  ``hidden_from(seat, rng)`` for the seat to move (what it cannot see re-dealt at
  random), so the bot never uses what its seat cannot know. The tree is shared by the
  determinisations and keyed by actions; an action that a determinisation does not
  allow is skipped there (information-set MCTS, as Cowling, Powley and Whitehouse
  describe it).
- **Wins and losses in one**: in a game of perfect information (its engine keeps the
  contract's ``hidden_from``, a plain copy), an action that wins at once is played
  before any search, and the actions after which the next mover wins at once are left
  out of the search (when some action avoids that), so even a short search takes a win
  and blocks a loss (with ``play``/``undo`` on a copy; up to ``SHORTCUT_ACTIONS`` legal
  actions). Where a seat cannot see everything, one re-deal proves nothing: the search
  alone decides.
- **Levels**: 1 to 3 stop after a fixed number of iterations (or the think time,
  whichever comes first), 4 searches for half the think time, 5 for all of it. A fixed
  ``iterations`` makes the choice depend only on the seed and the position.

The engine is changed only through ``play``/``undo`` on its own copies.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from dataclasses import dataclass, field

from meridian_table.games.rules import BotSpec, Engine, PolicyCancelled

LOGGER = logging.getLogger(__name__)

#: Iterations of levels 1 to 3; levels 4 and 5 search for a share of the think time.
LEVEL_ITERATIONS = {1: 24, 2: 120, 3: 480}
LEVEL_TIME_SHARE = {4: 0.5, 5: 1.0}
#: A playout stops after this many actions and counts as a draw (a game that a random
#: player never finishes still gets a value).
PLAYOUT_PLIES = 400
#: The win-or-block check before the search runs only up to this many legal actions
#: (it plays every action and every answer to it: a square of them).
SHORTCUT_ACTIONS = 150
#: UCT's exploration constant (sqrt 2 for rewards in [0, 1]).
EXPLORATION = math.sqrt(2.0)


@dataclass
class _Node:
    """One action's node: visits, and the reward sum for the seat that chose it."""

    seat: int | None
    visits: int = 0
    reward: float = 0.0
    #: How often this node was among the actions a determinisation allowed (ISMCTS).
    available: int = 0
    children: dict[str, _Node] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchVerdict:
    """The analysis of one position (a :class:`meridian_table.games.rules.Verdict`)."""

    best: str
    values: dict[str, float]
    seat_values: tuple[float, ...]
    iterations: int


def _rewards(game: Engine, seats: int) -> tuple[float, ...]:
    """Each seat's reward for a finished (or cut short) playout, in [0, 1]."""
    outcome = game.outcome()
    if outcome is None or not outcome.winners:
        return tuple(1.0 / seats for _ in range(seats))
    share = 1.0 / len(outcome.winners)
    return tuple(share if seat in outcome.winners else 0.0 for seat in range(seats))


class SearchBot:
    """The generic bot at one level (``bot:1`` ... ``bot:5``, ``bot:LEVEL:ITERATIONS``)."""

    def __init__(self, level: int, seed: int | None = None,
                 iterations: int | None = None) -> None:
        if level not in (*LEVEL_ITERATIONS, *LEVEL_TIME_SHARE):
            raise ValueError(f"level {level!r} is not one of 1 to 5")
        self.level = level
        self.iterations = iterations
        self._seed = seed
        self._rng = random.Random(seed)

    @property
    def name(self) -> str:
        return f"bot:{self.level}" if self.iterations is None \
            else f"bot:{self.level}:{self.iterations}"

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        """The most searched action for the seat to move."""
        return self.analyse(game, budget_s, cancel).best

    def analyse(self, game: Engine, budget_s: float = 1.0,
                cancel: threading.Event | None = None) -> SearchVerdict:
        """Search ``game`` (left unchanged) and say what each action is worth to the seat
        to move. Raises :class:`PolicyCancelled` once ``cancel`` is set, ValueError when
        nobody is to act."""
        seat = game.turn().seat
        legal = game.legal()
        if seat is None or not legal:
            raise ValueError("the search bot has nothing to choose: the game is over")
        limit, deadline = self._limits(budget_s)
        winning, losing = self._in_one(game, seat, legal, cancel)
        if winning is not None:
            seats = max(seat + 1, 2)
            return SearchVerdict(winning, {winning: 1.0},
                                 tuple(1.0 if s == seat else 0.0 for s in range(seats)), 0)
        allowed = frozenset(legal) - losing if len(losing) < len(legal) else None
        root = _Node(None)
        seats = 1 + max(seat, 1)
        done = 0
        while done < limit and (deadline is None or time.monotonic() < deadline or done == 0):
            if cancel is not None and cancel.is_set():
                raise PolicyCancelled("the search bot was cancelled")
            state = game.hidden_from(seat, self._rng)
            seats = self._iterate(root, state, seats, allowed)
            done += 1
        values = {action: node.reward / node.visits
                  for action, node in root.children.items() if node.visits}
        if allowed is not None:
            values.update(dict.fromkeys(losing, 0.0))
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, values.get(kv[0], 0.0)))[0]
        seat_values = self._seat_values(root, seat, seats)
        LOGGER.debug("%s: %d iterations, best %r", self.name, done, best)
        return SearchVerdict(best, values, seat_values, done)

    def _limits(self, budget_s: float) -> tuple[int, float | None]:
        """(iteration limit, deadline): a fixed amount of search has no deadline."""
        if self.iterations is not None:
            return self.iterations, None
        start = time.monotonic()
        if self.level in LEVEL_ITERATIONS:
            return LEVEL_ITERATIONS[self.level], start + budget_s
        return 1 << 30, start + budget_s * LEVEL_TIME_SHARE[self.level]

    def _in_one(self, game: Engine, seat: int, legal: tuple[str, ...],
                cancel: threading.Event | None) -> tuple[str | None, frozenset[str]]:
        """(an action that wins at once for ``seat``, or None; the actions after which
        the next mover wins at once), on one determinisation."""
        if len(legal) > SHORTCUT_ACTIONS or type(game).hidden_from is not Engine.hidden_from:
            return None, frozenset()
        probe = game.clone()
        losing: set[str] = set()
        for action in legal:
            if cancel is not None and cancel.is_set():
                raise PolicyCancelled("the search bot was cancelled")
            try:
                probe.play(action)
            except ValueError:
                continue  # not allowed in this determinisation
            try:
                outcome = probe.outcome()
                if outcome is not None:
                    if outcome.winners == (seat,):
                        return action, frozenset()
                    continue
                mover = probe.turn().seat
                if mover is not None and mover != seat and self._wins_at_once(probe, mover):
                    losing.add(action)
            finally:
                probe.undo()
        return None, frozenset(losing)

    @staticmethod
    def _wins_at_once(state: Engine, mover: int) -> bool:
        for answer in state.legal():
            state.play(answer)
            try:
                outcome = state.outcome()
                if outcome is not None and outcome.winners == (mover,):
                    return True
            finally:
                state.undo()
        return False

    def _iterate(self, root: _Node, state: Engine, seats: int,
                 allowed: frozenset[str] | None = None) -> int:
        """One iteration on a determinisation ``state`` (a copy: changed freely);
        ``allowed``: the actions the root may take (None: every legal one)."""
        path = [root]
        node = root
        while True:
            if state.outcome() is not None:
                break
            legal = state.legal()
            if node is root and allowed is not None:
                legal = tuple(a for a in legal if a in allowed) or legal
            if not legal:
                break
            for action in legal:
                child = node.children.get(action)
                if child is not None:
                    child.available += 1
            fresh = [a for a in legal if a not in node.children]
            mover = state.turn().seat
            if mover is not None:
                seats = max(seats, mover + 1)
            if fresh:
                action = self._rng.choice(fresh)
                child = _Node(mover, available=1)
                node.children[action] = child
                state.play(action)
                path.append(child)
                break
            action = self._select(node, legal)
            state.play(action)
            node = node.children[action]
            path.append(node)
        for _ in range(PLAYOUT_PLIES):
            if state.outcome() is not None:
                break
            legal = state.legal()
            if not legal:
                break
            turn = state.turn().seat
            if turn is not None:
                seats = max(seats, turn + 1)
            state.play(self._rng.choice(legal))
        rewards = _rewards(state, seats)
        for step in path:
            step.visits += 1
            if step.seat is not None and step.seat < len(rewards):
                step.reward += rewards[step.seat]
        return seats

    def _select(self, node: _Node, legal: tuple[str, ...]) -> str:
        """The legal child with the best upper confidence bound."""
        best_action = legal[0]
        best_score = -1.0
        for action in legal:
            child = node.children[action]
            if child.visits == 0:
                return action
            score = child.reward / child.visits + EXPLORATION * math.sqrt(
                math.log(max(child.available, 1)) / child.visits)
            if score > best_score:
                best_action, best_score = action, score
        return best_action

    @staticmethod
    def _seat_values(root: _Node, seat: int, seats: int) -> tuple[float, ...]:
        """Each seat's value of the position: the mover's from its best child, the others
        share the rest."""
        visited = [c for c in root.children.values() if c.visits]
        if not visited:
            return tuple(1.0 / seats for _ in range(seats))
        best = max(visited, key=lambda c: c.visits)
        mine = best.reward / best.visits
        rest = (1.0 - mine) / (seats - 1) if seats > 1 else 0.0
        return tuple(mine if s == seat else rest for s in range(seats))

    def __repr__(self) -> str:
        return f"SearchBot({self.level!r}, seed={self._seed!r}, iterations={self.iterations!r})"


def _create(level: int, seed: int | None, iterations: int | None) -> SearchBot:
    return SearchBot(level, seed, iterations)


#: The bot every game gets unless it brings its own (``GameSpec.bot``).
SEARCH_BOT = BotSpec(create=_create)

__all__ = ["LEVEL_ITERATIONS", "PLAYOUT_PLIES", "SEARCH_BOT", "SHORTCUT_ACTIONS", "SearchBot",
           "SearchVerdict"]
