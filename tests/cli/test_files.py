"""Bad profiles, maps, game logs and build folders: a short error naming the file, the
place in it and the fix; never a traceback, never a changed file."""

from __future__ import annotations

import copy
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tests.cli.helpers import refuse

from meridian_table.cli.main import main
from meridian_table.games.colovini.maps import maps_dir
from meridian_table.profiles.loader import shipped_profile

KATO_80 = json.loads(shipped_profile("kato-80").read_text())


def _profile(tmp_path: Path, name: str, change: Any) -> Path:
    data = copy.deepcopy(KATO_80)
    change(data)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def _set(keys: str, value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        *parents, last = keys.split(".")
        for key in parents:
            data = data[key]
        data[last] = value
    return change


@pytest.mark.parametrize("name, change, key, words", [
    ("wrong-type", _set("matrix.rows", "ten"), "matrix.rows", "must be a whole number"),
    ("dup-led", _set("sites.A2.led", 0), "sites.A2.led", "LED 0 is already used by A1"),
    ("no-pin", _set("leds.pin", 40), "leds.pin", "GP40 does not exist on a Pico"),
    ("no-row-pin", _set("matrix.row_pins", [30, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
     "matrix.row_pins[0]", "GP30 does not exist"),
    ("dup-pos", _set("sites.A2.pos", 0), "sites.A2.pos", "already used by A1"),
    ("bool-pos", _set("sites.A2.pos", True), "sites.A2.pos", "found true"),
    ("chess", _set("game", "chess"), "game", "use one of colovini"),
])
def test_a_bad_profile_names_file_key_and_fix(tmp_path: Path, name: str, change: Any,
                                              key: str, words: str) -> None:
    path = _profile(tmp_path, name, change)
    before = path.read_bytes()
    refuse(["profile", "show", str(path)], str(path), key, words, code=1)
    refuse(["play", "kato", "--profile", str(path), "--headless", "--db", ":memory:"],
           str(path), key, words, code=1)
    refuse(["sim", "--profile", str(path)], str(path), key, code=2)
    assert path.read_bytes() == before


def test_profile_files_that_are_not_profiles(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(KATO_80)[:500])
    refuse(["profile", "show", str(broken)], str(broken), "is not valid JSON", "line 1",
           code=1)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00junk")
    refuse(["profile", "show", str(binary)], str(binary), "is not UTF-8 text", code=1)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    refuse(["profile", "show", str(folder)], str(folder), "is a folder", code=1)
    missing = tmp_path / "missing.json"
    refuse(["profile", "bom", str(missing)], str(missing), "no such profile file", "kato-114",
           code=1)
    refuse(["calibrate", "--profile", "no-such-board"], "no-such-board",
           "no board profile has this name", "kato-114", code=1)


def test_profile_check_reports_every_bad_file_and_fails(tmp_path: Path) -> None:
    good = shipped_profile("kato-80")
    # A long folder: the failing file's path must come out whole, never folded inside it.
    deep = tmp_path / ("a-long-folder-name-" * 4)
    deep.mkdir()
    bad = _profile(deep, "dup", _set("sites.A2.led", 0))
    result = CliRunner().invoke(main, ["profile", "check", str(good), str(bad)],
                                terminal_width=400)
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "ok   kato-80" in result.output
    assert f"FAIL {bad}: sites.A2.led: LED 0 is already used by A1" in " ".join(
        result.output.split())


# -- Colovini maps -------------------------------------------------------------------

SAMPLE_40 = (maps_dir() / "sample-40.toml").read_text()


def _map(tmp_path: Path, name: str, old: str, new: str) -> Path:
    assert old in SAMPLE_40, old
    path = tmp_path / f"{name}.toml"
    path.write_text(SAMPLE_40.replace(old, new, 1))
    return path


@pytest.mark.parametrize("name, old, new, words", [
    ("side", "side = 4", "side = 7", "side is 7"),
    ("count", '1  = ["A", "D", "F", "I"]', '1  = ["A", "D", "F"]', "wrong city count"),
    ("missing", '10 = ["C", "E", "H", "K"]', "", "meridians [10] are missing"),
    ("duplicate", '10 = ["C", "E", "H", "K"]', '10 = ["C", "E", "H", "K"]\n10 = ["C", "E", "H", "K"]',
     "duplicate city"),
    ("small-capital", '3  = ["A", "D", "F*", "I"]', '3  = ["A", "D", "F", "I*"]',
     "capital on a small island"),
    ("two-on-meridian", '9  = ["C", "E", "H", "K"]', '9  = ["C", "E", "H", "C"]',
     "two cities on meridian 9"),
    ("orphan", 'name = "Kora"', 'name = "Kora"\n[islands.Z]\nname = "Zed"',
     "island 'Z' is described but no city belongs to it"),
    ("city", '1  = ["A", "D", "F", "I"]', '1  = ["A", "D", 7, "I"]', "city 1.3 is 7"),
    ("meridian", '1  = ["A", "D", "F", "I"]', '11 = ["A", "D", "F", "I"]', "meridian '11'"),
    ("value", 'name = "Kora"', 'name = "Kora"\nvalue = -1', "has value -1"),
    ("toml", "side = 4", "side = 4\nfoo = [", "not valid TOML"),
])
def test_each_map_error_names_file_line_and_fix(tmp_path: Path, name: str, old: str,
                                                new: str, words: str) -> None:
    path = _map(tmp_path, name, old, new)
    error = refuse(["colovini", "map", "check", str(path)], f"{path}:", words, "Fix:", code=1)
    assert error.split(f"{path}:", 1)[1].split(":", 1)[0].isdigit(), "no line number"
    refuse(["colovini", "score", "--map", str(path)], str(path), words, code=1)


def test_map_files_that_are_not_maps(tmp_path: Path) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe side = 4")
    refuse(["colovini", "map", "check", str(binary)], str(binary), "is not UTF-8 text", code=1)
    refuse(["colovini", "map", "show", str(tmp_path)], str(tmp_path), "is a folder", code=1)
    refuse(["colovini", "map", "check", str(tmp_path / "gone.toml")], "gone.toml", "No such file", code=1)
    refuse(["colovini", "map", "check", "no-such-map"], "no-such-map", "sample-40", code=1)


# -- the game log --------------------------------------------------------------------


@pytest.fixture
def logged_db(tmp_path: Path) -> Path:
    from meridian_table.store import Store

    db = tmp_path / "games.sqlite3"
    with Store.open(db) as store:
        store.create_game("kato", {"size": 6, "pie": False}, ["Ann", "Bob"])
    return db


def test_unknown_game_ids_and_formats(logged_db: Path) -> None:
    refuse(["replay", "99", "--db", str(logged_db)], "99", str(logged_db), "meridian-table games",
           code=1)
    refuse(["export", "99", "--format", "record", "--db", str(logged_db)], "99",
           "meridian-table games", code=1)
    refuse(["export", "1", "--format", "pdf", "--db", str(logged_db)], "--format", "'pdf'",
           "record", code=2)
    refuse(["replay", "one"], "ID", "'one'", code=2)


def test_missing_corrupt_and_folder_logs(tmp_path: Path, logged_db: Path) -> None:
    missing = tmp_path / "none.sqlite3"
    for args in (["games"], ["replay", "1"], ["export", "1", "--format", "csv"]):
        refuse([*args, "--db", str(missing)], str(missing), "does not exist", code=1)
    assert not missing.exists()
    text = tmp_path / "text.sqlite3"
    text.write_text("hello\n")
    refuse(["games", "--db", str(text)], str(text), "not an SQLite database", code=1)
    damaged = tmp_path / "damaged.sqlite3"
    data = bytearray(logged_db.read_bytes())
    for i in range(200, len(data), 7):
        data[i] = 0x55
    damaged.write_bytes(bytes(data))
    refuse(["replay", "1", "--db", str(damaged)], str(damaged), "is damaged", ".recover", code=1)
    refuse(["games", "--db", str(tmp_path)], "--db", "is a directory", code=2)


def test_play_refuses_a_log_it_cannot_use_before_any_board_starts(tmp_path: Path) -> None:
    text = tmp_path / "text.sqlite3"
    text.write_text("hello\n")
    refuse(["play", "kato", "--board", "sim", "--headless", "--db", str(text)],
           str(text), "not an SQLite database", code=1)
    assert text.read_text() == "hello\n"
    refuse(["play", "kato", "--board", "sim", "--headless", "--db", str(tmp_path)],
           str(tmp_path), "not a regular file", code=1)
    typo = tmp_path / "no-such-folder" / "games.sqlite3"
    refuse(["play", "kato", "--board", "sim", "--headless", "--db", str(typo)],
           "--db", str(typo.parent), "does not exist", "mkdir -p", code=2)
    assert not typo.parent.exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs a /proc file system")
def test_a_log_sqlite_cannot_create_is_an_error_not_a_crash() -> None:
    refuse(["play", "kato", "--board", "sim", "--headless", "--db", "/proc/games.sqlite3"],
           "/proc/games.sqlite3", "its folder /proc is read-only", "--db", code=1)


def test_a_read_only_log_is_refused_for_play_but_readable(logged_db: Path) -> None:
    logged_db.chmod(0o444)
    try:
        refuse(["play", "kato", "--board", "sim", "--headless", "--resume", "--db",
                str(logged_db)], str(logged_db), "cannot be written", "chmod u+w", code=1)
        result = CliRunner().invoke(main, ["games", "--db", str(logged_db)])
        assert result.exit_code == 0 and "Ann" in result.output
    finally:
        logged_db.chmod(0o644)
    with sqlite3.connect(logged_db) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] >= 1


# -- players, games, choices -----------------------------------------------------------


@pytest.mark.parametrize("game, players, words", [
    ("kato", "Ann", "kato needs 2 different names"),
    ("kato", "Ann,Bob,Cid", "kato needs 2 different names"),
    ("kato", "Ann,Ann", "'Ann' is named twice"),
    ("colovini", "Ann", "2, 3 or 4"),
    ("colovini", "A,B,C,D,E", "2, 3 or 4"),
])
def test_a_wrong_number_of_players_names_the_option(game: str, players: str,
                                                    words: str) -> None:
    refuse(["play", game, "--players", players, "--board", "sim", "--headless", "--db",
            ":memory:"], "players", words, "--players", code=1)


def test_unknown_choices_are_usage_errors() -> None:
    refuse(["play", "chess"], "'chess'", "kato", "colovini", code=2)
    refuse(["play", "kato", "--assist", "bogus"], "--assist", "'bogus'", "tournament", code=2)
    refuse(["play", "kato", "--profile", "no-such-board", "--db", ":memory:"],
           "no-such-board", "kato-114", code=1)
    refuse(["play", "kato", "--profile", "colovini-50", "--db", ":memory:"],
           "colovini-50", "choose a kato profile", code=1)
    refuse(["bench", "nosuch"], "'nosuch'", "link", code=2)


def test_flash_names_a_build_folder_it_cannot_write(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    refuse(["flash", "--profile", "kato-80", "--build-only", "--build-dir",
            str(blocker / "build")], str(blocker / "build"), "--build-dir", code=1)


def test_an_output_file_that_cannot_be_written(tmp_path: Path, logged_db: Path) -> None:
    target = tmp_path / "no-such-folder" / "out.txt"
    refuse(["export", "1", "--format", "jsonl", "--db", str(logged_db), "-o", str(target)],
           str(target), "No such file or directory", "leave -o out", code=1)
    refuse(["colovini", "map", "show", "sample-40", "-o", str(target)], str(target), "leave -o out", code=1)
