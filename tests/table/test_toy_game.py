"""A game in its own package (tests/toygame, registered by its entry point) at the table:
played headless on the virtual board, logged, replayed and exported. No shared file
names it: the registry finds it as it finds every game."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from meridian_toygame.spec import PROFILE

from meridian_table.games import registry

CLI = [sys.executable, "-m", "meridian_table.cli.main"]


def _run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_toy_game_is_found_through_its_entry_point() -> None:
    spec = registry.spec("toy")
    assert spec.title == "Toy" and "random" in spec.policies
    help_text = _run(["play", "--help"]).stdout
    assert "toy" in help_text and "claim cells" in help_text


def test_a_toy_game_headless_on_the_virtual_board_then_replayed_and_exported(
        tmp_path: Path) -> None:
    db = str(tmp_path / "toy.sqlite3")
    # Cross takes the diagonal a, e, i; Nought answers b, c: three in a row wins.
    script = "".join(f"place {cell}\nwait\n" for cell in "abeci")
    out = _run(["play", "toy", "--headless", "--board", "sim", "--db", db,
                "--players", "Xena,Otto"], script)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    moves = [r["notation"] for r in records if r["event"] == "move"]
    assert moves == ["a", "b", "e", "c", "i"], moves
    final = [r for r in records if r["event"] == "state"][-1]
    assert final["phase"] == "ended" and final["result"]["winner"] == "cross"

    listed = _run(["games", "--db", db])
    assert listed.returncode == 0 and "toy" in listed.stdout and "Xena" in listed.stdout
    replayed = _run(["replay", "1", "--db", db])
    assert replayed.returncode == 0, replayed.stderr
    assert "XOO\n.X.\n..X" in replayed.stdout
    record = _run(["export", "1", "--format", "record", "--db", db])
    # The plain record format: options as headers, one action a line.
    assert record.returncode == 0 and '[Option marks "XO"]' in record.stdout
    assert record.stdout.rstrip().endswith("\n".join("abeci"))
    jsonl = _run(["export", "1", "--format", "jsonl", "--db", db])
    kinds = [json.loads(line)["kind"] for line in jsonl.stdout.splitlines()]
    assert kinds.count("action") == 5 and "result" in kinds


def test_the_toy_against_its_random_automaton_headless(tmp_path: Path) -> None:
    out = _run(["play", "toy", "--headless", "--board", "sim", "--db", ":memory:",
                "--seat", "2=random", "--profile", PROFILE], "place e\nwait\nwait\nstate\n")
    assert out.returncode == 0, out.stderr
    full = [json.loads(line) for line in out.stdout.splitlines()]
    state = [r["state"] for r in full if r["event"] == "full-state"][-1]
    assert state["seats_kind"] == {"cross": "person", "nought": "random"}
    last = state["moves"][-1]
    if last["notation"] == "pass":
        # The random automaton may pass (1 choice in 9): nothing to carry out, played
        # at once, and the person is to move again.
        assert last["player"] == "nought" and state["phase"] == "play"
    else:
        # It chose a cell: the board shows where to put its piece (the execute phase).
        assert state["phase"] == "execute", state["phase"]
    assert state["spec"]["page"]["seats"]["nought"]["colour"] == "#20a020"


def test_a_toy_game_resumes_and_lists_its_boards_from_its_own_package(tmp_path: Path) -> None:
    """The toy's board profile lives in its own package (``GameSpec.boards``): named, it
    is found there by ``play``, ``--resume`` and ``profile list/show`` alike."""
    db = str(tmp_path / "toy.sqlite3")
    first = _run(["play", "toy", "--headless", "--board", "sim", "--db", db], "place a\nwait\nquit\n")
    assert first.returncode == 0, first.stderr
    resumed = _run(["play", "toy", "--headless", "--board", "sim", "--db", db, "--resume"],
                   "place b\nwait\nstate\nquit\n")
    assert resumed.returncode == 0, resumed.stderr
    records = [json.loads(line) for line in resumed.stdout.splitlines()]
    moves = [r["notation"] for r in records if r["event"] == "move"]
    assert moves == ["b"], moves
    listed = _run(["profile", "list"])
    assert listed.returncode == 0 and "toy-9" in listed.stdout, listed.stdout
    shown = _run(["profile", "show", "toy-9"])
    assert shown.returncode == 0 and "toy-9" in shown.stdout and "confirm" in shown.stdout, shown.stdout


def test_a_game_reopens_from_the_profile_its_log_kept(tmp_path: Path) -> None:
    """A board profile that is gone when the game is resumed (its package moved, its
    file renamed) is read back from the ``board`` event the game logged at its start."""
    boards = tmp_path / "boards"
    boards.mkdir()
    shipped = json.loads(Path(registry.spec("toy").boards or "", "toy-9.json").read_text())
    (boards / "my-toy.json").write_text(json.dumps({**shipped, "name": "my-toy"}))
    db = str(tmp_path / "toy.sqlite3")
    env_run = [*CLI, "play", "toy", "--headless", "--board", "sim", "--db", db]
    env = {**os.environ, "MERIDIAN_TABLE_BOARDS": str(boards)}
    first = subprocess.run([*env_run, "--profile", "my-toy"], input="place a\nwait\nquit\n",
                           capture_output=True, text=True, timeout=120, env=env, check=False)
    assert first.returncode == 0, first.stderr
    (boards / "my-toy.json").unlink()
    resumed = subprocess.run([*env_run, "--resume"], input="place e\nwait\nstate\nquit\n",
                             capture_output=True, text=True, timeout=120, env=env, check=False)
    assert resumed.returncode == 0, resumed.stderr
    records = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert [r["notation"] for r in records if r["event"] == "move"] == ["e"]
    jsonl = _run(["export", "1", "--format", "jsonl", "--db", db])
    events = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert [e["payload"]["notation"] for e in events if e["kind"] == "action"] == ["a", "e"]
    assert [e["payload"]["name"] for e in events if e["kind"] == "board"] == ["my-toy"]


def test_a_game_may_play_on_another_games_board_without_a_copy() -> None:
    """``GameSpec.plays_on``: a game played on the Kato boards as they are accepts their
    profiles; every other game's boards are still refused."""
    toy = registry.spec("toy")
    assert toy.accepts_board("toy") and not toy.accepts_board("kato")
    on_kato = replace(toy, plays_on=("kato",))
    assert on_kato.accepts_board("kato") and on_kato.accepts_board("toy")
    assert not on_kato.accepts_board("colovini")
