"""Defect 5 of issue 27: a log that cannot be written fails loudly, never quietly. On a full
disk (a real tmpfs filled up) and with another program holding the SQLite write lock for
more than 10 s, the page and the board say plainly that the log cannot be written and why,
the move stands and is kept, and it is written when the log is back: nothing is lost."""

from __future__ import annotations

import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from meridian_table.ledplan import BLINK
from meridian_table.store import LogUnwritableError, Store
from meridian_table.table.runner import RunningTable, TableSetup, open_table


def _wait(check: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"never: {what}")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs of its own: a disk that really fills up."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _table(db: Path) -> RunningTable:
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       db=str(db), settle_s=0.03)
    table = open_table(setup)
    assert table.wait_ready(30)
    return table


def _place(table: RunningTable, site: str) -> None:
    before = len(table.session.state()["moves"])
    table.virtual.set_site(site, True)
    _wait(lambda: len(table.session.state()["moves"]) > before, f"{site} taken")


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def _logged(db: Path, gid: int) -> list[str]:
    with Store.open(db, readonly=True) as store:
        return [str(e.payload["notation"]) for e in store.moves(gid)]


def _amber(table: RunningTable) -> bool:
    leds = table.session.state()["leds"]
    return any(v == {"colour": "#ff8c00", "effect": BLINK} for v in leds.values())


def test_log_unwritable_full_disk_is_said_and_nothing_is_lost(small_disk: Path) -> None:
    db = small_disk / "games.sqlite3"
    table = _table(db)
    try:
        gid = table.session.journal.game_id
        assert gid is not None
        first = table.session.state()["legal"][0]
        _place(table, first)
        filler = _fill(small_disk)
        second = table.session.state()["legal"][0]
        _place(table, second)  # the move stands: it is not dropped, not taken back
        state = _wait(lambda: (s := table.session.state())["error"] and s, "the error shown")
        assert "game log cannot be written" in state["error"]
        assert "disk is full" in state["error"] and "nothing is lost" in state["error"]
        assert [m["notation"] for m in state["moves"]][-1] == second
        assert _wait(lambda: _amber(table), "the board blinks amber")
        third = table.session.state()["legal"][0]
        _place(table, third)  # play goes on, the log keeps the order
        assert _logged(db, gid) == [first]
        filler.unlink()  # the disk has room again
        _wait(lambda: not table.session.state()["error"], "the error cleared")
        assert _logged(db, gid) == [first, second, third]
        assert not _amber(table)
    finally:
        table.close()


def test_log_unwritable_a_new_log_on_a_full_disk_says_so(small_disk: Path) -> None:
    _fill(small_disk)
    with pytest.raises(LogUnwritableError, match="disk is full") as caught:
        Store.open(small_disk / "new.sqlite3").close()
    assert "Report this as a bug" not in str(caught.value)
    assert "older Meridian Table" not in str(caught.value)


def test_log_unwritable_a_write_lock_held_past_10_s(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    table = _table(db)
    holder = sqlite3.connect(str(db), isolation_level=None, check_same_thread=False)
    try:
        gid = table.session.journal.game_id
        assert gid is not None
        first = table.session.state()["legal"][0]
        _place(table, first)
        holder.execute("BEGIN EXCLUSIVE")  # another program takes the write lock
        second = table.session.state()["legal"][0]
        placing = threading.Thread(target=_place, args=(table, second), daemon=True)
        placing.start()
        state = _wait(lambda: (s := table.session.state())["error"] and s,
                      "the error shown", timeout=90)
        assert "write lock" in state["error"] and "cannot be written" in state["error"]
        placing.join(60)
        assert [m["notation"] for m in table.session.state()["moves"]][-1] == second
        holder.execute("ROLLBACK")  # the other program lets go
        _wait(lambda: not table.session.state()["error"], "the error cleared", timeout=90)
        assert _logged(db, gid) == [first, second]
    finally:
        holder.close()
        table.close()

