"""The computer opponents on the page, with everything real (the virtual board, the link,
the session, the SQLite log, the TableHost that `meridian-table play` serves):

- a seat is given to the bot at a chosen level, in words, from the players panel and
  from the new-game form, and the table seats (and logs) ``bot:N``;
- after a game played by clicking the page, "Review this game" runs the review while
  the page keeps working, lists the marked moves in words, worst first, and choosing one
  draws that position with the move played and the better move marked;
- axe-core checks the new parts, and a French page names the levels in French.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.axe import blocking, require_axe
from tests.web.test_page_kato_game import Player, _logged, _open

from meridian_table import i18n
from meridian_table.store import Store
from meridian_table.table.lobby import TableHost
from meridian_table.web import WebServer, serve

pytestmark = pytest.mark.browser

#: A review of a few seconds: long enough to see it analysing, short for a test.
SLOW = "Object.assign(window.MeridianReview.settings, {level: 4, budget_s: 0.5})"
#: The review at its quickest: the logic and the page, not the bot's strength.
QUICK = "Object.assign(window.MeridianReview.settings, {level: 1, budget_s: 0.03})"


@pytest.fixture
def host(tmp_path: Path) -> Iterator[TableHost]:
    with _open(tmp_path) as table, TableHost(table) as lobby:
        yield lobby


@pytest.fixture
def server(host: TableHost) -> Iterator[WebServer]:
    with serve(host, port=0) as running:
        yield running


def axe(page: Any, what: str, failures: list[str]) -> None:
    for v in blocking(page):
        failures.append(f"{what}: {v['impact']} {v['id']} ({v['help']}) at {v['targets']}")


def logged_seats(db: Path, game_id: int) -> dict[str, str]:
    seats: dict[str, str] = {}
    with Store.open(db, readonly=True) as store:
        for event in store.events(game_id, kinds=["settings"]):
            seats.update(event.payload.get("seats") or {})
    return seats


def test_a_bot_level_from_the_players_panel_and_the_new_game_form(
    tmp_path: Path, host: TableHost, server: WebServer, open_page: Callable[..., Any],
    shoot: Any
) -> None:
    require_axe()
    failures: list[str] = []
    page = open_page(server.url)
    player = Player(page)
    menu = ".score[data-colour='dark'] .seat-kind select"
    labels = page.eval_on_selector_all(f"{menu} option", "os => os.map(o => [o.value, o.text])")
    offered = dict(labels)
    assert offered["person"] == "a person"
    assert offered["bot:1"] == "Computer — level 1 (beginner)"
    assert offered["bot:4"] == "Computer — level 4 (strong)"
    assert offered["bot:5"] == "Computer — level 5 (strongest)"
    assert "random" in offered and "bot" not in offered  # a plain bot is its level 3
    page.select_option(menu, "bot:4")
    player.wait("s.seats_kind.dark === 'bot:4'")
    help_text = page.inner_text("#seat-help-dark")
    assert help_text == "searches for half of its think time"
    assert page.get_attribute(menu, "aria-describedby") == "seat-help-dark"
    assert page.input_value(menu) == "bot:4"  # the menu follows the table's answer
    axe(page, "players panel with a bot level", failures)
    shoot(page, "players-panel-level")
    first = page.evaluate("window.meridian.state.game_id")
    assert logged_seats(tmp_path / "games.sqlite3", first) == {"2": "bot:4"}

    # The new-game form offers the same levels, with what each does.
    page.click("#new-game")
    page.wait_for_selector("#newgame-dialog[open]")
    assert page.input_value("#ng-kind-2") == "bot:4"  # the current seats are the start
    assert page.inner_text("#ng-kind-2-help") == "searches for half of its think time"
    page.select_option("#ng-kind-2", "bot:2")
    assert page.inner_text("#ng-kind-2-help") == "a short search"
    assert page.input_value("#ng-kind-1") == "person"
    assert page.is_hidden("#ng-kind-1-help")
    axe(page, "new-game form with bot levels", failures)
    shoot(page, "new-game-level")
    page.click("#ng-start")
    player.wait(f"s.game_id !== {first} && s.seats_kind.dark === 'bot:2'")
    second = page.evaluate("window.meridian.state.game_id")
    assert logged_seats(tmp_path / "games.sqlite3", second) == {"2": "bot:2"}
    assert page.input_value(menu) == "bot:2"
    assert failures == []


@pytest.fixture
def english() -> Iterator[None]:
    i18n.set_language("en")
    yield
    i18n.set_language("en")  # the language is the process's: leave it as found


def test_the_levels_in_french(server: WebServer, open_page: Callable[..., Any],
                              english: None) -> None:
    page = open_page(server.url, locale="fr-FR")
    menu = ".score[data-colour='dark'] .seat-kind select"
    page.wait_for_function(
        f"document.querySelector(\"{menu} option[value='bot:4']\").text.startsWith('Ordinateur')")
    assert page.eval_on_selector(f"{menu} option[value='bot:4']", "o => o.text") == (
        "Ordinateur — niveau 4 (fort)")
    page.select_option(menu, "bot:5")
    page.wait_for_function(
        "document.getElementById('seat-help-dark').textContent === "
        "'cherche pendant tout son temps de réflexion'")


def play_the_short_game(player: Player) -> None:
    """Kato on the small board (tests/web/test_page_kato_game.py): Light wins at move 6
    when Dark merges its stones into a group with no path. Dead stones are lifted."""
    for n, site in enumerate(["E3", "G3", "E7", "E4", "B4", "F4"], start=1):
        player.place(site, n)
        while True:
            state = player.page.evaluate("window.meridian.state")
            if state["phase"] != "resync" or not state["diff"]["next"]:
                break
            nxt = state["diff"]["next"]
            player.click(nxt)
            player.wait(f"s.diff.next !== '{nxt}'")
    player.wait("s.phase === 'ended' && s.result !== null")


def test_the_review_of_a_game_played_on_the_page(
    tmp_path: Path, open_page: Callable[..., Any], shoot: Any
) -> None:
    require_axe()
    failures: list[str] = []
    with _open(tmp_path) as table, serve(_logged(table), port=0) as server:
        page = open_page(server.url)
        player = Player(page)
        play_the_short_game(player)
        game_id = page.evaluate("window.meridian.state.game_id")
        page.wait_for_selector("#review-this-game")
        page.evaluate(SLOW)
        page.click("#review-this-game")
        # Analysing: said in words, with a progress bar and the time spent; the page's
        # other commands are answered meanwhile.
        page.wait_for_selector("#review-busy:not([hidden])")
        assert "Analysing game" in page.inner_text("#review-status")
        assert page.get_attribute("#review-panel", "aria-busy") == "true"
        assert page.is_disabled("#review-this-game")
        answered = page.evaluate("""async () => {
            const answer = await window.meridian.request({ cmd: "games" });
            return [answer.ok, window.MeridianReview.running];
        }""")
        assert answered == [True, True]
        # How far it is, from the table (review_progress): a determinate bar, in moves.
        page.wait_for_function(
            "document.getElementById('review-progress').hasAttribute('value') || "
            "!window.MeridianReview.running")
        assert page.get_attribute("#review-progress", "max") == "6"
        page.wait_for_function(
            "/^move \\d+ of 6, \\d+ s$/.test(document.getElementById('review-time')"
            ".textContent) || !window.MeridianReview.running")
        assert re.fullmatch(r"move \d+ of 6, \d+ s", page.inner_text("#review-time"))
        axe(page, "review analysing", failures)
        shoot(page, "review-analysing")
        page.wait_for_selector("#review-marks .review-mark", timeout=60000)
        assert page.is_hidden("#review-busy")
        marks = page.evaluate("window.MeridianReview.shown.marks")
        texts = page.eval_on_selector_all("#review-marks .review-mark", "bs => bs.map(b => b.textContent)")
        assert len(texts) == len(marks) >= 1
        losses = [m["loss"] for m in marks]
        assert losses == sorted(losses, reverse=True)
        for mark, text in zip(marks, texts, strict=True):
            seat = "Light" if mark["colour"] == "light" else "Dark"
            expected = (f"Move {mark['number']}, {seat} ({mark['player']}) played "
                        f"{mark['played']}; {mark['best']} was better (lost about "
                        f"{math.floor(100 * mark['loss'] + 0.5)} %)")  # JavaScript's Math.round
            assert text == expected
            assert re.fullmatch(r"[A-Z]\d+|pass|swap", mark["best"])
        assert "marked" in page.inner_text("#review-status")

        # The worst mark, chosen with the keyboard: the position before it, both moves marked.
        worst = marks[0]
        page.focus("#review-marks .review-mark >> nth=0")
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"window.meridian.replay && window.meridian.replay.gameId === {game_id} && "
            f"window.meridian.replay.ply === {worst['number'] - 1}")
        page.wait_for_selector("g.site.review-best")
        best = page.eval_on_selector_all("g.site.review-best", "gs => gs.map(g => g.dataset.site)")
        played = page.eval_on_selector_all("g.site.review-played",
                                           "gs => gs.map(g => g.dataset.site)")
        assert sorted(best) == sorted(worst["best_sites"]) and worst["best"] in best
        assert sorted(played) == sorted(worst["played_sites"]) and worst["played"] in played
        site = f"g.site[data-site='{worst['best']}']"
        assert "the better move" in (page.get_attribute(site, "aria-label") or "")
        assert page.get_attribute("#review-marks .review-mark >> nth=0", "aria-pressed") == "true"
        assert page.is_visible(".legend .lg-review:has(.lg-best)")
        assert page.is_visible(".legend .lg-review:has(.lg-played)")
        assert player.visible(f"{site} .mark-best")
        axe(page, "review marks on the board", failures)
        page.set_viewport_size({"width": 1280, "height": 1100})  # the legend and the list
        shoot(page, "review-marks")
        # Stepping off the position takes the marks away; the legend goes with them.
        page.click("[data-step='next']")
        page.wait_for_function("document.querySelectorAll('g.site.review-best').length === 0")
        assert page.is_hidden(".legend .lg-review:has(.lg-best)")
        page.click("#review-close")
        page.wait_for_function("window.meridian.replay === null")
        assert page.is_hidden("#review-panel")

        # The players' history offers the review of the finished game too.
        page.evaluate(QUICK)
        page.click("#players-open")
        page.wait_for_selector("#players-dialog[open]")
        row = page.locator(f".player-card[data-player='Ann'] tr[data-game-id='{game_id}']")
        row.locator("[data-review-game]").click()
        page.wait_for_selector("#review-marks .review-mark", timeout=60000)
    assert failures == []


def test_the_review_command_refuses_bad_fields(tmp_path: Path) -> None:
    with _open(tmp_path) as table:
        game = table.session.state()["game_id"]
        for cmd, words in (
            ({"level": 9}, "'level' must be a whole number from 1 to 5"),
            ({"level": "3"}, "'level' must be a whole number from 1 to 5"),
            ({"budget_s": 0}, "'budget_s' must be a number of seconds from 0.01 to 10"),
            ({"budget_s": float("nan")}, "'budget_s' must be a number of seconds"),
            ({"top": 0}, "'top' must be a whole number from 1 to 20"),
        ):
            answer = _logged(table).command({"cmd": "review", "game_id": game, **cmd})
            assert answer["ok"] is False and words in answer["error"], answer
