"""The virtual board's two transports: the pty and the loopback socket (as on Windows).

Both are run here whatever MERIDIAN_TABLE_SIM_TRANSPORT says, with the real link.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time

import pytest
from tests.link.collector import Collector
from tests.portable import port_exists

from meridian_table.link import Link
from meridian_table.sim import TransportError, VirtualBoard, VirtualBoardError
from meridian_table.sim.loopback import LoopbackPort
from meridian_table.sim.transport import ENV_VAR, choose, pty_available

SMALL = {"board": "tiny", "rows": 2, "cols": 3, "row_pins": [0, 1], "col_pins": [2, 3, 4],
         "leds": 4, "led_pin": 5}
TRANSPORTS = ["socket", *(["pty"] if pty_available() else [])]


def test_the_choice_follows_the_argument_then_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert choose() == ("pty" if pty_available() else "socket")
    monkeypatch.setenv(ENV_VAR, "Socket")
    assert choose() == "socket"
    if pty_available():
        assert choose("pty") == "pty"  # the argument wins over the environment
    monkeypatch.setenv(ENV_VAR, "serial")
    with pytest.raises(TransportError, match=f"{ENV_VAR} 'serial' is not one of pty, socket"):
        choose()
    with pytest.raises(TransportError, match="transport 'usb' is not one of"):
        choose("usb")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_link_is_the_same_over_either_transport(transport: str,
                                                    collector: Collector) -> None:
    with VirtualBoard(SMALL, transport=transport) as vb:  # type: ignore[arg-type]
        assert vb.transport == transport
        assert vb.port.startswith("socket://127.0.0.1:" if transport == "socket" else "/dev/")
        with Link(vb.find_port, collector) as link:
            assert link.wait_connected(10).board == "tiny"
            vb.set_switch(4, True)
            event = collector.wait_senses(1)[0]
            assert (event.pos, event.closed) == (4, True)
            first = vb.port
            vb.unplug()
            collector.wait(lambda ev: not port_exists(first), timeout=5)
            snapshots = len(collector.snapshots())
            vb.replug()
            # The occupancy comes in the snapshot after the hello, not with "connected".
            collector.wait(lambda ev: link.stats()["reconnects"] == 1
                           and link.state == "connected"
                           and len(collector.snapshots()) > snapshots)
            assert link.occupancy == {4}


def test_a_bad_transport_is_a_virtual_board_error_when_it_starts() -> None:
    board = VirtualBoard(SMALL, transport="usb")  # type: ignore[arg-type]
    with pytest.raises(VirtualBoardError, match="transport 'usb' is not one of pty, socket"):
        board.start()


def test_the_sim_command_names_a_bad_transport_without_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from meridian_table.cli.main import main; main()",
         "sim", "--profile", "kato-80", "--no-register"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        env={**os.environ, ENV_VAR: "carrier-pigeon"})
    assert done.returncode == 1
    assert f"{ENV_VAR} 'carrier-pigeon' is not one of pty, socket" in done.stderr
    assert "Traceback" not in done.stderr


def _read_some(port: LoopbackPort, timeout: float = 5.0) -> bytes:
    """Wait on the port as the firmware's idle() does, until the host's bytes arrive."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        select.select(port.selectables(), [], [], 0.1)
        data = port.read()
        if data:
            return data
    return b""


def test_the_socket_drops_output_with_no_host_and_refuses_a_second_one() -> None:
    port = LoopbackPort()
    try:
        port.write(b"HELLO\n")
        assert port.dropped == 6 and not port.connected
        host, number = port.path.removeprefix("socket://").split(":")
        first = socket.create_connection((host, int(number)), timeout=2)
        second = socket.create_connection((host, int(number)), timeout=2)
        first.sendall(b"WHO\n")
        assert _read_some(port) == b"WHO\n" and port.connected
        port.read()  # the board notices the second host and closes it
        second.settimeout(2)
        assert second.recv(10) == b"" and port.refused == 1
        port.write(b"HELLO\n")
        first.settimeout(2)
        assert first.recv(10) == b"HELLO\n"
        first.close()
        second.close()
    finally:
        port.close()
