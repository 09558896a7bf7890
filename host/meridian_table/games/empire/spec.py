"""Empire in Space as the platform sees it: options, board, page, records, automata.

Registered under the ``meridian_table.games`` entry-point group as ``empire``. The
adapter (``games/empire/adapter.py``) plays it on a sensing board; the page shows each
player's energy ledger (``static/page.js``).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from meridian_table.games.contract import (
    BenchSettings,
    BenchSpec,
    BoardSpec,
    Engine,
    FileReader,
    GameSpec,
    OptionError,
    Options,
    OptionSpec,
    OptionValue,
    PageSpec,
    PolicyCancelled,
    RandomPolicy,
    RecordFormat,
    SeatLook,
    SiteChange,
    TableDriver,
)
from meridian_table.games.empire import board
from meridian_table.games.empire.data_files import DataError
from meridian_table.games.empire.files import SHIPPED_CARDS, SHIPPED_MAPS, load_pair
from meridian_table.games.empire.rules import MODES

# The engine and records are imported when first used: the registry (and
# `meridian-table --help`) reads this spec without them.
if TYPE_CHECKING:
    from meridian_table.games.board import Adapter
    from meridian_table.games.empire.engine import Game


OPTIONS = (
    OptionSpec("players", int, None, "How many play: 2 to 4 (1 in infection-solo); the number "
               "of players named by default.", choices=("1", "2", "3", "4"), from_table=True),
    OptionSpec("mode", str, "standard", "standard, two-player, infection-solo (one player "
               "against the Scelrotia) or infection-coop.", choices=MODES),
    OptionSpec("seed", int, None, "Seed of the planet, waypoint and event draws (default: a "
               "random seed; either way it is logged).", minimum=0, maximum=2**31 - 1),
    OptionSpec("map", str, "sample", "The board map: a .toml file or a shipped map "
               f"({', '.join(SHIPPED_MAPS)}; ours, not the printed board).", metavar="FILE",
               shipped=lambda: SHIPPED_MAPS),
    OptionSpec("cards", str, "sample", "The card set: a .toml file or a shipped set "
               f"({', '.join(SHIPPED_CARDS)}; ours, not the printed cards).", metavar="FILE",
               shipped=lambda: SHIPPED_CARDS),
    OptionSpec("order", str, "fixed", "Seat order: fixed (as named) or seeded (the seed draws "
               "the first player; logged).", choices=("fixed", "seeded")),
    OptionSpec("guilds", bool, False, "Each player takes the guild of their colour."),
    OptionSpec("events", bool, False, "Deal 2 event cards to each player (always on in "
               "two-player mode)."),
    OptionSpec("starts", str, "", "The players' starting quadrants, in seat order (e.g. "
               "S1Q3,S3Q1): any quadrant around a yellow-ringed planet (default: one home "
               "planet each, the first quadrant of its orbit).", metavar="QUADRANTS"),
    OptionSpec("sensing", str, "on", "on: the board senses ships and colonies; off: the "
               "scoring assistant for a plain printed board (everything is tapped on the "
               "page, the board only shows).", choices=("on", "off"), kind="setting"),
)


def _names(options: Options) -> list[str] | int:
    names = options.get("names")
    if isinstance(names, list):
        return [str(n) for n in cast(list[object], names)]
    players = options.get("players")
    if isinstance(players, int):
        return players
    return 1 if str(options.get("mode", "")) == "infection-solo" else 3


def _new_game(options: Options, seed: int | None) -> Engine:
    from meridian_table.games.empire.engine import new_game

    given = options.get("seed")
    return new_game(
        players=_names(options),
        mode=str(options.get("mode") or "standard"),
        seed=int(given) if isinstance(given, int) else seed,
        map=str(options.get("map") or "sample"),
        cards=str(options.get("cards") or "sample"),
        order=str(options.get("order") or "fixed"),
        guilds=bool(options.get("guilds", False)),
        events=bool(options.get("events", False)),
        # The data's text as the game logged it (issue 24): it replays without the files.
        starts=str(options.get("starts") or ""),
        map_text=_text(options.get("map_text")),
        cards_text=_text(options.get("cards_text")),
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _adapter(options: Options, settings: Options, variant: Mapping[str, object]) -> Adapter:
    """The game on a sensing board; the board map's sites must all be on the profile."""
    from meridian_table.games.empire.adapter import EmpireAdapter

    game = cast("Game", _new_game(options, None))
    if variant:
        on_board = set(board.expected_sites(variant))
        missing = [site for site in [*game.board.quadrants, *game.board.bodies]
                   if site not in on_board]
        if missing:
            raise OptionError(
                f"--map {game.board.name}: the board profile has no site for "
                f"{', '.join(missing[:4])}{'...' if len(missing) > 4 else ''}; use a map with "
                "as many planet areas and moons as the profile's variant, or edit the "
                "profile's variant (hardware/README.md, 'Profiles')", "map")
    return EmpireAdapter(game, dict(options), sensing=str(settings.get("sensing") or "on"))


def _prepare(options: dict[str, OptionValue]) -> dict[str, OptionValue]:
    """The map and cards are read now (file, line, key and fix); a file is logged by its
    absolute path so a resumed game finds it from any folder."""
    map_ref = str(options.get("map") or "sample")
    cards_ref = str(options.get("cards") or "sample")
    try:
        load_pair(map_ref, cards_ref)
    except DataError as exc:
        raise OptionError(f"--map/--cards: {exc}", "map") from None
    out = dict(options)
    if map_ref not in SHIPPED_MAPS:
        out["map"] = str(Path(map_ref).absolute())
    if cards_ref not in SHIPPED_CARDS:
        out["cards"] = str(Path(cards_ref).absolute())
    mode = str(out.get("mode") or "standard")
    players = out.get("players")
    wanted = {"standard": (2, 3, 4), "two-player": (2,), "infection-solo": (1,),
              "infection-coop": (2, 3, 4)}[mode]
    if isinstance(players, int) and players not in wanted:
        raise OptionError(f"--mode {mode} is played by {' or '.join(map(str, wanted))} players, "
                          f"not {players}", "mode")
    return out


def _export(engine: Engine, headers: Mapping[str, str]) -> str:
    from meridian_table.games.empire import record

    return record.export(cast("Game", engine), headers)


def _parse(text: str) -> tuple[dict[str, str], Engine]:
    from meridian_table.games.empire import record

    return record.parse(text)


def _diagram(engine: Engine) -> str:
    from meridian_table.games.empire.render import text_diagram

    return text_diagram(cast("Game", engine))


def _bench(options: dict[str, Any]) -> dict[str, Any]:
    from meridian_table.games.empire import bench

    return bench.run(options)


def _table_step(engine: Engine, rng: random.Random) -> tuple[str, tuple[SiteChange, ...]]:
    """``bench empire-table``'s next action: mostly what the board senses (moves, settles,
    builds: the switch changes that make it), else an action given on the page."""
    from meridian_table.games.empire.drawing import SENSED_VERBS, occupancy

    game = cast("Game", engine)
    legal = game.legal()
    sensed = [a for a in legal if a.split()[0] in SENSED_VERBS]
    if sensed and rng.random() < 0.7:
        action = rng.choice(sensed)
    else:
        other = [a for a in legal if a.split()[0] in ("end", "charge", "discover", "colony")]
        action = rng.choice(other or list(legal))
    if action.split()[0] not in SENSED_VERBS:
        return action, ()
    before = occupancy(game)
    game.play(action)
    after = occupancy(game)
    return action, tuple([(s, False) for s in sorted(before - after)]
                         + [(s, True) for s in sorted(after - before)])


def _load_map(path: Path) -> object:
    from meridian_table.games.empire.files import load_map

    return load_map(str(path))


def _load_cards(path: Path) -> object:
    from meridian_table.games.empire.files import load_cards

    return load_cards(str(path))


_DATA = Path(__file__).parent / "data"
#: The files a user may hand Empire, for ``bench fuzz``.
FILE_READERS = (
    FileReader("empire-map", ".toml", _load_map, (DataError,),
               lambda: (_DATA / "sample-map.toml").read_bytes()),
    FileReader("empire-cards", ".toml", _load_cards, (DataError,),
               lambda: (_DATA / "sample-cards.toml").read_bytes()),
)

#: ``bench empire-table``: three players on the empire-in-space profile.
TABLE_DRIVER = TableDriver(
    profile="empire-in-space",
    players=("Ann", "Bob", "Cy"),
    options=lambda number: {"seed": number},
    step=_table_step,
)


class ScelrotiaPolicy:
    """The Scelrotia's seat: its turn is decided by the rules (``scelrotia.py``), so the
    policy only plays the one legal action, ``scelrotia``; the engine works out the
    turn deterministically and the table shows it to be carried out."""

    name = "scelrotia"

    def __init__(self, seed: int | None = None, argument: str | None = None) -> None:
        del seed
        if argument:
            raise ValueError(f"the Scelrotia takes no setting, got {argument!r}")

    def choose(self, game: Engine, budget_s: float = 1.0,
               cancel: threading.Event | None = None) -> str:
        if cancel is not None and cancel.is_set():
            raise PolicyCancelled("the Scelrotia was cancelled")
        legal = game.legal()
        if legal != ("scelrotia",):
            raise ValueError("the Scelrotia plays only its own turn in the infection modes; "
                             "give this seat to a person or to 'random'")
        return "scelrotia"

    def __repr__(self) -> str:
        return "ScelrotiaPolicy()"


SPEC = GameSpec(
    id="empire",
    title="Meridian: Empire in Space",
    published="Meridian: Empire in Space",
    summary="Rowitt's game of energy, starships, planets and waypoints (1 to 4 players; "
            "the Scelrotia in the infection modes), with every player's energy ledger on "
            "the page",
    player_counts=(1, 2, 3, 4),
    options=OPTIONS,
    new_game=_new_game,
    adapter=_adapter,
    default_profile=lambda players, options: "empire-in-space",
    boards=Path(__file__).parent / "boards",
    board=BoardSpec(board.expected_sites, board.describe, board.BUTTONS),
    page=PageSpec(
        seats=(
            SeatLook("red", "Red", "#d02020", "R", "#ffffff"),
            SeatLook("blue", "Blue", "#2050d0", "B", "#ffffff"),
            SeatLook("green", "Green", "#20a040", "G", "#000000"),
            SeatLook("yellow", "Yellow", "#f0c020", "Y", "#000000"),
            SeatLook("scelrotia", "Scelrotia", "#7a2a8c", "S", "#ffffff"),
        ),
        drawing="grid",
        script="static/page.js",
        piece_word="piece",
        rules=("en", "fr"),  # static/rules.en.json and rules.fr.json
    ),
    records=RecordFormat(_export, _parse, ".empire"),
    policies={"random": RandomPolicy, "scelrotia": ScelrotiaPolicy},
    rules_seats=("scelrotia",),
    help_examples=(
        "play empire --players Ann,Bob,Cy",
        "play empire --mode infection-solo --players Ann   (the Scelrotia is seated for you)",
        "play empire --players Ann,Bob --sensing off   (the scoring assistant: the page only)",
        "meridian-table empire check --map my-board.toml --cards my-cards.toml",
    ),
    text_diagram=_diagram,
    benches=(BenchSpec("empire", "Empire in Space: legal-action latency, Scelrotia turns "
                                 "and random games per second.", _bench),
             ),
    bench=BenchSettings(table_driver=TABLE_DRIVER, file_readers=FILE_READERS, hand_corpus=True),
    prepare=_prepare,
)

__all__ = ["OPTIONS", "SPEC", "ScelrotiaPolicy"]
