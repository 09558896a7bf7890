"""The page in a real browser against the FakeSession: layout, phone, controls, replay.

These check what a player sees: stones where the state says, halos with the LED
effect, remove and put-back markers of different shapes, the controls answering, the
"board disconnected" banner, replay stepping and the reconnecting status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from meridian_table.web import WebServer, serve
from meridian_table.web.fake import FakeSession

pytestmark = pytest.mark.browser


@pytest.fixture
def fake() -> FakeSession:
    return FakeSession()


@pytest.fixture
def server(fake: FakeSession) -> Iterator[WebServer]:
    with serve(fake, port=0) as running:
        yield running


def site(page: Any, name: str) -> Any:
    return page.locator(f"g.site[data-site='{name}']")


def wait_state(page: Any, condition: str) -> None:
    """Wait until the page's latest state satisfies a JS expression over ``s``."""
    page.wait_for_function(f"(() => {{ const s = window.meridian.state; return {condition}; }})()")


def visible(page: Any, selector: str) -> bool:
    """True when the element is rendered (SVG parts are hidden with display: none)."""
    return bool(
        page.eval_on_selector(selector, "el => getComputedStyle(el).display !== 'none'")
    )


def test_desktop_board_turn_and_controls(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    page = open_page(server.url)
    assert page.locator("g.site").count() == 80
    assert page.inner_text("#turn-text") == "Light to move"
    assert page.inner_text("#turn-player") == "Ann"
    controls = page.eval_on_selector_all("#buttons .control", "els => els.map(e => e.dataset.name)")
    assert controls == fake.state()["controls"]
    # Legal points carry the dim mover-colour halo, drawn solid.
    halo = "g.site[data-site='A1'] .halo"
    assert page.get_attribute(halo, "class") == "halo lit fx-S"

    site(page, "C3").click()
    wait_state(page, "s.moves.length === 1")
    assert site(page, "C3").get_attribute("data-piece") == "L"
    assert "is-last" in (site(page, "C3").get_attribute("class") or "")
    assert page.inner_text("#turn-text") == "Dark to move"
    # The stone just placed flashes; a flash is a CSS animation named like the effect.
    flash = "g.site[data-site='C3'] .halo"
    assert page.get_attribute(flash, "class") == "halo lit fx-X"
    assert page.eval_on_selector(flash, "el => getComputedStyle(el).animationName") == "flash"
    assert page.inner_text("#moves").split() == ["1.C3"]
    score = page.locator(".score[data-colour='light'] .score-total")
    assert score.inner_text() == "1"
    assert "frames in" in page.inner_text("#link")
    shoot(page, "desktop")


def test_illegal_stone_and_lifted_stone_show_different_markers(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    fake.place("C3")
    page = open_page(server.url)
    # D3 is next to the last stone: illegal in the fake's rules.
    site(page, "D3").click()
    wait_state(page, "s.phase === 'resync'")
    assert site(page, "D3").get_attribute("data-diff") == "remove"
    assert visible(page, "g.site[data-site='D3'] .mark-remove")
    assert not visible(page, "g.site[data-site='D3'] .mark-putback")
    assert page.inner_text("#turn-text") == "Fix the board"
    assert "Remove the stone from D3" in page.inner_text("#message")
    halo = "g.site[data-site='D3'] .halo"
    assert page.eval_on_selector(halo, "el => getComputedStyle(el).animationName") == "blink"
    shoot(page, "remove")

    site(page, "D3").click()  # correct it
    wait_state(page, "s.phase === 'play'")
    site(page, "C3").click()  # lift a stone that belongs there
    wait_state(page, "s.phase === 'resync'")
    assert site(page, "C3").get_attribute("data-diff") == "put_back"
    assert visible(page, "g.site[data-site='C3'] .mark-putback.ring")
    assert not visible(page, "g.site[data-site='C3'] .mark-remove")
    assert "unsensed" in (site(page, "C3").get_attribute("class") or "")
    shoot(page, "put-back")
    site(page, "C3").click()
    wait_state(page, "s.phase === 'play'")
    assert site(page, "C3").get_attribute("data-diff") == ""


def test_buttons_press_at_once_and_reach_the_session(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any]
) -> None:
    fake.place("C3")
    fake.place("F6")
    page = open_page(server.url)
    wait_state(page, "s.moves.length === 2")
    page.click("#buttons .control[data-name='undo']")
    wait_state(page, "s.moves.length === 1")
    assert {"cmd": "button", "name": "undo"} in fake.commands
    # The undone stone still stands: the page guides it off the board.
    wait_state(page, "s.phase === 'resync' && s.diff.remove[0] === 'F6'")
    site(page, "F6").click()
    wait_state(page, "s.phase === 'play'")
    fake.place("A1")
    page.click("#buttons .control[data-name='pass']")
    wait_state(page, "s.moves.length === 3")
    # A refused command is shown, and the button is released.
    fake.set_link_state("closed")
    page.click("#buttons .control[data-name='pass']")
    page.wait_for_selector("#toast:not([hidden])")
    assert "pass" in page.inner_text("#toast")
    page.wait_for_function("window.meridian.pending === 0")
    assert page.locator(".control.pending").count() == 0


def test_disconnected_board_shows_the_banner(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    page = open_page(server.url)
    assert page.is_hidden("#banner")
    fake.set_link_state("closed")
    page.wait_for_selector("#banner:not([hidden])")
    assert "Board disconnected" in page.inner_text("#banner")
    assert page.inner_text("#turn-text") == "Paused"
    shoot(page, "paused")
    fake.set_link_state("connected")
    page.wait_for_selector("#banner", state="hidden")


def test_pie_question_and_count_agreement(open_page: Callable[..., Any]) -> None:
    fake = FakeSession(pie=True)
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        site(page, "B2").click()
        wait_state(page, "s.moves.length === 1")
        site(page, "F6").click()
        wait_state(page, "s.phase === 'pie-choice'")
        assert "swap" in page.inner_text("#inputs").lower()
        page.click("#inputs .choice[data-value='swap']")
        wait_state(page, "s.phase === 'play'")
        assert page.inner_text(".score[data-colour='light'] .score-name") == "Bob"
        page.click("#buttons .control[data-name='menu']")
        wait_state(page, "s.phase === 'adjudicate'")
        page.click("#inputs .choice[data-agree='light']")
        page.wait_for_selector("#inputs .choice[data-agree='light'][aria-pressed='true']")
        page.click("#inputs .choice[data-agree='dark']")
        wait_state(page, "s.phase === 'ended'")
        assert page.inner_text("#turn-text").endswith("wins")
        assert page.is_visible("#result")


def test_replay_steps_through_this_game_and_a_logged_one(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    for name in ("A1", "C3", "E5"):
        fake.place(name)
    page = open_page(server.url)
    page.click("#moves button[data-ply='1']")
    page.wait_for_function("window.meridian.replay && window.meridian.replay.ply === 1")
    assert page.is_visible("#replay-bar")
    assert page.locator("g.site.has-piece").count() == 1
    assert site(page, "A1").get_attribute("data-piece") == "L"
    assert "is-last" in (site(page, "A1").get_attribute("class") or "")
    page.click("[data-step='next']")
    page.wait_for_function("window.meridian.replay.ply === 2")
    assert page.locator("g.site.has-piece").count() == 2
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("window.meridian.replay.ply === 1")
    page.click("[data-step='last']")
    page.wait_for_function("window.meridian.replay.ply === 3")
    assert page.inner_text("#replay-pos") == "move 3 of 3"
    # A move played during replay extends it without leaving it.
    fake.place("G7")
    page.wait_for_function("window.meridian.replay.moves === 4")
    shoot(page, "replay")
    page.click("#replay-exit")
    page.wait_for_selector("#replay-bar", state="hidden")
    assert page.locator("g.site.has-piece").count() == 4
    # A finished game from the log, picked in the selector.
    page.wait_for_selector("#games-label:not([hidden])")
    page.select_option("#games", "1")
    page.wait_for_function("window.meridian.replay && window.meridian.replay.gameId === 1")
    assert page.locator("g.site.has-piece").count() == 5
    page.click("[data-step='first']")
    page.wait_for_function("window.meridian.replay.ply === 0")
    assert page.locator("g.site.has-piece").count() == 0
    # While replaying, clicking the board does not toggle anything.
    before = len(fake.commands)
    site(page, "B2").click()
    page.click("[data-step='next']")
    page.wait_for_function("window.meridian.replay.ply === 1")
    assert fake.commands[before:] == []


def test_phone_viewport(open_page: Callable[..., Any], shoot: Any) -> None:
    # Long names must wrap, not push the page sideways.
    fake = FakeSession(players=("Annabel Longname-Fitzgerald", "Bartholomew Verylongname"))
    fake.place("C3")
    with serve(fake, port=0) as server:
        page = open_page(server.url, width=390, height=844, is_mobile=True, has_touch=True)
        page.wait_for_selector("#games-label:not([hidden])")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone ({width}px wide)"
        board = page.locator("#board").bounding_box()
        assert board is not None and board["width"] >= 360 and board["x"] >= 0
        # The controls stay within reach on a phone: inside the first screen.
        confirm = page.locator("#buttons .control[data-name='confirm']").bounding_box()
        assert confirm is not None and confirm["y"] + confirm["height"] <= 844
        assert confirm["height"] >= 44  # a finger-sized target
        assert page.inner_text("#turn-text") == "Dark to move"
        site(page, "G7").tap()
        wait_state(page, "s.moves.length === 2")
        shoot(page, "phone")
        shoot(page, "phone-full", full_page=True)


def test_reconnects_with_backoff_after_the_server_goes(fake: FakeSession, open_page: Callable[..., Any]) -> None:
    server = serve(fake, port=0)
    port = server.port
    page = open_page(server.url)
    assert page.get_attribute("#conn", "data-status") == "live"
    server.close()
    page.wait_for_selector("#conn[data-status='reconnecting']")
    assert "Reconnecting" in page.inner_text("#conn")
    fake.place("C3")  # the table goes on while the page is away
    with serve(fake, port=port):
        page.wait_for_selector("#conn[data-status='live']", timeout=15000)
        wait_state(page, "s.moves.length === 1")
        assert site(page, "C3").get_attribute("data-piece") == "L"


class TowerSession(FakeSession):
    """The fake table with Colovini-like seats and tower labels instead of stones."""

    def _state(self) -> dict[str, Any]:
        state = super()._state()
        state["seats"] = {"orange": "Ann", "black": "Bob"}
        state["scores"] = {seat: {"total": 0, "breakdown": []} for seat in state["seats"]}
        state["to_move"] = "orange"
        towers = {"A1": "O3", "A2": "O1", "C3": "B2"}
        for entry in state["board"]["sites"]:
            entry["piece"] = towers.get(entry["id"])
            entry["sensed"] = entry["id"] in towers
        return state


def test_other_games_pieces_are_labelled_discs_in_their_seat_colour(
    open_page: Callable[..., Any], shoot: Any
) -> None:
    with serve(TowerSession(), port=0) as server:
        page = open_page(server.url)
        assert site(page, "A1").get_attribute("data-piece") == "O3"
        assert page.text_content("g.site[data-site='A1'] .label") == "O3"
        fill = "el => getComputedStyle(el.querySelector('.stone')).fill"
        orange = page.eval_on_selector("g.site[data-site='A1']", fill)
        assert orange == "rgb(255, 165, 0)"  # CSS "orange": the seat's colour
        assert page.eval_on_selector("g.site[data-site='A2']", fill) == orange
        assert page.eval_on_selector("g.site[data-site='C3']", fill) == "rgb(0, 0, 0)"
        assert page.inner_text("#turn-text") == "Orange to move"
        turn = page.eval_on_selector("#turn circle", "el => getComputedStyle(el).fill")
        assert turn == "rgb(255, 165, 0)"
        shoot(page, "towers")


def test_a_physical_board_is_not_toggled_from_the_page(open_page: Callable[..., Any]) -> None:
    fake = FakeSession(virtual=False)
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        assert page.get_attribute("#board", "class") == "board"
        assert "physical" in page.inner_text("#link")
        site(page, "C3").click()
        page.click("#buttons .control[data-name='menu']")  # a command that does reach it
        wait_state(page, "s.phase === 'adjudicate'")
        assert [c["cmd"] for c in fake.commands] == ["games", "button"]
