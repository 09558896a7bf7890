"""A real table session with a real SQLite log behind the web app, for hostile clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.table.fakes import FakeBoard, FakeClock

from meridian_table.games.kato.adapter import KatoAdapter
from meridian_table.profiles import load_profile
from meridian_table.store import Store
from meridian_table.table import TableSession
from meridian_table.table.lobby import LoggedTable
from meridian_table.table.storejournal import StoreArchive, start_game


@pytest.fixture
def logged_session(tmp_path: Path) -> Iterator[LoggedTable]:
    """The session and its log's archive, as the page is served them (the archive's
    commands, games/replay/review, are the lobby's)."""
    with Store.open(tmp_path / "log.sqlite3") as store:
        adapter = KatoAdapter(6, pie=False, assist="full")
        profile = load_profile("kato-114")
        board = FakeBoard(profile)
        journal = start_game(store, adapter, ["Ann", "Bob"], profile="kato-114",
                             settings=adapter.settings())
        session = TableSession(adapter, profile, board, journal=journal, clock=FakeClock(),
                               players=("Ann", "Bob"))
        board.session = session
        yield LoggedTable(session, StoreArchive(store))
