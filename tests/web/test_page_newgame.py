"""Games from the page, with everything real: the virtual board, the link, the session,
the SQLite log and the TableHost that `meridian-table play` serves. The test names the
players on the page, plays the toy game to its end by clicking, asks for a rematch
(seats swapped), then starts a Kato game against an automaton from the new-game form;
axe-core checks the panel, the end screen and the form in both themes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from meridian_toygame.spec import PROFILE
from tests.web.axe import blocking, require_axe
from tests.web.tables import table_host

from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup
from meridian_table.web import WebServer, serve

pytestmark = pytest.mark.browser


@pytest.fixture
def host(tmp_path: Path) -> Iterator[TableHost]:
    setup = TableSetup(game="toy", board="sim", profile=PROFILE, players=("Xena", "Otto"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    with table_host(setup) as lobby:
        yield lobby


@pytest.fixture
def server(host: TableHost) -> Iterator[WebServer]:
    with serve(host, port=0) as running:
        yield running


def wait(page: Any, condition: str, timeout: float = 15000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


def play(page: Any, cells: str) -> None:
    for n, cell in enumerate(cells, start=1):
        page.locator(f"g.site[data-site='{cell}']").click()
        wait(page, f"s.moves.length === {n} && !s.tentative.arriving.length")


def axe(page: Any, what: str, failures: list[str]) -> None:
    for v in blocking(page):
        failures.append(f"{what}: {v['impact']} {v['id']} ({v['help']}) at {v['targets']}")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_names_a_game_a_rematch_and_a_new_game_from_the_page(
    server: WebServer, host: TableHost, open_page: Callable[..., Any], shoot: Any, theme: str
) -> None:
    require_axe()
    failures: list[str] = []
    page = open_page(server.url, color_scheme=theme)
    page.wait_for_selector("#names-form:not([hidden])")
    axe(page, "game panel", failures)
    page.fill("#name-1", "Xena Warrior")
    page.click("#names-save")
    wait(page, "s.players[0] === 'Xena Warrior'")
    # Good news is not styled as an error (issue 26).
    page.wait_for_selector("#toast[data-kind='ok']:not([hidden])")
    shoot(page, f"{theme}-names")
    first = page.evaluate("window.meridian.state.game_id")

    # Cross takes the diagonal a, e, i; Nought answers b, c: three in a row wins.
    play(page, "abeci")
    wait(page, "s.result !== null")
    page.wait_for_selector("#rematch")
    assert page.is_hidden("#names-form")
    axe(page, "end screen", failures)
    shoot(page, f"{theme}-end")
    page.click("#rematch")
    wait(page, f"s.game_id !== {first} && s.moves.length === 0")
    state = page.evaluate("window.meridian.state")
    assert state["players"] == ["Otto", "Xena Warrior"]
    assert state["seats"] == {"cross": "Otto", "nought": "Xena Warrior"}
    assert page.input_value("#name-1") == "Otto"
    assert page.is_hidden("#rematch")
    play(page, "e")

    # A Kato game against the random automaton, from the form.
    page.click("#new-game")
    page.wait_for_selector("#newgame-dialog[open]")
    assert "not over" in page.inner_text("#newgame-dialog")
    page.select_option("#ng-game", "kato")
    page.wait_for_selector("#ng-opt-pie")
    page.fill("#ng-name-1", "Ann")
    page.fill("#ng-name-2", "Bob")
    page.select_option("#ng-kind-2", "random")
    page.check("#ng-opt-pie")
    page.select_option("#ng-opt-size", "5")
    page.select_option("#ng-profile", "kato-80")
    axe(page, "new-game form", failures)
    shoot(page, f"{theme}-form")
    page.select_option("#ng-opt-size", "7")
    page.click("#ng-start")
    page.wait_for_selector("#ng-error:not([hidden])")
    assert "kato-80" in page.inner_text("#ng-error") or "size" in page.inner_text("#ng-error")
    assert page.evaluate("window.meridian.state.game") == "toy"
    page.select_option("#ng-opt-size", "5")
    page.click("#ng-start")
    wait(page, "s.game === 'kato'")
    page.wait_for_selector("#newgame-dialog:not([open])", state="attached")
    state = page.evaluate("window.meridian.state")
    assert state["players"] == ["Ann", "Bob"] and state["options"]["pie"] is True
    kinds = {state["seats"][c]: kind for c, kind in state["seats_kind"].items()}
    assert kinds == {"Ann": "person", "Bob": "random"}
    page.wait_for_selector("g.site[data-site='A1']")
    shoot(page, f"{theme}-kato")

    # The players and their history, from the log: replay a game from there.
    page.click("#players-open")
    page.wait_for_selector("#players-dialog[open]")
    # It opens at its top, and names each game by its date too (issue 26).
    assert page.evaluate("document.getElementById('players-dialog').scrollTop") == 0
    assert " · " in page.inner_text("#players-dialog tr[data-game-id] td")
    xena = page.locator(".player-card[data-player='Xena Warrior']")
    assert "2 games: 1 won, 0 drawn, 0 lost, 1 not over" in xena.inner_text()
    assert "toy: 1 of 2 won" in xena.inner_text()
    otto = page.locator(".player-card[data-player='Otto']").inner_text()
    assert "2 games: 0 won, 0 drawn, 1 lost, 1 not over" in otto
    assert "Ann" in page.inner_text("#players-dialog")
    axe(page, "players dialog", failures)
    shoot(page, f"{theme}-players")
    # The toy has a bot (the generic one), so its finished game has Review beside Replay.
    assert xena.locator(f"tr[data-game-id='{first}'] button[data-review-game]").count() == 1
    xena.locator(f"tr[data-game-id='{first}'] button[aria-label='Replay game {first}']").click()
    page.wait_for_function(f"window.meridian.replay && window.meridian.replay.gameId === {first}")
    assert failures == []


def test_the_form_at_390_wide(server: WebServer, open_page: Callable[..., Any], shoot: Any) -> None:
    page = open_page(server.url, width=390, height=844, is_mobile=True, has_touch=True)
    page.click("#new-game")
    page.wait_for_selector("#newgame-dialog[open]")
    width = page.evaluate("document.getElementById('newgame-dialog').getBoundingClientRect().width")
    assert width <= 390
    small = page.evaluate("""[...document.querySelectorAll('#newgame-dialog input:not([type=checkbox]),'
        + ' #newgame-dialog select, #newgame-dialog button')].filter(e => e.getClientRects().length && e.getBoundingClientRect().height < 44)
        .map(e => e.id)""")
    assert small == []
    shoot(page, "phone-form")
    page.click("#ng-cancel")
    page.wait_for_selector("#newgame-dialog:not([open])", state="attached")
