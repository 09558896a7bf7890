"""Corrupt serial lines, both ways, against the real firmware behind the virtual board.

Host -> firmware: garbage, a bad CRC, truncated frames, 0x03 (Ctrl-C to MicroPython),
a malformed frame and an over-long line. The firmware must survive (answer the next
PING), lose nothing (a switch closed meanwhile still arrives) and count each one
exactly as `wire.decode` classifies it, in its STATS. Firmware -> host: noise on the
line shows up in `monitor` as BAD lines and in the host's counters, and the board's
counters appear in monitor's statistics table.
"""

from __future__ import annotations

import io
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import serial
from rich.console import Console
from tests.link.collector import Collector

from meridian_fw import wire
from meridian_table.cli.link import Monitor, run_monitor
from meridian_table.link import Link, LinkState
from meridian_table.profiles import load_profile
from meridian_table.sim import VirtualBoard

PING = wire.encode("PING", 3, ["7"]).rstrip(b"\n")
BAD_LINES = [
    b"\x00\x7fjunk\xff",                                      # not printable ASCII
    b"PLAN 9 80 FF0000S*0000",                               # wrong CRC
    PING[: len(PING) // 2],                                    # truncated: no CRC at all
    PING[:-2],                                                 # truncated inside the CRC
    b"\x03\x03" + PING + b"\x03",                              # Ctrl-C bytes around a frame
    b"ping x*%04X" % wire.crc16(b"ping x"),                    # CRC fine, TYPE/SEQ malformed
    b"Z" * (wire.MAX_LINE + 50),                               # too long for the buffer
]


def _expected_counts() -> Counter[str]:
    counts: Counter[str] = Counter()
    for line in BAD_LINES:
        with pytest.raises(wire.FrameError) as caught:
            wire.decode(line)
        counts[wire.ERROR_NAMES[caught.value.code]] += 1
    return counts


def _read_frames(port: serial.Serial, wanted: str, timeout: float = 10.0) -> wire.Frame:
    deadline = time.monotonic() + timeout
    buffer = b""
    while time.monotonic() < deadline:
        buffer += port.read(4096)
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            try:
                frame = wire.decode(line)
            except wire.FrameError:
                continue
            if frame.type == wanted:
                return frame
    raise AssertionError(f"no {wanted} frame from the board within {timeout} s")


@pytest.fixture(params=["cpython", "micropython"])
def board(request: pytest.FixtureRequest) -> Iterator[VirtualBoard]:
    with VirtualBoard(load_profile("kato-80"), mode=request.param) as vb:
        yield vb


def test_the_firmware_survives_and_counts_every_corrupt_line(board: VirtualBoard) -> None:
    expected = _expected_counts()
    assert set(expected) == {"garbage", "bad_crc", "bad_format", "too_long"}
    with serial.serial_for_url(board.port, timeout=0.05) as port:
        for line in BAD_LINES:
            port.write(line + b"\n")
        port.write(PING + b"\n")
        assert _read_frames(port, "PONG").fields[0] == "7", "the firmware stopped answering"
        port.write(wire.encode("STATS", 4, []))
        stats = dict(field.split("=", 1) for field in _read_frames(port, "STATS").fields)
    for name in ("garbage", "bad_crc", "bad_format", "too_long"):
        assert int(stats[name]) == expected[name], (name, stats)
    assert stats["exc"] == "0"


def test_monitor_shows_noise_from_the_board_and_the_board_counts_the_hosts(
    board: VirtualBoard, collector: Collector
) -> None:
    out = io.StringIO()
    monitor = Monitor(Console(file=out, width=200), names={4: "A5"})
    link = Link(board.find_port)
    link.subscribe(collector)
    stop = threading.Event()
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(run_monitor(
        link, monitor, duration=None, stats_every=0.2, stop=stop)), daemon=True)
    thread.start()
    try:
        collector.wait(lambda ev: any(isinstance(e, LinkState) and e.state == "connected"
                                      for e in ev))
        board.inject(b"\n\x01noise\xff\n" + b"SENSE 999 1 2 1*BEEF\n")  # board -> host
        link.send_raw(b"PLAN 9 80 FF0000S*0000\n")                   # host -> board
        board.toggle(4)
        collector.wait_senses(1)

        def shown(text: str) -> bool:
            flat = " ".join(out.getvalue().split())
            return text in flat

        collector.wait(lambda ev: all(shown(t) for t in (
            "<- BAD garbage", "<- BAD bad_crc", "SENSE #1 pos 4 (A5) closed",
            "board bad_crc │ 1")))
    finally:
        stop.set()
        thread.join(10)
    assert result["garbage"] >= 1 and result["crc_errors"] >= 1
    assert result["events_delivered"] == 1
