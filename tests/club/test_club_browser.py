"""The club page in a real headless Chromium, on a phone-sized screen: the live tables,
a game spectated move by move while it is played, and the standings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from meridian_table.club.replicator import Replicator
from meridian_table.club.simtable import SimTable, two_player_game
from meridian_table.club.web import ClubServer

from .conftest import Club

pytestmark = pytest.mark.browser


def test_spectate_a_game_live_and_read_the_standings(
        club: Club, tmp_path: Path, browser: Any) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
    log = tmp_path / "games.sqlite3"
    errors: list[str] = []
    with SimTable(log, two_player_game(), ["Ann", "Bob"], seed=11) as table, \
            Replicator(log, url) as rep, ClubServer(club.page_url) as server:
        for _ in range(3):
            table.step()
        assert rep.wait_caught_up(20)
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url)
        card = page.get_by_role("region", name="table table7")
        assert "2 moves" in card.inner_text()
        page.wait_for_function("document.body.dataset.live == 'yes'")
        table.step()                                   # the tables page follows live
        page.wait_for_function(
            "document.querySelector('[aria-label=\"table table7\"]').innerText"
            ".includes('3 moves')", timeout=10_000)
        card.get_by_role("link", name="Watch this game").click()
        page.wait_for_function("document.body.dataset.live == 'yes'")
        assert page.locator("#moves li").count() == 3
        for expected in (4, 5, 6):                     # spectated move by move
            played = table.step()
            page.wait_for_function(f"document.querySelectorAll('#moves li').length == {expected}",
                                   timeout=10_000)
            assert played in page.locator("#moves li").last.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        while table.games_done == 0:                   # play the game out
            table.step()
        assert rep.wait_caught_up(20)
        page.get_by_role("link", name="Standings").click()
        standings = page.get_by_role("table", name=f"standings {table.game}")
        text = standings.inner_text()
        assert "Ann" in text and "Bob" in text
        page.get_by_role("link", name="Finished games").click()
        replay = page.get_by_role("link", name="replay")
        replay.first.wait_for(timeout=10_000)   # the click navigates: wait for the new page
        assert replay.count() == 1
        context.close()
    assert errors == []
