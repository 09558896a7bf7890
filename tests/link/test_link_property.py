"""Property: whatever the line does (lost frames, noise, unplugs), every event the board
queued reaches the subscriber exactly once and in order, and the link's occupancy ends
equal to the board's."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.link.collector import Collector

from meridian_table.link import FakeBoard, Link, SenseEvent

TOGGLE = st.tuples(st.just("toggle"), st.integers(0, 7))
OPS = st.lists(
    st.one_of(
        TOGGLE,
        TOGGLE,
        TOGGLE,
        st.tuples(st.just("drop"), st.sampled_from(["SENSE", "SNAP", "HELLO", "PONG"])),
        st.tuples(st.just("noise"), st.binary(min_size=1, max_size=40)),
        st.tuples(st.just("unplug"), st.just(0)),
        st.tuples(st.just("replug"), st.just(0)),
    ),
    min_size=8,
    max_size=30,
)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_events_survive_any_line_trouble_exactly_once(ops: list[tuple[str, object]]) -> None:
    board = FakeBoard(rows=2, cols=4, leds=8, resend_after=0.02, ring_size=64)
    collector = Collector()
    queued: list[int] = []
    with Link(board.find_port, collector, opener=board.open) as link:
        link.wait_connected(5)
        collector.wait(lambda ev: link.stats()["snapshots"] >= 1)
        for kind, arg in ops:
            if kind == "toggle":
                assert isinstance(arg, int)
                queued.append(board.toggle(arg))
            elif kind == "drop":
                board.drop(str(arg))
            elif kind == "noise":
                assert isinstance(arg, bytes)
                board.inject(arg)
            elif kind == "unplug":
                board.unplug()
            else:
                board.replug()
        board.replug()
        collector.wait(lambda ev: link.state == "connected" and link.stats()["last_seq"] == board.seq
                       and link.occupancy == frozenset(board.closed), timeout=15)
    got = [e.seq for e in collector.events if isinstance(e, SenseEvent)]
    folded = link.stats()["events_folded"]
    # Every queued event arrived once, in order, unless a snapshot replaced it (counted).
    assert len(got) == len(set(got))
    assert got == sorted(got)
    assert set(got) <= set(queued)
    assert len(queued) - len(got) == folded
