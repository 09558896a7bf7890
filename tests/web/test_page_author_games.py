"""The games an author writes from docs/ADDING_A_GAME.md, on the real page in Chromium:
the toy (no rules file) and examples/five_in_a_row (English rules only). The page asks
only for the rules files a game's spec lists, so neither game's page shows a failed
request in the console, in English or in French; a click plays a move and the hint
comes from the generic search bot."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.web.test_page_kato_game import Player

from meridian_table import i18n
from meridian_table.table.runner import RunningTable, TableSetup, open_table
from meridian_table.web import serve

pytestmark = pytest.mark.browser


@contextmanager
def _table(tmp_path: Path, game: str) -> Iterator[RunningTable]:
    setup = TableSetup(game=game, board="sim", players=("Ann", "Bob"),
                       profile="kato-80" if game == "five" else None,
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    with open_table(setup) as running:
        assert running.wait_ready(30), "the virtual board did not connect"
        yield running


@pytest.mark.parametrize("game, site, rules", [("toy", "e", False), ("five", "C3", True)])
@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_an_authors_game_on_the_page_asks_for_nothing_missing(
        tmp_path: Path, open_page: Callable[..., Any], game: str, site: str, rules: bool,
        locale: str) -> None:
    failed: list[str] = []
    errors: list[str] = []
    try:
        with _table(tmp_path, game) as table, serve(table.session, port=0) as server:
            page = open_page(server.url, locale=locale)
            page.on("response", lambda r: failed.append(f"{r.status} {r.url}")
                    if r.status >= 400 else None)
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.reload()
            page.wait_for_function("window.meridian && window.meridian.renders > 0 "
                                   "&& window.meridian.connected")
            player = Player(page)
            player.place(site, 1)
            player.press("hint")
            player.wait("s.message.startsWith('Hint: ') || s.message.startsWith('Indice')",
                        timeout=60000)
            button = page.locator("#rules-open")
            if rules:
                page.wait_for_selector("#rules-open:not([hidden])")
                button.click()
                assert "Blue and Amber put one stone" in page.inner_text("#rules-dialog")
            else:
                assert button.count() == 0 or button.is_hidden()
    finally:
        i18n.set_language("en")  # the language is the process's: leave it as found
    assert failed == [], failed
    assert errors == [], errors
