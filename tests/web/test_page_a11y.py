"""Light and dark themes, and axe-core's verdict on every state of the table page in both.

axe-core comes from the npm registry (package.json; `make test` runs `npm ci`) and is
injected by the test: the page never loads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.web.axe import blocking, require_axe
from tests.web.fakes import TEST_SPEC, colovini_fake, kato_fake

from meridian_table.web import serve
from meridian_table.web.fake import FakeSession

pytestmark = pytest.mark.browser

THEMES = ("light", "dark")


def background(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.documentElement).backgroundColor"))


def test_the_theme_follows_the_system_and_the_toggle_is_remembered(
    open_page: Callable[..., Any], shoot: Any
) -> None:
    fake = kato_fake()
    fake.place("C3")
    with serve(fake, port=0) as server:
        page = open_page(server.url, color_scheme="light")
        assert page.get_attribute("html", "data-theme") == "light"
        light = background(page)
        assert page.get_attribute("#theme-toggle", "aria-pressed") == "false"
        shoot(page, "light")
        page.click("#theme-toggle")
        page.wait_for_selector("html[data-theme='dark']")
        assert background(page) != light
        assert page.get_attribute("#theme-toggle", "aria-pressed") == "true"
        page.reload()
        page.wait_for_function("window.meridian && window.meridian.renders > 0")
        assert page.get_attribute("html", "data-theme") == "dark"  # remembered
        shoot(page, "dark-chosen")
        dark = open_page(server.url, color_scheme="dark")
        assert dark.get_attribute("html", "data-theme") == "dark"
        assert background(dark) == background(page)


def check(page: Any, what: str, failures: list[str]) -> None:
    for v in blocking(page):
        failures.append(f"{what}: {v['impact']} {v['id']} ({v['help']}) at {v['targets']}")


@pytest.mark.parametrize("theme", THEMES)
def test_axe_finds_nothing_serious_on_any_table_page(
    open_page: Callable[..., Any], theme: str, shoot: Any
) -> None:
    require_axe()
    failures: list[str] = []
    # Kato through the fake: play, a mistake to fix, an automaton, the pie, the end.
    fake = kato_fake(pie=True, seats_kind={"dark": "random"})
    with serve(fake, port=0) as server:
        page = open_page(server.url, color_scheme=theme)
        check(page, "kato play", failures)
        fake.place("C3")
        fake.place("D3")
        page.wait_for_function("window.meridian.state.phase === 'resync'")
        check(page, "kato resync", failures)
        fake.place("D3")
        fake.place("F6")
        page.wait_for_function("window.meridian.state.phase === 'pie-choice'")
        check(page, "kato pie", failures)
        fake.command({"cmd": "choose", "field": "pie", "value": "keep"})
        fake.set_automaton("light", "executing", action="A1", words="Put a light stone on A1")
        page.wait_for_selector("#automaton:not([hidden])")
        page.click("#link-details summary")
        check(page, "kato automaton and link details", failures)
        fake.clear_automaton()
        fake.finish("light", "no dark stones left")
        page.wait_for_selector("#result:not([hidden])")
        check(page, "kato ended", failures)
        shoot(page, f"{theme}-ended")
        page.click("#moves button[data-ply='1']")
        page.wait_for_selector("#replay-bar:not([hidden])")
        check(page, "kato replay", failures)
        phone = open_page(server.url, width=390, height=844, is_mobile=True, has_touch=True,
                          color_scheme=theme)
        check(phone, "kato phone", failures)
    # Colovini's own drawing and a game the page has never heard of.
    with serve(colovini_fake(islands=True), port=0) as server:
        page = open_page(server.url, color_scheme=theme)
        page.wait_for_function("window.MeridianGames.registered.includes('colovini')")
        check(page, "colovini", failures)
        shoot(page, f"{theme}-colovini")
    with serve(FakeSession(TEST_SPEC, players=("Ann", "Bob", "Cid")), port=0) as server:
        page = open_page(server.url, color_scheme=theme)
        check(page, "test game", failures)
    assert failures == []
