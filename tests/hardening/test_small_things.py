"""The small things a new user hits first (issue 10, item 16)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.cli.helpers import refuse

from meridian_table.cli.main import main
from meridian_table.profiles import list_profiles

BIN = Path(sys.executable).with_name("meridian-table")


def test_profile_list_never_cuts_a_name_at_80_columns() -> None:
    result = CliRunner(env={"COLUMNS": "80"}).invoke(main, ["profile", "list"])
    assert result.exit_code == 0, result.output
    for name in list_profiles():
        assert name in result.output, (name, result.output)
        assert max(len(line) for line in result.output.splitlines()) <= 80


@pytest.mark.parametrize("command", [["play", "kato"], ["colovini", "score"]])
def test_a_serial_device_given_as_the_page_port_points_to_the_right_option(
    command: list[str]
) -> None:
    error = refuse([*command, "--port", "/dev/ttyUSB9"], "/dev/ttyUSB9", "--port", code=2)
    if command[0] == "play":
        assert "--board /dev/ttyUSB9" in error
    refuse([*command, "--port", "70000"], "70000", "0..65535", code=2)


def _interrupt(args: list[str], ready: str, stdin: int | None = None) -> subprocess.CompletedProcess[str]:
    """Start ``meridian-table ARGS``, wait for ``ready`` on stdout, send Ctrl-C (SIGINT)."""
    proc = subprocess.Popen([str(BIN), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=stdin if stdin is not None else subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    seen = ""
    deadline = time.monotonic() + 60
    while ready not in seen and time.monotonic() < deadline:
        if not select.select([proc.stdout], [], [], 0.5)[0]:
            continue
        line = proc.stdout.readline()
        if not line:
            break
        seen += line
    if ready not in seen:
        proc.kill()
        raise AssertionError(f"never printed {ready!r}: {seen!r} {proc.communicate()[1]!r}")
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=90)  # generous: it bounds a hang on a busy machine
    return subprocess.CompletedProcess(proc.args, proc.returncode, seen + out, err)


def test_ctrl_c_stops_score_cleanly_like_play() -> None:
    done = _interrupt(["colovini", "score", "--port", "0"], "Scoring page")
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "Aborted!" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "stopped" in done.stdout


def test_ctrl_c_in_empire_play_stops_cleanly_and_writes_the_record(tmp_path: Path) -> None:
    record = tmp_path / "game.txt"
    read, write = os.pipe()  # stdin stays open: the player is still typing
    try:
        done = _interrupt(["empire", "play", "--players", "Ann,Bob", "--seed", "7",
                           "--record", str(record)], "to act", stdin=read)
    finally:
        os.close(write)
        os.close(read)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "Aborted!" not in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert record.exists() and "Game:" in record.read_text()


def test_bench_prints_a_verdict_per_target_and_the_load_average() -> None:
    result = CliRunner().invoke(main, ["bench", "kato", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert set(figures["verdict"].values()) <= {"pass", "fail"} and figures["verdict"]
    assert len(figures["load_average"]) == 3
    text = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["bench", "kato", "--quick"]).output
    assert "load average" in text
    for target in figures["verdict"]:
        assert target in text
    assert ("pass" in text) or ("fail" in text)
