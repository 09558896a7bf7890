"""The page on the emulated Pico, once: a click on the page puts a stone on the
emulated board's switch, the table takes the move, and the stone's LED lights on
the WS2812 data pin (decoded by the harness)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.patience import patience
from tests.web.conftest import kept_pages, open_page, page_errors  # noqa: F401  (fixtures)

from meridian_table.table.runner import TableSetup, open_table
from meridian_table.web import serve

from .conftest import Pool

pytestmark = pytest.mark.browser


def test_a_move_clicked_on_the_page_lights_the_emulated_pin(
        pool: Pool, tmp_path: Path, open_page: Callable[..., Any]) -> None:  # noqa: F811
    pool.close()  # one emulator at a time
    setup = TableSetup(game="kato", board="emu", profile="kato-80", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.05)
    with open_table(setup) as table:
        assert table.wait_ready(), "the emulated Pico did not connect"
        led = table.profile.sites["E3"].led
        assert led is not None
        lit = threading.Event()
        table.virtual.on_frame(lambda frame: lit.set() if frame[led] != (0, 0, 0) else None)
        with serve(table.session, port=0) as server:
            page = open_page(server.url)
            page.locator("g.site[data-site='E3']").click()
            deadline = time.monotonic() + 60
            while [m["notation"] for m in table.session.state()["moves"]] != ["E3"]:
                assert time.monotonic() < deadline, table.session.state()["message"]
                time.sleep(0.02)
            assert lit.wait(patience(60)), "E3's LED never lit on the emulated data pin"
