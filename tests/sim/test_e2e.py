"""End to end over a pty: the host's real Link against the real firmware, in both modes.

The virtual board runs meridian_fw's App on the simulated HAL, either in a thread
(CPython) or in the MicroPython unix port; the Link opens the pty with pyserial.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import serial
from tests.link.collector import Collector

from meridian_fw import wire
from meridian_table.ledplan import SOLID, LedPlan, Light
from meridian_table.link import Link, LinkState, ProtocolMismatchError, SenseEvent, Snapshot
from meridian_table.link.link import open_serial
from meridian_table.profiles import load_profile
from meridian_table.sim import VirtualBoard

MODES = ["cpython", "micropython"]


@pytest.fixture(params=MODES)
def board(request: pytest.FixtureRequest) -> Iterator[VirtualBoard]:
    with VirtualBoard(load_profile("kato-80"), mode=request.param, closed={4, 17}) as vb:
        yield vb


@pytest.fixture
def link(board: VirtualBoard, collector: Collector) -> Iterator[Link]:
    with Link(board.find_port, collector) as lk:
        lk.wait_connected(10)
        collector.wait(lambda ev: any(isinstance(e, Snapshot) for e in ev))
        yield lk


def state_is(state: str) -> object:
    return lambda ev: any(isinstance(e, LinkState) and e.state == state for e in ev)


def assert_exactly_once(collector: Collector, toggles: list[tuple[int, bool]]) -> None:
    events = collector.senses()
    seqs = [e.seq for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"gap or duplicate in {seqs}"
    assert [(e.pos, e.closed) for e in events] == toggles


def test_handshake_names_the_board_and_snapshots_its_switches(
    board: VirtualBoard, link: Link, collector: Collector
) -> None:
    hello = link.hello
    assert hello is not None
    assert (hello.board, hello.rows, hello.cols, hello.leds) == ("kato-80", 10, 9, 80)
    assert hello.proto == wire.PROTOCOL_VERSION and {"sense", "plan", "snap"} <= hello.caps
    assert collector.snapshots()[0] == Snapshot(0, frozenset({4, 17}), "connect")
    assert link.occupancy == {4, 17}


def test_a_hundred_toggles_arrive_exactly_once_and_in_order(
    board: VirtualBoard, link: Link, collector: Collector
) -> None:
    toggles: list[tuple[int, bool]] = []
    for batch in range(20):
        # Five switches change within one scan: reported in matrix order.
        positions = sorted({(batch * 7 + k * 13) % 90 for k in range(5)})
        for pos in positions:
            toggles.append((pos, board.toggle(pos)))
        collector.wait_senses(len(toggles))
    assert_exactly_once(collector, toggles)
    assert link.occupancy == board.closed
    link.request_snapshot()
    collector.wait(lambda ev: isinstance(ev[-1], Snapshot) and ev[-1].reason == "request")
    assert collector.snapshots()[-1].closed == board.closed
    assert len(collector.senses()) == 100


def test_an_led_plan_is_rendered_exactly(board: VirtualBoard, link: Link) -> None:
    link.set_brightness(255)
    lit = {0: 0x400000, 7: 0x004000, 79: 0x102030}
    plan = LedPlan.from_mapping(80, {i: Light(c, SOLID) for i, c in lit.items()})
    link.send_plan(plan)
    link.wait_shown(timeout=5)
    expected = [(0, 0, 0)] * 80
    for i, c in lit.items():
        expected[i] = (c >> 16, (c >> 8) & 0xFF, c & 0xFF)
    # Under the current budget and at full brightness the frame is the plan itself.
    assert board.wait_for(lambda frame: frame == expected, timeout=5) == expected


def test_unplug_mid_stream_loses_and_duplicates_nothing(
    board: VirtualBoard, link: Link, collector: Collector
) -> None:
    link.set_brightness(255)
    plan = LedPlan.from_mapping(80, {5: Light(0x300000, SOLID)})
    link.send_plan(plan)
    board.wait_for(lambda f: f[5] == (0x30, 0, 0))
    toggles = [(pos, board.toggle(pos)) for pos in (1, 2, 3)]
    collector.wait_senses(3)
    board.unplug()
    assert board.find_port() is None
    collector.wait(state_is("searching"))
    # Toggled in matrix order, so the order holds however they fall into scans.
    toggles += [(pos, board.toggle(pos)) for pos in (4, 30, 31, 60)]
    board.replug()
    collector.wait(lambda ev: any(isinstance(e, Snapshot) and e.reason == "reconnect" for e in ev))
    assert_exactly_once(collector, toggles)
    snap = collector.snapshots()[-1]
    assert snap.closed == board.closed == {1, 2, 3, 17, 30, 31, 60}
    assert link.stats()["reconnects"] == 1 and link.stats()["events_folded"] == 0
    board.wait_for(lambda f: f[5] == (0x30, 0, 0))  # the plan is back after the reconnect


def test_a_pico_reset_restarts_the_sequence(
    board: VirtualBoard, link: Link, collector: Collector
) -> None:
    board.toggle(8)
    collector.wait_senses(1)
    boot = link.hello.boot if link.hello else ""
    board.reset()
    collector.wait(lambda ev: sum(isinstance(e, Snapshot) for e in ev) >= 2)
    assert link.hello is not None and link.hello.boot != boot
    assert collector.snapshots()[-1].closed == board.closed
    board.toggle(9)
    event = collector.wait_senses(2)[-1]
    assert (event.seq, event.pos, event.closed) == (1, 9, True)


def test_garbage_on_the_line_is_survived(
    board: VirtualBoard, link: Link, collector: Collector
) -> None:
    link.send_raw(b"\x00\x7f\xfe junk\n" + b"PLAN 9 80 FF0000S*0000\n" + b"Z" * 400 + b"\n")
    toggles = []
    for pos in (10, 11, 12):
        board.inject(b"\x01noise\xff" * 3)  # may split a firmware frame: resent, not lost
        toggles.append((pos, board.toggle(pos)))
        collector.wait_senses(len(toggles))
    board.inject(b"SENSE 999 1 2 1*BEEF\n")
    toggles.append((13, board.toggle(13)))
    collector.wait_senses(len(toggles))
    assert_exactly_once(collector, toggles)
    link.request_stats()
    collector.wait(lambda ev: link.stats()["board"].get("bad_crc") not in (None, "0"))
    board_stats = link.stats()["board"]
    assert int(board_stats["garbage"]) >= 1 and int(board_stats["too_long"]) >= 1
    stats = link.stats()
    assert stats["garbage"] + stats["crc_errors"] >= 2
    assert link.state == "connected"


class _OldHelloPort:
    """The real pty, but every HELLO from the board claims protocol 0 (an old firmware)."""

    def __init__(self, port: serial.Serial) -> None:
        self._port = port
        self._buf = b""

    @property
    def in_waiting(self) -> int:
        return int(self._port.in_waiting)

    def read(self, size: int = 1) -> bytes:
        self._buf += self._port.read(size)
        out, sep, self._buf = self._buf.rpartition(b"\n")
        lines = []
        for line in (out + sep).splitlines(keepends=True):
            if line.startswith(b"HELLO "):
                frame = wire.decode(line)
                line = wire.encode("HELLO", frame.seq, ["0", *frame.fields[1:]])
            lines.append(line)
        return b"".join(lines)

    def write(self, data: bytes, /) -> int | None:
        return self._port.write(data)

    def close(self) -> None:
        self._port.close()


def test_a_protocol_mismatch_is_refused_with_advice(board: VirtualBoard, collector: Collector
                                                     ) -> None:
    def opener(url: str) -> _OldHelloPort:
        return _OldHelloPort(open_serial(url))  # type: ignore[arg-type]

    with Link(board.find_port, collector, opener=opener) as link:
        with pytest.raises(ProtocolMismatchError, match="meridian-table flash") as info:
            link.wait_connected(10)
    assert "protocol 0" in str(info.value) and f"protocol {wire.PROTOCOL_VERSION}" in str(info.value)
    assert not [e for e in collector.events if isinstance(e, (SenseEvent, Snapshot))]


def test_repl_stops_the_firmware_until_a_reset(
    board: VirtualBoard, link: Link, collector: Collector
) -> None:
    link.send_raw(wire.encode("REPL", 1))
    collector.wait(lambda ev: any(isinstance(e, LinkState) and "left its loop" in e.detail
                                  for e in ev))
    board.reset()
    collector.wait(lambda ev: isinstance(ev[-1], Snapshot) and ev[-1].reason == "connect"
                   and len(collector.snapshots()) >= 2, timeout=15)
    assert link.state == "connected"
    board.toggle(2)
    assert collector.wait_senses(1)[-1].seq == 1
