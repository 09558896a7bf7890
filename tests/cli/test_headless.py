"""Mistyped headless commands are answered with an error line; the session goes on."""

from __future__ import annotations

import json

from click.testing import CliRunner

from meridian_table.cli.main import main


def test_bad_headless_commands_are_errors_and_play_continues() -> None:
    script = "place G6 A1\nplace Z9\nbutton nosuch\nfrobnicate\nplace G6\nwait\nquit\n"
    result = CliRunner().invoke(
        main, ["play", "kato", "--headless", "--board", "sim", "--db", ":memory:",
               "--settle-ms", "50"], input=script)
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    errors = {r["cmd"]: r["error"] for r in records if r["event"] == "error"}
    assert "place takes one site" in errors["place G6 A1"] and "'G6 A1'" in errors["place G6 A1"]
    assert "site 'Z9' is not on board 'kato-114'" in errors["place Z9"]
    assert "A1 .. M6" in errors["place Z9"]
    assert "'nosuch'" in errors["button nosuch"] and "confirm" in errors["button nosuch"]
    assert "unknown headless command 'frobnicate'" in errors["frobnicate"]
    moves = [r["notation"] for r in records if r["event"] == "move"]
    assert moves == ["G6"], "the session stopped after a mistyped command"
