"""Empire in the hand corpus (issue 24): ship moves lifted from their quadrant and set
down, settles confirmed, what the switches cannot see tapped; replayed through the
firmware's debouncer and the real session in simulated time, nothing is misread."""

from __future__ import annotations

from meridian_table.games.empire.adapter import EmpireAdapter
from meridian_table.games.empire.engine import new_game
from meridian_table.sim.hands import corpus
from meridian_table.sim.replay import replay_clocked


def test_a_ship_move_is_lifted_from_its_quadrant_first() -> None:
    game = new_game(players=3, seed=5)
    adapter = EmpireAdapter(game, dict(game.options))
    move = next(a for a in game.legal() if a.startswith("move s1 "))
    assert adapter.moved_from(move) == (game.state.ships["s1"].quadrant,)
    assert adapter.person_inputs(move) == (("action", move),)
    assert adapter.person_inputs("charge") == (("tap:action", "charge"),)


def test_the_empire_hand_corpus_reads_without_a_misread() -> None:
    traces = list(corpus("empire", 120, seed=7))
    counted = [t for t in traces if t.counted]
    assert len(counted) == 120 and {t.pattern for t in counted} >= {"clean", "slide", "knock"}
    results = replay_clocked(traces, adaptive=True, seed=7)
    wrong = [f"{r.trace.describe()} -> {r.logged}" for r in results
             if r.trace.counted and r.misread]
    assert wrong == []
