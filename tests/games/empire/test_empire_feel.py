"""Empire in the hand corpus (issue 24): ship moves lifted from their quadrant and set
down, settles confirmed, what the switches cannot see tapped; replayed through the
firmware's debouncer and the real session in simulated time, nothing is misread."""

from __future__ import annotations

import random

import pytest

from meridian_table.games.empire.adapter import EmpireAdapter
from meridian_table.games.empire.engine import new_game
from meridian_table.sim.hands import Trace, corpus
from meridian_table.sim.replay import VirtualTable, replay_clocked

SEED = 20261126
ATTEMPTS = 3


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


class _HandLate(Exception):
    """The machine made the hand late: it did not play the traces as traced."""


def _set_up_then_play(traces: list[Trace]) -> None:
    rng = random.Random(SEED)
    table = VirtualTable("empire", options=dict(traces[0].options))
    try:
        # A new game on the virtual board starts with no ship on it: the board guides
        # the player to set them up, and a tap on the ledger waits until it matches.
        assert table.session.state()["diff"]["put_back"]
        for trace in traces:
            result = table.play(trace, rng)
            if not result.on_time:
                raise _HandLate(f"{trace.describe()}: {result.late_ms:.0f} ms late")
            # Every turn, tapped (a filler) or sensed, is logged exactly as meant.
            assert result.logged == [trace.action], (
                trace.describe(), result.logged, table.session.state()["message"])
    finally:
        table.close()


@pytest.mark.realtime
def test_on_the_virtual_board_the_hand_sets_up_the_ships_before_it_taps() -> None:
    """Real time, the whole table: the hand first puts on the ships the board guides (as
    a player sets up), then taps and moves. bench feel's live replay used to tap at once
    on the empty board: the first gift waited for the board and was lost, the game went
    on from another position, and a build of 2 fighters it meant later was not legal
    there (the one live misread in 76, seed 20261127 trace 125)."""
    traces = list(corpus("empire", 3, seed=SEED + 1, patterns=("clean",)))
    assert not traces[0].counted and traces[0].inputs[0][0] == "tap:action"
    lateness = []
    for _attempt in range(ATTEMPTS):
        try:
            _set_up_then_play(traces)
            return
        except _HandLate as exc:
            lateness.append(str(exc))
    pytest.skip(f"the machine was too busy to play the hand's timing {ATTEMPTS} times: "
                + "; ".join(lateness))
