"""A clock game from the page, with everything real (virtual board, link, session, log):
the new-game form sets a Fischer clock, the clocks show large and count down, a move
switches them and adds the increment, the low-time cue shows, and a flag fall ends the
game. axe-core checks the clocks in both themes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.axe import blocking, require_axe

from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup, open_table
from meridian_table.web import WebServer, serve

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path: Path) -> Iterator[WebServer]:
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    table = open_table(setup)
    if not table.wait_ready():
        table.close()
        pytest.fail("the virtual board did not connect")
    with TableHost(table) as lobby, serve(lobby, port=0) as running:
        yield running


def wait(page: Any, condition: str, timeout: float = 15000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_fischer_game_from_the_form_ends_on_a_flag_fall(
    server: WebServer, open_page: Callable[..., Any], shoot: Any, theme: str
) -> None:
    require_axe()
    page = open_page(server.url, color_scheme=theme)
    assert page.is_hidden("#clocks")
    page.click("#new-game")
    page.wait_for_selector("#newgame-dialog[open]")
    assert page.is_hidden("#ng-clock-time")
    page.select_option("#ng-clock-kind", "fischer")
    page.fill("#ng-clock-time", "0.1")   # six seconds each
    page.fill("#ng-clock-extra", "2")
    page.select_option("#ng-clock-flag", "lose")
    page.click("#ng-start")
    # As on lichess, no clock runs before the first move (issue 26).
    wait(page, "s.clocks !== null && s.moves.length === 0 && s.clocks.running === null")
    page.wait_for_selector("#clocks:not([hidden]) .clock[data-seat='light'][data-running='false']")
    assert "Fischer" in page.inner_text("#clocks")
    legal = page.evaluate("window.meridian.state.legal[0]")
    page.locator(f"g.site[data-site='{legal}']").click()
    wait(page, "s.moves.length === 1 && s.clocks.running === 'dark'")
    state = page.evaluate("window.meridian.state")
    assert state["clocks"]["seats"]["light"]["remaining_s"] == 6.0  # the first move: free
    # Under ten seconds the clock is low and shows tenths.
    page.wait_for_selector(".clock[data-seat='dark'][data-low='true']")
    assert "." in page.inner_text(".clock[data-seat='dark'] .clock-time")
    legal = page.evaluate("window.meridian.state.legal[0]")
    page.locator(f"g.site[data-site='{legal}']").click()
    wait(page, "s.moves.length === 2 && s.clocks.running === 'light'")
    state = page.evaluate("window.meridian.state")
    dark = state["clocks"]["seats"]["dark"]["remaining_s"]
    assert 2.0 < dark <= 8.0  # six seconds, less the time used, plus two
    failures = [f"{v['id']} at {v['targets']}" for v in blocking(page)]
    shoot(page, f"{theme}-running")
    wait(page, "s.result !== null", timeout=20000)
    state = page.evaluate("window.meridian.state")
    assert state["result"]["winner"] == "dark"
    assert "time ran out" in state["result"]["reason"]
    page.wait_for_selector(".clock[data-seat='light'][data-up='true']")
    assert page.inner_text(".clock[data-seat='light'] .clock-time") == "Time up"
    assert page.evaluate("window.MeridianSound.log.some(e => e.event === 'low-time')")
    failures += [f"{v['id']} at {v['targets']}" for v in blocking(page)]
    shoot(page, f"{theme}-flag")
    assert failures == []
