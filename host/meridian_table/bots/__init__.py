"""Computer opponents, hints and the post-game review, for every game that has a bot.

Each game declares its bot on its spec (``GameSpec.bot``: its own, or by default the
generic search bot of :mod:`meridian_table.games.search`), with the levels ``bot:1`` ...
``bot:5``; this package reads it and names no game. It holds what is common to them::

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

from meridian_table.games import registry
from meridian_table.games.contract import (
    DEFAULT_LEVEL,
    Analyst,
    BotSpec,
    Engine,
    GameSpec,
    Verdict,
)
from meridian_table.games.contract import LEVELS as _LEVELS

BOT = "bot"
#: The level numbers every bot offers (``bot:1`` ... ``bot:5``).
LEVELS = tuple(level.number for level in _LEVELS)

#: Each level in words, for the page's seat menus: a name and what it does. They hold for
#: every game's bot (docs/BOTS.md, "Seats and levels", has each game's figures).
LEVEL_WORDS: dict[int, tuple[str, str]] = {lv.number: (lv.name, lv.help) for lv in _LEVELS}


class NoBotError(ValueError):
    """A game that declares no bot (``GameSpec.bot`` is None)."""


def bot_of(game: str | GameSpec) -> BotSpec:
    """The bot ``game`` declares on its spec (``GameSpec.bot``): its own, or the generic
    search bot; NoBotError when it declares none."""
    spec = registry.spec(game) if isinstance(game, str) else game
    if spec.bot is None:
        raise NoBotError(f"{spec.title} has no bot (its spec says bot=None)")
    return spec.bot


def description(level: int = 5, iterations: int | None = None) -> str:
    """The seat description of a bot level: ``bot:5`` or ``bot:5:400``."""
    if level not in LEVELS:
        raise ValueError(f"level {level!r} is not one of 1 to {LEVELS[-1]}")
    return f"{BOT}:{level}" if iterations is None else f"{BOT}:{level}:{iterations}"


def levels_json(game: str | GameSpec | None = None) -> list[dict[str, object]]:
    """The levels as the page offers them (``GameSpec.to_json()["levels"]``): each with
    its seat description (``bot:4``), its name and what it does."""
    if game is not None:
        return bot_of(game).levels_json()
    return [{"level": level, "automaton": description(level), "name": LEVEL_WORDS[level][0],
             "help": LEVEL_WORDS[level][1], "default": level == DEFAULT_LEVEL}
            for level in LEVELS]


def has_bot(game: str | GameSpec) -> bool:
    """True when ``game``'s spec declares a bot (every game does unless it says None)."""
    spec = registry.spec(game) if isinstance(game, str) else game
    return spec.bot is not None


def create(game: str, level: int = 5, seed: int | None = None,
           iterations: int | None = None) -> Analyst:
    """``game``'s bot at ``level`` (1 to 5). ``iterations`` fixes the amount of search
    (in the bot's own unit: search iterations, re-deals of hidden cards), which makes the
    bot's choice depend only on the seed and the position."""
    bot = bot_of(game)
    bot.level(level)
    return bot.create(level, seed, iterations)


def analyst(game: str, level: int = 5, seed: int | None = None,
            iterations: int | None = None) -> Analyst:
    """``game``'s bot as an :class:`Analyst` (hints and review): every bot is one."""
    return create(game, level, seed, iterations)


def hint(game: str, engine: Engine, level: int = 5, budget_s: float = 1.0,
         seed: int | None = 0, cancel: threading.Event | None = None) -> Verdict:
    """The bot's suggestion for the player to move in ``engine`` (left unchanged)."""
    return analyst(game, level, seed).analyse(engine.clone(), budget_s, cancel)


def summary(verdict: Verdict, top: int = 3) -> Mapping[str, float]:
    """The ``top`` best actions of a verdict with their values, best first."""
    ranked = sorted(verdict.values.items(), key=lambda kv: -kv[1])
    return dict(ranked[:top])


__all__ = ["BOT", "DEFAULT_LEVEL", "LEVELS", "LEVEL_WORDS", "Analyst", "NoBotError", "Verdict",
           "analyst", "bot_of", "create", "description", "has_bot", "hint", "levels_json",
           "summary"]
