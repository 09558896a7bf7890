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


def test_wait_waits_for_a_pending_hint() -> None:
    """Issue 26: `wait` returned before the hint's answer, so the state after it had no
    hint; it waits for the hint as it waits for an automaton's move."""
    import json as _json

    from click.testing import CliRunner as _Runner

    from meridian_table.cli.main import main as _main

    result = _Runner().invoke(_main, ["play", "kato", "--headless", "--board", "sim",
                                      "--db", ":memory:"],
                              input="place G6\nplace J7\nwait\nbutton hint\nwait\nstate\n")
    assert result.exit_code == 0, result.output
    records = [_json.loads(line) for line in result.stdout.splitlines()
               if line.startswith("{")]
    states = [r["state"] for r in records if r.get("event") == "full-state"]
    assert states and str(states[-1]["message"]).startswith("Hint: "), states[-1]["message"]
