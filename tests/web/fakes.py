"""FakeSessions for the installed games and for a test game: the fake itself knows none.

Each takes its seats, pieces and drawing from the game's spec (``GameSpec.to_json()``,
the same data ``TableSession.state()["spec"]`` carries), its board from the game's own
geometry, and its LED colours from the game's adapter.
"""

from __future__ import annotations

from typing import Any

from meridian_table.games import registry
from meridian_table.games.colovini.adapter import LED_COLOURS as COLOVINI_LEDS
from meridian_table.games.contract import PageSpec, SeatLook
from meridian_table.games.kato.adapter import COLOURS as KATO_LEDS
from meridian_table.games.kato.geometry import cells, layout_xy
from meridian_table.web.fake import FakeSession


def hex_colour(value: int) -> str:
    return f"#{value:06x}"


def kato_sites(size: int) -> list[tuple[str, float, float]]:
    return [(c.name, *layout_xy(c.q, c.r)) for c in cells(size)]


def kato_options(size: int = 5) -> dict[str, Any]:
    """FakeSession's arguments for Kato: its spec, board of ``size`` and LED colours."""
    leds = {seat: hex_colour(value) for seat, value in KATO_LEDS.items()}
    return {"spec": registry.spec("kato").to_json(), "sites": kato_sites(size), "size": size,
            "led_colours": leds}


def kato_fake(size: int = 5, **options: Any) -> FakeSession:
    """The fake table with Kato's spec, board of ``size`` and LED colours."""
    return FakeSession(**kato_options(size), **options)


def colovini_fake(**options: Any) -> FakeSession:
    """The fake table with Colovini's spec (its page script, seats and LED colours) on
    Kato's size-5 layout: the page's drawing of groups does not depend on the layout."""
    leds = {seat: hex_colour(value) for seat, value in COLOVINI_LEDS.items()}
    return FakeSession(registry.spec("colovini").to_json(), sites=kato_sites(5),
                       led_colours=leds, **options)


#: A game the page has never heard of: three seats in other colours, square cities.
TEST_SPEC: dict[str, Any] = {
    "id": "testgame",
    "title": "The test game",
    "summary": "",
    "player_counts": [2, 3],
    "options": [],
    "automata": ["random"],
    "page": PageSpec(
        seats=(
            SeatLook("red", "Crimson", "#c01030", "R", "#ffffff"),
            SeatLook("green", "Jade", "#10a060", "J", "#000000"),
            SeatLook("violet", "Violet", "#7040c0", "V", "#ffffff"),
        ),
        drawing="grid",
        piece_word="marker",
    ).to_json(),
}
