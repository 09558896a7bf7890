"""The Link's protocol logic against the scripted FakeBoard (no ports, no firmware)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from tests.link.collector import Collector

from meridian_fw import wire
from meridian_table.ledplan import SOLID, LedPlan, Light
from meridian_table.link import (
    BoardFault,
    FakeBoard,
    Link,
    LinkState,
    PlanSizeError,
    ProtocolMismatchError,
    Snapshot,
    discovery,
)


@pytest.fixture
def board() -> FakeBoard:
    return FakeBoard(rows=2, cols=4, leds=8)


@pytest.fixture
def link(board: FakeBoard, collector: Collector) -> Iterator[Link]:
    with Link(board.find_port, collector, opener=board.open) as lk:
        lk.wait_connected(5)
        collector.wait(lambda ev: any(isinstance(e, Snapshot) for e in ev))
        yield lk


def plan_with(index: int, colour: int, leds: int = 8) -> LedPlan:
    return LedPlan.from_mapping(leds, {index: Light(colour, SOLID)})


def test_handshake_reports_the_board_and_a_first_snapshot(
    board: FakeBoard, collector: Collector
) -> None:
    board.closed = {1, 6}
    with Link(board.find_port, collector, opener=board.open) as link:
        hello = link.wait_connected(5)
        assert (hello.board, hello.rows, hello.cols, hello.leds) == ("fake", 2, 4, 8)
        assert hello.proto == wire.PROTOCOL_VERSION and hello.boot == "00C0FFEE"
        collector.wait(lambda ev: any(isinstance(e, Snapshot) for e in ev))
        assert collector.snapshots() == [Snapshot(0, frozenset({1, 6}), "connect")]
        assert link.occupancy == {1, 6}
        assert LinkState("connected", link.detail) in collector.events
    assert link.state == "closed"


def test_hundred_toggles_arrive_once_in_order_despite_lost_frames(
    board: FakeBoard, link: Link, collector: Collector
) -> None:
    expected: list[int] = []
    for batch in range(10):
        board.drop("SENSE", 2)  # lost sends: resends must fill the gaps
        expected += [board.toggle((batch + n) % 8) for n in range(10)]
        collector.wait_senses(len(expected))
    got = collector.senses()
    assert [e.seq for e in got] == expected
    collector.wait(lambda ev: board.unacked == [])
    assert link.stats()["events_delivered"] == 100
    assert link.occupancy == frozenset(board.closed)


def test_plans_are_latest_wins_and_unchanged_plans_are_not_resent(
    board: FakeBoard, link: Link
) -> None:
    assert link.send_plan(plan_with(0, 0xFF0000)) is True
    assert link.send_plan(plan_with(1, 0x00FF00)) is True
    link.wait_shown()
    assert board.shown[1] == "00FF00S" and board.shown[0] == "000000O"
    sent = link.stats()["plans_sent"]
    assert link.send_plan(plan_with(1, 0x00FF00)) is False
    assert link.stats()["plans_sent"] == sent
    with pytest.raises(PlanSizeError, match="9 LEDs but board 'fake' has 8"):
        link.send_plan(LedPlan.blank(9))


def test_nak_plan_makes_the_link_resend(board: FakeBoard, link: Link) -> None:
    swallowed: list[wire.Frame] = []

    def lose_first_pix(frame: wire.Frame) -> list[bytes] | None:
        if swallowed:
            return None  # answer as usual
        swallowed.append(frame)
        return []  # the board never saw it: SHOW is refused with NAK PLAN incomplete

    board.script["PIX"] = lose_first_pix
    link.send_plan(plan_with(2, 0x0000FF))
    link.wait_shown()
    assert board.shown[2] == "0000FFS"
    assert link.stats()["resends"] == 1 and link.stats()["naks"] == 1


def test_a_board_that_keeps_refusing_is_not_flooded(board: FakeBoard, link: Link) -> None:
    board.script["PIX"] = lambda frame: []
    link.send_plan(plan_with(2, 0x0000FF))
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        time.sleep(0.1)
    # One immediate resend, then one per PLAN_RETRY second: a handful, not thousands.
    assert 1 <= link.stats()["naks"] <= 4


def test_unplug_mid_stream_loses_and_duplicates_nothing(
    board: FakeBoard, link: Link, collector: Collector
) -> None:
    link.send_plan(plan_with(3, 0xFFFFFF))
    link.wait_shown()
    before = [board.toggle(n) for n in range(5)]
    collector.wait_senses(5)
    board.unplug()
    collector.wait(lambda ev: isinstance(ev[-1], LinkState) and ev[-1].state == "searching")
    during = [board.toggle(n) for n in (5, 6, 0, 1)]
    shown_before = board.shown_gen
    board.replug()
    got = collector.wait_senses(9)
    collector.wait(lambda ev: any(isinstance(e, Snapshot) and e.reason == "reconnect" for e in ev))
    assert [e.seq for e in got] == before + during
    snap = collector.snapshots()[-1]
    assert snap.closed == frozenset(board.closed) == {2, 3, 4, 5, 6}
    assert link.stats()["reconnects"] == 1
    link.wait_shown()
    assert board.shown_gen > shown_before  # the plan was resent after the reconnect
    assert board.shown[3] == "FFFFFFS"


def test_board_reset_restarts_sequence_and_resends_plan(
    board: FakeBoard, link: Link, collector: Collector
) -> None:
    link.send_plan(plan_with(0, 0x123456))
    link.wait_shown()
    for n in range(3):
        board.toggle(n)
    collector.wait_senses(3)
    board.reset()
    collector.wait(lambda ev: sum(isinstance(e, Snapshot) for e in ev) >= 2)
    assert collector.snapshots()[-1].reason == "connect"
    assert board.toggle(7) == 1
    got = collector.wait_senses(4)
    assert got[-1].seq == 1 and got[-1].pos == 7
    collector.wait(lambda ev: board.shown[0] == "123456S")


def test_stalled_link_is_detected_and_recovered(board: FakeBoard, collector: Collector) -> None:
    with Link(board.find_port, collector, opener=board.open, lost_after=0.6) as link:
        link.wait_connected(5)
        board.stall()
        collector.wait(lambda ev: any(isinstance(e, LinkState) and e.state == "searching" for e in ev))
        board.stall(False)
        link.wait_connected(5)
        assert link.stats()["reconnects"] == 1


@pytest.mark.parametrize(
    ("board_proto", "advice"),
    [(0, "meridian-table flash"), (2, "pip install --upgrade meridian-table")],
)
def test_version_mismatch_is_refused_with_advice(
    board_proto: int, advice: str, collector: Collector
) -> None:
    board = FakeBoard(proto=board_proto, fw="9.9.9")
    with Link(board.find_port, collector, opener=board.open) as link:
        with pytest.raises(ProtocolMismatchError) as info:
            link.wait_connected(5)
        assert link.state == "version-mismatch"
    message = str(info.value)
    assert f"protocol {board_proto}" in message and "9.9.9" in message and advice in message
    assert not collector.senses() and not collector.snapshots()


def test_garbage_on_the_line_costs_only_its_lines(
    board: FakeBoard, link: Link, collector: Collector
) -> None:
    board.inject(b"\x00\x03\xff junk\n")
    board.inject(b"SENSE 1 0 0 1*0000\n")  # bad CRC
    board.inject(b"A" * 600)  # no newline at all
    board.inject(b"\n")
    board.toggle(5)
    got = collector.wait_senses(1)
    assert got[0].pos == 5
    stats = link.stats()
    assert stats["crc_errors"] >= 1 and stats["garbage"] >= 2
    assert link.state == "connected"


def test_ring_overflow_delivers_a_resync_snapshot(
    board: FakeBoard, link: Link, collector: Collector
) -> None:
    board.ring_size = 4
    board.drop("SENSE", 100)  # nothing arrives and nothing is acknowledged
    for n in range(6):
        board.toggle(n)
    board.drop("SENSE", -100)
    collector.wait(lambda ev: any(isinstance(e, Snapshot) and e.reason == "resync" for e in ev))
    assert any(isinstance(e, BoardFault) and e.code == "OVERFLOW" for e in collector.events)
    collector.wait(lambda ev: link.occupancy == frozenset(board.closed))  # event 6 is resent
    board.toggle(0)
    collector.wait(lambda ev: link.occupancy == frozenset(board.closed))


def test_a_failing_subscriber_does_not_stop_the_link(board: FakeBoard, link: Link,
                                                    collector: Collector) -> None:
    def boom(event: object) -> None:
        raise RuntimeError("consumer bug")

    link.subscribe(boom)
    board.toggle(1)
    board.toggle(2)
    assert len(collector.wait_senses(2)) == 2
    assert link.stats()["callback_errors"] >= 2


def test_searching_sleeps_between_tries() -> None:
    calls: list[float] = []

    def nothing() -> None:
        calls.append(time.monotonic())
        return None

    with Link(nothing) as link:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            time.sleep(0.05)
        assert link.state == "searching"
    # Back-off doubles from 0.1 s: about five looks in a second, never a busy loop.
    assert 2 <= len(calls) <= 8


def test_auto_finds_a_pico_by_vid_pid_and_serial(monkeypatch: pytest.MonkeyPatch) -> None:
    ports = [
        SimpleNamespace(device="/dev/ttyUSB0", vid=0x0403, pid=0x6001, serial_number="X",
                        description="FTDI"),
        SimpleNamespace(device="/dev/ttyACM3", vid=0x2E8A, pid=0x0005, serial_number="E66",
                        description="Board in FS mode"),
        SimpleNamespace(device="/dev/ttyACM1", vid=0x2E8A, pid=0x0005, serial_number="D42",
                        description="Board in FS mode"),
    ]
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: ports)
    assert [c.port for c in discovery.find_picos()] == ["/dev/ttyACM1", "/dev/ttyACM3"]
    assert discovery.resolve("auto", "E66") == "/dev/ttyACM3"
    assert discovery.resolve("/dev/ttyS0") == "/dev/ttyS0"


def test_sim_registry_announces_and_withdraws(tmp_path: object, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    monkeypatch.setenv("MERIDIAN_SIM_REGISTRY", str(tmp_path))
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [])
    assert discovery.resolve("auto") is None
    entry = discovery.register_sim("a", "/dev/null", "kato-114")
    assert discovery.resolve("auto") == "/dev/null"
    assert discovery.resolve("pico") is None
    discovery.unregister_sim(entry)
    assert discovery.resolve("sim") is None


class ManualClock:
    """The link's clock, moved by the test (its reads still time out in real time)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_heartbeat_pings_within_a_second_and_silence_means_lost(
    board: FakeBoard, collector: Collector
) -> None:
    clock = ManualClock()
    with Link(board.find_port, collector, opener=board.open, clock=clock) as link:
        link.wait_connected(5)
        pings = board.received_types().count("PING")
        clock.now += 0.6  # past the 0.5 s ping interval
        collector.wait(lambda ev: board.received_types().count("PING") > pings)
        board.stall()
        clock.now += 2.9
        clock.now += 0.2  # 3.1 s without a valid frame
        collector.wait(state_is_searching)
        assert "no frame for" in link.detail or "lost" in link.detail


def state_is_searching(events: list[object]) -> bool:
    return any(isinstance(e, LinkState) and e.state == "searching" for e in events)


def test_a_plan_whose_shown_was_lost_is_resent(board: FakeBoard, collector: Collector) -> None:
    clock = ManualClock()
    with Link(board.find_port, collector, opener=board.open, clock=clock) as link:
        link.wait_connected(5)
        board.drop("SHOWN", 1)
        link.send_plan(plan_with(4, 0x0A0B0C))
        first_gen = link.plan_gen
        collector.wait(lambda ev: board.shown_gen == first_gen)  # shown, but nobody heard
        clock.now += 1.1  # PLAN_RETRY without SHOWN
        link.wait_shown(timeout=5)
        assert link.plan_gen > first_gen and link.stats()["resends"] == 1
        assert board.shown[4] == "0A0B0CS"


def test_brightness_and_identify_are_checked_and_brightness_survives_reconnect(
    board: FakeBoard, link: Link, collector: Collector
) -> None:
    with pytest.raises(ValueError, match="brightness 256 is not an integer in 0..255"):
        link.set_brightness(256)
    with pytest.raises(ValueError, match="identify seconds True"):
        link.identify(True)
    with pytest.raises(ValueError, match="port is empty"):
        Link("")
    link.set_brightness(200)
    collector.wait(lambda ev: board.brightness == 200)
    board.brightness = 64  # as after a power cycle
    board.unplug()
    collector.wait(state_is_searching)
    board.replug()
    collector.wait(lambda ev: board.brightness == 200)


def fault_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage().startswith("board fault:")]


def send_fault(board: FakeBoard, caplog: pytest.LogCaptureFixture, *fields: str) -> logging.LogRecord:
    """Put a FAULT frame on the line and wait for the link to log it."""
    before = len(fault_records(caplog))
    board.inject(wire.encode("FAULT", board._next_tx(), fields))
    Collector().wait(lambda _ev: len(fault_records(caplog)) > before)
    return fault_records(caplog)[-1]


def test_a_fault_a_subscriber_takes_is_only_a_debug_line(
    board: FakeBoard, link: Link, collector: Collector, caplog: pytest.LogCaptureFixture
) -> None:
    """The table words a fault for people (naming the site); the link does not say it twice."""
    caplog.set_level(logging.DEBUG, logger="meridian_table.link")
    record = send_fault(board, caplog, "GHOST", "5")
    assert record.levelno == logging.DEBUG and record.getMessage() == "board fault: GHOST 5"
    assert BoardFault("GHOST", ("5",)) in collector.events


def test_a_fault_nobody_takes_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="meridian_table.link")
    board = FakeBoard(rows=2, cols=4, leds=8)
    with Link(board.find_port, opener=board.open) as link:
        link.wait_connected(5)
        record = send_fault(board, caplog, "EXC", "MemoryError")
        assert record.levelno == logging.WARNING
        assert record.getMessage() == "board fault: EXC MemoryError"

        def broken(event: object) -> None:
            raise RuntimeError("consumer bug")

        link.subscribe(broken)  # a subscriber that fails took nothing
        assert send_fault(board, caplog, "EXC", "OSError").levelno == logging.WARNING
