"""Issue 26, items 5 and 9 (what was left): the end screen on a desktop (1280x800), with
everything real (the virtual board, the session, the SQLite log).

- the score chart over the game survives a reload, and shows on a page that did not
  watch the game (it came from what the page saw);
- choosing a review mark keeps the board, and the marked points, in view.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.web.test_page_kato_game import Player, _logged, _open
from tests.web.test_page_review import QUICK, play_the_short_game

from meridian_table.web import serve

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}


def _chart_lines(page: Any) -> int:
    page.wait_for_selector("#summary:not([hidden])")
    page.wait_for_function("!document.getElementById('summary-chart').hidden", timeout=15000)
    return int(page.locator("#summary-chart polyline.chart-line").count())


def _in_view(page: Any, selector: str) -> list[str]:
    """The elements of ``selector`` (by site) not wholly inside the window."""
    return list(page.eval_on_selector_all(selector, """els => els.filter(e => {
        const r = e.getBoundingClientRect();
        return r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth;
    }).map(e => e.dataset.site || e.id)"""))


def test_the_end_screen_keeps_its_chart_and_the_review_keeps_the_board_in_view(
        tmp_path: Path, open_page: Any, shoot: Any) -> None:
    with _open(tmp_path) as table, serve(_logged(table), port=0) as server:
        page = open_page(server.url, **DESKTOP)
        play_the_short_game(Player(page))
        assert _chart_lines(page) == 2
        # A reload, and a page that never saw the game: the chart is drawn from the log.
        page.reload()
        page.wait_for_function("window.meridian && window.meridian.renders > 0 && "
                               "window.meridian.state && window.meridian.state.result")
        assert _chart_lines(page) == 2
        fresh = open_page(server.url, **DESKTOP)
        assert _chart_lines(fresh) == 2
        points = fresh.eval_on_selector("#summary-chart polyline.chart-line",
                                        "l => l.getAttribute('points').split(' ').length")
        assert points == 7  # the start and each of the six moves

        # The review: choosing a mark shows its position with the board in view.
        page.evaluate(QUICK)
        page.click("#review-this-game")
        page.wait_for_selector("#review-marks .review-mark", timeout=60000)
        marks = page.locator("#review-marks .review-mark")
        for n in range(marks.count()):
            marks.nth(n).click()
            page.wait_for_selector("g.site.review-best")
            page.wait_for_timeout(100)  # any scroll the choice causes has happened
            assert _in_view(page, "#board") == [], f"mark {n + 1}: the board is out of view"
            assert _in_view(page, "g.site.review-best, g.site.review-played") == []
            # The chosen mark itself is in view too.
            assert page.evaluate("""(() => { const r = document.querySelector(
                '#review-marks .review-mark[aria-pressed="true"]').getBoundingClientRect();
                return r.top >= 0 && r.bottom <= innerHeight; })()""")
        shoot(page, "review-mark")
