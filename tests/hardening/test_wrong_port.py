"""A serial device that is not the board is diagnosed, with advice, in the terminal and
in headless output (issue 10, item 13; the page's banner is in tests/web)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from meridian_table.sim.pty import Pty

BIN = Path(sys.executable).with_name("meridian-table")


def test_a_port_that_never_says_hello_is_named_with_advice() -> None:
    silent = Pty()  # a serial port nobody answers on (like /dev/ttyS0)
    try:
        result = subprocess.run(
            [str(BIN), "play", "kato", "--headless", "--board", silent.path, "--db", ":memory:"],
            input="state\n", capture_output=True, text=True, timeout=120)
    finally:
        silent.close()
    assert result.returncode == 0, result.stderr
    advice = f"no HELLO from {silent.path} within 3 s (it sent nothing): is this the Pico? " \
        f"try `meridian-table monitor {silent.path}`"
    assert advice in result.stderr, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    ready = records[0]
    assert ready["event"] == "ready" and ready["ready"] is False
    assert ready["link"] == "searching" and advice in ready["link_detail"], ready
