"""Undo with a stray piece on the board first asks for the board, then undoes; the undone
piece is never read back as a move (issue 10, item 12)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from meridian_table.cli.main import main

GAME = "place G6\nplace J7\nplace G8\nplace J9\nplace E6\nplace H9\n"


def headless(script: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["play", "kato", "--headless", "--board", "sim",
                                       "--db", ":memory:"], input=script)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_undo_waits_for_a_stray_stone_then_takes_back_the_move_for_good() -> None:
    records = headless(GAME + "place A1\nwait\nbutton undo\nstate\nlift A1\nwait\n"
                       "button undo\nlift H9\nwait\nstate\n")
    errors = [r for r in records if r["event"] == "error"]
    assert len(errors) == 1 and errors[0]["cmd"] == "button undo"
    message = str(errors[0]["error"])
    assert "A1" in message and "H9" in message and "Undo waits" in message
    states = [r["state"] for r in records if r["event"] == "full-state"]
    # Refused: nothing was undone, and the page's Undo says why it waits.
    assert [m["notation"] for m in states[1]["moves"]][-1] == "H9"  # type: ignore[index]
    undo = states[1]["control_state"]["undo"]  # type: ignore[index]
    assert undo["enabled"] is False and "lift the piece from A1" in undo["why"]
    # Once A1 is off, Undo takes back H9; lifting H9 is no new move.
    undos = [r["notation"] for r in records if r["event"] == "undo"]
    assert undos == ["H9"]
    final = states[-1]
    assert [m["notation"] for m in final["moves"]] == ["G6", "J7", "G8", "J9", "E6"]  # type: ignore[index]
    assert final["phase"] == "play" and final["to_move"] == "dark"
    moves = [r["notation"] for r in records if r["event"] == "move"]
    assert moves == ["G6", "J7", "G8", "J9", "E6", "H9"]  # H9 was not read again
