"""The Colovini scoring-assistant page: its JSON API in-process, and a real browser run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from meridian_table.games import colovini
from meridian_table.games.colovini.score_page import ScorePageError, ScoreServer, create_app

BOARD = colovini.load_map("sample-50")
PLAYERS = ["Orange", "Black", "Brown", "Grey"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# The rule book's Fig. D on the sample map's islands A-D (see the shipped sample-50 map)
FIG_D = {
    "1.1": "Black", "3.1": "Grey",
    "2.3": "Brown",
    "4.3": "Orange", "6.3": "Orange", "5.3": "Black",
    "2.2": "Grey", "1.2": "Grey", "3.2": "Black", "4.1": "Black",
}


# the page numbers its score requests; it is settled once the last one has been shown
SETTLED = "document.body.dataset.scored === document.body.dataset.asked"


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(BOARD, PLAYERS)) as test_client:
        yield test_client


def test_setup_and_map_svg(client: TestClient) -> None:
    setup = client.get("/api/setup").json()
    assert setup["players"] == PLAYERS and len(setup["map"]["islands"]) == 13
    svg = client.get("/api/map.svg").text
    assert svg.count('class="city"') == 50 and 'data-city="10.5"' in svg
    assert "score.js" in client.get("/").text
    assert client.get("/static/score.js").status_code == 200


def test_score_api_gives_the_fig_d_breakdown(client: TestClient) -> None:
    reply = client.post("/api/score", json={"garrisons": FIG_D, "players": PLAYERS})
    assert reply.status_code == 200
    data = reply.json()
    assert data["totals"] == {"Orange": 0, "Black": 0, "Brown": 3, "Grey": 5}
    by_key = {i["island"]: i for i in data["islands"]}
    assert by_key["A"]["tied"] and by_key["C"]["tied"]
    assert (by_key["D"]["owner"], by_key["D"]["points"]) == ("Grey", 5)


def test_score_api_breaks_ties_with_pieces_left(client: TestClient) -> None:
    body = {"garrisons": {"2.3": "Orange", "8.1": "Black"}, "players": PLAYERS,
            "pieces_left": {"Orange": 2, "Black": 6, "Brown": 0, "Grey": 1}}
    data = client.post("/api/score", json=body).json()
    assert data["winners"] == ["Black"] and "most pieces left" in data["tie_break"]


@pytest.mark.parametrize(("body", "message"), [
    ({"garrisons": {"11.1": "Orange"}, "players": PLAYERS}, "'11.1'"),
    ({"garrisons": {"1.1": "Zed"}, "players": PLAYERS}, "'Zed'"),
    ({"garrisons": [], "players": PLAYERS}, "must map city ids"),
    ({"garrisons": {}, "players": ["A", "A"]}, "different names"),
])
def test_score_api_refuses_bad_input_by_name(client: TestClient, body: object, message: str) -> None:
    reply = client.post("/api/score", json=body)
    assert reply.status_code == 400 and message in reply.json()["error"]


def test_bad_players_are_refused_at_start() -> None:
    with pytest.raises(ScorePageError, match="different names"):
        create_app(BOARD, ["Ann", "Ann"])


@pytest.mark.browser
def test_fig_d_entered_by_clicking_gives_the_right_totals(browser: Any) -> None:
    with ScoreServer(BOARD, PLAYERS) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        try:
            page = context.new_page()
            page.goto(server.url)
            page.wait_for_selector("#board circle.city")
            page.wait_for_selector("#totals tbody tr")
            for city, owner in FIG_D.items():
                # a click cycles Orange -> Black -> Brown -> Grey -> empty
                for _ in range(PLAYERS.index(owner) + 1):
                    page.click(f'#board circle[data-city="{city}"]')
                assert page.get_attribute(f'#board circle[data-city="{city}"]', "data-owner") == owner
            page.wait_for_function(SETTLED)
            totals = {
                row.get_attribute("data-player"): int(row.query_selector("td.points").inner_text())
                for row in page.query_selector_all("#totals tbody tr")
            }
            assert totals == {"Orange": 0, "Black": 0, "Brown": 3, "Grey": 5}
            assert page.inner_text('#islands tr[data-island="A"] td.owner') == "tied"
            assert page.inner_text('#islands tr[data-island="C"] td.owner') == "tied"
            assert page.inner_text('#islands tr[data-island="D"] td.owner') == "Grey"
            assert "Grey wins with 5 points" in page.inner_text("#tiebreak")
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "colovini-score-fig-d.png"), full_page=True)
            # one more click on a Grey city of D empties it: D becomes Black's 2 vs Grey's 2 -> tied
            page.click('#board circle[data-city="1.2"]')
            page.wait_for_function(SETTLED)
            assert page.inner_text('#islands tr[data-island="D"] td.owner') == "tied"
        finally:
            context.close()


@pytest.mark.browser
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_scoring_assistant_on_a_phone(
    open_page_plain: Any, theme: str, shoot: Any
) -> None:
    """At 390 px wide every city is a tap target of at least 44 px, empty cities are
    quiet dots (not red), and axe finds nothing serious, in both themes."""
    from tests.web.axe import blocking, require_axe

    require_axe()
    with ScoreServer(BOARD, PLAYERS) as server:
        page = open_page_plain(server.url, width=390, height=844, is_mobile=True,
                               has_touch=True, color_scheme=theme)
        page.wait_for_selector("#totals tbody tr")
        assert page.get_attribute("html", "data-theme") == theme
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.get_attribute("#board", "data-orientation") == "turned"
        sizes = page.eval_on_selector_all(
            "#board circle.city",
            "els => els.map(e => { const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); })",
        )
        assert len(sizes) == len(BOARD.cities) and min(sizes) >= 44, min(sizes)
        # Empty cities: a small dot in the board's line colour, nothing red.
        fills = set(page.eval_on_selector_all(
            "#board .empty-dot", "els => els.map(e => getComputedStyle(e).fill)"))
        assert fills and not any(f.startswith("rgb(2") and f.endswith(", 0)") for f in fills), fills
        assert "rgb(230, 57, 70)" not in fills  # the old alarming #e63946
        page.locator('#board circle[data-city="1.1"]').tap()
        page.locator('#board circle[data-city="1.2"]').tap()
        page.locator('#board circle[data-city="1.2"]').tap()
        page.wait_for_function(SETTLED)
        assert page.get_attribute('#board circle[data-city="1.2"]', "data-owner") == "Black"
        assert page.get_attribute('#board g[data-site="1.2"]', "aria-label").endswith("held by Black")
        failures = [f"{v['impact']} {v['id']} at {v['targets']}" for v in blocking(page)]
        assert failures == []
        shoot(page, f"phone-{theme}", full_page=True)
        desktop = open_page_plain(server.url, width=1400, height=900, color_scheme=theme)
        desktop.wait_for_selector("#totals tbody tr")
        assert desktop.get_attribute("#board", "data-orientation") == "upright"
        assert [f"{v['impact']} {v['id']}" for v in blocking(desktop)] == []
        shoot(desktop, f"desktop-{theme}")
