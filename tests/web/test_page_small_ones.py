"""Issue 26, item 12 (the small ones), on the real table: a Kato table on the virtual
board with its SQLite log, served to headless Chromium.

- an automaton's move is said once on the page, not three times;
- the New game form offers Empire's Scelrotia to no seat (the rules seat it themselves);
- the page names no command-line flag (``--resume``);
- a disabled Undo says why once ("Undo: first lift ...", never "Undo: Undo waits: ...");
- a success toast is not styled as an error;
- in French, Undo and Cancel are different words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from tests.web.tables import kato_host

from meridian_table.table.lobby import TableHost
from meridian_table.web import WebServer, serve

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("small-ones")]


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableHost]:
    with kato_host(tmp_path_factory.mktemp("small")) as lobby:
        yield lobby


@pytest.fixture(scope="module")
def server(host: TableHost) -> Iterator[WebServer]:
    with serve(host, port=0) as running:
        yield running


def _new(host: TableHost, **cmd: Any) -> None:
    answer = host.command({"cmd": "new_game", "game": "kato", "players": ["Ann", "Bob"],
                           "profile": "kato-80", **cmd})
    assert answer.get("ok"), answer


def wait(page: Any, condition: str, timeout: float = 30000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


def _shown_text(page: Any) -> str:
    """What a person reads: the visible text, with titles and labels."""
    return str(page.evaluate("""(() => {
        const parts = [document.body.innerText];
        for (const el of document.querySelectorAll('[title], [aria-label]'))
          parts.push(el.getAttribute('title') || '', el.getAttribute('aria-label') || '');
        return parts.join('\\n'); })()"""))


def test_an_automatons_move_is_said_once(host: TableHost, server: WebServer,
                                         open_page: Any) -> None:
    _new(host, seats={"2": "bot:1:20"})
    page = open_page(server.url, width=1280, height=800)
    wait(page, "s.game === 'kato' && s.moves.length === 0 && s.seats_kind.dark === 'bot:1:20'")
    legal = page.evaluate("window.meridian.state.legal")
    page.locator(f"g.site[data-site='{legal[len(legal) // 2]}']").click()
    wait(page, "s.automaton && s.automaton.status === 'executing'", 60000)
    page.wait_for_selector("#automaton[data-status='executing']")
    words = page.evaluate("window.meridian.state.automaton.words")
    assert words
    text = page.inner_text("body")
    assert text.count(words) == 1, f"{words!r} said {text.count(words)} times:\n{text[:600]}"
    # The box says what to do now, and the header who chose the move.
    step = page.inner_text("#automaton-step")
    assert re.match(r"Now [A-M]\d+: ", step), step
    assert page.inner_text("#turn-text") == "Play Dark's move"
    assert page.inner_text("#turn-player").startswith("Bob (Computer")


def _open_new_game(page: Any) -> Any:
    page.click("#new-game:visible, #end-new-game:visible")
    page.wait_for_selector("#newgame-dialog[open] #ng-game")
    return page.locator("#newgame-dialog")


def test_the_new_game_form_offers_the_scelrotia_to_no_seat(
        host: TableHost, server: WebServer, open_page: Any) -> None:
    _new(host)
    page = open_page(server.url, width=1280, height=800)
    _open_new_game(page)
    page.select_option("#ng-game", "empire")
    page.wait_for_selector("#newgame-dialog select[name='kind']")
    modes = page.eval_on_selector_all("#newgame-dialog select[name='opt:mode'] option",
                                      "els => els.map(e => e.value)")
    assert modes, "the Empire form has no mode menu"
    offered: dict[str, list[str]] = {}
    for mode in modes:
        page.select_option("#newgame-dialog select[name='opt:mode']", mode)
        values = page.eval_on_selector_all(
            "#newgame-dialog select[name='kind'] option", "els => els.map(e => e.value)")
        assert "random" in values
        offered[mode] = [v for v in values if v.startswith("scelrotia")]
    assert all(not v for v in offered.values()), f"the Scelrotia offered for a seat: {offered}"
    # The players panel's seat menus come from the same spec data.
    catalog = page.evaluate("window.meridian.request({cmd: 'catalog'})")
    empire = next(g for g in catalog["catalog"]["games"] if g["id"] == "empire")
    assert "scelrotia" not in empire["automata"], empire["automata"]


def test_the_page_names_no_command_line_flag(host: TableHost, server: WebServer,
                                             open_page: Any) -> None:
    _new(host)
    page = open_page(server.url, width=1280, height=800)
    wait(page, "s.game === 'kato' && s.moves.length === 0 && s.phase === 'play'")
    legal = page.evaluate("window.meridian.state.legal")
    page.locator(f"g.site[data-site='{legal[3]}']").click()
    wait(page, "s.moves.length === 1")
    # A game that is not over: the New game form says what becomes of it.
    dialog = _open_new_game(page)
    note = dialog.inner_text()
    assert "log" in note
    flags = re.findall(r"(?<![\w-])--[a-z][\w-]*", _shown_text(page))
    assert flags == [], f"the page names command-line flags: {flags}"


def test_a_disabled_undo_says_why_once(host: TableHost, server: WebServer,
                                       open_page: Any) -> None:
    _new(host)
    page = open_page(server.url, width=1280, height=800)
    wait(page, "s.game === 'kato' && s.moves.length === 0 && s.phase === 'play'")
    legal = page.evaluate("window.meridian.state.legal")
    page.locator(f"g.site[data-site='{legal[5]}']").click()
    wait(page, "s.moves.length === 1 && s.phase === 'play'")
    # Two stones at once: Undo waits until they are lifted.
    first, second = page.evaluate("window.meridian.state.legal")[:2]
    page.evaluate(f"""Promise.all([window.meridian.request({{cmd: 'toggle', site: '{first}'}}),
                   window.meridian.request({{cmd: 'toggle', site: '{second}'}})])""")
    wait(page, "s.control_state.undo && s.control_state.undo.enabled === false && "
               "s.phase === 'resync'")
    page.click("#buttons .control[data-name='undo']", force=True)  # aria-disabled
    page.wait_for_selector("#toast:not([hidden])")
    toast = page.inner_text("#toast")
    assert toast.startswith("Undo: first lift"), toast
    assert "Undo waits" not in toast
    # The physical button's refusal, as the table words it, under the message.
    host.command({"cmd": "button", "name": "undo"})
    page.wait_for_selector("#error:not([hidden])")
    error = page.inner_text("#error")
    assert error.count("Undo") == 2 and not error.startswith("Undo: Undo"), error


def test_a_success_toast_is_not_styled_as_an_error(host: TableHost, server: WebServer,
                                                   open_page: Any) -> None:
    _new(host)
    page = open_page(server.url, width=1280, height=800)
    wait(page, "s.game === 'kato'")
    before = page.evaluate("window.meridian.state.game_id")
    _open_new_game(page)
    page.click("#ng-start")
    wait(page, f"s.game_id !== {before}")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.get_attribute("#toast", "data-kind") == "ok"
    colour, background = page.eval_on_selector(
        "#toast", "el => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]")
    error_bg = page.evaluate("""(() => { const t = document.getElementById('toast');
        t.dataset.kind = 'error'; const c = getComputedStyle(t).backgroundColor;
        t.dataset.kind = 'ok'; return c; })()""")
    assert background != error_bg, (colour, background)


def test_in_french_undo_and_cancel_are_different_words(
        host: TableHost, server: WebServer, open_page: Any) -> None:
    _new(host)
    page = open_page(server.url, width=1280, height=800, locale="fr-FR")
    page.wait_for_function("window.MeridianI18n && window.MeridianI18n.lang === 'fr'")
    undo = page.inner_text("#buttons .control[data-name='undo'] .control-label")
    _open_new_game(page)
    cancel = page.inner_text("#ng-cancel")
    assert undo != cancel, (undo, cancel)
    page.keyboard.press("Escape")
    host.command({"cmd": "language", "lang": "en"})
