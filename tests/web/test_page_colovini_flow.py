"""Issue 26, item 8: Colovini's turn in words, on the real table (three players on the
virtual board's 40-city side, with its SQLite log), in English and French.

- the prompts and answers speak words, not the internal notation ("2.1 h2-40",
  "(board buttons: Confirm = 8)");
- the move list says which tower a push moved;
- the mover's face-up cards are shown as cards (BoardGameArena shows the hand);
- pressing Pass again says what is asked instead of doing nothing visible.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.axe import blocking, require_axe

from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup, open_table
from meridian_table.web import WebServer, serve

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("colovini-flow")]

PLAYERS = ["Ann", "Bob", "Cid"]
#: A deal where Orange and Black share a meridian on their first turn (Black pushes).
SEED = 2
#: The notation the page must not show a player: a city "3.2", a height span "h2-40", a
#: button assignment "Confirm = 8", "plus/minus".
NOTATION = re.compile(r"\b\d+\.\d+\b|\bh\d+(-\d+)?\b|\w+ = \w+|plus/minus")


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableHost]:
    db: Path = tmp_path_factory.mktemp("colovini") / "games.sqlite3"
    table = open_table(TableSetup(game="colovini", board="sim", profile="colovini-40",
                                  players=tuple(PLAYERS), db=str(db), settle_s=0.03))
    if not table.wait_ready():
        table.close()
        pytest.fail("the virtual board did not connect")
    with TableHost(table) as lobby:
        yield lobby


@pytest.fixture(scope="module")
def server(host: TableHost) -> Iterator[WebServer]:
    with serve(host, port=0) as running:
        yield running


def wait(page: Any, condition: str, timeout: float = 30000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


def state(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("window.meridian.state"))


def request(page: Any, cmd: dict[str, Any]) -> dict[str, Any]:
    return dict(page.evaluate("(cmd) => window.meridian.request(cmd, null, 30000)", cmd))


def _open(host: TableHost, server: WebServer, open_page: Any, lang: str) -> Any:
    answer = host.command({"cmd": "new_game", "game": "colovini", "players": PLAYERS,
                           "profile": "colovini-40", "options": {"seed": SEED}})
    assert answer.get("ok"), answer
    page = open_page(server.url, width=1280, height=800,
                     locale="fr-FR" if lang == "fr" else "en-GB")
    page.wait_for_function("window.MeridianGames && "
                           "window.MeridianGames.registered.includes('colovini')")
    if lang == "fr":
        page.wait_for_function("window.MeridianI18n && window.MeridianI18n.lang === 'fr'")
        wait(page, "s.lang === 'fr'")
    wait(page, "s.game === 'colovini' && s.moves.length === 0 && s.question !== null")
    return page


def _shown(page: Any) -> str:
    """The message, the question's words and the move list, as a player reads them."""
    return "\n".join(page.inner_text(sel) for sel in ("#message", "#inputs", "#moves"))


def _no_notation(page: Any, where: str) -> None:
    text = _shown(page)
    found = [m.group(0) for m in NOTATION.finditer(text)]
    assert not found, f"{where}: notation on the page {found}:\n{text}"


def _meridian(page: Any, meridian: int) -> None:
    """Choose ``meridian`` with the question's button, and the card if asked."""
    page.click(f"#inputs .input-group[data-field='meridian'] .choice[data-value='{meridian}']")
    wait(page, "!s.question || s.question.field !== 'meridian'")
    s = state(page)
    if s["question"] and s["question"]["field"] == "card":
        page.click("#inputs .input-group[data-field='card'] .choice >> nth=0")
        wait(page, "!s.question || s.question.field !== 'card'")


def _height(page: Any) -> None:
    """The lowest height offered, with the stepper's Choose button (the list is long)."""
    page.wait_for_selector("#inputs .input-group[data-field='height'] .stepper-choose")
    page.click("#inputs .input-group[data-field='height'] .stepper-choose")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_colovini_turn_speaks_words_shows_the_hand_and_the_push(
        host: TableHost, server: WebServer, open_page: Any, lang: str) -> None:
    require_axe()
    fr = lang == "fr"
    page = _open(host, server, open_page, lang)
    s = state(page)
    # The mover's hand as cards, with the meridians each opens.
    page.wait_for_selector("#colovini-hand .hand-card")
    cards = page.eval_on_selector_all("#colovini-hand .hand-card",
                                      "els => els.map(e => e.dataset.card)")
    assert cards == s["board"]["hand"]["cards"] and len(cards) == 2, cards
    assert "Ann" in (page.text_content("#colovini-hand h2") or "")
    assert ("méridien" if fr else "meridian") in page.inner_text("#colovini-hand .hand-card")
    _no_notation(page, "the first question")
    serious = [f"{v['id']} at {v['targets']}" for v in blocking(page)]
    assert serious == [], serious
    # Orange and Black share a meridian in this deal: Orange builds on its first city,
    # then Black builds north of it, pushing Orange's tower south.
    mine = {int(c) for c in s["question"]["choices"]}
    _meridian(page, max(mine))
    s = state(page)
    meridian = max(mine)
    _no_notation(page, "the meridian chosen")
    assert ("ville 1" if fr else "city 1") in s["message"], s["message"]
    request(page, {"cmd": "toggle", "site": f"{meridian}.1"})
    wait(page, "s.question && s.question.field === 'height'")
    _no_notation(page, "the height question")
    label = page.text_content("#inputs .input-group[data-field='height'] .choice[data-value='2']")
    assert label == ("2 de haut" if fr else "2 high"), label
    _height(page)
    wait(page, "s.moves.length === 1")
    s = state(page)
    black = {int(c) for c in s["question"]["choices"]}
    assert meridian in black, (meridian, black)
    _meridian(page, meridian)
    # The new tower north of Orange's: the occupied cities are now 1 and 2.
    request(page, {"cmd": "toggle", "site": f"{meridian}.2"})
    wait(page, "s.question && (s.question.field === 'where' || s.question.field === 'height')")
    s = state(page)
    _no_notation(page, f"the {s['question']['field']} question")
    if s["question"]["field"] == "where":
        page.click(f"#inputs .input-group[data-field='where'] .choice[data-value='{meridian}.1']")
        wait(page, "s.moves.length === 2 || (s.question && s.question.field === 'height')")
    s = state(page)
    if len(s["moves"]) < 2:
        _height(page)
        wait(page, "s.moves.length === 2")
    words = page.inner_text("#moves li:nth-child(2)")
    pushed = ("poussant la tour de Orange de la ville 1 à la ville 2" if fr
              else "pushing Orange's tower from city 1 to city 2")
    assert pushed in words, words
    _no_notation(page, "the move list")
    # Brown passes: the card question, then Pass again says what is asked.
    wait(page, "s.question && s.question.field === 'meridian'")
    page.click("#buttons .control[data-name='pass']")
    wait(page, "s.question && s.question.field === 'card'")
    _no_notation(page, "the card question of a pass")
    page.click("#buttons .control[data-name='pass']")
    page.wait_for_selector("#toast:not([hidden])")
    toast = page.inner_text("#toast")
    assert ("déjà" if fr else "already") in toast, toast
    page.click("#inputs .input-group[data-field='card'] .choice >> nth=0")
    wait(page, "s.moves.length === 3")
    if fr:
        host.command({"cmd": "language", "lang": "en"})
