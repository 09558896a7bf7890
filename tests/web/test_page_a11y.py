"""Light and dark themes, and axe-core's verdict on every state of the table page in both.

axe-core comes from the npm registry (package.json; `make test` runs `npm ci`) and is
injected by the test: the page never loads it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.web.axe import blocking, require_axe
from tests.web.tables import held_policies, live

from meridian_table.web import serve

pytestmark = pytest.mark.browser

THEMES = ("light", "dark")


def background(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.documentElement).backgroundColor"))


def test_the_theme_follows_the_system_and_the_toggle_is_remembered(
    tmp_path: Path, open_page: Callable[..., Any], shoot: Any
) -> None:
    with live(tmp_path) as fake, serve(fake, port=0) as server:
        fake.play("C3")
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
    tmp_path: Path, open_page: Callable[..., Any], theme: str, shoot: Any
) -> None:
    require_axe()
    failures: list[str] = []
    # Kato on the real table: play, the pie, a mistake to fix, an automaton, the end.
    policies = held_policies()
    held = policies["random"]
    with live(tmp_path, options={"pie": True}, policies=policies) as fake, \
            serve(fake, port=0) as server:
        page = open_page(server.url, color_scheme=theme)
        check(page, "kato play", failures)
        fake.play("C3", "F6")
        page.wait_for_function("window.meridian.state.question !== null")
        check(page, "kato pie", failures)
        # Swap: with Keep, the pie's swap stays a legal action for the chooser, and the
        # random automaton could take it at once (nothing to carry out on the board).
        assert fake.command({"cmd": "choose", "field": "pie", "value": "swap"})["ok"]
        state = fake.wait(lambda s: s["phase"] == "play", "play after the pie")
        mover = state["to_move"]
        wrong = next(p["id"] for p in state["board"]["sites"]
                     if not p["sensed"] and p["id"] not in state["legal"])
        fake.place(wrong)
        page.wait_for_function("window.meridian.state.phase === 'resync'")
        check(page, "kato resync", failures)
        fake.lift(wrong)
        assert fake.command({"cmd": "seat", "seat": mover, "automaton": "random"})["ok"]
        assert held.thinking.wait(30)
        held.release.set()
        fake.wait(lambda s: (s["automaton"] or {}).get("status") == "executing",
                  f"the automaton's move to carry out (the page sent {fake.commands[-4:]})")
        page.wait_for_selector("#automaton[data-status='executing']")
        page.click("#link-details summary")
        check(page, "kato automaton and link details", failures)
        fake.carry_out()
        person = next(seat for seat in state["seats"] if seat != mover)
        assert fake.command({"cmd": "resign", "player": person})["ok"]
        fake.wait(lambda s: s["phase"] == "ended", "the end")
        page.wait_for_selector("#result:not([hidden])")
        check(page, "kato ended", failures)
        shoot(page, f"{theme}-ended")
        page.click("#moves button[data-ply='1']")
        page.wait_for_selector("#replay-bar:not([hidden])")
        check(page, "kato replay", failures)
        phone = open_page(server.url, width=390, height=844, is_mobile=True, has_touch=True,
                          color_scheme=theme)
        check(phone, "kato phone", failures)
    # Colovini's own drawing and a game the page has never heard of (five in a row,
    # installed from its own package with no page script).
    with live(tmp_path, game="colovini", db="colovini.sqlite3") as fake, \
            serve(fake, port=0) as server:
        page = open_page(server.url, color_scheme=theme)
        page.wait_for_function("window.MeridianGames.registered.includes('colovini')")
        check(page, "colovini", failures)
        shoot(page, f"{theme}-colovini")
    with live(tmp_path, game="five", db="five.sqlite3") as fake, serve(fake, port=0) as server:
        page = open_page(server.url, color_scheme=theme)
        check(page, "five in a row", failures)
    assert failures == []
