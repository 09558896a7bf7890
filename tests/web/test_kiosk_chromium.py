"""The table page in the kiosk's own browser (/usr/bin/chromium, what `meridian-table
kiosk` starts beside the table), not the headless shell the other browser tests use:
the board drawn, a move clicked, the move logged and listed, the stone drawn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.conftest import READY, computed
from tests.web.tables import live
from tests.web.test_page_kato_game import Player

from meridian_table.web import serve

pytestmark = pytest.mark.browser


@pytest.fixture
def kiosk_page(kiosk_browser: Any, tmp_path: Path) -> Iterator[Any]:
    errors: list[str] = []
    with live(tmp_path) as table, serve(table, port=0) as server:
        context = kiosk_browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            page = context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(server.url)
            page.wait_for_function(READY)
            yield page
        finally:
            context.close()
    assert errors == [], errors


def test_the_kiosk_chromium_draws_the_board_and_plays_a_clicked_move(kiosk_page: Any) -> None:
    version = kiosk_page.context.browser.version
    assert version, "no Chromium version"
    player = Player(kiosk_page)
    assert kiosk_page.locator("g.site").count() == 80  # kato-80: every site drawn
    assert kiosk_page.inner_text("#turn-text") == "Light to move"
    assert computed(kiosk_page, "#board", "display") != "none"
    player.place("E3", 1)
    assert kiosk_page.inner_text("#turn-text") == "Dark to move"
    assert set(player.pieces()) == {"E3"}
    shown = kiosk_page.eval_on_selector_all("#moves .mv-text", "els => els.map(e => e.textContent)")
    assert any("E3" in text for text in shown), shown
