"""The move list on the page: a new move adds one button and leaves the others as they
were (a long Empire game rebuilt and measured the whole list on every state, most of
the page's work on a kiosk), a move taken back takes its button away, a replay marks
its move, and the list scrolls itself to the newest move, never the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.web.tables import live

from meridian_table.web import serve

pytestmark = pytest.mark.browser

BUTTONS = "Array.from(document.querySelectorAll('#moves li button'))"


def labels(page: Any) -> list[str]:
    return list(page.evaluate(f"{BUTTONS}.map(b => b.querySelector('.mv-text').textContent)"))


def test_a_move_adds_one_button_and_an_undo_takes_it_away(tmp_path: Path, browser: Any) -> None:
    with live(tmp_path) as fake, serve(fake, port=0) as server:
        context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function("window.meridian && window.meridian.renders > 0")
        fake.play("E3", "G3")
        page.wait_for_function(f"{BUTTONS}.length === 2")
        # Mark the buttons drawn so far: a new move must leave them in place.
        page.evaluate(f"{BUTTONS}.forEach(b => {{ b.dataset.kept = 'yes'; }})")
        fake.play("E7", "E4")
        page.wait_for_function(f"{BUTTONS}.length === 4")
        assert page.evaluate(f"{BUTTONS}.map(b => b.dataset.kept || '')") == ["yes", "yes", "", ""]
        assert labels(page)[:2] == ["E3", "G3"]
        assert page.evaluate(f"{BUTTONS}.map(b => b.dataset.ply)") == ["1", "2", "3", "4"]
        assert page.evaluate("document.querySelectorAll('#moves [aria-current]').length") == 0
        # The newest move is in the list's view, and the page itself did not scroll.
        page.wait_for_function(
            "(() => { const l = document.getElementById('moves'); const last = l.lastElementChild;"
            " return last.offsetTop + last.offsetHeight <= l.scrollTop + l.clientHeight + 1; })()")
        assert page.evaluate("window.scrollY") == 0

        # A replay marks its move; back to the live game, no move is marked.
        page.click("#moves li:nth-child(2) button")
        page.wait_for_function("window.meridian.replay && window.meridian.replay.ply === 2")
        page.wait_for_function("document.querySelector('#moves li:nth-child(2) button')"
                               ".getAttribute('aria-current') === 'true'")
        assert page.evaluate("document.querySelectorAll('#moves [aria-current]').length") == 1
        page.evaluate("window.meridian.stopReplay()")
        page.wait_for_function("document.querySelectorAll('#moves [aria-current]').length === 0")

        # Undo: the table takes the last move back, the page its button.
        assert fake.command({"cmd": "button", "name": "undo"})["ok"]
        fake.wait(lambda s: len(s["moves"]) == 3, "the move taken back")
        page.wait_for_function(f"{BUTTONS}.length === 3")
        assert page.evaluate(f"{BUTTONS}.map(b => b.dataset.kept || '')") == ["yes", "yes", ""]
        context.close()
