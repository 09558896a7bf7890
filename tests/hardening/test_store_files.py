"""Reading commands never write, and a read-only folder is honoured even for root
(issue 10, items 7 and 8)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.cli.helpers import refuse

from meridian_table.cli.main import main
from meridian_table.store import ReadOnlyDatabaseError, Store


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("command", [["games"], ["replay", "1"], ["export", "1", "--format", "jsonl"]])
def test_an_empty_file_reads_as_an_empty_log_and_stays_empty(
    tmp_path: Path, command: list[str]
) -> None:
    db = tmp_path / "empty.sqlite3"
    db.touch()
    result = CliRunner().invoke(main, [*command, "--db", str(db)])
    assert "Traceback" not in result.output and "no such table" not in result.output
    if command == ["games"]:
        assert result.exit_code == 0, result.output
        assert "no games" in result.output.lower()
    else:
        assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.output
        assert "no game with id 1" in result.output
    assert snapshot(tmp_path) == {"empty.sqlite3": b""}


def test_resume_on_an_empty_file_refuses_without_writing(tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite3"
    db.touch()
    refuse(["play", "kato", "--headless", "--board", "sim", "--resume", "--db", str(db)],
           "no unfinished", "--resume", stdin="")
    assert snapshot(tmp_path) == {"empty.sqlite3": b""}


def test_resume_with_no_log_at_all_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "none.sqlite3"
    refuse(["play", "kato", "--headless", "--board", "sim", "--resume", "--db", str(db)],
           "--resume", stdin="")
    assert not db.exists() and list(tmp_path.iterdir()) == []


def test_a_log_in_a_read_only_folder_is_not_opened_for_writing(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "log.sqlite3"
    with Store.open(db) as store:
        store.create_game("kato", {"size": 6}, ["Ann", "Bob"])
    before = snapshot(folder)
    folder.chmod(0o555)  # root passes os.access() here; the mode bits say read-only
    try:
        with pytest.raises(ReadOnlyDatabaseError, match="read-only"):
            Store.open(db)
        with pytest.raises(ReadOnlyDatabaseError, match="read-only"):
            Store.open(folder / "new.sqlite3")
        with Store.open(db, readonly=True) as store:
            assert len(store.games()) == 1
        refuse(["play", "kato", "--headless", "--board", "sim", "--db", str(db)], "read-only",
               stdin="")
        assert snapshot(folder) == before
    finally:
        folder.chmod(stat.S_IRWXU)
    assert os.access(folder, os.W_OK)
