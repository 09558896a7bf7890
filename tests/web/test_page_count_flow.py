"""Issue 26, item 7: Kato's count as one clear flow, explained on the page (English and
French), on the real table: a Kato table on the virtual board with its SQLite log.

- a visible "Count the score" action once a count can be offered (it was "Menu");
- while the count is offered the board rings each player's safe points in the LEDs'
  colours, and the legend says in words which colour is whose;
- one way to agree per player (the page's Confirm, which agreed for whoever had not yet,
  is greyed with the reason), "Play on" withdraws, and the count ends the game once every
  player agreed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.web.axe import blocking, require_axe
from tests.web.tables import kato_host
from tests.web.test_page_table_suite import ENGLISH, WORD

from meridian_table.table.lobby import TableHost
from meridian_table.web import WebServer, serve

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("count-flow")]

MENU = "#buttons .control[data-name='menu']"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableHost]:
    with kato_host(tmp_path_factory.mktemp("count")) as lobby:
        yield lobby


@pytest.fixture(scope="module")
def server(host: TableHost) -> Iterator[WebServer]:
    with serve(host, port=0) as running:
        yield running


def _until(host: TableHost, what: str, ok: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        s = dict(host.state())
        if ok(s):
            return s
        time.sleep(0.05)
    raise AssertionError(f"the table never reached {what}: {host.state()['message']!r}")


def _game_to_count(host: TableHost, seed: int) -> None:
    """A new game of two people with six stones or more played: a count is offered."""
    rng = random.Random(seed)
    for _attempt in range(5):
        answer = host.command({"cmd": "new_game", "game": "kato", "players": ["Ann", "Bob"],
                               "profile": "kato-80"})
        assert answer.get("ok"), answer
        s = _until(host, "a new game", lambda s: not s["moves"] and s["phase"] == "play")
        while len(s["moves"]) < 6 and s["result"] is None:
            n = len(s["moves"])
            if s["phase"] == "resync":
                host.command({"cmd": "toggle", "site": s["diff"]["next"]})
            elif s["phase"] == "play":
                host.command({"cmd": "toggle", "site": rng.choice(s["legal"])})
            elif s["phase"] == "pass":
                host.command({"cmd": "button", "name": "pass"})
            s = _until(host, f"move {n + 1}", lambda s, n=n: (
                len(s["moves"]) > n or s["phase"] == "resync" or s["result"] is not None)
                and s["phase"] != "thinking")
        s = _until(host, "a calm board", lambda s: s["phase"] in ("play", "ended", "resync"))
        while s["phase"] == "resync":
            host.command({"cmd": "toggle", "site": s["diff"]["next"]})
            s = _until(host, "the board fixed", lambda s: s["phase"] != "resync"
                       or s["diff"]["next"] is not None)
        if s["result"] is None and s["count"] is not None:
            return
    pytest.fail("no game reached a count in five tries")


def wait(page: Any, condition: str, timeout: float = 30000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_count_is_one_flow_explained_on_the_page(
        host: TableHost, server: WebServer, open_page: Any, lang: str) -> None:
    require_axe()
    _game_to_count(host, seed=7 if lang == "en" else 11)
    fr = lang == "fr"
    page = open_page(server.url, width=1280, height=800, locale="fr-FR" if fr else "en-GB")
    if fr:
        page.wait_for_function("window.MeridianI18n && window.MeridianI18n.lang === 'fr'")
        wait(page, "s.lang === 'fr'")
    wait(page, "s.count !== null && s.phase === 'play' && s.moves.length >= 6")
    # A visible action says what it does.
    label = page.inner_text(f"{MENU} .control-label")
    assert label == ("Compter les points" if fr else "Count the score"), label
    page.click(MENU)
    wait(page, "s.phase === 'adjudicate' && s.count.marks && s.count.marks.length >= 2")
    page.wait_for_selector(".legend .lg-count")
    assert page.inner_text("#turn-text") == ("Décompte proposé" if fr else "Count offered")
    s = page.evaluate("window.meridian.state")
    marks = s["count"]["marks"]
    # The legend explains each ring's colour in words, naming whose points they are.
    legend = page.eval_on_selector_all(
        ".legend .lg-count", "els => els.map(e => [e.textContent, "
        "e.querySelector('circle').getAttribute('stroke')])")
    assert len(legend) == len(marks)
    words = {"light": ("ambre", "Clair") if fr else ("amber", "Light"),
             "dark": ("bleu", "Foncé") if fr else ("blue", "Dark")}
    for mark, (text, stroke) in zip(marks, legend, strict=True):
        assert stroke == mark["colour"]
        if mark["seat"] in words:
            colour, seat = words[mark["seat"]]
            assert colour in text.split(":")[0] and seat in text, text
        # Each site of the mark carries a ring of that colour on the board.
        for site in mark["sites"][:5]:
            assert s["leds"][site]["effect"] == "S", site
    # Each ringed site is one of the count's: the rings are all explained.
    ringed = {site for site, led in s["leds"].items()}
    assert ringed == {site for m in marks for site in m["sites"]}
    if fr:  # the count's words, the legend and the header, all in French
        shown = " ".join(page.inner_text(sel) for sel in ("#inputs", ".legend", "#turn",
                                                          "#message", "#buttons"))
        english = sorted({w for w in WORD.findall(shown) if w.lower() in ENGLISH}
                         - {"Ann", "Bob"})
        assert english == [], f"English on the French page: {english}\n{shown}"
    serious = [f"{v['id']} at {v['targets']}" for v in blocking(page)]
    assert serious == [], serious
    # One way to agree per player: their own button; the page's Confirm says why not.
    agree = page.locator("#inputs [data-agree]")
    assert agree.count() == 2
    assert page.get_attribute("#buttons .control[data-name='confirm']", "aria-disabled") == "true"
    assert page.locator(MENU).count() == 0  # "Play on" in the count's panel instead
    how = page.inner_text("#inputs .count-how")
    assert ("légende" if fr else "legend") in how
    # Play on withdraws the count: the rings and their legend go.
    page.click("#inputs .count-play-on")
    wait(page, "s.phase === 'play'")
    page.wait_for_selector(".legend .lg-count", state="detached")
    page.click(MENU)
    wait(page, "s.phase === 'adjudicate'")
    # Ann agrees; her button says so, and pressing it again says what is awaited.
    page.click("#inputs [data-agree='light']")
    wait(page, "s.agreed.includes('light')")
    page.wait_for_function("document.querySelector(\"#inputs [data-agree='light']\")"
                           ".getAttribute('aria-pressed') === 'true'")
    assert page.inner_text("#inputs [data-agree='light']") == (
        "Ann a accepté" if fr else "Ann has agreed")
    page.click("#inputs [data-agree='light']")
    page.wait_for_selector("#toast:not([hidden])")
    assert ("attente" if fr else "waiting") in page.inner_text("#toast")
    page.click("#inputs [data-agree='dark']")
    wait(page, "s.result !== null")
    result = page.evaluate("window.meridian.state.result")
    assert result["adjudicated"] is True
    page.wait_for_selector(".legend .lg-count", state="detached")
    if fr:
        host.command({"cmd": "language", "lang": "en"})
