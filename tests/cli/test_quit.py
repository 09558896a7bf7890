"""Quitting `play` (or a setup error after the board was opened) is not a disconnection.

The real CLI in a subprocess, so that what lands on stderr is exactly what a player
reads: the link closing at the end must not print "board disconnected ... game paused".
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys

CLI = [sys.executable, "-c", "from meridian_table.cli.main import main; main()"]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True,
                          timeout=60, check=False)


def test_a_clean_headless_quit_says_nothing_about_a_disconnection() -> None:
    done = run("play", "kato", "--board", "sim", "--headless", "--db", ":memory:",
               stdin="wait\nquit\n")
    assert done.returncode == 0, done.stderr
    assert "disconnected" not in done.stderr.lower(), done.stderr
    assert "paused" not in done.stderr, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records[0]["event"] == "ready" and records[-1] == {"event": "ack", "cmd": "wait"}
    assert not any(r.get("phase") == "paused" for r in records), records


def test_a_setup_error_after_the_board_opened_prints_only_the_error() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = run("play", "kato", "--board", "sim", "--db", ":memory:", "--port", str(port))
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), done.stderr
