"""A whole game of Colovini's Meridian through `meridian-table play colovini --headless`.

The real stack in a subprocess: the CLI, the virtual board (the real firmware behind a
pty), the link, the session, the adapter, the rules engine and the SQLite log. The
game is driven only through headless commands (meridian buttons, towers on switches,
answers), and the final breakdown must equal ``colovini.score()`` on the final
garrisons read back from the page's state.

The deck is a digital one with a seed drawn at random (and logged); the driver reads
the state every turn and fits any deal. The seed is in the failure message. The
subprocess driver is the table's (tests/table/headless.py), told the game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.table.headless import Headless

from meridian_table.games import colovini


def tower(h: Headless, state: dict[str, Any], n: int) -> bool:
    """Choose a meridian (the n-th choice) and build a tower on a free city of it: True
    once the move is logged, False when nothing is free (the chosen card then goes with
    a pass). ``state`` asks for the meridian."""
    moves = len(state["moves"])
    choices = state["question"]["choices"]
    h.ask(f"button meridian{choices[n % len(choices)]}")
    state = h.state()
    if state["question"] and state["question"]["field"] == "card":
        h.ask("button confirm")
        state = h.state()
    empty = {s["id"] for s in state["board"]["sites"] if s["piece"] is None}
    free = [site for site in state["legal"] if site in empty]
    if state["phase"] != "play" or not free:
        return False
    site = free[n % len(free)]
    h.ask(f"place {site}")
    state = h.state()
    for _ in range(3):
        if len(state["moves"]) > moves:
            return True
        asked = state["question"]
        assert asked is not None, state["message"]
        value = site if asked["field"] == "where" else asked["choices"][0]
        h.ask(f"choose {asked['field']} {value}")
        state = h.state()
    raise AssertionError(f"the tower on {site} was never taken: {state['message']}")


def _turn(h: Headless, state: dict[str, Any], n: int) -> None:
    """One turn from the state alone: build a tower on an empty city, or pass."""
    moves = len(state["moves"])
    question = state["question"]
    if n % 5 != 4 and state["phase"] == "play" and question and question["field"] == "meridian":
        if tower(h, state, n):
            return
    h.ask("button pass")
    state = h.state()
    if len(state["moves"]) == moves:
        assert state["question"]["field"] == "card", state["message"]
        h.ask("button confirm")
        state = h.state()
    assert len(state["moves"]) == moves + 1 and state["moves"][-1]["notation"].endswith(":pass")


def test_a_whole_game_headless_scores_like_the_engine(tmp_path: Path) -> None:
    h = Headless(tmp_path / "games.sqlite3", "--profile", "colovini-40",
                 "--players", "Ann,Bob,Cid", game="colovini", strict=True)
    try:
        ready = h.next(30)
        assert ready["event"] == "ready" and ready["ready"] and ready["virtual"]
        state = h.state()
        seed = state["board"].get("seed")
        assert state["board"]["map"] == "sample-40" and state["board"]["players"] == 3
        turns = 0
        while state["phase"] != "ended":
            assert turns < 3 * 13, f"seed {seed}: the game did not end after 39 turns"
            _turn(h, state, turns)
            turns += 1
            state = h.state()
        assert turns == 3 * 13 and len(state["moves"]) == 39, f"seed {seed}"
        built = [m for m in state["moves"] if not m["notation"].endswith(":pass")]
        assert len(built) >= 10, f"seed {seed}: only {len(built)} towers were built"
        # The final position as the page sees it: every tower with its seat.
        names = list(state["board"]["names"])  # seat order (the JSON lines sort the keys)
        seats = [name.lower() for name in names]
        assert sorted(seats) == sorted(state["scores"])
        garrisons = {s["id"]: s["seat"].capitalize() for s in state["board"]["sites"]
                     if s["piece"] is not None}
        assert len(garrisons) == len(built)
        hands = {name: next(b["value"] for b in state["scores"][seat]["breakdown"]
                            if b["label"] == "pieces in hand")
                 for seat, name in zip(seats, names, strict=True)}
        expected = colovini.score(colovini.load_map("sample-40"), garrisons, players=names,
                                  pieces_left=hands)
        result = state["result"]
        assert result["islands"] == [i.as_dict() for i in expected.islands], f"seed {seed}"
        assert {seat: result["scores"][seat]["total"] for seat in seats} == {
            seat: expected.totals[name] for seat, name in zip(seats, names, strict=True)}
        winners = [names[seats.index(w)] for w in result["winners"]]
        assert winners == list(expected.winners) and result["reason"] == expected.tie_break
        for seat, name in zip(seats, names, strict=True):
            owned = sum(i.points for i in expected.islands if i.owner == name)
            lines = state["scores"][seat]["breakdown"]
            assert sum(b["value"] for b in lines if b["label"].startswith("island")) == owned
    finally:
        h.quit()
