"""Quitting `play` (or a setup error after the board was opened) is not a disconnection.

The real CLI in a subprocess, so that what lands on stderr is exactly what a player
reads: the link closing at the end must not print "board disconnected ... game paused".
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

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


def test_ctrl_c_with_a_bot_at_work_prints_no_traceback(tmp_path: Path) -> None:
    """Issue 26: Ctrl-C reaches the whole process group, the bot's worker too; it printed
    the worker's KeyboardInterrupt and the page server's 'Invalid file descriptor'."""
    from websockets.sync.client import connect

    proc = subprocess.Popen(
        [*CLI, "play", "kato", "--board", "sim", "--seat", "2=bot:1", "--port", "0",
         "--db", str(tmp_path / "games.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        url = None
        for line in proc.stdout:
            match = re.search(r"(http://\S+)", line)
            if match:
                url = match.group(1)
                break
        assert url is not None, "play printed no page URL"
        with connect(url.replace("http://", "ws://").split("?")[0].rstrip("/") + "/ws",
                     open_timeout=20) as ws:
            json.loads(ws.recv())
            ws.send(json.dumps({"type": "command", "id": 1,
                                "cmd": {"cmd": "button", "name": "hint"}}))
            for _ in range(50):  # the hint's answer: the worker has started and thought
                message = json.loads(ws.recv(timeout=30))
                if "Hint" in str(message.get("state", {}).get("message", "")):
                    break
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "leaked" not in err, err
    assert "stopping" in out
