"""Colovini's controls at 390 x 844, with everything real (virtual board, link, session,
Colovini adapter, log): one row of meridians on the page (the board's Meridian buttons
stay on the board), a stepper over the legal heights instead of a button per height, the
move list in words, finger-sized targets, no island label under another island's band;
axe-core finds nothing serious."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.web.axe import blocking, require_axe

from meridian_table.table.runner import TableSetup, open_table
from meridian_table.web import WebServer, serve

pytestmark = pytest.mark.browser


@pytest.fixture
def server() -> Iterator[WebServer]:
    setup = TableSetup(game="colovini", board="sim", players=("Ann", "Bob"), db=":memory:",
                       options={"seed": 7}, settle_s=0.03)
    table = open_table(setup)
    if not table.wait_ready():
        table.close()
        pytest.fail("the virtual board did not connect")
    with table, serve(table.session, port=0) as running:
        yield running


def state(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("window.meridian.state"))


#: Before any page script: note, when the game's stylesheet link is added (by its page.js,
#: which then registers the game), whether the game had registered already.
_WATCH_THE_STYLESHEET = """
new MutationObserver((records, observer) => {
  if (document.querySelector("link[data-game='colovini']")) {
    window.__registeredWhenLinked = !!(window.MeridianGames
      && window.MeridianGames.registered.includes("colovini"));
    observer.disconnect();
  }
}).observe(document, {childList: true, subtree: true});
"""


def test_the_game_registers_once_its_stylesheet_is_in(server: WebServer, browser: Any) -> None:
    """The page redraws with a game's hooks when it registers: Colovini registered before
    its page.css had arrived, and on a busy machine the page showed the board's ten
    Meridian buttons for a moment (make test-under-load caught the phone test below
    counting ten of them). The game now waits for its stylesheet. Checked without any
    timing: the link is added and, without that wait, the game registered in the same
    script, before the observer above runs."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    try:
        context.add_init_script(_WATCH_THE_STYLESHEET)
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function("window.__registeredWhenLinked !== undefined")
        assert page.evaluate("window.__registeredWhenLinked") is False
        page.wait_for_function("window.MeridianGames.registered.includes('colovini')")
        # Registered with its styles in: the board's own Meridian buttons stay hidden.
        assert page.evaluate(
            "document.querySelector(\"link[data-game='colovini']\").sheet !== null")
        page.wait_for_selector("#buttons .control[data-name^='meridian']", state="attached")
        assert page.locator("#buttons .control[data-name^='meridian']:visible").count() == 0
    finally:
        context.close()


def test_the_colovini_controls_on_a_phone(server: WebServer, open_page: Callable[..., Any],
                                         shoot: Any) -> None:
    require_axe()
    page = open_page(server.url, width=390, height=844, is_mobile=True, has_touch=True)
    page.wait_for_function("window.MeridianGames.registered.includes('colovini')")
    page.wait_for_selector("#inputs .input-group[data-field='meridian']")
    # One way to choose a meridian on the page: the question's row.
    assert page.locator("#buttons .control[data-name^='meridian']:visible").count() == 0
    row = page.eval_on_selector_all("#inputs .input-group[data-field='meridian'] .choice",
                                    "els => els.map(e => e.dataset.value)")
    assert row == state(page)["question"]["choices"]
    # No island's label under another island's band: the labels come after every band.
    order = page.evaluate("""(() => {
        const layer = document.querySelector('#board g.groups').parentNode;
        const kids = [...layer.children];
        return [kids.indexOf(layer.querySelector('g.groups')),
                kids.indexOf(layer.querySelector('g.group-labels'))];
    })()""")
    assert order[0] < order[1]
    boxes = page.eval_on_selector_all(".group-label", "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    failures = [f"meridian: {v['id']} at {v['targets']}" for v in blocking(page)]
    shoot(page, "meridian")

    # Choose a meridian, then a card if the table asks, then build on a lit city.
    page.click("#inputs .input-group[data-field='meridian'] .choice >> nth=0")
    page.wait_for_function("window.meridian.state.question === null || window.meridian.state.question.field !== 'meridian'")
    if state(page)["question"] and state(page)["question"]["field"] == "card":
        page.click("#inputs .input-group[data-field='card'] .choice >> nth=0")
        page.wait_for_function("window.meridian.state.question === null")
    site = state(page)["legal"][0]
    page.locator(f"g.site[data-site='{site}']").click()
    page.wait_for_function("window.meridian.state.moves.length === 1 || (window.meridian.state.question && window.meridian.state.question.field === 'height')")
    if not state(page)["moves"]:
        heights = state(page)["question"]["choices"]
        if len(heights) > 7:
            page.wait_for_selector("#inputs .stepper")
            assert page.locator("#inputs .input-group .choice[data-value]:visible").count() == 0
            # The value in the question's words ("2 high", issue 26).
            assert page.inner_text(".stepper-value") == f"{heights[0]} high"
            page.click(".stepper-up")
            assert page.inner_text(".stepper-value") == f"{heights[1]} high"
            failures += [f"stepper: {v['id']} at {v['targets']}" for v in blocking(page)]
            shoot(page, "stepper")
            page.click(".stepper-choose")
        else:
            page.click("#inputs .input-group[data-field='height'] .choice >> nth=0")
        page.wait_for_function("window.meridian.state.moves.length === 1")
    words = page.inner_text("#moves")
    assert "Ann: card " in words and "-high tower on meridian " in words, words
    # Finger-sized targets, and no sideways scrolling.
    small = page.evaluate("""[...document.querySelectorAll('#buttons .control, #inputs button')]
        .filter(e => e.getClientRects().length)
        .filter(e => { const r = e.getBoundingClientRect(); return r.width < 44 || r.height < 44; })
        .map(e => e.textContent)""")
    assert small == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shoot(page, "moved")
    assert failures == []
