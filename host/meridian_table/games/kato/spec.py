"""Kato's Meridians as the platform sees it: options, board, page, records, automata.

Registered under the ``meridian_table.games`` entry-point group as ``kato``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from meridian_table.games.contract import (
    BenchSettings,
    BenchSpec,
    BoardSpec,
    BotSpec,
    Engine,
    GameSpec,
    Options,
    OptionSpec,
    PageSpec,
    RandomPolicy,
    RecordFormat,
    SeatLook,
    VariantError,
)
from meridian_table.games.kato import geometry
from meridian_table.games.lazy import policy

# The engine, records and bots are imported when first used: the registry (and
# `meridian-table --help`) reads this spec without them.
if TYPE_CHECKING:
    from meridian_table.games.board import Adapter
    from meridian_table.games.kato.bot import KatoBot
    from meridian_table.games.kato.game import Game

ASSISTS = ("full", "captures", "tournament")

OPTIONS = (
    OptionSpec("size", int, 6, "Board size: 5 (80 points), 6 (114) or 7 (154); the board "
               "profile's size by default.", choices=("5", "6", "7")),
    OptionSpec("pie", bool, False, "Play with the pie rule: the second player may swap "
               "colours after the opener's two stones."),
    OptionSpec("assist", str, "full", "How much the LEDs help: full (legal points and dead "
               "groups), captures (dead groups only) or tournament (none; overlooked dead "
               "groups live on).", choices=ASSISTS, kind="setting"),
)


def _new_game(options: Options, seed: int | None) -> Engine:
    del seed  # Kato has no chance
    from meridian_table.games.kato.game import new_game

    size = options.get("size", 6)
    return new_game(
        int(size) if isinstance(size, int) else 6,
        bool(options.get("pie", False)),
        bool(options.get("tournament", False)),
    )


def _adapter(options: Options, settings: Options, variant: Mapping[str, object]) -> Adapter:
    from meridian_table.games.kato.adapter import KatoAdapter

    size = options.get("size", variant.get("size", 6))
    tournament = options.get("tournament")
    assist = settings.get("assist")
    return KatoAdapter(
        size=int(size) if isinstance(size, int) else 6,
        pie=bool(options.get("pie", False)),
        tournament=None if tournament is None else bool(tournament),
        assist=None if assist is None else str(assist),
    )


def _default_profile(players: int | None, options: Options) -> str:
    del players
    size = options.get("size", 6)
    return f"kato-{len(geometry.points(int(size) if isinstance(size, int) else 6))}"


def _expected_sites(variant: Mapping[str, object]) -> tuple[str, ...]:
    size = variant.get("size")
    if isinstance(size, bool) or not isinstance(size, int):
        raise VariantError("variant.size", f"must be a whole number, found {size!r}",
                           "see hardware/README.md, 'Profiles'")
    if size not in geometry.SIZES:
        raise VariantError("variant.size", f"{size} is not a Kato board size",
                           "use 5 (80 points), 6 (114) or 7 (154)")
    return geometry.points(size)


def _describe(variant: Mapping[str, object]) -> str:
    return f"the Kato board of size {variant.get('size')}"


def _export(engine: Engine, headers: Mapping[str, str]) -> str:
    from meridian_table.games.kato import record

    return record.export(cast("Game", engine), headers)


def _parse(text: str) -> tuple[dict[str, str], Engine]:
    from meridian_table.games.kato import record

    return record.parse(text)


def _diagram(engine: Engine) -> str:
    from meridian_table.games.diagrams import hex_diagram

    game = cast("Game", engine)
    return hex_diagram(game.points, game.position(), geometry.coordinates(game.size))


def _bot(level: int, seed: int | None, iterations: int | None) -> KatoBot:
    """The levelled bot; ``iterations`` fixes its search (docs/BOTS.md)."""
    from meridian_table.games.kato.bot import KatoBot

    return KatoBot(seed, str(level) if iterations is None else f"{level}:{iterations}")


def _bench(options: dict[str, Any]) -> dict[str, Any]:
    from meridian_table.games.kato import bench  # imported when run: it is large

    return bench.run(options)


SPEC = GameSpec(
    id="kato",
    title="Kato's Meridians",
    published="Meridians",
    summary="Kato's abstract game of lines of sight on a hexagonal board (2 players)",
    player_counts=(2,),
    options=OPTIONS,
    new_game=_new_game,
    adapter=_adapter,
    default_profile=_default_profile,
    boards=Path(__file__).parent / "boards",
    board=BoardSpec(_expected_sites, _describe),
    page=PageSpec(
        seats=(
            # The stones' colours on the page (their LEDs are amber and blue).
            SeatLook("light", "Light", "#f6efdf", "L", "#000000"),
            SeatLook("dark", "Dark", "#23252b", "D", "#ffffff"),
        ),
        drawing="hex",
        script="static/page.js",
        rules=("en", "fr"),
        piece_word="stone",
    ),
    records=RecordFormat(_export, _parse, ".kato"),
    # bot:1 ... bot:5 are the levels (docs/BOTS.md); greedy and uct are the bench's yardsticks.
    policies={"random": RandomPolicy,
              "greedy": policy("meridian_table.games.kato.bot", "GreedyPlayer"),
              "uct": policy("meridian_table.games.kato.bot", "UctPlayer")},
    bot=BotSpec(create=_bot),
    text_diagram=_diagram,
    bench=BenchSettings(bot_bench=True, table_bench=True, hand_corpus=True, commit_target_ms=120.0),
    help_examples=(
        "play kato --players Ann,Bob",
        "play kato --board /dev/ttyACM0 --assist tournament --pie",
        "play kato --seat 2=random",
        "play kato --seat 2=bot:4",
        "play kato --resume",
        "echo 'place G6' | meridian-table play kato --headless --board sim",
    ),
    benches=(BenchSpec("kato", "Kato's Meridians: random playouts (plies/s) and analysis "
                                "latency (us).", _bench),),
)
