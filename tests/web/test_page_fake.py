"""The page in a real browser against the FakeSession: layout, phone, controls, replay.

These check what a player sees: stones where the state says, halos with the LED
effect, remove and put-back markers of different shapes, the controls answering, the
"board disconnected" banner, replay stepping and the reconnecting status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.web.fakes import TEST_SPEC, colovini_fake, kato_fake, kato_sites

from meridian_table.games import registry
from meridian_table.web import WebServer, serve
from meridian_table.web.fake import FakeSession

pytestmark = pytest.mark.browser


@pytest.fixture
def fake() -> FakeSession:
    return kato_fake()


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
    assert controls == ["confirm", "undo", "pass", "swap", "menu"]  # not the unused plus/minus
    # Legal points are a small dot in the mover's hue (the dim hint LED's), not a halo:
    # at the start every point is legal and the board must still look calm.
    assert page.locator("g.site.is-legal").count() == 80
    assert page.locator("g.site .halo.lit").count() == 0
    assert visible(page, "g.site[data-site='A1'] .legal")
    dot = page.eval_on_selector("g.site[data-site='A1'] .legal", "el => getComputedStyle(el).fill")
    assert dot in ("rgb(255, 175, 0)", "rgb(255, 176, 0)")  # Light's LED hue (#ffb000)
    assert float(page.get_attribute("g.site[data-site='A1'] .legal", "r") or 1) <= 0.1

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
    # The flash on the stone just placed is a real effect: the only full halo.
    assert page.locator("g.site .halo.lit").count() == 1
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
    animation = "el => getComputedStyle(el).animationName"
    assert page.eval_on_selector("g.site[data-site='D3'] .mark-remove", animation) == "blink-mark"
    assert page.get_attribute("g.site[data-site='D3']", "aria-label") == (
        "D3, empty, remove this piece now"
    )
    shoot(page, "remove")

    site(page, "D3").click()  # correct it
    wait_state(page, "s.phase === 'play'")
    site(page, "C3").click()  # lift a stone that belongs there
    wait_state(page, "s.phase === 'resync'")
    assert site(page, "C3").get_attribute("data-diff") == "put_back"
    assert visible(page, "g.site[data-site='C3'] .mark-putback.ring")
    assert not visible(page, "g.site[data-site='C3'] .mark-remove")
    # Put back turns and breathes (remove blinks), and its halo is dashed, not solid.
    ring = page.eval_on_selector("g.site[data-site='C3'] .mark-putback.ring", animation)
    assert ring.split(", ") == ["spin", "pulse"]
    dashes = "el => getComputedStyle(el).strokeDasharray"
    assert page.eval_on_selector("g.site[data-site='C3'] .halo", dashes) not in ("none", "")
    assert page.eval_on_selector("g.site[data-site='D3'] .halo", dashes) == "none"
    assert "put a piece back here now" in (site(page, "C3").get_attribute("aria-label") or "")
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
    fake.set_link_state("searching", "lost /dev/pts/fake: unplugged")
    wait_state(page, "s.phase === 'paused'")
    before = len(fake.commands)
    site(page, "A3").click()
    page.wait_for_selector("#toast:not([hidden])")
    assert "disconnected" in page.inner_text("#toast")
    page.wait_for_function("window.meridian.pending === 0")
    assert page.locator(".control.pending, g.site.pending").count() == 0
    assert fake.commands[before:] == [{"cmd": "toggle", "site": "A3"}]


def banner(page: Any, kind: str) -> str:
    """Wait for the banner of ``kind`` (its data-kind) and return its text."""
    page.wait_for_selector(f"#banner:not([hidden])[data-kind='{kind}']")
    return str(page.inner_text("#banner"))


def test_disconnected_board_shows_the_banner(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    page = open_page(server.url)
    assert page.is_hidden("#banner")
    fake.set_link_state("searching", "lost /dev/pts/fake: unplugged")
    text = banner(page, "unplugged")
    assert text == "Board disconnected — plug it back in; the game is paused"
    assert page.get_attribute("#banner", "title") == "lost /dev/pts/fake: unplugged"
    assert page.inner_text("#turn-text") == "Paused"
    shoot(page, "paused")
    fake.set_link_state("connected")
    page.wait_for_selector("#banner", state="hidden")


def test_the_banner_says_why_the_board_is_not_there(open_page: Callable[..., Any]) -> None:
    """Searching at start-up, the host closing the table and a protocol mismatch are no
    unplug: each banner says what is true and what to do."""
    fake = kato_fake(connected=False)
    with serve(fake, port=0) as running:
        page = open_page(running.url)
        assert banner(page, "searching") == "Looking for the board… — no board found: plug in the Pico"
        assert page.inner_text("#conn") == "Live — no board"
        assert "Board disconnected" not in page.inner_text("#banner")
        advice = "the board speaks protocol 2, this host 1: run `pip install -U meridian-table`"
        fake.set_link_state("version-mismatch", advice)
        assert banner(page, "mismatch") == f"Version mismatch — {advice}"
        fake.set_link_state("connected")
        page.wait_for_selector("#banner", state="hidden")
        fake.set_link_state("closed", "closed by the host")
        text = banner(page, "closed")
        # Words for players, no command-line flag (issue 26).
        assert text == (
            "Table closed — the game is saved: it can be continued when the table starts again"
        )
        assert "--" not in text
        assert "disconnected" not in text.lower()


def test_pie_question_and_count_agreement(open_page: Callable[..., Any]) -> None:
    fake = kato_fake(pie=True)
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
    fake = kato_fake(players=("Annabel Longname-Fitzgerald", "Bartholomew Verylongname"))
    fake.place("C3")
    with serve(fake, port=0) as server:
        page = open_page(server.url, width=390, height=844, is_mobile=True, has_touch=True)
        page.wait_for_selector("#games-label:not([hidden])")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone ({width}px wide)"
        board = page.locator("#board").bounding_box()
        # The 114 points are too close for fingers at 390 px: the board is drawn wider
        # and scrolls sideways inside its frame, which stays on the screen (issue 26).
        frame = page.locator(".board-wrap").bounding_box()
        assert frame is not None and frame["x"] >= 0 and frame["x"] + frame["width"] <= 390
        assert board is not None and board["width"] > frame["width"]
        point = site(page, "G7").bounding_box()
        assert point is not None and min(point["width"], point["height"]) >= 44
        # Whose turn and the message sit above the board, all within the first screen.
        message = page.locator("#message").bounding_box()
        assert message is not None and message["y"] + message["height"] <= board["y"] + 1
        # The controls stay within reach on a phone: inside the first screen.
        confirm = page.locator("#buttons .control[data-name='confirm']").bounding_box()
        assert confirm is not None and confirm["y"] + confirm["height"] <= 844
        assert confirm["height"] >= 44  # a finger-sized target
        assert page.inner_text("#turn-text") == "Dark to move"
        site(page, "G7").tap()
        wait_state(page, "s.moves.length === 2")
        # A new move must not scroll the page down to the move list, away from the board.
        assert page.evaluate("window.scrollY") == 0
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
    """The fake table with Colovini's seats and tower labels instead of stones."""

    def __init__(self) -> None:
        super().__init__(registry.spec("colovini").to_json(), sites=kato_sites(5))

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
        assert orange == "rgb(240, 120, 0)"  # the spec's colour for Orange (#f07800)
        assert page.eval_on_selector("g.site[data-site='A2']", fill) == orange
        assert page.eval_on_selector("g.site[data-site='C3']", fill) == "rgb(32, 32, 32)"
        assert page.inner_text("#turn-text") == "Orange to move"
        turn = page.eval_on_selector("#turn circle", "el => getComputedStyle(el).fill")
        assert turn == "rgb(240, 120, 0)"
        shoot(page, "towers")


def test_a_physical_board_is_not_toggled_from_the_page(open_page: Callable[..., Any]) -> None:
    fake = kato_fake(virtual=False)
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        assert page.get_attribute("#board", "class") == "board"
        assert "real board" in page.inner_text("#link-summary")
        site(page, "C3").click()
        page.click("#buttons .control[data-name='menu']")  # a command that does reach it
        wait_state(page, "s.phase === 'adjudicate'")
        assert [c["cmd"] for c in fake.commands] == ["games", "button"]


def test_link_panel_is_one_line_with_grouped_details_and_highlighted_errors(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    page = open_page(server.url)
    summary = page.inner_text("#link-summary")
    assert "Connected" in summary and "virtual board" in summary and "firmware 0.3.0" in summary
    assert page.is_hidden("#link-summary-errors")
    # The detail is folded away until asked for (phones are not a long scroll).
    assert not page.is_visible("#link-body")
    page.click("#link-details summary")
    assert page.is_visible("#link-body")
    captions = page.eval_on_selector_all("#link-body caption", "els => els.map(e => e.textContent)")
    assert captions == ["Connection", "Traffic", "Errors", "The board's own counters"]
    keys = page.eval_on_selector_all("#link-body tr", "els => els.map(e => e.dataset.key)")
    assert keys.count("state") == 1 and keys.count("port") == 1  # not twice
    assert "board.bad_crc" in keys and "board" not in keys
    assert "{" not in page.inner_text("#link-body")  # no raw JSON
    connection = page.inner_text(".link-connection")
    assert "fake-0001" in connection and "0.3.0" in connection
    assert page.locator("#link-body tr.bad").count() == 0
    fake.count_error("crc_errors", 2)
    fake.count_error("bad_crc", 1, board=True)
    page.wait_for_selector("#link-body tr.bad[data-key='crc_errors']")
    assert page.locator("#link-body tr.bad[data-key='board.bad_crc']").count() == 1
    assert page.locator("#link-body tr.bad").count() == 2
    assert page.inner_text("#link-summary-errors") == "2 error counters"
    assert page.is_visible("#link-body")  # a new state keeps the details open
    shoot(page, "link-details", full_page=True)


def test_board_faults_are_shown_in_the_link_panel_without_opening_it(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    page = open_page(server.url)
    assert page.is_hidden("#link-faults")
    ghost = ("Ghost switch at matrix position 17 (site C3, row 2, column 1): a diode is "
             "missing or reversed in that rectangle")
    fake.fault("GHOST", ["17"], ghost)
    page.wait_for_selector("#link-faults li[data-code='GHOST']")
    assert not page.is_visible("#link-body")  # the details stay folded; the fault is not
    assert ghost in page.inner_text("#link-faults")
    fake.fault("CONFIG", ["rows", "bad_value"], "The board's configuration is wrong")
    fake.fault("CONFIG", ["rows", "bad_value"], "The board's configuration is wrong")
    page.wait_for_selector("#link-faults li[data-code='CONFIG'] .link-fault-count")
    assert "(×2)" in page.inner_text("#link-faults li[data-code='CONFIG']")
    assert page.locator("#link-faults li").count() == 2
    assert page.inner_text("#link-summary-errors") == "1 error counter"  # the faults counter
    shoot(page, "link-faults")


def test_controls_not_applicable_now_are_greyed_with_the_reason(
    open_page: Callable[..., Any], shoot: Any
) -> None:
    fake = kato_fake(pie=True)
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        swap = page.locator("#buttons .control[data-name='swap']")
        assert swap.get_attribute("aria-disabled") == "true"
        assert "pie choice" in (swap.get_attribute("title") or "")
        assert not swap.locator(".why").is_visible()
        swap.hover()
        assert swap.locator(".why").is_visible()
        assert "pie choice" in swap.locator(".why").inner_text()
        undo = page.locator("#buttons .control[data-name='undo']")
        assert undo.get_attribute("aria-disabled") == "true"
        undo.focus()  # keyboard users read the reason too
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        assert undo.locator(".why").is_visible()
        assert undo.locator(".why").inner_text() == "Nothing to undo yet"
        shoot(page, "disabled-hint")
        # A click on a greyed control explains itself and sends nothing.
        before = len(fake.commands)
        swap.click(force=True)  # Playwright waits for aria-disabled to clear; a finger does not
        page.wait_for_selector("#toast:not([hidden])")
        assert "pie choice" in page.inner_text("#toast")
        assert fake.commands[before:] == []
        # Once the pie choice is open, Swap and Confirm work; Pass does not.
        site(page, "B2").click()
        wait_state(page, "s.moves.length === 1")
        site(page, "F6").click()
        wait_state(page, "s.phase === 'pie-choice'")
        page.wait_for_selector("#buttons .control[data-name='swap'][aria-disabled='false']")
        assert page.get_attribute("#buttons .control[data-name='confirm']", "aria-disabled") == "false"
        assert page.get_attribute("#buttons .control[data-name='pass']", "aria-disabled") == "true"
        page.locator("#buttons .control[data-name='swap']").click()
        wait_state(page, "s.phase === 'play' && s.seats.light === 'Bob'")
        assert {"cmd": "button", "name": "swap"} in fake.commands


def test_board_points_work_from_the_keyboard(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    page = open_page(server.url)
    # The board is one tab stop: exactly one point is in the tab order.
    assert page.locator("g.site[tabindex='0']").count() == 1
    page.focus("#buttons .control[data-name='confirm']")
    for _ in range(40):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.classList.contains('site')"):
            break
    active = "document.activeElement.getAttribute('data-site')"
    assert page.evaluate(active) == "A1"
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "A1, empty, legal"
    assert visible(page, "g.site[data-site='A1'] .focus-ring")  # a visible focus
    page.keyboard.press("ArrowRight")
    first = page.evaluate(active)
    assert first != "A1"
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(active) == "A1"
    page.keyboard.press("ArrowDown")
    below = page.evaluate(active)
    assert below not in ("A1", first)
    page.keyboard.press("Enter")
    wait_state(page, "s.moves.length === 1")
    assert site(page, below).get_attribute("data-piece") == "L"
    label = site(page, below).get_attribute("aria-label") or ""
    assert label.startswith(f"{below}, light stone, last move")
    assert page.locator("g.site[tabindex='0']").count() == 1
    shoot(page, "keyboard")
    page.keyboard.press(" ")  # Space lifts it again: the fake sees a resync
    wait_state(page, "s.phase === 'resync'")


def test_phone_114_board_is_full_width_with_controls_near(
    open_page: Callable[..., Any], shoot: Any
) -> None:
    fake = kato_fake(size=6)
    with serve(fake, port=0) as server:
        page = open_page(server.url, width=390, height=844, is_mobile=True, has_touch=True)
        assert page.locator("g.site").count() == 114
        board = page.locator("#board").bounding_box()
        assert board is not None and board["width"] >= 388 and board["x"] <= 1
        gap = page.evaluate(
            """() => {
                const c = [...document.querySelectorAll('g.site .hit')].map((e) => {
                    const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];
                });
                let best = Infinity;
                for (let i = 0; i < c.length; i++) for (let j = i + 1; j < c.length; j++) {
                    best = Math.min(best, Math.hypot(c[i][0] - c[j][0], c[i][1] - c[j][1]));
                }
                return best;
            }"""
        )
        assert gap >= 28, f"points only {gap:.1f} px apart on a phone"
        for name in ("confirm", "undo", "pass", "swap", "menu"):
            box = page.locator(f"#buttons .control[data-name='{name}']").bounding_box()
            assert box is not None and box["y"] + box["height"] <= 844 and box["height"] >= 44, name
        turn = page.locator("#turn-text").bounding_box()
        assert turn is not None and turn["y"] >= 0
        shoot(page, "phone-114")


def test_groups_majors_and_axis_labels_are_drawn_and_light_up_at_the_end(
    open_page: Callable[..., Any], shoot: Any
) -> None:
    fake = colovini_fake(islands=True)
    fake.place("C3")
    board = fake.state()["board"]
    groups = board["groups"]
    majors = [s["id"] for s in board["sites"] if s["major"]]
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        # One band per group, behind the sites (earlier in the SVG), each labelled.
        assert page.locator("#board g.group").count() == len(groups)
        ids = page.eval_on_selector_all("#board g.group", "els => els.map(e => e.dataset.group)")
        assert ids == [g["id"] for g in groups]
        assert page.text_content("#board .group-label[data-group='A']") == "A"
        assert page.evaluate(
            "document.querySelector('#board g.groups').compareDocumentPosition("
            "document.querySelector('#board g.site')) & Node.DOCUMENT_POSITION_FOLLOWING"
        )
        assert page.locator("#board .grid-line").count() == 0
        # Every major site carries the star; no other site does.
        starred = page.eval_on_selector_all(
            "#board g.site .major-mark", "els => els.map(e => e.parentNode.dataset.site)")
        assert sorted(starred) == sorted(majors) and majors
        # Axis numbers under the board, the north label above it.
        labels = page.eval_on_selector_all("#board .axis-label", "els => els.map(e => e.textContent)")
        assert labels == [a["text"] for a in board["axis_labels"]]
        assert page.text_content("#board .north-label") == board["north_label"]
        # The tower still sits on top of its band: Orange's piece.
        assert site(page, "C3").get_attribute("data-piece") == "O"
        assert site(page, "C3").get_attribute("data-seat") == "orange"
        shoot(page, "islands-desktop")
        fake.finish("orange")
        page.wait_for_selector("#board g.group.owned")
        owned = page.locator("#board g.group[data-group='A']")
        assert owned.get_attribute("data-owner") == "orange"
        fill = page.eval_on_selector("#board g.group[data-group='A'] line.band, #board g.group[data-group='A'] circle.band",
                                     "el => getComputedStyle(el).fill")
        assert fill == "rgb(240, 120, 0)"  # Orange's colour from the spec
        # A tie is drawn by shape (hatching and a dashed outline), not by colour alone.
        tied = "#board g.group[data-group='B']"
        assert page.get_attribute(tied, "data-tied") == "true"
        assert page.locator(f"{tied} .band-outline").count() > 0
        assert "url(" in page.eval_on_selector(f"{tied} .band", "el => getComputedStyle(el).fill")
        shoot(page, "islands-end-desktop")

    phone = colovini_fake(islands=True)
    with serve(phone, port=0) as server:
        page = open_page(server.url, width=390, height=844, is_mobile=True, has_touch=True)
        page.wait_for_selector("#board g.group")  # the game's page script loads after the page
        assert page.locator("#board g.group").count() == len(groups)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone ({width}px wide)"
        shoot(page, "islands-phone")


def test_kato_draws_no_groups_or_axis_labels(open_page: Callable[..., Any], server: WebServer) -> None:
    page = open_page(server.url)
    assert page.locator("#board g.group, #board .axis-label, #board .north-label, #board .major-mark").count() == 0
    assert page.locator("#board .grid-line").count() > 0


def test_the_page_draws_any_game_from_its_spec(open_page: Callable[..., Any], shoot: Any) -> None:
    """A game the page has never heard of: its seats' names, colours and pieces and its
    drawing come from ``state.spec`` alone."""
    fake = FakeSession(TEST_SPEC, players=("Ann", "Bob", "Cid"))
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        assert page.inner_text("#turn-text") == "Crimson to move"
        fill = "el => getComputedStyle(el).fill"
        assert page.eval_on_selector("#turn circle", fill) == "rgb(192, 16, 48)"
        # Square cities, no lines: the spec's "grid" drawing.
        assert page.get_attribute("#board", "data-drawing") == "grid"
        assert page.locator("#board .grid-line").count() == 0
        assert page.locator("g.site rect.dot").count() == len(fake.state()["board"]["sites"])
        # The legal dot and the legend's take the mover's colour (its dim hint LED's hue).
        legend = page.eval_on_selector(".legend .lg-legal", fill)
        assert legend == page.eval_on_selector("g.site[data-site='A1'] .legal", fill)
        assert legend == "rgb(255, 21, 64)"  # the hue of Crimson (#c01030) at full strength
        site(page, "C3").click()
        wait_state(page, "s.moves.length === 1")
        site(page, "F6").click()
        wait_state(page, "s.moves.length === 2")
        assert page.inner_text("#turn-text") == "Violet to move"
        stone = "el => getComputedStyle(el.querySelector('.stone')).fill"
        assert page.eval_on_selector("g.site[data-site='C3']", stone) == "rgb(192, 16, 48)"
        assert page.eval_on_selector("g.site[data-site='F6']", stone) == "rgb(16, 160, 96)"
        assert site(page, "F6").get_attribute("data-seat") == "green"
        # A piece that is just its seat's letter is a plain disc, named in words.
        assert not visible(page, "g.site[data-site='F6'] .label")
        assert (site(page, "F6").get_attribute("aria-label") or "").startswith(
            "F6, jade marker, last move")
        seats = page.eval_on_selector_all(".score .score-seat", "els => els.map(e => e.textContent)")
        assert seats == ["Crimson", "Jade", "Violet"]
        borders = page.eval_on_selector_all(
            ".score", "els => els.map(e => getComputedStyle(e).borderLeftColor)")
        assert borders == ["rgb(192, 16, 48)", "rgb(16, 160, 96)", "rgb(112, 64, 192)"]
        assert "Remove the marker" not in page.inner_text("#message")
        fake.finish("green", "the test says so")
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#turn-text") == "Jade wins"
        assert page.inner_text("#result") == "Jade (Bob) wins: the test says so"
        # No game script was asked for: the spec names none.
        assert page.evaluate("document.querySelectorAll('script[data-game]').length") == 0
        shoot(page, "test-game")


def test_a_games_own_page_code_is_loaded_through_its_spec(open_page: Callable[..., Any]) -> None:
    fake = colovini_fake()
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        page.wait_for_function("window.MeridianGames.registered.includes('colovini')")
        src = page.get_attribute("script[data-game='colovini']", "src")
        assert src == "games/colovini/static/page.js"
        page.wait_for_selector("link[data-game='colovini']", state="attached")
        labels = page.eval_on_selector_all(
            "#buttons .control .control-label", "els => els.map(e => e.textContent)")
        assert "Confirm" in labels
        assert page.inner_text("#turn-text") == "Orange to move"


def test_a_game_in_its_own_package_is_drawn_from_its_spec(open_page: Callable[..., Any]) -> None:
    """The toy game (tests/toygame) is installed as its own package: the page draws its
    seats and loads its script through its spec, with nothing shared edited."""
    fake = FakeSession(registry.spec("toy").to_json(), sites=[
        (f"{chr(ord('a') + c)}{r + 1}", float(c), float(r)) for r in range(3) for c in range(3)
    ])
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        page.wait_for_function("window.MeridianGames.registered.includes('toy')")
        assert page.inner_text("#turn-text") == "Cross to move"
        site(page, "b2").click()
        wait_state(page, "s.moves.length === 1")
        stone = "el => getComputedStyle(el.querySelector('.stone')).fill"
        assert page.eval_on_selector("g.site[data-site='b2']", stone) == "rgb(192, 32, 32)"
        assert page.inner_text("#turn-text") == "Nought to move"


class SpeclessSession(FakeSession):
    """A session from before the game contract: no spec, no seat kinds, no automaton."""

    def _state(self) -> dict[str, Any]:
        state = super()._state()
        for key in ("spec", "seats_kind", "automaton"):
            del state[key]
        return state


def test_a_state_without_spec_or_automata_still_draws(open_page: Callable[..., Any]) -> None:
    with serve(SpeclessSession(), port=0) as server:
        page = open_page(server.url)
        assert page.inner_text("#turn-text") == "Light to move"
        assert page.locator("#board .grid-line").count() > 0
        assert page.is_hidden("#automaton")
        site(page, "C3").click()
        wait_state(page, "s.moves.length === 1")
        assert site(page, "C3").get_attribute("data-piece") == "L"


def test_an_automaton_seat_thinks_then_says_what_to_carry_out(
    open_page: Callable[..., Any], shoot: Any
) -> None:
    fake = kato_fake(seats_kind={"dark": "random"})
    fake.place("C3")
    with serve(fake, port=0) as server:
        page = open_page(server.url)
        assert page.is_hidden("#automaton")
        assert page.inner_text(".score[data-colour='dark'] .score-seat") == (
                "Dark · the random automaton")
        assert page.inner_text("#turn-player") == "Bob (the random automaton)"
        fake.set_automaton("dark", "thinking", elapsed_s=2.5)
        page.wait_for_selector("#automaton[data-status='thinking']")
        assert page.inner_text("#automaton-title") == "Dark (Bob), the random automaton is thinking…"
        assert page.inner_text("#turn-text") == "Dark is thinking…"
        first = float(page.inner_text("#automaton-time").split()[0])
        assert first >= 2.5
        # The time counts on between states.
        page.wait_for_function(
            f"parseFloat(document.getElementById('automaton-time').textContent) >= {first + 0.4}")
        shoot(page, "thinking")
        fake.set_automaton("dark", "executing", action="F6", words="Put a dark stone on F6")
        page.wait_for_selector("#automaton[data-status='executing']")
        assert page.inner_text("#automaton-words") == "Put a dark stone on F6"
        assert page.is_hidden("#automaton-time")
        assert page.inner_text("#turn-text") == "Play Dark's move"
        # The move is said once, in the box; the header names who chose it (issue 26).
        assert page.inner_text("#turn-player") == "Bob (the random automaton)"
        shoot(page, "executing")
        fake.clear_automaton()
        page.wait_for_selector("#automaton", state="hidden")
        assert page.inner_text("#turn-text") == "Dark to move"


def test_the_end_screen_shows_the_final_position_plainly_and_a_summary(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any], shoot: Any
) -> None:
    for name in ("A1", "C3", "E5", "G7", "B4"):
        fake.place(name)
    page = open_page(server.url)
    assert page.is_hidden("#summary")
    fake.finish("light", "no dark stones left")
    page.wait_for_selector("#summary:not([hidden])")
    # Every LED pulses the winner's colour on the board; the page shows no ring over
    # every point, only the stones and the last move.
    assert all(led["effect"] == "P" for led in fake.state()["leds"].values())
    assert page.locator("g.site .halo.lit").count() == 0
    assert "is-last" in (site(page, "B4").get_attribute("class") or "")
    assert page.inner_text("#summary-result") == "Light (Ann) wins: no dark stones left"
    facts = dict(page.eval_on_selector_all(
        "#summary-facts dd", "els => els.map(e => [e.dataset.fact, e.textContent])"))
    assert facts["moves"] == "5"
    assert facts["time"] == "under a minute" and facts["started"]
    # The score over the game: one line per seat, from the replay's scores per move.
    page.wait_for_selector("#summary-chart:not([hidden]) polyline.chart-line")
    seats = page.eval_on_selector_all("#summary-chart .chart-line", "els => els.map(e => e.dataset.seat)")
    assert seats == ["light", "dark"]
    label = page.get_attribute("#summary-chart svg", "aria-label") or ""
    assert label.endswith("at move 5: Light 3, Dark 2")
    shoot(page, "end")


def test_any_seat_can_be_given_to_an_automaton_from_the_page(
    server: WebServer, fake: FakeSession, open_page: Callable[..., Any]
) -> None:
    page = open_page(server.url)
    menu = page.locator(".score[data-colour='dark'] .seat-kind select")
    assert menu.input_value() == "person"
    options = page.eval_on_selector_all(
        ".score[data-colour='dark'] .seat-kind option", "els => els.map(e => e.value)")
    # The spec's automata; its bot once per level (the spec's levels).
    assert options == ["person", "bot:1", "bot:2", "bot:3", "bot:4", "bot:5", "greedy",
                       "random", "uct"]
    menu.select_option("random")
    wait_state(page, "s.seats_kind.dark === 'random'")
    assert {"cmd": "seat", "seat": "dark", "automaton": "random"} in fake.commands
    assert page.inner_text(".score[data-colour='dark'] .score-seat") == (
                "Dark · the random automaton")
    page.locator(".score[data-colour='dark'] .seat-kind select").select_option("person")
    wait_state(page, "s.seats_kind.dark === 'person'")
    assert {"cmd": "seat", "seat": "dark", "automaton": None} in fake.commands
