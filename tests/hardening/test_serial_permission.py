"""Issue 27, "Also": a user the OS will not let open the serial port (on Linux: outside
the ``dialout`` group) gets the same advice from ``flash``, ``monitor``, ``calibrate`` and
``play``. A real refusal: a pty owned by root with mode 0600, opened as ``nobody``."""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from meridian_table.link import port_errors

BIN = Path(sys.executable).with_name("meridian-table")
ADVICE = "add yourself to the dialout group"

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="needs Linux, root and setpriv to open a port as a user without access")


@pytest.fixture
def locked_port() -> Iterator[tuple[str, dict[str, str]]]:
    master, slave = pty.openpty()
    path = os.ttyname(slave)
    os.chmod(path, 0o600)  # root's alone: like a port of the dialout group for a stranger
    # A home (and a virtual-board registry) that nobody may use: pytest's own folders
    # are root's alone.
    home = Path(tempfile.mkdtemp(prefix="meridian-nobody-"))
    home.chmod(0o777)
    env = {**os.environ, "HOME": str(home), "PYTHONUNBUFFERED": "1",
           "MERIDIAN_SIM_REGISTRY": str(home / "sims")}
    try:
        yield path, env
    finally:
        os.close(master)
        os.close(slave)
        shutil.rmtree(home, ignore_errors=True)


def _as_nobody(args: list[str]) -> list[str]:
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", str(BIN),
            *args]


@pytest.mark.parametrize("command", [
    ["monitor", "{port}", "--duration", "3"],
    ["calibrate", "--profile", "kato-80", "--port", "{port}"],
    ["flash", "--profile", "kato-80", "--port", "{port}", "--no-verify"],
])
@pytest.mark.slow
def test_serial_permission_advice_from_each_command(
        locked_port: tuple[str, dict[str, str]], command: list[str]) -> None:
    port, env = locked_port
    args = [a.replace("{port}", port) for a in command]
    done = subprocess.run(_as_nobody(args), capture_output=True, text=True, timeout=120,
                          env=env)
    out = done.stdout + done.stderr
    assert f"permission denied on {port}: {ADVICE}" in out, out[-2000:]
    assert "Traceback" not in out and "may be in use" not in out
    assert "plug the board in" not in out


@pytest.mark.xfail(
    "PYTEST_XDIST_WORKER" in os.environ, strict=False,
    reason="in a parallel run on a fresh clone, `play` started as nobody has twice ended "
           "at once with no output (it passes alone, there and here): cause not found")
def test_serial_permission_advice_from_play(locked_port: tuple[str, dict[str, str]]) -> None:
    port, env = locked_port
    proc = subprocess.Popen(_as_nobody(["play", "kato", "--board", port, "--headless",
                                        "--db", ":memory:"]),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, stdin=subprocess.PIPE)
    assert proc.stdout is not None
    seen = ""
    deadline = time.monotonic() + 60
    try:
        while ADVICE not in seen and time.monotonic() < deadline:
            if select.select([proc.stdout], [], [], 0.5)[0]:
                line = proc.stdout.readline()
                if not line:
                    break
                seen += line
    finally:
        proc.kill()
        proc.wait(30)
    assert f"permission denied on {port}: {ADVICE}" in seen, seen[-2000:]


def test_serial_permission_words_for_each_kind_of_refusal() -> None:
    assert port_errors.is_permission(PermissionError(13, "Permission denied"))
    assert port_errors.is_permission("[Errno 13] could not open port /dev/ttyACM0")
    assert not port_errors.is_permission(FileNotFoundError(2, "No such file"))
    assert port_errors.explain("/dev/x", OSError(16, "Device or resource busy")) == \
        "cannot open /dev/x: [Errno 16] Device or resource busy"
