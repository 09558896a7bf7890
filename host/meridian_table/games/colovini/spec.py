"""Colovini's Meridian as the platform sees it: options, board, page, records, automata.

Registered under the ``meridian_table.games`` entry-point group as ``colovini``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from meridian_table.games.colovini.maps import (
    MERIDIANS,
    MapError,
    load_map,
    parse_map,
    resolve_map,
    shipped_maps,
)
from meridian_table.games.contract import (
    BenchSettings,
    BenchSpec,
    BoardSpec,
    BotSpec,
    Engine,
    FileReader,
    GameSpec,
    OptionError,
    Options,
    OptionSpec,
    OptionValue,
    PageSpec,
    RandomPolicy,
    RecordFormat,
    SeatLook,
    VariantError,
)
from meridian_table.games.lazy import policy

# The engine, records and bots are imported when first used: the registry (and
# `meridian-table --help`) reads this spec without them.
if TYPE_CHECKING:
    from meridian_table.games.board import Adapter
    from meridian_table.games.colovini.bot import ColoviniBot
    from meridian_table.games.colovini.engine import Game

#: Side -> cities per meridian: the 50-city side (2 or 4 players), the 40-city side (3).
SIDES: dict[int, int] = {50: 5, 40: 4}
MERIDIAN_BUTTONS = tuple(f"meridian{m}" for m in range(1, MERIDIANS + 1))
CONTROL_BUTTONS = ("confirm", "undo", "pass", "swap", "menu", "plus", "minus")

OPTIONS = (
    OptionSpec("players", int, None, "How many play: 2, 3 or 4 (the number of players "
               "named; without names, 3 on the 40-city side, else 4).", choices=("2", "3", "4"),
               from_table=True),
    OptionSpec("deck", str, "digital", "digital (the table shuffles and deals) or physical "
               "(your own cards: say which card each turn).", choices=("digital", "physical")),
    OptionSpec("seed", int, None, "Shuffle the digital deck with this seed, to deal the same "
               "game again (default: a random seed; either way it is logged).", minimum=0,
               maximum=2**31 - 1),
    OptionSpec("map", str, None, "The island map: a .toml file or a shipped map (sample-50, "
               "sample-40; default: the sample map of the board's side).", metavar="FILE",
               shipped=shipped_maps),
)


def _new_game(options: Options, seed: int | None) -> Engine:
    given: dict[str, Any] = dict(options)
    if seed is not None and given.get("seed") is None and given.get("deck") != "physical":
        given["seed"] = seed
    from meridian_table.games.colovini.engine import new_game

    return new_game(**given)


def _adapter(options: Options, settings: Options, variant: Mapping[str, object]) -> Adapter:
    from meridian_table.games.colovini.adapter import ColoviniAdapter

    del settings
    side = variant.get("side")
    players = options.get("players")
    seed = options.get("seed")
    names = options.get("names")
    map_text = options.get("map_text")
    return ColoviniAdapter(
        players=int(players) if isinstance(players, int) else None,
        map=None if options.get("map") is None else str(options["map"]),
        map_text=map_text if isinstance(map_text, str) else None,
        deck=str(options.get("deck") or "digital"),
        seed=int(seed) if isinstance(seed, int) else None,
        names=cast(list[str], names) if isinstance(names, list) else None,
        side=int(side) if isinstance(side, int) else None,
    )


def _default_profile(players: int | None, options: Options) -> str:
    """The board side that fits: the map's city count when a map is asked for, else the
    player count's side (3 players: ``colovini-40``; 2 or 4: ``colovini-50``)."""
    if options.get("map_text"):
        return f"colovini-{len(parse_map(str(options['map_text'])).cities)}"
    if options.get("map"):
        cities = len(load_map(str(options["map"])).cities)
        return f"colovini-{cities}"
    count = options.get("players", players)
    return "colovini-40" if count == 3 else "colovini-50"


def _prepare(options: dict[str, OptionValue]) -> dict[str, OptionValue]:
    """A seed only shuffles a digital deck; a map is read now (file, line and fix).

    The map's text is logged by the game itself (``Game.options["map_text"]``), whichever
    way the map was named, so the game replays, resumes and exports without the file;
    ``map`` stays, to name it for people."""
    if options.get("seed") is not None and options.get("deck") == "physical":
        raise OptionError(
            f"--seed {options['seed']} shuffles the digital deck, but --deck physical uses "
            "your own cards: leave --seed out, or use --deck digital", "seed"
        )
    map_ref = options.get("map")
    if map_ref is not None:
        try:
            path = resolve_map(str(map_ref))
            load_map(path)
        except MapError as exc:
            raise OptionError(str(exc), "map") from None
        # A shipped map is named by its name; a file by its absolute path, for people
        # reading the log (the game itself replays from the logged map_text).
        shipped = path.stem == map_ref and not Path(str(map_ref)).exists()
        options = {**options, "map": str(map_ref) if shipped else str(path.absolute())}
    return options


def cities(side: int) -> tuple[str, ...]:
    """City ids ``"<meridian>.<index>"`` for a board side (50 or 40), index 1 at the north."""
    per = SIDES[side]
    return tuple(f"{m}.{i}" for m in range(1, MERIDIANS + 1) for i in range(1, per + 1))


def _expected_sites(variant: Mapping[str, object]) -> tuple[str, ...]:
    side = variant.get("side")
    if isinstance(side, bool) or not isinstance(side, int):
        raise VariantError("variant.side", f"must be a whole number, found {side!r}",
                           "see hardware/README.md, 'Profiles'")
    if side not in SIDES:
        raise VariantError(
            "variant.side", f"{side} is not a Colovini board side",
            "use 50 (5 cities per meridian, 2 or 4 players) or 40 (4 per meridian, 3 players)",
        )
    return cities(side)


def _describe(variant: Mapping[str, object]) -> str:
    return f"the {variant.get('side')}-city Colovini side"


def _export(engine: Engine, headers: Mapping[str, str]) -> str:
    from meridian_table.games.colovini import record

    return record.export(cast("Game", engine), headers)


def _parse(text: str) -> tuple[dict[str, str], Engine]:
    from meridian_table.games.colovini import record

    return record.parse(text)


def _bench(options: dict[str, Any]) -> dict[str, Any]:
    from meridian_table.games.colovini import bench

    return bench.run(options)


def _bot(level: int, seed: int | None, iterations: int | None) -> ColoviniBot:
    """The levelled bot; ``iterations`` is its number of re-deals (docs/BOTS.md)."""
    from meridian_table.games.colovini.bot import ColoviniBot

    return ColoviniBot(seed, str(level) if iterations is None else f"{level}:{iterations}")


def _read_map(path: Path) -> object:
    from meridian_table.games.colovini.maps import load_map

    return load_map(path)


def _sample_map() -> bytes:
    from meridian_table.games.colovini.maps import maps_dir

    return (maps_dir() / "sample-50.toml").read_bytes()


SPEC = GameSpec(
    id="colovini",
    title="Colovini's Meridian",
    published="Meridian",
    summary="Colovini's game of towers and islands, played with cards (2 to 4 players)",
    player_counts=(2, 3, 4),
    options=OPTIONS,
    new_game=_new_game,
    adapter=_adapter,
    default_profile=_default_profile,
    boards=Path(__file__).parent / "boards",
    board=BoardSpec(_expected_sites, _describe, CONTROL_BUTTONS + MERIDIAN_BUTTONS),
    page=PageSpec(
        seats=(
            SeatLook("orange", "Orange", "#f07800", "O", "#000000"),
            SeatLook("black", "Black", "#202020", "B", "#ffffff"),
            SeatLook("brown", "Brown", "#7a4a1e", "R", "#ffffff"),
            SeatLook("grey", "Grey", "#8c8c8c", "G", "#000000"),
        ),
        drawing="grid",
        piece_word="tower",
        script="static/page.js",
        rules=("en", "fr"),
    ),
    records=RecordFormat(_export, _parse, ".colovini"),
    # bot:1 ... bot:5 are the levels (docs/BOTS.md); greedy is the bench's yardstick.
    policies={"random": RandomPolicy,
              "greedy": policy("meridian_table.games.colovini.bot", "GreedyPlayer")},
    bot=BotSpec(create=_bot),
    # bench bots: the top level need win 90 % against random; greedy is no target here.
    bench=BenchSettings(bot_bench=True, hand_corpus=True, top_vs_random=0.90, untargeted=("top_vs_greedy",),
                        file_readers=(FileReader("colovini-map", ".toml", _read_map,
                                                 (MapError,), _sample_map),)),
    help_examples=(
        "play colovini --profile colovini-40 --players Ann,Bob,Cid",
        "play colovini --players Ann,Bob --deck digital --seed 42",
        "play colovini --deck physical --map my-board.toml",
        "play colovini --players Ann,Bob,Cid --seat 2=random --seat 3=random",
        "play colovini --players Ann,Bob --seat 2=bot:5",
    ),
    benches=(BenchSpec("colovini", "Colovini's Meridian: legal_actions() latency over "
                       "positions from random games.", _bench),),
    prepare=_prepare,
)
