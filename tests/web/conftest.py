"""Fixtures for the page's browser tests: Debian's Chromium driven by Playwright."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


@pytest.fixture
def open_page(browser: Any, page_errors: list[str]) -> Iterator[Callable[..., Any]]:
    """``open_page(url, width=1280, height=900)``: a fresh page, loaded and showing a state."""
    contexts: list[Any] = []

    def open_(url: str, width: int = 1280, height: int = 900, **options: Any) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: page_errors.append(str(exc)))
        page.goto(url)
        page.wait_for_function("window.meridian && window.meridian.renders > 0 && window.meridian.connected")
        return page

    yield open_
    for context in contexts:
        context.close()
    assert page_errors == [], f"JavaScript errors on the page: {page_errors}"


@pytest.fixture
def open_page_plain(browser: Any, page_errors: list[str]) -> Iterator[Callable[..., Any]]:
    """``open_page_plain(url, width=1280, height=900)``: a fresh page on any of the project's
    pages (the scoring assistant too), loaded; JavaScript errors are checked at the end."""
    contexts: list[Any] = []

    def open_(url: str, width: int = 1280, height: int = 900, **options: Any) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: page_errors.append(str(exc)))
        page.goto(url)
        return page

    yield open_
    for context in contexts:
        context.close()
    assert page_errors == [], f"JavaScript errors on the page: {page_errors}"
