"""The rules half of the game contract: the engine, the automata, the bots' levels.

This module is the bottom of the platform (docs/ARCHITECTURE.md, "Layers"): it imports
nothing of Meridian Table. :mod:`meridian_table.games.contract` re-exports every name
here, so a game imports them from the contract.

- :class:`Engine`: the pure rules (whose turn, legal actions in notation, play, undo,
  outcome, a copy, what a seat may know).
- :class:`Policy`: an automaton seat; :class:`RandomPolicy` plays at random.
- :class:`Analyst` and :class:`Verdict`: a bot that also says what each action is worth
  (the page's hints and the post-game review use it).
- :class:`BotSpec`: the levelled bot a game declares on its spec (``GameSpec.bot``):
  its levels in words and ``create(level, seed, iterations)``.
"""

from __future__ import annotations

import copy
import random
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, Self, runtime_checkable

#: An option's value as logged (``--size 6``: 6).
OptionValue = bool | int | str | None
Options = Mapping[str, OptionValue]

# --- the engine -------------------------------------------------------------------------

@dataclass(frozen=True)
class Turn:
    """Who acts now: ``seat`` is the index of the player (in the logged players list)
    who must act, None once the game is over; ``phase`` names what they do
    (``"play"``, ``"choice"``, ``"pass"``, ``"ended"``, or a game's own word)."""

    seat: int | None
    phase: str = "play"


@dataclass(frozen=True)
class Outcome:
    """A finished game: the winning seats (several on a shared win, none on a draw),
    each seat's score, and the reason in words."""

    winners: tuple[int, ...]
    scores: tuple[int | float | None, ...] = ()
    reason: str = ""


class Engine(ABC):
    """The rules engine surface every game implements. Actions are notation strings."""

    @abstractmethod
    def turn(self) -> Turn:
        """Who acts now and in which phase."""

    @abstractmethod
    def legal(self) -> tuple[str, ...]:
        """Every legal action of the seat to act, in notation, in a stable order."""

    @abstractmethod
    def play(self, action: str) -> object:
        """Apply one action; raises ``ValueError`` (the game's illegal-action error,
        naming the action and the rule) when the rules forbid it."""

    @abstractmethod
    def undo(self) -> object:
        """Take back the last action; ``IndexError`` at the start."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result once the game is over, else None."""

    def actions(self) -> tuple[str, ...]:
        """The actions played since the start, oldest first, in notation: what the plain
        record format (:func:`meridian_table.games.records.plain_records`) writes, one a
        line. A game with a record format of its own need not say."""
        raise NotImplementedError(f"{type(self).__name__} does not list its actions: give "
                                  "it actions() to use the plain record format")

    def record_options(self) -> Options:
        """The options this game was made with (``new_game``'s), for the plain record
        format's headers. A game with a record format of its own need not say."""
        raise NotImplementedError(f"{type(self).__name__} does not list its options: give "
                                  "it record_options() to use the plain record format")

    def clone(self) -> Self:
        """An independent copy, for a policy to search on (off the table's thread)."""
        return copy.deepcopy(self)

    def hidden_from(self, seat: int, rng: random.Random) -> Self:
        """A copy fit for ``seat`` to search on: what ``seat`` cannot see (other hands,
        the deck order) re-dealt at random from what it could be. Games with no hidden
        information return a plain copy."""
        del seat, rng
        return self.clone()


# --- automata ---------------------------------------------------------------------------


class PolicyCancelled(Exception):
    """The table no longer needs the policy's answer (an undo, a new game, a quit)."""


class Policy(Protocol):
    """An automaton seat: a computer player whose moves the people carry out."""

    @property
    def name(self) -> str:
        """How the page and the log name it (``"random"``, ``"bot:4"``)."""

    def choose(
        self, game: Engine, budget_s: float = 1.0, cancel: threading.Event | None = None
    ) -> str:
        """A legal action for the seat to act in ``game`` (a copy the policy may change),
        within about ``budget_s`` seconds. Raises :class:`PolicyCancelled` once
        ``cancel`` is set."""


#: Builds a policy: ``(seed, argument)``. The argument is what follows the colon in a
#: seat's description (``bot:4`` -> ``"4"``), or None.
PolicyFactory = Callable[[int | None, str | None], Policy]


class RandomPolicy:
    """Plays a uniformly random legal action: the automaton the tests play against."""

    name = "random"

    def __init__(self, seed: int | None = None, argument: str | None = None) -> None:
        if argument:
            raise ValueError(f"the random player takes no setting, got {argument!r}")
        self._rng = random.Random(seed)

    def choose(
        self, game: Engine, budget_s: float = 1.0, cancel: threading.Event | None = None
    ) -> str:
        if cancel is not None and cancel.is_set():
            raise PolicyCancelled("the random player was cancelled")
        legal = game.legal()
        if not legal:
            raise ValueError("the random player has no legal action: the game is over")
        return self._rng.choice(legal)

    def __repr__(self) -> str:
        return "RandomPolicy()"


# --- bots: levels, analysis --------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """One level of a bot, in words for the page's seat menus."""

    number: int
    name: str
    help: str


#: The five levels every bot offers (``bot:1`` ... ``bot:5``); docs/BOTS.md has each
#: game's figures.
LEVELS: tuple[Level, ...] = (
    Level(1, "beginner", "a very short search, fit for a beginner"),
    Level(2, "easy", "a short search"),
    Level(3, "medium", "a longer search; a plain bot seat plays at this level"),
    Level(4, "strong", "searches for half of its think time"),
    Level(5, "strongest", "searches for all of its think time"),
)
#: The level a plain ``bot`` seat plays at.
DEFAULT_LEVEL = 3


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
    """A bot that can explain itself: hints and the review ask it what moves are worth."""

    @property
    def name(self) -> str: ...

    def analyse(self, game: Engine, budget_s: float = 1.0,
                cancel: threading.Event | None = None) -> Verdict: ...

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str: ...


#: Builds a game's bot: ``(level, seed, iterations)``. ``iterations`` (None: search for
#: the level's time) fixes the amount of search in the bot's own unit, which makes its
#: choice depend only on the seed and the position (tests, the review).
BotFactory = Callable[[int, int | None, int | None], Analyst]


@dataclass(frozen=True)
class BotSpec:
    """The levelled bot of a game: ``GameSpec.bot``. Every game has one unless it says
    ``bot=None``: the generic search bot (:mod:`meridian_table.games.search`) is the
    default, so a game gets levels, hints and review without writing a bot."""

    create: BotFactory
    levels: tuple[Level, ...] = LEVELS
    default_level: int = DEFAULT_LEVEL
    #: The seat description's name: ``bot`` (``bot:4``, ``bot:4:400``).
    name: str = "bot"

    def level(self, number: int) -> Level:
        """The level ``number``; ValueError names the levels there are."""
        for level in self.levels:
            if level.number == number:
                return level
        raise ValueError(f"level {number!r} is not one of {self.levels[0].number} to "
                         f"{self.levels[-1].number}")

    def description(self, level: int, iterations: int | None = None) -> str:
        """The seat description of a level: ``bot:5`` or ``bot:5:400``."""
        self.level(level)
        return f"{self.name}:{level}" if iterations is None else f"{self.name}:{level}:{iterations}"

    def policy(self, seed: int | None, argument: str | None) -> Analyst:
        """The bot for a seat description's argument: ``None`` (the default level),
        ``"4"`` or ``"4:400"`` (a level and a fixed amount of search)."""
        level_text, _, iterations_text = (argument or str(self.default_level)).partition(":")
        known = f"{self.levels[0].number} to {self.levels[-1].number}"
        if not level_text.isdigit() or int(level_text) not in [lv.number for lv in self.levels]:
            raise ValueError(f"level {level_text!r} is not one of {known} "
                             f"({self.name}:{self.levels[0].number} ... "
                             f"{self.name}:{self.levels[-1].number})")
        number = int(level_text)
        iterations: int | None = None
        if iterations_text:
            if not iterations_text.isdigit() or int(iterations_text) < 1:
                raise ValueError(f"iterations {iterations_text!r} is not a positive whole "
                                 f"number (the amount of search: {self.name}:LEVEL:ITERATIONS)")
            iterations = int(iterations_text)
        return self.create(number, seed, iterations)

    def levels_json(self) -> list[dict[str, object]]:
        """The levels as the page's seat menus offer them."""
        return [{"level": lv.number, "automaton": self.description(lv.number), "name": lv.name,
                 "help": lv.help, "default": lv.number == self.default_level}
                for lv in self.levels]


__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "Analyst",
    "BotFactory",
    "BotSpec",
    "Engine",
    "Level",
    "OptionValue",
    "Options",
    "Outcome",
    "Policy",
    "PolicyCancelled",
    "PolicyFactory",
    "RandomPolicy",
    "Turn",
    "Verdict",
]
