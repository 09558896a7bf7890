"""The toy's spec: everything the platform needs, registered as the entry point ``toy``."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, cast

from meridian_table.games.contract import (
    BoardSpec,
    Engine,
    GameSpec,
    Options,
    OptionSpec,
    PageSpec,
    SeatLook,
)
from meridian_table.games.records import plain_records
from meridian_toygame.engine import CELLS, ToyGame

if TYPE_CHECKING:  # the adapter (and the table it needs) only when a game is played
    from meridian_table.games.board import Adapter

#: The board profiles this package ships (found by name: ``play toy --profile toy-9``).
BOARDS = Path(str(files("meridian_toygame") / "boards"))
PROFILE = "toy-9"


def _new_game(options: Options, seed: int | None) -> Engine:
    del seed
    return ToyGame(**cast(dict[str, str], dict(options)))


def _adapter(options: Options, settings: Options, variant: Mapping[str, object]) -> Adapter:
    del settings, variant
    from meridian_toygame.adapter import ToyAdapter

    return ToyAdapter(str(options.get("marks") or "XO"))


def _diagram(engine: Engine) -> str:
    position = cast(ToyGame, engine).position()
    return "\n".join(position[i:i + 3] for i in range(0, 9, 3))


OPTIONS = (OptionSpec("marks", str, "XO", "The two players' marks."),)

SPEC = GameSpec(
    id="toy",
    title="Toy",
    published="Toy",
    summary="A test game: claim cells of a 3x3 grid (2 players)",
    player_counts=(2,),
    options=OPTIONS,
    new_game=_new_game,
    adapter=_adapter,
    default_profile=lambda players, options: PROFILE,
    boards=BOARDS,
    board=BoardSpec(lambda variant: tuple(CELLS), lambda variant: "the toy's 3x3 grid",
                    ("confirm", "undo")),
    page=PageSpec(
        seats=(SeatLook("cross", "Cross", "#c02020", "X", "#ffffff"),
               SeatLook("nought", "Nought", "#20a020", "O", "#000000")),
        drawing="grid",
        script="static/page.js",
        piece_word="mark",
    ),
    # The plain record format (options as headers, one action a line) and, by default,
    # the generic search bot (levels, hints and review): nothing written for either.
    records=plain_records(_new_game, OPTIONS, ".toy", "the toy game"),
    text_diagram=_diagram,
    help_examples=("play toy --seat 2=random",),
)
