"""The exactly-once core of the link, without threads or ports."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from meridian_table.link.events import SenseEvent, Snapshot
from meridian_table.link.sequencer import Sequencer, is_ahead, next_seq, seq_distance


def ev(seq: int, pos: int = 0, closed: bool = True) -> SenseEvent:
    return SenseEvent(seq, seq * 10, pos, closed)


def connected(last: int = 0, closed: frozenset[int] = frozenset()) -> Sequencer:
    s = Sequencer()
    s.hello("0000AAAA")
    out = s.snapshot(Snapshot(last, closed), 0.0)
    assert out == [Snapshot(last, closed, "connect")]
    return s


def test_seq_arithmetic_wraps_from_65535_to_1() -> None:
    assert next_seq(0) == 1
    assert next_seq(65535) == 1
    assert seq_distance(65535, 1) == 1
    assert is_ahead(65535, 3)
    assert not is_ahead(3, 65535)
    assert not is_ahead(7, 7)


def test_in_order_events_are_delivered_and_duplicates_dropped() -> None:
    s = connected()
    assert s.sense(ev(1, 4), 0.0) == [ev(1, 4)]
    assert s.sense(ev(1, 4), 0.1) == []
    assert s.sense(ev(2, 4, False), 0.2) == [ev(2, 4, False)]
    assert s.stats.duplicates == 1
    assert s.occupancy == frozenset()


def test_gap_is_filled_by_resend_in_order() -> None:
    s = connected()
    assert s.sense(ev(2, 2), 0.0) == []
    assert s.sense(ev(3, 3), 0.0) == []
    assert s.sense(ev(1, 1), 0.3) == [ev(1, 1), ev(2, 2), ev(3, 3)]
    assert s.occupancy == {1, 2, 3}
    assert s.poll(5.0) == ([], False)


def test_gap_never_filled_asks_for_a_snapshot_that_becomes_the_truth() -> None:
    s = connected()
    s.sense(ev(3, 3), 0.0)
    assert s.poll(0.5) == ([], False)
    assert s.poll(1.0) == ([], True)
    assert s.poll(1.1) == ([], False)  # not asked twice in a row
    out = s.snapshot(Snapshot(3, frozenset({1, 3})), 1.2)
    assert out == [Snapshot(3, frozenset({1, 3}), "resync")]
    assert s.stats.folded == 3
    assert s.sense(ev(4, 1, False), 1.3) == [ev(4, 1, False)]
    assert s.occupancy == {3}


def test_reconnect_snapshot_waits_for_the_resent_events() -> None:
    s = connected(5, frozenset({1}))
    out = s.snapshot(Snapshot(7, frozenset({1, 2, 3}), "reconnect"), 0.0)
    assert out == []
    assert s.sense(ev(6, 2), 0.1) == [ev(6, 2)]
    assert s.sense(ev(7, 3), 0.1) == [ev(7, 3), Snapshot(7, frozenset({1, 2, 3}), "reconnect")]
    assert s.stats.folded == 0


def test_reconnect_snapshot_wins_when_events_never_come() -> None:
    s = connected(5)
    s.snapshot(Snapshot(9, frozenset({4}), "reconnect"), 0.0)
    out, _ = s.poll(2.0)
    assert out == [Snapshot(9, frozenset({4}), "resync")]
    assert s.delivered == 9


def test_events_before_the_first_snapshot_are_held_then_trimmed() -> None:
    s = Sequencer()
    s.hello("0000AAAA")
    assert s.sense(ev(4, 4), 0.0) == []
    assert s.sense(ev(5, 5), 0.0) == []
    out = s.snapshot(Snapshot(4, frozenset({4})), 0.1)
    assert out == [Snapshot(4, frozenset({4}), "connect"), ev(5, 5)]


def test_board_reset_restarts_sequence_numbers() -> None:
    s = connected()
    for n in range(1, 4):
        s.sense(ev(n, n), 0.0)
    assert s.hello("0000BBBB") is True
    assert s.hello("0000BBBB") is False
    assert s.snapshot(Snapshot(0, frozenset({1, 2, 3})), 0.0)[0].reason == "connect"
    assert s.sense(ev(1, 7), 0.1) == [ev(1, 7)]


@settings(max_examples=200, deadline=None)
@given(
    start=st.integers(1, 65535),
    count=st.integers(1, 60),
    data=st.data(),
)
def test_any_arrival_order_with_resends_delivers_each_event_once_in_order(
    start: int, count: int, data: st.DataObject
) -> None:
    """Whatever subset arrives first, once every event has arrived at least once the
    consumer saw each exactly once, in order (seq wraps included)."""
    s = connected(start)
    seqs = []
    seq = start
    for _ in range(count):
        seq = next_seq(seq)
        seqs.append(seq)
    first = data.draw(st.permutations(seqs))
    extra = data.draw(st.lists(st.sampled_from(seqs), max_size=20))
    got: list[int] = []
    for n in [*first, *extra, *seqs]:  # the final pass is the firmware's resend
        got.extend(e.seq for e in s.sense(ev(n, n % 7), 0.0) if isinstance(e, SenseEvent))
    assert got == seqs
