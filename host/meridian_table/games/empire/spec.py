"""Empire in Space as the platform sees it (the board; the rules engine is issue 16)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from meridian_table.games.contract import (
    BoardSpec,
    Engine,
    GameSpec,
    Options,
    PageSpec,
    RecordFormat,
    SeatLook,
)
from meridian_table.games.empire import board

if TYPE_CHECKING:
    from meridian_table.adapters.base import Adapter


class NotPlayableError(ValueError):
    """Empire in Space has a board profile but no rules engine in this version."""


def _unavailable(*args: object) -> Engine:
    del args
    raise NotPlayableError(
        "Empire in Space has its board profile here but no rules engine yet; play it by "
        "hand, and check a board with `meridian-table profile check empire-in-space`"
    )


def _no_adapter(options: Options, settings: Options, variant: Mapping[str, object]) -> Adapter:
    del options, settings, variant
    _unavailable()
    raise AssertionError("unreachable")


def _no_export(engine: Engine, headers: Mapping[str, str]) -> str:
    del engine, headers
    _unavailable()
    raise AssertionError("unreachable")


def _no_record(text: str) -> tuple[dict[str, str], Engine]:
    del text
    _unavailable()
    raise AssertionError("unreachable")


SPEC = GameSpec(
    id="empire",
    title="Meridian: Empire in Space",
    published="Meridian: Empire in Space",
    summary="Rowitt's game of energy, starships and planets (board profile only)",
    player_counts=(1, 2, 3, 4),
    options=(),
    new_game=_unavailable,
    adapter=_no_adapter,
    default_profile=lambda players, options: "empire-in-space",
    board=BoardSpec(board.expected_sites, board.describe, board.BUTTONS),
    page=PageSpec(seats=(SeatLook("red", "Red", "#d02020", "R", "#ffffff"),), drawing="grid"),
    records=RecordFormat(_no_export, _no_record),
    help_examples=("play empire --players Ann,Bob",),
)
