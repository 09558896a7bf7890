"""A page a browser test leaves behind is handed to the next one only when nothing of the
first test is left in it (tests/web/conftest.py: ``kept_pages``, ``_clean``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.web.conftest import READY, Kept, _pages
from tests.web.tables import live

from meridian_table.web import serve

pytestmark = pytest.mark.browser


def _left(page: Any) -> list[Any]:
    """What the first test left: its local and session storage items and its cookie."""
    return list(page.evaluate("""() => [localStorage.getItem('left'),
        sessionStorage.getItem('left'), document.cookie.includes('left=behind')]"""))


def test_a_kept_page_comes_back_blank_with_nothing_of_the_last_test(
        browser: Any, tmp_path: Path) -> None:
    kept: Kept = {}
    errors: list[str] = []
    with live(tmp_path) as table, serve(table, port=0) as server:
        first = _pages(browser, kept, errors, READY)
        page = next(first)(server.url, width=800, height=600, color_scheme="dark")
        page.evaluate("""() => {
            localStorage.setItem('left', 'behind');
            sessionStorage.setItem('left', 'behind');
            document.cookie = 'left=behind; max-age=3600';
        }""")
        page.context.grant_permissions(["clipboard-read"])
        assert _left(page) == ["behind", "behind", True]
        with pytest.raises(StopIteration):
            next(first)  # the test ends: its page is cleaned and kept
        assert page.url == "about:blank"
        assert [p for p, _ in kept[next(iter(kept))]] == [page]

        # The next test with the same options gets that page, at its own size, and the
        # table's origin (same port) holds nothing of the last test.
        second = _pages(browser, kept, errors, READY)
        open_again = next(second)
        again = open_again(server.url, width=1000, height=700, color_scheme="dark")
        assert again is page
        assert again.viewport_size == {"width": 1000, "height": 700}
        assert _left(again) == [None, None, False]
        state = again.evaluate(
            "() => navigator.permissions.query({name: 'clipboard-read'}).then(p => p.state)")
        assert state != "granted"
        # Other options: a page of their own.
        light = open_again(server.url, color_scheme="light")
        assert light is not page
        # A page its test gave a listener of its own is closed, never handed on.
        light.on("console", lambda message: None)
        with pytest.raises(StopIteration):
            next(second)
        assert light.is_closed()
        assert not again.is_closed()
    assert errors == []
    for pages in kept.values():
        for kept_page, _ in pages:
            kept_page.context.close()
