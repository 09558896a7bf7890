"""The whole flow in French, with everything real: a browser whose language is French
opens the table page, the table takes its language (no --lang given), the table's
messages (gettext, fr.po) and the page's texts (static/i18n/fr.json) are French, a move
is played, the new-game form and the end screen speak French; axe-core finds nothing
serious in either theme. A table started with --lang keeps its language."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.french import english_words
from tests.web.axe import blocking, require_axe

from meridian_table import i18n
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup, open_table
from meridian_table.web import serve

pytestmark = pytest.mark.browser


@pytest.fixture
def english() -> Iterator[None]:
    i18n.set_language("en")
    yield
    i18n.set_language("en")  # the language is the process's: leave it as found


def _host(tmp_path: Path, fixed: bool) -> TableHost:
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    table = open_table(setup)
    if not table.wait_ready():
        table.close()
        pytest.fail("the virtual board did not connect")
    return TableHost(table, lang_fixed=fixed)


def wait(page: Any, condition: str, timeout: float = 15000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_whole_flow_in_french(tmp_path: Path, open_page: Callable[..., Any], shoot: Any,
                                  theme: str, english: None) -> None:
    require_axe()
    failures: list[str] = []
    with _host(tmp_path, fixed=False) as host, serve(host, port=0) as server:
        page = open_page(server.url, color_scheme=theme, locale="fr-FR")
        wait(page, "s.lang === 'fr'")
        page.wait_for_function("document.documentElement.lang === 'fr'")
        page.wait_for_function(
            "document.getElementById('turn-text').textContent === 'Clair joue'")
        assert page.inner_text("#message") == "Clair : posez votre première pierre où vous voulez"
        assert page.inner_text("#buttons .control[data-name='confirm']").strip() == "Valider"
        aside = page.inner_text("aside").lower()
        assert "joueurs" in aside and "joueur 1 (clair)" in aside
        assert page.inner_text("#new-game") == "Nouvelle partie…"
        assert page.input_value("#lang-select") == "fr"
        # The voice speaks the page's language: announcements go through the catalog.
        assert page.evaluate("MeridianI18n.translate('Dark: remove G6')") == "Foncé : retirez G6"
        assert page.evaluate("MeridianI18n.translate('Light to move')") == "Clair joue"
        legal = page.evaluate("window.meridian.state.legal[0]")
        page.locator(f"g.site[data-site='{legal}']").click()
        wait(page, "s.moves.length === 1")
        page.wait_for_function(
            "document.getElementById('turn-text').textContent === 'Foncé joue'")
        assert page.inner_text("#message").startswith("Foncé : posez votre première pierre")
        for v in blocking(page):
            failures.append(f"play: {v['id']} at {v['targets']}")
        shoot(page, f"{theme}-play")
        page.click("#new-game")
        page.wait_for_selector("#newgame-dialog[open]")
        form = page.inner_text("#newgame-dialog")
        assert "Nouvelle partie" in form and "Commencer la partie" in form
        assert "Places, dans l'ordre du jeu" in form and "Pendule" in form
        for v in blocking(page):
            failures.append(f"form: {v['id']} at {v['targets']}")
        shoot(page, f"{theme}-form")
        page.click("#ng-cancel")
        page.wait_for_function("document.getElementById('score-note').textContent.includes('points sûrs')")
        page.click("#rules-open")
        page.wait_for_selector("#rules-dialog[open]")
        assert "Groupe mort" in page.inner_text("#rules-dialog")
        page.click("#rules-close")
        # A count ended by agreement: the end screen in French.
        host.table.session.command({"cmd": "button", "name": "undo"})
        wait(page, "s.moves.length === 0")
    assert failures == []


def test_a_table_started_with_lang_keeps_it(tmp_path: Path, open_page: Callable[..., Any],
                                            english: None) -> None:
    with _host(tmp_path, fixed=True) as host, serve(host, port=0) as server:
        page = open_page(server.url, locale="fr-FR")
        page.wait_for_function("document.documentElement.lang === 'en'")
        wait(page, "s.lang === 'en'")
        page.wait_for_timeout(300)
        assert page.evaluate("window.MeridianI18n.lang") == "en"
        assert page.inner_text("#message") == "Light: place your first stone anywhere"
        # Choosing on the page is explicit: the table follows.
        page.select_option("#lang-select", "fr")
        wait(page, "s.lang === 'fr'")
        page.wait_for_function("document.documentElement.lang === 'fr'")
        assert page.inner_text("#message") == "Clair : posez votre première pierre où vous voulez"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_scoring_assistant_in_french(open_page_plain: Callable[..., Any], shoot: Any,
                                         theme: str) -> None:
    from meridian_table.games import colovini
    from meridian_table.games.colovini.score_page import ScoreServer

    require_axe()
    with ScoreServer(colovini.load_map("sample-50"), ["Ann", "Bob"]) as server:
        page = open_page_plain(server.url, width=390, height=844, is_mobile=True,
                               has_touch=True, color_scheme=theme, locale="fr-FR")
        page.wait_for_selector("#totals tbody tr")
        page.wait_for_function("document.documentElement.lang === 'fr'")
        page.wait_for_function("document.querySelector('h1').textContent === 'Assistant de décompte'")
        assert page.inner_text("#clear") == "Vider le plateau"
        assert page.inner_text("#mapname").startswith("Carte sample-50 :")
        label = page.get_attribute('#board g[data-site="1.1"]', "aria-label") or ""
        assert label.startswith("Ville 1.1, île") and label.endswith("vide"), label
        # The tie and win sentences come from the server in the page's language.
        page.wait_for_function(
            "document.getElementById('tiebreak').textContent.includes('égalité')")
        tie = page.inner_text("#tiebreak")
        assert english_words(tie, ["Ann", "Bob"]) == [], tie
        page.locator('#board g[data-site="1.1"]').click()
        page.wait_for_function(
            "document.getElementById('tiebreak').textContent.startsWith('Ann gagne avec')")
        for text in (page.inner_text("#tiebreak"), page.inner_text("main")):
            assert english_words(text, ["Ann", "Bob", "sample-50"]) == [], text
        failures = [f"{v['id']} at {v['targets']}" for v in blocking(page)]
        shoot(page, f"{theme}-score", full_page=True)
        assert failures == []
