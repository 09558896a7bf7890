"""The host refuses CRC-valid frames whose fields the firmware cannot send, and a
link thread that stops turning is noticed (issue 10, items 1 and 2)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from tests.link.collector import Collector

from meridian_fw import wire
from meridian_table.link import FakeBoard, Link, LinkEvent, LinkState, SenseEvent, Snapshot


@pytest.fixture
def board() -> FakeBoard:
    return FakeBoard(rows=2, cols=4, leds=8)


@pytest.fixture
def link(board: FakeBoard, collector: Collector) -> Iterator[Link]:
    with Link(board.find_port, collector, opener=board.open) as lk:
        lk.wait_connected(5)
        collector.wait(lambda ev: any(isinstance(e, Snapshot) for e in ev))
        yield lk


def still_reading(board: FakeBoard, link: Link, collector: Collector, pos: int) -> None:
    """A real event after the bad frame arrives: the thread is alive and reading."""
    seq = board.toggle(pos)
    collector.wait(lambda ev: any(isinstance(e, SenseEvent) and e.seq == seq for e in ev), 5)
    assert link.state == "connected"


@pytest.mark.parametrize(
    "masks",
    [("-1", "0"), ("+5", "0"), ("0x1F", "0"), ("1_0", "0"), ("1F", "0"), ("f", "0"),
     ("1",), ("1", "0", "0"), ("10", "0")],
)
def test_a_snap_with_a_mask_outside_the_grammar_is_dropped_and_counted(
    board: FakeBoard, link: Link, collector: Collector, masks: tuple[str, ...]
) -> None:
    before = len(collector.snapshots())
    board.inject(wire.encode("SNAP", 1, (board.seq, 2, *masks)))
    still_reading(board, link, collector, 3)
    assert len(collector.snapshots()) == before
    assert link.stats()["bad_frames"] == 1


@pytest.mark.parametrize(
    ("fields", "seq"),
    [(("10", "8", "1"), 9),     # pos beyond the 2x4 matrix
     (("10", "-1", "1"), 9),    # a negative pos
     (("-5", "2", "1"), 9),     # a negative time
     (("10", "2", "2"), 9),     # st neither 0 nor 1 (it used to read as "open")
     (("10", "2", "x"), 9),
     (("10", "2"), 9),          # a field missing
     (("10", "2", "1", "7"), 9),  # one too many
     (("10", "+2", "1"), 9),
     (("1073741824", "2", "1"), 9),  # t beyond ticks_ms mod 2**30
     (("10", "2", "1"), 0)],    # event number 0 is never used
)
def test_sense_events_with_impossible_fields_are_refused_and_counted(
    board: FakeBoard, link: Link, collector: Collector, fields: tuple[str, ...], seq: int
) -> None:
    board.inject(wire.encode("SENSE", seq, fields))
    still_reading(board, link, collector, 1)
    assert [e.pos for e in collector.senses()] == [1]
    assert link.stats()["bad_frames"] == 1


@pytest.mark.parametrize(
    "frame",
    [("BEAT", ("5", "-1")), ("PONG", ("0x10",)), ("SHOWN", ("-3",)),
     ("NAK", ("PLAN", "1e3", "incomplete")), ("STATS", ("rx=-1",)), ("STATS", ("junk",))],
)
def test_other_numeric_fields_follow_the_grammar(
    board: FakeBoard, link: Link, collector: Collector, frame: tuple[str, tuple[str, ...]]
) -> None:
    board.inject(wire.encode(frame[0], 1, frame[1]))
    still_reading(board, link, collector, 2)
    assert link.stats()["bad_frames"] == 1


def test_a_hello_with_impossible_dimensions_never_connects(collector: Collector) -> None:
    board = FakeBoard(rows=2, cols=4, leds=8)
    board.script["WHO"] = lambda frame: [
        wire.encode("HELLO", 1, (1, "0.1.0", "x", "-2", "4", "8", "sense", "00C0FFEE"))
    ]
    with Link(board.find_port, collector, opener=board.open) as link:
        collector.wait(lambda ev: link.stats()["bad_frames"] >= 1, 5)
        assert link.state != "connected"


def test_a_stuck_link_thread_is_noticed_and_recovers(board: FakeBoard) -> None:
    release = threading.Event()
    seen: list[LinkEvent] = []
    cond = threading.Condition()

    def subscriber(event: LinkEvent) -> None:
        with cond:
            seen.append(event)
            cond.notify_all()
        if isinstance(event, SenseEvent) and event.pos == 6:
            release.wait(30)  # a subscriber that does not return: the reader stops

    def wait_for(pred: object, timeout: float = 10) -> None:
        with cond:
            assert cond.wait_for(lambda: pred(), timeout), seen[-6:]  # type: ignore[operator]

    with Link(board.find_port, subscriber, opener=board.open, stall_after=0.5) as link:
        link.wait_connected(5)
        board.toggle(6)
        wait_for(lambda: link.state == "searching")
        assert "stuck" in link.detail and link.stats()["stalls"] == 1
        assert any(isinstance(e, LinkState) and "stuck" in e.detail for e in seen)
        release.set()
        link.wait_connected(10)
        board.toggle(5)
        wait_for(lambda: any(isinstance(e, SenseEvent) and e.pos == 5 for e in seen))
        assert [e.pos for e in seen if isinstance(e, SenseEvent)] == [6, 5]


@pytest.mark.parametrize("detail", ["-1", "+5", "1_0", "0x1F", "99999"])
def test_a_ghost_fault_with_a_position_outside_the_grammar_names_no_site(detail: str) -> None:
    from meridian_table.table.faults import fault_text

    asked: list[int] = []

    def where(pos: int) -> str:
        asked.append(pos)
        return f"site {pos}"

    text = fault_text("GHOST", (detail,), where, "kato-114")
    assert asked == [] and f"({detail})" in text and "diode" in text
    assert "G6" in fault_text("GHOST", ("12",), lambda pos: "G6", "kato-114")
