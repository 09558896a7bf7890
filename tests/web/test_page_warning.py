"""Kato's dead-stone warning on the page, with everything real (virtual board, link,
session, Kato adapter, log): with full assist, a stone that lost its path is marked
while its owner can still save it, and the words say when it goes; the removal then
takes exactly it. axe-core checks the warning."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.axe import blocking, require_axe

from meridian_table.table.runner import TableSetup, open_table
from meridian_table.web import WebServer, serve

pytestmark = pytest.mark.browser

# Light D1, Dark I2, Light F1, Dark E1: E1 cuts D1 from F1, so neither has a path.
# Light then plays F10, which gives F1 one (along column F) but not D1: D1 goes at the
# start of Dark's turn, F1 stays.
LINE = ("D1", "I2", "F1", "E1")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[WebServer]:
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       settings={"assist": "full"}, db=str(tmp_path / "games.sqlite3"),
                       settle_s=0.03)
    table = open_table(setup)
    if not table.wait_ready():
        table.close()
        pytest.fail("the virtual board did not connect")
    with table, serve(table.session, port=0) as running:
        yield running


def wait(page: Any, condition: str, timeout: float = 15000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_stone_with_no_path_is_marked_before_it_is_removed(
    server: WebServer, open_page: Callable[..., Any], shoot: Any, theme: str
) -> None:
    require_axe()
    page = open_page(server.url, color_scheme=theme)
    for n, site in enumerate(LINE, start=1):
        assert page.is_hidden("#warnings")
        page.locator(f"g.site[data-site='{site}']").click()
        wait(page, f"s.moves.length === {n} && s.phase === 'play'")
    page.wait_for_selector("#warnings:not([hidden])")
    text = page.inner_text("#warnings")
    assert "D1 has no path" in text and "start of Dark's turn unless you give it one" in text
    assert "F1 has no path" in text
    assert page.get_attribute("g.site[data-site='D1']", "data-warn") == "no-path"
    warned = page.eval_on_selector_all("g.site[data-warn]", "els => els.map(e => e.dataset.site)")
    assert warned == ["D1", "F1"], warned
    assert page.locator("g.site[data-site='D1'] .warn-mark").count() == 1
    failures = [f"{v['id']} at {v['targets']}" for v in blocking(page)]
    # A long press (a right click here) on a stone explains it; a click would move it.
    page.locator("g.site[data-site='D1']").click(button="right")
    page.wait_for_selector("#about-site:not([hidden])")
    assert page.inner_text("#about-site") == (
        "D1: a lone Light stone; the group has no path: it is a dead group")
    assert "no path" in (page.get_attribute("g.site[data-site='D1']", "aria-description") or "")
    assert page.evaluate("window.meridian.state.moves.length") == 4  # nothing moved
    shoot(page, f"{theme}-warned")
    page.locator("g.site[data-site='F10']").click()
    wait(page, "s.moves.length === 5 && s.diff.remove.includes('D1')")
    page.wait_for_selector("#warnings[hidden]", state="attached")
    assert page.locator("g.site[data-warn]").count() == 0
    assert page.evaluate("window.meridian.state.moves[4].removed") == ["D1"]
    shoot(page, f"{theme}-removed")
    # The rules in short and the glossary, one tap away; the big number explained.
    assert "safe points" in page.inner_text("#score-note")
    page.click("#rules-open")
    page.wait_for_selector("#rules-dialog[open]")
    rules = page.inner_text("#rules-dialog")
    assert "Dead group" in rules and "Path" in rules and "Pie rule" in rules
    failures += [f"rules: {v['id']} at {v['targets']}" for v in blocking(page)]
    shoot(page, f"{theme}-rules")
    page.click("#rules-close")
    assert failures == []
