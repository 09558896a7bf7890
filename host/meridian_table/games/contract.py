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

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from meridian_table.games.rules import (
    DEFAULT_LEVEL,
    LEVELS,
    Analyst,
    BotFactory,
    BotSpec,
    Engine,
    Level,
    Options,
    OptionValue,
    Outcome,
    Policy,
    PolicyCancelled,
    PolicyFactory,
    RandomPolicy,
    Turn,
    Verdict,
)
from meridian_table.games.search import SEARCH_BOT

if TYPE_CHECKING:
    from meridian_table.games.board import Adapter

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
    #: For a data file (a map, a card set): the names of the shipped ones. The command
    #: line may give a path too; the page may only name one of these (docs/SECURITY.md).
    shipped: Callable[[], tuple[str, ...]] | None = None

    def page_choices(self) -> tuple[str, ...]:
        """What the page may send for this option: its choices, or the shipped names of
        a data file (empty: any value the type takes)."""
        return self.shipped() if self.shipped is not None else self.choices

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
            "choices": list(self.page_choices()),
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
    #: The languages of the rules files the game ships (``static/rules.<lang>.json``:
    #: its rules in short, a glossary, what its score means; docs/WEB.md). The page asks
    #: only for these, so a game without rules shows no Rules button and asks for none.
    rules: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "seats": {
                s.seat: {"label": s.label, "colour": s.colour, "piece": s.piece, "text": s.text}
                for s in self.seats
            },
            "drawing": self.drawing,
            "piece_word": self.piece_word,
            "script": self.script,
            "rules": list(self.rules),
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


@dataclass(frozen=True)
class FileReader:
    """A reader of a file a user may hand the game (a map, a deck): ``bench fuzz`` feeds
    it mutations of ``seed()`` and holds it to raising only ``errors`` (each naming the
    file and what to fix), never anything else."""

    #: The reader's name in ``bench fuzz`` figures (``colovini-map``).
    name: str
    #: The file's suffix (``.toml``).
    suffix: str
    #: ``read(path)``: reads and checks the file; raises one of ``errors`` when it is bad.
    read: Callable[[Path], object]
    #: The errors that say in words what is wrong with a file.
    errors: tuple[type[Exception], ...]
    #: A real, valid file: mutations of it reach past the syntax check.
    seed: Callable[[], bytes]


#: One switch change at the table: ``(site, closed)``.
SiteChange = tuple[str, bool]


@dataclass(frozen=True)
class TableDriver:
    """How ``bench <id>-table`` plays the game at the table on the virtual board: the
    platform's table bench (switch change to LED frame) with this game's own adapter."""

    #: The board profile the bench plays on.
    profile: str
    #: The players' names (their number is the player count).
    players: tuple[str, ...]
    #: ``options(game_number)``: the engine options of each seeded game.
    options: Callable[[int], Options]
    #: ``step(engine_copy, rng)``: the next action and the switch changes that make it on
    #: the board, in order; no change: the action is given on the page.
    step: Callable[[Engine, random.Random], tuple[str, tuple[SiteChange, ...]]]
    #: The bench's target for the p99 switch-to-LED time, in ms.
    target_p99_ms: float = 10.0


@dataclass(frozen=True)
class BenchSettings:
    """What the platform's benches ask of a game (``GameSpec.bench``)."""

    #: True when random play of this game (a piece on a lit legal site, Confirm to pass)
    #: exercises the whole table: ``bench table`` plays the first such game by default.
    table_bench: bool = False
    #: ``bench feel`` replays this game's hand corpus (its adapter describes a turn on
    #: the board: docs/TABLE.md, "The hand model").
    hand_corpus: bool = False
    #: The ``bench feel`` target for clean placements (switch change to the move shown,
    #: p99 ms); None when the game asks something before a move counts as read.
    commit_target_ms: float | None = None
    #: The readers of the files a user may hand this game, which ``bench fuzz`` tries.
    file_readers: tuple[FileReader, ...] = ()
    #: Set: ``bench <id>-table`` plays this game at the table (docs/BENCH.md).
    table_driver: TableDriver | None = None
    #: ``bench bots`` measures this game's bot against its other automata.
    bot_bench: bool = False
    #: ``bench bots``: the share of games the top level must win against ``random``
    #: (None: the platform's target).
    top_vs_random: float | None = None
    #: ``bench bots`` pairings the game is not held to (``"top_vs_greedy"``).
    untargeted: tuple[str, ...] = ()


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
    #: ``default_profile(players, options)``: the board profile's name when none is
    #: named (the one place that says it: the adapter has no default of its own).
    default_profile: Callable[[int | None, Options], str]
    board: BoardSpec
    page: PageSpec
    records: RecordFormat
    #: The automata other than the bot (``random``, a game's own opponent), by name.
    policies: Mapping[str, PolicyFactory] = field(default_factory=lambda: {"random": RandomPolicy})
    #: Automata the rules seat by themselves (Empire's Scelrotia in the infection modes,
    #: ``Adapter.automaton_seats``): never offered to a player's seat on the page.
    rules_seats: tuple[str, ...] = ()
    #: The levelled bot (``bot:1`` ... ``bot:5``) that seats, hints and the review use;
    #: the generic search bot unless the game brings its own; None: no bot.
    bot: BotSpec | None = SEARCH_BOT
    #: ``text_diagram(engine)``: the position in plain text for ``replay``.
    text_diagram: Callable[[Engine], str] | None = None
    #: Lines for ``play --help`` (``play GAME ...`` without the program name).
    help_examples: tuple[str, ...] = ()
    benches: tuple[BenchSpec, ...] = ()
    #: A short line for ``play --help`` and the page's game list.
    summary: str = ""
    #: ``prepare(options) -> options``: checks the engine options together (OptionError
    #: naming the flag and the fix) and may normalise their values (a map file's absolute
    #: path), keeping to the schema's names. Called for new games only. The data an
    #: option names (a map's text) is embedded by the engine in its logged options
    #: (``new_game``), so a logged game replays without the original file.
    prepare: Callable[[dict[str, OptionValue]], dict[str, OptionValue]] | None = None
    #: What the platform's benches ask of the game.
    bench: BenchSettings = BenchSettings()
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

    def automata(self) -> tuple[str, ...]:
        """Every automaton name a seat may take, sorted (``bot``, ``random``...)."""
        names = set(self.policies)
        if self.bot is not None:
            names.add(self.bot.name)
        return tuple(sorted(names))

    def policy(self, description: str, seed: int | None = None) -> Policy:
        """The automaton for a seat description: ``random``, ``bot:4``."""
        if not (isinstance(description, str) and description.isascii()
                and description.isprintable() and 0 < len(description) <= 40):
            raise OptionError(
                f"seat automaton {str(description)[:40]!r} is not a name like 'random' or "
                "'bot:3' (ASCII letters and digits); choose one of: "
                f"{', '.join(sorted(self.policies)) or 'none'}")
        name, _, argument = description.partition(":")
        try:
            if self.bot is not None and name == self.bot.name:
                return self.bot.policy(seed, argument or None)
            factory = self.policies.get(name)
            if factory is None:
                raise OptionError(
                    f"{self.title} has no automaton {name!r}; choose one of: "
                    f"{', '.join(self.automata()) or 'none'} (or leave the seat to a person)"
                )
            return factory(seed, argument or None)
        except OptionError:
            raise
        except ValueError as exc:
            raise OptionError(f"seat automaton {description!r}: {exc}") from exc

    def to_json(self) -> dict[str, object]:
        """The spec as the page's new-game form and drawing need it. ``levels`` lists,
        for the bot, the levels the seat menus offer, in words."""
        levels = {self.bot.name: self.bot.levels_json()} if self.bot is not None else {}
        return {
            "id": self.id,
            "title": self.title,
            "summary": self.summary,
            "player_counts": list(self.player_counts),
            "options": [o.to_json() for o in self.options],
            # What a seat may be given: the rules' own seats are theirs alone.
            "automata": [a for a in self.automata() if a not in self.rules_seats],
            "levels": levels,
            "page": self.page.to_json(),
        }


__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "Analyst",
    "BenchSettings",
    "BenchSpec",
    "BoardSpec",
    "BotFactory",
    "BotSpec",
    "Engine",
    "FileReader",
    "GameSpec",
    "Level",
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
    "SiteChange",
    "TableDriver",
    "Turn",
    "VariantError",
    "Verdict",
    "parse_options",
]
