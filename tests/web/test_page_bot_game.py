"""Acceptance: a whole Kato game against the bot, from the page in Chromium.

Everything is real: the virtual board (the real firmware behind a pty), the link, the
table session, the bot thinking in its worker process, the SQLite log. The person
gives Dark to the bot on the page, asks for a hint, and plays Light by clicking; the
page says that the bot is thinking, then shows its move, which the person carries out
by clicking the lit point. The game ends and the log names each move's source.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.web.test_page_kato_game import Player, _open

from meridian_table.store import Store
from meridian_table.web import serve

pytestmark = pytest.mark.browser


def test_a_whole_kato_game_against_the_bot_from_the_page(
    tmp_path: Path, open_page: Callable[..., Any], shoot: Any
) -> None:
    with _open(tmp_path) as table, serve(table.session, port=0) as server:
        table.session.think_s = 0.2
        page = open_page(server.url)
        player = Player(page)
        page.locator(".score[data-colour='dark'] .seat-kind select").select_option("bot:3")
        player.wait("s.seats_kind.dark === 'bot:3'")
        # The hint control lights the bot's suggestion for Light.
        player.press("hint")
        player.wait("s.message.startsWith('Hint: ')", timeout=60000)
        shoot(page, "hint")
        # Every "thinking" panel the page shows, polled faster than the bot thinks.
        page.evaluate("""window.__thinking = []; setInterval(() => {
            const box = document.getElementById('automaton');
            if (!box.hidden && box.dataset.status === 'thinking')
              window.__thinking.push(document.getElementById('automaton-title').textContent);
          }, 10)""")
        rng = random.Random(11)
        seen_thinking = False
        for _ in range(600):
            state = page.evaluate("window.meridian.state")
            phase = state["phase"]
            if phase == "ended" or state["result"] is not None:
                break
            automaton = state["automaton"]
            if phase == "thinking":
                if not seen_thinking:
                    # Shown as thinking, or already past it: the worker is warm and a
                    # quick bot may have chosen before the page drew the thinking state.
                    page.wait_for_selector("#automaton:not([hidden])[data-status]",
                                           timeout=30000)
                    # The bot's worker is warm (issue 26): it may have chosen already.
                    title = page.inner_text("#automaton-title")
                    assert "is thinking" in title or "has chosen" in title, title
                    seen_thinking = True
                player.wait("s.phase !== 'thinking'", timeout=60000)
            elif phase in ("execute", "resync") and state["diff"]["next"]:
                if phase == "execute":
                    assert automaton is not None and automaton["automaton"] == "bot:3"
                before = len(state["moves"])
                player.click(state["diff"]["next"])
                player.wait(f"s.moves.length !== {before} || s.phase !== '{phase}' || "
                            f"s.diff.next !== '{state['diff']['next']}'")
            elif phase == "pass":
                before = len(state["moves"])
                player.press("pass")
                player.wait(f"s.moves.length > {before}")
            elif phase == "play" and state["to_move"] == "light" and state["legal"]:
                before = len(state["moves"])
                player.click(rng.choice(state["legal"]))
                player.wait(f"s.moves.length > {before} || s.phase !== 'play'")
            else:
                player.wait(f"s.phase !== '{phase}' || s.moves.length !== {len(state['moves'])}",
                            timeout=60000)
        else:
            pytest.fail("the game did not end")
        player.wait("s.result !== null", timeout=30000)
        titles = page.evaluate("window.__thinking")
        assert titles and all("Bob" in t and "is thinking" in t for t in titles)
        shoot(page, "ended")
        game_id = table.journal.game_id
    with Store.open(tmp_path / "games.sqlite3", readonly=True) as store:
        moves = store.moves(game_id)
        info = store.game(game_id)
    assert info.status == "finished"
    sources = {(str(e.payload["by"]), str(e.payload["source"])) for e in moves}
    assert ("automaton", "automaton") in sources
    assert {s for by, s in sources if by == "person"} <= {"board", "web", "button"}
    assert any(by == "person" for by, _ in sources)
