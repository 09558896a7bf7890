"""Shared fixtures for the store tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from meridian_table.store import Store


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "log" / "games.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    with Store.open(db_path) as opened:
        yield opened

