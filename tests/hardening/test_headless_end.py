"""The README's headless example makes its move: end of input first finishes what the
board sensed, and quick successive `place` lines each count (issue 10, item 11)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from meridian_table.store import Store

BIN = Path(sys.executable).with_name("meridian-table")


def play(script: str, db: Path) -> list[dict[str, object]]:
    """`echo SCRIPT | meridian-table play kato --headless --board sim`, a real process."""
    result = subprocess.run(
        [str(BIN), "play", "kato", "--headless", "--board", "sim", "--db", str(db)],
        input=script, capture_output=True, text=True, timeout=120,
        env={**os.environ, "MERIDIAN_TABLE_BOARDS": ""},
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def logged_moves(db: Path) -> list[str]:
    with Store.open(db, readonly=True) as store:
        (game,) = store.games()
        return store.actions(game.id)


def test_the_readme_example_makes_its_move_and_logs_it(tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite3"
    records = play("place G6\n", db)
    assert [r["notation"] for r in records if r["event"] == "move"] == ["G6"]
    assert logged_moves(db) == ["G6"]


@pytest.mark.parametrize("ending", ["", "quit\n"])
def test_quick_successive_places_each_count(tmp_path: Path, ending: str) -> None:
    db = tmp_path / "log.sqlite3"
    records = play("place G6\nplace J7\nplace G8\n" + ending, db)
    assert [r["notation"] for r in records if r["event"] == "move"] == ["G6", "J7", "G8"]
    assert logged_moves(db) == ["G6", "J7", "G8"]
