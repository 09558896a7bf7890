"""The README's first command on a fresh clone: `make run` prints a URL that serves a board,
with no warning boxes on the way and no test fixture (the toy game) among its games.

A fresh clone of the committed tree, a fresh virtual environment (pip may reuse its
cache), then `make run` exactly as the README says, with `ARGS` only to pick a free
port and keep the game log in a temporary folder.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
URL = re.compile(r"Table page: (http://\S+)")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_make_run_on_a_fresh_clone_serves_a_playable_board(tmp_path: Path) -> None:
    if shutil.which("make") is None or shutil.which("git") is None:
        pytest.skip("needs make and git")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PIP_NO_CACHE_DIR")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT / ".venv"))
    )
    env["MERIDIAN_TABLE_DB"] = str(tmp_path / "games.sqlite3")
    env["MERIDIAN_SIM_REGISTRY"] = str(tmp_path / "sims")
    proc = subprocess.Popen(
        ["make", "run", f"PYTHON={sys.executable}", "ARGS=--port 0 --board sim"],
        cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    output: list[str] = []
    try:
        url = None
        while url is None:
            line = lines.get(timeout=240)
            if line is None:
                raise AssertionError("make run ended:\n" + "".join(output[-40:]))
            output.append(line)
            match = URL.search(line)
            if match:
                url = match.group(1)
        with urllib.request.urlopen(url, timeout=10) as response:
            page = response.read().decode()
        assert response.status == 200 and 'id="board"' in page
        with urllib.request.urlopen(url.rstrip("/") + "/api/state", timeout=10) as response:
            state = json.loads(response.read())
        assert state["game"] == "kato" and len(state["board"]["sites"]) == 114
        assert state["phase"] == "play" and state["link"]["virtual"] is True
        # No warning boxes on the way (setuptools prints "!!" around each), and the
        # test-only toy game is not installed: the New game list never offers it.
        boxes = [line for line in output if line.strip() == "!!"]
        assert boxes == [], "make run printed warning boxes:\n" + "".join(output[-60:])
        listed = subprocess.run(
            [str(clone / ".venv" / "bin" / "python"), "-c",
             "from meridian_table.games import registry; print(sorted(registry.specs()))"],
            capture_output=True, text=True, check=True, env=env).stdout
        assert "'kato'" in listed and "'toy'" not in listed, listed
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
