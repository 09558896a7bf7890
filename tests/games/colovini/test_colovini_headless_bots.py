"""A Colovini game with a person and two bots through `meridian-table play colovini
--headless`: the real CLI in a subprocess, the virtual board (real firmware), the link,
the session, each bot thinking in its worker process, and the SQLite log.

The person (Ann) answers from the state alone, building a tower now and then and
passing otherwise; the bots' moves are carried out as the execute phase guides, one lit
site at a time. The game must end, and the log must hold both kinds of move with their
sources.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.games.colovini.test_colovini_headless import tower
from tests.table.headless import Headless


def _carry_out(h: Headless, state: dict[str, Any]) -> None:
    """One lit site of the execute (or out-of-sync) guidance: put back or lift."""
    site = state["diff"]["next"]
    h.ask(f"{'place' if site in state['diff']['put_back'] else 'lift'} {site}")


def _person(h: Headless, state: dict[str, Any], n: int) -> None:
    """Ann's turn: a tower on a free city every third turn when one is free, else pass."""
    moves = len(state["moves"])
    question = state["question"]
    if n % 3 == 0 and question and question["field"] == "meridian" and tower(h, state, n):
        return
    h.ask("button pass")
    state = h.state()
    if len(state["moves"]) == moves and state["question"] and \
            state["question"]["field"] == "card":
        h.ask("button confirm")


def test_a_person_and_two_bots_play_a_whole_game_headless(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    h = Headless(db, "--profile", "colovini-40", "--players", "Ann,Bob,Cid",
                 "--seat", "2=bot:1", "--seat", "3=bot:2", "--seed", "7", game="colovini")
    try:
        ready = h.next(30)
        assert ready["event"] == "ready" and ready["ready"] and ready["virtual"]
        state = h.state()
        turns = 0
        for _ in range(600):
            if state["phase"] == "ended":
                break
            working = state.get("automaton")
            if isinstance(working, dict) and working.get("status") == "thinking":
                pass  # `wait` gave up first (a busy machine): wait again
            elif state["phase"] in ("execute", "resync"):
                _carry_out(h, state)
            else:
                _person(h, state, turns)
                turns += 1
            state = h.state()
        assert state["phase"] == "ended", state["message"]
        assert len(state["moves"]) == 3 * 13
    finally:
        h.quit()
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT payload FROM events WHERE kind = 'action'").fetchall()
    sources = {(p.get("source"), p.get("by")) for p in (json.loads(r[0]) for r in rows)}
    assert ("automaton", "automaton") in sources, sources
    assert any(b == "person" for _, b in sources), sources
