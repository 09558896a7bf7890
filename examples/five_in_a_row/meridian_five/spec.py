"""Everything Meridian Table needs to know about the game: registered as ``five``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from meridian_five.board import SIZES, points
from meridian_five.engine import FiveInARow
from meridian_table.games.contract import (
    BoardSpec,
    Engine,
    GameSpec,
    Options,
    OptionSpec,
    PageSpec,
    SeatLook,
    VariantError,
)
from meridian_table.games.records import plain_records

if TYPE_CHECKING:  # the adapter (and the board half it needs) only when a game is played
    from meridian_table.games.board import Adapter

OPTIONS = (
    OptionSpec("size", int, None, "Board size: 5 (80 points), 6 (114) or 7 (154); the "
               "board profile's size by default.", choices=("5", "6", "7")),
)


def _size(options: Options, variant: Mapping[str, object] | None = None) -> int:
    size = options.get("size")
    if not isinstance(size, int):
        size = (variant or {}).get("size", 6)
    return size if isinstance(size, int) and size in SIZES else 6


def new_game(options: Options, seed: int | None) -> Engine:
    del seed  # no chance in this game
    return FiveInARow(_size(options))


def adapter(options: Options, settings: Options, variant: Mapping[str, object]) -> Adapter:
    del settings
    from meridian_five.adapter import FiveAdapter

    return FiveAdapter(_size(options, variant))


def expected_sites(variant: Mapping[str, object]) -> tuple[str, ...]:
    size = variant.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size not in SIZES:
        raise VariantError("variant.size", f"{size!r} is not a board size",
                           "use 5 (80 points), 6 (114) or 7 (154)")
    return points(size)


SPEC = GameSpec(
    id="five",
    title="Five in a Row",
    published="Five in a Row",
    summary="Five stones in a straight line win, on a Kato point board (2 players)",
    player_counts=(2,),
    options=OPTIONS,
    new_game=new_game,
    adapter=adapter,
    # Played on the Kato boards as they are: their profiles are found and accepted.
    default_profile=lambda players, options: f"kato-{len(points(_size(options)))}",
    plays_on=("kato",),
    board=BoardSpec(expected_sites, lambda variant: f"the Kato board of size {variant.get('size')}",
                    ("confirm", "undo", "menu")),
    page=PageSpec(
        seats=(SeatLook("blue", "Blue", "#2050d0", "B", "#ffffff"),
               SeatLook("amber", "Amber", "#f0a000", "A", "#000000")),
        drawing="hex",
        piece_word="stone",
        rules=("en",),
    ),
    # The plain record: options as headers, one move a line. Bots, hints and the review
    # come from the generic search bot (GameSpec.bot's default): nothing written here.
    records=plain_records(new_game, OPTIONS, ".five", "five in a row"),
    help_examples=("play five --players Ann,Bob", "play five --seat 2=bot:3",
                   "play five --profile kato-80"),
)
