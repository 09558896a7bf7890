"""Computer opponents, hints and the post-game review, for every game that has a bot.

Each game brings its own bot as the ``bot`` policy of its spec (``bot:1`` ... ``bot:5``,
the levels); this package names no game. It holds what is common to them::

    from meridian_table import bots
    p = bots.create(game_id, level=5, seed=1)       # a game's id (play --help lists them)
    action = p.choose(game, budget_s=1.0)           # an action the engine accepts

- :func:`create`: a game's bot at a level (optionally with a fixed amount of search,
  which makes it deterministic for a seed: tests);
- :class:`Analyst`: a bot that also says what each action is worth (hints, review);
- :mod:`.worker`: a policy thinking in a worker process, so the table never stalls;
- :mod:`.review`: the moves of a logged game that lost the most (``meridian-table review``).

docs/BOTS.md explains the bots, the levels, hints and the review, with the figures.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from meridian_table.games import registry
from meridian_table.games.contract import Engine, Policy

BOT = "bot"
LEVELS = (1, 2, 3, 4, 5)
#: The level a plain ``bot`` seat plays at (each game's bot parses ``bot`` so).
DEFAULT_LEVEL = 3

#: Each level in words, for the page's seat menus: a name and what it does. They hold for
#: every game's bot (docs/BOTS.md, "Seats and levels", has each game's figures).
LEVEL_WORDS: dict[int, tuple[str, str]] = {
    1: ("beginner", "a very short search, fit for a beginner"),
    2: ("easy", "a short search"),
    3: ("medium", "a longer search; a plain bot seat plays at this level"),
    4: ("strong", "searches for half of its think time"),
    5: ("strongest", "searches for all of its think time"),
}


class Verdict(Protocol):
    """What an analysis says: the best action, each action's value for the player to
    move, each seat's value of the position, and how much search it took."""

    @property
    def best(self) -> str: ...

    @property
    def values(self) -> dict[str, float]: ...

    @property
    def seat_values(self) -> tuple[float, ...]: ...

    @property
    def iterations(self) -> int: ...


@runtime_checkable
class Analyst(Protocol):
    """A bot that can explain itself: every game's ``bot`` policy is one."""

    @property
    def name(self) -> str: ...

    def analyse(self, game: Engine, budget_s: float = 1.0,
                cancel: threading.Event | None = None) -> Verdict: ...

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str: ...


def description(level: int = 5, iterations: int | None = None) -> str:
    """The seat description of a bot level: ``bot:5`` or ``bot:5:400``."""
    if level not in LEVELS:
        raise ValueError(f"level {level!r} is not one of 1 to {LEVELS[-1]}")
    return f"{BOT}:{level}" if iterations is None else f"{BOT}:{level}:{iterations}"


def levels_json() -> list[dict[str, object]]:
    """The levels as the page offers them (``GameSpec.to_json()["levels"]``): each with
    its seat description (``bot:4``), its name and what it does."""
    return [{"level": level, "automaton": description(level), "name": LEVEL_WORDS[level][0],
             "help": LEVEL_WORDS[level][1], "default": level == DEFAULT_LEVEL}
            for level in LEVELS]


def has_bot(game: str) -> bool:
    """True when ``game``'s spec registers a ``bot`` policy."""
    return BOT in registry.spec(game).policies


def create(game: str, level: int = 5, seed: int | None = None,
           iterations: int | None = None) -> Policy:
    """``game``'s bot at ``level`` (1 to 5). ``iterations`` fixes the amount of search
    (in the bot's own unit: search iterations, re-deals of hidden cards), which makes the
    bot's choice depend only on the seed and the position."""
    return registry.spec(game).policy(description(level, iterations), seed)


def analyst(game: str, level: int = 5, seed: int | None = None,
            iterations: int | None = None) -> Analyst:
    """``game``'s bot as an :class:`Analyst` (hints and review)."""
    policy = create(game, level, seed, iterations)
    if not isinstance(policy, Analyst):
        raise TypeError(f"the {game} bot cannot explain its moves ({policy.name})")
    return policy


def hint(game: str, engine: Engine, level: int = 5, budget_s: float = 1.0,
         seed: int | None = 0, cancel: threading.Event | None = None) -> Verdict:
    """The bot's suggestion for the player to move in ``engine`` (left unchanged)."""
    return analyst(game, level, seed).analyse(engine.clone(), budget_s, cancel)


def summary(verdict: Verdict, top: int = 3) -> Mapping[str, float]:
    """The ``top`` best actions of a verdict with their values, best first."""
    ranked = sorted(verdict.values.items(), key=lambda kv: -kv[1])
    return dict(ranked[:top])


__all__ = ["BOT", "DEFAULT_LEVEL", "LEVELS", "LEVEL_WORDS", "Analyst", "Verdict", "analyst", "create", "description",
           "has_bot", "hint", "levels_json", "summary"]
