"""The hand corpus (meridian_table.sim.hands) replayed through the real table: a fixed
slice of what `meridian-table bench feel` replays in full (docs/TABLE.md)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from meridian_table.games import registry
from meridian_table.sim.hands import PATTERNS, corpus
from meridian_table.sim.replay import VirtualTable, replay_clocked

SEED = 20261126


def test_the_corpus_is_the_same_for_the_same_seed_and_covers_every_pattern() -> None:
    first = list(corpus("colovini", 120, seed=3))
    again = list(corpus("colovini", 120, seed=3))
    assert first == again
    patterns = Counter(t.pattern for t in first if t.counted)
    assert set(patterns) == set(PATTERNS)
    kato = [t for t in corpus("kato", 120, seed=3) if t.counted]
    assert len(kato) == 120 and "tower" not in {t.pattern for t in kato}
    for trace in kato:
        times = [s.t_ms for s in trace.steps]
        assert times == sorted(times) and times[0] >= 0
        assert trace.landed_ms is not None and trace.target in {s.site for s in trace.steps}


@pytest.mark.slow
@pytest.mark.parametrize("game", ["kato", "colovini"])
def test_a_fixed_slice_replays_in_simulated_time_with_exactly_the_moves_made(game: str) -> None:
    traces = list(corpus(game, 150, seed=SEED))
    results = replay_clocked(traces, adaptive=True)
    counted = [r for r in results if r.trace.counted]
    assert len(counted) == 150
    wrong = [(r.trace.describe(), r.logged) for r in counted if r.misread]
    assert wrong == []
    assert all(r.logged == [r.trace.action] and r.undos == 0 for r in counted)
    # The cue answered every new piece within the firmware's debounce and a scan.
    acks = [r.ack_ms for r in counted if r.trace.fresh]
    assert None not in acks and max(a for a in acks if a is not None) < 20


@pytest.mark.slow
def test_the_fixed_window_reads_a_resting_hand_as_a_move_and_adaptive_settling_does_not() -> None:
    """The reference the bench compares against: with the fixed 300 ms window a hand
    resting on a legal point on its way is read as the move there."""
    traces = [t for t in corpus("kato", 60, seed=SEED)]
    fixed = replay_clocked(traces, adaptive=False)
    adaptive = replay_clocked(traces, adaptive=True)
    misread_fixed = [r for r in fixed if r.misread]
    assert misread_fixed and {r.trace.pattern for r in misread_fixed} == {"hesitate"}
    assert not [r for r in adaptive if r.misread]


#: On a busy machine a slice whose hand was late (sim.replay.HAND_LATE_OK_MS) is played
#: again.
ATTEMPTS = 3


class _HandLate(Exception):
    """The machine made the hand itself late: the trace was not played as traced."""


def _play_slice(game: str, count: int) -> None:
    rng = random.Random(SEED)
    table: VirtualTable | None = None
    seen = cues = fresh = 0
    try:
        for trace in corpus(game, count, seed=SEED + 1):
            if table is None or trace.new_game:
                if table is not None:
                    table.close()
                table = VirtualTable(game, options=dict(trace.options))
            result = table.play(trace, rng)
            if not result.on_time:
                raise _HandLate(f"{trace.describe()}: the hand was {result.late_ms:.0f} ms late")
            if not trace.counted:
                # A filler (a pass, a swap) is logged as well: a lost one would play the
                # rest of the slice from another position than the corpus's.
                assert result.logged == [trace.action], (trace.describe(), result.logged)
                continue
            seen += 1
            state = table.session.state()
            assert result.logged == [trace.action], (
                trace.describe(), result.logged, state["phase"], state["message"],
                state.get("question"), [(s.t_ms, s.site, s.closed) for s in trace.steps])
            assert result.undos == 0
            if trace.fresh:
                # The board answered under the new piece in a rendered frame: the white
                # tentative cue, or the move itself when it came first.
                assert result.ack_ms is not None, trace.describe()
                cues += result.cue_seen
                fresh += 1
                if trace.pattern == "clean" and registry.spec(game).bench.commit_target_ms:
                    # The move shown under the piece (a game that asks first lights
                    # its question instead; bench feel times it, no target).
                    assert result.commit_ms is not None, trace.describe()
    finally:
        if table is not None:
            table.close()
    assert seen == count
    assert cues >= fresh // 2, (cues, fresh)  # the firmware drew the cue itself


@pytest.mark.realtime  # make test runs it after every other stage: a busy machine makes
@pytest.mark.parametrize("game,count", [("kato", 10), ("colovini", 5)])  # the hand late
def test_a_slice_through_the_virtual_board_reads_right_and_the_cue_is_rendered(
        game: str, count: int) -> None:
    """Real time: the hand sleeps between its switches. Every trace the hand played on
    time is judged; a slice the machine made the hand late in is played again (a
    misread of an on-time hand fails at once), and skipped with the lateness named
    when the machine stays too busy to play any slice as traced."""
    lateness = []
    for _attempt in range(ATTEMPTS):
        try:
            _play_slice(game, count)
            return
        except _HandLate as exc:
            lateness.append(str(exc))
    pytest.skip(f"the machine was too busy to play the hand's timing {ATTEMPTS} times: "
                + "; ".join(lateness))
