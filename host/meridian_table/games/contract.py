"""The game contract: what every game package gives the table, the store, the page and the CLI.

A game is a package that registers one :class:`GameSpec` under the entry-point group
``meridian_table.games`` (docs/ADDING_A_GAME.md). Nothing outside a game's own package
names it: the table, the log, the page, the CLI and the profile checker read the spec.

The pieces, from the inside out:

- :class:`Engine`: the pure rules (whose turn, legal actions in notation, play, undo,
  outcome). Engines never touch a port, a file or a socket.
- :class:`OptionSpec`: one game option with its type, default, help and choices. The
  options schema generates the ``play GAME`` flags and the page's new-game form, and
  :func:`parse_options` refuses an unknown or misspelt option by name.
- :class:`Policy`: an automaton seat (a random player, a bot): given a copy of the
  engine it returns a legal action within a time budget, and can be cancelled.
- :class:`BoardSpec`: the sites and buttons a board of this game must have.
- :class:`PageSpec`: the seats' colours, names and pieces, and the game's own script.
- :class:`RecordFormat`: the game's own text record (export and parse).
- :class:`GameSpec`: all of the above, plus the adapter factory and the game's
  benchmarks, commands and help examples.
"""

from __future__ import annotations

import copy
import random
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, Self

if TYPE_CHECKING:
    import click

    from meridian_table.games.board import Adapter

# --- the engine -------------------------------------------------------------------------

OptionValue = bool | int | str | None
Options = Mapping[str, OptionValue]


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

    def clone(self) -> Self:
        """An independent copy, for a policy to search on (off the table's thread)."""
        return copy.deepcopy(self)

    def hidden_from(self, seat: int, rng: random.Random) -> Self:
        """A copy fit for ``seat`` to search on: what ``seat`` cannot see (other hands,
        the deck order) re-dealt at random from what it could be. Games with no hidden
        information return a plain copy."""
        del seat, rng
        return self.clone()


# --- options ------------------------------------------------------------------------------


class OptionError(ValueError):
    """A game option that is unknown, misspelt or of the wrong type or value.

    ``option`` is the option's name when one option is to blame."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


OptionKind = Literal["engine", "setting"]


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game. ``kind`` says where it goes: ``engine`` options make the
    game (logged as its options); ``setting`` options change only how the table helps
    (logged apart, e.g. an assist level). ``type`` is ``bool``, ``int`` or ``str``."""

    name: str
    type: type[bool] | type[int] | type[str]
    default: OptionValue
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    kind: OptionKind = "engine"
    #: The page's label; the name, capitalised, by default.
    label: str = ""
    #: Set by the table from what it knows (the number of players named), so neither
    #: the command line nor the page's form offers it.
    from_table: bool = False
    #: The command line's placeholder for the value (``FILE``).
    metavar: str | None = None

    @property
    def flag(self) -> str:
        """The command-line flag: ``--name`` with dashes."""
        return "--" + self.name.replace("_", "-")

    def parse(self, value: object) -> OptionValue:
        """``value`` (a string from a form or the command line, or a JSON value) as this
        option's type, checked against its choices and bounds."""
        if value is None:
            return None
        if self.type is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise OptionError(f"option {self.name!r}: {value!r} is not yes or no", self.name)
        if self.type is int:
            if isinstance(value, bool):
                raise OptionError(f"option {self.name!r}: {value!r} is not a whole number", self.name)
            text = str(value).strip()
            if not text.isascii() or not text.lstrip("-").isdigit() or len(text) > 12:
                raise OptionError(f"option {self.name!r}: {value!r} is not a whole number", self.name)
            number = int(text)
            if self.minimum is not None and number < self.minimum:
                raise OptionError(f"option {self.name!r}: {number} is below {self.minimum}", self.name)
            if self.maximum is not None and number > self.maximum:
                raise OptionError(f"option {self.name!r}: {number} is above {self.maximum}", self.name)
            if self.choices and str(number) not in self.choices:
                raise OptionError(
                    f"option {self.name!r}: {number} is not one of {', '.join(self.choices)}",
                    self.name,
                )
            return number
        text = str(value)
        if self.choices and text not in self.choices:
            raise OptionError(
                f"option {self.name!r}: {text!r} is not one of {', '.join(self.choices)}",
                self.name,
            )
        return text

    def to_json(self) -> dict[str, object]:
        """The option as the page's new-game form draws it."""
        return {
            "name": self.name,
            "type": self.type.__name__,
            "default": self.default,
            "help": self.help,
            "choices": list(self.choices),
            "minimum": self.minimum,
            "maximum": self.maximum,
            "kind": self.kind,
            "label": self.label or self.name.replace("_", " ").capitalize(),
        }


def parse_options(
    schema: Sequence[OptionSpec], given: Mapping[str, object], game: str
) -> tuple[dict[str, OptionValue], dict[str, OptionValue]]:
    """``(engine options, settings)`` from ``given``: each checked and typed by the schema.

    An unknown name is an :class:`OptionError` that names it and lists the known ones
    (a misspelt option is never silently dropped). Options not given are left out, so
    each game's own default applies (and the log shows what was asked for).
    """
    by_name = {o.name: o for o in schema}
    engine: dict[str, OptionValue] = {}
    settings: dict[str, OptionValue] = {}
    for name, value in given.items():
        spec = by_name.get(name)
        if spec is None:
            known = ", ".join(sorted(by_name)) or "none"
            raise OptionError(f"{game} has no option {name!r}; its options are: {known}")
        parsed = spec.parse(value)
        if parsed is None:
            continue
        (engine if spec.kind == "engine" else settings)[name] = parsed
    return engine, settings


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


# --- board, page, records ------------------------------------------------------------------


class VariantError(ValueError):
    """A profile's variant that the game does not know; the message says which it knows."""

    def __init__(self, key: str, problem: str, fix: str) -> None:
        super().__init__(f"{key}: {problem}; {fix}")
        self.key = key
        self.problem = problem
        self.fix = fix


@dataclass(frozen=True)
class BoardSpec:
    """What a board (a profile) of this game must hold, for the profile checker."""

    #: ``expected_sites(variant)``: every site in a stable order; VariantError when the
    #: variant is not one the game knows.
    expected_sites: Callable[[Mapping[str, object]], tuple[str, ...]]
    #: ``describe(variant)``: the board in words ("the board of size 6").
    describe: Callable[[Mapping[str, object]], str]
    #: The button names a board of this game may have.
    buttons: tuple[str, ...] = ("confirm", "undo", "pass", "swap", "menu", "plus", "minus")


@dataclass(frozen=True)
class SeatLook:
    """How the page draws one seat's pieces."""

    seat: str
    label: str
    colour: str            # CSS colour of the pieces
    piece: str = ""        # the piece letter drawn on the board ("L", "D")
    text: str = "#000000"  # a text colour readable on ``colour``


@dataclass(frozen=True)
class PageSpec:
    """What the page needs to draw the game without knowing it."""

    seats: tuple[SeatLook, ...]
    #: ``"hex"`` (round points on a hexagonal grid) or ``"grid"`` (square cities).
    drawing: str = "hex"
    #: A script in the game package's ``static/`` folder (``"static/page.js"``) that the
    #: page loads from ``games/<id>/static/...``; it registers the game's drawing and
    #: panels with ``window.MeridianGames.register(id, {...})`` (docs/WEB.md).
    script: str | None = None
    #: Words for the page: what the pieces are called ("stone", "tower").
    piece_word: str = "piece"

    def to_json(self) -> dict[str, object]:
        return {
            "seats": {
                s.seat: {"label": s.label, "colour": s.colour, "piece": s.piece, "text": s.text}
                for s in self.seats
            },
            "drawing": self.drawing,
            "piece_word": self.piece_word,
            "script": self.script,
        }


@dataclass(frozen=True)
class RecordFormat:
    """The game's own text record: ``export(engine, headers)`` and ``parse(text)``."""

    export: Callable[[Engine, Mapping[str, str]], str]
    parse: Callable[[str], tuple[dict[str, str], Engine]]
    suffix: str = ".txt"


@dataclass(frozen=True)
class BenchSpec:
    """A benchmark the game brings: ``meridian-table bench NAME``."""

    name: str
    help: str
    #: ``run(options)`` with the CLI's ``quick`` and ``seed``: the figures, with a verdict.
    run: Callable[[dict[str, object]], dict[str, object]]


# --- the spec ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameSpec:
    """Everything the platform knows about one game. Registered as an entry point."""

    id: str
    title: str
    #: The published name in exports ("Meridians"): for people and other apps.
    published: str
    player_counts: tuple[int, ...]
    options: tuple[OptionSpec, ...]
    #: ``new_game(options, seed)``: a fresh engine with the logged engine options.
    new_game: Callable[[Options, int | None], Engine]
    #: ``adapter(options, settings, side_variant)``: the physical-board adapter.
    adapter: Callable[[Options, Options, Mapping[str, object]], Adapter]
    #: ``default_profile(players, options)``: the board profile's name when none is named.
    default_profile: Callable[[int | None, Options], str]
    board: BoardSpec
    page: PageSpec
    records: RecordFormat
    policies: Mapping[str, PolicyFactory] = field(default_factory=dict)
    #: ``text_diagram(engine)``: the position in plain text for ``replay``.
    text_diagram: Callable[[Engine], str] | None = None
    #: Lines for ``play --help`` (``play GAME ...`` without the program name).
    help_examples: tuple[str, ...] = ()
    benches: tuple[BenchSpec, ...] = ()
    #: ``register_commands(group)``: adds the game's own commands to ``meridian-table``
    #: (a map checker, a scoring assistant).
    register_commands: Callable[[click.Group], None] | None = None
    #: A short line for ``play --help`` and the page's game list.
    summary: str = ""
    #: ``prepare(options) -> options``: checks the engine options together (OptionError
    #: naming the flag and the fix) and may normalise their values (a map file's absolute
    #: path), keeping to the schema's names. Called for new games only. The data an
    #: option names (a map's text) is embedded by the engine in its logged options
    #: (``new_game``), so a logged game replays without the original file.
    prepare: Callable[[dict[str, OptionValue]], dict[str, OptionValue]] | None = None
    #: True when random play of this game (a piece on a lit legal site, Confirm to pass)
    #: exercises the whole table: ``bench table`` plays the first such game by default.
    table_bench: bool = False
    #: ``bench feel`` replays this game's hand corpus (its adapter describes a turn on
    #: the board: docs/TABLE.md, "The hand model").
    hand_corpus: bool = False
    #: The ``bench feel`` target for clean placements (switch change to the move shown,
    #: p99 ms); None when the game asks something before a move counts as read.
    commit_target_ms: float | None = None
    #: The folder of board profiles this game ships (``games/<id>/boards``): a profile
    #: is found by name here as well as among every other game's boards and
    #: ``$MERIDIAN_TABLE_BOARDS`` (docs/ADDING_A_GAME.md).
    boards: Path | None = None
    #: Other games whose physical boards this game is played on as they are ("the Kato
    #: 114-point board"): their profiles are offered and accepted for this game without
    #: a copy; the adapter then gets that profile's variant and site names.
    plays_on: tuple[str, ...] = ()

    def accepts_board(self, board_game: str) -> bool:
        """Whether a board profile made for ``board_game`` can carry this game."""
        return board_game == self.id or board_game in self.plays_on

    def policy(self, description: str, seed: int | None = None) -> Policy:
        """The automaton for a seat description: ``random``, ``bot:4``."""
        name, _, argument = description.partition(":")
        factory = self.policies.get(name)
        if factory is None:
            known = ", ".join(sorted(self.policies)) or "none"
            raise OptionError(
                f"{self.title} has no automaton {name!r}; choose one of: {known} "
                "(or leave the seat to a person)"
            )
        try:
            return factory(seed, argument or None)
        except ValueError as exc:
            raise OptionError(f"seat automaton {description!r}: {exc}") from exc

    def to_json(self) -> dict[str, object]:
        """The spec as the page's new-game form and drawing need it. ``levels`` lists, for
        each automaton that takes a level (a game's ``bot``), the levels the seat menus
        offer, in words (``meridian_table.bots.levels_json``)."""
        from meridian_table import bots  # the bots package reads the registry: not at import

        levels = {bots.BOT: bots.levels_json()} if bots.BOT in self.policies else {}
        return {
            "id": self.id,
            "title": self.title,
            "summary": self.summary,
            "player_counts": list(self.player_counts),
            "options": [o.to_json() for o in self.options],
            "automata": sorted(self.policies),
            "levels": levels,
            "page": self.page.to_json(),
        }


__all__ = [
    "BenchSpec",
    "BoardSpec",
    "Engine",
    "GameSpec",
    "OptionError",
    "OptionSpec",
    "OptionValue",
    "Options",
    "Outcome",
    "PageSpec",
    "Policy",
    "PolicyCancelled",
    "PolicyFactory",
    "RandomPolicy",
    "RecordFormat",
    "SeatLook",
    "Turn",
    "VariantError",
    "parse_options",
]
