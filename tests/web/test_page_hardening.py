"""The page in a real browser: a wrong serial port is diagnosed with advice, and replay
looks and acts like replay (issue 10, items 13 and 14). The table is real: its session
and core, the real link, the virtual board or the protocol-level fake Pico."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.tables import KATO_LINE, Live, live, on_fake_link

from meridian_table.web import WebServer, serve

pytestmark = pytest.mark.browser


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[Live]:
    with live(tmp_path) as table:
        yield table


@pytest.fixture
def server(fake: Live) -> Iterator[WebServer]:
    with serve(fake, port=0) as running:
        yield running


def test_a_port_that_is_not_the_board_is_named_on_the_page_with_advice(
    open_page: Callable[..., Any],
) -> None:
    # A port that sends nothing (the fake Pico stalled): the link gives up on it after
    # HELLO_TIMEOUT and says why, with the command that shows what it does send.
    with on_fake_link(plugged=False) as table, serve(table, port=0) as running:
        assert table.board is not None
        port = table.board.port
        table.board.stall(True)
        table.board.replug()
        page = open_page(running.url)
        page.wait_for_selector("#banner:not([hidden])[data-kind='searching'] code",
                               timeout=30000)
        text = page.inner_text("#banner")
        assert f"no HELLO from {port}" in text and "is this the Pico?" in text
        assert page.inner_text("#banner code >> nth=0") == f"meridian-table monitor {port}"
        # The header does not say a green "Live" while there is no board.
        assert page.get_attribute("#conn", "data-status") == "noboard"
        assert page.inner_text("#conn") == "Live — no board"
        table.board.stall(False)  # the board answers now: the link finds it
        page.wait_for_selector("#conn[data-status='live']", timeout=30000)
        assert page.inner_text("#conn") == "Live"


def test_replay_looks_and_acts_like_replay_with_a_way_back(
    server: WebServer, fake: Live, open_page: Callable[..., Any]
) -> None:
    fake.play(*KATO_LINE[:3])
    page = open_page(server.url)
    live_turn = page.inner_text("#turn-text")
    assert "to move" in live_turn
    page.click("#moves button[data-ply='1']")
    page.wait_for_function("window.meridian.replay && window.meridian.replay.ply === 1")
    # The header names the replay, not the live game's turn.
    assert page.inner_text("#turn-text").startswith("Replay of game #")
    assert page.inner_text("#turn-player") == "after move 1 of 3"
    assert "to move" not in page.inner_text("#turn-text")
    # Every game button waits, with the reason; pressing one says it and sends nothing.
    buttons = page.locator("#buttons button.control")
    assert buttons.count() >= 2
    for i in range(buttons.count()):
        assert buttons.nth(i).get_attribute("aria-disabled") == "true"
        assert "Back to live" in (buttons.nth(i).get_attribute("title") or "")
    before = len(fake.commands)
    page.locator("#buttons button.control[data-name='undo']").dispatch_event("click")
    page.wait_for_selector("#toast:not([hidden])")
    assert "Back to live" in page.inner_text("#toast")
    # A board click says why it does nothing.
    page.evaluate("document.getElementById('toast').hidden = true")
    page.locator("g.site[data-site='B2']").click()
    page.wait_for_selector("#toast:not([hidden])")
    assert "Replay" in page.inner_text("#toast")
    assert fake.commands[before:] == []
    # Back to live: the turn, the buttons and the board are the live game's again.
    page.click("#replay-exit")
    page.wait_for_selector("#replay-bar", state="hidden")
    assert page.inner_text("#turn-text") == live_turn
    assert page.locator("#buttons button.control[data-name='undo']").get_attribute(
        "aria-disabled") == "false"
