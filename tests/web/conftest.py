"""Fixtures for the page's browser tests: Debian's Chromium driven by Playwright."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def shoot(request: pytest.FixtureRequest) -> Callable[[Any, str], Path]:
    """``shoot(page, "what")`` saves test-artifacts/<test>-<what>.png and returns its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    test = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    def save(page: Any, what: str, full_page: bool = False) -> Path:
        path = ARTIFACTS / f"{test}-{what}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return save


@pytest.fixture
def page_errors() -> list[str]:
    """JavaScript errors seen by pages opened with ``open_page``; checked empty at the end."""
    return []


def computed(page: Any, selector: str, prop: str) -> str:
    """The computed style ``prop`` of the element ``selector`` finds, read in one step: a
    handle taken first could be replaced before the read (the board is rebuilt when a
    game's own page code arrives), and a replaced element has no computed style ('')."""
    return str(page.evaluate(
        "([s, p]) => getComputedStyle(document.querySelector(s))[p]", [selector, prop]))


#: A table's page is ready once it drew a state, is connected, and the game's own page code
#: (PageSpec.script), if it has any, registered: the board and the scores are redrawn with
#: the game's hooks when it does, so a test reading them before could hold replaced elements.
READY = """window.meridian && window.meridian.renders > 0 && window.meridian.connected && (() => {
    const sp = window.meridian.state && window.meridian.state.spec;
    return !(sp && sp.page && sp.page.script) || window.MeridianGames.registered.includes(sp.id);
})()"""


#: Kept pages by their context's options: each with its listener counts when it was new.
Kept = dict[str, list[tuple[Any, dict[str, int]]]]


@pytest.fixture(scope="session")
def kept_pages(browser: Any) -> Iterator[Kept]:
    """Pages a worker's earlier tests left clean, by the options of their context
    (locale, colour scheme, touch...): ``open_page`` takes one before it opens a new one.

    Opening a page in a new context costs Chromium a renderer process and about 1.2 s of
    CPU time; loading the next table's URL in a kept page costs about 0.7 (docs/TESTING.md).
    A kept page is handed on only after :func:`_clean` left nothing of its test behind."""
    kept: Kept = {}
    yield kept
    for pages in kept.values():
        for page, _ in pages:
            with contextlib.suppress(Exception):
                page.context.close()


def _listeners(page: Any) -> dict[str, int]:
    """How many listeners each of ``page``'s events has (Playwright's own among them)."""
    impl = page._impl_obj  # Playwright's page behind the sync API
    return {event: len(impl.listeners(event)) for event in impl.event_names()}


def _clean(page: Any, origins: set[str], listeners: dict[str, int]) -> bool:
    """Leave ``page`` as a new one (blank, no storage, cookies or permissions of its test):
    True when it can be handed to another test, False when it must be closed (the test
    closed it, or gave it listeners or routes of its own: ``listeners`` are the counts it
    had when it was opened)."""
    impl = page._impl_obj
    if page.is_closed() or impl._routes or impl._web_socket_routes or _listeners(page) != listeners:
        return False
    try:
        page.goto("about:blank")
        session = page.context.new_cdp_session(page)
        for origin in origins:
            session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        session.detach()
        page.context.clear_cookies()
        page.context.clear_permissions()
    except Exception:  # a page that will not clean up is closed, never handed on
        return False
    return True


def _pages(browser: Any, kept: Kept, page_errors: list[str],
           ready: str | None) -> Iterator[Callable[..., Any]]:
    """The machinery behind ``open_page`` and ``open_page_plain``."""
    opened: list[tuple[Any, str, dict[str, int], set[str], Callable[..., None],
                       Callable[..., None]]] = []

    def open_(url: str, width: int = 1280, height: int = 900, **options: Any) -> Any:
        key = json.dumps(options, sort_keys=True)
        spare = kept.get(key)
        if spare:
            page, listeners = spare.pop()
            page.set_viewport_size({"width": width, "height": height})
        else:
            context = browser.new_context(viewport={"width": width, "height": height}, **options)
            page = context.new_page()
            listeners = _listeners(page)
        origins: set[str] = set()

        def on_error(exc: Any) -> None:
            page_errors.append(str(exc))

        def on_navigated(frame: Any) -> None:
            parts = urlsplit(frame.url)
            if parts.scheme in ("http", "https"):
                origins.add(f"{parts.scheme}://{parts.netloc}")

        page.on("pageerror", on_error)
        page.on("framenavigated", on_navigated)
        opened.append((page, key, listeners, origins, on_error, on_navigated))
        page.goto(url)
        if ready:
            page.wait_for_function(ready)
        return page

    yield open_
    for page, key, listeners, origins, on_error, on_navigated in opened:
        if not page.is_closed():
            page.remove_listener("pageerror", on_error)
            page.remove_listener("framenavigated", on_navigated)
        if _clean(page, origins, listeners):
            kept.setdefault(key, []).append((page, listeners))
        else:
            with contextlib.suppress(Exception):
                page.context.close()
    assert page_errors == [], f"JavaScript errors on the page: {page_errors}"


@pytest.fixture
def open_page(browser: Any, kept_pages: Kept, page_errors: list[str]
              ) -> Iterator[Callable[..., Any]]:
    """``open_page(url, width=1280, height=900, **context_options)``: a page as new (a
    worker's kept one, cleaned, or a fresh one), loaded and showing a state."""
    yield from _pages(browser, kept_pages, page_errors, READY)


@pytest.fixture
def open_page_plain(browser: Any, kept_pages: Kept, page_errors: list[str]
                    ) -> Iterator[Callable[..., Any]]:
    """``open_page_plain(url, width=1280, height=900)``: a page as new on any of the
    project's pages (the scoring assistant too), loaded; JavaScript errors are checked at
    the end."""
    yield from _pages(browser, kept_pages, page_errors, None)
