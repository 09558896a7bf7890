"""Drive `meridian-table play --headless` in a subprocess: send commands, read JSON lines."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-c", "from meridian_table.cli.main import main; main()"]


class Headless:
    """`play GAME --headless` on the virtual board in a subprocess: commands in, JSON out.

    ``extra`` are more `play` options (``"--resume"``, ``"--players", "Ann,Bob,Cid"``).
    With ``strict``, :meth:`ask` fails on an ``error`` record instead of returning it.
    ``cli``, ``env`` and ``cwd`` run another installation (the wheel test's venv).
    """

    def __init__(self, db: Path, *extra: str, game: str = "kato", strict: bool = False,
                 cli: Sequence[str] = CLI, env: Mapping[str, str] | None = None,
                 cwd: Path | None = None) -> None:
        env = dict(os.environ if env is None else env, PYTHONUNBUFFERED="1")
        self.game = game
        self.strict = strict
        self.proc = subprocess.Popen(
            [*cli, "play", game, "--board", "sim", "--headless", "--db", str(db),
             "--settle-ms", "30", *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env, cwd=cwd,
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.moves: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self.lines.put(json.loads(line))
            except json.JSONDecodeError:
                continue
        self.lines.put(None)

    def next(self, timeout: float = 20.0) -> dict[str, Any]:
        record = self.lines.get(timeout=timeout)
        if record is None:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise AssertionError(f"the CLI ended: {err[-2000:]}")
        if record["event"] == "move":
            self.moves.append(record["notation"])
        elif record["event"] == "undo":
            assert self.moves and self.moves[-1] == record["notation"]
            self.moves.pop()
        return record

    def until(self, event: str, timeout: float = 20.0) -> dict[str, Any]:
        while True:
            record = self.next(timeout)
            if record["event"] == event:
                return record

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def ask(self, line: str) -> list[dict[str, Any]]:
        """Send a command and return the records up to its ack (strict: no ``error``)."""
        self.send(line)
        out = []
        while True:
            record = self.next()
            out.append(record)
            assert not (self.strict and record["event"] == "error"), record
            if record["event"] == "ack" and record["cmd"] == line:
                return out

    def state(self) -> dict[str, Any]:
        for record in self.ask("wait"):
            if record["event"] == "full-state":
                return dict(record["state"])
        raise AssertionError("no state")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def quit(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(15)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
