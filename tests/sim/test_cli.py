"""`meridian-table monitor` and `meridian-table sim`, against the virtual board."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, cast

from click.testing import CliRunner
from rich.console import Console
from tests.link.collector import Collector
from tests.portable import PORT_PREFIX

from meridian_table.cli.link import Monitor, run_monitor
from meridian_table.cli.main import main
from meridian_table.link import BoardFault, Link, LinkState, SenseEvent, Snapshot
from meridian_table.profiles import load_profile
from meridian_table.sim import VirtualBoard


def test_monitor_decodes_events_frames_and_bad_lines() -> None:
    out = io.StringIO()
    mon = Monitor(Console(file=out, width=200), names={50: "G6"})
    mon.event(LinkState("connected", "kato-80 on /dev/pts/9"))
    mon.event(SenseEvent(7, 1234, 50, True))
    mon.event(Snapshot(7, frozenset({50, 3}), "reconnect"))
    mon.event(BoardFault("GHOST", ("12",)))
    mon.frame("in", b"NAK 3 PLAN 17 incomplete*1234")  # bad CRC on purpose
    mon.frame("in", b"SHOWN 4 17*" + b"%04X" % _crc(b"SHOWN 4 17"))
    mon.frame("out", b"PING 9 1*" + b"%04X" % _crc(b"PING 9 1"))  # housekeeping: hidden
    text = out.getvalue()
    assert "LINK connected kato-80 on /dev/pts/9" in text
    assert "SENSE #7 pos 50 (G6) closed" in text
    assert "SNAPSHOT (reconnect) up to #7: 2 closed [pos 3, pos 50 (G6)]" in text
    assert "FAULT GHOST 12" in text
    assert "<- BAD bad_crc" in text
    assert "<- SHOWN 4 17" in text
    assert "PING" not in text


def _crc(body: bytes) -> int:
    from meridian_fw import wire

    return wire.crc16(body)


def test_monitor_command_watches_a_virtual_board() -> None:
    profile = load_profile("kato-80")
    with VirtualBoard(profile, closed={profile.sites["G6"].pos}) as vb:
        result = CliRunner().invoke(
            main, ["monitor", vb.port, "--profile", "kato-80", "--duration", "1",
                   "--stats-every", "0"])
    assert result.exit_code == 0, result.output
    assert "LINK connected kato-80" in result.output
    assert "SNAPSHOT (connect) up to #0: 1 closed" in result.output and "(G6)" in result.output
    assert "host counter" in result.output and "frames_in" in result.output


class _LateLink:
    """A link whose board answers ``delay`` seconds after start (a busy host)."""

    def __init__(self, delay: float, answer: str = "connected") -> None:
        self.delay = delay
        self.answer = answer
        self.started = 0.0
        self.seen_connected = False
        self.listeners: list[Callable[[object], None]] = []

    def subscribe(self, listener: Callable[[object], None]) -> None:
        self.listeners.append(listener)

    def tap(self, listener: object) -> None:
        del listener

    def start(self) -> None:
        self.started = time.monotonic()

    @property
    def state(self) -> str:
        if time.monotonic() - self.started < self.delay:
            return "connecting"
        if not self.seen_connected:
            self.seen_connected = self.answer == "connected"
            for listener in self.listeners:
                listener(LinkState(self.answer, "late-board"))  # type: ignore[arg-type]
        return "connected" if self.seen_connected else "searching"

    def request_stats(self) -> None:
        pass

    def stats(self) -> dict[str, Any]:
        return {"connected": self.seen_connected}

    def close(self) -> None:
        pass


def test_a_timed_monitor_counts_its_duration_from_the_connection() -> None:
    # Under load the board may take longer to connect than the whole --duration: the
    # watch must still cover `duration` seconds of a connected board.
    out = io.StringIO()
    link = _LateLink(delay=0.6)
    stats = run_monitor(cast(Link, link), Monitor(Console(file=out, width=200)),
                        duration=0.1, stats_every=0, stop=threading.Event())
    assert stats == {"connected": True}
    assert "LINK connected late-board" in out.getvalue()


def test_a_timed_monitor_with_no_board_there_ends_after_its_duration() -> None:
    # "no board found" is an answer too: the watch ends `duration` after it, not after
    # the whole grace.
    link = _LateLink(delay=0.0, answer="searching")
    started = time.monotonic()
    stats = run_monitor(cast(Link, link), Monitor(Console(file=io.StringIO())),
                        duration=0.1, stats_every=0, stop=threading.Event(), connect_grace=600)
    assert stats == {"connected": False}
    assert time.monotonic() - started < 300  # long before the grace


def test_a_timed_monitor_gives_up_waiting_for_a_board_after_its_grace() -> None:
    link = _LateLink(delay=3600)
    stats = run_monitor(cast(Link, link), Monitor(Console(file=io.StringIO())),
                        duration=0.1, stats_every=0, stop=threading.Event(), connect_grace=0.2)
    assert stats == {"connected": False}


def test_sim_command_prints_its_port_and_obeys_typed_commands(collector: Collector) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from meridian_table.cli.main import main; main()",
         "sim", "--profile", "kato-80", "--no-register"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        port = proc.stdout.readline().strip()
        assert port.startswith(PORT_PREFIX)
        with Link(port, collector) as link:
            assert link.wait_connected(10).board == "kato-80"
            proc.stdin.write("t G6\n")
            proc.stdin.flush()
            event = collector.wait_senses(1)[0]
            assert (event.pos, event.closed) == (load_profile("kato-80").sites["G6"].pos, True)
        proc.stdin.write("q\n")
        proc.stdin.flush()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sim_and_monitor_name_a_bad_profile_or_site() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["sim", "--profile", "no-such-board"])
    assert result.exit_code == 2 and "no board profile has this name" in result.output
    result = runner.invoke(main, ["sim", "--profile", "kato-80", "--closed", "Z99"])
    assert result.exit_code == 2
    assert "'Z99' is neither a matrix position nor a site or button of 'kato-80'" in result.output
    result = runner.invoke(main, ["monitor", "--profile", "no-such-board", "--duration", "0"])
    assert result.exit_code == 2 and "no board profile has this name" in result.output
