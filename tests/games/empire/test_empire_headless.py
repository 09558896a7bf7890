"""Whole games from a script through `meridian-table play empire --headless` (issue 24).

With ``--sensing off`` (a plain printed board) nothing on the board is read: each action
is tapped (``choose action ...``) and the Scelrotia's turn is shown, then confirmed with
one press once the people have carried it out (``button confirm``), never a switch.
The script is worked out beforehand on the engine alone, with seeded random choices.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.games.board import History
from meridian_table.games.empire.adapter import EmpireAdapter
from meridian_table.games.empire.engine import new_game


def script_for(mode: str, players: list[str], seed: int,
               cap: int = 600) -> tuple[list[str], list[str], str]:
    """The headless lines of a whole game, the moves the table must log, and how it ends."""
    game = new_game(players=len(players), mode=mode, seed=seed)  # the table's own names
    mirror = EmpireAdapter(game, dict(game.options))
    rng = random.Random(seed)
    lines: list[str] = []
    moves: list[str] = []
    for _ in range(cap):
        if game.is_over:
            break
        legal = game.legal()
        if legal == ("scelrotia",):
            before = mirror.expected()
            mirror.play("scelrotia")
            lines.append("wait")  # the automaton works its turn out
            if mirror.expected() != before:
                lines += ["button confirm", "wait"]  # carried out on the printed board
            moves.append("scelrotia")
            continue
        options = [a for a in legal if not a.startswith("give ")]
        action = "end" if "end" in options and rng.random() < 0.25 else rng.choice(options)
        mirror.play(action)
        lines.append(f"choose action {action}")
        moves.append(action)
    assert game.is_over, f"seed {seed} does not end within {cap} actions"
    return lines, moves, game.state.reason


def run_headless(mode: str, players: list[str], seed: int, lines: list[str]) -> dict[str, Any]:
    args = ["play", "empire", "--headless", "--board", "sim", "--db", ":memory:",
            "--sensing", "off", "--mode", mode, "--players", ",".join(players),
            "--seed", str(seed), "--settle-ms", "40"]
    result = CliRunner().invoke(main, args, input="\n".join([*lines, "wait", "state", "quit"]) + "\n")
    assert result.exit_code == 0, result.output[-3000:]
    records = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    errors = [r for r in records if r["event"] == "error"]
    assert not errors, errors[:3]
    states = [r["state"] for r in records if r["event"] == "full-state"]
    return states[-1]


@pytest.mark.parametrize(("mode", "players", "seed"), [
    ("infection-solo", ["Ann"], 2),
    ("infection-coop", ["Ann", "Bob"], 3),
    ("standard", ["Ann", "Bob", "Cy"], 4),
])
def test_a_whole_game_with_sensing_off_runs_to_its_end_from_a_script(
        mode: str, players: list[str], seed: int) -> None:
    lines, moves, reason = script_for(mode, players, seed)
    if mode.startswith("infection"):
        assert "button confirm" in lines, "the script never carries out a Scelrotia turn"
    state = run_headless(mode, players, seed, lines)
    assert [m["notation"] for m in state["moves"]] == moves
    assert state["phase"] == "ended", state["message"]
    assert state["result"]["reason"] == reason


def test_with_sensing_off_the_scelrotia_turn_waits_for_one_confirm_not_a_switch() -> None:
    """The issue's repro: the turn that changes the board is shown, then one press."""
    lines = ["choose action settle planet.yellow.1 s1", "choose action end", "wait",
             "choose action end", "wait"]
    state = run_headless("infection-solo", ["Ann"], 7, lines)
    assert state["phase"] == "execute"
    assert "press Confirm" in state["message"] and "put a" not in state["message"]
    assert state["control_state"]["confirm"]["enabled"]
    assert state["diff"]["next"] is None  # no switch is asked for
    state = run_headless("infection-solo", ["Ann"], 7, [*lines, "button confirm", "wait"])
    assert state["phase"] == "play"
    assert [m["notation"] for m in state["moves"]][-1] == "scelrotia"


def test_the_round_one_scelrotia_turn_is_logged_under_round_one() -> None:
    game = new_game(players=1, mode="infection-solo", seed=7)
    adapter = EmpireAdapter(game, dict(game.options))
    history = History(adapter)
    history.play("end")
    history.play("scelrotia")
    log = adapter.board_json()["ledger"]["log"]
    assert log[-1].startswith("Round 1: Scelrotia"), log
