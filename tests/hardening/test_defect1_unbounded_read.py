"""Defect 1 of issue 27: data files are regular files under a size limit, read with a
bound; a page names shipped data by name and never a host path; its errors tell nothing
about other files on the host."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from meridian_table import datafile
from meridian_table.cli.main import main
from meridian_table.games.colovini import record as colovini_record
from meridian_table.games.colovini.engine import new_game as colovini_game
from meridian_table.games.colovini.maps import MapError, load_map, maps_dir
from meridian_table.games.empire import record as empire_record
from meridian_table.games.empire.data_files import DataError
from meridian_table.games.empire.files import load_cards
from meridian_table.games.empire.files import load_map as load_empire_map
from meridian_table.profiles import ProfileError, load_profile
from meridian_table.store import ReplayError, Store
from meridian_table.store.replay import replay
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup, open_table

# Each reader in a child process limited to 512 MiB of address space: before the fix,
# /dev/zero filled memory (MemoryError, a traceback) or a FIFO blocked the open forever.
_READERS = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (512 * 2**20, 512 * 2**20))
from meridian_table.games.colovini.maps import MapError, load_map
from meridian_table.games.empire.data_files import DataError
from meridian_table.games.empire.files import load_cards, load_map as empire_map
from meridian_table.games.empire.engine import new_game
from meridian_table.profiles import ProfileError, load_profile
from meridian_table.store import ReplayError, Store
from meridian_table.store.replay import replay
path = sys.argv[1]
for name, read in [("colovini map", lambda: load_map(path)),
                   ("empire map", lambda: empire_map(path)),
                   ("empire cards", lambda: load_cards(path)),
                   ("empire game", lambda: new_game(["A", "B"], map=path)),
                   ("profile", lambda: load_profile(path))]:
    try:
        read()
    except (MapError, DataError, ProfileError) as exc:
        print(name, "REFUSED", exc)
    else:
        print(name, "READ")
"""


def _run_readers(path: str) -> str:
    done = subprocess.run([sys.executable, "-c", _READERS, path], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    return done.stdout


def test_unbounded_read_of_dev_zero_is_refused_by_every_reader() -> None:
    out = _run_readers("/dev/zero")
    assert out.count("REFUSED") == 5, out
    assert out.count("not a regular file") == 5, out


def test_unbounded_read_of_a_fifo_neither_blocks_nor_reads(tmp_path: Path) -> None:
    fifo = tmp_path / "map.toml"
    os.mkfifo(fifo)
    try:
        out = _run_readers(str(fifo))
    except subprocess.TimeoutExpired:  # before the fix: the open waited for a writer
        pytest.fail("a reader blocked on a FIFO")
    assert out.count("not a regular file") == 5, out


def test_unbounded_read_stops_at_the_size_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * datafile.MAX_DATA_BYTES + b"\n")
    for read in (load_map, load_empire_map, load_cards, load_profile):
        with pytest.raises((MapError, DataError, ProfileError)) as caught:
            read(str(big))  # type: ignore[operator]
        assert "over the limit" in str(caught.value) and str(big) in str(caught.value)


def test_unbounded_read_helper_never_reads_more_than_the_limit(tmp_path: Path) -> None:
    small = tmp_path / "ok.toml"
    small.write_text("name = 'x'\n", encoding="utf-8")
    assert datafile.read_text(small, limit=64) == "name = 'x'\n"
    with pytest.raises(datafile.DataFileError, match="over the limit of 4 bytes"):
        datafile.read_text(small, limit=4)
    with pytest.raises(datafile.DataFileError, match="is a folder"):
        datafile.read_text(tmp_path)
    with pytest.raises(datafile.DataFileError, match="not UTF-8"):
        (tmp_path / "bad.toml").write_bytes(b"\xff\xfe")
        datafile.read_text(tmp_path / "bad.toml")


# --- the page --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableHost]:
    db = tmp_path_factory.mktemp("lobby") / "games.sqlite3"
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       db=str(db), settle_s=0.03)
    with TableHost(open_table(setup)) as lobby:
        assert lobby.table.wait_ready(30)
        yield lobby


def _answer(host: TableHost, cmd: dict[str, Any]) -> dict[str, Any]:
    """The answer, within a minute (before the fix /dev/zero never answered)."""
    out: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: out.append(host.command(cmd)), daemon=True)
    worker.start()
    worker.join(60)
    assert out, f"{cmd} never answered"
    return out[0]


@pytest.mark.parametrize(("game", "option", "players"), [
    ("colovini", "map", ["A", "B"]), ("empire", "map", ["A", "B"]),
    ("empire", "cards", ["A", "B"]),
])
def test_unbounded_read_a_page_never_names_a_host_path(
        host: TableHost, tmp_path: Path, game: str, option: str, players: list[str]) -> None:
    before = host.state()["game_id"]
    readable = tmp_path / "readable.toml"
    readable.write_text("x = 1\n", encoding="utf-8")
    errors = []
    for path in ("/dev/zero", "/etc/shadow", str(readable), "/no/such/file.toml",
                 str(tmp_path), "../../etc/passwd"):
        started = time.monotonic()
        answer = _answer(host, {"cmd": "new_game", "game": game, "players": players,
                                "options": {option: path}})
        assert not answer["ok"], answer
        assert time.monotonic() - started < 30
        errors.append(answer["error"].replace(path[:60], "PATH"))
    # One answer whatever the host holds there: nothing tells whether a file exists.
    assert len(set(errors)) == 1, errors
    assert "shipped" in errors[0] and "command line" in errors[0]
    for word in ("no such", "permission", "cannot", "folder", "regular", "TOML", "line 1"):
        assert word not in errors[0], errors[0]
    assert host.state()["game_id"] == before


def test_unbounded_read_a_page_profile_is_a_name(host: TableHost, tmp_path: Path) -> None:
    before = host.state()["game_id"]
    errors = set()
    for path in ("/dev/zero", "/etc/passwd", str(tmp_path / "none.json"), "/etc/ssl"):
        answer = _answer(host, {"cmd": "new_game", "game": "kato", "profile": path})
        assert not answer["ok"]
        errors.add(answer["error"].replace(path[:60], "PATH"))
    assert len(errors) == 1, errors
    assert host.state()["game_id"] == before


def test_unbounded_read_the_page_form_offers_shipped_names(host: TableHost) -> None:
    games = {g["id"]: g for g in host.command({"cmd": "catalog"})["catalog"]["games"]}
    options = {o["name"]: o for o in games["colovini"]["options"]}
    assert options["map"]["choices"] == ["sample-40", "sample-50"]
    options = {o["name"]: o for o in games["empire"]["options"]}
    assert options["map"]["choices"] == ["sample"] and options["cards"]["choices"] == ["sample"]


# --- records ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/dev/zero", "/etc/hostname", "../my-board.toml"])
def test_unbounded_read_a_record_map_header_is_never_a_path(path: str) -> None:
    text = f"Game: colovini\nPlayers: 2\nMap: {path}\n\n"
    with pytest.raises(colovini_record.RecordError, match="never names a file"):
        colovini_record.parse(text)
    text = f"Game: empire\nPlayers: Ann, Bob\nMap: {path}\n\n"
    with pytest.raises(empire_record.RecordError, match="never names a file"):
        empire_record.parse(text)


def test_unbounded_read_a_record_carries_its_own_map(tmp_path: Path) -> None:
    own = tmp_path / "mine.toml"
    own.write_text((maps_dir() / "sample-50.toml").read_text(encoding="utf-8"), encoding="utf-8")
    game = colovini_game(players=2, map=str(own), seed=3)
    text = colovini_record.export(game)
    assert "Map-Text: " in text
    own.unlink()
    _headers, again = colovini_record.parse(text)
    assert again.board_map.cities == game.board_map.cities


@pytest.mark.parametrize("game", ["empire", "colovini"])
def test_unbounded_read_a_log_that_records_dev_zero_is_refused(tmp_path: Path,
                                                              game: str) -> None:
    """A log written before the files' text was logged (or edited by hand) names a path:
    replaying it reads that path through the bounded reader, and /dev/zero is refused."""
    db = tmp_path / "log.sqlite3"
    options = {"map": "/dev/zero", "names": ["A", "B"], "seed": 1} if game == "empire" else {
        "map": "/dev/zero", "players": 2}
    with Store.open(db) as store:
        gid = store.create_game(game, options, ["A", "B"])
    with Store.open(db, readonly=True) as store:
        with pytest.raises(ReplayError, match="not a regular file"):
            replay(store, gid)


@pytest.mark.parametrize("args", [
    ["empire", "check", "--map", "/dev/zero"],
    ["empire", "check", "--cards", "/dev/zero"],
    ["colovini", "map", "check", "/dev/zero"],
    ["play", "colovini", "--map", "/dev/zero", "--board", "sim", "--db", ":memory:",
     "--headless"],
])
def test_unbounded_read_the_command_line_refuses_dev_zero(args: list[str]) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0
    assert "not a regular file" in result.output, result.output
    assert "Traceback" not in result.output
