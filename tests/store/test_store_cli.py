"""`meridian-table games`, `replay` and `export` against a real log file."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.store import Store


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "200"})


@pytest.fixture
def logged(db_path: Path) -> tuple[Path, int, int]:
    """A finished Colovini game and an empty running Kato game."""
    from meridian_table.games import colovini

    with Store.open(db_path) as store:
        options = {"players": 2, "seed": 5}
        gid = store.create_game("colovini", options, ["Ann", "Bob"], profile="colovini-50")
        live = colovini.new_game(**options)
        rng = random.Random(8)
        for _ in range(6):
            action = rng.choice(live.legal_actions())
            live.play(action)
            store.append(gid, "action", {"notation": action.notation(), "player": "Ann"})
        store.finish(gid, {"winners": ["Bob"], "reason": "more islands",
                           "scores": [{"player": "Ann", "total": 7},
                                      {"player": "Bob", "total": 9}]})
        running = store.create_game("kato", {"size": 6, "pie": False}, ["Cy", "Di"])
    return db_path, gid, running


def test_games_lists_every_game(runner: CliRunner, logged: tuple[Path, int, int]) -> None:
    path, gid, running = logged
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    out = runner.invoke(main, ["games", "--db", str(path)])
    assert out.exit_code == 0, out.output
    assert "colovini" in out.output and "Ann, Bob" in out.output
    assert "Bob wins (more islands)" in out.output
    assert "kato" in out.output and "running" in out.output
    # Listing is read-only: the file is byte-for-byte the same, no side files.
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    only = runner.invoke(main, ["games", "--db", str(path), "--game", "kato"])
    assert "colovini" not in only.output and "Cy, Di" in only.output


def test_games_uses_the_environment_variable(runner: CliRunner,
                                             logged: tuple[Path, int, int]) -> None:
    path, _, _ = logged
    out = runner.invoke(main, ["games"], env={"MERIDIAN_TABLE_DB": str(path), "COLUMNS": "200"})
    assert out.exit_code == 0 and "colovini" in out.output


def test_games_on_an_empty_log(runner: CliRunner, db_path: Path) -> None:
    Store.open(db_path).close()
    out = runner.invoke(main, ["games", "--db", str(db_path)])
    assert out.exit_code == 0 and "No games logged" in out.output


def test_games_on_a_missing_or_corrupt_file(runner: CliRunner, tmp_path: Path) -> None:
    missing = runner.invoke(main, ["games", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 1 and "does not exist" in missing.output
    bad = tmp_path / "bad.db"
    bad.write_text("not a database at all, sorry" * 10)
    corrupt = runner.invoke(main, ["games", "--db", str(bad)])
    assert corrupt.exit_code == 1 and "is not an SQLite database" in corrupt.output
    assert bad.read_text() == "not a database at all, sorry" * 10


def test_replay_prints_moves_and_stops_at_a_ply(runner: CliRunner,
                                                logged: tuple[Path, int, int]) -> None:
    path, gid, _ = logged
    with Store.open(path, readonly=True) as store:
        moves = store.actions(gid)
    out = runner.invoke(main, ["replay", str(gid), "--db", str(path)])
    assert out.exit_code == 0, out.output
    assert "Moves (showing 6 of 6)" in out.output
    for notation in moves:
        assert notation in out.output
    part = runner.invoke(main, ["replay", str(gid), "--db", str(path), "--ply", "2"])
    assert part.exit_code == 0 and "Moves (showing 2 of 6)" in part.output
    assert moves[2] not in part.output.split("Moves (showing")[1]
    too_far = runner.invoke(main, ["replay", str(gid), "--db", str(path), "--ply", "9"])
    assert too_far.exit_code == 1 and "ply 9 is outside game" in too_far.output


def test_replay_unknown_game(runner: CliRunner, logged: tuple[Path, int, int]) -> None:
    path, _, _ = logged
    out = runner.invoke(main, ["replay", "99", "--db", str(path)])
    assert out.exit_code == 1 and "no game with id 99" in out.output


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "bgstats", "record"])
def test_export_to_stdout_and_file(runner: CliRunner, logged: tuple[Path, int, int],
                                   fmt: str, tmp_path: Path) -> None:
    path, gid, _ = logged
    out = runner.invoke(main, ["export", str(gid), "--format", fmt, "--db", str(path)])
    assert out.exit_code == 0, out.output
    target = tmp_path / f"game.{fmt}"
    written = runner.invoke(main, ["export", str(gid), "--format", fmt, "--db", str(path),
                                   "-o", str(target)])
    assert written.exit_code == 0, written.output
    assert target.read_text() == out.output
    if fmt == "jsonl":
        assert len([json.loads(x) for x in out.output.splitlines()]) == 8
    elif fmt == "bgstats":
        assert json.loads(out.output)["players"][1]["winner"] is True
    elif fmt == "csv":
        assert out.output.splitlines()[0].startswith("game_id,game,date")
    else:
        assert out.output.startswith("Game: colovini")


def test_export_bgstats_of_a_running_game_explains(runner: CliRunner,
                                                   logged: tuple[Path, int, int]) -> None:
    path, _, running = logged
    out = runner.invoke(main, ["export", str(running), "--format", "bgstats", "--db", str(path)])
    assert out.exit_code == 1 and "finished plays only" in out.output
